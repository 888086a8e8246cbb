// 16-bin histogram with global atomicAdd; memset clears the bins first.
#define APP_NAME "histogram_atomic"
#include "app_common.h"
__global__ void histogram(const unsigned* in, unsigned* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] % 16], 1u);
}
int main() {
  const int n = 1500;
  unsigned h[n], want[16] = {}, got[16];
  for (int i = 0; i < n; ++i) h[i] = (i * 7919u) ^ (i >> 3), want[h[i] % 16]++;
  unsigned *in, *bins;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&bins, sizeof got));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(bins, 0, sizeof got));
  histogram<<<(n + 255) / 256, 256>>>(in, bins, n);
  HIP_CHECK(hipMemcpy(got, bins, sizeof got, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < 16; ++b) bad += got[b] != want[b];
  return verdict(bad);
}
