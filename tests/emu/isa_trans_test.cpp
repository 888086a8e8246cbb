// Transcendental and division-helper units (emu/semantics/trans.cpp): exact points and special
// values from the ISA guide, error bounds on random inputs against the C library, and IEEE division
// through the exact v_div_scale / v_rcp / FMA / v_div_fmas / v_div_fixup sequence LLVM 22 emits for
// `a / b` (llc-22 -mcpu=gfx942 on `fdiv float` / `fdiv double`), which must be correctly rounded for
// every input, including NaN, inf, zeros, denormals and quotients that over- or underflow.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <random>
#include <vector>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

uint32_t fb(float f) { return std::bit_cast<uint32_t>(f); }
float bf(uint32_t u) { return std::bit_cast<float>(u); }

// Code that sets v<reg> of lane l to vals[l] (v_writelane_b32 from an SGPR).
std::string set_lanes(unsigned reg, const uint32_t* vals) {
  std::string s;
  for (unsigned l = 0; l < 64; ++l) s += fmt::format("  s_mov_b32 s40, 0x{:x}\n  v_writelane_b32 v{}, s40, {}\n", vals[l], reg, l);
  return s;
}

// For k in [0, R): v1 = a[k*64 + lane], v2 = b[k*64 + lane], then `body` with {d} = 10 + k.
std::vector<uint32_t> run_lanes(const std::string& arch, const std::string& body, const std::vector<uint32_t>& a,
                                const std::vector<uint32_t>& b, unsigned R) {
  std::string code;
  for (unsigned k = 0; k < R; ++k) {
    code += set_lanes(1, a.data() + 64 * k);
    if (!b.empty()) code += set_lanes(2, b.data() + 64 * k);
    code += fmt::format(fmt::runtime(body), fmt::arg("d", 10 + k));
  }
  auto r = run_snippet(arch, code, R);
  std::vector<uint32_t> out(64 * R);
  for (unsigned k = 0; k < R; ++k)
    for (unsigned l = 0; l < 64; ++l) out[64 * k + l] = r.at(l, k, R);
  return out;
}

bool same_float(uint32_t got, float want) {
  if (std::isnan(want)) return std::isnan(bf(got));
  return got == fb(want);
}

// |got - want| in units of the last place of want (float).
double ulp_error(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return got == static_cast<float>(want) ? 0 : 1e9;
  float w = static_cast<float>(want);
  double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  if (std::fabs(w) < std::numeric_limits<float>::min()) ulp = std::numeric_limits<float>::denorm_min();
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

TEST(EmuTrans, ExactPointsAndSpecialValues) {
  for (std::string arch : {"gfx90a", "gfx942", "gfx950"}) {
    auto r = run_snippet(arch, R"(
  v_exp_f32_e32 v10, 0
  v_exp_f32_e32 v11, -1.0
  v_log_f32_e32 v12, 1.0
  v_log_f32_e32 v13, 4.0
  v_rcp_f32_e32 v14, 2.0
  v_sqrt_f32_e32 v15, 4.0
  v_rsq_f32_e32 v16, 4.0
  v_sin_f32_e32 v17, 0x3e800000          // sin(0.25 * 2pi) = 1
  v_cos_f32_e32 v18, 0.5                 // cos(pi) = -1
  v_rcp_f32_e32 v19, 0
  v_rcp_f32_e32 v20, 0x80000000          // rcp(-0) = -inf
  v_rsq_f32_e32 v21, -1.0                // NaN
  v_log_f32_e32 v22, -1.0                // NaN
  v_log_f32_e32 v23, 0                   // -inf
  v_exp_f32_e32 v24, 0xff800000          // exp(-inf) = 0
  v_exp_f32_e32 v25, 0x7f800000          // exp(+inf) = +inf
  v_sqrt_f32_e32 v26, 1                  // denormal input flushed: 0
  v_rcp_f32_e32 v27, 0x7f000000          // 2^-127 is denormal: flushed to 0
  v_frexp_mant_f32_e32 v28, 0x41400000   // 12 = 0.75 * 2^4
  v_frexp_exp_i32_f32_e32 v29, 0x41400000
  v_rcp_f16_e32 v30, 2.0
  v_exp_f16_e32 v31, 1.0
  v_sqrt_f16_e32 v32, 4.0
  v_log_f16_e32 v33, 2.0
  v_rcp_f64_e32 v[34:35], 2.0
  v_sqrt_f64_e32 v[36:37], 4.0
  v_rsq_f64_e32 v[38:39], 4.0
  v_rsq_f32_e32 v40, 0x80000000          // rsq(-0) = -inf
  v_sqrt_f32_e32 v41, -1.0               // NaN
  v_frexp_exp_i32_f32_e32 v42, 0x7f800000 // inf: exponent 0
  v_frexp_mant_f32_e32 v43, 0xff800000   // -inf: mantissa = input
  v_fract_f64_e32 v[44:45], -0.5          // 0.5
  v_cos_f32_e32 v46, 0x4b800001          // 2^24 + 2 revolutions: cos = 1
  v_ldexp_f16_e64 v47, 1.0, 3             // 8.0
  v_mov_b32 v48, v14
  v_mov_b32 v49, v15
)",
                         40);
    const unsigned R = 40;
    const float inf = std::numeric_limits<float>::infinity();
    float want[] = {1, 0.5f, 0, 2, 0.5f, 2, 0.5f, 1, -1, inf, -inf, NAN, NAN, -inf, 0, inf, 0, 0, 0.75f};
    for (unsigned l = 0; l < 64; l += 21) {
      for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); ++k)
        EXPECT_TRUE(same_float(r.at(l, k, R), want[k])) << arch << " result v" << 10 + k << " = 0x" << std::hex << r.at(l, k, R);
      EXPECT_EQ(r.at(l, 19, R), 4u) << arch;
      EXPECT_EQ(r.at(l, 20, R), 0x3800u) << arch;  // f16 results: low half, high half zero
      EXPECT_EQ(r.at(l, 21, R), 0x4000u) << arch;
      EXPECT_EQ(r.at(l, 22, R), 0x4000u) << arch;
      EXPECT_EQ(r.at(l, 23, R), 0x3c00u) << arch;
      EXPECT_EQ(r.at(l, 24, R), 0u) << arch;
      EXPECT_EQ(r.at(l, 25, R), 0x3fe00000u) << arch;  // 0.5
      EXPECT_EQ(r.at(l, 26, R), 0u) << arch;
      EXPECT_EQ(r.at(l, 27, R), 0x40000000u) << arch;  // 2.0
      EXPECT_EQ(r.at(l, 28, R), 0u) << arch;
      EXPECT_EQ(r.at(l, 29, R), 0x3fe00000u) << arch;  // 0.5
      EXPECT_EQ(r.at(l, 30, R), fb(-inf)) << arch;
      EXPECT_TRUE(std::isnan(bf(r.at(l, 31, R)))) << arch;
      EXPECT_EQ(r.at(l, 32, R), 0u) << arch;
      EXPECT_EQ(r.at(l, 33, R), fb(-inf)) << arch;
      EXPECT_EQ(r.at(l, 34, R), 0u) << arch;
      EXPECT_EQ(r.at(l, 35, R), 0x3fe00000u) << arch;
      EXPECT_EQ(r.at(l, 36, R), fb(1.0f)) << arch;
      EXPECT_EQ(r.at(l, 37, R), 0x4800u) << arch;
    }
  }
}

// Per-lane random inputs: f32 results within 1 ULP of the correctly rounded value (the ISA's bound);
// the f32 units flush denormal results (checked against the flushed reference).
TEST(EmuTrans, RandomInputsWithinDocumentedError) {
  std::mt19937 rng(12345);
  struct Op {
    const char* name;
    double (*ref)(double);
    uint32_t lo, hi;  // input bit range (positive floats, plus sign flips below when allowed)
    bool neg_ok;
  };
  const Op ops[] = {
      {"v_exp_f32", [](double x) { return std::exp2(x); }, fb(1e-3f), fb(126.0f), true},
      {"v_log_f32", [](double x) { return std::log2(x); }, fb(1.2e-38f), fb(3e38f), false},
      {"v_rcp_f32", [](double x) { return 1.0 / x; }, fb(1.2e-38f), fb(8e37f), true},
      {"v_rsq_f32", [](double x) { return 1.0 / std::sqrt(x); }, fb(1.2e-38f), fb(3e38f), false},
      {"v_sqrt_f32", [](double x) { return std::sqrt(x); }, fb(1.2e-38f), fb(3e38f), false},
      {"v_sin_f32", [](double x) { return std::sin(2 * M_PI * (x - std::nearbyint(x))); }, fb(1e-3f), fb(200.0f), true},
      {"v_cos_f32", [](double x) { return std::cos(2 * M_PI * (x - std::nearbyint(x))); }, fb(1e-3f), fb(200.0f), true},
  };
  const unsigned R = 4;
  for (const auto& op : ops) {
    std::vector<uint32_t> in(64 * R);
    std::uniform_int_distribution<uint32_t> d(op.lo, op.hi);
    for (auto& x : in) x = d(rng) | ((op.neg_ok && (rng() & 1)) ? 0x80000000u : 0);
    auto out = run_lanes("gfx942", std::string("  ") + op.name + "_e32 v{d}, v1\n", in, {}, R);
    double worst = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      double want = op.ref(static_cast<double>(bf(in[i])));
      if (std::fabs(want) < std::numeric_limits<float>::min()) want = std::copysign(0.0, want);  // flushed
      double e = ulp_error(bf(out[i]), want);
      worst = std::max(worst, e);
      EXPECT_LE(e, 1.0) << op.name << "(" << bf(in[i]) << ") = " << bf(out[i]) << ", want " << want;
    }
    // sin/cos of values near a zero of the function are absolute-accuracy only; still 1 ULP here
    // because the reduction is exact.
    SCOPED_TRACE(fmt::format("{} worst {} ulp", op.name, worst));
  }
}

// run_snippet's kernel flushes f32 denormals (.amdhsa_float_denorm_mode_32 defaults to 0); HIP
// kernels run with denormals on, and llc-22 emits the sequence below for that mode. Switch MODE's
// FP_DENORM field (bits 7:4) to "keep all" first.
const char* kDenormOn = "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xf\n";

// The sequence llc-22 -mcpu=gfx942 emits for `fdiv float %a, %b` (a = v1, b = v2).
const char* kDivF32 = R"(
  v_div_scale_f32 v3, s[4:5], v2, v2, v1
  v_rcp_f32_e32 v4, v3
  v_div_scale_f32 v5, vcc, v1, v2, v1
  v_fma_f32 v6, -v3, v4, 1.0
  v_fmac_f32_e32 v4, v6, v4
  v_mul_f32_e32 v6, v5, v4
  v_fma_f32 v7, -v3, v6, v5
  v_fmac_f32_e32 v6, v7, v4
  v_fma_f32 v3, -v3, v6, v5
  v_div_fmas_f32 v3, v3, v4, v6
  v_div_fixup_f32 v{d}, v3, v2, v1
)";

void check_division(const std::string& arch, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  const unsigned R = static_cast<unsigned>(a.size() / 64);
  auto out = run_lanes(arch, std::string(kDenormOn) + kDivF32, a, b, R);
  unsigned bad = 0;
  for (size_t i = 0; i < a.size() && bad < 10; ++i) {
    float want = bf(a[i]) / bf(b[i]);
    if (!same_float(out[i], want)) {
      ++bad;
      ADD_FAILURE() << fmt::format("{}: {:a} / {:a} (0x{:08x} / 0x{:08x}) = {:a} (0x{:08x}), IEEE {:a}", arch, bf(a[i]),
                                   bf(b[i]), a[i], b[i], bf(out[i]), out[i], want);
    }
  }
}

TEST(EmuTrans, DivisionSequenceSpecialValues) {
  const uint32_t sp[] = {0x00000000, 0x80000000, fb(1.0f), fb(-1.0f), 0x7f800000, 0xff800000, 0x7fc00000,
                         0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, fb(3.0f),  fb(1.5f * 0x1p-126f),
                         fb(0x1p100f), fb(0x1p-100f), fb(-7.0f)};
  const unsigned n = sizeof(sp) / sizeof(sp[0]);
  std::vector<uint32_t> a, b;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) a.push_back(sp[i]), b.push_back(sp[j]);
  a.resize(256, fb(1.0f)), b.resize(256, fb(3.0f));
  check_division("gfx942", a, b);
  check_division("gfx90a", a, b);
}

TEST(EmuTrans, DivisionSequenceRandomAndScalingCases) {
  std::mt19937 rng(777);
  std::vector<uint32_t> a, b;
  for (unsigned i = 0; i < 64 * 8; ++i) {
    switch (i % 4) {
      case 0: a.push_back(rng()), b.push_back(rng()); break;  // any bits: NaN, inf, denormals, huge ratios
      case 1: {  // ordinary magnitudes
        std::uniform_real_distribution<float> d(-100, 100);
        a.push_back(fb(d(rng))), b.push_back(fb(d(rng)));
        break;
      }
      case 2: a.push_back(rng() | 0x7e000000u), b.push_back(rng() & 0x81ffffffu); break;  // quotient overflows / near max
      case 3: a.push_back(rng() & 0x80ffffffu), b.push_back(rng() | 0x7e000000u); break;  // quotient denormal / underflows
    }
  }
  check_division("gfx942", a, b);
}

TEST(EmuTrans, DivisionSequenceF64) {
  // llc-22 -mcpu=gfx942 on `fdiv double %a, %b`; a = v[20:21], b = v[22:23].
  std::mt19937_64 rng(99);
  std::vector<double> a, b;
  const double sp[] = {0.0, -0.0, 1.0, -3.0, INFINITY, -INFINITY, NAN, 0x1p-1074, 0x1p-1022, 0x1p1000, 0x1p-1000, 7.0};
  for (double x : sp)
    for (double y : sp) a.push_back(x), b.push_back(y);
  while (a.size() < 64 * 4) {
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    a.push_back(d(rng)), b.push_back(d(rng));
  }
  a.resize(64 * 4), b.resize(64 * 4);
  const unsigned R = 4;
  std::string code = kDenormOn;
  for (unsigned k = 0; k < R; ++k) {
    uint32_t alo[64], ahi[64], blo[64], bhi[64];
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t x = std::bit_cast<uint64_t>(a[64 * k + l]), y = std::bit_cast<uint64_t>(b[64 * k + l]);
      alo[l] = static_cast<uint32_t>(x), ahi[l] = static_cast<uint32_t>(x >> 32);
      blo[l] = static_cast<uint32_t>(y), bhi[l] = static_cast<uint32_t>(y >> 32);
    }
    code += set_lanes(20, alo) + set_lanes(21, ahi) + set_lanes(22, blo) + set_lanes(23, bhi);
    code += fmt::format(R"(
  v_div_scale_f64 v[2:3], s[4:5], v[22:23], v[22:23], v[20:21]
  v_rcp_f64_e32 v[4:5], v[2:3]
  v_div_scale_f64 v[6:7], vcc, v[20:21], v[22:23], v[20:21]
  v_fma_f64 v[8:9], -v[2:3], v[4:5], 1.0
  v_fmac_f64_e32 v[4:5], v[4:5], v[8:9]
  v_fma_f64 v[8:9], -v[2:3], v[4:5], 1.0
  v_fmac_f64_e32 v[4:5], v[4:5], v[8:9]
  v_mul_f64 v[8:9], v[6:7], v[4:5]
  v_fma_f64 v[2:3], -v[2:3], v[8:9], v[6:7]
  v_div_fmas_f64 v[2:3], v[2:3], v[4:5], v[8:9]
  v_div_fixup_f64 v[{0}:{1}], v[2:3], v[22:23], v[20:21]
)",
                        10 + 2 * k, 11 + 2 * k);
  }
  auto r = run_snippet("gfx942", code, 2 * R);
  for (unsigned k = 0; k < R; ++k)
    for (unsigned l = 0; l < 64; ++l) {
      uint64_t got = r.at(l, 2 * k, 2 * R) | static_cast<uint64_t>(r.at(l, 2 * k + 1, 2 * R)) << 32;
      double want = a[64 * k + l] / b[64 * k + l];
      double g = std::bit_cast<double>(got);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(g)) << a[64 * k + l] << " / " << b[64 * k + l];
      else EXPECT_EQ(got, std::bit_cast<uint64_t>(want)) << a[64 * k + l] << " / " << b[64 * k + l] << " = " << g;
    }
}

}  // namespace
}  // namespace asmevo::emu::test
