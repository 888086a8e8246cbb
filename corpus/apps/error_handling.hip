// Errors come back as codes with names and strings: a bad launch configuration, a bad free.
#define APP_NAME "error_handling"
#include "app_common.h"
#include <cstring>
__global__ void noop(int* p) {
  if (p) p[threadIdx.x] = 1;
}
int main() {
  int bad = 0;
  noop<<<1, 4096>>>(nullptr);  // more than 1024 work-items per block
  hipError_t e = hipGetLastError();
  bad += e != hipErrorInvalidConfiguration;
  bad += std::strcmp(hipGetErrorName(e), "hipErrorInvalidConfiguration") != 0;
  int local;
  bad += hipFree(&local) != hipErrorInvalidValue;  // not a device allocation
  bad += hipPeekAtLastError() != hipErrorInvalidValue;
  bad += hipGetLastError() != hipErrorInvalidValue;
  bad += hipGetLastError() != hipSuccess;
  bad += std::strcmp(hipGetErrorString(hipSuccess), "no error") != 0;
  int* d;
  HIP_CHECK(hipMalloc(&d, 16));
  noop<<<1, 4>>>(d);
  HIP_CHECK(hipGetLastError());
  int h[4];
  HIP_CHECK(hipMemcpy(h, d, 16, hipMemcpyDeviceToHost));
  for (int i = 0; i < 4; ++i) bad += h[i] != 1;
  return verdict(bad);
}
