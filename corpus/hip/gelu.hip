// Exact (erf) GELU on half precision: computed in f32, rounded to f16.
#include "common.h"

extern "C" __global__ void gelu_f16(const __half* x, __half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(x[i]);
    float g = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    y[i] = __float2half(g);
  }
}
