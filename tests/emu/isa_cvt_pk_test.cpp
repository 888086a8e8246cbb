// Packed / 8-bit-float conversions (emu/semantics/cvt_pk.cpp). Expected codes computed by hand:
// gfx942 FNUZ E4M3 (bias 8, max 240, NaN 0x80) and E5M2 (bias 16, max 57344); gfx950 OCP E4M3FN
// (bias 7, max 448, NaN 0x7f) and E5M2 (bias 15, inf 0x7c). Round to nearest even, fp8 denormals.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <random>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "emu/semantics/lowp.h"
#include "program/decoder.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"
#include "corpus/index/corpus.h"

namespace asmevo::emu::test {
namespace {

uint32_t f(float x) { return std::bit_cast<uint32_t>(x); }

// lowp::f16_to_f32 works on bits (no libgcc call); it must give the compiler's conversion's bits for every input,
// NaN payloads and their quieting included.
TEST(CvtPk, F16ToF32MatchesTheCompilersConversionOnEveryInput) {
  unsigned differ = 0;
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    volatile uint16_t bits = static_cast<uint16_t>(h);  // volatile: converted at run time, not folded
    const float want = static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(bits)));
    if (f(lowp::f16_to_f32(static_cast<uint16_t>(h))) != f(want) && ++differ <= 5)
      ADD_FAILURE() << fmt::format("f16 {:#06x}: {:#010x}, the compiler gives {:#010x}", h, f(lowp::f16_to_f32(static_cast<uint16_t>(h))), f(want));
  }
  EXPECT_EQ(differ, 0u);
}

#if defined(__x86_64__)
// The MFMA operand reads' packed F16C conversion: f16_to_f32's bits for every non-NaN input in both halves of a
// register, and a refusal (false) for every block of 64 holding a NaN, which then goes through f16_to_f32.
TEST(CvtPk, PackedF16ToDoubleGivesF16ToF32sBits) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("f16c")) GTEST_SKIP() << "host without AVX2/F16C: the packed path never runs";
  unsigned differ = 0, refused = 0, nan_blocks = 0;
  for (uint32_t base = 0; base <= 0xffff; base += 64)
    for (unsigned shift : {0u, 16u}) {
      uint32_t words[64];
      bool nan = false;
      for (unsigned l = 0; l < 64; ++l) {
        const uint32_t h = base + l, other = (h * 40503u) & 0xffffu;  // the other half: any bits, never read
        words[l] = shift ? (h << 16 | other) : (other << 16 | h);
        nan |= (h & 0x7fffu) > 0x7c00u;
      }
      double row[64];
      const bool packed = lowp::f16_halves_to_double_f16c(words, shift, row);
      nan_blocks += nan;
      refused += !packed;
      if (!packed) continue;
      for (unsigned l = 0; l < 64; ++l)
        if (std::bit_cast<uint64_t>(row[l]) != std::bit_cast<uint64_t>(static_cast<double>(lowp::f16_to_f32(static_cast<uint16_t>(base + l)))) &&
            ++differ <= 5)
          ADD_FAILURE() << fmt::format("f16 {:#06x} (shift {}): {}", base + l, shift, row[l]);
    }
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(refused, nan_blocks);  // exactly the blocks with a NaN
  EXPECT_GT(nan_blocks, 0u);
}
#endif

TEST(CvtPk, Fp8EncodeDecodeEdges) {
  using namespace lowp;
  // Exact values, max, overflow, RNE ties, denormals.
  EXPECT_EQ(f32_to_f8(1.0f, F8::E4M3Fnuz, false), 0x40);
  EXPECT_EQ(f32_to_f8(1.0f, F8::E4M3Fn, false), 0x38);
  EXPECT_EQ(f32_to_f8(240.0f, F8::E4M3Fnuz, false), 0x7f);
  EXPECT_EQ(f32_to_f8(248.0f, F8::E4M3Fnuz, false), 0x80);   // rounds to 256 > 240: NaN
  EXPECT_EQ(f32_to_f8(248.0f, F8::E4M3Fnuz, true), 0x7f);    // saturating
  EXPECT_EQ(f32_to_f8(-1000.0f, F8::E4M3Fn, true), 0xfe);
  EXPECT_EQ(f32_to_f8(448.0f, F8::E4M3Fn, false), 0x7e);
  EXPECT_EQ(f32_to_f8(464.0f, F8::E4M3Fn, false), 0x7e);     // tie between 448 and 480: even (448)
  EXPECT_EQ(f32_to_f8(465.0f, F8::E4M3Fn, false), 0x7f);     // rounds to 480 > 448: NaN
  EXPECT_EQ(f32_to_f8(0x1p-10f, F8::E4M3Fnuz, false), 0x01); // smallest denormal 2^-10
  EXPECT_EQ(f32_to_f8(0x1p-10f, F8::E4M3Fn, false), 0x00);   // half of 2^-9: tie to even 0
  EXPECT_EQ(f32_to_f8(0x1.8p-9f, F8::E4M3Fn, false), 0x02);  // 1.5 * 2^-9: tie to even (2)
  EXPECT_EQ(f32_to_f8(-0.0f, F8::E4M3Fnuz, false), 0x00);    // FNUZ has no -0
  EXPECT_EQ(f32_to_f8(-0.0f, F8::E4M3Fn, false), 0x80);
  EXPECT_EQ(f32_to_f8(65536.0f, F8::E5M2, false), 0x7c);     // E5M2 overflow: +inf
  EXPECT_EQ(f32_to_f8(-INFINITY, F8::E5M2, false), 0xfc);
  EXPECT_EQ(f32_to_f8(57344.0f, F8::E5M2Fnuz, false), 0x7f);
  EXPECT_EQ(f32_to_f8(1.125f, F8::E5M2, false), 0x3c);       // 1.125 -> tie between 1.0 and 1.25: even (1.0)
  EXPECT_EQ(f32_to_f8(1.375f, F8::E5M2, false), 0x3e);       // tie between 1.25 and 1.5: even (1.5)
  EXPECT_TRUE(std::isnan(f8_to_double(0x80, F8::E4M3Fnuz)));
  EXPECT_TRUE(std::isnan(f8_to_double(0x7f, F8::E4M3Fn)));
  EXPECT_EQ(f8_to_double(0x7f, F8::E4M3Fnuz), 240.0);
  EXPECT_EQ(f8_to_double(0x01, F8::E5M2Fnuz), 0x1p-17);
  EXPECT_TRUE(std::isinf(f8_to_double(0x7c, F8::E5M2)));
  // Round trip of every finite code.
  for (F8 fmt : {F8::E4M3Fnuz, F8::E5M2Fnuz, F8::E4M3Fn, F8::E5M2})
    for (unsigned c = 0; c < 256; ++c) {
      double v = f8_to_double(static_cast<uint8_t>(c), fmt);
      if (std::isnan(v) || std::isinf(v) || (v == 0 && c == 0x80)) continue;
      EXPECT_EQ(f32_to_f8(static_cast<float>(v), fmt, false), c) << static_cast<int>(fmt) << " code " << c;
    }
}

const char* kBody = R"(
  v_mov_b32 v1, 1.0
  v_mov_b32 v2, -0.5
  v_mov_b32 v3, 0x447a0000        // 1000.0
  v_mov_b32 v4, 0x7fc00000        // NaN
  v_mov_b32 v5, 0x47800000        // 65536.0
  v_mov_b32 v10, 0x12340000
  v_cvt_pk_fp8_f32 v10, v1, v2                 // low word {S1, S0}, high word kept
  v_mov_b32 v11, 0x5678
  v_cvt_pk_fp8_f32 v11, v1, v2 op_sel:[0,0,1]  // high word, low kept
  v_mov_b32 v12, 0
  v_cvt_pk_fp8_f32 v12, v3, v4                 // overflow, NaN
  v_mov_b32 v13, 0
  v_cvt_pk_bf8_f32 v13, v1, v5
  v_mov_b32 v6, 0x40
  v_cvt_f32_fp8 v14, v6
  v_mov_b32 v7, 0x00b80000
  v_cvt_f32_fp8_sdwa v15, v7 src0_sel:BYTE_2
  v_mov_b32 v8, 0x4038
  v_cvt_pk_f32_fp8 v[16:17], v8
)";

TEST(CvtPk, Gfx942Fnuz) {
  auto r = run_snippet("gfx942", kBody, 8);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 8), 0x1234b840u);
    EXPECT_EQ(r.at(l, 1, 8), 0xb8405678u);
    EXPECT_EQ(r.at(l, 2, 8), 0x00008080u);
    EXPECT_EQ(r.at(l, 3, 8), 0x00008040u);
    EXPECT_EQ(r.at(l, 4, 8), f(1.0f));
    EXPECT_EQ(r.at(l, 5, 8), f(-0.5f));
    EXPECT_EQ(r.at(l, 6, 8), f(0.5f));
    EXPECT_EQ(r.at(l, 7, 8), f(1.0f));
  }
}

// Exact midpoints round to the even code (RNE). Products of bf16 inputs and an f32 scale hit them often: these
// are from AITer's fmoe X quantisation (X[2][113] x 99.0968 = -168.0 lies between -160 and -176).
TEST(CvtPk, Gfx942FnuzTiesToEven) {
  auto r = run_snippet("gfx942", R"(
  v_mov_b32 v1, 0xc3280000        // -168.0: -160 (0xfa, m 2) or -176 (0xfb, m 3)
  v_mov_b32 v2, 0x43380000        // 184.0: 176 (0x7b) or 192 (0x7c)
  v_mov_b32 v3, 0x41980000        // 19.0: 18 (0x61) or 20 (0x62)
  v_mov_b32 v4, 0x41d80000        // 27.0: 26 (0x65) or 28 (0x66)
  v_mov_b32 v10, 0
  v_cvt_pk_fp8_f32 v10, v1, v2
  v_cvt_pk_fp8_f32 v10, v3, v4 op_sel:[0,0,1]
)", 1);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 0x66627cfau) << "lane " << l;
}

TEST(CvtPk, Gfx950Ocp) {
  std::string body = std::string(kBody) + R"(
  v_cvt_pk_f16_f32 v18, v1, v2                 // {0x3c00, 0xb800}
  v_mov_b32 v9, 0x3f818000                     // bf16 tie: rounds up to even 0x3f82
  v_cvt_pk_bf16_f32 v19, v9, v2                // {0x3f82, 0xbf00}
)";
  auto r = run_snippet("gfx950", body, 10);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 10), 0x1234b038u);
    EXPECT_EQ(r.at(l, 1, 10), 0xb0385678u);
    EXPECT_EQ(r.at(l, 2, 10), 0x00007f7fu);
    EXPECT_EQ(r.at(l, 3, 10), 0x00007c3cu);
    EXPECT_EQ(r.at(l, 4, 10), f(2.0f));
    EXPECT_EQ(r.at(l, 5, 10), f(-1.0f));
    EXPECT_EQ(r.at(l, 6, 10), f(1.0f));
    EXPECT_EQ(r.at(l, 7, 10), f(2.0f));
    EXPECT_EQ(r.at(l, 8, 10), 0xb8003c00u);
    EXPECT_EQ(r.at(l, 9, 10), 0xbf003f82u);
  }
}

// Triton's per-row fp8 quantization (corpus/triton/kernels/fp8_quant.py): gfx942 FNUZ uses
// v_cvt_pk_fp8_f32; gfx950 FN (OCP) too. Reference transcribed from corpus/triton/reference.py
// (_fp8_quant + fp8_round: RNE, saturating at +-max); tolerance its _FP8 = (atol 2e-3, rtol 0.126),
// one e4m3 ulp: the kernel's x/scale is an f32 division the compiler may lower with v_rcp_f32.
void run_fp8_quant(const std::string& arch, const std::string& kernel, lowp::F8 fmt, double fmax) {
  std::string co_path = corpus::triton_object(arch, kernel);
  if (!std::filesystem::exists(co_path)) GTEST_SKIP() << co_path;
  LaunchSpec spec = load_launch_spec(corpus::triton_spec(kernel));
  std::random_device rd;
  spec.seed = (static_cast<uint64_t>(rd()) << 32) | rd();
  SCOPED_TRACE(fmt::format("seed {}", spec.seed));
  auto co = codeobj::CodeObject::parse(read_file_bytes(co_path), co_path);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  ASSERT_NE(k, nullptr);
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  auto launch = prepare_launch(co, *k, spec, 2);
  auto xb = make_buffer(spec, 0);
  RunOptions ro;
  ro.threads = 2;
  run_launch(*launch, *prog, ro);
  const size_t cols = 1000, rows = xb.size() / 2 / cols;
  std::vector<uint8_t> out;
  std::vector<float> scale;
  for (const auto& b : launch->buffers) {
    auto dev = launch->contents(b);
    if (b.name == "out") out.assign(dev.begin(), dev.begin() + b.bytes);
    if (b.name == "scale") scale.resize(b.bytes / 4), std::memcpy(scale.data(), dev.data(), b.bytes);
  }
  ASSERT_EQ(out.size(), rows * cols);
  ASSERT_EQ(scale.size(), rows);
  unsigned bad = 0;
  for (size_t r = 0; r < rows && bad < 5; ++r) {
    float amax = 0;
    std::vector<float> x(cols);
    for (size_t c = 0; c < cols; ++c) {
      uint16_t h;
      std::memcpy(&h, xb.data() + 2 * (r * cols + c), 2);
      x[c] = static_cast<float>(std::bit_cast<_Float16>(h));
      amax = std::max(amax, std::fabs(x[c]));
    }
    amax = std::max(amax, 1e-12f);
    float sc = amax / static_cast<float>(fmax);
    if (std::fabs(scale[r] - sc) > 1e-6 * std::fabs(sc)) ++bad, ADD_FAILURE() << arch << " scale[" << r << "] " << scale[r] << " vs " << sc;
    for (size_t c = 0; c < cols && bad < 5; ++c) {
      float y = std::clamp(x[c] / sc, static_cast<float>(-fmax), static_cast<float>(fmax));
      double want = lowp::f8_to_double(lowp::f32_to_f8(y, fmt, true), fmt);
      double got = lowp::f8_to_double(out[r * cols + c], fmt);
      if (!(std::fabs(got - want) <= 2e-3 + 0.126 * std::fabs(want))) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {} out[{}]: emulator {} (0x{:02x}) reference {}", arch, kernel, r * cols + c, got,
                                     out[r * cols + c], want);
      }
    }
  }
}

TEST(CvtPkCorpus, TritonFp8QuantFnuzGfx942) { run_fp8_quant("gfx942", "fp8_quant_fnuz_kernel", lowp::F8::E4M3Fnuz, 240.0); }
TEST(CvtPkCorpus, TritonFp8QuantFnGfx942) { run_fp8_quant("gfx942", "fp8_quant_fn_kernel", lowp::F8::E4M3Fn, 448.0); }
TEST(CvtPkCorpus, TritonFp8QuantFnGfx950) { run_fp8_quant("gfx950", "fp8_quant_fn_kernel", lowp::F8::E4M3Fn, 448.0); }

}  // namespace
}  // namespace asmevo::emu::test
