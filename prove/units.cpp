// The prover's reading of the semantic table: the generic units (emu/semantics/int_units.h)
// instantiated with Terms, inside a symbolic copy of the ALU framework's operand and exec rules
// (emu/alu.h); every other framework ALU unit as an uninterpreted function of its operands;
// global, buffer, scalar and LDS loads/stores on array memories; s_barrier as an ordering point;
// s_waitcnt/s_nop as no-ops. Anything else is Unsupported.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "emu/alu.h"
#include "emu/context.h"
#include "emu/wave.h"
#include "emu/registry.h"
#include "emu/semantics/buffer_addr.h"
#include "emu/semantics/float_units.h"
#include "emu/semantics/int_units.h"
#include "emu/semantics/vmem_data.h"
#include "program/instruction.h"
#include "prove/machine.h"
#include "prove/terms.h"
#include "support/error.h"

namespace asmevo::prove {

z3::expr Machine::sgpr(unsigned i) {
  auto it = s_.find(i);
  if (it != s_.end()) return it->second;
  z3::expr x = i == emu::kNullSgpr ? c_.bv_val(0, 32) : c_.bv_const(fmt::format("s{}", i).c_str(), 32);
  s_.emplace(i, x);
  return x;
}
void Machine::set_sgpr(unsigned i, const z3::expr& v) {
  if (i == emu::kNullSgpr) return;
  s_.insert_or_assign(i, v.simplify());
  s_written_.insert(i);
}
z3::expr Machine::vgpr(unsigned reg, unsigned lane) {
  auto it = v_.find(reg);
  if (it == v_.end()) {
    std::vector<z3::expr> lanes;
    for (unsigned l = 0; l < kLanes; ++l) lanes.push_back(c_.bv_const(fmt::format("v{}.l{}", reg, l).c_str(), 32));
    it = v_.emplace(reg, std::move(lanes)).first;
  }
  return it->second[lane];
}
void Machine::set_vgpr(unsigned reg, unsigned lane, const z3::expr& v) {
  vgpr(reg, lane);
  v_.at(reg)[lane] = v.simplify();
  v_written_.insert(reg);
}
void Machine::reserve_load(unsigned bytes, Space space) {
  const uint64_t links = uint64_t{bytes} * writes_in_[space];
  if (*memory_links_ + links > max_memory_links)
    throw Unsupported{fmt::format("memory chain exceeds the limit of {} load-byte x store-byte links ({} built; the next {}-byte "
                                  "load of {} would add {} through {} stored byte(s)); terms not built",
                                  max_memory_links, *memory_links_, bytes, space == Lds ? "LDS" : "global memory", links,
                                  writes_in_[space])};
  *memory_links_ += links;
  global_after_barrier |= space == Global && !barrier_memory_.empty();
}
z3::expr Machine::load_byte(const z3::expr& address, Space space) {
  std::string name = space == Lds ? "lds" : "mem";
  if (epoch_[space]) name += fmt::format(".b{}", epoch_[space]);
  z3::expr r = z3::select(c_.constant(name.c_str(), c_.array_sort(c_.bv_sort(64), c_.bv_sort(8))), address);
  for (const ByteWrite& w : writes_)
    if (w.space == space) r = z3::ite(w.guard && w.address == address, w.byte, r);
  return r;
}

void Machine::barrier() {
  const bool after = global_after_barrier;  // the snapshot's own reads are not accesses
  std::vector<z3::expr> at;
  for (unsigned s = 0; s < kSpaces; ++s) {
    reserve_load(1, static_cast<Space>(s));
    at.push_back(load_byte(compared_address(static_cast<Space>(s)), static_cast<Space>(s)).simplify());
  }
  barrier_memory_.push_back(std::move(at));
  global_after_barrier = after;
  const unsigned k = static_cast<unsigned>(barrier_memory_.size());
  for (unsigned s = 0; s < kSpaces; ++s) {
    if (s == Global && !havoc_global) continue;
    std::erase_if(writes_, [&](const ByteWrite& w) { return w.space == s; });
    writes_in_[s] = 0;
    epoch_[s] = k;
  }
}

namespace {

using emu::ExecInst;
using emu::Operand;
using SymFn = void (*)(Machine&, const ExecInst&);

z3::expr bits_of(Machine& m, const Operand& o, unsigned width, int lane) {
  z3::context& c = m.ctx();
  z3::expr x(c);
  switch (o.kind) {
    case Operand::VGPR:
      if (lane < 0) throw Unsupported{"a VGPR operand of a scalar instruction"};
      x = width > 32 ? z3::concat(m.vgpr(o.index + 1, lane), m.vgpr(o.index, lane)) : m.vgpr(o.index, lane);
      break;
    case Operand::SGPR:
      x = o.count >= 2 || emu::ty_dwords(o.ty) == 2 ? m.sgpr64(o.index) : z3::zext(m.sgpr(o.index), 32);
      break;
    case Operand::Const: x = c.bv_val(o.bits, 64); break;
    case Operand::SCC: x = z3::ite(m.scc(), c.bv_val(1, 64), c.bv_val(0, 64)); break;
    case Operand::VCCZ: x = z3::ite(m.sgpr64(emu::kVccLo) == c.bv_val(0, 64), c.bv_val(1, 64), c.bv_val(0, 64)); break;
    case Operand::EXECZ: x = z3::ite(m.exec64() == c.bv_val(0, 64), c.bv_val(1, 64), c.bv_val(0, 64)); break;
    default: throw Unsupported{"an operand kind the prover does not read"};
  }
  unsigned have = x.get_sort().bv_size();
  if (have > width) return x.extract(width - 1, 0);
  if (have < width) return z3::zext(x, width - have);
  return x;
}

// The mask bit of `lane` in a lane-mask operand (VCC or an SGPR pair; a constant's bit).
z3::expr mask_bit(Machine& m, const Operand& o, unsigned lane) {
  if (o.kind == Operand::VGPR) return m.ctx().bool_val(false);  // as emu::read_lanes: a VGPR mask reads 0
  z3::expr b = bits_of(m, o, 64, -1);
  return b.extract(lane, lane) == m.ctx().bv_val(1, 1);
}

// `float_srcs`: a bit per source read as a float, on which abs/neg are modeled (as emu::read_lanes);
// abs/neg are also modeled on the B32 sources of a kSignBitSourceMods unit (read_arg, sign_bit_mods).
void check_plain(const ExecInst& in, const char* what, unsigned float_srcs = 0) {
  if (in.mods.dpp.present || in.mods.sdwa.present) throw Unsupported{fmt::format("DPP/SDWA form of {}", what)};
  if (in.mods.op_sel || in.mods.clamp || in.mods.omod) throw Unsupported{fmt::format("op_sel/clamp/omod on {}", what)};
  const bool sign_bit_unit = in.entry && (in.entry->flags & emu::kSignBitSourceMods);
  for (unsigned i = 0; i < in.nsrc; ++i) {
    if (in.src[i].sext) throw Unsupported{fmt::format("source modifiers on {}", what)};
    const bool sign_bit_src = sign_bit_unit && in.entry->src[i] == emu::Ty::B32;
    if ((in.src[i].abs || in.src[i].neg) && !(float_srcs >> i & 1) && !sign_bit_src)
      throw Unsupported{fmt::format("source modifiers on {}", what)};
  }
}

template <class T> constexpr bool is_float_sym = false;
template <std::floating_point T> constexpr bool is_float_sym<Sym<T>> = true;

// A float source as emu::read_lanes reads it: abs clears and neg flips the sign bit (NaN too), then
// an f32 denormal flushes to ±0 when MODE says so.
template <class T> Sym<T> read_float(Machine& m, const Operand& o, unsigned lane) {
  z3::context& c = m.ctx();
  constexpr unsigned w = sizeof(T) * 8;
  z3::expr b = bits_of(m, o, w, static_cast<int>(lane));
  const z3::expr sign = fp_bits_mask_sign<T>();
  if (o.abs) b = b & ~sign;
  if (o.neg) b = b ^ sign;
  if constexpr (std::is_same_v<T, float>)
    if (m.flush_f32) b = z3::ite(b.extract(30, 23) == c.bv_val(0, 8), b & sign, b);
  return from_ieee_bits<T>(b);
}
// A float result as emu::apply_output_mods leaves it (an f32 denormal flushed to ±0) and write_lanes
// stores it: its IEEE bits.
template <class T> z3::expr float_result_bits(Machine& m, const Sym<T>& r) {
  z3::context& c = m.ctx();
  if constexpr (std::is_same_v<T, float>) {
    if (m.flush_f32) {
      const z3::expr zero = z3::ite(z3::expr(c, Z3_mk_fpa_is_negative(c, r.e)), z3::expr(c, Z3_mk_fpa_zero(c, fp_sort<T>(), true)),
                                    z3::expr(c, Z3_mk_fpa_zero(c, fp_sort<T>(), false)));
      return ieee_bits(Sym<T>(z3::ite(r.e.mk_is_subnormal(), zero, r.e), r.nan));
    }
  }
  return ieee_bits(r);
}

template <class P> auto read_arg(Machine& m, const ExecInst& in, unsigned idx, unsigned lane) {
  using A = std::remove_cvref_t<P>;
  if constexpr (std::is_same_v<A, Sym<bool>>) return Sym<bool>(mask_bit(m, in.src[idx], lane));
  else if constexpr (is_float_sym<A>) return read_float<value_t<A>>(m, in.src[idx], lane);
  else {
    A bits(bits_of(m, in.src[idx], kWidth<value_t<A>>, static_cast<int>(lane)));
    const Operand& o = in.src[idx];
    if constexpr (std::is_same_v<value_t<A>, uint32_t>)  // a kSignBitSourceMods unit's source (check_plain)
      if (o.abs || o.neg) return emu::sign_bit_mods(bits, o.abs, o.neg);
    return bits;
  }
}

template <class R> z3::expr term_of(const R& r) {
  if constexpr (std::is_same_v<R, bool>) return z3ctx().bool_val(r);
  else return r.e;
}

void write_vector(Machine& m, const Operand& d, unsigned lane, const z3::expr& v) {
  if (d.kind != Operand::VGPR) throw Unsupported{"a VALU result written to a scalar register (readfirstlane-like)"};
  z3::expr old = v.get_sort().bv_size() == 64 ? z3::concat(m.vgpr(d.index + 1, lane), m.vgpr(d.index, lane)) : m.vgpr(d.index, lane);
  z3::expr nv = z3::ite(m.exec_bit(lane), v, old);
  if (v.get_sort().bv_size() == 64) {
    m.set_vgpr(d.index, lane, nv.extract(31, 0));
    m.set_vgpr(d.index + 1, lane, nv.extract(63, 32));
  } else {
    m.set_vgpr(d.index, lane, nv);
  }
}
void write_scalar(Machine& m, const Operand& d, const z3::expr& v, unsigned dwords) {
  if (d.kind == Operand::SCC) return m.set_scc(v != m.ctx().bv_val(0, v.get_sort().bv_size()));
  if (d.kind != Operand::SGPR) return;
  z3::expr x = v.get_sort().bv_size() < 64 ? z3::zext(v, 64 - v.get_sort().bv_size()) : v;
  m.set_sgpr(d.index, x.extract(31, 0));
  if (dwords == 2) m.set_sgpr(d.index + 1, x.extract(63, 32));
}
// A lane mask from 64 per-lane bits (0 where EXEC is off, as the framework writes compares).
z3::expr lane_mask(Machine& m, const std::vector<z3::expr>& bits) {
  z3::context& c = m.ctx();
  z3::expr r = z3::ite(bits[kLanes - 1] && m.exec_bit(kLanes - 1), c.bv_val(1, 1), c.bv_val(0, 1));
  for (int l = kLanes - 2; l >= 0; --l) r = z3::concat(r, z3::ite(bits[l] && m.exec_bit(l), c.bv_val(1, 1), c.bv_val(0, 1)));
  return r;
}

template <class F> struct term_traits : term_traits<decltype(&F::template operator()<Terms>)> {};
template <class C, class R, class... A> struct term_traits<R (C::*)(A...) const> {
  using ret = R;
  using args = std::tuple<A...>;
};

template <class T> struct is_term_carry : std::false_type {};
template <class T, class B> struct is_term_carry<emu::Carry<T, B>> : std::true_type {};

template <auto F, class Args, size_t... I> void run_valu(Machine& m, const ExecInst& in, std::index_sequence<I...>) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename term_traits<Fn>::ret;
  constexpr unsigned float_srcs = ((is_float_sym<std::remove_cvref_t<std::tuple_element_t<I, Args>>> ? 1u << I : 0u) | ... | 0u);
  constexpr bool uses_float = float_srcs != 0 || is_float_sym<std::remove_cvref_t<R>>;
  check_plain(in, in.raw ? in.raw->mnemonic.c_str() : "a VALU instruction", float_srcs);
  if (uses_float) {
    if (m.round_mode != 0) throw Unsupported{fmt::format("MODE rounding {} (only round to nearest even is modeled, as in the emulator)", m.round_mode)};
    m.used_uninterpreted = true;  // NaN bits are uninterpreted functions
  }
  constexpr Fn f{};
  std::vector<z3::expr> bits;
  std::vector<z3::expr> carries;
  const z3::expr exec_before = m.exec64();
  std::vector<std::pair<unsigned, z3::expr>> results;  // computed for all lanes before any write
  for (unsigned l = 0; l < kLanes; ++l) {
    std::tuple<std::remove_cvref_t<std::tuple_element_t<I, Args>>...> a{read_arg<std::tuple_element_t<I, Args>>(m, in, I, l)...};
    auto r = f.template operator()<Terms>(std::get<I>(a)...);
    if constexpr (std::is_same_v<decltype(r), bool> || std::is_same_v<decltype(r), Sym<bool>>) {
      bits.push_back(term_of(r));
    } else if constexpr (is_term_carry<decltype(r)>::value) {
      results.emplace_back(l, r.d.e);
      carries.push_back(r.carry.e);
    } else if constexpr (is_float_sym<decltype(r)>) {
      results.emplace_back(l, float_result_bits(m, r));
    } else {
      results.emplace_back(l, r.e);
    }
  }
  (void)exec_before;
  if (!bits.empty()) {
    z3::expr mask = lane_mask(m, bits);
    write_scalar(m, in.dst[0], mask, 2);
    if (in.entry->flags & emu::kWritesExec) m.set_sgpr64(emu::kExecLo, mask);
    return;
  }
  for (auto& [l, v] : results) write_vector(m, in.dst[0], l, v);
  if (!carries.empty()) {
    // The carry mask is computed from EXEC before the (vector) write, which does not change EXEC.
    write_scalar(m, in.dst[1], lane_mask(m, carries), 2);
  }
}

template <auto F> void sym_valu(Machine& m, const ExecInst& in) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using Args = typename term_traits<Fn>::args;
  run_valu<F, Args>(m, in, std::make_index_sequence<std::tuple_size_v<Args>>{});
}

template <auto F, class Args, size_t... I> void run_salu(Machine& m, const ExecInst& in, std::index_sequence<I...>) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename term_traits<Fn>::ret;
  constexpr Fn f{};
  z3::expr scc = m.scc();
  z3::expr exec = m.exec64();
  bool has_exec = false;
  unsigned k = 0;
  auto arg = [&]<class P>(std::type_identity<P>) {
    using A = std::remove_cvref_t<P>;
    if constexpr (std::is_same_v<A, SymScc>) return SymScc{&scc};
    else if constexpr (std::is_same_v<A, SymExec>) return has_exec = true, SymExec{&exec};
    else return A(bits_of(m, in.src[k++], kWidth<value_t<A>>, -1));
  };
  std::tuple<decltype(arg(std::type_identity<std::tuple_element_t<I, Args>>{}))...> a{arg(std::type_identity<std::tuple_element_t<I, Args>>{})...};
  if constexpr (std::is_void_v<R>) {
    f.template operator()<Terms>(std::get<I>(a)...);
  } else if constexpr (std::is_same_v<R, bool> || std::is_same_v<R, Sym<bool>>) {
    z3::expr r = term_of(f.template operator()<Terms>(std::get<I>(a)...));
    if (in.ndst) write_scalar(m, in.dst[0], z3::ite(r, m.ctx().bv_val(1, 32), m.ctx().bv_val(0, 32)), 1);
    else scc = r;
  } else {
    auto r = f.template operator()<Terms>(std::get<I>(a)...);
    write_scalar(m, in.dst[0], r.e, kWidth<value_t<R>> == 64 ? 2 : 1);
  }
  m.set_scc(scc);
  if (has_exec) m.set_sgpr64(emu::kExecLo, exec);
}

template <auto F> void sym_salu(Machine& m, const ExecInst& in) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using Args = typename term_traits<Fn>::args;
  run_salu<F, Args>(m, in, std::make_index_sequence<std::tuple_size_v<Args>>{});
}

// Packed f32 (emu/semantics/vop3p.cpp exec_pk32): source i's 32-bit half for result half h is the
// dword op_sel[i] (h = 0) / op_sel_hi[i] (h = 1, all ones when not given) picks of its register
// pair (a constant's: its low or high 32 bits); f32 denormals flush as MODE says, then neg_lo /
// neg_hi flip the sign; each half's result is one generic body's (float_units.h pk_f32_units).
z3::expr pk_half(Machine& m, const Operand& o, unsigned lane, unsigned dword) {
  if (o.kind == Operand::VGPR) return m.vgpr(o.index + dword, lane);
  if (o.kind == Operand::SGPR) return m.sgpr(o.index + dword);
  const z3::expr b = bits_of(m, o, 64, -1);
  return dword ? b.extract(63, 32) : b.extract(31, 0);
}
template <auto F, unsigned NSrc> void sym_pk32(Machine& m, const ExecInst& in) {
  const std::string what = in.raw ? in.raw->mnemonic : in.entry->stem;
  if (in.mods.dpp.present || in.mods.sdwa.present) throw Unsupported{"DPP/SDWA form of " + what};
  if (in.mods.clamp || in.mods.omod) throw Unsupported{"clamp/omod on " + what};
  if (in.dst[0].kind != Operand::VGPR) throw Unsupported{"a packed result that is not a VGPR pair"};
  for (unsigned i = 0; i < in.nsrc; ++i)
    if (in.src[i].abs || in.src[i].neg || in.src[i].sext) throw Unsupported{"source modifiers on " + what};
  if (m.round_mode != 0) throw Unsupported{fmt::format("MODE rounding {} (only round to nearest even is modeled, as in the emulator)", m.round_mode)};
  m.used_uninterpreted = true;  // NaN bits are uninterpreted functions
  z3::context& c = m.ctx();
  const uint8_t sel = in.mods.op_sel, selhi = in.mods.op_sel_hi_given ? in.mods.op_sel_hi : 0x7;
  const z3::expr sign = fp_bits_mask_sign<float>();
  using Fn = std::remove_cvref_t<decltype(F)>;
  constexpr Fn f{};
  std::vector<z3::expr> out[2];  // every lane computed before any write (the pair may be a source)
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned h = 0; h < 2; ++h) {
      const uint8_t s = h ? selhi : sel, ng = h ? in.mods.neg_hi : in.mods.neg_lo;
      std::vector<Sym<float>> x;
      for (unsigned i = 0; i < 3; ++i) {
        if (i >= NSrc) {
          x.emplace_back(0.0f);
          continue;
        }
        z3::expr b = pk_half(m, in.src[i], l, s >> i & 1);
        if (m.flush_f32) b = z3::ite(b.extract(30, 23) == c.bv_val(0, 8), b & sign, b);
        if (ng >> i & 1) b = b ^ sign;
        x.push_back(from_ieee_bits<float>(b));
      }
      out[h].push_back(float_result_bits(m, f.template operator()<Terms>(x[0], x[1], x[2])));
    }
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned l = 0; l < kLanes; ++l)
      m.set_vgpr(in.dst[0].index + h, l, z3::ite(m.exec_bit(l), out[h][l], m.vgpr(in.dst[0].index + h, l)));
}

struct SymUnits {
  std::map<std::string, SymFn, std::less<>> table;
  template <auto F, unsigned NSrc> void pk32(const char* stem) { table[stem] = &sym_pk32<F, NSrc>; }
  template <auto F> void valu(const char* stem, emu::Category = emu::Category::Vector, uint32_t = 0) { table[stem] = &sym_valu<F>; }
  template <auto F> void salu(const char* stem, uint32_t = 0) { table[stem] = &sym_salu<F>; }
};

const SymUnits& generic_units() {
  static const SymUnits u = [] {
    SymUnits s;
    emu::sem::int_valu_units(s);
    emu::sem::int_vopc_units(s);
    emu::sem::int_salu_units(s);
    emu::sem::float_valu_units(s);
    emu::sem::float_vopc_units(s);
    emu::sem::pk_f32_units(s);
    return s;
  }();
  return u;
}

// The instruction's modifiers as part of an uninterpreted function's name: the same op with the same
// modifiers on the same operand bits gives the same result.
std::string modifier_key(const ExecInst& in) {
  std::string k = fmt::format("c{}o{}s{}h{}nl{}nh{}", in.mods.clamp, in.mods.omod, in.mods.op_sel, in.mods.op_sel_hi, in.mods.neg_lo, in.mods.neg_hi);
  for (unsigned i = 0; i < in.nsrc; ++i) k += fmt::format("_{}{}{}", in.src[i].abs ? "a" : "", in.src[i].neg ? "n" : "", in.src[i].sext ? "x" : "");
  return k;
}
unsigned ty_width(emu::Ty t) {
  switch (t) {
    case emu::Ty::B64: case emu::Ty::I64: case emu::Ty::F64: case emu::Ty::Mask: return 64;
    default: return 32;
  }
}

// The value of a term that simplifies to a constant.
std::optional<uint64_t> numeral(const z3::expr& e) {
  const z3::expr x = e.simplify();
  if (!x.is_numeral()) return std::nullopt;
  return x.get_numeral_uint64();
}
// A condition under which a term is a constant, with the constant: the term itself, or one arm of
// an if-then-else (a lane's value written under EXEC is `ite(exec bit, K, old value)`).
std::optional<std::pair<z3::expr, uint64_t>> constant_when(const z3::expr& e) {
  const z3::expr x = e.simplify();
  if (x.is_numeral()) return std::make_pair(x.ctx().bool_val(true), x.get_numeral_uint64());
  if (x.is_app() && x.decl().decl_kind() == Z3_OP_ITE) {
    if (x.arg(1).is_numeral()) return std::make_pair(x.arg(0), x.arg(1).get_numeral_uint64());
    if (x.arg(2).is_numeral()) return std::make_pair(!x.arg(0), x.arg(2).get_numeral_uint64());
  }
  return std::nullopt;
}
bool touches_exec(const Operand& o) {
  return o.kind == Operand::SGPR && o.index <= emu::kExecHi && o.index + std::max<unsigned>(o.count, emu::ty_dwords(o.ty)) > emu::kExecLo;
}
void put_register(emu::Wave& w, const Operand& o, unsigned width, int lane, uint64_t bits) {
  if (o.kind == Operand::VGPR) {
    w.v[o.index].lane[lane] = static_cast<uint32_t>(bits);
    if (width > 32) w.v[o.index + 1].lane[lane] = static_cast<uint32_t>(bits >> 32);
  } else if (o.kind == Operand::SGPR && o.index != emu::kNullSgpr) {
    w.s[o.index] = static_cast<uint32_t>(bits);
    if (o.count >= 2 || emu::ty_dwords(o.ty) == 2) w.s[o.index + 1] = static_cast<uint32_t>(bits >> 32);
  }
}

// An uninterpreted unit whose operands are all constants (in every lane that `lanes` marks; every
// lane of a scalar one) is that constant: the emulator's own unit computes it, on a wave holding
// those operands (VALU: every lane executing, the lanes not marked hold zeros and are not read
// back). One definition: the term is what the emulator would have written. nullopt when the unit
// stops (an unsupported mode or operand: the terms stay uninterpreted).
std::optional<emu::Wave> evaluate_on_numerals(Machine& m, const ExecInst& in, const std::vector<std::vector<uint64_t>>& lane_args, uint64_t lanes,
                                              bool scalar_scc, uint64_t scalar_exec) {
  std::optional<emu::Wave> w(std::in_place);
  unsigned vregs = 1;
  for (unsigned i = 0; i < in.ndst; ++i)
    if (in.dst[i].kind == Operand::VGPR) vregs = std::max(vregs, in.dst[i].index + 2u);
  for (unsigned i = 0; i < in.nsrc; ++i)
    if (in.src[i].kind == Operand::VGPR) vregs = std::max(vregs, in.src[i].index + 2u);
  w->allocate_vregs(vregs);
  w->mode.bits = m.mode_bits;
  w->flush_f32 = w->mode.denorm32() == 0;
  const bool vector = in.entry->cat == emu::Category::Vector;
  const bool mask_result = in.entry->ndst >= 1 && in.entry->dst[0] == emu::Ty::Mask;
  for (unsigned l = 0; l < (vector ? kLanes : 1u); ++l) {
    if (!(lanes >> l & 1)) continue;
    const std::vector<uint64_t>& a = lane_args[l];
    for (unsigned i = 0; i < in.nsrc; ++i) {
      const emu::Ty t = vector ? in.entry->src[i] : in.src[i].ty;
      if (vector && t == emu::Ty::Mask) {
        if (in.src[i].kind == Operand::SGPR && a[i]) w->set_sreg64(in.src[i].index, w->sreg64(in.src[i].index) | uint64_t{1} << l);
        continue;
      }
      put_register(*w, in.src[i], ty_width(t), vector ? static_cast<int>(l) : 0, a[i]);
    }
    if (vector && !mask_result && in.dst[0].kind == Operand::VGPR) put_register(*w, in.dst[0], ty_width(in.entry->dst[0]), static_cast<int>(l), a[in.nsrc]);
  }
  if (vector) w->set_exec(~uint64_t{0});
  else w->scc = scalar_scc, w->set_exec(scalar_exec);
  emu::ExecContext ctx;
  ctx.kernel = "prover constant";
  try {
    in.fn(ctx, *w, in);
  } catch (const Error&) {
    return std::nullopt;
  }
  return w;
}

// A framework ALU unit without a generic definition: each result is an uninterpreted function of
// the raw operand bits (per lane for VALU, with the old destination value, which 16-bit results
// partly keep), named by the mnemonic stem and modifiers; a constant where every operand is one
// (evaluate_on_numerals).
void uninterpreted(Machine& m, const ExecInst& in) {
  if (in.mods.dpp.present || in.mods.sdwa.present) throw Unsupported{"DPP/SDWA form of " + in.raw->mnemonic + " (reads other lanes)"};
  z3::context& c = m.ctx();
  const std::string base = fmt::format("uf.{}.{}", in.entry->stem, modifier_key(in));
  const bool vector = in.entry->cat == emu::Category::Vector;
  if (!vector) {
    z3::expr_vector args(c);
    z3::sort_vector sorts(c);
    for (unsigned i = 0; i < in.nsrc; ++i) args.push_back(bits_of(m, in.src[i], ty_width(in.src[i].ty), -1));
    args.push_back(z3::ite(m.scc(), c.bv_val(1, 1), c.bv_val(0, 1)));
    args.push_back(m.exec64());
    std::vector<std::vector<uint64_t>> values(1);
    for (unsigned i = 0; i < args.size() && values[0].size() == i; ++i)
      if (auto v = numeral(args[i])) values[0].push_back(*v);
    if (values[0].size() == args.size()) {
      if (auto w = evaluate_on_numerals(m, in, values, 1, values[0][in.nsrc] != 0, values[0][in.nsrc + 1])) {
        if (in.ndst) {
          const unsigned wd = ty_width(in.dst[0].ty);
          const uint64_t d = wd == 64 ? w->sreg64(in.dst[0].index) : w->s[in.dst[0].index];
          write_scalar(m, in.dst[0], c.bv_val(d, wd), wd == 64 ? 2 : 1);
        }
        m.set_scc(c.bool_val(w->scc));
        m.set_sgpr64(emu::kExecLo, c.bv_val(w->exec(), 64));
        return;
      }
    }
    m.used_uninterpreted = true;
    for (unsigned i = 0; i < args.size(); ++i) sorts.push_back(args[i].get_sort());
    z3::expr new_scc = c.function((base + ".scc").c_str(), sorts, c.bool_sort())(args);
    z3::expr new_exec = c.function((base + ".exec").c_str(), sorts, c.bv_sort(64))(args);
    if (in.ndst) {
      unsigned w = ty_width(in.dst[0].ty);
      z3::expr d = c.function((base + ".d").c_str(), sorts, c.bv_sort(w))(args);
      write_scalar(m, in.dst[0], d, w == 64 ? 2 : 1);
    }
    m.set_scc(new_scc);
    m.set_sgpr64(emu::kExecLo, new_exec);
    return;
  }
  std::vector<std::pair<unsigned, z3::expr>> d0;
  std::vector<z3::expr> mask_bits;
  const bool mask_result = in.entry->ndst >= 1 && in.entry->dst[0] == emu::Ty::Mask;
  std::vector<z3::expr_vector> lane_args;
  std::vector<std::vector<uint64_t>> values(kLanes);
  std::vector<z3::expr> when(kLanes, c.bool_val(true));  // the lane's operands are `values` under it
  uint64_t constant_lanes = 0;
  bool evaluable = !touches_exec(in.dst[0]) && (in.entry->ndst < 2 || !touches_exec(in.dst[1])) &&
                   (mask_result ? in.dst[0].kind == Operand::SGPR : in.dst[0].kind == Operand::VGPR);
  for (unsigned i = 0; i < in.nsrc; ++i) evaluable &= !touches_exec(in.src[i]);
  for (unsigned l = 0; l < kLanes; ++l) {
    z3::expr_vector args(c);
    for (unsigned i = 0; i < in.nsrc; ++i) {
      if (in.entry->src[i] == emu::Ty::Mask) args.push_back(z3::ite(mask_bit(m, in.src[i], l), c.bv_val(1, 1), c.bv_val(0, 1)));
      else args.push_back(bits_of(m, in.src[i], ty_width(in.entry->src[i]), static_cast<int>(l)));
    }
    if (!mask_result && in.dst[0].kind == Operand::VGPR) args.push_back(bits_of(m, in.dst[0], ty_width(in.entry->dst[0]), static_cast<int>(l)));
    for (unsigned i = 0; evaluable && i < args.size() && values[l].size() == i; ++i)
      if (auto v = constant_when(args[i])) values[l].push_back(v->second), when[l] = when[l] && v->first;
    if (evaluable && values[l].size() == args.size()) constant_lanes |= uint64_t{1} << l;
    when[l] = when[l].simplify();
    lane_args.push_back(args);
  }
  std::optional<emu::Wave> w;
  if (constant_lanes) w = evaluate_on_numerals(m, in, values, constant_lanes, false, 0);
  for (unsigned l = 0; l < kLanes; ++l) {
    const z3::expr_vector& args = lane_args[l];
    const bool known = w && (constant_lanes >> l & 1);
    if (known && when[l].is_true()) {  // the emulator's value
      if (mask_result) {
        mask_bits.push_back(c.bool_val(w->sreg64(in.dst[0].index) >> l & 1));
        continue;
      }
      const unsigned wd = ty_width(in.entry->dst[0]);
      uint64_t d = w->v[in.dst[0].index].lane[l];
      if (wd == 64) d |= static_cast<uint64_t>(w->v[in.dst[0].index + 1].lane[l]) << 32;
      d0.emplace_back(l, c.bv_val(d, wd));
      if (in.entry->ndst == 2) mask_bits.push_back(c.bool_val(w->sreg64(in.dst[1].index) >> l & 1));
      continue;
    }
    // The function of the operands, or where they are the constants `when` says, the emulator's value.
    m.used_uninterpreted = true;
    z3::sort_vector sorts(c);
    for (unsigned i = 0; i < args.size(); ++i) sorts.push_back(args[i].get_sort());
    auto known_or = [&](const z3::expr& k, const z3::expr& f) { return known ? z3::ite(when[l], k, f) : f; };
    if (mask_result) {
      mask_bits.push_back(known_or(c.bool_val(w && (w->sreg64(in.dst[0].index) >> l & 1)), c.function((base + ".m").c_str(), sorts, c.bool_sort())(args)));
    } else {
      const unsigned wd = ty_width(in.entry->dst[0]);
      uint64_t d = 0;
      if (known) {
        d = w->v[in.dst[0].index].lane[l];
        if (wd == 64) d |= static_cast<uint64_t>(w->v[in.dst[0].index + 1].lane[l]) << 32;
      }
      d0.emplace_back(l, known_or(c.bv_val(d, wd), c.function((base + ".d").c_str(), sorts, c.bv_sort(wd))(args)));
      if (in.entry->ndst == 2)
        mask_bits.push_back(known_or(c.bool_val(w && (w->sreg64(in.dst[1].index) >> l & 1)), c.function((base + ".carry").c_str(), sorts, c.bool_sort())(args)));
    }
  }
  if (mask_result) {
    z3::expr mask = lane_mask(m, mask_bits);
    write_scalar(m, in.dst[0], mask, 2);
    if (in.entry->flags & emu::kWritesExec) m.set_sgpr64(emu::kExecLo, mask);
    return;
  }
  for (auto& [l, v] : d0) write_vector(m, in.dst[0], l, v);
  if (in.entry->ndst == 2) write_scalar(m, in.dst[1], lane_mask(m, mask_bits), 2);
}

// global_load/store_dword{,x2,x3,x4}: ADDR = VADDR[63:0] + offset, or SADDR + zext(VADDR[31:0]) +
// offset (emu/semantics/global.cpp). Memory is one array of bytes, little-endian; the data lands at
// once (the waitcnt discipline is the static checker's).
z3::expr lane_address(Machine& m, const ExecInst& in, const Operand& vaddr, const Operand& saddr, unsigned l) {
  z3::context& c = m.ctx();
  z3::expr off = c.bv_val(static_cast<uint64_t>(in.mods.offset), 64);
  if (saddr.kind == Operand::SGPR) return m.sgpr64(saddr.index) + z3::zext(m.vgpr(vaddr.index, l), 32) + off;
  return z3::concat(m.vgpr(vaddr.index + 1, l), m.vgpr(vaddr.index, l)) + off;
}
// `bytes` bytes at `addr`, little-endian. The caller has reserved their links (reserve_lanes).
z3::expr load_bytes(Machine& m, const z3::expr& addr, unsigned bytes, Machine::Space space = Machine::Global) {
  z3::context& c = m.ctx();
  z3::expr r = m.load_byte(addr + c.bv_val(bytes - 1, 64), space);
  for (int b = static_cast<int>(bytes) - 2; b >= 0; --b) r = z3::concat(r, m.load_byte(addr + c.bv_val(b, 64), space));
  return r;
}
z3::expr load_dword(Machine& m, const z3::expr& addr) { return load_bytes(m, addr, 4); }
// A lane whose EXEC bit is known 0 (a concrete context, an s_mov to EXEC): its accesses are not built.
bool lane_off(Machine& m, unsigned lane) { return m.exec_bit(lane).simplify().is_false(); }
// Reserves a vector load's links for all its running lanes at once: a load past the limit is
// refused before any lane's terms are built (building, then freeing, one lane's 16 x 1024 links
// alone took 1.6 s).
void reserve_lanes(Machine& m, unsigned bytes_per_lane, Machine::Space space) {
  unsigned on = 0;
  for (unsigned l = 0; l < kLanes; ++l) on += !lane_off(m, l);
  m.reserve_load(bytes_per_lane * on, space);
}

template <unsigned Dwords> void global_load(Machine& m, const ExecInst& in) {
  if (in.mods.lds || in.mods.tfe) throw Unsupported{"global load to LDS / tfe"};
  m.touched_memory = true;
  const Operand saddr = in.nsrc > 1 ? in.src[1] : Operand{};
  std::vector<std::vector<z3::expr>> data(Dwords);
  reserve_lanes(m, 4 * Dwords, Machine::Global);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) {
      for (unsigned d = 0; d < Dwords; ++d) data[d].push_back(m.vgpr(in.dst[0].index + d, l));
      continue;
    }
    z3::expr a = lane_address(m, in, in.src[0], saddr, l);
    for (unsigned d = 0; d < Dwords; ++d) data[d].push_back(load_dword(m, a + m.ctx().bv_val(4 * d, 64)));
  }
  for (unsigned d = 0; d < Dwords; ++d)
    for (unsigned l = 0; l < kLanes; ++l)
      m.set_vgpr(in.dst[0].index + d, l, z3::ite(m.exec_bit(l), data[d][l], m.vgpr(in.dst[0].index + d, l)));
}
template <unsigned Dwords> void global_store(Machine& m, const ExecInst& in) {
  m.touched_memory = true;
  const Operand saddr = in.nsrc > 2 ? in.src[2] : Operand{};
  z3::context& c = m.ctx();
  for (unsigned l = 0; l < kLanes; ++l) {  // lane order, as the emulator writes overlapping lanes
    if (lane_off(m, l)) continue;
    z3::expr a = lane_address(m, in, in.src[0], saddr, l);
    for (unsigned d = 0; d < Dwords; ++d) {
      z3::expr v = m.vgpr(in.src[1].index + d, l);
      for (unsigned b = 0; b < 4; ++b) m.store_byte(m.exec_bit(l), (a + c.bv_val(4 * d + b, 64)).simplify(), v.extract(8 * b + 7, 8 * b));
    }
  }
}

// s_load_dword{,x2,x4,x8,x16}: ADDR = (SBASE + OFFSET) & ~3, OFFSET = SGPR or imm (+ offset:N), as
// emu/semantics/smem.cpp; the SGPRs get the data at once (lgkmcnt is the static checker's).
template <unsigned Dwords> void scalar_load(Machine& m, const ExecInst& in) {
  z3::context& c = m.ctx();
  m.touched_memory = true;
  if (in.src[0].kind != Operand::SGPR || in.dst[0].kind != Operand::SGPR) throw Unsupported{"s_load with a non-SGPR base or destination"};
  z3::expr off = c.bv_val(static_cast<uint64_t>(in.mods.offset), 64);
  if (in.nsrc > 1) off = off + (bits_of(m, in.src[1], 64, -1) & c.bv_val(uint64_t{0xffffffffu}, 64));
  const z3::expr addr = ((m.sgpr64(in.src[0].index) + off) & c.bv_val(~uint64_t{3}, 64)).simplify();
  std::vector<z3::expr> data;
  m.reserve_load(4 * Dwords, Machine::Global);
  for (unsigned d = 0; d < Dwords; ++d) data.push_back(load_dword(m, addr + c.bv_val(4 * d, 64)));
  for (unsigned d = 0; d < Dwords; ++d) m.set_sgpr(in.dst[0].index + d, data[d]);
}

// LDS (emu/semantics/ds.cpp): ADDR = VGPR[addr][lane] + offset, in 64 bits (no wrap); an access of
// `bytes` at or past the allocation (the shared free variable lds_size) reads 0 and writes nothing.
z3::expr lds_address(Machine& m, const Operand& addr, unsigned lane, uint64_t offset) {
  return z3::zext(m.vgpr(addr.index, lane), 32) + m.ctx().bv_val(offset, 64);
}
z3::expr lds_in_bounds(Machine& m, const z3::expr& a, unsigned bytes) { return z3::ule(a + m.ctx().bv_val(bytes, 64), m.lds_size()); }
z3::expr lds_read(Machine& m, const z3::expr& a, unsigned bytes) {
  return z3::ite(lds_in_bounds(m, a, bytes), load_bytes(m, a, bytes, Machine::Lds), m.ctx().bv_val(0, 8 * bytes));
}
void lds_write(Machine& m, unsigned lane, const z3::expr& a, const z3::expr& data, unsigned bytes) {
  const z3::expr guard = m.exec_bit(lane) && lds_in_bounds(m, a, bytes);
  for (unsigned b = 0; b < bytes; ++b) m.store_byte(guard, (a + m.ctx().bv_val(b, 64)).simplify(), data.extract(8 * b + 7, 8 * b), Machine::Lds);
}
void check_ds(Machine& m, const ExecInst& in) {
  if (in.mods.gds) throw Unsupported{"GDS"};
  if (in.src[0].kind != Operand::VGPR) throw Unsupported{"a DS address that is not a VGPR"};
  m.touched_memory = true;
}
// Lane results of a load, written after every lane has read (lanes outside EXEC keep their value).
void write_loaded(Machine& m, unsigned first_reg, std::vector<std::vector<z3::expr>>& data) {
  for (unsigned d = 0; d < data.size(); ++d)
    for (unsigned l = 0; l < kLanes; ++l) m.set_vgpr(first_reg + d, l, z3::ite(m.exec_bit(l), data[d][l], m.vgpr(first_reg + d, l)));
}
// ds_read_b32/b64/b96/b128: Bytes/4 dwords, each bounds-checked on its own; ds_read_{u,i}{8,16}:
// one element, zero- or sign-extended.
template <unsigned Bytes, bool Signed = false> void ds_read(Machine& m, const ExecInst& in) {
  check_ds(m, in);
  constexpr unsigned n = Bytes >= 4 ? Bytes / 4 : 1;
  std::vector<std::vector<z3::expr>> data(n);
  reserve_lanes(m, Bytes >= 4 ? 4 * n : Bytes, Machine::Lds);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) {
      for (unsigned d = 0; d < n; ++d) data[d].push_back(m.vgpr(in.dst[0].index + d, l));
      continue;
    }
    const z3::expr a = lds_address(m, in.src[0], l, static_cast<uint64_t>(in.mods.offset));
    if constexpr (Bytes >= 4) {
      for (unsigned d = 0; d < n; ++d) data[d].push_back(lds_read(m, a + m.ctx().bv_val(4 * d, 64), 4));
    } else {
      const z3::expr v = lds_read(m, a, Bytes);
      data[0].push_back(Signed ? z3::sext(v, 32 - 8 * Bytes) : z3::zext(v, 32 - 8 * Bytes));
    }
  }
  write_loaded(m, in.dst[0].index, data);
}
// ds_read2[st64]_b32/b64: elements at ADDR + OFFSET0*S and ADDR + OFFSET1*S (S = element size, x64
// for st64) into VDST[0..n) and VDST[n..2n).
template <unsigned Bytes, unsigned Stride> void ds_read2(Machine& m, const ExecInst& in) {
  check_ds(m, in);
  constexpr unsigned n = Bytes / 4;
  const uint64_t o0 = static_cast<uint64_t>(in.mods.offset) * Bytes * Stride, o1 = static_cast<uint64_t>(in.mods.offset1) * Bytes * Stride;
  std::vector<std::vector<z3::expr>> data(2 * n);
  reserve_lanes(m, 2 * 4 * n, Machine::Lds);
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned d = 0; d < n; ++d) {
      if (lane_off(m, l)) {
        data[d].push_back(m.vgpr(in.dst[0].index + d, l)), data[n + d].push_back(m.vgpr(in.dst[0].index + n + d, l));
        continue;
      }
      data[d].push_back(lds_read(m, lds_address(m, in.src[0], l, o0 + 4 * d), 4));
      data[n + d].push_back(lds_read(m, lds_address(m, in.src[0], l, o1 + 4 * d), 4));
    }
  write_loaded(m, in.dst[0].index, data);
}
// ds_write_b32..b128 (dword by dword), ds_write_b8/b16 (DATA's low bits; _d16_hi: bits [31:16]),
// in lane order as the emulator writes overlapping lanes.
template <unsigned Bytes, bool Hi = false> void ds_write(Machine& m, const ExecInst& in) {
  check_ds(m, in);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) continue;
    const z3::expr a = lds_address(m, in.src[0], l, static_cast<uint64_t>(in.mods.offset));
    if constexpr (Bytes >= 4) {
      for (unsigned d = 0; d < Bytes / 4; ++d) lds_write(m, l, a + m.ctx().bv_val(4 * d, 64), m.vgpr(in.src[1].index + d, l), 4);
    } else {
      const z3::expr v = m.vgpr(in.src[1].index, l);
      lds_write(m, l, a, Hi ? z3::lshr(v, 16) : v, Bytes);
    }
  }
}
template <unsigned Bytes, unsigned Stride> void ds_write2(Machine& m, const ExecInst& in) {
  check_ds(m, in);
  const uint64_t o0 = static_cast<uint64_t>(in.mods.offset) * Bytes * Stride, o1 = static_cast<uint64_t>(in.mods.offset1) * Bytes * Stride;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) continue;
    for (unsigned d = 0; d < Bytes / 4; ++d) lds_write(m, l, lds_address(m, in.src[0], l, o0 + 4 * d), m.vgpr(in.src[1].index + d, l), 4);
    for (unsigned d = 0; d < Bytes / 4; ++d) lds_write(m, l, lds_address(m, in.src[0], l, o1 + 4 * d), m.vgpr(in.src[2].index + d, l), 4);
  }
}

// global_load_{u,s}{byte,short}: one element, zero- or sign-extended to 32 bits; global_store_{byte,short}
// (DATA's low bits; _d16_hi: from bit 16), as emu/semantics/global.cpp.
template <unsigned Bytes, bool Signed> void global_load_sub(Machine& m, const ExecInst& in) {
  if (in.mods.lds || in.mods.tfe) throw Unsupported{"global load to LDS / tfe"};
  m.touched_memory = true;
  const Operand saddr = in.nsrc > 1 ? in.src[1] : Operand{};
  std::vector<std::vector<z3::expr>> data(1);
  reserve_lanes(m, Bytes, Machine::Global);
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) {
      data[0].push_back(m.vgpr(in.dst[0].index, l));
      continue;
    }
    const z3::expr v = load_bytes(m, lane_address(m, in, in.src[0], saddr, l), Bytes);
    data[0].push_back(Signed ? z3::sext(v, 32 - 8 * Bytes) : z3::zext(v, 32 - 8 * Bytes));
  }
  write_loaded(m, in.dst[0].index, data);
}
template <unsigned Bytes, unsigned Shift> void global_store_sub(Machine& m, const ExecInst& in) {
  m.touched_memory = true;
  const Operand saddr = in.nsrc > 2 ? in.src[2] : Operand{};
  for (unsigned l = 0; l < kLanes; ++l) {
    if (lane_off(m, l)) continue;
    const z3::expr a = lane_address(m, in, in.src[0], saddr, l);
    const z3::expr v = z3::lshr(m.vgpr(in.src[1].index, l), Shift);
    for (unsigned b = 0; b < Bytes; ++b) m.store_byte(m.exec_bit(l), (a + m.ctx().bv_val(b, 64)).simplify(), v.extract(8 * b + 7, 8 * b));
  }
}

// MUBUF buffer_load_* / buffer_store_* (emu/semantics/mubuf.cpp): the V# decode, the index/offset
// rules, the swizzle and the range check are the emulator's own generic bodies (buffer_addr.h,
// instantiated with Terms), and so is the placement of sub-dword and D16 data (vmem_data.h). An
// out-of-range component reads 0 and writes nothing, per component (dword).
struct BufferOperands {
  emu::sem::buffer::RsrcFields<Terms> rs;
  z3::expr soffset;
};
BufferOperands buffer_operands(Machine& m, const ExecInst& in, const Operand& srsrc, const Operand& soffset) {
  if (in.mods.lds || in.mods.tfe || in.mods.lwe) throw Unsupported{"a buffer access with lds/tfe/lwe"};
  if (srsrc.kind != Operand::SGPR) throw Unsupported{"a buffer resource that is not 4 SGPRs"};
  m.touched_memory = true;
  auto word = [&](unsigned i) { return Sym<uint32_t>(m.sgpr(srsrc.index + i)); };
  return {emu::sem::buffer::decode_rsrc<Terms>(word(0), word(1), word(2), word(3)), z3::zext(bits_of(m, soffset, 32, -1), 32)};
}
// Lane l's component at byte `extra` of its element: in range, and its address.
emu::sem::buffer::BufferComponent<Terms> buffer_lane(Machine& m, const ExecInst& in, const BufferOperands& b, const Operand& vaddr, unsigned l,
                                                     unsigned extra, unsigned bytes) {
  z3::context& c = m.ctx();
  z3::expr index = c.bv_val(0, 64), offset = c.bv_val(static_cast<uint64_t>(in.mods.offset) + extra, 64);
  if (vaddr.kind == Operand::VGPR) {
    if (in.mods.idxen) index = z3::zext(m.vgpr(vaddr.index, l), 32);
    if (in.mods.offen) offset = offset + z3::zext(m.vgpr(vaddr.index + (in.mods.idxen ? 1 : 0), l), 32);
  }
  return emu::sem::buffer::buffer_component<Terms>(b.rs, Sym<uint64_t>(b.soffset), Sym<uint64_t>(index), Sym<uint64_t>(offset), l,
                                                   in.mods.idxen, bytes);
}
template <emu::sem::vmem::DataOp Op> void buffer_load(Machine& m, const ExecInst& in) {
  const BufferOperands b = buffer_operands(m, in, in.src[1], in.src[2]);
  const Operand& vdata = in.dst[0];
  std::vector<std::vector<z3::expr>> data(Op.count);
  reserve_lanes(m, Op.count * Op.bytes, Machine::Global);
  for (unsigned l = 0; l < kLanes; ++l)
    for (unsigned d = 0; d < Op.count; ++d) {
      const z3::expr old = m.vgpr(vdata.index + d, l);
      if (lane_off(m, l)) {
        data[d].push_back(old);
        continue;
      }
      const auto at = buffer_lane(m, in, b, in.src[0], l, 4 * d, Op.bytes);
      z3::expr raw = load_bytes(m, at.address.e, Op.bytes);
      if (Op.bytes < 4) raw = z3::zext(raw, 32 - 8 * Op.bytes);
      raw = z3::ite(at.in_range.e, raw, m.ctx().bv_val(0, 32));
      data[d].push_back(emu::sem::vmem::load_value<Terms>(Sym<uint32_t>(old), Sym<uint32_t>(raw), Op).e);
    }
  write_loaded(m, vdata.index, data);
}
template <emu::sem::vmem::DataOp Op> void buffer_store(Machine& m, const ExecInst& in) {
  const BufferOperands b = buffer_operands(m, in, in.src[2], in.src[3]);
  const Operand& vdata = in.src[0];
  for (unsigned l = 0; l < kLanes; ++l) {  // lane order, as the emulator writes overlapping lanes
    if (lane_off(m, l)) continue;
    for (unsigned d = 0; d < Op.count; ++d) {
      const auto at = buffer_lane(m, in, b, in.src[1], l, 4 * d, Op.bytes);
      const z3::expr v = emu::sem::vmem::store_value<Terms>(Sym<uint32_t>(m.vgpr(vdata.index + d, l)), Op).e;
      const z3::expr guard = m.exec_bit(l) && at.in_range.e;
      for (unsigned k = 0; k < Op.bytes; ++k) m.store_byte(guard, (at.address.e + m.ctx().bv_val(k, 64)).simplify(), v.extract(8 * k + 7, 8 * k));
    }
  }
}
void add_buffer_units(std::map<std::string, SymFn, std::less<>>& t) {
  emu::sem::vmem::for_each_load([&](const char* sfx, auto tag) { t[std::string("buffer_load_") + sfx] = &buffer_load<decltype(tag)::op>; });
  emu::sem::vmem::for_each_store([&](const char* sfx, auto tag) { t[std::string("buffer_store_") + sfx] = &buffer_store<decltype(tag)::op>; });
}

// Cross-lane moves and lane counting (emu/semantics/lane.cpp): hand-written units there, since they
// read EXEC or other lanes specially, so this is the prover's reading of them, checked against the
// emulator's units by GenericAgree.LaneUnitsAgreeWithTheEmulator.
// v_readfirstlane_b32 SDST, VSRC0: the lowest lane under EXEC (lane 0 when EXEC is 0).
void readfirstlane(Machine& m, const ExecInst& in) {
  const Operand& src = in.src[0];
  if (src.kind != Operand::VGPR) return write_scalar(m, in.dst[0], bits_of(m, src, 32, -1), 1);
  z3::expr r = m.vgpr(src.index, 0);
  for (int l = kLanes - 1; l >= 0; --l) r = z3::ite(m.exec_bit(l), m.vgpr(src.index, l), r);
  write_scalar(m, in.dst[0], r, 1);
}
// The lane SSRC1[5:0] names (v_readlane_b32 / v_writelane_b32: EXEC is ignored).
z3::expr lane_index(Machine& m, const Operand& o) { return bits_of(m, o, 64, -1).extract(5, 0); }
void readlane(Machine& m, const ExecInst& in) {
  if (in.src[0].kind != Operand::VGPR) throw Unsupported{"v_readlane_b32 of a non-VGPR source"};
  const z3::expr at = lane_index(m, in.src[1]);
  z3::expr r = m.vgpr(in.src[0].index, kLanes - 1);
  for (int l = kLanes - 2; l >= 0; --l) r = z3::ite(at == m.ctx().bv_val(l, 6), m.vgpr(in.src[0].index, l), r);
  write_scalar(m, in.dst[0], r, 1);
}
void writelane(Machine& m, const ExecInst& in) {
  if (in.dst[0].kind != Operand::VGPR) throw Unsupported{"v_writelane_b32 to a non-VGPR"};
  const z3::expr at = lane_index(m, in.src[1]), v = bits_of(m, in.src[0], 32, -1);
  for (unsigned l = 0; l < kLanes; ++l) m.set_vgpr(in.dst[0].index, l, z3::ite(at == m.ctx().bv_val(l, 6), v, m.vgpr(in.dst[0].index, l)));
}
// v_mbcnt_{lo,hi}_u32_b32 D, S0, S1: D = S1 + popcount(S0 & the lanes below this one [31:0] / [63:32]), under EXEC.
template <bool Hi> void mbcnt(Machine& m, const ExecInst& in) {
  check_plain(in, Hi ? "v_mbcnt_hi_u32_b32" : "v_mbcnt_lo_u32_b32");
  std::vector<std::pair<unsigned, z3::expr>> d;
  for (unsigned l = 0; l < kLanes; ++l) {
    const uint64_t below = l == 0 ? 0 : ~0ull >> (64 - l);
    const uint32_t mask = static_cast<uint32_t>(Hi ? below >> 32 : below);
    const Sym<uint32_t> s0(bits_of(m, in.src[0], 32, static_cast<int>(l))), s1(bits_of(m, in.src[1], 32, static_cast<int>(l)));
    d.emplace_back(l, (s1 + popcount(s0 & mask)).e);
  }
  for (auto& [l, v] : d) write_vector(m, in.dst[0], l, v);
}

void no_op(Machine&, const ExecInst&) {}
void barrier(Machine& m, const ExecInst&) { m.barrier(); }

const std::map<std::string, SymFn, std::less<>>& special_units() {
  static const std::map<std::string, SymFn, std::less<>> t = [] {
    std::map<std::string, SymFn, std::less<>> t = {
      // s_setprio and s_sleep: scheduling hints with no functional effect (emu/semantics/sopp.cpp).
      {"s_waitcnt", no_op}, {"s_nop", no_op}, {"s_setprio", no_op}, {"s_sleep", no_op},
      {"s_barrier", barrier},
      {"v_readfirstlane_b32", readfirstlane}, {"v_readlane_b32", readlane}, {"v_writelane_b32", writelane},
      {"v_mbcnt_lo_u32_b32", mbcnt<false>}, {"v_mbcnt_hi_u32_b32", mbcnt<true>},
      {"global_load_ubyte", global_load_sub<1, false>}, {"global_load_sbyte", global_load_sub<1, true>},
      {"global_load_ushort", global_load_sub<2, false>}, {"global_load_sshort", global_load_sub<2, true>},
      {"global_store_byte", global_store_sub<1, 0>}, {"global_store_short", global_store_sub<2, 0>},
      {"global_store_byte_d16_hi", global_store_sub<1, 16>}, {"global_store_short_d16_hi", global_store_sub<2, 16>},
      {"global_load_dword", global_load<1>}, {"global_load_dwordx2", global_load<2>},
      {"global_load_dwordx3", global_load<3>}, {"global_load_dwordx4", global_load<4>},
      {"global_store_dword", global_store<1>}, {"global_store_dwordx2", global_store<2>},
      {"global_store_dwordx3", global_store<3>}, {"global_store_dwordx4", global_store<4>},
      {"s_load_dword", scalar_load<1>}, {"s_load_dwordx2", scalar_load<2>}, {"s_load_dwordx4", scalar_load<4>},
      {"s_load_dwordx8", scalar_load<8>}, {"s_load_dwordx16", scalar_load<16>},
      {"ds_read_b32", ds_read<4>}, {"ds_read_b64", ds_read<8>}, {"ds_read_b96", ds_read<12>}, {"ds_read_b128", ds_read<16>},
      {"ds_read_u8", ds_read<1, false>}, {"ds_read_i8", ds_read<1, true>}, {"ds_read_u16", ds_read<2, false>}, {"ds_read_i16", ds_read<2, true>},
      {"ds_read2_b32", ds_read2<4, 1>}, {"ds_read2_b64", ds_read2<8, 1>}, {"ds_read2st64_b32", ds_read2<4, 64>}, {"ds_read2st64_b64", ds_read2<8, 64>},
      {"ds_write_b32", ds_write<4>}, {"ds_write_b64", ds_write<8>}, {"ds_write_b96", ds_write<12>}, {"ds_write_b128", ds_write<16>},
      {"ds_write_b8", ds_write<1>}, {"ds_write_b16", ds_write<2>}, {"ds_write_b8_d16_hi", ds_write<1, true>}, {"ds_write_b16_d16_hi", ds_write<2, true>},
      {"ds_write2_b32", ds_write2<4, 1>}, {"ds_write2_b64", ds_write2<8, 1>}, {"ds_write2st64_b32", ds_write2<4, 64>}, {"ds_write2st64_b64", ds_write2<8, 64>},
    };
    add_buffer_units(t);
    return t;
  }();
  return t;
}

}  // namespace

std::optional<z3::expr> branch_condition(Machine& m, const ExecInst& in) {
  if (!in.entry) return std::nullopt;
  z3::context& c = m.ctx();
  const std::string& stem = in.entry->stem;
  const z3::expr zero = c.bv_val(0, 64);
  if (stem == "s_branch") return c.bool_val(true);
  if (stem == "s_cbranch_scc0") return !m.scc();
  if (stem == "s_cbranch_scc1") return m.scc();
  if (stem == "s_cbranch_vccz") return m.sgpr64(emu::kVccLo) == zero;
  if (stem == "s_cbranch_vccnz") return m.sgpr64(emu::kVccLo) != zero;
  if (stem == "s_cbranch_execz") return m.exec64() == zero;
  if (stem == "s_cbranch_execnz") return m.exec64() != zero;
  return std::nullopt;
}

bool has_generic_unit(std::string_view stem) { return generic_units().table.count(stem) != 0; }
std::vector<std::string> generic_unit_stems() {
  std::vector<std::string> out;
  for (auto& [k, v] : generic_units().table) out.push_back(k);
  return out;
}

bool supported(const ExecInst& in) {
  if (!in.entry) return false;
  const std::string& stem = in.entry->stem;
  if (generic_units().table.count(stem) || special_units().count(stem)) return true;
  return (in.entry->flags & emu::kFrameworkAlu) && !in.mods.dpp.present && !in.mods.sdwa.present;
}

void step(Machine& m, const ExecInst& in) {
  if (!in.entry) throw Unsupported{"an instruction without a semantic unit"};
  const std::string& stem = in.entry->stem;
  if (auto it = generic_units().table.find(stem); it != generic_units().table.end()) return it->second(m, in);
  if (auto it = special_units().find(stem); it != special_units().end()) return it->second(m, in);
  if (in.entry->flags & emu::kFrameworkAlu) return uninterpreted(m, in);
  throw Unsupported{fmt::format("{} (no symbolic semantics: {})", in.raw ? in.raw->mnemonic : stem,
                                in.entry->cat == emu::Category::Control ? "control flow" : "memory or special unit")};
}

}  // namespace asmevo::prove
