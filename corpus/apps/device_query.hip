// hipGetDeviceProperties / hipDeviceGetAttribute agree with each other and describe a gfx9 device.
#define APP_NAME "device_query"
#include "app_common.h"
#include <cstring>
int main() {
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  hipDeviceProp_t p;
  HIP_CHECK(hipGetDeviceProperties(&p, 0));
  int cus = 0, warp = 0, lds = 0;
  HIP_CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  HIP_CHECK(hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  std::printf("%d device(s): %s (%s), %d CUs, wave%d, %d KiB LDS, %d MHz, %zu GiB\n", count, p.name, p.gcnArchName,
              p.multiProcessorCount, p.warpSize, lds / 1024, p.clockRate / 1000, p.totalGlobalMem >> 30);
  int bad = count < 1;
  bad += cus != p.multiProcessorCount || warp != 64 || lds != static_cast<int>(p.sharedMemPerBlock);
  bad += std::strncmp(p.gcnArchName, "gfx9", 4) != 0;
  bad += hipSetDevice(count) == hipSuccess;  // no such device
  bad += hipGetLastError() != hipErrorInvalidDevice;
  bad += hipGetLastError() != hipSuccess;  // reading it cleared it
  return verdict(bad);
}
