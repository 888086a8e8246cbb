// y = alpha * x + y, grid-stride loops; an f32 and an f64 variant in one code object.
#include "common.h"

extern "C" __global__ void axpy_f32(float alpha, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void axpy_f64(double alpha, const double* x, double* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = alpha * x[i] + y[i];
}
