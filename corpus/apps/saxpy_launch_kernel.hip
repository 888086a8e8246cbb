// y = a*x + y through hipLaunchKernel (the explicit form of the chevron launch).
#define APP_NAME "saxpy_launch_kernel"
#include "app_common.h"
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
  const int n = 700;
  float hx[n], hy[n], r[n];
  for (int i = 0; i < n; ++i) hx[i] = 0.25f * i, hy[i] = 1.0f + i % 7;
  float *x, *y;
  HIP_CHECK(hipMalloc(&x, n * 4)); HIP_CHECK(hipMalloc(&y, n * 4));
  HIP_CHECK(hipMemcpy(x, hx, n * 4, hipMemcpyHostToDevice)); HIP_CHECK(hipMemcpy(y, hy, n * 4, hipMemcpyHostToDevice));
  float a = 2.5f;
  int nn = n;
  void* args[] = {&a, &x, &y, &nn};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(saxpy), dim3((n + 127) / 128), dim3(128), args, 0, nullptr));
  HIP_CHECK(hipMemcpy(r, y, n * 4, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += !near(r[i], a * hx[i] + hy[i]);
  return verdict(bad);
}
