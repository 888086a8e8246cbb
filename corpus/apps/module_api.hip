// The module API on this program's own code object: the build writes the device code of
// module_kernels (a gfx942 code object) next to the program; it is loaded by path and from memory,
// launched with kernelParams and with the `extra` kernarg buffer, as JIT runtimes do.
#define APP_NAME "module_api"
#include "app_common.h"
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("FAILED: %s: usage: module_api CODE_OBJECT\n", APP_NAME);
    return 2;
  }
  const int n = 256;
  float h[n], o[n];
  for (int i = 0; i < n; ++i) h[i] = i - 100.0f;
  float *in, *out;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&out, sizeof o));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  hipModule_t by_path, by_data;
  HIP_CHECK(hipModuleLoad(&by_path, argv[1]));
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  HIP_CHECK(hipModuleLoadData(&by_data, image.data()));
  hipFunction_t relu, offset;
  HIP_CHECK(hipModuleGetFunction(&relu, by_path, "relu"));
  HIP_CHECK(hipModuleGetFunction(&offset, by_data, "add_offset"));
  int bad = hipModuleGetFunction(&relu, by_path, "no_such_kernel") != hipErrorNotFound;
  HIP_CHECK(hipGetLastError() == hipErrorNotFound ? hipSuccess : hipErrorUnknown);
  int nn = n;
  void* params[] = {&in, &out, &nn};
  HIP_CHECK(hipModuleLaunchKernel(relu, n / 64, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  struct {
    float* p;
    float add;
    int n;
  } args{out, 0.5f, n};
  size_t size = sizeof args;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  HIP_CHECK(hipModuleLaunchKernel(offset, n / 64, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra));
  HIP_CHECK(hipMemcpy(o, out, sizeof o, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += o[i] != (h[i] > 0 ? h[i] : 0.0f) + 0.5f;
  HIP_CHECK(hipModuleUnload(by_path)); HIP_CHECK(hipModuleUnload(by_data));
  return verdict(bad);
}
