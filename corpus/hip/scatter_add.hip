// Scatter-add: out[idx[i]] += src[i] with atomicAdd (indices outside [0, m) are skipped).
#include "common.h"

extern "C" __global__ void scatter_add_f32(const float* src, const int* idx, float* out, int n, int m) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int t = idx[i];
    if (t >= 0 && t < m) atomicAdd(&out[t], src[i]);
  }
}
