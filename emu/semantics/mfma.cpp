// MFMA (matrix fused multiply-add, VOP3P-MAI) and the accumulation-register moves
// (v_accvgpr_read_b32 / v_accvgpr_write_b32 / v_accvgpr_mov_b32).
//
// Every MFMA is one row of kShapes (data, not code per shape): M x N x K, blocks B, the A/B element
// type, the C/D type, and which of CBSZ/ABID and BLGP the instruction accepts. One generic unit
// computes D = A * B + C for any row. Register/lane layouts are those of AMD's Matrix Instruction
// Calculator (github.com/ROCm/amd_matrix_instruction_calculator, gfx9 "CDNA" classes), restated:
//
//   A (block b, row i, column k) and B (block b, row k, column j = "i" below), with
//   G  = 64 / (M * B)   lane groups, and  E = K / G  elements per lane (packed into 32-bit VGPRs,
//        low bits first; 8-byte elements use a register pair):
//     lane    = b * M + (k / E) * M * B + i          element = k % E
//     B's lane is then moved by BLGP (see blgp_lane); A's block is replaced by CBSZ/ABID:
//     block_A = (b >> CBSZ << CBSZ) + ABID    ("broadcast block ABID to each group of 2^CBSZ blocks")
//   C/D (block b, row i, column j), with H = 4 rows per register group (1 for 64-bit results),
//   R = 64 / N groups per register, P = ceil(64 / (N * M / H)) blocks per register:
//     register = b * (M * N / 64) + (i / (H * R)) * H + i % H      (64-bit: register pair index)
//     lane     = (b % P) * N + ((i / H) % R) * P * N + j
//
// Rows marked gfx950 (16x16x32/32x32x16 f16/bf16, 16x16x64/32x32x32 i8) are not in that
// calculator release; they use the same gfx9 rule with K doubled (E = 8 or 16 elements per lane,
// which is what their operand widths v[0:3] give), as LLVM's gfx950 MFMA lowering and the corpus'
// gfx950 Triton matmul assume.
//
// Arithmetic (documented, deterministic; the hardware's internal order and rounding are not
// published, so corpus comparisons use a tolerance):
//   * float inputs (f32, f16, bf16, fp8/bf8) are converted exactly to double; each product is
//     exact in double; for each output element the K products of the instruction are summed in
//     double in k order, added to C, and rounded ONCE to f32 (round to nearest even). f16/bf16/fp8
//     denormal inputs are kept; f32 results are not flushed.
//   * f64: D = fma chain over k in order, starting from C (each step rounded to f64).
//   * i8: exact integer products, sums wrap modulo 2^32 (two's complement i32).
//   * EXEC is not applied: an MFMA is a wave-wide operation (compilers issue it with full EXEC).
//   * fp8/bf8 inputs: FNUZ formats on gfx942, OCP formats on gfx950 (emu/semantics/lowp.h).
//   * xf32 (gfx942): each f32 input is truncated to xf32 (tf32: 8-bit exponent, 10-bit mantissa;
//     round toward zero, as AMD's hipBLASLt engineers state for gfx942's v_mfma_f32_*_xf32 in
//     ROCm/rocm-libraries PR 9176), then as f32.
// Sparse v_smfmac_* (gfx942, gfx950): rows marked sparse; A is expanded from its 4:2 compressed form by the
// index VGPR (expand_sparse_a), then computed as the dense shape. gfx950 f8f6f4 / scaled MFMAs are in
// mfma_f8f6f4.cpp; v_mfma_ld_scale_b32 is unsupported (see docs/emulator.md).
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "emu/alu.h"
#include "emu/program.h"
#include "emu/vector_clones.h"
#include "emu/semantics/lowp.h"

namespace asmevo::emu::sem {
namespace {


enum class In : uint8_t { F32, XF32, F16, BF16, I8, F64, Fp8, Bf8 };
enum class Out : uint8_t { F32, I32, F64 };

struct Shape {
  const char* name;
  In a, b;
  Out out;
  int m, n, k, blocks;
  bool cbsz_abid;  // accepts CBSZ/ABID (multi-block shapes)
  bool blgp;       // accepts BLGP
  bool sparse = false;  // v_smfmac: A is 4:2 structured-sparse (see exec_mfma)
};

constexpr int bits_of(In t) {
  switch (t) {
    case In::F32: case In::XF32: return 32;
    case In::F16: case In::BF16: return 16;
    case In::F64: return 64;
    default: return 8;
  }
}

// The instruction table. Names are LLVM's: gfx90a (CDNA2) spellings and gfx940+ (CDNA3/4) spellings.
constexpr Shape kShapes[] = {
    // gfx90a (CDNA2)
    {"v_mfma_f32_32x32x1f32", In::F32, In::F32, Out::F32, 32, 32, 1, 2, true, true},
    {"v_mfma_f32_16x16x1f32", In::F32, In::F32, Out::F32, 16, 16, 1, 4, true, true},
    {"v_mfma_f32_4x4x1f32", In::F32, In::F32, Out::F32, 4, 4, 1, 16, true, true},
    {"v_mfma_f32_32x32x2f32", In::F32, In::F32, Out::F32, 32, 32, 2, 1, false, true},
    {"v_mfma_f32_16x16x4f32", In::F32, In::F32, Out::F32, 16, 16, 4, 1, false, true},
    {"v_mfma_f32_32x32x4f16", In::F16, In::F16, Out::F32, 32, 32, 4, 2, true, true},
    {"v_mfma_f32_16x16x4f16", In::F16, In::F16, Out::F32, 16, 16, 4, 4, true, true},
    {"v_mfma_f32_4x4x4f16", In::F16, In::F16, Out::F32, 4, 4, 4, 16, true, true},
    {"v_mfma_f32_32x32x8f16", In::F16, In::F16, Out::F32, 32, 32, 8, 1, false, true},
    {"v_mfma_f32_16x16x16f16", In::F16, In::F16, Out::F32, 16, 16, 16, 1, false, true},
    {"v_mfma_i32_32x32x4i8", In::I8, In::I8, Out::I32, 32, 32, 4, 2, true, true},
    {"v_mfma_i32_16x16x4i8", In::I8, In::I8, Out::I32, 16, 16, 4, 4, true, true},
    {"v_mfma_i32_4x4x4i8", In::I8, In::I8, Out::I32, 4, 4, 4, 16, true, true},
    {"v_mfma_i32_32x32x8i8", In::I8, In::I8, Out::I32, 32, 32, 8, 1, false, true},
    {"v_mfma_i32_16x16x16i8", In::I8, In::I8, Out::I32, 16, 16, 16, 1, false, true},
    {"v_mfma_f32_32x32x4bf16_1k", In::BF16, In::BF16, Out::F32, 32, 32, 4, 2, true, true},
    {"v_mfma_f32_16x16x4bf16_1k", In::BF16, In::BF16, Out::F32, 16, 16, 4, 4, true, true},
    {"v_mfma_f32_4x4x4bf16_1k", In::BF16, In::BF16, Out::F32, 4, 4, 4, 16, true, true},
    {"v_mfma_f32_32x32x8bf16_1k", In::BF16, In::BF16, Out::F32, 32, 32, 8, 1, false, true},
    {"v_mfma_f32_16x16x16bf16_1k", In::BF16, In::BF16, Out::F32, 16, 16, 16, 1, false, true},
    {"v_mfma_f32_32x32x2bf16", In::BF16, In::BF16, Out::F32, 32, 32, 2, 2, true, true},
    {"v_mfma_f32_16x16x2bf16", In::BF16, In::BF16, Out::F32, 16, 16, 2, 4, true, true},
    {"v_mfma_f32_4x4x2bf16", In::BF16, In::BF16, Out::F32, 4, 4, 2, 16, true, true},
    {"v_mfma_f32_32x32x4bf16", In::BF16, In::BF16, Out::F32, 32, 32, 4, 1, false, true},
    {"v_mfma_f32_16x16x8bf16", In::BF16, In::BF16, Out::F32, 16, 16, 8, 1, false, true},
    {"v_mfma_f64_16x16x4f64", In::F64, In::F64, Out::F64, 16, 16, 4, 1, false, false},
    {"v_mfma_f64_4x4x4f64", In::F64, In::F64, Out::F64, 4, 4, 4, 4, false, false},
    // gfx940+ (CDNA3; gfx950 keeps these)
    {"v_mfma_f32_32x32x1_2b_f32", In::F32, In::F32, Out::F32, 32, 32, 1, 2, true, true},
    {"v_mfma_f32_16x16x1_4b_f32", In::F32, In::F32, Out::F32, 16, 16, 1, 4, true, true},
    {"v_mfma_f32_4x4x1_16b_f32", In::F32, In::F32, Out::F32, 4, 4, 1, 16, true, true},
    {"v_mfma_f32_32x32x2_f32", In::F32, In::F32, Out::F32, 32, 32, 2, 1, false, true},
    {"v_mfma_f32_16x16x4_f32", In::F32, In::F32, Out::F32, 16, 16, 4, 1, false, true},
    {"v_mfma_f32_32x32x4_2b_f16", In::F16, In::F16, Out::F32, 32, 32, 4, 2, true, true},
    {"v_mfma_f32_16x16x4_4b_f16", In::F16, In::F16, Out::F32, 16, 16, 4, 4, true, true},
    {"v_mfma_f32_4x4x4_16b_f16", In::F16, In::F16, Out::F32, 4, 4, 4, 16, true, true},
    {"v_mfma_f32_32x32x8_f16", In::F16, In::F16, Out::F32, 32, 32, 8, 1, false, false},
    {"v_mfma_f32_16x16x16_f16", In::F16, In::F16, Out::F32, 16, 16, 16, 1, false, false},
    {"v_mfma_i32_32x32x4_2b_i8", In::I8, In::I8, Out::I32, 32, 32, 4, 2, true, true},
    {"v_mfma_i32_16x16x4_4b_i8", In::I8, In::I8, Out::I32, 16, 16, 4, 4, true, true},
    {"v_mfma_i32_4x4x4_16b_i8", In::I8, In::I8, Out::I32, 4, 4, 4, 16, true, true},
    {"v_mfma_i32_32x32x16_i8", In::I8, In::I8, Out::I32, 32, 32, 16, 1, false, false},
    {"v_mfma_i32_16x16x32_i8", In::I8, In::I8, Out::I32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_32x32x4_2b_bf16", In::BF16, In::BF16, Out::F32, 32, 32, 4, 2, true, true},
    {"v_mfma_f32_16x16x4_4b_bf16", In::BF16, In::BF16, Out::F32, 16, 16, 4, 4, true, true},
    {"v_mfma_f32_4x4x4_16b_bf16", In::BF16, In::BF16, Out::F32, 4, 4, 4, 16, true, true},
    {"v_mfma_f32_32x32x8_bf16", In::BF16, In::BF16, Out::F32, 32, 32, 8, 1, false, false},
    {"v_mfma_f32_16x16x16_bf16", In::BF16, In::BF16, Out::F32, 16, 16, 16, 1, false, false},
    {"v_mfma_f64_16x16x4_f64", In::F64, In::F64, Out::F64, 16, 16, 4, 1, false, false},
    {"v_mfma_f64_4x4x4_4b_f64", In::F64, In::F64, Out::F64, 4, 4, 4, 4, false, false},
    {"v_mfma_f32_16x16x32_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_16x16x32_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_16x16x32_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_16x16x32_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_32x32x16_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_f32_32x32x16_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_f32_32x32x16_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_f32_32x32x16_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_f32_16x16x8_xf32", In::XF32, In::XF32, Out::F32, 16, 16, 8, 1, false, false},
    {"v_mfma_f32_32x32x4_xf32", In::XF32, In::XF32, Out::F32, 32, 32, 4, 1, false, false},
    // gfx950 (CDNA4): double-K f16/bf16/i8
    {"v_mfma_f32_16x16x32_f16", In::F16, In::F16, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_32x32x16_f16", In::F16, In::F16, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_f32_16x16x32_bf16", In::BF16, In::BF16, Out::F32, 16, 16, 32, 1, false, false},
    {"v_mfma_f32_32x32x16_bf16", In::BF16, In::BF16, Out::F32, 32, 32, 16, 1, false, false},
    {"v_mfma_i32_16x16x64_i8", In::I8, In::I8, Out::I32, 16, 16, 64, 1, false, false},
    {"v_mfma_i32_32x32x32_i8", In::I8, In::I8, Out::I32, 32, 32, 32, 1, false, false},
    // Sparse (4:2 structured) MFMAs: gfx942 (CDNA3) and the double-K gfx950 (CDNA4) rows. K is the dense K.
    {"v_smfmac_f32_16x16x32_f16", In::F16, In::F16, Out::F32, 16, 16, 32, 1, false, false, true},
    {"v_smfmac_f32_32x32x16_f16", In::F16, In::F16, Out::F32, 32, 32, 16, 1, false, false, true},
    {"v_smfmac_f32_16x16x32_bf16", In::BF16, In::BF16, Out::F32, 16, 16, 32, 1, false, false, true},
    {"v_smfmac_f32_32x32x16_bf16", In::BF16, In::BF16, Out::F32, 32, 32, 16, 1, false, false, true},
    {"v_smfmac_i32_16x16x64_i8", In::I8, In::I8, Out::I32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_i32_32x32x32_i8", In::I8, In::I8, Out::I32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_f16", In::F16, In::F16, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_f16", In::F16, In::F16, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_f32_16x16x64_bf16", In::BF16, In::BF16, Out::F32, 16, 16, 64, 1, false, false, true},
    {"v_smfmac_f32_32x32x32_bf16", In::BF16, In::BF16, Out::F32, 32, 32, 32, 1, false, false, true},
    {"v_smfmac_i32_16x16x128_i8", In::I8, In::I8, Out::I32, 16, 16, 128, 1, false, false, true},
    {"v_smfmac_i32_32x32x64_i8", In::I8, In::I8, Out::I32, 32, 32, 64, 1, false, false, true},
    {"v_smfmac_f32_16x16x128_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 16, 16, 128, 1, false, false, true},
    {"v_smfmac_f32_32x32x64_bf8_bf8", In::Bf8, In::Bf8, Out::F32, 32, 32, 64, 1, false, false, true},
    {"v_smfmac_f32_16x16x128_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 16, 16, 128, 1, false, false, true},
    {"v_smfmac_f32_32x32x64_bf8_fp8", In::Bf8, In::Fp8, Out::F32, 32, 32, 64, 1, false, false, true},
    {"v_smfmac_f32_16x16x128_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 16, 16, 128, 1, false, false, true},
    {"v_smfmac_f32_32x32x64_fp8_bf8", In::Fp8, In::Bf8, Out::F32, 32, 32, 64, 1, false, false, true},
    {"v_smfmac_f32_16x16x128_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 16, 16, 128, 1, false, false, true},
    {"v_smfmac_f32_32x32x64_fp8_fp8", In::Fp8, In::Fp8, Out::F32, 32, 32, 64, 1, false, false, true},
};
constexpr size_t kNumShapes = sizeof(kShapes) / sizeof(kShapes[0]);

// BLGP: which lane of B feeds lane `l` (calculator: _get_blgp_transformed_lane).
//   0 normal, 1 broadcast lanes 0-31, 2 broadcast lanes 32-63, 3 rotate down by 16,
//   4..7 broadcast the 1st/2nd/3rd/4th group of 16 lanes.
inline unsigned blgp_lane(unsigned l, unsigned blgp) {
  switch (blgp) {
    case 1: return l % 32;
    case 2: return l % 32 + 32;
    case 3: return (l + 16) % 64;
    default: return blgp >= 4 ? (l % 16) + 16 * (blgp - 4) : l;
  }
}

// The 32-bit word `r` of a source operand in lane `l` (constants: their bits, low dword first).
inline uint32_t src_word(const Wave& w, const Operand& o, unsigned r, unsigned l) {
  if (o.kind == Operand::VGPR) return w.v[o.index + r][l];
  uint64_t b = scalar_bits(w, o);
  if (o.kind == Operand::Const) return r == 0 ? static_cast<uint32_t>(b) : r == 1 ? static_cast<uint32_t>(b >> 32) : 0;
  return static_cast<uint32_t>(o.kind == Operand::SGPR ? w.s[o.index + r] : b);
}

inline double decode(In t, uint64_t bits, bool ocp) {
  switch (t) {
    case In::F32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case In::XF32: {  // f32 -> xf32 (tf32: 10 mantissa bits) by truncation; NaN stays NaN
      float f = std::bit_cast<float>(static_cast<uint32_t>(bits));
      return std::isnan(f) ? f : std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
    }
    case In::F16: return lowp::f16_to_f32(static_cast<uint16_t>(bits));
    case In::BF16: return lowp::bf16_to_f32(static_cast<uint16_t>(bits));
    case In::I8: return static_cast<int8_t>(bits);
    case In::F64: return std::bit_cast<double>(bits);
    case In::Fp8: return lowp::f8_to_double(static_cast<uint8_t>(bits), lowp::f8_format(false, ocp));
    case In::Bf8: return lowp::f8_to_double(static_cast<uint8_t>(bits), lowp::f8_format(true, ocp));
  }
  return 0;
}

// Reads the per-lane elements of an A/B operand: out[lane][e], e < E.
// The common case, 16-bit elements in VGPRs, without the per-element operand and type dispatch (a tenth of a
// sampled f16 GEMM's time, perf on bench/timing/sampling_bench), compiled for the host's widest vector unit as
// block_products is (the same conversions, lane by lane; integer and exact float work, so every width gives the
// same bits).

ASMEVO_VECTOR_CLONES void read_vgpr_halves(const Wave& w, unsigned first,
                                                                                    unsigned E, bool bf16,
                                                                                    double (*out)[64]) {
#if defined(__x86_64__)
  static const bool f16c = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#endif
  for (unsigned e = 0; e < E; ++e) {
    const uint32_t* words = w.v[first + e / 2].lane;
    const unsigned shift = e % 2 * 16;
    double* row = out[e];
#if defined(__x86_64__)
    if (!bf16 && f16c && lowp::f16_halves_to_double_f16c(words, shift, row)) continue;
#endif
    if (bf16)
      for (unsigned l = 0; l < kWaveSize; ++l) row[l] = lowp::bf16_to_f32(static_cast<uint16_t>(words[l] >> shift));
    else
      for (unsigned l = 0; l < kWaveSize; ++l) row[l] = lowp::f16_to_f32(static_cast<uint16_t>(words[l] >> shift));
  }
}

void read_elems(const Wave& w, const Operand& o, In t, unsigned E, bool ocp, double (*out)[64]) {
  const unsigned bits = bits_of(t);
  if (o.kind == Operand::VGPR && (t == In::F16 || t == In::BF16)) return read_vgpr_halves(w, o.index, E, t == In::BF16, out);
  for (unsigned e = 0; e < E; ++e) {
    unsigned bit = e * bits;
    for (unsigned l = 0; l < kWaveSize; ++l) {
      uint64_t v;
      if (bits == 64) v = src_word(w, o, 2 * e, l) | static_cast<uint64_t>(src_word(w, o, 2 * e + 1, l)) << 32;
      else v = (src_word(w, o, bit / 32, l) >> (bit % 32)) & ((1ull << bits) - 1);
      out[e][l] = decode(t, v, ocp);
    }
  }
}

// "neg:[a,b,c]" (gfx940+ f64 MFMA): kept by the operand parser in Mods::other.
unsigned parse_neg(const std::string& other) {
  size_t p = other.find("neg:[");
  if (p == std::string::npos) return 0;
  unsigned bits = 0, i = 0;
  for (size_t q = p + 5; q < other.size() && other[q] != ']'; ++q) {
    if (other[q] == ',') ++i;
    else if (other[q] == '1') bits |= 1u << i;
  }
  return bits;
}

// v_smfmac A operand: each lane holds E/2 of its E K-elements (the layout of a dense A with E/2 elements
// per lane), two per group of 4 consecutive k; the index VGPR (src2) gives their positions: per group g, bits
// [4g+1:4g] = position of the first kept element, [4g+3:4g+2] of the second (CDNA3 ISA "sparse matrix";
// AMD Composable Kernel's hardware test test/smfmac_op/smfmac_op_util.hpp packs A and idx so; IREE issue 22863
// works an example: a0 a1 0 0 -> 0b0100). A lane
// needs E index bits, so the 32-bit VGPR holds 32 / E sets: ABID picks one when CBSZ is 0, else set 0
// (LLVM's amdgpu.sparse_mfma description; gfx950's double-K rows have 2 sets for 16-bit data, 1 for 8-bit).
// Equal positions in a group (undefined) keep the second element.
template <unsigned E>
void expand_sparse_a(ExecContext& ctx, const Wave& w, const ExecInst& in, In t, bool ocp, double (*a)[64]) {
  static_assert(E % 4 == 0 && E <= 32);
  static thread_local double packed[E / 2][64];
  read_elems(w, in.src[0], t, E / 2, ocp, packed);
  constexpr unsigned kSets = 32 / E;
  const unsigned set = in.mods.cbsz ? 0 : in.mods.abid;
  if (set >= kSets) fail(ctx, w, in, "abid " + std::to_string(set) + " selects no index set (this v_smfmac has " + std::to_string(kSets) + ")");
  const Operand& idx = in.src[2];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint32_t bits = src_word(w, idx, 0, l) >> (set * E) ;
    for (unsigned k = 0; k < E; ++k) a[k][l] = 0;
    for (unsigned g = 0; g < E / 4; ++g) {
      const unsigned nib = bits >> (4 * g) & 0xf;
      a[4 * g + (nib & 3)][l] = packed[2 * g][l];
      a[4 * g + (nib >> 2)][l] = packed[2 * g + 1][l];
    }
  }
}

// sums[i * N + j] = the sum over k, in k order from 0, of at[i * k_count + k] * bt[k * N + j], in double: the f32-output
// MFMAs' products of one block. The N sums of a row advance side by side (vectorized over j, in registers); each
// still adds its products one by one. Contraction off: each product and each sum is rounded as written, at any
// vector width.
template <unsigned N>
[[gnu::always_inline]] inline void block_products_of(const double* __restrict at, const double* __restrict bt, unsigned m,
                                                     unsigned k_count, double* __restrict sums) {
#pragma clang fp contract(off)
  for (unsigned i = 0; i < m; ++i) {
    double sum[N] = {};
    for (unsigned k = 0; k < k_count; ++k) {
      const double x = at[i * k_count + k];
      for (unsigned j = 0; j < N; ++j) sum[j] += x * bt[k * N + j];
    }
    for (unsigned j = 0; j < N; ++j) sums[i * N + j] = sum[j];
  }
}

// block_products_of for the MFMA widths (N = M: 4, 16 or 32), compiled for the host's widest vector unit
// (target_clones: AVX-512, AVX2 or baseline x86-64; the ifunc picks one at load time): every width gives the same
// bits. At SSE2's two doubles per operation these sums were two thirds of an f16 GEMM's MFMA time (perf on
// bench/timing/sampling_bench, triton matmul_128_kernel:decode_b64).
ASMEVO_VECTOR_CLONES void block_products(const double* __restrict at,
                                                                                  const double* __restrict bt, unsigned m,
                                                                                  unsigned n, unsigned k_count,
                                                                                  double* __restrict sums) {
  switch (n) {
    case 4: return block_products_of<4>(at, bt, m, k_count, sums);
    case 16: return block_products_of<16>(at, bt, m, k_count, sums);
    case 32: return block_products_of<32>(at, bt, m, k_count, sums);
    default: throw std::logic_error("block_products: no MFMA is " + std::to_string(n) + " columns wide");
  }
}

template <size_t I> void exec_mfma(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr Shape s = kShapes[I];
  constexpr unsigned M = s.m, N = s.n, K = s.k, B = s.blocks;
  constexpr unsigned E = K * M * B / 64;  // elements of A (and B) per lane
  static_assert(E >= 1 && M == N && (N == 4 || N == 16 || N == 32));  // block_products' widths
  // v_smfmac repurposes CBSZ/ABID to pick the index set (below); no block broadcast.
  const unsigned cbsz = s.sparse ? 0 : in.mods.cbsz, abid = s.sparse ? 0 : in.mods.abid, blgp = in.mods.blgp;
  if ((cbsz || abid) && (!s.cbsz_abid || (1u << cbsz) > B || abid >= (1u << cbsz)))
    fail(ctx, w, in, "unsupported CBSZ/ABID for " + std::string(s.name) + " (cbsz " + std::to_string(cbsz) + ", abid " +
                         std::to_string(abid) + ")");
  const bool f64 = s.out == Out::F64;
  unsigned neg = 0;
  if (blgp && !s.blgp) fail(ctx, w, in, "unsupported BLGP for " + std::string(s.name));
  if (f64 && !in.mods.other.empty()) neg = parse_neg(in.mods.other);
  const bool ocp = ctx.program && ctx.program->arch() == codeobj::Arch::gfx950;

  static thread_local double a[E][64], b[E][64];
  if constexpr (s.sparse) expand_sparse_a<E>(ctx, w, in, s.a, ocp, a);
  else read_elems(w, in.src[0], s.a, E, ocp, a);
  read_elems(w, in.src[1], s.b, E, ocp, b);

  constexpr unsigned H = f64 ? 1 : 4;                     // rows per register group
  constexpr unsigned R = 64 / N;                          // row groups per register
  constexpr unsigned P = (64 + (N * M / H) - 1) / (N * M / H);  // blocks per register
  constexpr unsigned RegsPerBlock = M * N / 64;
  constexpr unsigned Words = f64 ? 2 : 1;
  constexpr unsigned OutRegs = (M * N * B / 64) * Words;  // 32-bit registers of C/D
  static thread_local uint32_t staged[OutRegs][64];
  const Operand& c = s.sparse ? in.dst[0] : in.src[2];  // v_smfmac accumulates into D (src2 holds the indices)
  const Operand& dst = in.dst[0];
  // C and D the same registers (a GEMM loop's accumulation): D is updated where it lies. A and B are read
  // already, and each element of D is read (as C) before it is written, by the only step that writes it.
  // Else C is staged and D written at the end (copying 4 KiB in and out per MFMA was 2.5 % of a sampled f16
  // GEMM's time, perf on bench/timing/sampling_bench).
  const bool in_place = c.kind == Operand::VGPR && dst.kind == Operand::VGPR && c.index == dst.index;
  uint32_t* d[OutRegs];  // D's registers, each its 64 lanes
  for (unsigned r = 0; r < OutRegs; ++r) d[r] = in_place ? w.v[dst.index + r].lane : staged[r];
  for (unsigned r = 0; r < OutRegs && !in_place; ++r) {
    if (c.kind == Operand::VGPR) {  // the common case, without a per-lane operand dispatch
      std::memcpy(d[r], w.v[c.index + r].lane, sizeof(staged[r]));
      continue;
    }
    for (unsigned l = 0; l < kWaveSize; ++l)
      d[r][l] = c.kind == Operand::Const ? src_word(w, c, f64 ? r % 2 : 0, l) : src_word(w, c, r, l);
  }

  for (unsigned blk = 0; blk < B; ++blk) {
    const unsigned ablk = (blk >> cbsz << cbsz) + abid;
    if constexpr (s.out != Out::I32 && !f64) {
      // f32 accumulation: the block's A as [i][k] and B as [k][j], then every (i, j) sum in k order (block_products).
      static thread_local double at[M][K], bt[K][N], sums[M][N];
      for (unsigned k = 0; k < K; ++k) {
        for (unsigned i = 0; i < M; ++i) at[i][k] = a[k % E][ablk * M + (k / E) * M * B + i];
        for (unsigned j = 0; j < N; ++j) bt[k][j] = b[k % E][blgp_lane(blk * N + (k / E) * N * B + j, blgp)];
      }
      block_products(&at[0][0], &bt[0][0], M, N, K, &sums[0][0]);
      for (unsigned i = 0; i < M; ++i) {
        const double* sum = sums[i];
        for (unsigned j = 0; j < N; ++j) {
          const unsigned reg = blk * RegsPerBlock + (i / (H * R)) * H + i % H;
          const unsigned lane = (blk % P) * N + ((i / H) % R) * P * N + j;
          const double cval = std::bit_cast<float>(d[reg][lane]);
          d[reg][lane] = std::bit_cast<uint32_t>(static_cast<float>(cval + sum[j]));
        }
      }
      continue;
    }
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        unsigned reg = blk * RegsPerBlock + (i / (H * R)) * H + i % H;
        unsigned lane = (blk % P) * N + ((i / H) % R) * P * N + j;
        if (s.out == Out::I32) {
          uint32_t acc = d[reg][lane];
          for (unsigned k = 0; k < K; ++k) {
            unsigned la = ablk * M + (k / E) * M * B + i, lb = blgp_lane(blk * N + (k / E) * N * B + j, blgp);
            acc += static_cast<uint32_t>(static_cast<int32_t>(a[k % E][la]) * static_cast<int32_t>(b[k % E][lb]));
          }
          d[reg][lane] = acc;
        } else if (f64) {
          double acc = std::bit_cast<double>(d[2 * reg][lane] | static_cast<uint64_t>(d[2 * reg + 1][lane]) << 32);
          if (neg & 4) acc = -acc;
          for (unsigned k = 0; k < K; ++k) {
            unsigned la = ablk * M + (k / E) * M * B + i, lb = blgp_lane(blk * N + (k / E) * N * B + j, blgp);
            double x = a[k % E][la], y = b[k % E][lb];
            acc = std::fma(neg & 1 ? -x : x, neg & 2 ? -y : y, acc);
          }
          uint64_t bits = std::bit_cast<uint64_t>(acc);
          d[2 * reg][lane] = static_cast<uint32_t>(bits);
          d[2 * reg + 1][lane] = static_cast<uint32_t>(bits >> 32);
        }
      }
  }
  for (unsigned r = 0; r < OutRegs && !in_place; ++r) std::memcpy(w.v[dst.index + r].lane, d[r], sizeof(staged[r]));
  ctx.stats.lane_ops += kWaveSize;
}

template <size_t... I> void register_shapes(Registry& r, std::index_sequence<I...>) {
  ((kShapes[I].out == Out::F64
        ? custom(r, kShapes[I].name, exec_mfma<I>, Category::MFMA, {Ty::F64}, {Ty::F64, Ty::F64, Ty::F64})
        : custom(r, kShapes[I].name, exec_mfma<I>, Category::MFMA, {Ty::B32}, {Ty::B32, Ty::B32, Ty::B32})),
   ...);
}

}  // namespace

void register_mfma(Registry& r) {
  // D = S0 (EXEC-masked VALU moves between the VGPR and AGPR halves of the unified file).
  valu<[](u32 a) { return a; }>(r, "v_accvgpr_read_b32");
  valu<[](u32 a) { return a; }>(r, "v_accvgpr_write_b32");
  valu<[](u32 a) { return a; }>(r, "v_accvgpr_mov_b32");
  register_shapes(r, std::make_index_sequence<kNumShapes>{});
}

}  // namespace asmevo::emu::sem
