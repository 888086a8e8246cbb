// Row-wise mean: one workgroup per row (blockIdx.x), __shfl_down within waves, LDS across waves.
// blockDim.x must be a multiple of 64.
#include "common.h"

extern "C" __global__ void mean_rows_f32(const float* x, float* out, int rows, int cols) {
  __shared__ float partial[1024 / CORPUS_WAVE];
  int row = blockIdx.x;
  if (row >= rows) return;  // uniform per workgroup
  const float* xr = x + (size_t)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  s = wave_sum_down(s);
  if (threadIdx.x % CORPUS_WAVE == 0) partial[threadIdx.x / CORPUS_WAVE] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < (int)(blockDim.x / CORPUS_WAVE); ++w) t += partial[w];
    out[row] = t / (float)cols;
  }
}
