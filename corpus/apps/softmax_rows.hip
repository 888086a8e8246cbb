// Row-wise softmax, one 64-wide wave per row with shuffles (expf from the device libraries).
#define APP_NAME "softmax_rows"
#include "app_common.h"
__global__ void softmax(const float* in, float* out, int cols) {
  const float* x = in + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 64) m = fmaxf(m, x[c]);
  for (int o = 32; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor(m, o));
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += 64) s += expf(x[c] - m);
  for (int o = 32; o > 0; o >>= 1) s += __shfl_xor(s, o);
  for (int c = threadIdx.x; c < cols; c += 64) out[blockIdx.x * cols + c] = expf(x[c] - m) / s;
}
int main() {
  const int R = 6, C = 100;
  float h[R * C], o[R * C];
  for (int i = 0; i < R * C; ++i) h[i] = std::sin(i * 0.37f) * 3;
  float *in, *out;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&out, sizeof o));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  softmax<<<R, 64>>>(in, out, C);
  HIP_CHECK(hipMemcpy(o, out, sizeof o, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < R; ++r) {
    float m = -INFINITY, s = 0;
    for (int c = 0; c < C; ++c) m = std::fmax(m, h[r * C + c]);
    for (int c = 0; c < C; ++c) s += std::exp(h[r * C + c] - m);
    for (int c = 0; c < C; ++c) bad += !near(o[r * C + c], std::exp(h[r * C + c] - m) / s, 1e-5f);
  }
  return verdict(bad);
}
