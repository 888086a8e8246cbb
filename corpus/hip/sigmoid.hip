// Sigmoid with 16-byte vector loads/stores: each work-item handles 4 consecutive elements,
// a partial group at the end of the array falls back to scalar accesses.
#include "common.h"

__device__ inline float sigmoidf_(float v) { return 1.0f / (1.0f + expf(-v)); }

extern "C" __global__ void sigmoid_f32_vec4(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int e = 4 * i;
  if (e + 3 < n) {
    float4 v = *reinterpret_cast<const float4*>(x + e);
    float4 r;
    r.x = sigmoidf_(v.x);
    r.y = sigmoidf_(v.y);
    r.z = sigmoidf_(v.z);
    r.w = sigmoidf_(v.w);
    *reinterpret_cast<float4*>(y + e) = r;
  } else {
    for (int k = e; k < n; ++k) y[k] = sigmoidf_(x[k]);
  }
}
