// The solver domain of the generic semantic units (emu/generic.h): values are Z3 terms, and the
// C++ operators a unit body uses build terms with C++'s meaning — the usual arithmetic conversions
// pick the width and signedness of an operation (u32 + u64 is a 64-bit add, i32 < int is bvslt),
// a shift keeps its left operand's (promoted) type, to<T> extends by the source's signedness or
// truncates. So one body means the same thing in both domains; tests/prove/generic_agree_test.cpp
// checks it on random inputs for every generic unit.
#pragma once
#include <z3++.h>

#include <cstdint>
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
  z3::expr e;
  Sym(z3::expr x) : e(std::move(x)) {}
  Sym(T c) : e(z3ctx().bv_val(static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(c)), kWidth<T>)) {}
};
template <> struct Sym<bool> {
  z3::expr e;
  Sym(z3::expr x) : e(std::move(x)) {}
  Sym(bool c) : e(z3ctx().bool_val(c)) {}
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
concept SymOperands = (is_sym<std::remove_cvref_t<A>>::value || is_sym<std::remove_cvref_t<B>>::value) &&
                      (is_sym<std::remove_cvref_t<A>>::value || std::is_arithmetic_v<std::remove_cvref_t<A>>) &&
                      (is_sym<std::remove_cvref_t<B>>::value || std::is_arithmetic_v<std::remove_cvref_t<B>>);

template <class T> Sym<T> lift(const Sym<T>& x) { return x; }
template <class T> requires std::is_arithmetic_v<T> Sym<T> lift(T x) { return Sym<T>(x); }

// static_cast<To>(x) on a term.
template <class To, class From> Sym<To> to(const Sym<From>& x) {
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

template <class A, class B> using common_t = std::common_type_t<value_t<A>, value_t<B>>;
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

template <class A, class B> auto sel(const Sym<bool>& c, const A& a, const B& b) {
  using C = common_t<A, B>;
  return Sym<C>(z3::ite(c.e, as<C>(a), as<C>(b)));
}
template <class T> Sym<uint32_t> popcount(const Sym<T>& x) {
  z3::context& c = x.e.ctx();
  z3::expr sum = c.bv_val(0, 32);
  for (unsigned i = 0; i < kWidth<T>; ++i) sum = sum + z3::zext(x.e.extract(i, i), 31);
  return Sym<uint32_t>(sum);
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
  using u32 = Sym<uint32_t>;
  using i32 = Sym<int32_t>;
  using u64 = Sym<uint64_t>;
  using i64 = Sym<int64_t>;
  using b1 = Sym<bool>;
  using Scc = SymScc;
  using Exec = SymExec;
};

}  // namespace asmevo::prove
