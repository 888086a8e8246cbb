// VOP3P packed math: v_pk_* on 16-bit halves (f16, u16/i16) and on 32-bit halves of 64-bit
// register pairs (v_pk_fma/mul/add_f32, v_pk_mov_b32; gfx90a+), the dot products (v_dot2*,
// v_dot4*, v_dot8*, and the VOP2 accumulating v_dot2c/v_dot4c/v_dot8c forms), gfx950's
// v_pk_minimum3_f16 / v_pk_maximum3_f16, and the mixed-precision
// FMAs v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16.
//
// Operand selection (ISA "VOP3P": OPSEL, OPSEL_HI, NEG_LO, NEG_HI), one helper for all packed units:
//   the low result uses, for source i, the half op_sel[i] selects (0 low, 1 high); the high result
//   uses the half op_sel_hi[i] selects. op_sel_hi defaults to all ones when LLVM does not print it.
//   neg_lo[i] / neg_hi[i] negate (float units only) the value feeding the low / high result.
//   Packed f32 units do the same with 32-bit halves of a register pair (v[2:3]: low = v2).
//   Inline constants: the constant is the low half (16-bit f16/int, or the 32-bit f32 value) and
//   the high half is 0, so the compiler selects the low half with op_sel_hi (as in
//   "v_pk_add_f32 v[2:3], v[2:3], 1.0 op_sel_hi:[1,0]").
//   clamp: float results clamp to [0, 1]; integer add/sub/mad results saturate.
// Mixed precision (v_fma_mix*): op_sel_hi[i] = 1 means source i is f16 (the half op_sel[i] picks,
//   converted exactly to f32), 0 means it is the full f32 register; neg_lo[i] negates and
//   neg_hi[i] takes the absolute value of source i (the ISA reuses NEG_HI as ABS for these);
//   the operand forms -x / |x| are the same modifiers. One fused multiply-add, one rounding (f32
//   for v_fma_mix_f32; f16 for mixlo/mixhi, which write the low/high half and keep the other).
// f16 arithmetic: exact in double, one rounding to f16 (fma) or float-then-f16 (add/mul, exact).
// f16 denormals are kept (MODE.FP_DENORM for 16/64-bit is "keep" in every corpus KD).
// Dot products: exact products and sums (double for float; int64 for integers), one rounding.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "emu/alu.h"
#include "emu/semantics/float_units.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {

using lowp::bf16_to_f32;
using lowp::f16_to_f32;
using lowp::f32_to_f16;

// Raw 32 bits of source `i` in lane l (VGPR lane, SGPR, or encoded constant).
inline u32 raw32(const Wave& w, const Operand& o, unsigned l, unsigned dword = 0) {
  if (o.kind == Operand::VGPR) return w.v[o.index + dword][l];
  if (o.kind == Operand::SGPR) return w.s[o.index + dword];
  uint64_t b = scalar_bits(w, o);
  return dword ? static_cast<u32>(b >> 32) : static_cast<u32>(b);
}

inline uint8_t op_sel_hi(const ExecInst& in) { return in.mods.op_sel_hi_given ? in.mods.op_sel_hi : 0x7; }

inline u16 half_of(u32 v, bool hi) { return static_cast<u16>(hi ? v >> 16 : v); }

// --- packed 16-bit units ---------------------------------------------------------------------
// Op is a lambda over the 16-bit element type (f16 as float, or int32 for integer halves).
enum class Kind { F16, U16, I16 };

template <Kind K, unsigned NSrc, auto Op> void exec_pk16(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint8_t sel = in.mods.op_sel, selhi = op_sel_hi(in);
  const u64 exec = w.exec();
  u32* dst = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 res = 0;
    for (unsigned h = 0; h < 2; ++h) {
      const uint8_t s = h ? selhi : sel;
      const uint8_t ng = h ? in.mods.neg_hi : in.mods.neg_lo;
      if constexpr (K == Kind::F16) {
        float x[3] = {};
        for (unsigned i = 0; i < NSrc; ++i) {
          u16 b = half_of(raw32(w, in.src[i], l), s >> i & 1);
          x[i] = f16_to_f32(b);
          if (ng >> i & 1) x[i] = -x[i];
        }
        float r = Op(x[0], x[1], x[2]);
        if (in.mods.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
        res |= static_cast<u32>(f32_to_f16(r)) << (16 * h);
      } else {
        int32_t x[3] = {};
        for (unsigned i = 0; i < NSrc; ++i) {
          u16 b = half_of(raw32(w, in.src[i], l), s >> i & 1);
          x[i] = K == Kind::I16 ? static_cast<int32_t>(static_cast<int16_t>(b)) : static_cast<int32_t>(b);
        }
        int64_t r = Op(x[0], x[1], x[2]);
        if (in.mods.clamp) r = K == Kind::I16 ? std::clamp<int64_t>(r, -32768, 32767) : std::clamp<int64_t>(r, 0, 65535);
        res |= (static_cast<u32>(r) & 0xffffu) << (16 * h);
      }
    }
    dst[l] = res;
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

template <Kind K, unsigned NSrc, auto Op> void pk16(Registry& r, const char* stem) {
  Ty t = K == Kind::F16 ? Ty::F16 : Ty::B16;
  if constexpr (NSrc == 2) custom(r, stem, exec_pk16<K, NSrc, Op>, Category::Vector, {Ty::B32}, {t, t});
  else custom(r, stem, exec_pk16<K, NSrc, Op>, Category::Vector, {Ty::B32}, {t, t, t});
}

// IEEE-style minNum/maxNum: a NaN operand yields the other operand, -0 < +0 (emu/generic.h).
inline float fmin_ieee(float a, float b) { return min_num(a, b); }
inline float fmax_ieee(float a, float b) { return max_num(a, b); }

// --- packed f32 units (64-bit register pairs) ---------------------------------------------------
template <unsigned NSrc, auto Op> void exec_pk32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint8_t sel = in.mods.op_sel, selhi = op_sel_hi(in);
  const u64 exec = w.exec();
  alignas(64) u32 out[2][kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l)
    for (unsigned h = 0; h < 2; ++h) {
      const uint8_t s = h ? selhi : sel;
      const uint8_t ng = h ? in.mods.neg_hi : in.mods.neg_lo;
      float x[3] = {};
      for (unsigned i = 0; i < NSrc; ++i) {
        x[i] = std::bit_cast<float>(raw32(w, in.src[i], l, s >> i & 1));
        if (w.flush_f32) x[i] = detail::flush(x[i]);
        if (ng >> i & 1) x[i] = -x[i];
      }
      float r = call_unit<Lanes>(Op, x[0], x[1], x[2]);
      if (in.mods.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
      if (w.flush_f32) r = detail::flush(r);
      out[h][l] = std::bit_cast<u32>(r);
    }
  for (unsigned h = 0; h < 2; ++h) {
    u32* d = w.v[in.dst[0].index + h].lane;
    for (unsigned l = 0; l < kWaveSize; ++l) d[l] = (exec >> l & 1) ? out[h][l] : d[l];
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// Registers the generic packed-f32 bodies (float_units.h pk_f32_units) with exec_pk32.
struct Pk32Units {
  Registry& r;
  template <auto F, unsigned NSrc> void pk32(const char* stem) {
    if constexpr (NSrc == 3) custom(r, stem, exec_pk32<3, F>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32, Ty::F32});
    else custom(r, stem, exec_pk32<NSrc, F>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32});
  }
};

// v_pk_mov_b32 D, S0, S1: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]] (32-bit halves).
void v_pk_mov_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const u64 exec = w.exec();
  alignas(64) u32 out[2][kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    out[0][l] = raw32(w, in.src[0], l, in.mods.op_sel & 1);
    out[1][l] = raw32(w, in.src[1], l, in.mods.op_sel >> 1 & 1);
  }
  for (unsigned h = 0; h < 2; ++h) {
    u32* d = w.v[in.dst[0].index + h].lane;
    for (unsigned l = 0; l < kWaveSize; ++l) d[l] = (exec >> l & 1) ? out[h][l] : d[l];
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// --- mixed precision FMA -----------------------------------------------------------------------
// Mode 0: v_fma_mix_f32 (f32 result); 1: v_fma_mixlo_f16; 2: v_fma_mixhi_f16.
template <int Mode> void exec_fma_mix(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint8_t sel = in.mods.op_sel, selhi = in.mods.op_sel_hi_given ? in.mods.op_sel_hi : 0;  // default 0 for mix
  const u64 exec = w.exec();
  u32* dst = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    double x[3];
    for (unsigned i = 0; i < 3; ++i) {
      const Operand& o = in.src[i];
      u32 raw = raw32(w, o, l);
      float f;
      if (selhi >> i & 1) f = f16_to_f32(half_of(raw, sel >> i & 1));
      else {
        f = std::bit_cast<float>(raw);
        if (w.flush_f32) f = detail::flush(f);
      }
      if (o.abs || (in.mods.neg_hi >> i & 1)) f = std::fabs(f);
      if (o.neg || (in.mods.neg_lo >> i & 1)) f = -f;
      x[i] = f;
    }
    if constexpr (Mode == 0) {
      float r = std::fma(static_cast<float>(x[0]), static_cast<float>(x[1]), static_cast<float>(x[2]));
      if (in.mods.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
      if (w.flush_f32) r = detail::flush(r);
      dst[l] = std::bit_cast<u32>(r);
    } else {
      // a*b is exact in double; a*b+c rounded once to double, then to f16 (see header note).
      _Float16 h = static_cast<_Float16>(std::fma(x[0], x[1], x[2]));
      if (in.mods.clamp) h = std::isnan(static_cast<float>(h)) ? _Float16(0) : std::clamp(h, _Float16(0), _Float16(1));
      u32 b = std::bit_cast<u16>(h);
      dst[l] = Mode == 1 ? ((dst[l] & 0xffff0000u) | b) : ((dst[l] & 0xffffu) | (b << 16));
    }
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// --- dot products (VOP3P) ------------------------------------------------------------------------
// v_dot2_f32_f16 / v_dot2_f32_bf16: D.f32 = S0.h[0]*S1.h[0] + S0.h[1]*S1.h[1] + S2.f32. Element 0
// comes from the half op_sel picks, element 1 from the half op_sel_hi picks; neg_lo/neg_hi negate
// elements 0/1 of S0/S1, neg_lo[2] negates S2 and neg_hi[2] takes |S2|.
template <bool BF> void exec_dot2_f32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint8_t sel = in.mods.op_sel, selhi = op_sel_hi(in);
  const u64 exec = w.exec();
  u32* dst = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    double sum = 0;
    for (unsigned e = 0; e < 2; ++e) {
      double p = 1;
      for (unsigned i = 0; i < 2; ++i) {
        u16 b = half_of(raw32(w, in.src[i], l), ((e ? selhi : sel) >> i) & 1);
        double v = BF ? bf16_to_f32(b) : f16_to_f32(b);
        if (((e ? in.mods.neg_hi : in.mods.neg_lo) >> i) & 1) v = -v;
        p *= v;
      }
      sum += p;
    }
    float c = std::bit_cast<float>(raw32(w, in.src[2], l));
    if (w.flush_f32) c = detail::flush(c);
    if (in.src[2].abs || (in.mods.neg_hi >> 2 & 1)) c = std::fabs(c);
    if (in.src[2].neg || (in.mods.neg_lo >> 2 & 1)) c = -c;
    float r = static_cast<float>(sum + c);
    if (in.mods.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
    if (w.flush_f32) r = detail::flush(r);
    dst[l] = std::bit_cast<u32>(r);
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// Integer dots: N elements of `Bits` bits per 32-bit source (signed or not), + S2, wrap or
// saturate (clamp) to 32 bits. op_sel/op_sel_hi do not apply to these (whole dwords).
template <unsigned Bits, bool Signed> void exec_dot_int(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const u64 exec = w.exec();
  u32* dst = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 a = raw32(w, in.src[0], l), b = raw32(w, in.src[1], l), c = raw32(w, in.src[2], l);
    int64_t sum = Signed ? static_cast<int64_t>(static_cast<int32_t>(c)) : static_cast<int64_t>(c);
    for (unsigned e = 0; e < 32 / Bits; ++e) {
      u32 mask = (1u << Bits) - 1;
      int64_t x = (a >> (e * Bits)) & mask, y = (b >> (e * Bits)) & mask;
      if (Signed) {
        x = (x ^ (1ll << (Bits - 1))) - (1ll << (Bits - 1));
        y = (y ^ (1ll << (Bits - 1))) - (1ll << (Bits - 1));
      }
      sum += x * y;
    }
    if (in.mods.clamp) sum = Signed ? std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX) : std::clamp<int64_t>(sum, 0, UINT32_MAX);
    dst[l] = static_cast<u32>(sum);
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// VOP2 accumulating dots (D = dot(S0, S1) + D); DPP forms go through the framework.
inline float dot2c_f16(u32 a, u32 b, float d) {
  double s = static_cast<double>(f16_to_f32(static_cast<u16>(a))) * f16_to_f32(static_cast<u16>(b)) +
             static_cast<double>(f16_to_f32(static_cast<u16>(a >> 16))) * f16_to_f32(static_cast<u16>(b >> 16));
  return static_cast<float>(s + d);
}
inline float dot2c_bf16(u32 a, u32 b, float d) {
  double s = static_cast<double>(bf16_to_f32(static_cast<u16>(a))) * bf16_to_f32(static_cast<u16>(b)) +
             static_cast<double>(bf16_to_f32(static_cast<u16>(a >> 16))) * bf16_to_f32(static_cast<u16>(b >> 16));
  return static_cast<float>(s + d);
}
inline i32 dot4c_i8(u32 a, u32 b, i32 d) {
  u32 s = static_cast<u32>(d);
  for (unsigned e = 0; e < 4; ++e) s += static_cast<u32>(static_cast<int8_t>(a >> (8 * e)) * static_cast<int8_t>(b >> (8 * e)));
  return static_cast<i32>(s);
}

inline i32 dot2c_i16(u32 a, u32 b, i32 d) {
  u32 s = static_cast<u32>(d);
  for (unsigned e = 0; e < 2; ++e) s += static_cast<u32>(static_cast<int16_t>(a >> (16 * e)) * static_cast<int16_t>(b >> (16 * e)));
  return static_cast<i32>(s);
}
inline i32 dot8c_i4(u32 a, u32 b, i32 d) {
  u32 s = static_cast<u32>(d);
  for (unsigned e = 0; e < 8; ++e) {
    int32_t x = static_cast<int32_t>(a << (28 - 4 * e)) >> 28, y = static_cast<int32_t>(b << (28 - 4 * e)) >> 28;
    s += static_cast<u32>(x * y);
  }
  return static_cast<i32>(s);
}

// fma of three f16 values (exact in double), rounded once to f16.
constexpr auto fma_half = [](float a, float b, float c) {
  return static_cast<float>(static_cast<_Float16>(std::fma(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c))));
};

// IEEE 754-2019 minimum/maximum (gfx950 v_pk_minimum3/maximum3_f16): NaN propagates, -0 < +0.
inline float minimum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline float maximum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

}  // namespace

void register_vop3p(Registry& r) {
  // Packed f16.
  pk16<Kind::F16, 2, [](float a, float b, float) { return a + b; }>(r, "v_pk_add_f16");
  pk16<Kind::F16, 2, [](float a, float b, float) { return a * b; }>(r, "v_pk_mul_f16");
  pk16<Kind::F16, 2, [](float a, float b, float) { return fmin_ieee(a, b); }>(r, "v_pk_min_f16");
  pk16<Kind::F16, 2, [](float a, float b, float) { return fmax_ieee(a, b); }>(r, "v_pk_max_f16");
  pk16<Kind::F16, 3, fma_half>(r, "v_pk_fma_f16");
  // v_pk_fmac_f16 (VOP2): D.h[i] = fma(S0.h[i], S1.h[i], D.h[i]) for both halves.
  valu<[](u32 a, u32 b, u32 d) {
    u32 out = 0;
    for (unsigned sh = 0; sh < 32; sh += 16)
      out |= static_cast<u32>(lowp::f32_to_f16(fma_half(lowp::f16_to_f32(static_cast<u16>(a >> sh)), lowp::f16_to_f32(static_cast<u16>(b >> sh)),
                                                        lowp::f16_to_f32(static_cast<u16>(d >> sh))))) << sh;
    return out;
  }>(r, "v_pk_fmac_f16", Category::Vector, kDstIsAccum);
  pk16<Kind::F16, 3, [](float a, float b, float c) { return minimum(minimum(a, b), c); }>(r, "v_pk_minimum3_f16");
  pk16<Kind::F16, 3, [](float a, float b, float c) { return maximum(maximum(a, b), c); }>(r, "v_pk_maximum3_f16");
  valu<[](float a, float b, float c) { return minimum(minimum(a, b), c); }>(r, "v_minimum3_f32");  // gfx950 VOP3
  valu<[](float a, float b, float c) { return maximum(maximum(a, b), c); }>(r, "v_maximum3_f32");
  // Packed 16-bit integers (results are taken mod 2^16 unless clamp saturates).
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return a + b; }>(r, "v_pk_add_u16");
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return a - b; }>(r, "v_pk_sub_u16");
  pk16<Kind::I16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return a + b; }>(r, "v_pk_add_i16");
  pk16<Kind::I16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return a - b; }>(r, "v_pk_sub_i16");
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return static_cast<int64_t>(a) * b & 0xffff; }>(r, "v_pk_mul_lo_u16");
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return std::min(a, b); }>(r, "v_pk_min_u16");
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return std::max(a, b); }>(r, "v_pk_max_u16");
  pk16<Kind::I16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return std::min(a, b); }>(r, "v_pk_min_i16");
  pk16<Kind::I16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return std::max(a, b); }>(r, "v_pk_max_i16");
  // Shifts: D = S1 shifted by S0[3:0].
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return (b << (a & 15)) & 0xffff; }>(r, "v_pk_lshlrev_b16");
  pk16<Kind::U16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return b >> (a & 15); }>(r, "v_pk_lshrrev_b16");
  pk16<Kind::I16, 2, [](int32_t a, int32_t b, int32_t) -> int64_t { return (b >> (a & 15)) & 0xffff; }>(r, "v_pk_ashrrev_i16");
  pk16<Kind::U16, 3, [](int32_t a, int32_t b, int32_t c) -> int64_t { return static_cast<int64_t>(a) * b + c; }>(r, "v_pk_mad_u16");
  pk16<Kind::I16, 3, [](int32_t a, int32_t b, int32_t c) -> int64_t { return static_cast<int64_t>(a) * b + c; }>(r, "v_pk_mad_i16");
  // Packed f32 (gfx90a+): one rounding per half.
  Pk32Units pk32{r};
  pk_f32_units(pk32);  // the bodies are generic (float_units.h): the prover reads the same ones
  custom(r, "v_pk_mov_b32", v_pk_mov_b32, Category::Vector, {Ty::B64}, {Ty::B64, Ty::B64});
  // Mixed precision.
  custom(r, "v_fma_mix_f32", exec_fma_mix<0>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32, Ty::F32});
  custom(r, "v_fma_mixlo_f16", exec_fma_mix<1>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32, Ty::F32});
  custom(r, "v_fma_mixhi_f16", exec_fma_mix<2>, Category::Vector, {Ty::F32}, {Ty::F32, Ty::F32, Ty::F32});
  // Dots.
  custom(r, "v_dot2_f32_f16", exec_dot2_f32<false>, Category::Vector, {Ty::F32}, {Ty::F16, Ty::F16, Ty::F32});
  custom(r, "v_dot2_f32_bf16", exec_dot2_f32<true>, Category::Vector, {Ty::F32}, {Ty::B16, Ty::B16, Ty::F32});
  custom(r, "v_dot2_i32_i16", exec_dot_int<16, true>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  custom(r, "v_dot2_u32_u16", exec_dot_int<16, false>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  custom(r, "v_dot4_i32_i8", exec_dot_int<8, true>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  custom(r, "v_dot4_u32_u8", exec_dot_int<8, false>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  custom(r, "v_dot8_i32_i4", exec_dot_int<4, true>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  custom(r, "v_dot8_u32_u4", exec_dot_int<4, false>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32}, kIntClampOk);
  valu<[](u32 a, u32 b, float d) { return dot2c_f16(a, b, d); }>(r, "v_dot2c_f32_f16", Category::Vector, kDstIsAccum);
  valu<[](u32 a, u32 b, float d) { return dot2c_bf16(a, b, d); }>(r, "v_dot2c_f32_bf16", Category::Vector, kDstIsAccum);
  valu<[](u32 a, u32 b, i32 d) { return dot4c_i8(a, b, d); }>(r, "v_dot4c_i32_i8", Category::Vector, kDstIsAccum);
  valu<[](u32 a, u32 b, i32 d) { return dot2c_i16(a, b, d); }>(r, "v_dot2c_i32_i16", Category::Vector, kDstIsAccum);
  valu<[](u32 a, u32 b, i32 d) { return dot8c_i4(a, b, d); }>(r, "v_dot8c_i32_i4", Category::Vector, kDstIsAccum);
}

}  // namespace asmevo::emu::sem
