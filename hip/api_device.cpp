// Device queries, streams, events, errors, versions. One device; streams and events are in order
// because every call finishes its work before it returns; events carry the MODELED device clock.
#include <cstring>
#include <fmt/format.h>

#include "hip/api.h"
#include "timing/hw_params.h"

using namespace asmevo;
using namespace asmevo::hip;

struct ihipStream_t {
  unsigned flags = 0;
};
struct ihipEvent_t {
  unsigned flags = 0;
  bool recorded = false;
  double time_us = 0;
};

namespace {

int clock_khz(const Device& d) { return static_cast<int>(timing::hw_params(d.arch).clock_ghz * 1e6); }
int cus(const Device& d) { return static_cast<int>(timing::hw_params(d.arch).cus); }

hipError_t check_device(int id) { return id == 0 ? hipSuccess : hipErrorInvalidDevice; }

const char* error_name(hipError_t e) {
#define ASMEVO_HIP_ERROR(n) \
  if (e == n) return #n;
  ASMEVO_HIP_ERROR(hipSuccess) ASMEVO_HIP_ERROR(hipErrorInvalidValue) ASMEVO_HIP_ERROR(hipErrorOutOfMemory)
  ASMEVO_HIP_ERROR(hipErrorNotInitialized) ASMEVO_HIP_ERROR(hipErrorDeinitialized) ASMEVO_HIP_ERROR(hipErrorInvalidConfiguration)
  ASMEVO_HIP_ERROR(hipErrorInvalidPitchValue) ASMEVO_HIP_ERROR(hipErrorInvalidSymbol) ASMEVO_HIP_ERROR(hipErrorInvalidDevicePointer)
  ASMEVO_HIP_ERROR(hipErrorInvalidMemcpyDirection) ASMEVO_HIP_ERROR(hipErrorInsufficientDriver)
  ASMEVO_HIP_ERROR(hipErrorMissingConfiguration) ASMEVO_HIP_ERROR(hipErrorPriorLaunchFailure)
  ASMEVO_HIP_ERROR(hipErrorInvalidDeviceFunction) ASMEVO_HIP_ERROR(hipErrorNoDevice) ASMEVO_HIP_ERROR(hipErrorInvalidDevice)
  ASMEVO_HIP_ERROR(hipErrorInvalidImage) ASMEVO_HIP_ERROR(hipErrorInvalidContext) ASMEVO_HIP_ERROR(hipErrorNoBinaryForGpu)
  ASMEVO_HIP_ERROR(hipErrorInvalidKernelFile) ASMEVO_HIP_ERROR(hipErrorFileNotFound) ASMEVO_HIP_ERROR(hipErrorInvalidHandle)
  ASMEVO_HIP_ERROR(hipErrorNotFound) ASMEVO_HIP_ERROR(hipErrorNotReady) ASMEVO_HIP_ERROR(hipErrorIllegalAddress)
  ASMEVO_HIP_ERROR(hipErrorLaunchOutOfResources) ASMEVO_HIP_ERROR(hipErrorLaunchTimeOut) ASMEVO_HIP_ERROR(hipErrorLaunchFailure)
  ASMEVO_HIP_ERROR(hipErrorNotSupported) ASMEVO_HIP_ERROR(hipErrorUnknown)
#undef ASMEVO_HIP_ERROR
  return nullptr;
}

}  // namespace

extern "C" {

hipError_t hipInit(unsigned int) { return hipSuccess; }
hipError_t hipDriverGetVersion(int* v) {
  *v = HIP_VERSION;
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int* v) {
  *v = HIP_VERSION;
  return hipSuccess;
}
hipError_t hipGetDeviceCount(int* count) {
  return call("hipGetDeviceCount", hipErrorNoDevice, [&](Runtime&) {
    *count = 1;
    return hipSuccess;
  });
}
hipError_t hipGetDevice(int* id) {
  *id = 0;
  return hipSuccess;
}
hipError_t hipSetDevice(int id) { return record(check_device(id)); }
hipError_t hipSetDeviceFlags(unsigned) { return hipSuccess; }
hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  if (ordinal != 0) return record(hipErrorInvalidDevice);
  *device = 0;
  return hipSuccess;
}
hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  return call("hipDeviceGetName", hipErrorInvalidDevice, [&](Runtime& rt) {
    if (device != 0) return hipErrorInvalidDevice;
    std::snprintf(name, len, "%s", rt.device().name);
    return hipSuccess;
  });
}
hipError_t hipDeviceSynchronize() { return hipSuccess; }
hipError_t hipDeviceReset() { return hipSuccess; }

}  // extern "C"

namespace {
void fill_properties(const Device& d, hipDeviceProp_t* p) {
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "%s", d.name);
    std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", d.gcn_arch_name);
    p->gcnArch = d.gcn_arch;
    p->totalGlobalMem = d.global_mem_bytes;
    p->sharedMemPerBlock = d.lds_per_cu;
    p->maxSharedMemoryPerMultiProcessor = d.lds_per_cu;
    p->regsPerBlock = 512 * 64;  // VGPRs per lane x 64 lanes (codeobj/arch_params.h)
    p->warpSize = 64;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
    p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = 0x7fffffff;
    p->clockRate = clock_khz(d);
    p->memoryClockRate = d.memory_clock_khz;
    p->memoryBusWidth = d.memory_bus_bits;
    p->totalConstMem = d.global_mem_bytes;
    p->major = 9;
    p->minor = d.arch == codeobj::Arch::gfx90a ? 0 : d.arch == codeobj::Arch::gfx942 ? 4 : 5;
    p->multiProcessorCount = cus(d);
    p->l2CacheSize = d.l2_bytes;
    p->maxThreadsPerMultiProcessor = 2048;
    p->clockInstructionRate = 100000;  // s_memrealtime runs at 100 MHz on gfx9
    p->concurrentKernels = 1;
    p->pciDeviceID = d.pci_device_id;
    p->canMapHostMemory = 1;
    p->managedMemory = 1;
    p->isLargeBar = 1;
    p->ECCEnabled = 1;
    p->cooperativeLaunch = 0;
    p->memPitch = 0x7fffffff;
    p->textureAlignment = 256;
}
}  // namespace

extern "C" {

hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int id) {
  return call("hipGetDeviceProperties", hipErrorInvalidDevice, [&](Runtime& rt) {
    if (check_device(id) != hipSuccess) return hipErrorInvalidDevice;
    fill_properties(rt.device(), p);
    return hipSuccess;
  });
}

hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int id) {
  return call("hipDeviceGetAttribute", hipErrorInvalidValue, [&](Runtime& rt) {
    if (check_device(id) != hipSuccess) return hipErrorInvalidDevice;
    hipDeviceProp_t p;
    fill_properties(rt.device(), &p);
    switch (attr) {
      case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
      case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
      case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
      case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
      case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; break;
      case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; break;
      case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; break;
      case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
      case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.maxSharedMemoryPerMultiProcessor); break;
      case hipDeviceAttributeWarpSize: *value = p.warpSize; break;
      case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; break;
      case hipDeviceAttributeClockRate: *value = p.clockRate; break;
      case hipDeviceAttributeMemoryClockRate: *value = p.memoryClockRate; break;
      case hipDeviceAttributeMemoryBusWidth: *value = p.memoryBusWidth; break;
      case hipDeviceAttributeL2CacheSize: *value = p.l2CacheSize; break;
      case hipDeviceAttributeMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
      case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
      case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
      case hipDeviceAttributeMaxRegistersPerBlock: *value = p.regsPerBlock; break;
      case hipDeviceAttributePciDeviceId: *value = p.pciDeviceID; break;
      case hipDeviceAttributePciBusId: *value = p.pciBusID; break;
      case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; break;
      case hipDeviceAttributeManagedMemory: *value = p.managedMemory; break;
      case hipDeviceAttributeCanMapHostMemory: *value = p.canMapHostMemory; break;
      case hipDeviceAttributeEccEnabled: *value = p.ECCEnabled; break;
      case hipDeviceAttributeIntegrated: *value = 0; break;
      case hipDeviceAttributeCooperativeLaunch: *value = 0; break;
      default:
        rt.warn(fmt::format("hipDeviceGetAttribute: attribute {} is not implemented by libasmevo_hip", static_cast<int>(attr)));
        return hipErrorNotSupported;
    }
    return hipSuccess;
  });
}

// Streams: every operation is complete when its call returns, so a stream is only a handle.
hipError_t hipStreamCreate(hipStream_t* s) {
  *s = new ihipStream_t{};
  return hipSuccess;
}
hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned int flags) {
  *s = new ihipStream_t{flags};
  return hipSuccess;
}
hipError_t hipStreamCreateWithPriority(hipStream_t* s, unsigned int flags, int) { return hipStreamCreateWithFlags(s, flags); }
hipError_t hipStreamDestroy(hipStream_t s) {
  delete s;
  return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
hipError_t hipStreamQuery(hipStream_t) { return hipSuccess; }
hipError_t hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned int) { return hipSuccess; }

// Events: the modeled device clock (the sum of the modeled times of the launches so far).
hipError_t hipEventCreate(hipEvent_t* e) {
  *e = new ihipEvent_t{};
  return hipSuccess;
}
hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags) {
  *e = new ihipEvent_t{flags};
  return hipSuccess;
}
hipError_t hipEventDestroy(hipEvent_t e) {
  delete e;
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t e, hipStream_t) {
  return call("hipEventRecord", hipErrorInvalidHandle, [&](Runtime& rt) {
    if (!e) return hipErrorInvalidHandle;
    e->recorded = true;
    e->time_us = rt.device_time_us();
    return hipSuccess;
  });
}
hipError_t hipEventSynchronize(hipEvent_t e) { return e && e->recorded ? hipSuccess : record(hipErrorInvalidHandle); }
hipError_t hipEventQuery(hipEvent_t e) { return e && e->recorded ? hipSuccess : hipErrorNotReady; }
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return call("hipEventElapsedTime", hipErrorInvalidHandle, [&](Runtime& rt) {
    if (!ms || !start || !stop) return hipErrorInvalidValue;
    if (!start->recorded || !stop->recorded) return hipErrorInvalidHandle;
    *ms = static_cast<float>((stop->time_us - start->time_us) / 1000.0);
    static bool told = false;
    std::string line = fmt::format(
        "hipEventElapsedTime = {:.6f} ms: MODELED by AsmEvo's timing model of {} (kernels only; copies take no modeled time), not measured",
        *ms, rt.device().name);
    if (!told) rt.warn(line), told = true;
    else rt.log(line);
    return hipSuccess;
  });
}

// Errors.
hipError_t hipGetLastError() {
  hipError_t e = last_error();
  last_error() = hipSuccess;
  return e;
}
hipError_t hipPeekAtLastError() { return last_error(); }
const char* hipGetErrorName(hipError_t e) {
  const char* n = error_name(e);
  return n ? n : "hipErrorUnknown";
}
const char* hipGetErrorString(hipError_t e) {
  if (e == hipSuccess) return "no error";
  const char* n = error_name(e);
  return n ? n : "unknown hipError_t (libasmevo_hip has no text for this code)";
}

}  // extern "C"
