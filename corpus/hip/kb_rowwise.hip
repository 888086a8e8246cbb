// KernelBench-style row-wise kernels: one workgroup per row, a power-of-two workgroup (at most
// 256), strided passes over the row and LDS tree reductions (KernelBench level1/23_Softmax,
// 24_LogSoftmax, 38_L1Norm_, 95_CrossEntropyLoss).
#include "common.h"

#define KB_ROW_MAX_THREADS 256

__device__ inline float kb_block_max(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  float r = red[0];
  __syncthreads();
  return r;
}

__device__ inline float kb_block_sum(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float r = red[0];
  __syncthreads();
  return r;
}

extern "C" __global__ __launch_bounds__(256) void kb_softmax_f32(const float* x, float* y, int rows, int cols) {
  __shared__ float red[KB_ROW_MAX_THREADS];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + (long long)row * cols;
  float* yr = y + (long long)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  m = kb_block_max(m, red);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
  s = kb_block_sum(s, red);
  float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}

extern "C" __global__ __launch_bounds__(256) void kb_log_softmax_f32(const float* x, float* y, int rows, int cols) {
  __shared__ float red[KB_ROW_MAX_THREADS];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + (long long)row * cols;
  float* yr = y + (long long)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  m = kb_block_max(m, red);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
  s = kb_block_sum(s, red);
  float lse = m + logf(s);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] - lse;
}

// x / mean(|x|, dim=1)
extern "C" __global__ __launch_bounds__(256) void kb_l1norm_f32(const float* x, float* y, int rows, int cols) {
  __shared__ float red[KB_ROW_MAX_THREADS];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = x + (long long)row * cols;
  float* yr = y + (long long)row * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += fabsf(xr[c]);
  s = kb_block_sum(s, red);
  float inv = (float)cols / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] * inv;
}

// torch.nn.functional.cross_entropy(logits, targets), mean over the batch: each row adds
// (logsumexp(row) - row[target]) / rows to *loss (which starts at 0).
extern "C" __global__ __launch_bounds__(256) void kb_cross_entropy_f32(const float* logits, const long long* targets,
                                                                     float* loss, int rows, int classes) {
  __shared__ float red[KB_ROW_MAX_THREADS];
  int row = blockIdx.x;
  if (row >= rows) return;
  const float* xr = logits + (long long)row * classes;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, xr[c]);
  m = kb_block_max(m, red);
  float s = 0.0f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x) s += expf(xr[c] - m);
  s = kb_block_sum(s, red);
  if (threadIdx.x == 0) {
    long long t = targets[row];
    float picked = (t >= 0 && t < classes) ? xr[t] : 0.0f;
    atomicAdd(loss, (m + logf(s) - picked) / (float)rows);
  }
}
