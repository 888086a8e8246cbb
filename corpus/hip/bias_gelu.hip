// Fused bias + tanh-approximation GELU over a rows x cols matrix, 2-D grid and 2-D workgroups.
// The activation is a real (non-inlined) device function: the kernel contains s_swappc calls.
#include "common.h"

__device__ __noinline__ float gelu_tanh_approx(float v) {
  const float k0 = 0.7978845608028654f;  // sqrt(2/pi)
  const float k1 = 0.044715f;
  return 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
}

extern "C" __global__ void bias_gelu_f32(const float* x, const float* bias, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) y[r * cols + c] = gelu_tanh_approx(x[r * cols + c] + bias[c]);
}
