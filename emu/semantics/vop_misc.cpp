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
  valu<[](float a, u32 b, u32 c) {
    float x = std::isnan(a) ? 0.0f : std::nearbyint(a);
    u32 v = x <= 0.0f ? 0u : x >= 255.0f ? 255u : static_cast<u32>(x);
    unsigned sh = 8 * (b & 3);
    return (c & ~(0xffu << sh)) | (v << sh);
  }>(r, "v_cvt_pk_u8_f32");
  // v_ffbh_i32: the first bit (from bit 30 down, counted from the MSB) that differs from the sign; -1 if none.
  valu<[](i32 a) { u32 x = static_cast<u32>(a ^ (a >> 31)); return x ? static_cast<u32>(std::countl_zero(x)) : ~0u; }>(r, "v_ffbh_i32");
  valu<[](i32 a, i32 b) { return static_cast<i32>((static_cast<i64>(a << 8 >> 8) * (b << 8 >> 8)) >> 32); }>(r, "v_mul_hi_i32_i24");
}

}  // namespace asmevo::emu::sem
