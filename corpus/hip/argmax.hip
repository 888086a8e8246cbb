// Row-wise argmax (first index of the maximum, -1 for an empty row). One wave per row:
// workgroups are 64 x R (threadIdx.y selects the row within the workgroup), __shfl_xor merge.
#include "common.h"

extern "C" __global__ void argmax_rows_f32(const float* x, int* out, int rows, int cols) {
  int lane = threadIdx.x;  // blockDim.x == 64
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  float best = -INFINITY;
  int idx = 0x7fffffff;
  if (row < rows) {
    const float* xr = x + (size_t)row * cols;
    for (int c = lane; c < cols; c += CORPUS_WAVE) {
      float v = xr[c];
      if (v > best) { best = v; idx = c; }
    }
  }
  for (int m = CORPUS_WAVE / 2; m > 0; m >>= 1) {
    float ov = __shfl_xor(best, m);
    int oi = __shfl_xor(idx, m);
    if (ov > best || (ov == best && oi < idx)) { best = ov; idx = oi; }
  }
  if (row < rows && lane == 0) out[row] = idx == 0x7fffffff ? -1 : idx;
}
