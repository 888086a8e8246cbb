// Cross-entropy from logits: loss[r] = logsumexp(logits[r]) - logits[r][label[r]] (0 when the label
// is out of range), and total += loss[r] / rows (atomicAdd). One wave per row, workgroups 64 x R.
#include "common.h"

extern "C" __global__ void cross_entropy_rows_f32(const float* logits, const int* labels, float* loss, float* total,
                                                  int rows, int classes) {
  int lane = threadIdx.x;  // blockDim.x == 64
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = row < rows;
  const float* xr = logits + (size_t)row * classes;
  float m = -INFINITY;
  if (active)
    for (int c = lane; c < classes; c += CORPUS_WAVE) m = fmaxf(m, xr[c]);
  m = wave_max_xor(m);
  float s = 0.0f;
  if (active)
    for (int c = lane; c < classes; c += CORPUS_WAVE) s += expf(xr[c] - m);
  s = wave_sum_xor(s);
  if (active && lane == 0) {
    int t = labels[row];
    float l = (t >= 0 && t < classes) ? (m + logf(s) - xr[t]) : 0.0f;
    loss[row] = l;
    atomicAdd(total, l / (float)rows);
  }
}
