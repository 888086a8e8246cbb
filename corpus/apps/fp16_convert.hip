// __half arithmetic on the device and __half conversions on the host (the runtime's __gnu_f2h_ieee).
#define APP_NAME "fp16_convert"
// ROCm 5.2.3's amd_hip_fp16.h calls __llvm_amdgcn_rcp_f16/_2f16, which it does not declare under
// clang's HIP wrapper (corpus/hip/common.h explains): declare them before including it.
#include <hip/hip_runtime.h>
extern "C" __device__ __attribute__((const)) _Float16 __llvm_amdgcn_rcp_f16(_Float16) __asm("llvm.amdgcn.rcp.f16");
typedef _Float16 __2f16 __attribute__((ext_vector_type(2)));
extern "C" __device__ inline __2f16 __llvm_amdgcn_rcp_2f16(__2f16 x) { return __2f16{__llvm_amdgcn_rcp_f16(x.x), __llvm_amdgcn_rcp_f16(x.y)}; }
#include <hip/hip_fp16.h>
#include "app_common.h"
__global__ void half_axpy(const __half* x, __half* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(a * __half2float(x[i]) + __half2float(y[i]));
}
int main() {
  const int n = 128;
  __half hx[n], hy[n], r[n];
  for (int i = 0; i < n; ++i) hx[i] = __float2half(i * 0.125f), hy[i] = __float2half(1.0f);
  __half *x, *y;
  HIP_CHECK(hipMalloc(&x, sizeof hx)); HIP_CHECK(hipMalloc(&y, sizeof hy));
  HIP_CHECK(hipMemcpy(x, hx, sizeof hx, hipMemcpyHostToDevice)); HIP_CHECK(hipMemcpy(y, hy, sizeof hy, hipMemcpyHostToDevice));
  half_axpy<<<2, 64>>>(x, y, 2.0f, n);
  HIP_CHECK(hipMemcpy(r, y, sizeof r, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += __half2float(r[i]) != __half2float(__float2half(2.0f * i * 0.125f + 1.0f));
  return verdict(bad);
}
