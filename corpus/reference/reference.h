// Host (CPU) references for the HIP kernel corpus (corpus/hip/*.hip).
//
// Each corpus kernel has one plain-C++ function here that computes the same math, for the same
// launch shape, so that the emulator's results can be checked against it. A reference receives the
// kernel's arguments in kernel-parameter order (buffers as raw bytes, scalars as raw bits), and
// overwrites, in place, the buffers the kernel writes. It reproduces what the kernel computes for
// the given grid / block: only the elements the launched work-items cover are written, and buffers
// the kernel accumulates into (atomicAdd) are accumulated into. A launch shape or argument list the
// kernel cannot handle (too few arguments, a buffer smaller than the sizes imply, a workgroup shape
// the kernel requires but does not get) throws std::invalid_argument.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace asmevo::corpus {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// One kernel argument as the host sees it: a buffer (raw bytes, element dtype name like "f32",
// "f16", "bf16", "i32", "u32", "i64", "u8") or a scalar value (raw bits, little-endian,
// zero-extended).
struct HostArg {
  bool is_buffer = false;
  std::string dtype;
  std::vector<uint8_t> bytes;
  uint64_t bits = 0;

  template <class T> T* data() { return reinterpret_cast<T*>(bytes.data()); }
  template <class T> const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
  template <class T> size_t count() const { return bytes.size() / sizeof(T); }
  template <class T> T value() const {
    static_assert(sizeof(T) <= sizeof(uint64_t));
    T v;
    std::memcpy(&v, &bits, sizeof(T));  // little-endian host: the low bytes
    return v;
  }

  // Convenience constructors (tests, harnesses).
  template <class T> static HostArg buffer(std::string dtype, const std::vector<T>& values) {
    HostArg a;
    a.is_buffer = true;
    a.dtype = std::move(dtype);
    a.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
    return a;
  }
  template <class T> static HostArg scalar(std::string dtype, T v) {
    static_assert(sizeof(T) <= sizeof(uint64_t));
    HostArg a;
    a.dtype = std::move(dtype);
    std::memcpy(&a.bits, &v, sizeof(T));
    return a;
  }
  template <class T> std::vector<T> to_vector() const {
    std::vector<T> v(count<T>());
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
};

// Computes, in place, the buffers the kernel writes, given the same args and launch shape as the kernel.
using ReferenceFn = void (*)(std::vector<HostArg>& args, Dim3 grid, Dim3 block, uint32_t dynamic_lds);

struct ReferenceEntry {
  const char* kernel;
  ReferenceFn fn;
  // "exact", or "rtol=<r>,atol=<a>" optionally followed by ": <why>". A kernel value k matches the
  // reference value r when |k - r| <= atol + rtol * |r| (see parse_tolerance / within_tolerance).
  const char* tolerance;
};

const std::vector<ReferenceEntry>& references();
const ReferenceEntry* find_reference(std::string_view kernel);

struct Tolerance {
  bool exact = true;
  double rtol = 0.0, atol = 0.0;
  std::string note;
};
// Parses a ReferenceEntry::tolerance string; throws std::invalid_argument when malformed.
Tolerance parse_tolerance(std::string_view text);
// True when `got` matches `want` under `tol` (exact: bit-identical, or both NaN).
bool within_tolerance(double got, double want, const Tolerance& tol);

// Size in bytes of a launch-spec dtype name (f32 f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 u64), 0 if unknown.
size_t dtype_size(std::string_view dtype);

// IEEE binary16 and bfloat16 conversions; float -> narrow rounds to nearest, ties to even
// (what __float2half and hip_bfloat16(float) do), NaN stays NaN, overflow goes to infinity.
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);

}  // namespace asmevo::corpus
