// Multi-channel 1-D convolution (cross-correlation, "valid" padding):
// y[f][o] = bias[f] + sum_c sum_k w[f][c][k] * x[c][o + k], o < len - ksize + 1.
// 2-D grid: x covers output positions, y the output channels.
#include "common.h"

extern "C" __global__ void conv1d_f32(const float* x, const float* w, const float* bias, float* y,
                                      int cin, int cout, int len, int ksize) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int f = blockIdx.y;
  int lout = len - ksize + 1;
  if (f >= cout || o >= lout) return;
  float acc = bias[f];
  for (int c = 0; c < cin; ++c)
    for (int k = 0; k < ksize; ++k) acc += w[(f * cin + c) * ksize + k] * x[c * len + o + k];
  y[f * lout + o] = acc;
}
