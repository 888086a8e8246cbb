// A three-stage pipeline (normalize -> square -> dot-product partials) with templates and a
// struct argument passed by value, as larger programs have.
#define APP_NAME "multi_kernel_pipeline"
#include "app_common.h"
struct Affine {
  float scale, shift;
};
template <typename T>
__global__ void normalize(const T* in, T* out, Affine a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * a.scale + a.shift;
}
template <typename T>
__global__ void square(T* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * p[i];
}
__global__ void dot_partial(const float* a, const float* b, float* part, int n) {
  __shared__ float s[64];
  int i = blockIdx.x * 64 + threadIdx.x;
  s[threadIdx.x] = i < n ? a[i] * b[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int k = 0; k < 64; ++k) t += s[k];
    part[blockIdx.x] = t;
  }
}
int main() {
  const int n = 500, blocks = (n + 63) / 64;
  float h[n], p[blocks];
  for (int i = 0; i < n; ++i) h[i] = (i % 17) * 0.25f;
  float *in, *x, *part;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&x, sizeof h)); HIP_CHECK(hipMalloc(&part, sizeof p));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  Affine a{2.0f, -1.0f};
  normalize<float><<<blocks, 64>>>(in, x, a, n);
  square<float><<<blocks, 64>>>(x, n);
  dot_partial<<<blocks, 64>>>(x, in, part, n);
  HIP_CHECK(hipMemcpy(p, part, sizeof p, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    float want = 0;
    for (int k = 0; k < 64 && b * 64 + k < n; ++k) {
      float v = h[b * 64 + k] * a.scale + a.shift;
      want += v * v * h[b * 64 + k];
    }
    bad += !near(p[b], want, 1e-4f);
  }
  return verdict(bad);
}
