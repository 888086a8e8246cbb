// LayerNorm over the last dimension: one workgroup per row, two-pass mean / variance,
// y = (x - mean) * rsqrt(var + eps) * gamma + beta. blockDim.x must be a multiple of 64.
#include "common.h"

extern "C" __global__ void layernorm_f32(const float* x, const float* gamma, const float* beta, float* y,
                                         int rows, int cols, float eps) {
  __shared__ float sh[1024 / CORPUS_WAVE];
  int row = blockIdx.x;
  if (row >= rows) return;  // uniform per workgroup
  const float* xr = x + (size_t)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  float mean = block_sum(s, sh) / (float)cols;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = xr[c] - mean;
    v += d * d;
  }
  float var = block_sum(v, sh) / (float)cols;
  float rstd = rsqrtf(var + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)row * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
