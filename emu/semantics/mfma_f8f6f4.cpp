// gfx950 (CDNA4) f8f6f4 MFMAs, plain and scaled:
//   v_mfma_f32_16x16x128_f8f6f4 / v_mfma_f32_32x32x64_f8f6f4           D, A, B, C [cbsz:fa blgp:fb]
//   v_mfma_scale_f32_16x16x128_f8f6f4 / v_mfma_scale_f32_32x32x64_f8f6f4 D, A, B, C, SA, SB
//                                                    [op_sel:[..] op_sel_hi:[..]] [cbsz:fa blgp:fb]
// Sources: LLVM's gfx950 MFMA definitions and assembler (CBSZ selects A's format and BLGP B's: 0 fp8
// E4M3, 1 bf8 E5M2, 2 fp6 E2M3, 3 bf6 E3M2, 4 fp4 E2M1; the operand is 8, 8, 6, 6 or 4 VGPRs —
// "wrong register tuple size for blgp value" otherwise), the OCP Microscaling (MX) v1.0 spec for the
// element and E8M0 scale formats, and the CDNA4 ISA guide's description of the scaled MFMA
// (one E8M0 scale per 32 K-elements of a row of A / column of B).
//
// Layout (documented choice, the gfx9 rule of mfma.cpp with E = 32 elements per lane): lane
// l = (k / 32) * M + i holds A[i][k] as element k % 32, packed low bits first across the operand's
// VGPRs (fp6: 32 x 6 bits = 6 VGPRs); B likewise with j for i. So each lane holds exactly one
// 32-element scale block, and the scaled forms take lane l's scale from byte op_sel[s] |
// op_sel_hi[s] << 1 of the scale VGPR SA (s = 0) / SB (s = 1) in that lane (a VGPR or an SGPR/constant
// for all lanes). C/D: the layout of the other MFMAs (mfma.cpp). The order of K inside a lane is
// invisible to a GEMM (A and B use the same order) and the scale is per lane, so only the lane ->
// (row, K-block) mapping matters; Triton 3.6's gfx950 fp8 GEMM (corpus/triton fp8_gemm_kernel) agrees
// with it end to end. Which scale byte op_sel/op_sel_hi pick needs hardware confirmation.
//
// Arithmetic: elements (and scales) decode exactly to double; each product (times 2^(ea-127) *
// 2^(eb-127)) is exact; the K products are summed in double in k order, added to C and rounded
// once to f32, as mfma.cpp does. An E8M0 scale of 0xFF is NaN. fp6/fp4 have no Inf/NaN; fp8/bf8 are
// the OCP formats (emu/semantics/lowp.h).
#include <cmath>
#include <cstring>
#include <string>

#include "emu/alu.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {

enum Fmt : unsigned { kFp8 = 0, kBf8 = 1, kFp6 = 2, kBf6 = 3, kFp4 = 4 };
constexpr unsigned kBits[5] = {8, 8, 6, 6, 4};

double decode_elem(Fmt f, unsigned code) {
  switch (f) {
    case kFp8: return lowp::f8_to_double(static_cast<uint8_t>(code), lowp::F8::E4M3Fn);
    case kBf8: return lowp::f8_to_double(static_cast<uint8_t>(code), lowp::F8::E5M2);
    case kFp6: return lowp::f8_to_double(code, lowp::F8::E2M3);
    case kBf6: return lowp::f8_to_double(code, lowp::F8::E3M2);
    case kFp4: return lowp::f8_to_double(code, lowp::F8::E2M1);
  }
  return 0;
}

inline uint32_t word(const Wave& w, const Operand& o, unsigned r, unsigned l) {
  if (o.kind == Operand::VGPR) return w.v[o.index + r][l];
  if (o.kind == Operand::SGPR) return w.s[o.index + r];
  return r == 0 ? static_cast<uint32_t>(scalar_bits(w, o)) : 0;
}

// out[e][lane] = element e of the operand in that lane.
void read_operand(const Wave& w, const Operand& o, Fmt f, double (*out)[64]) {
  const unsigned bits = kBits[f];
  for (unsigned e = 0; e < 32; ++e) {
    const unsigned bit = e * bits, r = bit / 32, sh = bit % 32;
    for (unsigned l = 0; l < kWaveSize; ++l) {
      uint64_t window = word(w, o, r, l) | (sh + bits > 32 ? static_cast<uint64_t>(word(w, o, r + 1, l)) << 32 : 0);
      out[e][l] = decode_elem(f, static_cast<unsigned>(window >> sh) & ((1u << bits) - 1));
    }
  }
}

template <unsigned M, bool Scaled> void exec_f8f6f4(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr unsigned N = M, K = 64 * 32 / M;  // 16x16x128, 32x32x64: 32 elements per lane
  const unsigned fa = in.mods.cbsz, fb = in.mods.blgp;
  if (fa > 4 || fb > 4 || in.mods.abid)
    fail(ctx, w, in, "unsupported cbsz/blgp/abid for an f8f6f4 MFMA (cbsz and blgp select formats 0..4, abid must be 0)");
  const unsigned need_a = kBits[fa] * 32 / 32, need_b = kBits[fb] * 32 / 32;
  if ((in.src[0].kind == Operand::VGPR && in.src[0].count < need_a) || (in.src[1].kind == Operand::VGPR && in.src[1].count < need_b))
    fail(ctx, w, in, "the A/B operand is narrower than its format needs (" + std::to_string(need_a) + "/" + std::to_string(need_b) +
                         " registers)");
  static thread_local double a[32][64], b[32][64];
  read_operand(w, in.src[0], static_cast<Fmt>(fa), a);
  read_operand(w, in.src[1], static_cast<Fmt>(fb), b);
  double sa[64], sb[64];
  for (unsigned l = 0; l < kWaveSize; ++l) sa[l] = sb[l] = 1.0;
  if constexpr (Scaled) {
    const unsigned bytea = (in.mods.op_sel & 1) | (in.mods.op_sel_hi & 1) << 1;
    const unsigned byteb = (in.mods.op_sel >> 1 & 1) | (in.mods.op_sel_hi >> 1 & 1) << 1;
    for (unsigned l = 0; l < kWaveSize; ++l) {
      sa[l] = lowp::e8m0(word(w, in.src[3], 0, l) >> (8 * bytea) & 0xff);
      sb[l] = lowp::e8m0(word(w, in.src[4], 0, l) >> (8 * byteb) & 0xff);
    }
  }
  constexpr unsigned H = 4, R = 64 / N, OutRegs = M * N / 64;
  static thread_local uint32_t d[OutRegs][64];
  const Operand& c = in.src[2];
  for (unsigned r = 0; r < OutRegs; ++r)
    for (unsigned l = 0; l < kWaveSize; ++l) d[r][l] = c.kind == Operand::Const ? word(w, c, 0, l) : word(w, c, r, l);
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      double sum = 0;
      for (unsigned k = 0; k < K; ++k) {
        unsigned la = (k / 32) * M + i, lb = (k / 32) * N + j;
        sum += a[k % 32][la] * sa[la] * (b[k % 32][lb] * sb[lb]);
      }
      unsigned reg = (i / (H * R)) * H + i % H, lane = ((i / H) % R) * N + j;
      d[reg][lane] = std::bit_cast<uint32_t>(static_cast<float>(static_cast<double>(std::bit_cast<float>(d[reg][lane])) + sum));
    }
  for (unsigned r = 0; r < OutRegs; ++r) std::memcpy(w.v[in.dst[0].index + r].lane, d[r], sizeof(d[r]));
  ctx.stats.lane_ops += kWaveSize;
}

}  // namespace

void register_mfma_f8f6f4(Registry& r) {
  custom(r, "v_mfma_f32_16x16x128_f8f6f4", exec_f8f6f4<16, false>, Category::MFMA, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32});
  custom(r, "v_mfma_f32_32x32x64_f8f6f4", exec_f8f6f4<32, false>, Category::MFMA, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32});
  custom(r, "v_mfma_scale_f32_16x16x128_f8f6f4", exec_f8f6f4<16, true>, Category::MFMA, {Ty::B32},
         {Ty::B32, Ty::B32, Ty::B32, Ty::B32, Ty::B32});
  custom(r, "v_mfma_scale_f32_32x32x64_f8f6f4", exec_f8f6f4<32, true>, Category::MFMA, {Ty::B32},
         {Ty::B32, Ty::B32, Ty::B32, Ty::B32, Ty::B32});
}

}  // namespace asmevo::emu::sem
