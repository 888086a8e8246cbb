// Inclusive scan of one 256-element block in LDS (Hillis-Steele), dynamic shared memory.
#define APP_NAME "prefix_scan"
#include "app_common.h"
__global__ void scan(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  buf[t] = t < n ? in[t] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    int v = t >= off ? buf[t - off] : 0;
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  if (t < n) out[t] = buf[t];
}
int main() {
  const int n = 200;
  int h[n], o[n];
  for (int i = 0; i < n; ++i) h[i] = (i % 9) - 3;
  int *in, *out;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&out, sizeof o));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  scan<<<1, 256, 256 * sizeof(int)>>>(in, out, n);
  HIP_CHECK(hipMemcpy(o, out, sizeof o, hipMemcpyDeviceToHost));
  int bad = 0, acc = 0;
  for (int i = 0; i < n; ++i) acc += h[i], bad += o[i] != acc;
  return verdict(bad);
}
