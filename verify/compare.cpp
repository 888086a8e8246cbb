#include "verify/compare.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

namespace asmevo::verify {
namespace {

uint64_t load_bits(const uint8_t* p, size_t size) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);  // little-endian host, as the device
  return v;
}

// The value of a float element as a double (f16/bf16/f32 convert exactly).
double to_double(const std::string& dtype, uint64_t bits) {
  if (dtype == "f32") return std::bit_cast<float>(static_cast<uint32_t>(bits));
  if (dtype == "f64") return std::bit_cast<double>(bits);
  if (dtype == "f16") return static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>(bits)));
  if (dtype == "bf16") return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  return NAN;
}

int64_t to_signed(uint64_t bits, unsigned width) {
  if (width == 64) return static_cast<int64_t>(bits);
  uint64_t sign = 1ull << (width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

}  // namespace

uint64_t ulp_distance(const std::string& dtype, uint64_t a, uint64_t b) {
  const unsigned width = 8 * static_cast<unsigned>(emu::dtype_size(dtype));
  const uint64_t sign = 1ull << (width - 1);
  // Map the sign-magnitude encoding onto a line where adjacent floats are adjacent integers.
  auto ordinal = [&](uint64_t x) -> int64_t {
    int64_t magnitude = static_cast<int64_t>(x & (sign - 1));
    return (x & sign) ? -magnitude : magnitude;
  };
  int64_t d = ordinal(a) - ordinal(b);
  return d < 0 ? static_cast<uint64_t>(-d) : static_cast<uint64_t>(d);
}

bool elements_match(const std::string& dtype, const emu::CompareSpec& rule, const uint8_t* ref, const uint8_t* cand) {
  const size_t size = emu::dtype_size(dtype);
  const uint64_t a = load_bits(ref, size), b = load_bits(cand, size);
  if (a == b) return true;
  if (rule.kind == emu::CompareSpec::Exact || !emu::dtype_is_float(dtype) || size == 1) return false;
  const double x = to_double(dtype, a), y = to_double(dtype, b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  if (rule.kind == emu::CompareSpec::Ulp) return ulp_distance(dtype, a, b) <= rule.ulp;
  return std::fabs(y - x) <= rule.atol + rule.rtol * std::fabs(x);
}

std::string format_element(const std::string& dtype, const uint8_t* p) {
  const size_t size = emu::dtype_size(dtype);
  const uint64_t bits = load_bits(p, size);
  const std::string hex = fmt::format("0x{:0{}x}", bits, 2 * size);
  if (emu::dtype_is_float(dtype) && size >= 2) return fmt::format("{} ({})", to_double(dtype, bits), hex);
  if (!emu::dtype_is_float(dtype) && dtype[0] == 'i') return fmt::format("{} ({})", to_signed(bits, 8 * size), hex);
  if (!emu::dtype_is_float(dtype)) return fmt::format("{} ({})", bits, hex);
  return hex;  // fp8: the bits
}

}  // namespace asmevo::verify
