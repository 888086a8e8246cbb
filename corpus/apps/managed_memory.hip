// Managed and host-mapped memory: the kernel writes, the host reads the same pointer.
#define APP_NAME "managed_memory"
#include "app_common.h"
__global__ void iota(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}
int main() {
  const int n = 333;
  int *m, *h, *hd;
  HIP_CHECK(hipMallocManaged(&m, n * sizeof(int), hipMemAttachGlobal));
  HIP_CHECK(hipHostMalloc(&h, n * sizeof(int), hipHostMallocMapped));
  HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&hd), h, 0));
  iota<<<(n + 63) / 64, 64>>>(m, n, 10);
  iota<<<(n + 63) / 64, 64>>>(hd, n, -5);
  HIP_CHECK(hipDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += m[i] != 10 + i || h[i] != i - 5;
  HIP_CHECK(hipFree(m)); HIP_CHECK(hipHostFree(h));
  return verdict(bad);
}
