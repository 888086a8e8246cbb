// Polynomial coefficients in __constant__ memory (hipMemcpyToSymbol), a counter read back with
// hipMemcpyFromSymbol after a second kernel bumps it.
#define APP_NAME "constant_symbol"
#include "app_common.h"
__constant__ float coeff[4];
__device__ int calls;
__global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ((coeff[3] * x[i] + coeff[2]) * x[i] + coeff[1]) * x[i] + coeff[0];
  if (i == 0) atomicAdd(&calls, 1);
}
int main() {
  const int n = 300;
  float hx[n], hy[n], c[4] = {1.0f, -0.5f, 0.25f, 2.0f};
  for (int i = 0; i < n; ++i) hx[i] = (i - 150) / 64.0f;
  float *x, *y;
  HIP_CHECK(hipMalloc(&x, sizeof hx)); HIP_CHECK(hipMalloc(&y, sizeof hy));
  HIP_CHECK(hipMemcpy(x, hx, sizeof hx, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof c));
  int zero = 0;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(calls), &zero, sizeof zero));
  poly<<<(n + 127) / 128, 128>>>(x, y, n);
  poly<<<(n + 127) / 128, 128>>>(x, y, n);
  HIP_CHECK(hipMemcpy(hy, y, sizeof hy, hipMemcpyDeviceToHost));
  int got_calls = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&got_calls, HIP_SYMBOL(calls), sizeof got_calls));
  int bad = got_calls != 2;
  for (int i = 0; i < n; ++i) bad += !near(hy[i], ((c[3] * hx[i] + c[2]) * hx[i] + c[1]) * hx[i] + c[0]);
  return verdict(bad);
}
