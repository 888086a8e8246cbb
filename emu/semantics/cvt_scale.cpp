// gfx950 (CDNA4) scaled conversions v_cvt_scalef32_* (OCP MX block scaling) and the stochastic-rounding
// conversions v_cvt_sr_* (gfx942: fp8/bf8; gfx950: fp8/bf8, f16, bf16).
//
// Sources: the CDNA4 ISA guide's pseudo-code for each (section 12.11: scale = exponent(S.f32), byte/word
// selects by OPSEL, other destination bits preserved, 2xpk16 interleaving, seeds advanced by v_prng_b32; the
// element helpers such as f32_to_fp4_scale are named, not defined); LLVM's gfx950 definitions (operand lists,
// op_sel printing); the OCP Microscaling v1.0 spec (element formats, E8M0 scale = 2^(e-127), 0xFF NaN,
// quantize = x / scale, dequantize = element * scale); AMD's HIP host emulation of these conversions
// (amd_hip_ocp_host.hpp: results overflowing the destination are infinity "(gfx950 HW behavior)").
//
// Every row of kRows is one mnemonic: a geometry (how elements are laid out in the operands) and the two
// element formats. One generic unit per geometry does: read the elements, multiply (up) or divide (down)
// by the scale, round ONCE to the destination (emu/semantics/lowp.h: RNE, after sr_perturb for the stochastic forms), write under EXEC.
// Documented choices that need hardware confirmation (docs/emulator.md):
//   * fp8/bf8 results out of range: the format's overflow value, as the unscaled v_cvt_pk_fp8_f32 (E4M3
//     NaN, E5M2 infinity; these encodings have no clamp bit); fp4/fp6 saturate, NaN -> largest magnitude;
//   * a 16-bit source of the stochastic one-element forms is the half op_sel[0] picks; pk32 halves: element 2i in bits 15:0, 2i+1 in 31:16 of VGPR i;
//   * fp6 packing: 32 x 6 bits contiguous across 6 VGPRs, low bits first (as the f8f6f4 MFMAs);
//   * stochastic rounding: lowp::sr_perturb (the ISA's V_CVT_SR_FP8_F32 rule) on the f32 value of
//     source / scale, then round to nearest even; the pk forms advance the seed by v_prng_b32 between
//     elements (ISA: "randomVal = v_prng_b32(randomVal)"); 2xpk16 interleaves S0 and S1 (element 2p from S0[p]).
#include <bit>
#include <cmath>
#include <string>

#include "emu/alu.h"
#include "emu/program.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {

// Element formats: the low-precision ones (lowp::F8 codes) and the wide ones.
enum class E : uint8_t { Fp8, Bf8, Fp6, Bf6, Fp4, F32, F16, Bf16 };
enum class G : uint8_t {
  UpOne,      // D = one element (byte op_sel[0] | op_sel[1] << 1 of S0) * scale; f16 dst: half op_sel[2], other kept
  UpPk2,      // D = two elements (fp8: word op_sel[0] of S0; fp4: byte op_sel[0] | op_sel[1] << 1) * scale
  DownPk2,    // two elements (S0, S1 f32, or the halves of S0) / scale -> word (fp8) or byte (fp4) of D
  SrOne,      // S0 / scale, seed S1 -> byte op_sel[2] | op_sel[3] << 1 of D (unscaled v_cvt_sr_*: no scale)
  SrPk2,      // fp4: two elements of S0 (v[2:3] or halves), seed S1, scale S2 -> byte of D
  UpPk32,     // 32 fp6/bf6 of S0[0:5] * scale S1 -> D (32 f32, or 16 VGPRs of halves)
  DownPk32,   // 32 elements (S0: 16 VGPRs of halves, or S0 and S1: 16 f32 each, interleaved) / scale -> D[0:5]
  SrPk32,     // 32 elements of S0, seed S1, scale S2 -> D[0:5]
  SrHalf,     // v_cvt_sr_f16_f32 / bf16: S0 f32, seed S1 -> half op_sel[2] of D, other half kept
};

struct Row {
  const char* name;
  G g;
  E src, dst;
  bool scaled = true;
};

constexpr Row kRows[] = {
    {"v_cvt_scalef32_f32_fp8", G::UpOne, E::Fp8, E::F32},
    {"v_cvt_scalef32_f32_bf8", G::UpOne, E::Bf8, E::F32},
    {"v_cvt_scalef32_f16_fp8", G::UpOne, E::Fp8, E::F16},
    {"v_cvt_scalef32_f16_bf8", G::UpOne, E::Bf8, E::F16},
    {"v_cvt_scalef32_pk_f32_fp8", G::UpPk2, E::Fp8, E::F32},
    {"v_cvt_scalef32_pk_f32_bf8", G::UpPk2, E::Bf8, E::F32},
    {"v_cvt_scalef32_pk_f16_fp8", G::UpPk2, E::Fp8, E::F16},
    {"v_cvt_scalef32_pk_f16_bf8", G::UpPk2, E::Bf8, E::F16},
    {"v_cvt_scalef32_pk_bf16_fp8", G::UpPk2, E::Fp8, E::Bf16},
    {"v_cvt_scalef32_pk_bf16_bf8", G::UpPk2, E::Bf8, E::Bf16},
    {"v_cvt_scalef32_pk_f32_fp4", G::UpPk2, E::Fp4, E::F32},
    {"v_cvt_scalef32_pk_f16_fp4", G::UpPk2, E::Fp4, E::F16},
    {"v_cvt_scalef32_pk_bf16_fp4", G::UpPk2, E::Fp4, E::Bf16},
    {"v_cvt_scalef32_pk_fp8_f32", G::DownPk2, E::F32, E::Fp8},
    {"v_cvt_scalef32_pk_bf8_f32", G::DownPk2, E::F32, E::Bf8},
    {"v_cvt_scalef32_pk_fp8_f16", G::DownPk2, E::F16, E::Fp8},
    {"v_cvt_scalef32_pk_bf8_f16", G::DownPk2, E::F16, E::Bf8},
    {"v_cvt_scalef32_pk_fp8_bf16", G::DownPk2, E::Bf16, E::Fp8},
    {"v_cvt_scalef32_pk_bf8_bf16", G::DownPk2, E::Bf16, E::Bf8},
    {"v_cvt_scalef32_pk_fp4_f32", G::DownPk2, E::F32, E::Fp4},
    {"v_cvt_scalef32_pk_fp4_f16", G::DownPk2, E::F16, E::Fp4},
    {"v_cvt_scalef32_pk_fp4_bf16", G::DownPk2, E::Bf16, E::Fp4},
    {"v_cvt_scalef32_sr_fp8_f32", G::SrOne, E::F32, E::Fp8},
    {"v_cvt_scalef32_sr_bf8_f32", G::SrOne, E::F32, E::Bf8},
    {"v_cvt_scalef32_sr_fp8_f16", G::SrOne, E::F16, E::Fp8},
    {"v_cvt_scalef32_sr_bf8_f16", G::SrOne, E::F16, E::Bf8},
    {"v_cvt_scalef32_sr_fp8_bf16", G::SrOne, E::Bf16, E::Fp8},
    {"v_cvt_scalef32_sr_bf8_bf16", G::SrOne, E::Bf16, E::Bf8},
    {"v_cvt_scalef32_sr_pk_fp4_f32", G::SrPk2, E::F32, E::Fp4},
    {"v_cvt_scalef32_sr_pk_fp4_f16", G::SrPk2, E::F16, E::Fp4},
    {"v_cvt_scalef32_sr_pk_fp4_bf16", G::SrPk2, E::Bf16, E::Fp4},
    {"v_cvt_scalef32_pk32_f32_fp6", G::UpPk32, E::Fp6, E::F32},
    {"v_cvt_scalef32_pk32_f32_bf6", G::UpPk32, E::Bf6, E::F32},
    {"v_cvt_scalef32_pk32_f16_fp6", G::UpPk32, E::Fp6, E::F16},
    {"v_cvt_scalef32_pk32_f16_bf6", G::UpPk32, E::Bf6, E::F16},
    {"v_cvt_scalef32_pk32_bf16_fp6", G::UpPk32, E::Fp6, E::Bf16},
    {"v_cvt_scalef32_pk32_bf16_bf6", G::UpPk32, E::Bf6, E::Bf16},
    {"v_cvt_scalef32_pk32_fp6_f16", G::DownPk32, E::F16, E::Fp6},
    {"v_cvt_scalef32_pk32_fp6_bf16", G::DownPk32, E::Bf16, E::Fp6},
    {"v_cvt_scalef32_pk32_bf6_f16", G::DownPk32, E::F16, E::Bf6},
    {"v_cvt_scalef32_pk32_bf6_bf16", G::DownPk32, E::Bf16, E::Bf6},
    {"v_cvt_scalef32_2xpk16_fp6_f32", G::DownPk32, E::F32, E::Fp6},
    {"v_cvt_scalef32_2xpk16_bf6_f32", G::DownPk32, E::F32, E::Bf6},
    {"v_cvt_scalef32_sr_pk32_fp6_f32", G::SrPk32, E::F32, E::Fp6},
    {"v_cvt_scalef32_sr_pk32_bf6_f32", G::SrPk32, E::F32, E::Bf6},
    {"v_cvt_scalef32_sr_pk32_fp6_f16", G::SrPk32, E::F16, E::Fp6},
    {"v_cvt_scalef32_sr_pk32_fp6_bf16", G::SrPk32, E::Bf16, E::Fp6},
    {"v_cvt_scalef32_sr_pk32_bf6_f16", G::SrPk32, E::F16, E::Bf6},
    {"v_cvt_scalef32_sr_pk32_bf6_bf16", G::SrPk32, E::Bf16, E::Bf6},
    {"v_cvt_sr_fp8_f32", G::SrOne, E::F32, E::Fp8, false},
    {"v_cvt_sr_bf8_f32", G::SrOne, E::F32, E::Bf8, false},
    {"v_cvt_sr_f16_f32", G::SrHalf, E::F32, E::F16, false},
    {"v_cvt_sr_bf16_f32", G::SrHalf, E::F32, E::Bf16, false},
};
constexpr size_t kNumRows = sizeof(kRows) / sizeof(kRows[0]);

constexpr bool is_wide(E e) { return e == E::F32 || e == E::F16 || e == E::Bf16; }
constexpr unsigned elem_bits(E e) {
  switch (e) {
    case E::Fp8: case E::Bf8: return 8;
    case E::Fp6: case E::Bf6: return 6;
    case E::Fp4: return 4;
    case E::F32: return 32;
    default: return 16;
  }
}
constexpr int mant_bits(E e) { return e == E::F32 ? 23 : e == E::F16 ? 10 : e == E::Bf16 ? 7 : 0; }

inline lowp::F8 small_format(E e, bool ocp) {
  switch (e) {
    case E::Fp8: return lowp::f8_format(false, ocp);
    case E::Bf8: return lowp::f8_format(true, ocp);
    case E::Fp6: return lowp::F8::E2M3;
    case E::Bf6: return lowp::F8::E3M2;
    default: return lowp::F8::E2M1;
  }
}

inline u32 word(const Wave& w, const Operand& o, unsigned r, unsigned l) {
  if (o.kind == Operand::VGPR) return w.v[o.index + r][l];
  if (o.kind == Operand::SGPR) return w.s[o.index + r];
  return r == 0 ? static_cast<u32>(scalar_bits(w, o)) : 0;
}

// A wide source element as a double: f32 with its abs/neg and MODE's denormal flush, or a 16-bit half.
inline double wide_value(const Wave& w, const Operand& o, E e, u32 bits) {
  if (e == E::F32) {
    float f = std::bit_cast<float>(bits);
    if (w.flush_f32) f = detail::flush(f);
    if (o.abs) f = std::fabs(f);
    if (o.neg) f = -f;
    return f;
  }
  const uint16_t h = static_cast<uint16_t>(bits);
  return e == E::F16 ? lowp::f16_to_f32(h) : lowp::bf16_to_f32(h);
}

// The result of an up-conversion, rounded once to the wide destination (f32: IEEE overflow to infinity).
inline u32 to_wide(double v, E dst) {
  if (dst == E::F32) return std::bit_cast<u32>(static_cast<float>(v));
  return lowp::double_to_half_bits(v, dst == E::Bf16);
}

inline uint8_t to_small(double v, E dst, bool ocp) { return lowp::encode_small(v, small_format(dst, ocp), false); }

// 2^(exponent field - 127) of the f32 scale: the E8M0 value (0xFF: NaN).
inline double scale_of(const Wave& w, const Operand& o, unsigned l) { return lowp::e8m0(word(w, o, 0, l) >> 23 & 0xff); }

inline unsigned sel(const ExecInst& in, unsigned lo_bit) { return (in.mods.op_sel >> lo_bit & 1) | (in.mods.op_sel >> (lo_bit + 1) & 1) << 1; }

template <size_t I> void exec_cvt(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr Row row = kRows[I];
  const bool ocp = ctx.program && ctx.program->arch() == codeobj::Arch::gfx950;
  for (unsigned s = 0; s < in.nsrc; ++s)
    if ((in.src[s].abs || in.src[s].neg) && !(is_wide(row.src) && elem_bits(row.src) == 32 && s < 2))
      fail(ctx, w, in, "abs/neg on this operand of a scaled/stochastic conversion is not implemented");
  if (in.mods.dpp.present || in.mods.sdwa.present) fail(ctx, w, in, "DPP/SDWA forms of this conversion are not implemented");
  const u64 exec = w.exec();
  const Operand& s0 = in.src[0];
  const unsigned dsti = in.dst[0].index;
  constexpr unsigned sbits = elem_bits(row.src);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    auto dreg = [&](unsigned r) -> u32& { return w.v[dsti + r][l]; };
    if constexpr (row.g == G::UpOne || row.g == G::UpPk2 || row.g == G::UpPk32) {
      const double scale = scale_of(w, in.src[1], l);
      const lowp::F8 f = small_format(row.src, ocp);
      auto elem = [&](unsigned idx, unsigned base_bit) {
        const unsigned bit = base_bit + idx * sbits;
        const uint64_t window = word(w, s0, bit / 32, l) | (bit % 32 + sbits > 32 ? static_cast<uint64_t>(word(w, s0, bit / 32 + 1, l)) << 32 : 0);
        return lowp::f8_to_double(static_cast<u32>(window >> (bit % 32)) & ((1u << sbits) - 1), f) * scale;
      };
      if constexpr (row.g == G::UpOne) {
        const u32 r = to_wide(elem(0, 8 * sel(in, 0)), row.dst);
        if (row.dst == E::F32) dreg(0) = r;
        else dreg(0) = (in.mods.op_sel >> 2 & 1) ? (dreg(0) & 0xffffu) | r << 16 : (dreg(0) & 0xffff0000u) | r;
      } else if constexpr (row.g == G::UpPk2) {
        const unsigned base = row.src == E::Fp4 ? 8 * sel(in, 0) : 16 * (in.mods.op_sel & 1);
        const u32 a = to_wide(elem(0, base), row.dst), b = to_wide(elem(1, base), row.dst);
        if (row.dst == E::F32) dreg(0) = a, dreg(1) = b;
        else dreg(0) = a | b << 16;
      } else {
        u32 out[32];
        for (unsigned e = 0; e < 32; ++e) out[e] = to_wide(elem(e, 0), row.dst);
        if (row.dst == E::F32)
          for (unsigned e = 0; e < 32; ++e) dreg(e) = out[e];
        else
          for (unsigned r = 0; r < 16; ++r) dreg(r) = out[2 * r] | out[2 * r + 1] << 16;
      }
    } else if constexpr (row.g == G::SrHalf) {
      const float x = static_cast<float>(wide_value(w, s0, E::F32, word(w, s0, 0, l)));
      const u32 r = lowp::double_to_half_bits(lowp::sr_perturb(x, word(w, in.src[1], 0, l), mant_bits(row.dst)), row.dst == E::Bf16);
      dreg(0) = (in.mods.op_sel >> 2 & 1) ? (dreg(0) & 0xffffu) | r << 16 : (dreg(0) & 0xffff0000u) | r;
    } else {
      // Down-conversions: sources / scale -> small codes.
      constexpr bool sr_form = row.g == G::SrOne || row.g == G::SrPk2 || row.g == G::SrPk32;
      constexpr unsigned scale_idx = row.g == G::DownPk2 ? (sbits == 32 ? 2 : 1)
                                     : row.g == G::DownPk32 ? (sbits == 32 ? 2 : 1)
                                                            : 2;
      const double inv = row.scaled ? 1.0 / scale_of(w, in.src[scale_idx], l) : 1.0;
      const int dst_mbits = lowp::params(small_format(row.dst, ocp)).mbits;
      u32 seed = sr_form ? word(w, in.src[1], 0, l) : 0;
      // Element value / scale, rounded to the small format (stochastic forms: seed, then the next seed).
      auto q = [&](double v) -> u32 {
        if constexpr (!sr_form) return to_small(v * inv, row.dst, ocp);
        const u32 c = to_small(lowp::sr_perturb(static_cast<float>(v * inv), seed, dst_mbits), row.dst, ocp);
        seed = lowp::prng_b32(seed);
        return c;
      };
      // Source element e: f32 from S0[e] (or S1 for the second half of 2xpk16 / pk f32 pairs), or a half.
      auto src_elem = [&](unsigned e) -> double {
        if constexpr (sbits == 32) {
          if constexpr (row.g == G::DownPk2) return wide_value(w, in.src[e], E::F32, word(w, in.src[e], 0, l));
          if constexpr (row.g == G::DownPk32) return wide_value(w, in.src[e % 2], E::F32, word(w, in.src[e % 2], e / 2, l));  // interleaved
          return wide_value(w, s0, E::F32, word(w, s0, e, l));
        } else {
          const unsigned half = e + (row.g == G::SrOne ? (in.mods.op_sel & 1) : 0);
          return wide_value(w, s0, row.src, word(w, s0, half / 2, l) >> (16 * (half % 2)));
        }
      };
      if constexpr (row.g == G::DownPk32 || row.g == G::SrPk32) {
        u32 out[6] = {};
        for (unsigned e = 0; e < 32; ++e) {
          const uint64_t c = q(src_elem(e));
          const unsigned bit = 6 * e;
          out[bit / 32] |= static_cast<u32>(c << (bit % 32));
          if (bit % 32 + 6 > 32) out[bit / 32 + 1] |= static_cast<u32>(c >> (32 - bit % 32));
        }
        for (unsigned r = 0; r < 6; ++r) dreg(r) = out[r];
      } else if constexpr (row.dst == E::Fp4) {
        const unsigned byte = sel(in, 2);
        const u32 lo = q(src_elem(0)), v = lo | q(src_elem(1)) << 4;
        dreg(0) = (dreg(0) & ~(0xffu << (8 * byte))) | v << (8 * byte);
      } else if constexpr (row.g == G::SrOne) {
        const unsigned byte = sel(in, 2);
        dreg(0) = (dreg(0) & ~(0xffu << (8 * byte))) | q(src_elem(0)) << (8 * byte);
      } else {  // DownPk2 to fp8/bf8: a 16-bit word; its select is the printed destination op_sel bit
        const bool hi = (in.mods.op_sel >> (sbits == 32 ? 3 : 2)) & 1;
        const u32 lo = q(src_elem(0)), v = lo | q(src_elem(1)) << 8;
        dreg(0) = hi ? (dreg(0) & 0xffffu) | v << 16 : (dreg(0) & 0xffff0000u) | v;
      }
    }
  }
  ctx.stats.lane_ops += static_cast<u64>(std::popcount(exec));
}

template <size_t I> void register_row(Registry& r) {
  constexpr Row row = kRows[I];
  const Ty data = Ty::B32, f = Ty::F32;
  const Ty src0 = row.src == E::F32 ? f : data;
  switch (row.g) {
    case G::UpOne: case G::UpPk2: case G::UpPk32: return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {data, f});
    case G::DownPk2:
      if (elem_bits(row.src) == 32) return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {f, f, f});
      return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {data, f});
    case G::DownPk32:
      if (elem_bits(row.src) == 32) return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {f, f, f});
      return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {data, f});
    case G::SrHalf: return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {f, data});
    case G::SrOne:
      if (!row.scaled) return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {f, data});
      [[fallthrough]];
    default: return custom(r, row.name, exec_cvt<I>, Category::Vector, {data}, {src0, data, f});
  }
}

template <size_t... I> void register_rows(Registry& r, std::index_sequence<I...>) { (register_row<I>(r), ...); }

}  // namespace

void register_cvt_scale(Registry& r) { register_rows(r, std::make_index_sequence<kNumRows>{}); }

}  // namespace asmevo::emu::sem
