// Miscellaneous VALU: byte permute (v_perm_b32), gfx950 three-input bitwise truth tables
// (v_bitop3_b32/_b16) and row swaps (v_permlane16_swap_b32, v_permlane32_swap_b32), v_swap_b32, SAD and
// lerp ops, v_cvt_pk_u8_f32, v_ffbh_i32, v_mul_hi_i32_i24. Per-lane bodies follow the ISA pseudo-code.
// (The other misc ops — v_alignbit/alignbyte, v_bfi, v_bcnt, v_ffbh_u32/ffbl, v_lshl_or/and_or/or3/xad/
// add3, v_med3/min3/max3 _i32/_u32, v_mul_u32_u24/hi, v_mad_u32_u24 — are in vop_int.cpp; v_mbcnt in
// lane.cpp; v_cvt_pk_f16_f32/v_cvt_pk_bf16_f32 in cvt_pk.cpp.)
#include <bit>
#include <cmath>
#include <utility>

#include "emu/alu.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {

// v_perm_b32 D, S0, S1, S2: byte k of D = select(S2[8k+7:8k]) from the 8 bytes {S0, S1} (S1 is bytes
// 0..3): 0-7 a byte, 8-11 the sign of bytes 1,3,5,7 replicated (0x00/0xff), 12 -> 0x00, >= 13 -> 0xff.
inline u32 perm_byte(u64 in, u32 sel) {
  sel &= 0xff;
  if (sel >= 13) return 0xff;
  if (sel == 12) return 0x00;
  if (sel >= 8) return (in >> (16 * (sel - 8) + 15) & 1) ? 0xff : 0x00;
  return static_cast<u32>(in >> (8 * sel)) & 0xff;
}
inline u32 v_perm(u32 s0, u32 s1, u32 sel) {
  const u64 in = (static_cast<u64>(s0) << 32) | s1;
  u32 d = 0;
  for (unsigned k = 0; k < 4; ++k) d |= perm_byte(in, sel >> (8 * k)) << (8 * k);
  return d;
}

// v_bitop3: bit i of D = TTBL[{S0[i], S1[i], S2[i]}] (S0 the most significant index bit), where TTBL
// is the 8-bit `bitop3:` immediate (LLVM builds it as f(0xf0, 0xcc, 0xaa)).
template <class T> void v_bitop3(ExecContext& ctx, Wave& w, const ExecInst& in) {
  alignas(64) T a[kWaveSize], b[kWaveSize], c[kWaveSize], d[kWaveSize];
  read_lanes(ctx, w, in, 0, a);
  read_lanes(ctx, w, in, 1, b);
  read_lanes(ctx, w, in, 2, c);
  const unsigned tt = in.mods.bitop3;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    T r = 0;
    for (unsigned k = 0; k < 8; ++k)
      if (tt >> k & 1) r |= ((k & 4) ? a[l] : T(~a[l])) & ((k & 2) ? b[l] : T(~b[l])) & ((k & 1) ? c[l] : T(~c[l]));
    d[l] = r;
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(w.exec()));
  write_lanes<T>(w, in, in.dst[0], d, w.exec());
}

// v_permlane16_swap_b32 VDST, VSRC: the odd rows of VDST (lanes 16-31, 48-63) swap with the even rows
// of VSRC (lanes 0-15, 32-47). v_permlane32_swap_b32: rows 2-3 of VDST swap with rows 0-1 of VSRC.
// Both registers are written; a lane is written only when its EXEC bit is set (the swap partner's
// value is read whatever its EXEC bit; bound_ctrl/fi are not modelled).
template <unsigned Span> void v_permlane_swap(ExecContext& ctx, Wave& w, const ExecInst& in) {
  u32* d = w.v[in.dst[0].index].lane;
  u32* s = w.v[in.src[0].index].lane;
  const u64 exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if ((l / Span) % 2 == 0) continue;  // l: an odd row (16) / upper half (32) lane of VDST
    const unsigned p = l - Span;        // its partner in VSRC
    const u32 dv = d[l], sv = s[p];
    if (exec >> l & 1) d[l] = sv;
    if (exec >> p & 1) s[p] = dv;
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// v_swap_b32 VDST, VSRC (gfx9 VOP1): exchange the two registers in active lanes.
void v_swap_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  u32* d = w.v[in.dst[0].index].lane;
  u32* s = w.v[in.src[0].index].lane;
  const u64 exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (exec >> l & 1) std::swap(d[l], s[l]);
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

inline u32 absdiff(u32 a, u32 b) { return a > b ? a - b : b - a; }

constexpr auto pack_u8 = [](float a, u32 b, u32 c) {
  float x = std::isnan(a) ? 0.0f : std::nearbyint(a);
  u32 v = x <= 0.0f ? 0u : x >= 255.0f ? 255u : static_cast<u32>(x);
  unsigned sh = 8 * (b & 3);
  return (c & ~(0xffu << sh)) | (v << sh);
};

// SAD of the 4 bytes of S0 starting at byte i against the 4 bytes of `ref` (masked: ref bytes of 0 skipped).
template <bool Masked> inline u32 sad4(u64 src, unsigned i, u32 ref) {
  u32 s = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const u32 rb = ref >> (8 * k) & 0xff;
    if (!Masked || rb) s += absdiff(static_cast<u32>(src >> (8 * (i + k))) & 0xff, rb);
  }
  return s;
}
template <unsigned Bits, bool Masked> inline u64 quad_sad(u64 a, u32 b, u64 c) {
  u64 d = 0;
  constexpr u64 mask = (1ull << Bits) - 1;
  for (unsigned i = 0; i < 4; ++i) d |= (((c >> (Bits * i)) + sad4<Masked>(a, i, b)) & mask) << (Bits * i);
  return d;
}
// v_mqsad_u32_u8 D[0:3], S0[0:1], S1, S2[0:3]: four 32-bit masked SADs.
void v_mqsad_u32_u8(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const u64 exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    auto word = [&](const Operand& o, unsigned r) -> u32 {
      if (o.kind == Operand::VGPR) return w.v[o.index + r][l];
      if (o.kind == Operand::SGPR) return w.s[o.index + r];
      return r == 0 ? static_cast<u32>(scalar_bits(w, o)) : static_cast<u32>(scalar_bits(w, o) >> 32);
    };
    const u64 a = word(in.src[0], 0) | static_cast<u64>(word(in.src[0], 1)) << 32;
    const u32 b = word(in.src[1], 0);
    u32 acc[4];
    for (unsigned i = 0; i < 4; ++i) acc[i] = word(in.src[2], in.src[2].kind == Operand::VGPR ? i : 0) + sad4<true>(a, i, b);
    for (unsigned i = 0; i < 4; ++i) w.v[in.dst[0].index + i][l] = acc[i];
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

template <int Lo, int Hi> inline u16 ashr_pk(i32 a, i32 b, u32 c) {
  auto sat = [](i32 v) { return static_cast<u16>(static_cast<uint8_t>(v < Lo ? Lo : v > Hi ? Hi : v)); };
  const unsigned sh = c & 31;
  return static_cast<u16>(sat(a >> sh) | sat(b >> sh) << 8);
}

}  // namespace

void register_vop_misc(Registry& r) {
  valu<[](u32 a, u32 b, u32 c) { return v_perm(a, b, c); }>(r, "v_perm_b32");
  custom(r, "v_bitop3_b32", v_bitop3<u32>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32});
  custom(r, "v_bitop3_b16", v_bitop3<u16>, Category::Vector, {Ty::B16}, {Ty::B16, Ty::B16, Ty::B16}, kKeepHigh16);
  custom(r, "v_permlane16_swap_b32", v_permlane_swap<16>, Category::Vector, {Ty::B32}, {Ty::B32});
  custom(r, "v_permlane32_swap_b32", v_permlane_swap<32>, Category::Vector, {Ty::B32}, {Ty::B32});
  custom(r, "v_swap_b32", v_swap_b32, Category::Vector, {Ty::B32}, {Ty::B32});
  // Sums of absolute differences (ISA "V_SAD_*"): D = S2 + sum |S0.x - S1.x|.
  valu<[](u32 a, u32 b, u32 c) {
    u32 s = c;
    for (unsigned k = 0; k < 32; k += 8) s += absdiff(a >> k & 0xff, b >> k & 0xff);
    return s;
  }>(r, "v_sad_u8");
  valu<[](u32 a, u32 b, u32 c) {
    u32 s = 0;
    for (unsigned k = 0; k < 32; k += 8) s += absdiff(a >> k & 0xff, b >> k & 0xff);
    return (s << 16) + c;
  }>(r, "v_sad_hi_u8");
  valu<[](u32 a, u32 b, u32 c) { return c + absdiff(a & 0xffff, b & 0xffff) + absdiff(a >> 16, b >> 16); }>(r, "v_sad_u16");
  valu<[](u32 a, u32 b, u32 c) { return c + absdiff(a, b); }>(r, "v_sad_u32");
  valu<[](u32 a, u32 b, u32 c) {  // masked SAD: reference bytes of 0 are skipped
    u32 s = c;
    for (unsigned k = 0; k < 32; k += 8)
      if (b >> k & 0xff) s += absdiff(a >> k & 0xff, b >> k & 0xff);
    return s;
  }>(r, "v_msad_u8");
  valu<[](u32 a, u32 b, u32 c) {  // per byte: (S0 + S1 + S2[8k]) >> 1 (rounding bit from S2)
    u32 d = 0;
    for (unsigned k = 0; k < 32; k += 8) d |= (((a >> k & 0xff) + (b >> k & 0xff) + (c >> k & 1)) >> 1) << k;
    return d;
  }>(r, "v_lerp_u8");
  // v_cvt_pk_u8_f32 D, S0, S1, S2: S2 with byte S1[1:0] replaced by u8(S0) (round to nearest even, saturate).
  valu<pack_u8>(r, "v_cvt_pk_u8_f32");
  // v_cvt_pkaccum_u8_f32 D, S0, S1: the same into D itself (D is the accumulator).
  valu<pack_u8>(r, "v_cvt_pkaccum_u8_f32", Category::Vector, kDstIsAccum);
  // Quad SADs (ISA V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8 / V_MQSAD_U32_U8): result i (i = 0..3) is the SAD
  // of the 4 bytes S0[8i+31:8i] against S1's 4 bytes plus accumulator i of S2 (16-bit fields, wrapped; or
  // 32-bit fields); the masked forms skip reference bytes (S1) of 0, as v_msad_u8.
  valu<[](u64 a, u32 b, u64 c) { return quad_sad<16, false>(a, b, c); }>(r, "v_qsad_pk_u16_u8");
  valu<[](u64 a, u32 b, u64 c) { return quad_sad<16, true>(a, b, c); }>(r, "v_mqsad_pk_u16_u8");
  custom(r, "v_mqsad_u32_u8", v_mqsad_u32_u8, Category::Vector, {Ty::B32}, {Ty::B64, Ty::B32, Ty::B32});
  // gfx950 v_ashr_pk_{i8,u8}_i32 D, S0, S1, S2: D[7:0] = sat(S0 >> S2[4:0]), D[15:8] = sat(S1 >> S2[4:0])
  // (arithmetic shifts; i8: [-128, 127], u8: [0, 255]); a 16-bit result.
  valu<[](i32 a, i32 b, u32 c) { return ashr_pk<-128, 127>(a, b, c); }>(r, "v_ashr_pk_i8_i32");
  valu<[](i32 a, i32 b, u32 c) { return ashr_pk<0, 255>(a, b, c); }>(r, "v_ashr_pk_u8_i32");
  valu<[](u32 a) { return lowp::prng_b32(a); }>(r, "v_prng_b32");  // gfx950 LFSR step (emu/semantics/lowp.h)
  // v_ffbh_i32: the first bit (from bit 30 down, counted from the MSB) that differs from the sign; -1 if none.
  valu<[](i32 a) { u32 x = static_cast<u32>(a ^ (a >> 31)); return x ? static_cast<u32>(std::countl_zero(x)) : ~0u; }>(r, "v_ffbh_i32");
  valu<[](i32 a, i32 b) { return static_cast<i32>((static_cast<i64>(a << 8 >> 8) * (b << 8 >> 8)) >> 32); }>(r, "v_mul_hi_i32_i24");
}

}  // namespace asmevo::emu::sem
