// 5-point stencil over a 2-D grid with clamped borders, iterated with pointer swaps.
#define APP_NAME "stencil_2d"
#include "app_common.h"
__global__ void stencil(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  auto at = [&](int i, int j) { return in[min(max(j, 0), h - 1) * w + min(max(i, 0), w - 1)]; };
  out[y * w + x] = 0.5f * at(x, y) + 0.125f * (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1));
}
int main() {
  const int W = 30, H = 20, steps = 3;
  float a[W * H], b[W * H], r[W * H];
  for (int i = 0; i < W * H; ++i) a[i] = (i * 37 % 11) * 0.1f;
  float *d0, *d1;
  HIP_CHECK(hipMalloc(&d0, sizeof a)); HIP_CHECK(hipMalloc(&d1, sizeof a));
  HIP_CHECK(hipMemcpy(d0, a, sizeof a, hipMemcpyHostToDevice));
  for (int s = 0; s < steps; ++s) {
    stencil<<<dim3((W + 15) / 16, (H + 7) / 8), dim3(16, 8)>>>(d0, d1, W, H);
    std::swap(d0, d1);
  }
  HIP_CHECK(hipMemcpy(r, d0, sizeof r, hipMemcpyDeviceToHost));
  for (int s = 0; s < steps; ++s) {
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        auto at = [&](int i, int j) { return a[std::min(std::max(j, 0), H - 1) * W + std::min(std::max(i, 0), W - 1)]; };
        b[y * W + x] = 0.5f * at(x, y) + 0.125f * (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1));
      }
    std::copy(b, b + W * H, a);
  }
  int bad = 0;
  for (int i = 0; i < W * H; ++i) bad += !near(r[i], a[i]);
  return verdict(bad);
}
