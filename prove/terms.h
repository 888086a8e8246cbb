// The solver domain of the generic semantic units (emu/generic.h): values are Z3 terms, and the
// C++ operators a unit body uses build terms with C++'s meaning — the usual arithmetic conversions
// pick the width and signedness of an operation (u32 + u64 is a 64-bit add, i32 < int is bvslt),
// a shift keeps its left operand's (promoted) type, to<T> extends by the source's signedness or
// truncates. So one body means the same thing in both domains; tests/prove/generic_agree_test.cpp
// checks it on random inputs for every generic unit.
//
// Floats (Sym<float>, Sym<double>) are terms of Z3's IEEE floating-point theory, rounding to
// nearest even. Z3 has one NaN; the emulator's NaNs carry payloads (the host's propagation rules),
// so a float value also carries the bits it has when it is NaN: an operation's NaN result bits are
// an uninterpreted function of its operands' bits ("nan.fadd32"), which is sound for equality (the
// same operation on the same bits gives the same NaN) and claims nothing else.
#pragma once
#include <fmt/format.h>
#include <z3++.h>

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "emu/generic.h"

namespace asmevo::prove {

// The context terms are built in: one per thread, set by ContextScope (prove/prove.cpp).
z3::context& z3ctx();
struct ContextScope {
  explicit ContextScope(z3::context& c);
  ~ContextScope();
  z3::context* saved;
};

template <class T> constexpr unsigned kWidth = std::is_same_v<T, bool> ? 1 : sizeof(T) * 8;

template <class T> struct Sym {
  static_assert(!std::is_floating_point_v<T>);
  z3::expr e;
  Sym(z3::expr x) : e(std::move(x)) {}
  Sym(T c) : e(z3ctx().bv_val(static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(c)), kWidth<T>)) {}
};
template <> struct Sym<bool> {
  z3::expr e;
  Sym(z3::expr x) : e(std::move(x)) {}
  Sym(bool c) : e(z3ctx().bool_val(c)) {}
};

template <std::floating_point T> struct FpFormat;
template <> struct FpFormat<float> {
  static constexpr unsigned ebits = 8, sbits = 24;
  using Bits = uint32_t;
};
template <> struct FpFormat<double> {
  static constexpr unsigned ebits = 11, sbits = 53;
  using Bits = uint64_t;
};
template <std::floating_point T> z3::sort fp_sort() { return z3ctx().fpa_sort(FpFormat<T>::ebits, FpFormat<T>::sbits); }

// A float term: its IEEE value and the bits it has when that value is NaN.
template <std::floating_point T> struct Sym<T> {
  z3::expr e, nan;
  Sym(z3::expr value, z3::expr nan_bits) : e(std::move(value)), nan(std::move(nan_bits)) {}
  Sym(T c)
      : e(z3::expr(z3ctx(), sizeof(T) == 4 ? Z3_mk_fpa_numeral_float(z3ctx(), static_cast<float>(c), fp_sort<T>())
                                           : Z3_mk_fpa_numeral_double(z3ctx(), static_cast<double>(c), fp_sort<T>()))),
        nan(z3ctx().bv_val(static_cast<uint64_t>(std::bit_cast<typename FpFormat<T>::Bits>(c)), sizeof(T) * 8)) {}
};

template <class T> struct is_sym : std::false_type {};
template <class T> struct is_sym<Sym<T>> : std::true_type {};
template <class T> struct value_of {
  using type = T;
};
template <class T> struct value_of<Sym<T>> {
  using type = T;
};
template <class T> using value_t = typename value_of<std::remove_cvref_t<T>>::type;
template <class A, class B>
concept AnySymOperands = (is_sym<std::remove_cvref_t<A>>::value || is_sym<std::remove_cvref_t<B>>::value) &&
                      (is_sym<std::remove_cvref_t<A>>::value || std::is_arithmetic_v<std::remove_cvref_t<A>>) &&
                      (is_sym<std::remove_cvref_t<B>>::value || std::is_arithmetic_v<std::remove_cvref_t<B>>);

template <class A, class B> using common_t = std::common_type_t<value_t<A>, value_t<B>>;
template <class A, class B>
concept SymOperands = AnySymOperands<A, B> && !std::is_floating_point_v<common_t<A, B>>;
template <class A, class B>
concept FpOperands = AnySymOperands<A, B> && std::is_floating_point_v<common_t<A, B>>;

template <class T> Sym<T> lift(const Sym<T>& x) { return x; }
template <class T> requires std::is_arithmetic_v<T> Sym<T> lift(T x) { return Sym<T>(x); }

// static_cast<To>(x) on a term.
template <class To, class From>
  requires(!std::is_floating_point_v<To> && !std::is_floating_point_v<From>)
Sym<To> to(const Sym<From>& x) {
  z3::context& c = x.e.ctx();
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, bool>) return x;
    else return Sym<bool>(x.e != c.bv_val(0, kWidth<From>));
  } else if constexpr (std::is_same_v<From, bool>) {
    return Sym<To>(z3::ite(x.e, c.bv_val(1, kWidth<To>), c.bv_val(0, kWidth<To>)));
  } else if constexpr (kWidth<To> > kWidth<From>) {
    return Sym<To>(std::is_signed_v<From> ? z3::sext(x.e, kWidth<To> - kWidth<From>) : z3::zext(x.e, kWidth<To> - kWidth<From>));
  } else if constexpr (kWidth<To> < kWidth<From>) {
    return Sym<To>(x.e.extract(kWidth<To> - 1, 0));
  } else {
    return Sym<To>(x.e);
  }
}
template <class To, class From> requires std::is_arithmetic_v<From> Sym<To> to_sym(From x) { return to<To>(lift(x)); }

template <class C, class X> z3::expr as(const X& x) {
  if constexpr (is_sym<std::remove_cvref_t<X>>::value) return to<C>(x).e;
  else return to<C>(lift(x)).e;
}

#define ASMEVO_SYM_ARITH(op, bvfn)                                                   \
  template <class A, class B> requires SymOperands<A, B> auto operator op(const A& a, const B& b) { \
    using C = common_t<A, B>;                                                        \
    z3::expr x = as<C>(a), y = as<C>(b);                                             \
    return Sym<C>(bvfn);                                                             \
  }
ASMEVO_SYM_ARITH(+, x + y)
ASMEVO_SYM_ARITH(-, x - y)
ASMEVO_SYM_ARITH(*, x * y)
ASMEVO_SYM_ARITH(&, x & y)
ASMEVO_SYM_ARITH(|, x | y)
ASMEVO_SYM_ARITH(^, x ^ y)
#undef ASMEVO_SYM_ARITH

#define ASMEVO_SYM_CMP(op, sfn, ufn)                                                 \
  template <class A, class B> requires SymOperands<A, B> Sym<bool> operator op(const A& a, const B& b) { \
    using C = common_t<A, B>;                                                        \
    z3::expr x = as<C>(a), y = as<C>(b);                                             \
    if constexpr (std::is_signed_v<C>) return Sym<bool>(sfn);                        \
    else return Sym<bool>(ufn);                                                      \
  }
ASMEVO_SYM_CMP(<, x < y, z3::ult(x, y))
ASMEVO_SYM_CMP(<=, x <= y, z3::ule(x, y))
ASMEVO_SYM_CMP(>, x > y, z3::ugt(x, y))
ASMEVO_SYM_CMP(>=, x >= y, z3::uge(x, y))
ASMEVO_SYM_CMP(==, x == y, x == y)
ASMEVO_SYM_CMP(!=, x != y, x != y)
#undef ASMEVO_SYM_CMP

// Shifts keep the (promoted) type of the left operand; the amount is taken at that width.
template <class A, class B> requires SymOperands<A, B> auto shift_operands(const A& a, const B& b) {
  using P = decltype(value_t<A>{} << 0);
  z3::expr x = as<P>(a);
  using BV = value_t<B>;
  z3::expr y = as<std::conditional_t<std::is_signed_v<BV>, std::make_signed_t<P>, std::make_unsigned_t<P>>>(b);
  return std::pair<Sym<P>, z3::expr>(Sym<P>(x), y);
}
template <class A, class B> requires SymOperands<A, B> auto operator<<(const A& a, const B& b) {
  auto [x, y] = shift_operands(a, b);
  return decltype(x)(z3::shl(x.e, y));
}
template <class A, class B> requires SymOperands<A, B> auto operator>>(const A& a, const B& b) {
  auto [x, y] = shift_operands(a, b);
  using P = value_t<decltype(x)>;
  return decltype(x)(std::is_signed_v<P> ? z3::ashr(x.e, y) : z3::lshr(x.e, y));
}

template <class T> Sym<T> operator~(const Sym<T>& a) { return Sym<T>(~a.e); }
template <class T> Sym<T> operator-(const Sym<T>& a) { return Sym<T>(-a.e); }
inline Sym<bool> operator!(const Sym<bool>& a) { return Sym<bool>(!a.e); }
inline Sym<bool> operator&&(const Sym<bool>& a, const Sym<bool>& b) { return Sym<bool>(a.e && b.e); }
inline Sym<bool> operator||(const Sym<bool>& a, const Sym<bool>& b) { return Sym<bool>(a.e || b.e); }

template <class A, class B> requires(!std::is_floating_point_v<common_t<A, B>>) auto sel(const Sym<bool>& c, const A& a, const B& b) {
  using C = common_t<A, B>;
  return Sym<C>(z3::ite(c.e, as<C>(a), as<C>(b)));
}
template <class T> Sym<uint32_t> popcount(const Sym<T>& x) {
  z3::context& c = x.e.ctx();
  z3::expr sum = c.bv_val(0, 32);
  for (unsigned i = 0; i < kWidth<T>; ++i) sum = sum + z3::zext(x.e.extract(i, i), 31);
  return Sym<uint32_t>(sum);
}

// ---- Floats (emu/generic.h's float primitives as terms) ----
template <std::floating_point T> z3::expr fp_bits_mask_sign() { return z3ctx().bv_val(uint64_t{1} << (sizeof(T) * 8 - 1), sizeof(T) * 8); }
// The IEEE bits of a float term (its NaN bits when it is NaN).
template <std::floating_point T> z3::expr ieee_bits(const Sym<T>& x) { return z3::ite(x.e.mk_is_nan(), x.nan, x.e.mk_to_ieee_bv()); }
template <std::floating_point T> Sym<T> from_ieee_bits(const z3::expr& b) { return Sym<T>(b.mk_from_ieee_bv(fp_sort<T>()), b); }
// The NaN bits an operation gives: an uninterpreted function of its operands' bits.
template <std::floating_point R, class... X> z3::expr nan_bits(const char* op, const X&... operands) {
  z3::context& c = z3ctx();
  z3::expr_vector args(c);
  z3::sort_vector sorts(c);
  (args.push_back([&] {
     if constexpr (std::is_floating_point_v<value_t<X>>) return ieee_bits(operands);
     else return operands.e;
   }()),
   ...);
  for (unsigned i = 0; i < args.size(); ++i) sorts.push_back(args[i].get_sort());
  // A quiet NaN whatever its sign and payload: IEEE arithmetic never returns a signaling one (and
  // a term whose value is NaN must have NaN bits, or re-reading them would give a number).
  constexpr unsigned w = sizeof(R) * 8;
  const uint64_t quiet_nan = ((uint64_t{1} << (FpFormat<R>::ebits + 1)) - 1) << (FpFormat<R>::sbits - 2);
  return c.function(fmt::format("nan.{}{}", op, w).c_str(), sorts, c.bv_sort(w))(args) | c.bv_val(quiet_nan, w);
}
inline z3::expr rne() { return z3::expr(z3ctx(), Z3_mk_fpa_rne(z3ctx())); }
template <class C, class X> Sym<C> fp_lift(const X& x) {
  if constexpr (is_sym<std::remove_cvref_t<X>>::value) {
    static_assert(std::is_same_v<value_t<X>, C>, "mixed float widths: convert with to<T>");
    return x;
  } else {
    return Sym<C>(static_cast<C>(x));
  }
}
#define ASMEVO_SYM_FP_ARITH(op, z3fn, name)                                                                  \
  template <class A, class B> requires FpOperands<A, B> auto operator op(const A& a, const B& b) {            \
    using C = common_t<A, B>;                                                                                \
    Sym<C> x = fp_lift<C>(a), y = fp_lift<C>(b);                                                             \
    return Sym<C>(z3::expr(z3ctx(), z3fn(z3ctx(), rne(), x.e, y.e)), nan_bits<C>(name, x, y));               \
  }
ASMEVO_SYM_FP_ARITH(+, Z3_mk_fpa_add, "fadd")
ASMEVO_SYM_FP_ARITH(-, Z3_mk_fpa_sub, "fsub")
ASMEVO_SYM_FP_ARITH(*, Z3_mk_fpa_mul, "fmul")
#undef ASMEVO_SYM_FP_ARITH
#define ASMEVO_SYM_FP_CMP(op, z3fn)                                                                          \
  template <class A, class B> requires FpOperands<A, B> Sym<bool> operator op(const A& a, const B& b) {       \
    using C = common_t<A, B>;                                                                                \
    Sym<C> x = fp_lift<C>(a), y = fp_lift<C>(b);                                                             \
    return Sym<bool>(z3::expr(z3ctx(), z3fn(z3ctx(), x.e, y.e)));                                            \
  }
ASMEVO_SYM_FP_CMP(<, Z3_mk_fpa_lt)
ASMEVO_SYM_FP_CMP(<=, Z3_mk_fpa_leq)
ASMEVO_SYM_FP_CMP(>, Z3_mk_fpa_gt)
ASMEVO_SYM_FP_CMP(>=, Z3_mk_fpa_geq)
ASMEVO_SYM_FP_CMP(==, Z3_mk_fpa_eq)  // IEEE: -0 == +0, NaN != anything
#undef ASMEVO_SYM_FP_CMP
template <class A, class B> requires FpOperands<A, B> Sym<bool> operator!=(const A& a, const B& b) { return !(a == b); }
template <std::floating_point T> Sym<T> operator-(const Sym<T>& a) {  // flips the sign bit, NaN too
  return Sym<T>(z3::expr(z3ctx(), Z3_mk_fpa_neg(z3ctx(), a.e)), a.nan ^ fp_bits_mask_sign<T>());
}
template <std::floating_point T> Sym<bool> is_nan(const Sym<T>& a) { return Sym<bool>(a.e.mk_is_nan()); }
template <std::floating_point T> Sym<T> sel(const Sym<bool>& c, const Sym<T>& a, const Sym<T>& b) {
  return Sym<T>(z3::ite(c.e, a.e, b.e), z3::ite(c.e, a.nan, b.nan));
}
template <std::floating_point T> Sym<T> fused_mul_add(const Sym<T>& a, const Sym<T>& b, const Sym<T>& c) {
  return Sym<T>(z3::expr(z3ctx(), Z3_mk_fpa_fma(z3ctx(), rne(), a.e, b.e, c.e)), nan_bits<T>("fma", a, b, c));
}
// emu::min_num/max_num: ordered operands give the smaller/larger, -0 < +0 (the ISA's order of zeros,
// emu/generic.h); a quiet NaN operand gives the other one (C's fmin). What the emulator leaves to
// the C library is an uninterpreted choice: the result when both are NaN or one is signaling.
template <std::floating_point T> Sym<T> min_max_num(const Sym<T>& a, const Sym<T>& b, bool is_min) {
  z3::context& c = z3ctx();
  const char* name = is_min ? "fmin" : "fmax";
  const z3::expr ba = ieee_bits(a), bb = ieee_bits(b);
  const z3::expr quiet = c.bv_val(uint64_t{1} << (FpFormat<T>::sbits - 2), sizeof(T) * 8);
  auto signaling = [&](const Sym<T>& x, const z3::expr& bits) { return x.e.mk_is_nan() && (bits & quiet) == c.bv_val(0, sizeof(T) * 8); };
  z3::sort_vector sorts(c);
  sorts.push_back(ba.get_sort()), sorts.push_back(bb.get_sort());
  // Equal and unordered by < / >: the same bits, or -0 against +0: max takes +0, min -0.
  const unsigned top = sizeof(T) * 8 - 1;
  const z3::expr a_negative = ba.extract(top, top) == c.bv_val(1, 1);
  const z3::expr pick_a = is_min ? a_negative : !a_negative;
  // Both NaN or a signaling one: any bits (a C library may return a signaling operand as it is).
  const Sym<T> other = from_ieee_bits<T>(c.function(fmt::format("nan.{}{}", name, sizeof(T) * 8).c_str(), sorts, c.bv_sort(sizeof(T) * 8))(ba, bb));
  const z3::expr first = is_min ? z3::expr(c, Z3_mk_fpa_lt(c, a.e, b.e)) : z3::expr(c, Z3_mk_fpa_gt(c, a.e, b.e));
  const z3::expr second = is_min ? z3::expr(c, Z3_mk_fpa_lt(c, b.e, a.e)) : z3::expr(c, Z3_mk_fpa_gt(c, b.e, a.e));
  const z3::expr a_nan = a.e.mk_is_nan(), b_nan = b.e.mk_is_nan();
  const z3::expr undefined = (a_nan && b_nan) || signaling(a, ba) || signaling(b, bb);
  // A signaling NaN against a number: the number or a quiet NaN (C libraries differ).
  const z3::expr number_kept = c.function(fmt::format("snan.{}{}", name, sizeof(T) * 8).c_str(), sorts, c.bool_sort())(ba, bb);
  const z3::expr one_snan = (signaling(a, ba) && !b_nan) || (signaling(b, bb) && !a_nan);
  const Sym<bool> take_a = Sym<bool>((!undefined && (b_nan || (!a_nan && (first || (!second && (ba == bb || pick_a)))))) ||
                                     (one_snan && !a_nan && number_kept));
  const Sym<bool> take_b = Sym<bool>((!undefined && !take_a.e) || (one_snan && !b_nan && number_kept));
  return sel(take_a, a, sel(take_b, b, other));
}
template <std::floating_point T> Sym<T> min_num(const Sym<T>& a, const Sym<T>& b) { return min_max_num(a, b, true); }
template <std::floating_point T> Sym<T> max_num(const Sym<T>& a, const Sym<T>& b) { return min_max_num(a, b, false); }
template <std::floating_point T> Sym<T> round_with(const Sym<T>& a, Z3_ast rm, const char* name) {
  return Sym<T>(z3::expr(z3ctx(), Z3_mk_fpa_round_to_integral(z3ctx(), rm, a.e)), nan_bits<T>(name, a));
}
template <std::floating_point T> Sym<T> round_trunc(const Sym<T>& a) { return round_with(a, Z3_mk_fpa_rtz(z3ctx()), "trunc"); }
template <std::floating_point T> Sym<T> round_floor(const Sym<T>& a) { return round_with(a, Z3_mk_fpa_rtn(z3ctx()), "floor"); }
template <std::floating_point T> Sym<T> round_ceil(const Sym<T>& a) { return round_with(a, Z3_mk_fpa_rtp(z3ctx()), "ceil"); }
template <std::floating_point T> Sym<T> round_even(const Sym<T>& a) { return round_with(a, Z3_mk_fpa_rne(z3ctx()), "rint"); }
// Float to integer: toward zero, saturating, NaN -> 0 (emu::cvt_sat).
template <class I, std::floating_point T> Sym<I> cvt_sat(const Sym<T>& x) {
  z3::context& c = z3ctx();
  const Sym<T> lo(static_cast<T>(std::numeric_limits<I>::min())), hi(static_cast<T>(std::numeric_limits<I>::max()));
  const z3::expr conv(c, std::is_signed_v<I> ? Z3_mk_fpa_to_sbv(c, Z3_mk_fpa_rtz(c), x.e, kWidth<I>) : Z3_mk_fpa_to_ubv(c, Z3_mk_fpa_rtz(c), x.e, kWidth<I>));
  return Sym<I>(z3::ite(x.e.mk_is_nan(), Sym<I>(I{0}).e,
                        z3::ite((x <= lo).e, Sym<I>(std::numeric_limits<I>::min()).e, z3::ite((x >= hi).e, Sym<I>(std::numeric_limits<I>::max()).e, conv))));
}
// static_cast between floats and from integers to floats (round to nearest even).
template <class To, class From>
  requires(std::is_floating_point_v<To> && !std::is_floating_point_v<From>)
Sym<To> to(const Sym<From>& x) {
  z3::context& c = z3ctx();
  z3::expr v(c, std::is_signed_v<From> ? Z3_mk_fpa_to_fp_signed(c, rne(), x.e, fp_sort<To>()) : Z3_mk_fpa_to_fp_unsigned(c, rne(), x.e, fp_sort<To>()));
  return Sym<To>(v, c.bv_val(0, sizeof(To) * 8));  // never NaN
}
template <class To, class From>
  requires(std::is_floating_point_v<To> && std::is_floating_point_v<From>)
Sym<To> to(const Sym<From>& x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else return Sym<To>(z3::expr(z3ctx(), Z3_mk_fpa_to_fp_float(z3ctx(), rne(), x.e, fp_sort<To>())), nan_bits<To>("cvt", x));
}

// SCC and EXEC as a SALU unit sees them (Scc& / Exec& in the concrete domain).
struct SymScc {
  z3::expr* p;
  operator Sym<bool>() const { return Sym<bool>(*p); }
  SymScc& operator=(const Sym<bool>& v) { return *p = v.e, *this; }
};
struct SymExec {
  z3::expr* p;
  operator Sym<uint64_t>() const { return Sym<uint64_t>(*p); }
  SymExec& operator=(const Sym<uint64_t>& v) { return *p = v.e, *this; }
};
template <class To> Sym<To> to(const SymScc& s) { return to<To>(Sym<bool>(*s.p)); }

// The domain the prover instantiates generic units with.
struct Terms {
  using f32 = Sym<float>;
  using f64 = Sym<double>;
  using u32 = Sym<uint32_t>;
  using i32 = Sym<int32_t>;
  using u64 = Sym<uint64_t>;
  using i64 = Sym<int64_t>;
  using b1 = Sym<bool>;
  using Scc = SymScc;
  using Exec = SymExec;
};

}  // namespace asmevo::prove
