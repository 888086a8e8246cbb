// VOP1/VOP2/VOP3 f32 and f64 arithmetic and conversions (ISA "Vector ALU Operations").
// Per-lane bodies only; abs/neg/omod/clamp and denormal flushing are applied by emu/alu.h.
// Fused ops (v_fma*, v_fmac*) use std::fma: one rounding, as the hardware. v_mad_f32/v_mac_f32 are
// unfused (the product is rounded to f32 first).
#include <cmath>
#include <limits>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

// Float -> int conversions: round toward zero, saturate, NaN -> 0 (ISA v_cvt_i32_f32).
template <class I, class F> I cvt_sat(F x) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<F>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (x >= static_cast<F>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

inline float mul_legacy(float a, float b) { return a == 0.0f || b == 0.0f ? 0.0f : a * b; }

struct Cube {
  float id, sc, tc, ma;
};
inline Cube cube(float x, float y, float z) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) return {z < 0 ? 5.0f : 4.0f, z < 0 ? -x : x, -y, 2.0f * z};
  if (ay >= ax) return {y < 0 ? 3.0f : 2.0f, x, y < 0 ? -z : z, 2.0f * y};
  return {x < 0 ? 1.0f : 0.0f, x < 0 ? z : -z, -y, 2.0f * x};
}

}  // namespace

void register_vop_float(Registry& r) {
  // f32
  valu<[](float a, float b) { return a + b; }>(r, "v_add_f32");
  valu<[](float a, float b) { return a - b; }>(r, "v_sub_f32");
  valu<[](float a, float b) { return b - a; }>(r, "v_subrev_f32");
  valu<[](float a, float b) { return a * b; }>(r, "v_mul_f32");
  valu<[](float a, float b) { return std::fmin(a, b); }>(r, "v_min_f32");
  valu<[](float a, float b) { return std::fmax(a, b); }>(r, "v_max_f32");
  valu<[](float a, float b, float c) { return std::fma(a, b, c); }>(r, "v_fma_f32");
  valu<[](float a, float b, float d) { return std::fma(a, b, d); }>(r, "v_fmac_f32", Category::Vector, kDstIsAccum);
  valu<[](float a, float b, float c) { float p = a * b; return p + c; }>(r, "v_mad_f32");
  valu<[](float a, float b, float k) { float p = a * b; return p + k; }>(r, "v_madak_f32");  // printed: D, S0, S1, K; not fused, like v_mad_f32
  valu<[](float a, float k, float b) { float p = a * k; return p + b; }>(r, "v_madmk_f32");  // printed: D, S0, K, S1
  valu<[](float a, float b, float k) { return std::fma(a, b, k); }>(r, "v_fmaak_f32");  // printed: D, S0, S1, K
  valu<[](float a, float k, float b) { return std::fma(a, k, b); }>(r, "v_fmamk_f32");  // printed: D, S0, K, S1
  valu<[](float a, float b, float d) { float p = a * b; return p + d; }>(r, "v_mac_f32", Category::Vector, kDstIsAccum);
  // DX9 "legacy" multiply: 0 * anything (Inf, NaN included) is +0 (ISA V_MUL_LEGACY_F32); mad: unfused.
  valu<[](float a, float b) { return mul_legacy(a, b); }>(r, "v_mul_legacy_f32");
  valu<[](float a, float b, float c) { return mul_legacy(a, b) + c; }>(r, "v_mad_legacy_f32");
  // Cube map coordinates (ISA V_CUBEID/SC/TC/MA_F32): the major axis is z if |z| >= |x|, |y|, else y if
  // |y| >= |x|, else x; S0 = x, S1 = y, S2 = z.
  valu<[](float x, float y, float z) { return cube(x, y, z).id; }>(r, "v_cubeid_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).sc; }>(r, "v_cubesc_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).tc; }>(r, "v_cubetc_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).ma; }>(r, "v_cubema_f32");
  valu<[](float a, float b, float c) { return std::fmin(std::fmin(a, b), c); }>(r, "v_min3_f32");
  valu<[](float a, float b, float c) { return std::fmax(std::fmax(a, b), c); }>(r, "v_max3_f32");
  valu<[](float a, float b, float c) {
    if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return std::fmin(std::fmin(a, b), c);
    return std::fmax(std::fmin(a, b), std::fmin(std::fmax(a, b), c));
  }>(r, "v_med3_f32");
  valu<[](float a) { return std::trunc(a); }>(r, "v_trunc_f32");
  valu<[](float a) { return std::ceil(a); }>(r, "v_ceil_f32");
  valu<[](float a) { return std::floor(a); }>(r, "v_floor_f32");
  valu<[](float a) { return std::nearbyint(a); }>(r, "v_rndne_f32");
  valu<[](float a) { return a - std::floor(a); }>(r, "v_fract_f32");
  valu<[](float a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f32");
  // Conversions.
  valu<[](i32 a) { return static_cast<float>(a); }>(r, "v_cvt_f32_i32");
  valu<[](u32 a) { return static_cast<float>(a); }>(r, "v_cvt_f32_u32");
  valu<[](float a) { return cvt_sat<i32>(a); }>(r, "v_cvt_i32_f32");
  valu<[](float a) { return cvt_sat<i32>(std::floor(a)); }>(r, "v_cvt_flr_i32_f32");        // (int)floor(S0)
  valu<[](float a) { return cvt_sat<i32>(std::floor(a + 0.5f)); }>(r, "v_cvt_rpi_i32_f32");  // (int)floor(S0 + 0.5)
  valu<[](float a) { return cvt_sat<u32>(a); }>(r, "v_cvt_u32_f32");
  valu<[](u32 a) { return static_cast<float>(a & 0xff); }>(r, "v_cvt_f32_ubyte0");
  valu<[](u32 a) { return static_cast<float>((a >> 8) & 0xff); }>(r, "v_cvt_f32_ubyte1");
  valu<[](u32 a) { return static_cast<float>((a >> 16) & 0xff); }>(r, "v_cvt_f32_ubyte2");
  valu<[](u32 a) { return static_cast<float>(a >> 24); }>(r, "v_cvt_f32_ubyte3");
  valu<[](float a) { return static_cast<double>(a); }>(r, "v_cvt_f64_f32");
  valu<[](double a) { return static_cast<float>(a); }>(r, "v_cvt_f32_f64");
  valu<[](i32 a) { return static_cast<double>(a); }>(r, "v_cvt_f64_i32");
  valu<[](u32 a) { return static_cast<double>(a); }>(r, "v_cvt_f64_u32");
  valu<[](double a) { return cvt_sat<i32>(a); }>(r, "v_cvt_i32_f64");
  valu<[](double a) { return cvt_sat<u32>(a); }>(r, "v_cvt_u32_f64");
  // f64
  valu<[](double a, double b) { return a + b; }>(r, "v_add_f64");
  valu<[](double a, double b) { return a * b; }>(r, "v_mul_f64");
  valu<[](double a, double b) { return std::fmin(a, b); }>(r, "v_min_f64");
  valu<[](double a, double b) { return std::fmax(a, b); }>(r, "v_max_f64");
  valu<[](double a, double b, double c) { return std::fma(a, b, c); }>(r, "v_fma_f64");
  valu<[](double a, double b, double d) { return std::fma(a, b, d); }>(r, "v_fmac_f64", Category::Vector, kDstIsAccum);
  valu<[](double a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f64");
  valu<[](double a) { return std::trunc(a); }>(r, "v_trunc_f64");
  valu<[](double a) { return std::floor(a); }>(r, "v_floor_f64");
  valu<[](double a) { return std::ceil(a); }>(r, "v_ceil_f64");
  valu<[](double a) { return std::nearbyint(a); }>(r, "v_rndne_f64");
}

}  // namespace asmevo::emu::sem
