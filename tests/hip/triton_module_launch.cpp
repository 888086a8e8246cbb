// The module-API path as Triton 3.x's HIP driver takes it (third_party/amd/backend/driver.py): read
// the .hsaco, hipModuleLoadData, hipModuleGetFunction, hipFuncGetAttribute for registers and
// spills, then hipModuleLaunchKernel with a params array holding every argument, including the two
// scratch pointers Triton appends (null here: the kernel needs no global or profile scratch), and
// a block of 64 x num_warps work-items. Validates out = x + y for vector_add_kernel (BLOCK=1024,
// num_warps=4 per corpus/triton/gfx942/vector_add_kernel.json).
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    hipError_t e_ = (x);                                                                       \
    if (e_ != hipSuccess) {                                                                    \
      std::printf("FAILED: triton_module_launch: %s -> %s\n", #x, hipGetErrorName(e_));        \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: triton_module_launch CORPUS_TRITON_GFX942_DIR\n");
    return 2;
  }
  std::ifstream f(std::string(argv[1]) + "/vector_add_kernel.hsaco", std::ios::binary);
  std::vector<char> hsaco((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (hsaco.empty()) {
    std::printf("FAILED: triton_module_launch: cannot read vector_add_kernel.hsaco in %s\n", argv[1]);
    return 1;
  }
  hipModule_t mod;
  hipFunction_t fn;
  CHECK(hipModuleLoadData(&mod, hsaco.data()));
  CHECK(hipModuleGetFunction(&fn, mod, "vector_add_kernel"));
  int regs = 0, spills = 0;
  CHECK(hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, fn));
  CHECK(hipFuncGetAttribute(&spills, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
  const int n = 3000, block_elems = 1024, num_warps = 4;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i, y[i] = 7.0f - i;
  void *dx, *dy, *dout;
  CHECK(hipMalloc(&dx, n * 4));
  CHECK(hipMalloc(&dy, n * 4));
  CHECK(hipMalloc(&dout, n * 4));
  CHECK(hipMemcpyHtoD(dx, x.data(), n * 4));
  CHECK(hipMemcpyHtoD(dy, y.data(), n * 4));
  int nn = n;
  void* global_scratch = nullptr;
  void* profile_scratch = nullptr;
  void* params[] = {&dx, &dy, &dout, &nn, &global_scratch, &profile_scratch};
  CHECK(hipModuleLaunchKernel(fn, (n + block_elems - 1) / block_elems, 1, 1, 64 * num_warps, 1, 1, 0, nullptr, params, nullptr));
  CHECK(hipMemcpyDtoH(out.data(), dout, n * 4));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != x[i] + y[i];
  std::printf("vector_add_kernel: %d VGPRs, %d scratch bytes, %d mismatches\n", regs, spills, bad);
  if (bad || regs <= 0) {
    std::printf("FAILED: triton_module_launch\n");
    return 1;
  }
  CHECK(hipModuleUnload(mod));
  std::printf("PASSED: triton_module_launch\n");
  return 0;
}
