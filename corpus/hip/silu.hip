// SiLU on bfloat16: y = x * sigmoid(x), computed in f32, rounded to bf16 (nearest even).
#include "common.h"

extern "C" __global__ void silu_bf16(const hip_bfloat16* x, hip_bfloat16* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = static_cast<float>(x[i]);
    y[i] = hip_bfloat16(v / (1.0f + expf(-v)));
  }
}
