// Prefix sums.
//  prefix_scan_inclusive_i32: whole-array inclusive scan by a single workgroup (grid = 1; other
//    workgroups exit), chunk by chunk with a running carry; Hillis-Steele steps in double-buffered LDS.
//  scan_blocks_exclusive_u32: per-workgroup exclusive scan of blockDim.x-element segments with
//    __shfl_up inside waves and LDS across waves; each workgroup also writes its segment total to
//    block_sums[blockIdx.x]. blockDim.x must be a multiple of 64.
#include "common.h"

extern "C" __global__ __launch_bounds__(1024) void prefix_scan_inclusive_i32(const int* x, int* y, int n) {
  __shared__ int buf[2][1024];
  if (blockIdx.x != 0) return;
  int tid = threadIdx.x;
  int carry = 0;
  for (int base = 0; base < n; base += blockDim.x) {
    int i = base + tid;
    int pin = 0;
    buf[0][tid] = i < n ? x[i] : 0;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
      int v = buf[pin][tid];
      if (tid >= off) v += buf[pin][tid - off];
      buf[1 - pin][tid] = v;
      pin = 1 - pin;
      __syncthreads();
    }
    if (i < n) y[i] = buf[pin][tid] + carry;
    carry += buf[pin][blockDim.x - 1];
    __syncthreads();
  }
}

extern "C" __global__ void scan_blocks_exclusive_u32(const unsigned* x, unsigned* y, unsigned* block_sums, int n) {
  __shared__ unsigned wsum[1024 / CORPUS_WAVE];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  unsigned v = i < n ? x[i] : 0u;
  int lane = tid % CORPUS_WAVE, w = tid / CORPUS_WAVE;
  unsigned inc = v;
  for (int off = 1; off < CORPUS_WAVE; off <<= 1) {
    unsigned t = __shfl_up(inc, off);
    if (lane >= off) inc += t;
  }
  if (lane == CORPUS_WAVE - 1) wsum[w] = inc;
  __syncthreads();
  unsigned prefix = 0;
  for (int k = 0; k < w; ++k) prefix += wsum[k];
  if (i < n) y[i] = prefix + inc - v;
  if (tid == (int)blockDim.x - 1) block_sums[blockIdx.x] = prefix + inc;
}
