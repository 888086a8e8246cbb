// Two streams, async copies, events around a kernel: the elapsed time must be positive (on the
// emulator it is the MODELED time; libasmevo_hip says so in its log).
#define APP_NAME "streams_events"
#include "app_common.h"
__global__ void scale(float* d, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= s;
}
int main() {
  const int n = 512;
  float* h;
  HIP_CHECK(hipHostMalloc(&h, n * 4, 0));
  for (int i = 0; i < n; ++i) h[i] = i;
  hipStream_t s1, s2;
  HIP_CHECK(hipStreamCreate(&s1)); HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start)); HIP_CHECK(hipEventCreate(&stop));
  float* d;
  HIP_CHECK(hipMalloc(&d, n * 4));
  HIP_CHECK(hipMemcpyAsync(d, h, n * 4, hipMemcpyHostToDevice, s1));
  HIP_CHECK(hipEventRecord(start, s1));
  scale<<<n / 128, 128, 0, s1>>>(d, 3.0f, n);
  HIP_CHECK(hipEventRecord(stop, s1));
  HIP_CHECK(hipStreamWaitEvent(s2, stop, 0));
  scale<<<n / 128, 128, 0, s2>>>(d, 0.5f, n);
  HIP_CHECK(hipMemcpyAsync(h, d, n * 4, hipMemcpyDeviceToHost, s2));
  HIP_CHECK(hipStreamSynchronize(s2));
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = 0;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  int bad = !(ms > 0);
  for (int i = 0; i < n; ++i) bad += h[i] != i * 1.5f;
  std::printf("elapsed %.6f ms\n", ms);
  HIP_CHECK(hipStreamDestroy(s1)); HIP_CHECK(hipStreamDestroy(s2));
  HIP_CHECK(hipEventDestroy(start)); HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipHostFree(h));
  return verdict(bad);
}
