// Block-wise sum with LDS and __syncthreads, then the host adds the partial sums.
#define APP_NAME "reduce_sum"
#include "app_common.h"
__global__ void block_sum(const float* in, float* partial, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) s[t] += s[t + w];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
int main() {
  const int n = 2000, blocks = (n + 255) / 256;
  float h[n], p[blocks];
  double want = 0;
  for (int i = 0; i < n; ++i) h[i] = (i % 13) - 6, want += h[i];
  float *in, *part;
  HIP_CHECK(hipMalloc(&in, n * 4)); HIP_CHECK(hipMalloc(&part, blocks * 4));
  HIP_CHECK(hipMemcpy(in, h, n * 4, hipMemcpyHostToDevice));
  block_sum<<<blocks, 256>>>(in, part, n);
  HIP_CHECK(hipMemcpy(p, part, blocks * 4, hipMemcpyDeviceToHost));
  double got = 0;
  for (int b = 0; b < blocks; ++b) got += p[b];
  return verdict(got != want);
}
