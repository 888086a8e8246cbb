// Row log-softmax: one wave per row (blockDim.x / 64 rows per workgroup), __shfl_xor reductions.
#include "common.h"

extern "C" __global__ __launch_bounds__(256) void log_softmax_rows_f32(const float* x, float* y, int rows, int cols) {
  int lane = threadIdx.x % CORPUS_WAVE;
  int row = blockIdx.x * (blockDim.x / CORPUS_WAVE) + threadIdx.x / CORPUS_WAVE;
  bool active = row < rows;
  const float* xr = x + (size_t)row * cols;
  float m = -INFINITY;
  if (active)
    for (int c = lane; c < cols; c += CORPUS_WAVE) m = fmaxf(m, xr[c]);
  m = wave_max_xor(m);
  float s = 0.0f;
  if (active)
    for (int c = lane; c < cols; c += CORPUS_WAVE) s += expf(xr[c] - m);
  s = wave_sum_xor(s);
  float lse = m + logf(s);
  if (active)
    for (int c = lane; c < cols; c += CORPUS_WAVE) y[(size_t)row * cols + c] = xr[c] - lse;
}
