// MFMA and v_accvgpr_* (emu/semantics/mfma.cpp).
//
// 1. Layout tests per shape and arch: every A/B/C register of every lane gets random small integers
//    (exact in f32/f16/bf16/fp8/bf8/i8/f64, so all sums are exact), written with v_writelane_b32; the
//    expected D is computed here from the Matrix Instruction Calculator's gfx9 rules, re-stated
//    independently of the emulator (test_layout_* below), including CBSZ/ABID/BLGP.
// 2. Hand-derived one-hot cases for the shapes the corpus uses (formulas of corpus/hip/matmul_mfma_*.hip,
//    which its author checked against the calculator): B = one-hot in k, so D[i][j] = A[i][k0] names
//    the A element each output summed.
// 3. AGPR moves and MFMA with AGPR operands (a kernel with 128 VGPRs + 128 AGPRs).
// 4. The corpus MFMA matmuls (f16/bf16/f32, both tile sizes, all three archs) against their host
//    references; tolerance: the reference's "rtol=1e-4,atol=1e-4". Justification: products are exact;
//    the emulator sums one instruction's products in double and rounds to f32 once per instruction,
//    the reference in double over all of K; with |A|,|B| ~ N(0,1) and K <= 64 the difference is a few
//    f32 ulps of values of magnitude <= ~30, i.e. < 1e-5 absolute — and real hardware (fp32 adds in
//    its own order) stays within the same bound.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <random>

#include "codeobj/code_object.h"
#include "corpus/reference/reference.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "emu/semantics/lowp.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

enum class T { F32, F16, BF16, I8, F64, Fp8, Bf8 };

struct S {
  const char* name;
  T a, b;
  int m, k, blocks;
};

int bits(T t) { return t == T::F32 ? 32 : t == T::F64 ? 64 : (t == T::F16 || t == T::BF16) ? 16 : 8; }

// Encodes a small integer v (|v| <= 7) in the format.
uint64_t enc(T t, int v, bool ocp) {
  switch (t) {
    case T::F32: return std::bit_cast<uint32_t>(static_cast<float>(v));
    case T::F64: return std::bit_cast<uint64_t>(static_cast<double>(v));
    case T::F16: return std::bit_cast<uint16_t>(static_cast<_Float16>(v));
    case T::BF16: return std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16;
    case T::I8: return static_cast<uint8_t>(v);
    case T::Fp8: return lowp::f32_to_f8(static_cast<float>(v), lowp::f8_format(false, ocp), false);
    case T::Bf8: return lowp::f32_to_f8(static_cast<float>(v), lowp::f8_format(true, ocp), false);
  }
  return 0;
}

// Per-lane register image of an operand: regs[r][lane].
using Regs = std::vector<std::array<uint32_t, 64>>;

std::string write_regs(const Regs& regs, unsigned first_vgpr) {
  std::string s;
  for (size_t r = 0; r < regs.size(); ++r)
    for (unsigned l = 0; l < 64; ++l)
      s += fmt::format("  s_mov_b32 s4, 0x{:x}\n  v_writelane_b32 v{}, s4, {}\n", regs[r][l], first_vgpr + r, l);
  return s;
}

// --- The calculator's gfx9 rules, restated for the test -----------------------------------------
// Input element (block b, outer index i, inner index k) -> (lane, element e).
struct Loc {
  unsigned lane, e;
};
Loc in_loc(const S& s, unsigned i, unsigned k, unsigned b) {
  unsigned per_lane = s.k * s.m * s.blocks / 64;
  return {b * s.m + (k / per_lane) * s.m * s.blocks + i, k % per_lane};
}
unsigned blgp_lane(unsigned l, unsigned blgp) {
  if (blgp == 1) return l % 32;
  if (blgp == 2) return l < 32 ? l + 32 : l;
  if (blgp == 3) return (l + 16) % 64;
  if (blgp >= 4) return l % 16 + 16 * (blgp - 4);
  return l;
}
// Output element (i, j, block b) -> (register, lane); H rows per register group (1 for f64 results).
Loc out_loc(const S& s, unsigned i, unsigned j, unsigned b, bool f64) {
  unsigned n = s.m, h = f64 ? 1 : 4, rows_per_reg = 64 / n;
  unsigned blocks_per_reg = (64 + n * s.m / h - 1) / (n * s.m / h);
  unsigned reg = b * (s.m * n / 64) + (i / (h * rows_per_reg)) * h + i % h;
  unsigned lane = (b % blocks_per_reg) * n + ((i / h) % rows_per_reg) * blocks_per_reg * n + j;
  return {lane, reg};
}

struct Case {
  const char* arch;
  S s;
  unsigned cbsz = 0, abid = 0, blgp = 0;
};

void run_case(const Case& c, uint64_t seed) {
  const S& s = c.s;
  const bool ocp = std::string(c.arch) == "gfx950";
  const bool f64 = s.a == T::F64, i8 = s.a == T::I8;
  const unsigned per_lane = s.k * s.m * s.blocks / 64;
  const unsigned in_regs = std::max(1u, per_lane * bits(s.a) / 32);
  const unsigned out_regs = s.m * s.m * s.blocks / 64 * (f64 ? 2 : 1);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-4, 4);
  // Random element values, packed into registers.
  std::vector<std::vector<int>> av(64, std::vector<int>(per_lane)), bv = av;
  Regs A(in_regs), B(in_regs), C(out_regs);
  auto pack = [&](Regs& R, std::vector<std::vector<int>>& vals, T t) {
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned e = 0; e < per_lane; ++e) {
        int v = small(rng);
        vals[l][e] = v;
        uint64_t x = enc(t, v, ocp);
        unsigned bit = e * bits(t);
        if (bits(t) == 64) R[2 * e][l] = static_cast<uint32_t>(x), R[2 * e + 1][l] = static_cast<uint32_t>(x >> 32);
        else R[bit / 32][l] |= static_cast<uint32_t>(x << (bit % 32));
      }
  };
  for (auto* R : {&A, &B, &C})
    for (auto& r : *R) r.fill(0);
  pack(A, av, s.a);
  pack(B, bv, s.b);
  std::vector<std::vector<double>> cv(out_regs / (f64 ? 2 : 1), std::vector<double>(64));
  for (size_t r = 0; r < cv.size(); ++r)
    for (unsigned l = 0; l < 64; ++l) {
      int v = small(rng) * 8;
      cv[r][l] = v;
      if (f64) {
        uint64_t x = std::bit_cast<uint64_t>(static_cast<double>(v));
        C[2 * r][l] = static_cast<uint32_t>(x), C[2 * r + 1][l] = static_cast<uint32_t>(x >> 32);
      } else {
        C[r][l] = i8 ? static_cast<uint32_t>(v) : std::bit_cast<uint32_t>(static_cast<float>(v));
      }
    }
  // Expected.
  std::vector<std::vector<double>> want = cv;
  for (unsigned b = 0; b < static_cast<unsigned>(s.blocks); ++b) {
    unsigned ab = (b >> c.cbsz << c.cbsz) + c.abid;
    for (unsigned i = 0; i < static_cast<unsigned>(s.m); ++i)
      for (unsigned j = 0; j < static_cast<unsigned>(s.m); ++j) {
        Loc o = out_loc(s, i, j, b, f64);
        double sum = 0;
        for (unsigned k = 0; k < static_cast<unsigned>(s.k); ++k) {
          Loc la = in_loc(s, i, k, ab), lb = in_loc(s, j, k, b);
          sum += av[la.lane][la.e] * bv[blgp_lane(lb.lane, c.blgp)][lb.e];
        }
        want[o.e][o.lane] += sum;
      }
  }
  std::string mods;
  if (c.cbsz || c.abid) mods += fmt::format(" cbsz:{} abid:{}", c.cbsz, c.abid);
  if (c.blgp) mods += fmt::format(" blgp:{}", c.blgp);
  auto range = [](unsigned first, unsigned n) { return n == 1 ? fmt::format("v{}", first) : fmt::format("v[{}:{}]", first, first + n - 1); };
  std::string body = write_regs(A, 50) + write_regs(B, 60) + write_regs(C, 10);
  body += fmt::format("  {} {}, {}, {}, {}{}\n", s.name, range(10, out_regs), range(50, in_regs), range(60, in_regs),
                      range(10, out_regs), mods);
  body += "  s_nop 7\n  s_nop 7\n  s_nop 7\n";
  auto r = run_snippet(c.arch, body, out_regs);
  unsigned bad = 0;
  for (size_t reg = 0; reg < want.size(); ++reg)
    for (unsigned l = 0; l < 64 && bad < 8; ++l) {
      double got;
      if (f64) got = std::bit_cast<double>(r.at(l, 2 * reg, out_regs) | static_cast<uint64_t>(r.at(l, 2 * reg + 1, out_regs)) << 32);
      else if (i8) got = static_cast<int32_t>(r.at(l, reg, out_regs));
      else got = std::bit_cast<float>(r.at(l, reg, out_regs));
      if (got != want[reg][l]) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {}{}: D reg {} lane {}: got {} want {}", c.arch, s.name, mods, reg, l, got, want[reg][l]);
      }
    }
}

// Every dense shape, with the arch that decodes its name.
const Case kCases[] = {
    {"gfx90a", {"v_mfma_f32_32x32x1f32", T::F32, T::F32, 32, 1, 2}},
    {"gfx90a", {"v_mfma_f32_16x16x1f32", T::F32, T::F32, 16, 1, 4}},
    {"gfx90a", {"v_mfma_f32_4x4x1f32", T::F32, T::F32, 4, 1, 16}},
    {"gfx90a", {"v_mfma_f32_32x32x2f32", T::F32, T::F32, 32, 2, 1}},
    {"gfx90a", {"v_mfma_f32_16x16x4f32", T::F32, T::F32, 16, 4, 1}},
    {"gfx90a", {"v_mfma_f32_32x32x4f16", T::F16, T::F16, 32, 4, 2}},
    {"gfx90a", {"v_mfma_f32_16x16x4f16", T::F16, T::F16, 16, 4, 4}},
    {"gfx90a", {"v_mfma_f32_4x4x4f16", T::F16, T::F16, 4, 4, 16}},
    {"gfx90a", {"v_mfma_f32_32x32x8f16", T::F16, T::F16, 32, 8, 1}},
    {"gfx90a", {"v_mfma_f32_16x16x16f16", T::F16, T::F16, 16, 16, 1}},
    {"gfx90a", {"v_mfma_i32_32x32x4i8", T::I8, T::I8, 32, 4, 2}},
    {"gfx90a", {"v_mfma_i32_16x16x4i8", T::I8, T::I8, 16, 4, 4}},
    {"gfx90a", {"v_mfma_i32_4x4x4i8", T::I8, T::I8, 4, 4, 16}},
    {"gfx90a", {"v_mfma_i32_32x32x8i8", T::I8, T::I8, 32, 8, 1}},
    {"gfx90a", {"v_mfma_i32_16x16x16i8", T::I8, T::I8, 16, 16, 1}},
    {"gfx90a", {"v_mfma_f32_32x32x4bf16_1k", T::BF16, T::BF16, 32, 4, 2}},
    {"gfx90a", {"v_mfma_f32_16x16x4bf16_1k", T::BF16, T::BF16, 16, 4, 4}},
    {"gfx90a", {"v_mfma_f32_4x4x4bf16_1k", T::BF16, T::BF16, 4, 4, 16}},
    {"gfx90a", {"v_mfma_f32_32x32x8bf16_1k", T::BF16, T::BF16, 32, 8, 1}},
    {"gfx90a", {"v_mfma_f32_16x16x16bf16_1k", T::BF16, T::BF16, 16, 16, 1}},
    {"gfx90a", {"v_mfma_f32_32x32x2bf16", T::BF16, T::BF16, 32, 2, 2}},
    {"gfx90a", {"v_mfma_f32_16x16x2bf16", T::BF16, T::BF16, 16, 2, 4}},
    {"gfx90a", {"v_mfma_f32_4x4x2bf16", T::BF16, T::BF16, 4, 2, 16}},
    {"gfx90a", {"v_mfma_f32_32x32x4bf16", T::BF16, T::BF16, 32, 4, 1}},
    {"gfx90a", {"v_mfma_f32_16x16x8bf16", T::BF16, T::BF16, 16, 8, 1}},
    {"gfx90a", {"v_mfma_f64_16x16x4f64", T::F64, T::F64, 16, 4, 1}},
    {"gfx90a", {"v_mfma_f64_4x4x4f64", T::F64, T::F64, 4, 4, 4}},
    {"gfx942", {"v_mfma_f32_32x32x1_2b_f32", T::F32, T::F32, 32, 1, 2}},
    {"gfx942", {"v_mfma_f32_16x16x1_4b_f32", T::F32, T::F32, 16, 1, 4}},
    {"gfx942", {"v_mfma_f32_4x4x1_16b_f32", T::F32, T::F32, 4, 1, 16}},
    {"gfx942", {"v_mfma_f32_32x32x2_f32", T::F32, T::F32, 32, 2, 1}},
    {"gfx942", {"v_mfma_f32_16x16x4_f32", T::F32, T::F32, 16, 4, 1}},
    {"gfx942", {"v_mfma_f32_32x32x4_2b_f16", T::F16, T::F16, 32, 4, 2}},
    {"gfx942", {"v_mfma_f32_16x16x4_4b_f16", T::F16, T::F16, 16, 4, 4}},
    {"gfx942", {"v_mfma_f32_4x4x4_16b_f16", T::F16, T::F16, 4, 4, 16}},
    {"gfx942", {"v_mfma_f32_32x32x8_f16", T::F16, T::F16, 32, 8, 1}},
    {"gfx942", {"v_mfma_f32_16x16x16_f16", T::F16, T::F16, 16, 16, 1}},
    {"gfx942", {"v_mfma_i32_32x32x4_2b_i8", T::I8, T::I8, 32, 4, 2}},
    {"gfx942", {"v_mfma_i32_16x16x4_4b_i8", T::I8, T::I8, 16, 4, 4}},
    {"gfx942", {"v_mfma_i32_4x4x4_16b_i8", T::I8, T::I8, 4, 4, 16}},
    {"gfx942", {"v_mfma_i32_32x32x16_i8", T::I8, T::I8, 32, 16, 1}},
    {"gfx942", {"v_mfma_i32_16x16x32_i8", T::I8, T::I8, 16, 32, 1}},
    {"gfx942", {"v_mfma_f32_32x32x4_2b_bf16", T::BF16, T::BF16, 32, 4, 2}},
    {"gfx942", {"v_mfma_f32_16x16x4_4b_bf16", T::BF16, T::BF16, 16, 4, 4}},
    {"gfx942", {"v_mfma_f32_4x4x4_16b_bf16", T::BF16, T::BF16, 4, 4, 16}},
    {"gfx942", {"v_mfma_f32_32x32x8_bf16", T::BF16, T::BF16, 32, 8, 1}},
    {"gfx942", {"v_mfma_f32_16x16x16_bf16", T::BF16, T::BF16, 16, 16, 1}},
    {"gfx942", {"v_mfma_f64_16x16x4_f64", T::F64, T::F64, 16, 4, 1}},
    {"gfx942", {"v_mfma_f64_4x4x4_4b_f64", T::F64, T::F64, 4, 4, 4}},
    {"gfx942", {"v_mfma_f32_16x16x8_xf32", T::F32, T::F32, 16, 8, 1}},
    {"gfx942", {"v_mfma_f32_32x32x4_xf32", T::F32, T::F32, 32, 4, 1}},
    {"gfx942", {"v_mfma_f32_16x16x32_fp8_fp8", T::Fp8, T::Fp8, 16, 32, 1}},
    {"gfx942", {"v_mfma_f32_16x16x32_fp8_bf8", T::Fp8, T::Bf8, 16, 32, 1}},
    {"gfx942", {"v_mfma_f32_16x16x32_bf8_fp8", T::Bf8, T::Fp8, 16, 32, 1}},
    {"gfx942", {"v_mfma_f32_16x16x32_bf8_bf8", T::Bf8, T::Bf8, 16, 32, 1}},
    {"gfx942", {"v_mfma_f32_32x32x16_fp8_fp8", T::Fp8, T::Fp8, 32, 16, 1}},
    {"gfx942", {"v_mfma_f32_32x32x16_bf8_bf8", T::Bf8, T::Bf8, 32, 16, 1}},
    {"gfx950", {"v_mfma_f32_32x32x8_f16", T::F16, T::F16, 32, 8, 1}},
    {"gfx950", {"v_mfma_f32_16x16x32_f16", T::F16, T::F16, 16, 32, 1}},
    {"gfx950", {"v_mfma_f32_32x32x16_f16", T::F16, T::F16, 32, 16, 1}},
    {"gfx950", {"v_mfma_f32_16x16x32_bf16", T::BF16, T::BF16, 16, 32, 1}},
    {"gfx950", {"v_mfma_f32_32x32x16_bf16", T::BF16, T::BF16, 32, 16, 1}},
    {"gfx950", {"v_mfma_i32_16x16x64_i8", T::I8, T::I8, 16, 64, 1}},
    {"gfx950", {"v_mfma_i32_32x32x32_i8", T::I8, T::I8, 32, 32, 1}},
    {"gfx950", {"v_mfma_f32_16x16x32_fp8_fp8", T::Fp8, T::Fp8, 16, 32, 1}},
    {"gfx950", {"v_mfma_f32_32x32x16_bf8_fp8", T::Bf8, T::Fp8, 32, 16, 1}},
    // CBSZ/ABID (broadcast one A block) and BLGP (B lane patterns).
    {"gfx90a", {"v_mfma_f32_32x32x1f32", T::F32, T::F32, 32, 1, 2}, 1, 1, 0},
    {"gfx90a", {"v_mfma_f32_16x16x1f32", T::F32, T::F32, 16, 1, 4}, 2, 3, 0},
    {"gfx90a", {"v_mfma_f32_4x4x4f16", T::F16, T::F16, 4, 4, 16}, 3, 5, 0},
    {"gfx942", {"v_mfma_f32_4x4x1_16b_f32", T::F32, T::F32, 4, 1, 16}, 4, 9, 0},
    {"gfx942", {"v_mfma_i32_16x16x4_4b_i8", T::I8, T::I8, 16, 4, 4}, 1, 0, 0},
    {"gfx90a", {"v_mfma_f32_16x16x4f32", T::F32, T::F32, 16, 4, 1}, 0, 0, 1},
    {"gfx90a", {"v_mfma_f32_16x16x4f32", T::F32, T::F32, 16, 4, 1}, 0, 0, 2},
    {"gfx90a", {"v_mfma_f32_16x16x4f32", T::F32, T::F32, 16, 4, 1}, 0, 0, 3},
    {"gfx90a", {"v_mfma_f32_32x32x8f16", T::F16, T::F16, 32, 8, 1}, 0, 0, 4},
    {"gfx942", {"v_mfma_f32_32x32x2_f32", T::F32, T::F32, 32, 2, 1}, 0, 0, 5},
    {"gfx942", {"v_mfma_f32_32x32x1_2b_f32", T::F32, T::F32, 32, 1, 2}, 1, 1, 6},
    {"gfx950", {"v_mfma_f32_16x16x4_4b_f16", T::F16, T::F16, 16, 4, 4}, 2, 1, 7},
};

class MfmaLayout : public ::testing::TestWithParam<int> {};
TEST_P(MfmaLayout, RandomIntegersMatchCalculatorRules) { run_case(kCases[GetParam()], 1234 + GetParam()); }
INSTANTIATE_TEST_SUITE_P(Emu, MfmaLayout, ::testing::Range(0, static_cast<int>(sizeof(kCases) / sizeof(kCases[0]))),
                         [](const auto& info) {
                           const Case& c = kCases[info.param];
                           return fmt::format("{}_{}{}", c.arch, c.s.name, c.cbsz || c.abid || c.blgp ? fmt::format("_c{}a{}b{}", c.cbsz, c.abid, c.blgp) : "");
                         });

// One-hot: B[k][j] = (k == k0), A encodes its lane and element, so D names the A element used.
// Formulas from corpus/hip/matmul_mfma_f16.hip (32x32x8: D reg i, lane l -> row 8*(i/4)+4*(l/32)+i%4,
// col l%32; A lane l element e -> A[l%32][4*(l/32)+e]).
TEST(MfmaOneHot, F16_32x32x8_AllArchs) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    const char* name = std::string(arch) == "gfx90a" ? "v_mfma_f32_32x32x8f16" : "v_mfma_f32_32x32x8_f16";
    for (unsigned k0 : {0u, 5u}) {
      Regs A(2), B(2);
      for (unsigned l = 0; l < 64; ++l) {
        A[0][l] = A[1][l] = B[0][l] = B[1][l] = 0;
        for (unsigned e = 0; e < 4; ++e) {
          unsigned m = l % 32, k = 4 * (l / 32) + e;
          uint16_t av = std::bit_cast<uint16_t>(static_cast<_Float16>(m * 8 + k));  // A[m][k] = 8m + k
          uint16_t bv = std::bit_cast<uint16_t>(static_cast<_Float16>(k == k0 ? 1 : 0));
          A[e / 2][l] |= static_cast<uint32_t>(av) << (16 * (e % 2));
          B[e / 2][l] |= static_cast<uint32_t>(bv) << (16 * (e % 2));
        }
      }
      std::string body = write_regs(A, 50) + write_regs(B, 60);
      body += "  v_mov_b32 v10, 0\n";
      for (int i = 11; i < 26; ++i) body += fmt::format("  v_mov_b32 v{}, 0\n", i);
      body += fmt::format("  {} v[10:25], v[50:51], v[60:61], v[10:25]\n  s_nop 7\n  s_nop 7\n", name);
      auto r = run_snippet(arch, body, 16);
      for (unsigned l = 0; l < 64; ++l)
        for (unsigned i = 0; i < 16; ++i) {
          unsigned m = 8 * (i / 4) + 4 * (l / 32) + i % 4;
          EXPECT_EQ(std::bit_cast<float>(r.at(l, i, 16)), static_cast<float>(8 * m + k0)) << arch << " lane " << l << " reg " << i;
        }
    }
  }
}

// 16x16x4 f32 (corpus matmul_mfma_16x16x4_f32): A lane l -> A[l%16][l/16]; D reg i lane l -> [4*(l/16)+i][l%16].
// C is the inline constant 1.0 (every C element 1.0).
TEST(MfmaOneHot, F32_16x16x4_ConstantC) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    const char* name = std::string(arch) == "gfx90a" ? "v_mfma_f32_16x16x4f32" : "v_mfma_f32_16x16x4_f32";
    std::string body = R"(
  v_and_b32 v1, 15, v0          // m
  v_lshrrev_b32 v2, 4, v0       // k
  v_lshlrev_b32 v3, 4, v1
  v_add_u32 v3, v3, v2          // 16m + k
  v_cvt_f32_u32 v50, v3         // A[m][k] = 16m + k
  v_cmp_eq_u32 vcc, 2, v2       // B[k][n] = (k == 2)
  v_cndmask_b32 v60, 0, 1.0, vcc
)";
    body += fmt::format("  {} v[10:13], v50, v60, 1.0\n  s_nop 7\n  s_nop 7\n", name);
    auto r = run_snippet(arch, body, 4);
    for (unsigned l = 0; l < 64; ++l)
      for (unsigned i = 0; i < 4; ++i) {
        unsigned m = 4 * (l / 16) + i;
        EXPECT_EQ(std::bit_cast<float>(r.at(l, i, 4)), static_cast<float>(16 * m + 2 + 1)) << arch << " lane " << l;
      }
  }
}

// Rounding: one rounding to f32 per instruction (1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly, where
// two separate f32 additions would round each 2^-24 away).
TEST(MfmaArith, OneRoundingPerInstruction) {
  std::string body = R"(
  v_mov_b32 v50, 0x33800000      // A = 2^-24 for k = lane/16
  v_mov_b32 v60, 1.0             // B = 1
  v_mov_b32 v10, 1.0
  v_mov_b32 v11, 1.0
  v_mov_b32 v12, 1.0
  v_mov_b32 v13, 1.0
  v_mfma_f32_16x16x4_f32 v[10:13], v50, v60, v[10:13]
  s_nop 7
  s_nop 7
)";
  auto r = run_snippet("gfx942", body, 4);
  // D = 1 + 4 * 2^-24 = 1 + 2^-22.
  EXPECT_EQ(r.at(0, 0, 4), std::bit_cast<uint32_t>(1.0f + 0x1p-22f));
}

// xf32 keeps 10 mantissa bits of each input, truncating: 1 + 2^-10 + 2^-11 -> 1 + 2^-10.
TEST(MfmaArith, Xf32TruncatesInputs) {
  std::string body = R"(
  v_mov_b32 v50, 0x3f803000      // element 0 (even k): 1 + 2^-10 + 2^-11
  v_mov_b32 v51, 0               // element 1 (odd k): 0
  v_mov_b32 v60, 1.0
  v_mov_b32 v61, 1.0
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  v_mfma_f32_16x16x8_xf32 v[10:13], v[50:51], v[60:61], v[10:13]
  s_nop 7
  s_nop 7
)";
  auto r = run_snippet("gfx942", body, 4);
  // Each output sums the 4 lane groups' element 0: 4 * (1 + 2^-10).
  EXPECT_EQ(r.at(0, 0, 4), std::bit_cast<uint32_t>(4.0f * (1.0f + 0x1p-10f)));
}

// --- AGPRs: run_snippet with 128 AGPRs after the 128 VGPRs -------------------------------------------
SnippetRun run_with_agprs(const std::string& arch, const std::string& body, unsigned results) {
  return run_snippet(arch, body, results, 64, 128);
}

TEST(Accvgpr, MovesAndMfmaOnAgprs) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    const bool g90a = std::string(arch) == "gfx90a";
    std::string body = R"(
  v_accvgpr_write_b32 a3, v0            // a3 = lane
  v_accvgpr_write_b32 a4, 7
  v_accvgpr_mov_b32 a5, a3
  v_accvgpr_read_b32 v10, a5            // lane
  v_accvgpr_read_b32 v11, a4            // 7
  s_mov_b64 exec, 0xff                  // EXEC-masked
  v_accvgpr_write_b32 a4, 9
  s_mov_b64 exec, -1
  v_accvgpr_read_b32 v12, a4            // 9 for lanes 0..7, else 7
  v_cvt_f32_u32 v1, v0                  // A[m][k] = lane as float (16x16x4 f32: m = l%16, k = l/16)
  v_mov_b32 v2, 1.0                     // B = 1: D[m][n] = sum_k A[m][k] + C
  v_accvgpr_write_b32 a8, 0
  v_accvgpr_write_b32 a9, 0
  v_accvgpr_write_b32 a10, 0
  v_accvgpr_write_b32 a11, 0
)";
    body += fmt::format("  {} a[8:11], v1, v2, a[8:11]\n  s_nop 7\n  s_nop 7\n", g90a ? "v_mfma_f32_16x16x4f32" : "v_mfma_f32_16x16x4_f32");
    body += "  v_accvgpr_read_b32 v13, a8\n  v_accvgpr_read_b32 v14, a11\n";
    auto r = run_with_agprs(arch, body, 5);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 5), l) << arch;
      EXPECT_EQ(r.at(l, 1, 5), 7u) << arch;
      EXPECT_EQ(r.at(l, 2, 5), l < 8 ? 9u : 7u) << arch;
      // D reg i lane l: m = 4*(l/16)+i; sum_k (m + 16k) = 4m + 96.
      unsigned m0 = 4 * (l / 16), m3 = m0 + 3;
      EXPECT_EQ(std::bit_cast<float>(r.at(l, 3, 5)), static_cast<float>(4 * m0 + 96)) << arch;
      EXPECT_EQ(std::bit_cast<float>(r.at(l, 4, 5)), static_cast<float>(4 * m3 + 96)) << arch;
    }
  }
}

TEST(MfmaErrors, BadModifiersStopTheRun) {
  // CBSZ on a single-block shape is not accepted by the emulator (loud error, not a silent guess).
  EXPECT_THROW(run_snippet("gfx90a", "  v_mfma_f32_32x32x2f32 v[10:25], v1, v2, v[10:25] cbsz:1\n", 1), asmevo::Error);
}

// The corpus MFMA matmuls (all six shapes, three archs) are checked by corpus_all_test.cpp.

// The f32-accumulation sums are compiled for the host's widest vector unit (emu/semantics/mfma.cpp block_products):
// with inexact sums (f32 inputs of magnitudes 2^-12 .. 2^12, so the k-order double sum rounds), D must still be
// the documented arithmetic bit for bit: each product exact in double, summed in k order from 0, added to C,
// rounded once to f32.
TEST(MfmaArith, InexactF32SumsAreTheDocumentedKOrderDoubleSumsBitForBit) {
#pragma clang fp contract(off)
  const S shapes[] = {{"v_mfma_f32_32x32x2_f32", T::F32, T::F32, 32, 2, 1},
                      {"v_mfma_f32_16x16x4_f32", T::F32, T::F32, 16, 4, 1},
                      {"v_mfma_f32_32x32x1_2b_f32", T::F32, T::F32, 32, 1, 2},
                      {"v_mfma_f32_4x4x1_16b_f32", T::F32, T::F32, 4, 1, 16}};
  std::mt19937_64 rng(77);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  for (const S& s : shapes) {
    const unsigned per_lane = s.k * s.m * s.blocks / 64, out_regs = s.m * s.m * s.blocks / 64;
    Regs A(per_lane), B(per_lane), C(out_regs);
    for (auto* R : {&A, &B, &C})
      for (auto& r : *R)
        for (auto& x : r) x = std::bit_cast<uint32_t>(std::ldexp(normal(rng), exponent(rng)));
    auto value = [](const Regs& R, Loc at) { return static_cast<double>(std::bit_cast<float>(R[at.e][at.lane])); };
    std::vector<std::array<uint32_t, 64>> want = C;
    for (unsigned b = 0; b < static_cast<unsigned>(s.blocks); ++b)
      for (unsigned i = 0; i < static_cast<unsigned>(s.m); ++i)
        for (unsigned j = 0; j < static_cast<unsigned>(s.m); ++j) {
          double sum = 0;
          for (unsigned k = 0; k < static_cast<unsigned>(s.k); ++k) sum += value(A, in_loc(s, i, k, b)) * value(B, in_loc(s, j, k, b));
          const Loc o = out_loc(s, i, j, b, false);
          want[o.e][o.lane] = std::bit_cast<uint32_t>(static_cast<float>(value(C, o) + sum));
        }
    auto range = [](unsigned first, unsigned n) { return n == 1 ? fmt::format("v{}", first) : fmt::format("v[{}:{}]", first, first + n - 1); };
    std::string body = write_regs(A, 50) + write_regs(B, 60) + write_regs(C, 10);
    body += fmt::format("  {} {}, {}, {}, {}\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", s.name, range(10, out_regs), range(50, per_lane),
                        range(60, per_lane), range(10, out_regs));
    auto r = run_snippet("gfx942", body, out_regs);
    unsigned bad = 0;
    for (unsigned reg = 0; reg < out_regs; ++reg)
      for (unsigned l = 0; l < 64; ++l)
        if (r.at(l, reg, out_regs) != want[reg][l] && ++bad <= 4)
          ADD_FAILURE() << s.name << " register " << reg << " lane " << l << ": got " << std::bit_cast<float>(r.at(l, reg, out_regs))
                        << ", want " << std::bit_cast<float>(want[reg][l]);
    EXPECT_EQ(bad, 0u) << s.name;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
