// y = max(x, 0), grid-stride loop (the grid may be smaller than n / blockDim).
#include "common.h"

extern "C" __global__ void relu_f32(const float* x, float* y, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;
  }
}
