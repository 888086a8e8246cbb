// Row-wise max: one workgroup per row (grid-stride over rows), LDS tree reduction.
// blockDim.x must be a power of two, at most 256.
#include "common.h"

extern "C" __global__ __launch_bounds__(256) void reduce_max_rows_f32(const float* x, float* out, int rows, int cols) {
  __shared__ float smem[256];
  int tid = threadIdx.x;
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    smem[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) smem[tid] = fmaxf(smem[tid], smem[tid + s]);
      __syncthreads();
    }
    if (tid == 0) out[row] = smem[0];
    __syncthreads();
  }
}
