// 16-bit VALU (gfx9): u16/i16/f16 arithmetic, shifts, min/max, compares, conversions to and from f16,
// f16 fused/unfused multiply-add, packing. Per-lane bodies only; op_sel, SDWA, DPP, abs/neg/clamp/omod
// and the destination's high half are the framework's (emu/alu.h).
//
// High half of a 16-bit destination on gfx9 (LLVM GCNSubtarget::zeroesHigh16BitsOfDest, which lists
// the zeroing opcodes "mostly derived from experimentation"): VOP1/VOP2 16-bit ops and their VOP3
// (_e64) forms — v_add/sub/subrev/mul_lo_u16, shifts, min/max, f16 arithmetic, v_cvt_f16_*, rounding —
// and the gfx8-style v_mad_legacy_*/v_fma_legacy_f16 zero bits 31:16. The gfx9 VOP3 op_sel forms
// (v_mad_f16/u16/i16, v_fma_f16, v_add_i16/v_sub_i16, v_med3/min3/max3 16-bit) write the half op_sel's
// destination bit selects and keep the other; so do v_mac_f16/v_madak_f16/v_madmk_f16 ("in gfx9 ...
// some instructions changed to preserving the high bits"): those units are registered kKeepHigh16.
//
// f16 arithmetic is evaluated in float/double and rounded once to f16 (round-to-nearest-even); for
// +,-,*,min,max and conversions that is exactly the hardware result. v_fma_f16 uses a double fma
// then one rounding to f16 (a double rounding is possible only when the exact sum needs > 53 bits).
// f16 denormals are kept (the FP16/64 denorm mode HIP and Triton kernels use).
#include <cmath>
#include <limits>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

inline float F(f16 x) { return static_cast<float>(x); }
inline f16 H(float x) { return static_cast<f16>(x); }
inline f16 H(double x) { return static_cast<f16>(x); }

template <class I> I cvt_sat(float x) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<float>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (x >= static_cast<float>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

// f32 -> f16 rounding toward zero (v_cvt_pkrtz_f16_f32): overflow gives the largest finite value.
inline u16 f16_rtz(float x) {
  if (std::isnan(x)) return std::bit_cast<u16>(H(x));
  f16 h = H(x);
  if (std::fabs(F(h)) > std::fabs(x)) {
    u16 b = std::bit_cast<u16>(h);
    b = static_cast<u16>(b - 1);  // one ulp toward zero (also turns inf into 65504)
    return b;
  }
  return std::bit_cast<u16>(h);
}

inline i16 snorm16(float x) {
  if (std::isnan(x)) return 0;
  return static_cast<i16>(std::nearbyint(std::fmin(std::fmax(x, -1.0f), 1.0f) * 32767.0f));
}
inline u16 unorm16(float x) {
  if (std::isnan(x)) return 0;
  return static_cast<u16>(std::nearbyint(std::fmin(std::fmax(x, 0.0f), 1.0f) * 65535.0f));
}

template <class T> T med3(T a, T b, T c) {
  T lo = a < b ? a : b, hi = a < b ? b : a;
  return c < lo ? lo : (c > hi ? hi : c);
}

// v_cmp_class_f16: the same class bits as v_cmp_class_f32 (0 sNaN .. 9 +inf).
inline bool class_f16(f16 x, u32 mask) {
  u16 b = std::bit_cast<u16>(x);
  bool neg = b >> 15, exp_all = ((b >> 10) & 0x1f) == 0x1f, exp0 = ((b >> 10) & 0x1f) == 0;
  u16 man = b & 0x3ff;
  int c;
  if (exp_all) c = man ? ((man >> 9) ? 1 : 0) : (neg ? 2 : 9);
  else if (exp0) c = man ? (neg ? 4 : 7) : (neg ? 5 : 6);
  else c = neg ? 3 : 8;
  return mask >> c & 1;
}

}  // namespace

#define ASMEVO_ICMP16(pre, sfx, T, flags)                                              \
  valu<[](T a, T b) { return false; }>(r, pre "_f_" sfx, Category::Vector, flags);   \
  valu<[](T a, T b) { return a < b; }>(r, pre "_lt_" sfx, Category::Vector, flags);  \
  valu<[](T a, T b) { return a == b; }>(r, pre "_eq_" sfx, Category::Vector, flags); \
  valu<[](T a, T b) { return a <= b; }>(r, pre "_le_" sfx, Category::Vector, flags); \
  valu<[](T a, T b) { return a > b; }>(r, pre "_gt_" sfx, Category::Vector, flags);  \
  valu<[](T a, T b) { return a != b; }>(r, pre "_ne_" sfx, Category::Vector, flags); \
  valu<[](T a, T b) { return a >= b; }>(r, pre "_ge_" sfx, Category::Vector, flags); \
  valu<[](T a, T b) { return true; }>(r, pre "_t_" sfx, Category::Vector, flags);

#define ASMEVO_FCMP16(pre, flags)                                                                                        \
  valu<[](f16 a, f16 b) { return false; }>(r, pre "_f_f16", Category::Vector, flags);                                  \
  valu<[](f16 a, f16 b) { return F(a) < F(b); }>(r, pre "_lt_f16", Category::Vector, flags);                           \
  valu<[](f16 a, f16 b) { return F(a) == F(b); }>(r, pre "_eq_f16", Category::Vector, flags);                          \
  valu<[](f16 a, f16 b) { return F(a) <= F(b); }>(r, pre "_le_f16", Category::Vector, flags);                          \
  valu<[](f16 a, f16 b) { return F(a) > F(b); }>(r, pre "_gt_f16", Category::Vector, flags);                           \
  valu<[](f16 a, f16 b) { return F(a) < F(b) || F(a) > F(b); }>(r, pre "_lg_f16", Category::Vector, flags);            \
  valu<[](f16 a, f16 b) { return F(a) >= F(b); }>(r, pre "_ge_f16", Category::Vector, flags);                          \
  valu<[](f16 a, f16 b) { return !std::isnan(F(a)) && !std::isnan(F(b)); }>(r, pre "_o_f16", Category::Vector, flags); \
  valu<[](f16 a, f16 b) { return std::isnan(F(a)) || std::isnan(F(b)); }>(r, pre "_u_f16", Category::Vector, flags);   \
  valu<[](f16 a, f16 b) { return !(F(a) >= F(b)); }>(r, pre "_nge_f16", Category::Vector, flags);                      \
  valu<[](f16 a, f16 b) { return !(F(a) < F(b) || F(a) > F(b)); }>(r, pre "_nlg_f16", Category::Vector, flags);        \
  valu<[](f16 a, f16 b) { return !(F(a) > F(b)); }>(r, pre "_ngt_f16", Category::Vector, flags);                       \
  valu<[](f16 a, f16 b) { return !(F(a) <= F(b)); }>(r, pre "_nle_f16", Category::Vector, flags);                      \
  valu<[](f16 a, f16 b) { return !(F(a) == F(b)); }>(r, pre "_neq_f16", Category::Vector, flags);                      \
  valu<[](f16 a, f16 b) { return !(F(a) < F(b)); }>(r, pre "_nlt_f16", Category::Vector, flags);                       \
  valu<[](f16 a, f16 b) { return true; }>(r, pre "_tru_f16", Category::Vector, flags);

void register_vop16(Registry& r) {
  constexpr auto V = Category::Vector;
  // Integer (VOP2; results zero bits 31:16). Shifts use S0[3:0].
  valu<[](u16 a, u16 b) { return u16(a + b); }>(r, "v_add_u16");
  valu<[](u16 a, u16 b) { return u16(a - b); }>(r, "v_sub_u16");
  valu<[](u16 a, u16 b) { return u16(b - a); }>(r, "v_subrev_u16");
  valu<[](u16 a, u16 b) { return u16(a * b); }>(r, "v_mul_lo_u16");
  valu<[](u16 a, u16 b) { return u16(b << (a & 15)); }>(r, "v_lshlrev_b16");
  valu<[](u16 a, u16 b) { return u16(b >> (a & 15)); }>(r, "v_lshrrev_b16");
  valu<[](u16 a, i16 b) { return i16(b >> (a & 15)); }>(r, "v_ashrrev_i16");
  valu<[](u16 a, u16 b) { return a > b ? a : b; }>(r, "v_max_u16");
  valu<[](u16 a, u16 b) { return a < b ? a : b; }>(r, "v_min_u16");
  valu<[](i16 a, i16 b) { return a > b ? a : b; }>(r, "v_max_i16");
  valu<[](i16 a, i16 b) { return a < b ? a : b; }>(r, "v_min_i16");
  // VOP3-only gfx9 op_sel forms: the other half of the destination is kept.
  valu<[](i16 a, i16 b) { return i16(u16(a) + u16(b)); }>(r, "v_add_i16", V, kKeepHigh16);
  valu<[](i16 a, i16 b) { return i16(u16(a) - u16(b)); }>(r, "v_sub_i16", V, kKeepHigh16);
  valu<[](u16 a, u16 b, u16 c) { return u16(a * b + c); }>(r, "v_mad_u16", V, kKeepHigh16);
  valu<[](i16 a, i16 b, i16 c) { return i16(u16(a) * u16(b) + u16(c)); }>(r, "v_mad_i16", V, kKeepHigh16);
  valu<[](u16 a, u16 b, u16 c) { return u16(a * b + c); }>(r, "v_mad_legacy_u16");
  valu<[](i16 a, i16 b, i16 c) { return i16(u16(a) * u16(b) + u16(c)); }>(r, "v_mad_legacy_i16");
  valu<[](u16 a, u16 b, u32 c) { return u32(a) * u32(b) + c; }>(r, "v_mad_u32_u16");
  valu<[](i16 a, i16 b, i32 c) { return static_cast<i32>(u32(i32(a) * i32(b)) + u32(c)); }>(r, "v_mad_i32_i16");
  valu<[](u16 a, u16 b, u16 c) { return med3(a, b, c); }>(r, "v_med3_u16", V, kKeepHigh16);
  valu<[](i16 a, i16 b, i16 c) { return med3(a, b, c); }>(r, "v_med3_i16", V, kKeepHigh16);
  valu<[](u16 a, u16 b, u16 c) { u16 m = a < b ? a : b; return m < c ? m : c; }>(r, "v_min3_u16", V, kKeepHigh16);
  valu<[](i16 a, i16 b, i16 c) { i16 m = a < b ? a : b; return m < c ? m : c; }>(r, "v_min3_i16", V, kKeepHigh16);
  valu<[](u16 a, u16 b, u16 c) { u16 m = a > b ? a : b; return m > c ? m : c; }>(r, "v_max3_u16", V, kKeepHigh16);
  valu<[](i16 a, i16 b, i16 c) { i16 m = a > b ? a : b; return m > c ? m : c; }>(r, "v_max3_i16", V, kKeepHigh16);

  // f16 arithmetic (VOP2/VOP1; zero bits 31:16).
  valu<[](f16 a, f16 b) { return H(F(a) + F(b)); }>(r, "v_add_f16");
  valu<[](f16 a, f16 b) { return H(F(a) - F(b)); }>(r, "v_sub_f16");
  valu<[](f16 a, f16 b) { return H(F(b) - F(a)); }>(r, "v_subrev_f16");
  valu<[](f16 a, f16 b) { return H(F(a) * F(b)); }>(r, "v_mul_f16");
  valu<[](f16 a, f16 b) { return H(max_num(F(a), F(b))); }>(r, "v_max_f16");
  valu<[](f16 a, f16 b) { return H(min_num(F(a), F(b))); }>(r, "v_min_f16");
  valu<[](f16 a) { return H(std::trunc(F(a))); }>(r, "v_trunc_f16");
  valu<[](f16 a) { return H(std::ceil(F(a))); }>(r, "v_ceil_f16");
  valu<[](f16 a) { return H(std::floor(F(a))); }>(r, "v_floor_f16");
  valu<[](f16 a) { return H(std::nearbyint(F(a))); }>(r, "v_rndne_f16");
  valu<[](f16 a) { return H(F(a) - std::floor(F(a))); }>(r, "v_fract_f16");
  // Multiply-add: v_mad_* round the product to f16 first (unfused); v_fma_f16 is fused.
  valu<[](f16 a, f16 b, f16 c) { f16 p = H(F(a) * F(b)); return H(F(p) + F(c)); }>(r, "v_mad_f16", V, kKeepHigh16);
  valu<[](f16 a, f16 b, f16 c) { f16 p = H(F(a) * F(b)); return H(F(p) + F(c)); }>(r, "v_mad_legacy_f16");
  valu<[](f16 a, f16 b, f16 c) { return H(std::fma(double(F(a)), double(F(b)), double(F(c)))); }>(r, "v_fma_f16", V, kKeepHigh16);
  valu<[](f16 a, f16 b, f16 c) { return H(std::fma(double(F(a)), double(F(b)), double(F(c)))); }>(r, "v_fma_legacy_f16");
  valu<[](f16 a, f16 b, f16 d) { f16 p = H(F(a) * F(b)); return H(F(p) + F(d)); }>(r, "v_mac_f16", V, kDstIsAccum | kKeepHigh16);
  valu<[](f16 a, f16 b, f16 k) { f16 p = H(F(a) * F(b)); return H(F(p) + F(k)); }>(r, "v_madak_f16", V, kKeepHigh16);  // D, S0, S1, K
  valu<[](f16 a, f16 k, f16 b) { f16 p = H(F(a) * F(k)); return H(F(p) + F(b)); }>(r, "v_madmk_f16", V, kKeepHigh16);  // D, S0, K, S1
  valu<[](f16 a, f16 b, f16 c) {
    float x = F(a), y = F(b), z = F(c);
    if (std::isnan(x) || std::isnan(y) || std::isnan(z)) return H(min_num(min_num(x, y), z));
    return H(max_num(min_num(x, y), min_num(max_num(x, y), z)));
  }>(r, "v_med3_f16", V, kKeepHigh16);
  valu<[](f16 a, f16 b, f16 c) { return H(min_num(min_num(F(a), F(b)), F(c))); }>(r, "v_min3_f16", V, kKeepHigh16);
  valu<[](f16 a, f16 b, f16 c) { return H(max_num(max_num(F(a), F(b)), F(c))); }>(r, "v_max3_f16", V, kKeepHigh16);

  // Conversions.
  valu<[](float a) { return H(a); }>(r, "v_cvt_f16_f32");
  valu<[](f16 a) { return F(a); }>(r, "v_cvt_f32_f16");
  valu<[](u16 a) { return H(static_cast<float>(a)); }>(r, "v_cvt_f16_u16");
  valu<[](i16 a) { return H(static_cast<float>(a)); }>(r, "v_cvt_f16_i16");
  valu<[](f16 a) { return cvt_sat<u16>(F(a)); }>(r, "v_cvt_u16_f16");
  valu<[](f16 a) { return cvt_sat<i16>(F(a)); }>(r, "v_cvt_i16_f16");
  // Packing: D = {S1[15:0], S0[15:0]} (op_sel picks the halves of the sources).
  valu<[](f16 a, f16 b) { return u32(std::bit_cast<u16>(a)) | u32(std::bit_cast<u16>(b)) << 16; }>(r, "v_pack_b32_f16");
  valu<[](float a, float b) { return u32(f16_rtz(a)) | u32(f16_rtz(b)) << 16; }>(r, "v_cvt_pkrtz_f16_f32");
  valu<[](u32 a, u32 b) { auto s = [](u32 x) { return x > 0xffffu ? 0xffffu : x; }; return s(a) | s(b) << 16; }>(r, "v_cvt_pk_u16_u32");
  valu<[](i32 a, i32 b) {
    auto s = [](i32 x) { return u32(u16(x < -32768 ? -32768 : x > 32767 ? 32767 : x)); };
    return s(a) | s(b) << 16;
  }>(r, "v_cvt_pk_i16_i32");

  // Normalized conversions: snorm = round(clamp(x, -1, 1) * 32767), unorm = round(clamp(x, 0, 1) * 65535)
  // (round to nearest even; NaN -> 0).
  valu<[](f16 a) { return snorm16(F(a)); }>(r, "v_cvt_norm_i16_f16");
  valu<[](f16 a) { return unorm16(F(a)); }>(r, "v_cvt_norm_u16_f16");
  valu<[](float a, float b) { return u32(u16(snorm16(a))) | u32(u16(snorm16(b))) << 16; }>(r, "v_cvt_pknorm_i16_f32");
  valu<[](float a, float b) { return u32(unorm16(a)) | u32(unorm16(b)) << 16; }>(r, "v_cvt_pknorm_u16_f32");
  valu<[](f16 a, f16 b) { return u32(u16(snorm16(F(a)))) | u32(u16(snorm16(F(b)))) << 16; }>(r, "v_cvt_pknorm_i16_f16");
  valu<[](f16 a, f16 b) { return u32(unorm16(F(a))) | u32(unorm16(F(b))) << 16; }>(r, "v_cvt_pknorm_u16_f16");
  // v_sat_pk_u8_i16: D[15:0] = {sat_u8(S0[31:16]), sat_u8(S0[15:0])}.
  valu<[](u32 a) {
    auto s = [](i16 x) { return u32(x < 0 ? 0 : x > 255 ? 255 : x); };
    return u16(s(i16(a & 0xffff)) | s(i16(a >> 16)) << 8);
  }>(r, "v_sat_pk_u8_i16");

  // Compares (VOPC / VOP3 forms): VCC or an SGPR pair; v_cmpx_* also write EXEC.
  ASMEVO_ICMP16("v_cmp", "u16", u16, 0)
  ASMEVO_ICMP16("v_cmp", "i16", i16, 0)
  ASMEVO_ICMP16("v_cmpx", "u16", u16, kWritesExec)
  ASMEVO_ICMP16("v_cmpx", "i16", i16, kWritesExec)
  ASMEVO_FCMP16("v_cmp", 0)
  ASMEVO_FCMP16("v_cmpx", kWritesExec)
  valu<[](f16 a, u32 m) { return class_f16(a, m); }>(r, "v_cmp_class_f16");
  valu<[](f16 a, u32 m) { return class_f16(a, m); }>(r, "v_cmpx_class_f16", V, kWritesExec);
}

}  // namespace asmevo::emu::sem
