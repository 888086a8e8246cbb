// Packed and 8-bit-float conversions:
//   v_cvt_pk_f16_f32 / v_cvt_pk_bf16_f32 (gfx950): D = {cvt(S0) in [15:0], cvt(S1) in [31:16]},
//     round to nearest even (f16 via the host's IEEE conversion; bf16 RNE, NaN kept quiet).
//   v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (gfx942, gfx950): D.word[op_sel dst bit] =
//     {cvt(S1) in [15:8], cvt(S0) in [7:0]}, the other word of D is kept.
//   v_cvt_f32_fp8 / v_cvt_f32_bf8: D.f32 = the byte SDWA src0_sel picks (byte 0 otherwise).
//   v_cvt_pk_f32_fp8 / v_cvt_pk_f32_bf8: D[0:1] = the two bytes of the word SDWA src0_sel picks.
// Formats: gfx942 FNUZ (E4M3 bias 8 / E5M2 bias 16, NaN 0x80, no inf, no -0), gfx950 OCP
// (E4M3FN / E5M2) — see emu/semantics/lowp.h. Rounding: RNE with fp8 denormals. Saturation: these
// gfx9 encodings have no clamp bit for the f32->fp8 direction (llvm-mc rejects "clamp"), so an
// out-of-range value or an infinity converts to the format's overflow value: FNUZ NaN (0x80),
// E4M3FN NaN (S.1111.111), E5M2 infinity; NaN converts to NaN. (Libraries such as CK/Triton clamp
// in software before the instruction when they want saturation.) If a clamp modifier is ever
// present it is honoured as saturation to the largest finite value.
// The stochastic-rounding v_cvt_sr_* and the gfx950 scaled v_cvt_scalef32_* conversions are in cvt_scale.cpp.
#include <algorithm>
#include <cmath>

#include "emu/alu.h"
#include "emu/program.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {

inline bool ocp(const ExecContext& ctx) { return ctx.program && ctx.program->arch() == codeobj::Arch::gfx950; }

inline u32 raw32(const Wave& w, const Operand& o, unsigned l) {
  return o.kind == Operand::VGPR ? w.v[o.index][l] : static_cast<u32>(scalar_bits(w, o));
}

// Reads a float source with its abs/neg and the f32 denormal mode.
inline float fsrc(const Wave& w, const Operand& o, unsigned l) {
  float f = std::bit_cast<float>(raw32(w, o, l));
  if (w.flush_f32) f = detail::flush(f);
  if (o.abs) f = std::fabs(f);
  if (o.neg) f = -f;
  return f;
}

template <bool Bf8> void cvt_pk_f8_f32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const lowp::F8 fmt = lowp::f8_format(Bf8, ocp(ctx));
  // The destination's op_sel bit is printed after the sources (op_sel:[s0,s1,d]).
  const bool hi = ((in.mods.op_sel >> 2) | (in.mods.op_sel >> 3)) & 1;
  const u64 exec = w.exec();
  u32* d = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 v = lowp::f32_to_f8(fsrc(w, in.src[0], l), fmt, in.mods.clamp) |
            static_cast<u32>(lowp::f32_to_f8(fsrc(w, in.src[1], l), fmt, in.mods.clamp)) << 8;
    d[l] = hi ? (d[l] & 0xffffu) | (v << 16) : (d[l] & 0xffff0000u) | v;
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

// Bit offset of the SDWA src0_sel (0 without SDWA).
unsigned sdwa_shift(ExecContext& ctx, Wave& w, const ExecInst& in) {
  if (in.mods.dpp.present) fail(ctx, w, in, "DPP form of an fp8 conversion is not implemented");
  if (!in.mods.sdwa.present) return 0;
  if (in.mods.sdwa.dst_sel != SdwaMods::Dword) fail(ctx, w, in, "SDWA dst_sel other than DWORD is not implemented for this conversion");
  switch (in.mods.sdwa.src0_sel) {
    case SdwaMods::Byte1: return 8;
    case SdwaMods::Byte2: case SdwaMods::Word1: return 16;
    case SdwaMods::Byte3: return 24;
    default: return 0;
  }
}

inline float clampf(const ExecInst& in, float f) { return in.mods.clamp ? (std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f)) : f; }

template <bool Bf8> void cvt_f32_f8(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const lowp::F8 fmt = lowp::f8_format(Bf8, ocp(ctx));
  const unsigned sh = sdwa_shift(ctx, w, in);
  const u64 exec = w.exec();
  u32* d = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (exec >> l & 1) d[l] = std::bit_cast<u32>(clampf(in, static_cast<float>(lowp::f8_to_double(static_cast<uint8_t>(raw32(w, in.src[0], l) >> sh), fmt))));
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

template <bool Bf8> void cvt_pk_f32_f8(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const lowp::F8 fmt = lowp::f8_format(Bf8, ocp(ctx));
  const unsigned sh = sdwa_shift(ctx, w, in) >= 16 ? 16 : 0;
  const u64 exec = w.exec();
  u32* d0 = w.v[in.dst[0].index].lane;
  u32* d1 = w.v[in.dst[0].index + 1].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 s = raw32(w, in.src[0], l) >> sh;
    d0[l] = std::bit_cast<u32>(clampf(in, static_cast<float>(lowp::f8_to_double(static_cast<uint8_t>(s), fmt))));
    d1[l] = std::bit_cast<u32>(clampf(in, static_cast<float>(lowp::f8_to_double(static_cast<uint8_t>(s >> 8), fmt))));
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

}  // namespace

void register_cvt_pk(Registry& r) {
  valu<[](float a, float b) { return static_cast<u32>(lowp::f32_to_f16(a)) | static_cast<u32>(lowp::f32_to_f16(b)) << 16; }>(
      r, "v_cvt_pk_f16_f32");
  valu<[](float a, float b) { return static_cast<u32>(lowp::f32_to_bf16(a)) | static_cast<u32>(lowp::f32_to_bf16(b)) << 16; }>(
      r, "v_cvt_pk_bf16_f32");
  custom(r, "v_cvt_pk_fp8_f32", cvt_pk_f8_f32<false>, Category::Vector, {Ty::B32}, {Ty::F32, Ty::F32});
  custom(r, "v_cvt_pk_bf8_f32", cvt_pk_f8_f32<true>, Category::Vector, {Ty::B32}, {Ty::F32, Ty::F32});
  custom(r, "v_cvt_f32_fp8", cvt_f32_f8<false>, Category::Vector, {Ty::F32}, {Ty::B32}, kAllowDpp);
  custom(r, "v_cvt_f32_bf8", cvt_f32_f8<true>, Category::Vector, {Ty::F32}, {Ty::B32}, kAllowDpp);
  custom(r, "v_cvt_pk_f32_fp8", cvt_pk_f32_f8<false>, Category::Vector, {Ty::F64}, {Ty::B32}, kAllowDpp);
  custom(r, "v_cvt_pk_f32_bf8", cvt_pk_f32_f8<true>, Category::Vector, {Ty::F64}, {Ty::B32}, kAllowDpp);
}

}  // namespace asmevo::emu::sem
