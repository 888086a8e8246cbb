#include "corpus/reference/reference.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "corpus/reference/detail.h"

namespace asmevo::corpus {

const std::vector<ReferenceEntry>& references() {
  static const std::vector<ReferenceEntry> table = [] {
    std::vector<ReferenceEntry> t;
    detail::register_elementwise(t);
    detail::register_reduction(t);
    detail::register_matmul(t);
    detail::register_conv(t);
    detail::register_misc(t);
    detail::register_kernelbench(t);
    return t;
  }();
  return table;
}

const ReferenceEntry* find_reference(std::string_view kernel) {
  for (const auto& e : references())
    if (kernel == e.kernel) return &e;
  return nullptr;
}

size_t dtype_size(std::string_view d) {
  if (d == "f64" || d == "i64" || d == "u64") return 8;
  if (d == "f32" || d == "i32" || d == "u32") return 4;
  if (d == "f16" || d == "bf16" || d == "i16" || d == "u16") return 2;
  if (d == "i8" || d == "u8") return 1;
  return 0;
}

namespace {
double parse_number(std::string_view s, std::string_view whole) {
  std::string tmp(s);
  char* end = nullptr;
  double v = std::strtod(tmp.c_str(), &end);
  if (tmp.empty() || end != tmp.c_str() + tmp.size() || !(v >= 0.0))
    throw std::invalid_argument("bad tolerance number in \"" + std::string(whole) + "\"");
  return v;
}
std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
}  // namespace

Tolerance parse_tolerance(std::string_view text) {
  Tolerance t;
  std::string_view spec = text;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    spec = text.substr(0, colon);
    t.note = std::string(trim(text.substr(colon + 1)));
  }
  spec = trim(spec);
  if (spec == "exact") return t;
  t.exact = false;
  bool have_r = false, have_a = false;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (item.starts_with("rtol=")) {
      t.rtol = parse_number(item.substr(5), text);
      have_r = true;
    } else if (item.starts_with("atol=")) {
      t.atol = parse_number(item.substr(5), text);
      have_a = true;
    } else {
      throw std::invalid_argument("bad tolerance \"" + std::string(text) + "\"");
    }
  }
  if (!have_r || !have_a) throw std::invalid_argument("tolerance needs rtol and atol: \"" + std::string(text) + "\"");
  return t;
}

bool within_tolerance(double got, double want, const Tolerance& tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (tol.exact) return got == want && std::signbit(got) == std::signbit(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  if (e == 31) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t f32_to_f16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((a >> 13) & 0x3ffu);  // NaN, quiet
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {                        // below 2^-14: f16 subnormal or zero
    float scaled = std::bit_cast<float>(a) * 16777216.0f;  // exact: * 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));  // ties to even; 1024 -> min normal
  }
  uint32_t h = ((((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13));
  uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent correctly
  return sign | static_cast<uint16_t>(h);
}

float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7f800000u) != 0x7f800000u) {
    x += 0x7fffu + ((x >> 16) & 1u);
  } else if (x & 0xffffu) {
    x |= 0x10000u;  // keep a NaN a NaN
  }
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace asmevo::corpus
