// Transcendental and division-helper VALU instructions (ISA "Vector ALU Operations": VOP1 / VOP3).
//
// Accuracy. The hardware's transcendentals are approximations: the ISA guide and LLVM's AMDGPU
// backend (AMDGPUCodeGenPrepare / SIISelLowering comments) give v_rcp_f32, v_rsq_f32, v_sqrt_f32,
// v_exp_f32 and v_log_f32 1 ULP, v_rcp_f16 0.51 ULP, v_rcp_f64 / v_rsq_f64 / v_sqrt_f64 2**29 ULP
// (compilers refine them with FMA Newton-Raphson steps). The emulator returns, deterministically, the
// exact result rounded once to the destination format: computed in double (f32, f16) or long double
// (f64 rsq) and rounded to nearest-even - i.e. within the documented bound, and identical on every
// run and thread count. Kernels whose correctness depends on *which* 1-ULP approximation the
// hardware picks would still need a hardware check; compiled kernels only use these through
// error-tolerant sequences (IEEE division, sqrt correction, integer division).
//
// Denormals. LLVM (lowerFEXP2 / LowerFLOG2: "v_exp_f32 is good enough for OpenCL, except it doesn't
// handle denormals"; AMDGPUCodeGenPrepare: "v_rcp_f32 and v_rsq_f32 do not support denormals";
// lowerFSQRTF32 pre-scales inputs below 2**-96) relies on the f32 transcendentals flushing denormal
// inputs and results to zero whatever MODE says, and scales around them when denormals matter. The
// units below do that; the f16 ones keep denormals ("v_rcp_f16 and v_rsq_f16 DO support denormals").
// MODE-controlled flushing of ordinary inputs/outputs (alu.h) still applies on top.
//
// Division. Compilers build IEEE a/b from v_div_scale (scale operands so the Newton-Raphson steps see
// no denormal or overflowing intermediate; VCC says the quotient needs post-scaling), v_rcp,
// FMA refinement, v_div_fmas (last FMA + the post-scale chosen by VCC) and v_div_fixup (special
// cases: NaN, 0/0, inf/inf, x/0, x/inf, underflow, overflow). The units follow the ISA pseudo-code
// of the MI200/MI300 ISA guides (V_DIV_SCALE_F32/F64, V_DIV_FMAS_F32/F64, V_DIV_FIXUP_F32/F64/F16),
// with two places where the published pseudo-code cannot be literal and is made self-consistent:
// the scale directions of div_scale/div_fmas, and div_fixup's overflow test (see the functions).
// With them the LLVM 22 sequence returns the correctly rounded IEEE quotient (and the ISA's default
// NaN 0xffc00000 for 0/0 and inf/inf) - checked on every pair of 16 special values (zeros, infs,
// NaN, denormals, FLT_MIN/MAX) and on random bit patterns including over/underflowing quotients, for
// f32 and f64, by tests/emu/isa_trans_test.cpp. v_div_fmas_f64 may round a denormal result twice
// (fma, then the 2**-128 post-scale); f32 is exact (double-double + single rounding).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

// Flush an f32 denormal to a zero of the same sign (the transcendental units' input/output rule).
inline float ftz(float x) { return detail::flush(x); }

inline int exponent(float x) { return static_cast<int>((std::bit_cast<u32>(x) >> 23) & 0xff); }
inline int exponent(double x) { return static_cast<int>((std::bit_cast<u64>(x) >> 52) & 0x7ff); }

// "x == DENORM" of the pseudo-code for a value computed in wider precision: nonzero and below the
// format's smallest normal.
template <class F> bool denorm_range(long double v) {
  return v != 0 && std::fabs(v) < static_cast<long double>(std::numeric_limits<F>::min());
}
template <class F> bool is_denorm(F x) { return std::fpclassify(x) == FP_SUBNORMAL; }

template <class F> F quiet(F x) {
  if constexpr (sizeof(F) == 4) return std::bit_cast<F>(std::bit_cast<u32>(x) | 0x00400000u);
  else if constexpr (sizeof(F) == 8) return std::bit_cast<F>(std::bit_cast<u64>(x) | 0x0008000000000000ull);
  else return std::bit_cast<F>(static_cast<u16>(std::bit_cast<u16>(x) | 0x0200u));
}
template <class F> F default_nan() {  // 0xffc00000 / 0xfff8000000000000 / 0xfe00 (ISA: 0/0, inf/inf)
  if constexpr (sizeof(F) == 4) return std::bit_cast<F>(0xffc00000u);
  else if constexpr (sizeof(F) == 8) return std::bit_cast<F>(0xfff8000000000000ull);
  else return std::bit_cast<F>(static_cast<u16>(0xfe00));
}

// sin/cos of S0 * 2*pi (the ISA's input is in revolutions). The reduction x - rint(x) is exact in
// double for every float input, so large arguments are reduced without loss (gfx9 has no reduced
// input range: LLVM's hasTrigReducedRange() is false from GFX9 on).
inline double sin_rev(double x) {
  if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
  double r = x - std::nearbyint(x);  // [-0.5, 0.5]
  if (r == 0) return std::copysign(0.0, x);
  return std::sin(2 * std::numbers::pi * r);
}
inline double cos_rev(double x) {
  if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
  double r = x - std::nearbyint(x);
  return std::cos(2 * std::numbers::pi * r);
}

// Rounds hi + lo (an exact double-double, |lo| <= ulp(hi)/2) to float once: (float)hi is correct
// unless hi lies exactly halfway between two floats, where lo's sign decides.
inline float round_to_float(double hi, double lo) {
  float f = static_cast<float>(hi);
  if (lo == 0 || !std::isfinite(hi) || static_cast<double>(f) == hi) return f;
  float g = hi > static_cast<double>(f) ? std::nextafter(f, std::numeric_limits<float>::infinity())
                                        : std::nextafter(f, -std::numeric_limits<float>::infinity());
  if (hi - static_cast<double>(f) != static_cast<double>(g) - hi) return f;  // not a midpoint
  bool up = lo > 0;
  return (static_cast<double>(f) < static_cast<double>(g)) == up ? g : f;
}

// fma(a, b, c) * 2**k with a single rounding to float (the product is exact in double; TwoSum gives
// the exact sum as a double-double; scaling by a power of two is exact).
inline float fma_scaled(float a, float b, float c, int k) {
  double p = static_cast<double>(a) * static_cast<double>(b);
  double s = p + static_cast<double>(c);
  double bb = s - p;
  double err = (p - (s - bb)) + (static_cast<double>(c) - bb);
  if (!std::isfinite(s)) return static_cast<float>(std::ldexp(s, k));
  return round_to_float(std::ldexp(s, k), std::ldexp(err, k));
}

// V_DIV_SCALE_F32/F64: {D, VCC} = scale(S0 = the operand being scaled, S1 = denominator, S2 =
// numerator); S0 must equal S1 or S2. Cases in the ISA's order. Where the pseudo-code scales the
// denominator of a quotient that is denormal (1/S1 and S2/S1 both denormal), the denominator is
// huge, so it is scaled *down* (2**-k); then every VCC=1 case leaves the scaled quotient either
// >= 2**31 (post-scale up) or < 2**-62 (post-scale down), which V_DIV_FMAS tells apart by exponent.
template <class F> Carry<F> div_scale(F s0, F s1, F s2) {
  constexpr bool dbl = sizeof(F) == 8;
  constexpr int kDiff = dbl ? 768 : 96, kScale = dbl ? 128 : 64, kTiny = dbl ? 53 : 23;
  F d = s0;
  bool vcc = false;
  long double n = s2, den = s1;
  if (s2 == 0 || s1 == 0) {
    d = std::numeric_limits<F>::quiet_NaN();
  } else if (exponent(s2) - exponent(s1) >= kDiff) {  // N/D near the largest finite value
    vcc = true;
    if (s0 == s1) d = std::ldexp(s0, kScale);  // only the denominator is scaled
  } else if (is_denorm(s1)) {
    d = std::ldexp(s0, kScale);
  } else if (denorm_range<F>(1.0L / den) && denorm_range<F>(n / den)) {
    vcc = true;
    if (s0 == s1) d = std::ldexp(s0, -kScale);  // only the (huge) denominator is scaled
  } else if (denorm_range<F>(1.0L / den)) {
    d = std::ldexp(s0, -kScale);
  } else if (denorm_range<F>(n / den)) {
    vcc = true;
    if (s0 == s2) d = std::ldexp(s0, kScale);  // only the numerator is scaled
  } else if (exponent(s2) <= kTiny) {  // numerator is tiny
    d = std::ldexp(s0, kScale);
  }
  return {d, vcc};
}

// V_DIV_FMAS_F32/F64: D = fma(S0, S1, S2), post-scaled when VCC is set (S2 is the quotient estimate
// of the scaled division): by 2**k when it is >= 2 (the denominator was scaled up), else by 2**-k.
template <class F> F div_fmas(F a, F b, F c, bool vcc) {
  constexpr int kScale = sizeof(F) == 8 ? 128 : 64, kBias = sizeof(F) == 8 ? 1023 : 127;
  if (!vcc) return std::fma(a, b, c);
  int k = exponent(c) > kBias ? kScale : -kScale;
  if constexpr (sizeof(F) == 4) return fma_scaled(a, b, c, k);
  else return std::ldexp(std::fma(a, b, c), k);  // f64: a denormal result may be rounded twice
}

// V_DIV_FIXUP_F32/F64/F16: S0 = quotient, S1 = denominator, S2 = numerator.
template <class F> F div_fixup(F s0, F s1, F s2) {
  constexpr int kUnder = sizeof(F) == 8 ? -1075 : -150, kOver = sizeof(F) == 8 ? 1025 : 129;
  bool neg = std::signbit(static_cast<double>(s1)) != std::signbit(static_cast<double>(s2));
  const F inf = std::numeric_limits<F>::infinity();
  auto isnan = [](F x) { return x != x; };
  auto isinf = [&](F x) { return x == inf || x == -inf; };
  if (isnan(s2)) return quiet(s2);
  if (isnan(s1)) return quiet(s1);
  if (s1 == F(0) && s2 == F(0)) return default_nan<F>();
  if (isinf(s1) && isinf(s2)) return default_nan<F>();
  if (s1 == F(0) || isinf(s2)) return neg ? -inf : inf;
  if (isinf(s1) || s2 == F(0)) return neg ? F(-0.0) : F(0.0);
  if constexpr (sizeof(F) >= 4) {
    // Underflow: |N/D| < 2**-150 (f32) rounds to zero. Overflow: the pseudo-code's "exponent(S1) ==
    // 255" is unreachable after the inf checks above; what the sequence needs is the quotient's
    // overflow: exponent(N) - exponent(D) >= 129 means |N/D| >= 2**128 (f32; 1025 / 2**1024 for f64),
    // where the scaled Newton-Raphson intermediates themselves overflow (NaN) - the result is +-inf.
    if (exponent(s2) - exponent(s1) < kUnder) return neg ? F(-0.0) : F(0.0);
    if (exponent(s2) - exponent(s1) >= kOver) return neg ? -inf : inf;
  }
  F a = s0 < F(0) || std::signbit(static_cast<double>(s0)) ? -s0 : s0;
  return neg ? -a : a;
}

// V_DIV_FMAS reads VCC implicitly, which the valu<> signature can't express: a small custom unit
// with the same operand handling (read_lanes applies abs/neg and MODE flushing, apply_output_mods
// clamp/omod/flush).
template <class F> void exec_div_fmas(ExecContext& ctx, Wave& w, const ExecInst& in) {
  alignas(64) F a[kWaveSize], b[kWaveSize], c[kWaveSize], d[kWaveSize];
  read_lanes<F>(ctx, w, in, 0, a);
  read_lanes<F>(ctx, w, in, 1, b);
  read_lanes<F>(ctx, w, in, 2, c);
  const u64 exec = w.exec(), vcc = w.vcc();
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
  for (unsigned l = 0; l < kWaveSize; ++l) d[l] = div_fmas<F>(a[l], b[l], c[l], vcc >> l & 1);
  apply_output_mods<F>(w, in, d);
  write_lanes<F>(w, in, in.dst[0], d, exec);
}

template <class F> F frexp_mant(F x) {
  if (!std::isfinite(static_cast<double>(x))) return x;
  int e = 0;
  if constexpr (std::is_same_v<F, f16>) return static_cast<f16>(std::frexp(static_cast<float>(x), &e));
  else return std::frexp(x, &e);
}
template <class F> int frexp_exp(F x) {
  if (!std::isfinite(static_cast<double>(x))) return 0;
  int e = 0;
  std::frexp(static_cast<double>(x), &e);
  return e;
}

}  // namespace

void register_trans(Registry& r) {
  // f32 transcendentals: exact result rounded once; denormal inputs and results flushed (see top).
  constexpr auto exp2_f32 = [](float a) { return ftz(static_cast<float>(std::exp2(static_cast<double>(ftz(a))))); };
  constexpr auto log2_f32 = [](float a) { return ftz(static_cast<float>(std::log2(static_cast<double>(ftz(a))))); };
  valu<exp2_f32>(r, "v_exp_f32");
  valu<log2_f32>(r, "v_log_f32");
  // The pre-GCN3 "legacy" forms compute the same functions (ISA: "with legacy semantics"; how their special
  // cases differ is not documented: hardware confirmation needed, docs/emulator.md).
  valu<exp2_f32>(r, "v_exp_legacy_f32");
  valu<log2_f32>(r, "v_log_legacy_f32");
  valu<[](float a) { return ftz(1.0f / ftz(a)); }>(r, "v_rcp_f32");
  valu<[](float a) { return ftz(1.0f / ftz(a)); }>(r, "v_rcp_iflag_f32");  // same value; sets an integer-div flag
  valu<[](float a) { return ftz(static_cast<float>(1.0 / std::sqrt(static_cast<double>(ftz(a))))); }>(r, "v_rsq_f32");
  valu<[](float a) { return ftz(std::sqrt(ftz(a))); }>(r, "v_sqrt_f32");
  valu<[](float a) { return ftz(static_cast<float>(sin_rev(ftz(a)))); }>(r, "v_sin_f32");
  valu<[](float a) { return ftz(static_cast<float>(cos_rev(ftz(a)))); }>(r, "v_cos_f32");
  // f16 (denormals kept; computed in double, rounded once to half).
  valu<[](f16 a) { return static_cast<f16>(std::exp2(static_cast<double>(a))); }>(r, "v_exp_f16");
  valu<[](f16 a) { return static_cast<f16>(std::log2(static_cast<double>(a))); }>(r, "v_log_f16");
  valu<[](f16 a) { return static_cast<f16>(1.0 / static_cast<double>(a)); }>(r, "v_rcp_f16");
  valu<[](f16 a) { return static_cast<f16>(1.0 / std::sqrt(static_cast<double>(a))); }>(r, "v_rsq_f16");
  valu<[](f16 a) { return static_cast<f16>(std::sqrt(static_cast<double>(a))); }>(r, "v_sqrt_f16");
  valu<[](f16 a) { return static_cast<f16>(sin_rev(static_cast<double>(a))); }>(r, "v_sin_f16");
  valu<[](f16 a) { return static_cast<f16>(cos_rev(static_cast<double>(a))); }>(r, "v_cos_f16");
  // f64 (hardware: 2**29 ULP; here exact-then-rounded).
  valu<[](double a) { return 1.0 / a; }>(r, "v_rcp_f64");
  valu<[](double a) { return static_cast<double>(1.0L / std::sqrt(static_cast<long double>(a))); }>(r, "v_rsq_f64");
  valu<[](double a) { return std::sqrt(a); }>(r, "v_sqrt_f64");
  valu<[](double a) { return a - std::floor(a); }>(r, "v_fract_f64");  // fract(+-inf) = NaN
  // frexp: mantissa in [0.5, 1) with the input's sign; inf/NaN: mantissa = input, exponent = 0.
  valu<[](float a) { return frexp_mant(a); }>(r, "v_frexp_mant_f32");
  valu<[](double a) { return frexp_mant(a); }>(r, "v_frexp_mant_f64");
  valu<[](f16 a) { return frexp_mant(a); }>(r, "v_frexp_mant_f16");
  valu<[](float a) { return static_cast<i32>(frexp_exp(a)); }>(r, "v_frexp_exp_i32_f32");
  valu<[](double a) { return static_cast<i32>(frexp_exp(a)); }>(r, "v_frexp_exp_i32_f64");
  valu<[](f16 a) { return static_cast<i16>(frexp_exp(a)); }>(r, "v_frexp_exp_i16_f16");
  // D.f16 = S0.f16 * 2**S1.i16 (exact in float, one rounding to half).
  valu<[](f16 a, i16 b) { return static_cast<f16>(std::ldexp(static_cast<float>(a), std::clamp<int>(b, -64, 64))); }>(r, "v_ldexp_f16");
  // Division helpers.
  valu<[](float s0, float s1, float s2) { return div_scale<float>(s0, s1, s2); }>(r, "v_div_scale_f32");
  valu<[](double s0, double s1, double s2) { return div_scale<double>(s0, s1, s2); }>(r, "v_div_scale_f64");
  custom(r, "v_div_fmas_f32", &exec_div_fmas<float>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32, Ty::F32});
  custom(r, "v_div_fmas_f64", &exec_div_fmas<double>, Category::Vector, {Ty::F64}, {Ty::F64, Ty::F64, Ty::F64});
  valu<[](float s0, float s1, float s2) { return div_fixup<float>(s0, s1, s2); }>(r, "v_div_fixup_f32");
  valu<[](double s0, double s1, double s2) { return div_fixup<double>(s0, s1, s2); }>(r, "v_div_fixup_f64");
  constexpr auto div_fixup_f16 = [](f16 s0, f16 s1, f16 s2) { return div_fixup<f16>(s0, s1, s2); };
  valu<div_fixup_f16>(r, "v_div_fixup_f16");
  valu<div_fixup_f16>(r, "v_div_fixup_legacy_f16");  // the GFX8 encoding (no op_sel; high half zeroed)
}

}  // namespace asmevo::emu::sem
