// The ALU framework: operand access, modifiers and exec masking, applied ONCE here for every
// ALU instruction, so that a semantic unit is only the ISA's per-lane (or per-wave) expression:
//
//   valu<[](float a, float b) { return a + b; }>(r, "v_add_f32");          // D = S0 + S1
//   valu<[](u32 a, u32 b, bool cin) { ... return Carry<u32>{d, c}; }>(...);  // VCC/SGPR-mask I/O
//   valu<[](i32 a, i32 b) { return a > b; }>(r, "v_cmp_gt_i32");            // bool result: VOPC mask
//   salu<[](u32 a, u32 b, Scc& scc) { u32 d = a & b; scc = d != 0; return d; }>(r, "s_and_b32");
//
// The lambda's parameter and result types define the operand signature (Ty) used by pre-decoding:
// float=F32, double=F64, u32=B32, i32=I32, u64=B64, i64=I64, _Float16=F16, u16=B16, i16=I16, and
// bool = a lane mask (VCC / SGPR pair, one bit per lane). For VALU units:
//   * sources are read into 64-lane arrays (VGPR per lane, SGPR/constant broadcast), float abs/neg
//     applied, f32 denormals flushed when MODE says so; DPP/SDWA go through the Hooks; on the 32-bit
//     integer sources of a kSignBitSourceMods unit (v_cndmask_b32) abs/neg are sign_bit_mods;
//   * the lambda runs in a tight loop over all 64 lanes (vectorizable; inactive lanes are computed
//     and discarded);
//   * the result gets omod and clamp (floats), then is written under EXEC; a bool result is a
//     compare written as a mask (0 for inactive lanes); Carry<T> writes D and a carry mask.
// A unit may be generic over its value domain (emu/generic.h: `[]<class D>(D::u32 a, ...)`): the
// emulator runs it in the concrete domain Lanes, the prover (prove/) reads the same definition as Z3
// terms. Its signature (Ty) is read from the Lanes instantiation.
// For SALU units: Scc& and Exec& parameters give read/write access to SCC and EXEC; a bool result
// with no destination operand sets SCC (s_cmp_*); void results write nothing.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "emu/context.h"
#include "emu/generic.h"
#include "emu/registry.h"
#include "emu/wave.h"

namespace asmevo::emu {

using u16 = uint16_t;
using i16 = int16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;
using f16 = _Float16;

namespace detail {

template <class T> constexpr Ty ty_of() {
  if constexpr (std::is_same_v<T, float>) return Ty::F32;
  else if constexpr (std::is_same_v<T, double>) return Ty::F64;
  else if constexpr (std::is_same_v<T, u32>) return Ty::B32;
  else if constexpr (std::is_same_v<T, i32>) return Ty::I32;
  else if constexpr (std::is_same_v<T, u64> || std::is_same_v<T, unsigned long long>) return Ty::B64;
  else if constexpr (std::is_same_v<T, i64> || std::is_same_v<T, long long>) return Ty::I64;
  else if constexpr (std::is_same_v<T, f16>) return Ty::F16;
  else if constexpr (std::is_same_v<T, u16>) return Ty::B16;
  else if constexpr (std::is_same_v<T, i16>) return Ty::I16;
  else if constexpr (std::is_same_v<T, bool>) return Ty::Mask;
  else static_assert(sizeof(T) == 0, "unsupported operand type");
}

template <class T> constexpr bool is_fp = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, f16>;
template <class T> struct is_carry : std::false_type {};
template <class T> struct is_carry<Carry<T, bool>> : std::true_type {
  using type = T;
};

template <class F> struct call_operator {
  using type = decltype(&F::operator());
};
template <class F> requires is_generic_unit<Lanes, F> struct call_operator<F> {
  using type = decltype(&F::template operator()<Lanes>);  // a generic unit, seen in the concrete domain
};
template <class F> struct fn_traits : fn_traits<typename call_operator<F>::type> {};
template <class C, class R, class... A> struct fn_traits<R (C::*)(A...) const> {
  using ret = R;
  using args = std::tuple<A...>;
  static constexpr size_t arity = sizeof...(A);
};

template <class T> T from_bits(u64 b) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<T>(b);
  else if constexpr (sizeof(T) == 4) return std::bit_cast<T>(static_cast<u32>(b));
  else if constexpr (sizeof(T) == 2) return std::bit_cast<T>(static_cast<u16>(b));
  else return static_cast<T>(b & 1);
}
template <class T> u64 to_bits(T v) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<u64>(v);
  else if constexpr (sizeof(T) == 4) return std::bit_cast<u32>(v);
  else if constexpr (sizeof(T) == 2) return std::bit_cast<u16>(v);
  else return static_cast<u64>(v);
}

inline float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

}  // namespace detail

// A uniform (scalar) operand's raw bits: SGPR(s), constant, SCC, VCCZ, EXECZ.
inline u64 scalar_bits(const Wave& w, const Operand& o) {
  switch (o.kind) {
    case Operand::SGPR: return o.count >= 2 || ty_dwords(o.ty) == 2 ? w.sreg64(o.index) : w.s[o.index];
    case Operand::Const: return o.bits;
    case Operand::SCC: return w.scc;
    case Operand::VCCZ: return w.vcc() == 0;
    case Operand::EXECZ: return w.exec() == 0;
    default: return 0;
  }
}
inline void write_scalar(Wave& w, const Operand& o, u64 v, unsigned dwords) {
  if (o.kind == Operand::SCC) return void(w.scc = v != 0);
  if (o.kind != Operand::SGPR) return;
  w.s[o.index] = static_cast<u32>(v);
  if (dwords == 2) w.s[o.index + 1] = static_cast<u32>(v >> 32);
}

// Reads a VALU source into 64 lanes of T (see the header comment for the rules).
template <class T> inline void read_lanes(const ExecContext& ctx, const Wave& w, const ExecInst& in, unsigned idx, T* out) {
  const Operand& o = in.src[idx];
  if constexpr (std::is_same_v<T, bool>) {
    u64 m = o.kind == Operand::VGPR ? 0 : scalar_bits(w, o);  // o.ty is Mask: 64 bits
    for (unsigned l = 0; l < kWaveSize; ++l) out[l] = (m >> l) & 1;
    return;
  } else {
    // SDWA selects/extends sources 0 and 1 (VOP1/VOP2/VOPC); later operands (v_cndmask's mask, the
    // accumulator of v_mac) are whole registers.
    const bool sdwa = in.mods.sdwa.present && idx < 2;
    if (o.kind == Operand::VGPR) {
      const u32* lo = w.v[o.index].lane;
      alignas(64) u32 tmp[2][kWaveSize];
      if (in.mods.dpp.present && idx == 0) {
        Registry::get().hooks().dpp_read(w, in, o, &tmp[0][0]);
        lo = tmp[0];
      } else if (sdwa) {
        std::memcpy(tmp[0], lo, sizeof(tmp[0]));
        if (sizeof(T) == 8) std::memcpy(tmp[1], w.v[o.index + 1].lane, sizeof(tmp[1]));
        Registry::get().hooks().sdwa_src(in, idx, tmp[0]);
        lo = tmp[0];
      }
      if constexpr (sizeof(T) == 8) {
        const u32* hi = (lo == w.v[o.index].lane) ? w.v[o.index + 1].lane : tmp[1];
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = std::bit_cast<T>(lo[l] | (static_cast<u64>(hi[l]) << 32));
      } else if constexpr (sizeof(T) == 4) {
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = std::bit_cast<T>(lo[l]);
      } else {
        unsigned sh = (in.mods.op_sel >> idx & 1) ? 16 : 0;
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = std::bit_cast<T>(static_cast<u16>(lo[l] >> sh));
      }
    } else {
      u64 b = scalar_bits(w, o);
      if (sdwa && sizeof(T) <= 4) {  // gfx9 SDWA: SGPR and constant sources are selected like VGPRs
        alignas(64) u32 tmp[kWaveSize];
        for (unsigned l = 0; l < kWaveSize; ++l) tmp[l] = static_cast<u32>(b);
        Registry::get().hooks().sdwa_src(in, idx, tmp);
        b = tmp[0];
      }
      if constexpr (sizeof(T) == 2) b >>= (in.mods.op_sel >> idx & 1) ? 16 : 0;
      T x = detail::from_bits<T>(b);
      for (unsigned l = 0; l < kWaveSize; ++l) out[l] = x;
    }
    if constexpr (detail::is_fp<T>) {
      if (o.abs)
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = out[l] < T(0) || std::signbit(static_cast<double>(out[l])) ? -out[l] : out[l];
      if (o.neg)
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = -out[l];
      if constexpr (std::is_same_v<T, float>)
        if (w.flush_f32)
          for (unsigned l = 0; l < kWaveSize; ++l) out[l] = detail::flush(out[l]);
    } else if constexpr (std::is_same_v<T, u32>) {
      // Set only on a kSignBitSourceMods unit's sources (pre-decode refuses them on other integer slots).
      if (o.abs || o.neg)
        for (unsigned l = 0; l < kWaveSize; ++l) out[l] = sign_bit_mods(out[l], o.abs, o.neg);
    }
    (void)ctx;
  }
}

// Writes 64 lanes of T to a VGPR destination under `mask`.
template <class T> inline void write_lanes(Wave& w, const ExecInst& in, const Operand& d, const T* val, u64 mask) {
  u32* lo = w.v[d.index].lane;
  alignas(64) u32 r[kWaveSize];
  if constexpr (sizeof(T) == 8) {
    alignas(64) u32 rhi[kWaveSize];
    for (unsigned l = 0; l < kWaveSize; ++l) {
      u64 b = std::bit_cast<u64>(val[l]);
      r[l] = static_cast<u32>(b);
      rhi[l] = static_cast<u32>(b >> 32);
    }
    masked_store(lo, r, mask);
    masked_store(w.v[d.index + 1].lane, rhi, mask);
  } else if constexpr (sizeof(T) == 4) {
    for (unsigned l = 0; l < kWaveSize; ++l) r[l] = std::bit_cast<u32>(val[l]);
    if (in.mods.sdwa.present) Registry::get().hooks().sdwa_dst(in, lo, r);
    masked_store(lo, r, mask);
  } else {
    // 16-bit results (gfx9). SDWA: the zero-extended result goes through dst_sel/dst_unused. VOP3 op_sel:
    // its destination bit (printed last, after the sources: op_sel:[s0,s1,d]) writes the high half and
    // keeps the low half. Otherwise the low half is written and the high half zeroed — or kept, for
    // kKeepHigh16 units. (LLVM GCNSubtarget::zeroesHigh16BitsOfDest lists the zeroing ops for gfx9.)
    if (in.mods.sdwa.present) {
      for (unsigned l = 0; l < kWaveSize; ++l) r[l] = std::bit_cast<u16>(val[l]);
      Registry::get().hooks().sdwa_dst(in, lo, r);
      masked_store(lo, r, mask);
      return;
    }
    const uint32_t flags = in.entry ? in.entry->flags : 0;
    const unsigned dst_bit = in.nsrc - ((flags & kDstIsAccum) ? 1 : 0);
    const bool high = in.mods.op_sel >> dst_bit & 1;
    const u32 keep = high ? 0xffffu : (flags & kKeepHigh16) ? 0xffff0000u : 0u;
    const unsigned sh = high ? 16 : 0;
    for (unsigned l = 0; l < kWaveSize; ++l) r[l] = (lo[l] & keep) | (static_cast<u32>(std::bit_cast<u16>(val[l])) << sh);
    masked_store(lo, r, mask);
  }
}

template <class T> inline void apply_output_mods(const Wave& w, const ExecInst& in, T* r) {
  if constexpr (detail::is_fp<T>) {
    if (in.mods.omod) {
      T k = in.mods.omod == 1 ? T(2) : in.mods.omod == 2 ? T(4) : T(0.5);
      for (unsigned l = 0; l < kWaveSize; ++l) r[l] = r[l] * k;
    }
    if (in.mods.clamp)
      for (unsigned l = 0; l < kWaveSize; ++l) r[l] = r[l] > T(1) ? T(1) : (r[l] >= T(0) ? r[l] : T(0));  // NaN -> 0
    if constexpr (std::is_same_v<T, float>)
      if (w.flush_f32)
        for (unsigned l = 0; l < kWaveSize; ++l) r[l] = detail::flush(r[l]);
  }
}

namespace detail {

template <auto F, class Args, size_t... I>
inline void run_valu(ExecContext& ctx, Wave& w, const ExecInst& in, std::index_sequence<I...>) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename fn_traits<Fn>::ret;
  std::tuple<std::array<std::remove_cvref_t<std::tuple_element_t<I, Args>>, kWaveSize>...> src;
  (read_lanes(ctx, w, in, I, std::get<I>(src).data()), ...);
  const u64 exec = w.exec();
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
  // DPP: lanes whose write row_mask/bank_mask disable, or whose source is invalid without bound_ctrl,
  // keep their old destination value (computed before any destination is written).
  const u64 wmask = in.mods.dpp.present ? exec & Registry::get().hooks().dpp_read(w, in, in.src[0], nullptr) : exec;
  constexpr Fn f{};
  if constexpr (std::is_same_v<R, bool>) {
    u64 m = 0;
    for (unsigned l = 0; l < kWaveSize; ++l) m |= static_cast<u64>(call_unit<Lanes>(f, std::get<I>(src)[l]...)) << l;
    write_scalar(w, in.dst[0], m & exec, 2);
    if (in.entry->flags & kWritesExec) w.set_exec(m & exec);
  } else if constexpr (is_carry<R>::value) {
    using T = typename is_carry<R>::type;
    alignas(64) T d[kWaveSize];
    u64 m = 0;
    for (unsigned l = 0; l < kWaveSize; ++l) {
      R r = call_unit<Lanes>(f, std::get<I>(src)[l]...);
      d[l] = r.d;
      m |= static_cast<u64>(r.carry) << l;
    }
    apply_output_mods<T>(w, in, d);
    write_lanes<T>(w, in, in.dst[0], d, wmask);
    if (wmask != exec) m = (m & wmask) | (scalar_bits(w, in.dst[1]) & exec & ~wmask);  // DPP-disabled lanes keep their bit
    write_scalar(w, in.dst[1], m & exec, 2);
  } else {
    alignas(64) R d[kWaveSize];
    for (unsigned l = 0; l < kWaveSize; ++l) d[l] = call_unit<Lanes>(f, std::get<I>(src)[l]...);
    apply_output_mods<R>(w, in, d);
    if (in.dst[0].kind == Operand::VGPR) write_lanes<R>(w, in, in.dst[0], d, wmask);
    else write_scalar(w, in.dst[0], to_bits(d[exec ? std::countr_zero(exec) : 0]), ty_dwords(ty_of<R>()));  // v_readfirstlane-like
  }
}

template <auto F> void exec_valu(ExecContext& ctx, Wave& w, const ExecInst& in) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using Args = typename fn_traits<Fn>::args;
  run_valu<F, Args>(ctx, w, in, std::make_index_sequence<fn_traits<Fn>::arity>{});
}

template <class A> constexpr bool is_state_param = std::is_same_v<std::remove_cvref_t<A>, Scc> || std::is_same_v<std::remove_cvref_t<A>, Exec>;

template <class A> inline auto salu_arg(Wave& w, const ExecInst& in, unsigned& k, bool* scc, u64* exec) {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_same_v<T, Scc>) return Scc{scc};
  else if constexpr (std::is_same_v<T, Exec>) return Exec{exec};
  else {
    const Operand& o = in.src[k++];
    return from_bits<T>(scalar_bits(w, o));
  }
}

template <auto F, class Args, size_t... I> inline void run_salu(ExecContext& ctx, Wave& w, const ExecInst& in, std::index_sequence<I...>) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename fn_traits<Fn>::ret;
  constexpr Fn f{};
  bool scc = w.scc;
  u64 exec = w.exec();
  unsigned k = 0;
  // Braced init guarantees left-to-right evaluation of the operand reads.
  std::tuple<decltype(salu_arg<std::tuple_element_t<I, Args>>(w, in, k, &scc, &exec))...> args{
      salu_arg<std::tuple_element_t<I, Args>>(w, in, k, &scc, &exec)...};
  if constexpr (std::is_void_v<R>) {
    call_unit<Lanes>(f, std::get<I>(args)...);
  } else if constexpr (std::is_same_v<R, bool>) {
    bool r = call_unit<Lanes>(f, std::get<I>(args)...);
    if (in.ndst) write_scalar(w, in.dst[0], r, 1);
    else scc = r;
  } else {
    R r = call_unit<Lanes>(f, std::get<I>(args)...);
    write_scalar(w, in.dst[0], to_bits(r), sizeof(R) == 8 ? 2 : 1);
  }
  w.scc = scc;
  // EXEC may be the destination too (s_mov_b64 exec, ...): only write back if the unit changed it.
  if (exec != w.exec() && ((std::is_same_v<std::remove_cvref_t<std::tuple_element_t<I, Args>>, Exec> || ...))) w.set_exec(exec);
  (void)ctx;
}

template <auto F> void exec_salu(ExecContext& ctx, Wave& w, const ExecInst& in) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  run_salu<F, typename fn_traits<Fn>::args>(ctx, w, in, std::make_index_sequence<fn_traits<Fn>::arity>{});
}

template <class Args, size_t... I> constexpr void fill_src_types(SemanticEntry& e, std::index_sequence<I...>) {
  (([&] {
     using A = std::remove_cvref_t<std::tuple_element_t<I, Args>>;
     if constexpr (!std::is_same_v<A, Scc> && !std::is_same_v<A, Exec>) e.src[e.nsrc++] = ty_of<A>();
   }()),
   ...);
}

}  // namespace detail

// Registers a VALU unit (VOP1/VOP2/VOP3/VOPC; DPP/SDWA forms are accepted when their hooks exist).
template <auto F> void valu(Registry& r, const char* stem, Category cat = Category::Vector, uint32_t flags = 0) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename detail::fn_traits<Fn>::ret;
  SemanticEntry e;
  e.stem = stem;
  e.fn = &detail::exec_valu<F>;
  e.cat = cat;
  e.flags = flags | kAllowDpp | kFrameworkAlu;
  detail::fill_src_types<typename detail::fn_traits<Fn>::args>(e, std::make_index_sequence<detail::fn_traits<Fn>::arity>{});
  if constexpr (detail::is_carry<R>::value) {
    e.ndst = 2, e.dst[0] = detail::ty_of<typename detail::is_carry<R>::type>(), e.dst[1] = Ty::Mask;
  } else {
    e.ndst = 1, e.dst[0] = detail::ty_of<R>();
  }
  if (e.dst[0] != Ty::Mask && !ty_is_float(e.dst[0])) e.flags |= kIntResult;
  r.add(std::move(e));
}

// Registers a SALU unit (SOP1/SOP2/SOPK/SOPC). `has_dst` false for s_cmp_* style units (bool -> SCC).
template <auto F> void salu(Registry& r, const char* stem, uint32_t flags = 0) {
  using Fn = std::remove_cvref_t<decltype(F)>;
  using R = typename detail::fn_traits<Fn>::ret;
  SemanticEntry e;
  e.stem = stem;
  e.fn = &detail::exec_salu<F>;
  e.cat = Category::Scalar;
  e.flags = flags | kFrameworkAlu;
  detail::fill_src_types<typename detail::fn_traits<Fn>::args>(e, std::make_index_sequence<detail::fn_traits<Fn>::arity>{});
  if constexpr (std::is_same_v<R, bool>) {
    e.ndst = 0;  // s_cmp_*: SCC
  } else if constexpr (!std::is_void_v<R>) {
    e.ndst = 1, e.dst[0] = detail::ty_of<R>();
  }
  if (flags & kDstIsSrc0) { /* operand 0 is read too: it is listed in src by the signature */ }
  r.add(std::move(e));
}

// Registers a hand-written unit (control flow, memory, anything the templates don't fit).
inline void custom(Registry& r, const char* stem, ExecFn fn, Category cat, std::initializer_list<Ty> dst,
                   std::initializer_list<Ty> src, uint32_t flags = 0, uint8_t counters = 0) {
  SemanticEntry e;
  e.stem = stem;
  e.fn = fn;
  e.cat = cat;
  e.flags = flags;
  e.counters = counters;
  for (Ty t : dst) e.dst[e.ndst++] = t;
  for (Ty t : src) e.src[e.nsrc++] = t;
  r.add(std::move(e));
}

}  // namespace asmevo::emu

namespace asmevo::emu {

// The emulator's registrar for generic unit lists (emu/semantics/*_units.h): the same lists are
// read by the prover's registrar (prove/units.cpp) as Z3 terms.
struct EmuUnits {
  Registry& r;
  template <auto F> void valu(const char* stem, Category cat = Category::Vector, uint32_t flags = 0) const {
    emu::valu<F>(r, stem, cat, flags);
  }
  template <auto F> void salu(const char* stem, uint32_t flags = 0) const { emu::salu<F>(r, stem, flags); }
};

}  // namespace asmevo::emu
