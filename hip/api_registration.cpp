// Fat-binary registration (the calls clang's HIP host code makes from its module constructor) and
// the triple-chevron launch path (__hipPushCallConfiguration / __hipPopCallConfiguration, then the
// kernel stub calls hipLaunchKernel).
#include <cstring>
#include <fmt/format.h>
#include <vector>

#include "hip/api.h"

using namespace asmevo;
using namespace asmevo::hip;

namespace {
struct CallConfig {
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
};
thread_local std::vector<CallConfig> g_configs;
}  // namespace

namespace asmevo::hip {
hipError_t& last_error() {
  thread_local hipError_t e = hipSuccess;
  return e;
}
void launch_failed(const std::string& what, const std::string& message) {
  Runtime::get().warn(what + ": the kernel could not run on the emulator; stopping the process (as ROCm does after a GPU fault):\n" +
                      message);
  std::fflush(nullptr);
  std::abort();
}
}  // namespace asmevo::hip

extern "C" {

void** __hipRegisterFatBinary(const void* wrapper) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.lock());
  try {
    return reinterpret_cast<void**>(rt.register_fat_binary(wrapper));
  } catch (const Error& e) {
    rt.warn("__hipRegisterFatBinary failed: " + e.format());
    std::abort();  // nothing of this program's device code could run
  }
}

void __hipRegisterFunction(void** modules, const void* host_function, char* device_function, const char* device_name,
                           unsigned int, void*, void*, dim3*, dim3*, int*) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.lock());
  reinterpret_cast<FatBinary*>(modules)->functions[host_function] = device_name ? device_name : device_function;
}

void __hipRegisterVar(void** modules, void* var, char* host_var, char* device_var, int, size_t, int, int) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.lock());
  reinterpret_cast<FatBinary*>(modules)->variables[var] = device_var ? device_var : host_var;
}

void __hipUnregisterFatBinary(void** modules) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.lock());
  rt.unregister_fat_binary(reinterpret_cast<FatBinary*>(modules));
}

hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared, hipStream_t stream) {
  g_configs.push_back({grid, block, shared, stream});
  return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, hipStream_t* stream) {
  if (g_configs.empty()) return record(hipErrorMissingConfiguration);
  CallConfig c = g_configs.back();
  g_configs.pop_back();
  *grid = c.grid, *block = c.block, *shared = c.shared, *stream = c.stream;
  return hipSuccess;
}

hipError_t hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t) {
  return call("hipLaunchKernel", hipErrorInvalidConfiguration, [&](Runtime& rt) {
    Function* f = rt.function_of_stub(function);
    if (!f) {
      rt.warn(fmt::format("hipLaunchKernel: {} is not a registered kernel stub", function));
      return hipErrorInvalidDeviceFunction;
    }
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) return hipErrorInvalidConfiguration;
    LaunchConfig cfg{{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, static_cast<uint32_t>(shared)};
    auto kernarg = rt.pack_arguments(*f, args);
    rt.launch(*f, cfg, kernarg);
    return hipSuccess;
  });
}

}  // extern "C"

// What every generated stub (hip/CMakeLists.txt) calls: the program used a HIP function this
// runtime does not implement.
extern "C" [[noreturn]] void asmevo_hip_unimplemented(const char* name) {
  std::fprintf(stderr,
               "[asmevo-hip] %s is not implemented by libasmevo_hip (AsmEvo's HIP runtime on the emulator); stopping the program.\n",
               name);
  std::fflush(nullptr);
  std::abort();
}
