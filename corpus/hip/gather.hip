// Embedding gather: out[r][d] = table[clamp(idx[r], 0, vocab-1)][d]. 2-D grid (x: d, y: r).
#include "common.h"

extern "C" __global__ void gather_rows_f32(const float* table, const int* idx, float* out, int n, int dim, int vocab) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || d >= dim) return;
  int t = idx[r];
  t = t < 0 ? 0 : (t >= vocab ? vocab - 1 : t);
  out[(size_t)r * dim + d] = table[(size_t)t * dim + d];
}
