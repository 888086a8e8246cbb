// f32/f64 arithmetic, compares and int<->float conversions, generic over their value domain
// (emu/generic.h): the ONE definition the emulator (EmuUnits, emu/alu.h: host IEEE floats) and the
// prover (prove/units.cpp: Z3's floating-point theory) both register. abs/neg, omod/clamp and the
// MODE's f32 denormal flush are applied by each framework around the body, not here.
// Fused ops use fused_mul_add (one rounding, as the hardware); v_mad_f32/v_mac_f32 are unfused (the
// product is rounded to f32 first: two statements, so no compiler contracts them).
#pragma once
#include <cstdint>

#include "emu/generic.h"
#include "emu/registry.h"

namespace asmevo::emu::sem {

template <class R> void float_valu_units(R& r) {
  // f32
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return a + b; }>("v_add_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return a - b; }>("v_sub_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return b - a; }>("v_subrev_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return a * b; }>("v_mul_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return min_num(a, b); }>("v_min_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b) { return max_num(a, b); }>("v_max_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 c) { return fused_mul_add(a, b, c); }>("v_fma_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 d) { return fused_mul_add(a, b, d); }>("v_fmac_f32", Category::Vector, kDstIsAccum);
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 c) { auto p = a * b; return p + c; }>("v_mad_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 k) { auto p = a * b; return p + k; }>("v_madak_f32");  // printed: D, S0, S1, K
  r.template valu<[]<class D>(D::f32 a, D::f32 k, D::f32 b) { auto p = a * k; return p + b; }>("v_madmk_f32");  // printed: D, S0, K, S1
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 k) { return fused_mul_add(a, b, k); }>("v_fmaak_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 k, D::f32 b) { return fused_mul_add(a, k, b); }>("v_fmamk_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 d) { auto p = a * b; return p + d; }>("v_mac_f32", Category::Vector, kDstIsAccum);
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 c) { return min_num(min_num(a, b), c); }>("v_min3_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 c) { return max_num(max_num(a, b), c); }>("v_max3_f32");
  r.template valu<[]<class D>(D::f32 a, D::f32 b, D::f32 c) {
    return sel(is_nan(a) || is_nan(b) || is_nan(c), min_num(min_num(a, b), c),
               max_num(min_num(a, b), min_num(max_num(a, b), c)));
  }>("v_med3_f32");
  r.template valu<[]<class D>(D::f32 a) { return round_trunc(a); }>("v_trunc_f32");
  r.template valu<[]<class D>(D::f32 a) { return round_ceil(a); }>("v_ceil_f32");
  r.template valu<[]<class D>(D::f32 a) { return round_floor(a); }>("v_floor_f32");
  r.template valu<[]<class D>(D::f32 a) { return round_even(a); }>("v_rndne_f32");
  r.template valu<[]<class D>(D::f32 a) { auto f = round_floor(a); return a - f; }>("v_fract_f32");
  // Conversions (int -> float rounds to nearest even; float -> int: toward zero, saturating, NaN -> 0).
  r.template valu<[]<class D>(D::i32 a) { return to<float>(a); }>("v_cvt_f32_i32");
  r.template valu<[]<class D>(D::u32 a) { return to<float>(a); }>("v_cvt_f32_u32");
  r.template valu<[]<class D>(D::f32 a) { return cvt_sat<int32_t>(a); }>("v_cvt_i32_f32");
  r.template valu<[]<class D>(D::f32 a) { return cvt_sat<uint32_t>(a); }>("v_cvt_u32_f32");
  r.template valu<[]<class D>(D::u32 a) { return to<float>(a & 0xffu); }>("v_cvt_f32_ubyte0");
  r.template valu<[]<class D>(D::u32 a) { return to<float>((a >> 8u) & 0xffu); }>("v_cvt_f32_ubyte1");
  r.template valu<[]<class D>(D::u32 a) { return to<float>((a >> 16u) & 0xffu); }>("v_cvt_f32_ubyte2");
  r.template valu<[]<class D>(D::u32 a) { return to<float>(a >> 24u); }>("v_cvt_f32_ubyte3");
  r.template valu<[]<class D>(D::f32 a) { return to<double>(a); }>("v_cvt_f64_f32");
  r.template valu<[]<class D>(D::f64 a) { return to<float>(a); }>("v_cvt_f32_f64");
  r.template valu<[]<class D>(D::i32 a) { return to<double>(a); }>("v_cvt_f64_i32");
  r.template valu<[]<class D>(D::u32 a) { return to<double>(a); }>("v_cvt_f64_u32");
  r.template valu<[]<class D>(D::f64 a) { return cvt_sat<int32_t>(a); }>("v_cvt_i32_f64");
  r.template valu<[]<class D>(D::f64 a) { return cvt_sat<uint32_t>(a); }>("v_cvt_u32_f64");
  // f64
  r.template valu<[]<class D>(D::f64 a, D::f64 b) { return a + b; }>("v_add_f64");
  r.template valu<[]<class D>(D::f64 a, D::f64 b) { return a * b; }>("v_mul_f64");
  r.template valu<[]<class D>(D::f64 a, D::f64 b) { return min_num(a, b); }>("v_min_f64");
  r.template valu<[]<class D>(D::f64 a, D::f64 b) { return max_num(a, b); }>("v_max_f64");
  r.template valu<[]<class D>(D::f64 a, D::f64 b, D::f64 c) { return fused_mul_add(a, b, c); }>("v_fma_f64");
  r.template valu<[]<class D>(D::f64 a, D::f64 b, D::f64 d) { return fused_mul_add(a, b, d); }>("v_fmac_f64", Category::Vector, kDstIsAccum);
  r.template valu<[]<class D>(D::f64 a) { return round_trunc(a); }>("v_trunc_f64");
  r.template valu<[]<class D>(D::f64 a) { return round_floor(a); }>("v_floor_f64");
  r.template valu<[]<class D>(D::f64 a) { return round_ceil(a); }>("v_ceil_f64");
  r.template valu<[]<class D>(D::f64 a) { return round_even(a); }>("v_rndne_f64");
}

// Float compares: IEEE ordered/unordered as the name says (a NaN makes every ordered compare false).
#define ASMEVO_GENERIC_FCMP(pre, sfx, T, flags)                                                                                   \
  r.template valu<[]<class D>(D::T, D::T) { return false; }>(pre "_f_" sfx, Category::Vector, flags);                         \
  r.template valu<[]<class D>(D::T a, D::T b) { return a < b; }>(pre "_lt_" sfx, Category::Vector, flags);                        \
  r.template valu<[]<class D>(D::T a, D::T b) { return a == b; }>(pre "_eq_" sfx, Category::Vector, flags);                       \
  r.template valu<[]<class D>(D::T a, D::T b) { return a <= b; }>(pre "_le_" sfx, Category::Vector, flags);                       \
  r.template valu<[]<class D>(D::T a, D::T b) { return a > b; }>(pre "_gt_" sfx, Category::Vector, flags);                        \
  r.template valu<[]<class D>(D::T a, D::T b) { return a < b || a > b; }>(pre "_lg_" sfx, Category::Vector, flags);               \
  r.template valu<[]<class D>(D::T a, D::T b) { return a >= b; }>(pre "_ge_" sfx, Category::Vector, flags);                       \
  r.template valu<[]<class D>(D::T a, D::T b) { return !is_nan(a) && !is_nan(b); }>(pre "_o_" sfx, Category::Vector, flags);      \
  r.template valu<[]<class D>(D::T a, D::T b) { return is_nan(a) || is_nan(b); }>(pre "_u_" sfx, Category::Vector, flags);        \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a >= b); }>(pre "_nge_" sfx, Category::Vector, flags);                   \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a < b || a > b); }>(pre "_nlg_" sfx, Category::Vector, flags);           \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a > b); }>(pre "_ngt_" sfx, Category::Vector, flags);                    \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a <= b); }>(pre "_nle_" sfx, Category::Vector, flags);                   \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a == b); }>(pre "_neq_" sfx, Category::Vector, flags);                   \
  r.template valu<[]<class D>(D::T a, D::T b) { return !(a < b); }>(pre "_nlt_" sfx, Category::Vector, flags);                    \
  r.template valu<[]<class D>(D::T, D::T) { return true; }>(pre "_tru_" sfx, Category::Vector, flags);

// Packed f32 (VOP3P on the 32-bit halves of register pairs, gfx90a+): one IEEE operation per half.
// The halves op_sel/op_sel_hi pick, neg_lo/neg_hi, denormal flushing and EXEC are each framework's
// own (exec_pk32 in vop3p.cpp, sym_pk32 in prove/units.cpp); NSrc is the sources read.
template <class R> void pk_f32_units(R& r) {
  r.template pk32<[]<class D>(D::f32 a, D::f32 b, D::f32 c) { return fused_mul_add(a, b, c); }, 3>("v_pk_fma_f32");
  r.template pk32<[]<class D>(D::f32 a, D::f32 b, D::f32) { return a * b; }, 2>("v_pk_mul_f32");
  r.template pk32<[]<class D>(D::f32 a, D::f32 b, D::f32) { return a + b; }, 2>("v_pk_add_f32");
}

template <class R> void float_vopc_units(R& r) {
  ASMEVO_GENERIC_FCMP("v_cmp", "f32", f32, 0)
  ASMEVO_GENERIC_FCMP("v_cmp", "f64", f64, 0)
  ASMEVO_GENERIC_FCMP("v_cmpx", "f32", f32, kWritesExec)
  ASMEVO_GENERIC_FCMP("v_cmpx", "f64", f64, kWritesExec)
}
#undef ASMEVO_GENERIC_FCMP

}  // namespace asmevo::emu::sem
