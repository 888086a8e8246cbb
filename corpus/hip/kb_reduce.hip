// KernelBench-style reductions over a dimension, scans and losses (KernelBench level1/47_Sum_,
// 49_Max_, 51_Argmax_over_a_dimension, 89_cumsum, 94_MSELoss, 96_HuberLoss).
#include "common.h"

// x[batch, dim1, dim2] reduced over dim1 -> out[batch, dim2]: one work-item per (batch, column).
extern "C" __global__ void kb_sum_dim1_f32(const float* x, float* out, int batch, int dim1, int dim2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // batch * dim2 outputs fit in 32 bits
  if (i >= batch * dim2) return;
  int b = i / dim2, c = i % dim2;
  const float* p = x + (long long)b * dim1 * dim2 + c;
  float s = 0.0f;
  for (int r = 0; r < dim1; ++r) s += p[(long long)r * dim2];
  out[i] = s;
}

extern "C" __global__ void kb_max_dim1_f32(const float* x, float* out, int batch, int dim1, int dim2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // batch * dim2 outputs fit in 32 bits
  if (i >= batch * dim2) return;
  int b = i / dim2, c = i % dim2;
  const float* p = x + (long long)b * dim1 * dim2 + c;
  float m = -INFINITY;
  for (int r = 0; r < dim1; ++r) m = fmaxf(m, p[(long long)r * dim2]);
  out[i] = m;
}

// torch.argmax(dim=1): int64 indices, the first maximum wins.
extern "C" __global__ void kb_argmax_dim1_f32(const float* x, long long* out, int batch, int dim1, int dim2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // batch * dim2 outputs fit in 32 bits
  if (i >= batch * dim2) return;
  int b = i / dim2, c = i % dim2;
  const float* p = x + (long long)b * dim1 * dim2 + c;
  float best = p[0];
  long long idx = 0;
  for (int r = 1; r < dim1; ++r) {
    float v = p[(long long)r * dim2];
    if (v > best) best = v, idx = r;
  }
  out[i] = idx;
}

// Inclusive cumulative sum along each row: one workgroup of 256 per row, chunks of 256 scanned in
// LDS (Hillis-Steele), a running carry between chunks.
extern "C" __global__ __launch_bounds__(256) void kb_cumsum_f32(const float* x, float* y, int rows, int cols) {
  __shared__ float buf[256];
  __shared__ float carry;
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + (long long)row * cols;
  float* yr = y + (long long)row * cols;
  if (threadIdx.x == 0) carry = 0.0f;
  __syncthreads();
  for (int base = 0; base < cols; base += 256) {
    int c = base + threadIdx.x;
    buf[threadIdx.x] = c < cols ? xr[c] : 0.0f;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
      float add = threadIdx.x >= (unsigned)off ? buf[threadIdx.x - off] : 0.0f;
      __syncthreads();
      buf[threadIdx.x] += add;
      __syncthreads();
    }
    if (c < cols) yr[c] = carry + buf[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 255) carry += buf[255];
    __syncthreads();
  }
}

__device__ inline float kb_loss_block_sum(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  return red[0];
}

// mean((a - b)^2) over n elements into *loss (which starts at 0): grid-stride partial sums, one
// float atomicAdd per workgroup (power of two, at most 256).
extern "C" __global__ __launch_bounds__(256) void kb_mse_loss_f32(const float* a, const float* b, float* loss, long long n) {
  __shared__ float red[256];
  float s = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float d = a[i] - b[i];
    s += d * d;
  }
  s = kb_loss_block_sum(s, red);
  if (threadIdx.x == 0) atomicAdd(loss, s * (float)(1.0 / (double)n));
}

// smooth_l1_loss (beta = 1), mean: 0.5 d^2 where |d| < 1, else |d| - 0.5.
extern "C" __global__ __launch_bounds__(256) void kb_huber_loss_f32(const float* a, const float* b, float* loss, long long n) {
  __shared__ float red[256];
  float s = 0.0f;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float d = fabsf(a[i] - b[i]);
    s += d < 1.0f ? 0.5f * d * d : d - 0.5f;
  }
  s = kb_loss_block_sum(s, red);
  if (threadIdx.x == 0) atomicAdd(loss, s * (float)(1.0 / (double)n));
}
