// Row softmax: one workgroup per row (grid-stride over rows), reductions in dynamic LDS
// (launch with dynamic_lds = blockDim.x * 4 bytes). blockDim.x must be a power of two.
#include "common.h"

extern "C" __global__ void softmax_rows_f32(const float* x, float* y, int rows, int cols) {
  extern __shared__ float red[];
  int tid = threadIdx.x;
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
      __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) sum += expf(xr[c] - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) red[tid] += red[tid + s];
      __syncthreads();
    }
    float inv = 1.0f / red[0];
    __syncthreads();
    for (int c = tid; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
  }
}
