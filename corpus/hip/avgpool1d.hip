// 1-D average pooling, window 3, stride 2, no padding: y[r][o] = (x[r][2o] + x[r][2o+1] + x[r][2o+2]) / 3,
// o < (len - 3) / 2 + 1. Grid: x over output positions, y over rows.
#include "common.h"

extern "C" __global__ void avgpool1d_k3s2_f32(const float* x, float* y, int rows, int len) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (len < 3) return;
  int lout = (len - 3) / 2 + 1;
  if (r >= rows || o >= lout) return;
  const float* p = x + (size_t)r * len + 2 * o;
  y[(size_t)r * lout + o] = (p[0] + p[1] + p[2]) / 3.0f;
}
