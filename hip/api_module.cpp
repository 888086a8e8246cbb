// The module API (what Triton's HIP driver and other JIT users call): load code objects or bundles
// from memory or a file, look up kernels and globals, launch with kernelParams or an `extra` buffer.
#include <cstring>
#include <fmt/format.h>

#include "codeobj/kernel_descriptor.h"
#include "hip/api.h"
#include "hip/image.h"
#include "support/file_io.h"

using namespace asmevo;
using namespace asmevo::hip;

namespace {

Module* mod(hipModule_t m) { return reinterpret_cast<Module*>(m); }
Function* fn(hipFunction_t f) { return reinterpret_cast<Function*>(f); }

hipError_t launch_module(Runtime& rt, hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shared, void** params, void** extra) {
  if (!f) return hipErrorInvalidResourceHandle;
  if (!gx || !gy || !gz || !bx || !by || !bz) return hipErrorInvalidConfiguration;
  std::vector<uint8_t> kernarg;
  if (params) {
    kernarg = rt.pack_arguments(*fn(f), params);
  } else if (extra) {
    const void* buf = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) buf = extra[i + 1];
      else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t*>(extra[i + 1]);
      else throw Error(fmt::format("unknown key {} in hipModuleLaunchKernel's extra array", extra[i]));
    }
    if (!buf) throw Error("hipModuleLaunchKernel's extra array has no HIP_LAUNCH_PARAM_BUFFER_POINTER");
    kernarg.assign(static_cast<const uint8_t*>(buf), static_cast<const uint8_t*>(buf) + size);
  } else {
    kernarg = rt.pack_arguments(*fn(f), nullptr);  // a kernel without explicit arguments
  }
  rt.launch(*fn(f), LaunchConfig{{gx, gy, gz}, {bx, by, bz}, shared}, kernarg);
  return hipSuccess;
}

}  // namespace

extern "C" {

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  return call("hipModuleLoadData", hipErrorInvalidImage, [&](Runtime& rt) {
    if (!module || !image) return hipErrorInvalidValue;
    const auto* p = static_cast<const uint8_t*>(image);
    std::vector<uint8_t> bytes(p, p + image_size(p, "hipModuleLoadData"));
    *module = reinterpret_cast<hipModule_t>(rt.load_module(std::move(bytes), "hipModuleLoadData image"));
    return hipSuccess;
  });
}
hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image, unsigned int, hipJitOption*, void**) {
  return hipModuleLoadData(module, image);  // JIT options do not apply to finished code objects
}
hipError_t hipModuleLoad(hipModule_t* module, const char* fname) {
  return call("hipModuleLoad", hipErrorFileNotFound, [&](Runtime& rt) {
    if (!module || !fname) return hipErrorInvalidValue;
    *module = reinterpret_cast<hipModule_t>(rt.load_module(read_file_bytes(fname), fname));
    return hipSuccess;
  });
}
hipError_t hipModuleUnload(hipModule_t module) {
  return call("hipModuleUnload", hipErrorInvalidResourceHandle, [&](Runtime& rt) {
    rt.unload_module(mod(module));
    return hipSuccess;
  });
}
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  return call("hipModuleGetFunction", hipErrorNotFound, [&](Runtime& rt) {
    if (!function || !module || !name) return hipErrorInvalidValue;
    Function* f = rt.function(mod(module), name);
    if (!f) {
      rt.warn(fmt::format("hipModuleGetFunction: no kernel {} in code object {}", name, mod(module)->hash));
      return hipErrorNotFound;
    }
    *function = reinterpret_cast<hipFunction_t>(f);
    return hipSuccess;
  });
}
hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t module, const char* name) {
  return call("hipModuleGetGlobal", hipErrorNotFound, [&](Runtime&) {
    uint64_t size = 0, a = mod(module)->symbol_address(name, &size);
    if (!a) return hipErrorNotFound;
    if (dptr) *dptr = reinterpret_cast<void*>(a);
    if (bytes) *bytes = size;
    return hipSuccess;
  });
}
hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc) {
  return call("hipFuncGetAttribute", hipErrorInvalidValue, [&](Runtime& rt) {
    const Function& f = *fn(hfunc);
    const codeobj::KernelMetadata* md = f.module->co->kernel_metadata(*f.kernel);
    const auto& kd = f.kernel->kd;
    switch (attrib) {
      case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = md && md->max_flat_workgroup_size ? static_cast<int>(md->max_flat_workgroup_size) : 1024; break;
      case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(kd.group_segment_fixed_size); break;
      case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(kd.private_segment_fixed_size); break;
      case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = 0; break;
      case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = f.kernel->resources ? static_cast<int>(f.kernel->resources->vgprs_allocated) : 0; break;
      case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = static_cast<int>(rt.device().lds_per_cu - kd.group_segment_fixed_size); break;
      default:
        rt.warn(fmt::format("hipFuncGetAttribute: attribute {} is not implemented by libasmevo_hip", static_cast<int>(attrib)));
        return hipErrorNotSupported;
    }
    return hipSuccess;
  });
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int shared, hipStream_t, void** params, void** extra) {
  return call("hipModuleLaunchKernel", hipErrorInvalidConfiguration,
              [&](Runtime& rt) { return launch_module(rt, f, gx, gy, gz, bx, by, bz, shared, params, extra); });
}

}  // extern "C"
