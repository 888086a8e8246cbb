// Value domains for semantic units: ONE definition of an instruction, two interpretations.
//
// A generic unit is a template lambda over a domain D that names its value types:
//
//   []<class D>(D::u32 a, D::u32 b) { return a + b; }                         // v_add_u32
//   []<class D>(D::u32 a, D::u32 b, D::b1 c) { return sel(c, b, a); }         // v_cndmask_b32
//
// The emulator instantiates it with `Lanes` (plain C++ integers: the code it runs is the code a
// hand-written concrete lambda would be), the prover (prove/terms.h) with a domain whose values are
// Z3 terms and whose operators build terms. A generic body therefore uses only what both domains
// provide: the C++ operators (+ - * & | ^ ~ << >> == != < <= > >= && || !), `sel(c, a, b)` for
// `c ? a : b` (C++ cannot overload ?:), `to<T>(x)` for static_cast<T>(x) (T a plain C++ type; the
// result stays in x's domain), `carry(d, c)` for a Carry result and `popcount(x)`. Shift amounts
// must be masked in the body (a C++ shift by >= the width is undefined; a term shift is not).
//
// Floats (D::f32, D::f64) use the C++ arithmetic operators and compares (IEEE, round to nearest
// even; the prover's domain is Z3's floating-point theory) and the primitives below, each an IEEE
// operation both domains have: is_nan, fused_mul_add, min_num/max_num (a NaN operand gives the
// other one; -0 < +0, as the ISA orders zeros), round_trunc/round_floor/round_ceil/round_even, cvt_sat<I>
// (float to integer, toward zero, saturating, NaN to 0). Denormal flushing and source/output
// modifiers are the framework's (emu/alu.h), not a unit's.
#pragma once
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace asmevo::emu {

template <class T, class B = bool> struct Carry {
  T d;
  B carry;
};
struct Scc {
  bool* p;
  operator bool() const { return *p; }
  Scc& operator=(bool v) { return *p = v, *this; }
};
struct Exec {
  uint64_t* p;
  operator uint64_t() const { return *p; }
  Exec& operator=(uint64_t v) { return *p = v, *this; }
};

// The concrete domain: what the emulator computes with, one lane (or the scalar unit) at a time.
struct Lanes {
  using u32 = uint32_t;
  using i32 = int32_t;
  using u64 = uint64_t;
  using i64 = int64_t;
  using b1 = bool;
  using f32 = float;
  using f64 = double;
  using Scc = emu::Scc;
  using Exec = emu::Exec;
};

template <class T> constexpr T sel(bool c, T a, std::type_identity_t<T> b) { return c ? a : b; }
template <class To, class From> constexpr To to(From x) { return static_cast<To>(x); }
template <class T, class B> constexpr Carry<T, B> carry(T d, B c) { return {d, c}; }
template <class T> constexpr uint32_t popcount(T x) { return static_cast<uint32_t>(std::popcount(static_cast<std::make_unsigned_t<T>>(x))); }

// The VOP3/DPP/SDWA source modifiers of a unit registered with kSignBitSourceMods (v_cndmask_b32):
// abs clears and neg flips bit 31 of the raw 32 bits, -|x| sets it. No float arithmetic: no denormal
// flush, NaN payloads kept, integers with bit 31 set are changed the same way. Why: LLVM folds only
// ISD::FNEG / ISD::FABS of a select's operands into these modifiers (AMDGPUISelDAGToDAG.cpp,
// SelectVOP3ModsNonCanonicalizing: IsCanonicalizing = false also keeps `fsub -0, x` out), and the
// LangRef defines fneg as "a copy of the operand with its sign bit flipped" and fabs as clearing it.
// One definition: the emulator (emu/alu.h read_lanes) and the prover (prove/units.cpp read_arg) call it.
template <class T> constexpr T sign_bit_mods(T bits, bool abs, bool neg) {
  if (abs) bits = bits & 0x7fffffffu;
  if (neg) bits = bits ^ 0x80000000u;
  return bits;
}

template <std::floating_point T> constexpr bool is_nan(T x) { return x != x; }
template <std::floating_point T> inline T fused_mul_add(T a, T b, T c) { return std::fma(a, b, c); }
// v_min/v_max/v_min3/v_max3/v_med3 (f16/f32/f64): a quiet NaN operand gives the other operand (C's
// fmin/fmax), and two zeros are ordered -0 < +0, whichever operand comes first: max(-0, +0) = +0,
// min(+0, -0) = -0. std::fmax leaves the zero pair to the implementation (libstdc++ returns an
// operand by position). Source: AMD "RDNA3.5 ISA" reference guide, 16.12 VOP3 instructions,
// V_MIN_F32 / V_MAX_F32 pseudocode (LT_NEG_ZERO / GT_NEG_ZERO: "Version of comparison where -0.0 <
// +0.0, differs from IEEE"), the same in IEEE mode and out of it; the RDNA2 guide's V_MAX_F32 text
// ("else if (S0.f == +0.0 && S1.f == -0.0) D.f = S0.f; else if (S0.f == -0.0 && S1.f == +0.0) D.f =
// S1.f"); LLVM PR 201896 (AMDGPU fmed3 constant folding): "Hardware v_med3_f32 sorts with -0 < +0
// uniformly across all generations". The CDNA3 (MI300) guide's own text was not in the searchable
// corpus (docs/emulator.md "Min and max of zeros").
template <std::floating_point T> inline T min_num(T a, T b) {
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return std::fmin(a, b);
}
template <std::floating_point T> inline T max_num(T a, T b) {
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return std::fmax(a, b);
}
template <std::floating_point T> inline T round_trunc(T a) { return std::trunc(a); }
template <std::floating_point T> inline T round_floor(T a) { return std::floor(a); }
template <std::floating_point T> inline T round_ceil(T a) { return std::ceil(a); }
template <std::floating_point T> inline T round_even(T a) { return std::nearbyint(a); }  // MODE: round to nearest even
template <class I, std::floating_point T> constexpr I cvt_sat(T x) {
  if (x != x) return 0;
  if (x <= static_cast<T>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (x >= static_cast<T>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

// Calls a unit: a generic unit with the domain D, a concrete one as it is.
template <class D, class F> constexpr bool is_generic_unit = requires { &F::template operator()<D>; };
template <class D, class F, class... A> constexpr decltype(auto) call_unit(const F& f, A&&... a) {
  if constexpr (is_generic_unit<D, F>) return f.template operator()<D>(static_cast<A&&>(a)...);
  else return f(static_cast<A&&>(a)...);
}

}  // namespace asmevo::emu
