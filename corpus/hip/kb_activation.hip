// KernelBench-style level-1 activations (KernelBench level1/19_ReLU, 20_LeakyReLU, 21_Sigmoid,
// 25_Swish, 26_GELU_): a competent first version, one element per work-item, 64-bit element
// count (KernelBench's 4096 x 393216 inputs have 1.6e9 elements).
#include "common.h"

extern "C" __global__ void kb_relu_f32(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" __global__ void kb_leaky_relu_f32(const float* x, float* y, long long n, float negative_slope) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v >= 0.0f ? v : v * negative_slope;
  }
}

extern "C" __global__ void kb_sigmoid_f32(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}

// Swish (SiLU): x * sigmoid(x).
extern "C" __global__ void kb_swish_f32(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v / (1.0f + expf(-v));
  }
}

// torch.nn.functional.gelu default: the exact (erf) form.
extern "C" __global__ void kb_gelu_f32(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}
