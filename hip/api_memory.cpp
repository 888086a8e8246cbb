// Memory: allocation, copies, sets, symbols. Copies are synchronous in every form (the device
// finishes each launch before the call that launched it returns, so nothing is ever in flight).
#include <cstring>
#include <fmt/format.h>

#include "hip/api.h"

using namespace asmevo;
using namespace asmevo::hip;

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Host bytes for a copy endpoint: device/host allocations and code-object globals always; plain host
// memory only where the copy kind allows a host side.
uint8_t* endpoint(Runtime& rt, const void* p, size_t n, bool host_ok, const char* role) {
  uint8_t* h = rt.resolve(addr(p), n, host_ok);
  if (!h)
    throw Error(fmt::format("{} {} (+{} bytes) is not inside any live device allocation", role, p, n), "libasmevo_hip",
                "pass a pointer from hipMalloc/hipHostMalloc that has not been freed, with the size inside its allocation");
  return h;
}

hipError_t copy(Runtime& rt, void* dst, const void* src, size_t n, hipMemcpyKind kind) {
  if (n == 0) return hipSuccess;
  bool dst_host = kind == hipMemcpyDeviceToHost || kind == hipMemcpyHostToHost || kind == hipMemcpyDefault;
  bool src_host = kind == hipMemcpyHostToDevice || kind == hipMemcpyHostToHost || kind == hipMemcpyDefault;
  if (kind < hipMemcpyHostToHost || kind > hipMemcpyDefault) return hipErrorInvalidMemcpyDirection;
  uint8_t* d = endpoint(rt, dst, n, dst_host, "destination");
  const uint8_t* s = endpoint(rt, src, n, src_host, "source");
  std::memmove(d, s, n);
  return hipSuccess;
}

template <class T>
hipError_t fill(Runtime& rt, void* dst, T value, size_t count) {
  if (count == 0) return hipSuccess;
  uint8_t* d = endpoint(rt, dst, count * sizeof(T), false, "destination");
  for (size_t i = 0; i < count; ++i) std::memcpy(d + i * sizeof(T), &value, sizeof(T));
  return hipSuccess;
}

hipError_t alloc(Runtime& rt, void** ptr, size_t size, Allocation::Kind kind) {
  if (!ptr) return hipErrorInvalidValue;
  if (size == 0) {
    *ptr = nullptr;
    return hipSuccess;
  }
  *ptr = reinterpret_cast<void*>(rt.allocate(size, kind));
  return hipSuccess;
}

// The device bytes of a __device__ variable named by its host shadow (hipMemcpyToSymbol & co).
uint8_t* symbol_bytes(Runtime& rt, const void* symbol, size_t* size, uint64_t* device_address = nullptr) {
  std::string name;
  FatBinary* fb = rt.fat_binary_of_variable(symbol, &name);
  if (!fb) throw Error(fmt::format("{} is not a registered __device__ variable", symbol), "libasmevo_hip");
  Module* m = rt.module_of(*fb);
  uint64_t bytes = 0, a = m->symbol_address(name, &bytes);
  if (!a) throw Error("the code object has no symbol " + name, m->origin);
  for (auto& s : m->segments)
    if (a >= s.base && a + bytes <= s.base + s.size) {
      if (size) *size = bytes;
      if (device_address) *device_address = a;
      return s.image.data() + (a - s.base);
    }
  throw Error("symbol " + name + " is outside the code object's loaded segments", m->origin);
}

}  // namespace

extern "C" {

hipError_t hipMalloc(void** ptr, size_t size) {
  return call("hipMalloc", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Device); });
}
hipError_t hipExtMallocWithFlags(void** ptr, size_t size, unsigned int) {
  return call("hipExtMallocWithFlags", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Device); });
}
hipError_t hipMallocManaged(void** ptr, size_t size, unsigned int) {
  return call("hipMallocManaged", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Managed); });
}
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int) {
  return call("hipHostMalloc", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Host); });
}
hipError_t hipMallocHost(void** ptr, size_t size) {
  return call("hipMallocHost", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Host); });
}
hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int) {
  return call("hipHostAlloc", hipErrorOutOfMemory, [&](Runtime& rt) { return alloc(rt, ptr, size, Allocation::Host); });
}
hipError_t hipFree(void* ptr) {
  return call("hipFree", hipErrorInvalidValue, [&](Runtime& rt) {
    if (!ptr) return hipSuccess;
    if (!rt.release(addr(ptr), Allocation::Device)) {
      rt.warn(fmt::format("hipFree: {} is not the start of a live device allocation", ptr));
      return hipErrorInvalidValue;
    }
    return hipSuccess;
  });
}
hipError_t hipHostFree(void* ptr) {
  return call("hipHostFree", hipErrorInvalidValue, [&](Runtime& rt) {
    if (!ptr) return hipSuccess;
    if (!rt.release(addr(ptr), Allocation::Host)) {
      rt.warn(fmt::format("hipHostFree: {} is not the start of a live host allocation", ptr));
      return hipErrorInvalidValue;
    }
    return hipSuccess;
  });
}
hipError_t hipFreeHost(void* ptr) { return hipHostFree(ptr); }
hipError_t hipHostGetDevicePointer(void** dev, void* host, unsigned int) {
  return call("hipHostGetDevicePointer", hipErrorInvalidValue, [&](Runtime& rt) {
    const Allocation* a = rt.find(addr(host));
    if (!a || a->kind == Allocation::Device) return hipErrorInvalidValue;
    *dev = host;  // one address space: the device sees host allocations at their host address
    return hipSuccess;
  });
}
hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  return call("hipMemGetInfo", hipErrorInvalidValue, [&](Runtime& rt) {
    uint64_t used = 0;
    for (auto& [b, a] : rt.allocations())
      if (a.kind == Allocation::Device) used += a.size;
    *total = rt.device().global_mem_bytes;
    *free = *total > used ? *total - used : 0;
    return hipSuccess;
  });
}

hipError_t hipMemcpy(void* dst, const void* src, size_t n, hipMemcpyKind kind) {
  return call("hipMemcpy", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, kind); });
}
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t) {
  return call("hipMemcpyAsync", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, kind); });
}
hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t) {
  return call("hipMemcpyWithStream", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, kind); });
}
hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t n) {
  return call("hipMemcpyHtoD", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, hipMemcpyHostToDevice); });
}
hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t n) {
  return call("hipMemcpyDtoH", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, hipMemcpyDeviceToHost); });
}
hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  return call("hipMemcpyDtoD", hipErrorInvalidValue, [&](Runtime& rt) { return copy(rt, dst, src, n, hipMemcpyDeviceToDevice); });
}
hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t n, hipStream_t) { return hipMemcpyHtoD(dst, src, n); }
hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t n, hipStream_t) { return hipMemcpyDtoH(dst, src, n); }
hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t) { return hipMemcpyDtoD(dst, src, n); }

hipError_t hipMemset(void* dst, int value, size_t n) {
  return call("hipMemset", hipErrorInvalidValue, [&](Runtime& rt) { return fill<uint8_t>(rt, dst, static_cast<uint8_t>(value), n); });
}
hipError_t hipMemsetAsync(void* dst, int value, size_t n, hipStream_t) { return hipMemset(dst, value, n); }
hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count) {
  return call("hipMemsetD8", hipErrorInvalidValue, [&](Runtime& rt) { return fill<uint8_t>(rt, dst, value, count); });
}
hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count, hipStream_t) { return hipMemsetD8(dst, value, count); }
hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count) {
  return call("hipMemsetD16", hipErrorInvalidValue, [&](Runtime& rt) { return fill<uint16_t>(rt, dst, value, count); });
}
hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count, hipStream_t) {
  return hipMemsetD16(dst, value, count);
}
hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  return call("hipMemsetD32", hipErrorInvalidValue, [&](Runtime& rt) { return fill<uint32_t>(rt, dst, static_cast<uint32_t>(value), count); });
}
hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t) { return hipMemsetD32(dst, value, count); }

hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t n, size_t offset, hipMemcpyKind kind) {
  return call("hipMemcpyToSymbol", hipErrorInvalidSymbol, [&](Runtime& rt) {
    size_t size = 0;
    uint8_t* d = symbol_bytes(rt, symbol, &size);
    if (offset + n > size) return hipErrorInvalidValue;
    std::memcpy(d + offset, endpoint(rt, src, n, kind != hipMemcpyDeviceToDevice, "source"), n);
    return hipSuccess;
  });
}
hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t n, size_t offset, hipMemcpyKind kind, hipStream_t) {
  return hipMemcpyToSymbol(symbol, src, n, offset, kind);
}
hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t n, size_t offset, hipMemcpyKind kind) {
  return call("hipMemcpyFromSymbol", hipErrorInvalidSymbol, [&](Runtime& rt) {
    size_t size = 0;
    uint8_t* s = symbol_bytes(rt, symbol, &size);
    if (offset + n > size) return hipErrorInvalidValue;
    std::memcpy(endpoint(rt, dst, n, kind != hipMemcpyDeviceToDevice, "destination"), s + offset, n);
    return hipSuccess;
  });
}
hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t n, size_t offset, hipMemcpyKind kind, hipStream_t) {
  return hipMemcpyFromSymbol(dst, symbol, n, offset, kind);
}
hipError_t hipGetSymbolAddress(void** dev, const void* symbol) {
  return call("hipGetSymbolAddress", hipErrorInvalidSymbol, [&](Runtime& rt) {
    uint64_t a = 0;
    symbol_bytes(rt, symbol, nullptr, &a);
    *dev = reinterpret_cast<void*>(a);
    return hipSuccess;
  });
}
hipError_t hipGetSymbolSize(size_t* size, const void* symbol) {
  return call("hipGetSymbolSize", hipErrorInvalidSymbol, [&](Runtime& rt) {
    symbol_bytes(rt, symbol, size);
    return hipSuccess;
  });
}

}  // extern "C"
