// hipMemsetD32/D16/D8, device-to-device copies, and a kernel that checks the pattern on the device.
#define APP_NAME "memset_copy_d2d"
#include "app_common.h"
__global__ void count_mismatch(const unsigned* p, unsigned want, int n, int* errors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i] != want) atomicAdd(errors, 1);
}
int main() {
  const int n = 256;
  unsigned *a, *b;
  int* err;
  HIP_CHECK(hipMalloc(&a, n * 4)); HIP_CHECK(hipMalloc(&b, n * 4)); HIP_CHECK(hipMalloc(&err, 4));
  HIP_CHECK(hipMemsetD32(a, 0x12345678, n));
  HIP_CHECK(hipMemcpy(b, a, n * 4, hipMemcpyDeviceToDevice));
  HIP_CHECK(hipMemsetD16(reinterpret_cast<unsigned short*>(b) + 2 * n - 2, 0xabcd, 2));  // the last word
  HIP_CHECK(hipMemsetD8(err, 0, 4));
  count_mismatch<<<n / 64, 64>>>(b, 0x12345678u, n, err);
  int e = -1;
  HIP_CHECK(hipMemcpy(&e, err, 4, hipMemcpyDeviceToHost));
  unsigned last;
  HIP_CHECK(hipMemcpyDtoH(&last, reinterpret_cast<unsigned char*>(b) + (n - 1) * 4, 4));
  return verdict((e != 1) + (last != 0xabcdabcdu));
}
