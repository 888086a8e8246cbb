// tanh with a launch bound of 128 work-items per workgroup.
#include "common.h"

extern "C" __global__ __launch_bounds__(128) void tanh_f32(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(x[i]);
}
