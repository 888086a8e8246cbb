// Shared by the files that define the HIP C ABI (api_*.cpp): the last-error slot and `call`, which
// runs one API function under the runtime's lock and turns AsmEvo errors into HIP error codes with
// the reason on stderr (the runtime never throws across the C ABI).
#pragma once
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "hip/runtime.h"
#include "support/error.h"

namespace asmevo::hip {

hipError_t& last_error();  // per thread, as in HIP
inline hipError_t record(hipError_t e) {
  if (e != hipSuccess) last_error() = e;
  return e;
}

// A HIP API call: `fn(Runtime&)` returns the hipError_t; an asmevo::Error becomes `on_error`
// (with the message on stderr and in the log).
template <class Fn>
hipError_t call(const char* api, hipError_t on_error, Fn&& fn) {
  Runtime& rt = Runtime::get();
  std::lock_guard<std::mutex> lock(rt.lock());
  try {
    return record(fn(rt));
  } catch (const Error& e) {
    rt.warn(std::string(api) + " failed: " + e.format());
    return record(on_error);
  } catch (const std::exception& e) {
    rt.warn(std::string(api) + " failed: " + e.what());
    return record(on_error);
  }
}

}  // namespace asmevo::hip
