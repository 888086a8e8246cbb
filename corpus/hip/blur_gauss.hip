// 5-tap binomial blur with zero padding; the filter taps live in a __constant__ table, so the
// code references data in the code object (relocated address, s_getpc-relative).
#include "common.h"

__constant__ float kGauss5[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

extern "C" __global__ void blur_gauss5_f32(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 5; ++k) {
    int j = i + k - 2;
    if (j >= 0 && j < n) acc += kGauss5[k] * x[j];
  }
  y[i] = acc;
}
