// Sum of a vector: grid-stride accumulation, wave reduction with __shfl_down, cross-wave
// reduction through LDS, one atomicAdd per workgroup into out[0] (out is accumulated into).
// blockDim.x must be a multiple of 64 (at most 1024).
#include "common.h"

extern "C" __global__ void reduce_sum_f32(const float* x, float* out, int n) {
  __shared__ float partial[1024 / CORPUS_WAVE];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  s = wave_sum_down(s);
  int lane = threadIdx.x % CORPUS_WAVE, wave = threadIdx.x / CORPUS_WAVE;
  if (lane == 0) partial[wave] = s;
  __syncthreads();
  if (wave == 0) {
    int nwaves = (blockDim.x + CORPUS_WAVE - 1) / CORPUS_WAVE;
    float t = lane < nwaves ? partial[lane] : 0.0f;
    t = wave_sum_down(t);
    if (lane == 0) atomicAdd(out, t);
  }
}
