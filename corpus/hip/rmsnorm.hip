// RMSNorm on half precision: one workgroup per row, f32 accumulation,
// y = x * rsqrt(mean(x^2) + eps) * w, rounded to f16. blockDim.x must be a multiple of 64.
#include "common.h"

extern "C" __global__ void rmsnorm_f16(const __half* x, const __half* w, __half* y, int rows, int cols, float eps) {
  __shared__ float partial[1024 / CORPUS_WAVE];
  int row = blockIdx.x;
  if (row >= rows) return;  // uniform per workgroup
  const __half* xr = x + (size_t)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = __half2float(xr[c]);
    s += v * v;
  }
  s = wave_sum_xor(s);
  if (threadIdx.x % CORPUS_WAVE == 0) partial[threadIdx.x / CORPUS_WAVE] = s;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < (int)(blockDim.x / CORPUS_WAVE); ++i) total += partial[i];
  float r = rsqrtf(total / (float)cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)row * cols + c] = __float2half(__half2float(xr[c]) * r * __half2float(w[c]));
}
