// Half-precision add, two elements per work-item with packed __half2 math; odd tail element scalar.
#include "common.h"

extern "C" __global__ void vector_add_f16x2(const __half* a, const __half* b, __half* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int e = 2 * i;
  if (e + 1 < n) {
    __half2 x = *reinterpret_cast<const __half2*>(a + e);
    __half2 y = *reinterpret_cast<const __half2*>(b + e);
    *reinterpret_cast<__half2*>(out + e) = __hadd2(x, y);
  } else if (e < n) {
    out[e] = __hadd(a[e], b[e]);
  }
}
