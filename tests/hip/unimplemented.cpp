// A HIP function libasmevo_hip does not implement must stop the program naming it (hipMemcpy2D here).
#include <hip/hip_runtime_api.h>

#include <cstdio>

int main() {
  static char a[64], b[64];
  hipError_t e = hipMemcpy2D(a, 8, b, 8, 8, 8, hipMemcpyHostToHost);
  std::printf("hipMemcpy2D returned %d: the stub did not stop the program\n", static_cast<int>(e));
  return 0;
}
