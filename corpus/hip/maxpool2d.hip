// 2x2 max pooling, stride 2 (floor): y[c][H/2][W/2]. 2-D workgroups, grid z = channel.
#include "common.h"

extern "C" __global__ void maxpool2d_2x2_f32(const float* x, float* y, int C, int H, int W) {
  int Ho = H / 2, Wo = W / 2;
  int ow = blockIdx.x * blockDim.x + threadIdx.x;
  int oh = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.z;
  if (c >= C || oh >= Ho || ow >= Wo) return;
  const float* p = x + ((size_t)c * H + 2 * oh) * W + 2 * ow;
  float m = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[W], p[W + 1]));
  y[((size_t)c * Ho + oh) * Wo + ow] = m;
}
