// KernelBench-style normalizations (KernelBench level1/36_RMSNorm_, 40_LayerNorm).
#include "common.h"

// RMSNorm over dim 1 of x[batch, features, spatial]: y = x / sqrt(mean(x^2 over features) + eps).
// One work-item per (batch, spatial position), looping over the features.
extern "C" __global__ void kb_rmsnorm_f32(const float* x, float* y, int batch, int features, int spatial, float eps) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)batch * spatial) return;
  long long b = i / spatial, s = i % spatial;
  const float* xp = x + b * features * spatial + s;
  float* yp = y + b * features * spatial + s;
  float ss = 0.0f;
  for (int f = 0; f < features; ++f) {
    float v = xp[(long long)f * spatial];
    ss += v * v;
  }
  float inv = 1.0f / sqrtf(ss / (float)features + eps);
  for (int f = 0; f < features; ++f) yp[(long long)f * spatial] = xp[(long long)f * spatial] * inv;
}

__device__ inline float kb_norm_block_sum(float v, float* red) {
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

// nn.LayerNorm(normalized_shape = everything but the batch dim), elementwise affine: one workgroup
// (power of two, at most 256) per sample; mean, then the biased variance of (x - mean), then
// y = (x - mean) / sqrt(var + eps) * weight + bias.
extern "C" __global__ __launch_bounds__(256) void kb_layernorm_f32(const float* x, const float* weight, const float* bias,
                                                                 float* y, int batch, int n, float eps) {
  __shared__ float red[256];
  int b = blockIdx.x;
  if (b >= batch) return;
  const float* xs = x + (long long)b * n;
  float* ys = y + (long long)b * n;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += xs[i];
  float mean = kb_norm_block_sum(s, red) / (float)n;
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float d = xs[i] - mean;
    v += d * d;
  }
  float var = kb_norm_block_sum(v, red) / (float)n;
  float inv = 1.0f / sqrtf(var + eps);
  for (int i = threadIdx.x; i < n; i += blockDim.x) ys[i] = (xs[i] - mean) * inv * weight[i] + bias[i];
}
