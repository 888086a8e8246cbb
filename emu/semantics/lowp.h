// Low-precision number formats shared by the MFMA, VOP3P and packed-conversion families:
// bf16 and the 8-bit floats (fp8 = E4M3, bf8 = E5M2).
//
// gfx942 (CDNA3) uses the "FNUZ" variants (AMD's original fp8: E4M3 bias 8, E5M2 bias 16, no
// infinities, no negative zero, the single NaN is 0x80); gfx950 (CDNA4) uses the OCP formats
// (E4M3FN bias 7: no infinity, NaN = S.1111.111; E5M2 bias 15: IEEE-like with inf and NaN).
// This split follows LLVM's AMDGPU backend (FeatureFP8ConversionInsts on gfx940 = fnuz; gfx950
// HasFP8E4M3/OCP conversions) and the CDNA3/CDNA4 ISA guides ("FP8/BF8 data formats").
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace asmevo::emu::lowp {

inline float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// f32 -> bf16, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

inline float f16_to_f32(uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }
inline uint16_t f32_to_f16(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }

enum class F8 : uint8_t { E4M3Fnuz, E5M2Fnuz, E4M3Fn, E5M2 };

struct F8Params {
  int ebits, mbits, bias;
  double max;  // largest finite magnitude
};
inline constexpr F8Params params(F8 f) {
  switch (f) {
    case F8::E4M3Fnuz: return {4, 3, 8, 240.0};
    case F8::E5M2Fnuz: return {5, 2, 16, 57344.0};
    case F8::E4M3Fn: return {4, 3, 7, 448.0};
    default: return {5, 2, 15, 57344.0};
  }
}

// fp8 (bf8 when `bf8`) for the architecture: gfx950 uses OCP, gfx942 FNUZ.
inline F8 f8_format(bool bf8, bool ocp) {
  return ocp ? (bf8 ? F8::E5M2 : F8::E4M3Fn) : (bf8 ? F8::E5M2Fnuz : F8::E4M3Fnuz);
}

inline double f8_to_double(uint8_t b, F8 f) {
  const F8Params p = params(f);
  bool s = b >> 7;
  int e = (b >> p.mbits) & ((1 << p.ebits) - 1);
  int m = b & ((1 << p.mbits) - 1);
  if ((f == F8::E4M3Fnuz || f == F8::E5M2Fnuz) && b == 0x80) return std::nan("");
  if (f == F8::E4M3Fn && e == 15 && m == 7) return s ? -std::nan("") : std::nan("");
  if (f == F8::E5M2 && e == 31) return m ? std::nan("") : (s ? -INFINITY : INFINITY);
  double v = e == 0 ? std::ldexp(m, 1 - p.bias - p.mbits) : std::ldexp((1 << p.mbits) + m, e - p.bias - p.mbits);
  return s ? -v : v;
}

// f32 -> 8-bit float, round to nearest even (denormals of the 8-bit format are produced).
// Out of range (after rounding) and infinities: `saturate` gives the largest finite value of that
// sign; otherwise the format's overflow value (FNUZ: the NaN 0x80; E4M3FN: NaN; E5M2: infinity).
// NaN input gives NaN. FNUZ has no negative zero: -0 and values rounding to 0 encode as 0x00.
inline uint8_t f32_to_f8(float x, F8 f, bool saturate) {
  const F8Params p = params(f);
  const bool fnuz = f == F8::E4M3Fnuz || f == F8::E5M2Fnuz;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const uint8_t max_code = static_cast<uint8_t>(f == F8::E4M3Fn ? 0x7e : f == F8::E5M2 ? 0x7b : 0x7f);
  auto nan = [&]() -> uint8_t { return fnuz ? 0x80 : static_cast<uint8_t>(sign | 0x7f); };
  auto overflow = [&]() -> uint8_t {
    if (saturate) return static_cast<uint8_t>(sign | max_code);
    if (fnuz) return 0x80;
    if (f == F8::E4M3Fn) return static_cast<uint8_t>(sign | 0x7f);
    return static_cast<uint8_t>(sign | 0x7c);  // E5M2 infinity
  };
  if (std::isnan(x)) return nan();
  double a = std::fabs(static_cast<double>(x));
  if (std::isinf(a)) return overflow();
  const int emin = 1 - p.bias;  // exponent of the smallest normal
  int e = a == 0 ? emin : std::ilogb(a);
  if (e < emin) e = emin;
  double q = std::ldexp(1.0, e - p.mbits);  // quantum at this binade
  double r = std::nearbyint(a / q) * q;     // RNE (default rounding mode of the host)
  if (r > p.max) return overflow();
  if (r == 0) return fnuz ? 0 : sign;
  int re = std::ilogb(r);
  uint32_t exp_field, mant;
  if (re < emin) {
    exp_field = 0;
    mant = static_cast<uint32_t>(r / std::ldexp(1.0, emin - p.mbits));
  } else {
    exp_field = static_cast<uint32_t>(re + p.bias);
    mant = static_cast<uint32_t>(r / std::ldexp(1.0, re - p.mbits)) - (1u << p.mbits);
  }
  return static_cast<uint8_t>(sign | (exp_field << p.mbits) | mant);
}

}  // namespace asmevo::emu::lowp
