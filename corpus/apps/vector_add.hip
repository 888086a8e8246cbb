// out = a + b with the triple-chevron launch.
#define APP_NAME "vector_add"
#include "app_common.h"
__global__ void vector_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
int main() {
  const int n = 1000;
  float ha[n], hb[n], ho[n];
  for (int i = 0; i < n; ++i) ha[i] = i * 0.5f, hb[i] = 3.0f - i;
  float *a, *b, *o;
  HIP_CHECK(hipMalloc(&a, n * 4)); HIP_CHECK(hipMalloc(&b, n * 4)); HIP_CHECK(hipMalloc(&o, n * 4));
  HIP_CHECK(hipMemcpy(a, ha, n * 4, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(b, hb, n * 4, hipMemcpyHostToDevice));
  vector_add<<<(n + 255) / 256, 256>>>(a, b, o, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(ho, o, n * 4, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += ho[i] != ha[i] + hb[i];
  HIP_CHECK(hipFree(a)); HIP_CHECK(hipFree(b)); HIP_CHECK(hipFree(o));
  return verdict(bad);
}
