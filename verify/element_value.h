// One buffer element read and written as a number, and ordered by its representation: the
// threshold search of the aimed inputs (verify/aimed.cpp) steps and bisects element values in the
// buffer's own dtype, so "one value below" is the next representable value of that dtype.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::verify {

// The dtypes the search handles: 32/16/8-bit integers, f32, f16, bf16 (not fp8, not 64-bit).
inline bool element_searchable(const std::string& dtype) {
  return dtype == "f32" || dtype == "i32" || dtype == "u32" || dtype == "f16" || dtype == "bf16" || dtype == "i16" || dtype == "u16" ||
         dtype == "i8" || dtype == "u8";
}

inline unsigned element_bytes(const std::string& dtype) {
  if (dtype == "f32" || dtype == "i32" || dtype == "u32") return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16" || dtype == "u16") return 2;
  return 1;
}

inline uint32_t element_bits(const std::vector<uint8_t>& bytes, const std::string& dtype, uint64_t elem) {
  uint32_t b = 0;
  const unsigned n = element_bytes(dtype);
  if ((elem + 1) * n <= bytes.size()) std::memcpy(&b, bytes.data() + elem * n, n);
  return b;
}

inline void set_element_bits(std::vector<uint8_t>& bytes, const std::string& dtype, uint64_t elem, uint32_t b) {
  const unsigned n = element_bytes(dtype);
  if ((elem + 1) * n <= bytes.size()) std::memcpy(bytes.data() + elem * n, &b, n);
}

inline double element_number(const std::string& dtype, uint32_t b) {
  if (dtype == "f32") return std::bit_cast<float>(b);
  if (dtype == "f16") return static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>(b)));
  if (dtype == "bf16") return std::bit_cast<float>(b << 16);
  if (dtype == "i32") return static_cast<int32_t>(b);
  if (dtype == "i16") return static_cast<int16_t>(b);
  if (dtype == "i8") return static_cast<int8_t>(b);
  return b;
}

// A totally ordered integer per representation: floats by sign and magnitude (-0 and +0 both 0),
// integers as themselves. Adjacent keys are adjacent values.
inline int64_t element_key(const std::string& dtype, uint32_t b) {
  const unsigned width = element_bytes(dtype) * 8;
  if (dtype == "f32" || dtype == "f16" || dtype == "bf16") {
    const uint32_t sign = 1u << (width - 1), mag = b & (sign - 1);
    return (b & sign) ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
  }
  return static_cast<int64_t>(element_number(dtype, b));
}

// The representation of key k; none outside the dtype's range or for NaN encodings.
inline std::optional<uint32_t> element_of_key(const std::string& dtype, int64_t k) {
  const unsigned width = element_bytes(dtype) * 8;
  if (dtype == "f32" || dtype == "f16" || dtype == "bf16") {
    const uint32_t sign = 1u << (width - 1);
    const int64_t mag = k < 0 ? -k : k;
    const uint32_t exp_mask = dtype == "f32" ? 0x7f800000u : dtype == "f16" ? 0x7c00u : 0x7f80u;
    if (mag >= static_cast<int64_t>(exp_mask)) return std::nullopt;  // Inf and NaN are not searched
    return static_cast<uint32_t>(mag) | (k < 0 ? sign : 0);
  }
  const bool is_signed = dtype[0] == 'i';
  const int64_t lo = is_signed ? -(int64_t{1} << (width - 1)) : 0, hi = is_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
  if (k < lo || k > hi) return std::nullopt;
  return static_cast<uint32_t>(k) & static_cast<uint32_t>((uint64_t{1} << width) - 1);
}

// The representation nearest to x (round to nearest even for floats); none when out of range.
inline std::optional<uint32_t> element_from_number(const std::string& dtype, double x) {
  if (!std::isfinite(x)) return std::nullopt;
  uint32_t b = 0;
  if (dtype == "f32") {
    const float f = static_cast<float>(x);
    if (!std::isfinite(f)) return std::nullopt;
    b = std::bit_cast<uint32_t>(f);
  } else if (dtype == "f16") {
    const _Float16 h = static_cast<_Float16>(x);
    if (!std::isfinite(static_cast<float>(h))) return std::nullopt;
    b = std::bit_cast<uint16_t>(h);
  } else if (dtype == "bf16") {
    const uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(x));
    b = (f + 0x7fff + ((f >> 16) & 1)) >> 16;
    if ((b & 0x7f80) == 0x7f80) return std::nullopt;
  } else {
    if (std::fabs(x) > 0x1p40) return std::nullopt;
    return element_of_key(dtype, static_cast<int64_t>(std::llround(x)));
  }
  return b;
}

}  // namespace asmevo::verify
