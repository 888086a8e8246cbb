// VOP1/VOP2/VOP3/VOPC and lane operations, with expectations from the ISA pseudo-code.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "support/error.h"
#include "codeobj/target.h"
#include "program/isa_enum.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

uint32_t f(float x) { return std::bit_cast<uint32_t>(x); }

class VArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, VArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(VArchs, IntegerAndCarryChains) {
  auto r = run_snippet(GetParam(), R"(
  v_add_u32_e32 v10, 5, v0                 // lane + 5
  v_mov_b32 v1, -1
  v_add_co_u32_e32 v11, vcc, v1, v0        // 0xffffffff + lane: carry for lane >= 1
  v_addc_co_u32_e64 v12, s[10:11], 0, 0, vcc  // = carry
  v_lshlrev_b32_e32 v13, 4, v0             // lane << 4
  v_ashrrev_i32_e32 v14, 1, v1             // -1 >> 1 = -1
  v_mad_u64_u32 v[4:5], s[4:5], v0, v0, 3  // lane*lane + 3
  v_mov_b32 v15, v4
  v_mov_b32 v3, 0xf0
  v_bfe_u32 v16, v3, 4, 2                  // (0xf0 >> 4) & 3 = 3
  v_cmp_gt_u32_e64 s[6:7], 32, v0          // lanes 0..31
  v_cndmask_b32_e64 v17, 7, 9, s[6:7]      // lane < 32 ? 9 : 7
  v_readlane_b32 s8, v13, 3                // 3 << 4
  v_mov_b32 v18, s8
  v_mbcnt_lo_u32_b32 v19, -1, 0
  v_mbcnt_hi_u32_b32 v19, -1, v19          // lane index
  v_mov_b32 v20, 0
  s_movk_i32 s12, 77
  v_writelane_b32 v20, s12, 5
  v_sub_u32_e32 v21, 10, v0                // 10 - lane
  v_mul_lo_u32 v22, v0, -3
  v_mul_hi_u32 v23, v1, v1                 // (2^32-1)^2 >> 32 = 0xfffffffe
  v_xor_b32_e32 v24, 0x55, v0
)",
                       15);
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned R = 15;
    EXPECT_EQ(r.at(l, 0, R), l + 5);
    EXPECT_EQ(r.at(l, 1, R), l - 1);
    EXPECT_EQ(r.at(l, 2, R), l >= 1 ? 1u : 0u);
    EXPECT_EQ(r.at(l, 3, R), l << 4);
    EXPECT_EQ(r.at(l, 4, R), 0xffffffffu);
    EXPECT_EQ(r.at(l, 5, R), l * l + 3);
    EXPECT_EQ(r.at(l, 6, R), 3u);
    EXPECT_EQ(r.at(l, 7, R), l < 32 ? 9u : 7u);
    EXPECT_EQ(r.at(l, 8, R), 48u);
    EXPECT_EQ(r.at(l, 9, R), l);
    EXPECT_EQ(r.at(l, 10, R), l == 5 ? 77u : 0u);
    EXPECT_EQ(r.at(l, 11, R), 10u - l);
    EXPECT_EQ(r.at(l, 12, R), static_cast<uint32_t>(-3 * static_cast<int>(l)));
    EXPECT_EQ(r.at(l, 13, R), 0xfffffffeu);
    EXPECT_EQ(r.at(l, 14, R), 0x55u ^ l);
  }
}

TEST_P(VArchs, FloatArithmeticModifiersAndConversions) {
  auto r = run_snippet(GetParam(), R"(
  v_cvt_f32_u32_e32 v1, v0                 // float(lane)
  v_add_f32_e32 v10, 0.5, v1               // lane + 0.5
  v_mul_f32_e64 v11, -v1, 2.0              // -2 lane
  v_fma_f32 v12, v1, v1, 1.0               // lane^2 + 1
  v_mov_b32 v13, 1.0
  v_fmac_f32_e32 v13, 4.0, v1              // 1 + 4 lane
  v_add_f32_e64 v14, -|v1|, 0.5 clamp      // clamp(0.5 - lane) -> lane 0: 0.5, else 0
  v_mul_f32_e64 v15, v1, 1.0 mul:2         // omod: 2 lane
  v_cvt_i32_f32_e32 v16, v11               // -2 lane
  v_max_f32_e32 v17, 4.0, v1
  v_cmp_lt_f32_e32 vcc, 2.0, v1            // 2 < lane
  v_mov_b32 v6, 1
  v_cndmask_b32_e32 v18, 0, v6, vcc
  v_cvt_f64_u32_e32 v[2:3], v0
  v_fma_f64 v[4:5], v[2:3], v[2:3], 0.5
  v_cvt_f32_f64_e32 v19, v[4:5]            // lane^2 + 0.5
)",
                       10);
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned R = 10;
    float x = static_cast<float>(l);
    EXPECT_EQ(r.at(l, 0, R), f(x + 0.5f)) << l;
    EXPECT_EQ(r.at(l, 1, R), f(-2 * x)) << l;
    EXPECT_EQ(r.at(l, 2, R), f(x * x + 1)) << l;
    EXPECT_EQ(r.at(l, 3, R), f(1 + 4 * x)) << l;
    EXPECT_EQ(r.at(l, 4, R), f(l == 0 ? 0.5f : 0.0f)) << l;
    EXPECT_EQ(r.at(l, 5, R), f(2 * x)) << l;
    EXPECT_EQ(r.at(l, 6, R), static_cast<uint32_t>(-2 * static_cast<int>(l))) << l;
    EXPECT_EQ(r.at(l, 7, R), f(std::max(4.0f, x))) << l;
    EXPECT_EQ(r.at(l, 8, R), l > 2 ? 1u : 0u) << l;
    EXPECT_EQ(r.at(l, 9, R), f(x * x + 0.5f)) << l;
  }
}

// Two zeros are ordered -0 < +0 by v_max/v_min/v_med3, whichever operand comes first (AMD RDNA3.5
// ISA guide 16.12, V_MAX_F32/V_MIN_F32 pseudocode GT_NEG_ZERO/LT_NEG_ZERO; the RDNA2 guide's
// V_MAX_F32 text; LLVM PR 201896: "v_med3_f32 sorts with -0 < +0 uniformly across all generations").
// std::fmax/fmin leave the pair to the C library, which returns an operand by position.
TEST_P(VArchs, MinMaxOrderZerosMinusBeforePlus) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0x80000000                 // -0
  v_mov_b32 v2, 0                          // +0
  v_max_f32_e32 v10, v1, v2
  v_max_f32_e32 v11, v2, v1
  v_min_f32_e32 v12, v1, v2
  v_min_f32_e32 v13, v2, v1
  v_max3_f32 v14, v1, v1, v2
  v_min3_f32 v15, v2, v2, v1
  v_med3_f32 v16, v1, v2, v2               // sorted -0, +0, +0: the middle is +0
  v_med3_f32 v17, v2, v1, v1               // sorted -0, -0, +0: -0
  v_mov_b32 v3, 0x8000                     // f16 -0
  v_mov_b32 v4, 0
  v_max_f16_e32 v18, v3, v4
  v_min_f16_e32 v19, v4, v3
)",
                       10);
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned R = 10;
    EXPECT_EQ(r.at(l, 0, R), 0u) << l;
    EXPECT_EQ(r.at(l, 1, R), 0u) << l;
    EXPECT_EQ(r.at(l, 2, R), 0x80000000u) << l;
    EXPECT_EQ(r.at(l, 3, R), 0x80000000u) << l;
    EXPECT_EQ(r.at(l, 4, R), 0u) << l;
    EXPECT_EQ(r.at(l, 5, R), 0x80000000u) << l;
    EXPECT_EQ(r.at(l, 6, R), 0u) << l;
    EXPECT_EQ(r.at(l, 7, R), 0x80000000u) << l;
    EXPECT_EQ(r.at(l, 8, R) & 0xffffu, 0u) << l;
    EXPECT_EQ(r.at(l, 9, R) & 0xffffu, 0x8000u) << l;
  }
}

TEST(EmuVector, ExecMaskingLeavesInactiveLanes) {
  auto r = run_snippet("gfx942", R"(
  v_mov_b32 v10, 3
  s_mov_b64 exec, 0xff
  v_mov_b32 v10, 4
  v_cmp_eq_u32_e32 vcc, v0, v0             // inactive lanes -> 0 in VCC
  s_mov_b64 s[4:5], vcc
  s_mov_b64 exec, -1
  v_mov_b32 v11, s4
  v_mov_b32 v12, s5
)",
                       3);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 3), l < 8 ? 4u : 3u);
    EXPECT_EQ(r.at(l, 1, 3), 0xffu);
    EXPECT_EQ(r.at(l, 2, 3), 0u);
  }
}

TEST(EmuVector, PartialWaveHasOnlyLiveLanes) {
  // A 40-work-item workgroup: one wave with EXEC = lanes 0..39 at entry.
  auto r = run_snippet("gfx942", R"(
  s_mov_b64 s[4:5], exec
  v_mov_b32 v10, s4
  v_mov_b32 v11, s5
)",
                       2, 40);
  EXPECT_EQ(r.at(0, 0, 2), 0xffffffffu);
  EXPECT_EQ(r.at(0, 1, 2), 0xffu);
}

}  // namespace
}  // namespace asmevo::emu::test

// Integer clamp (saturation) is not modelled by the framework's output modifiers: it must be a
// loud pre-decode error, never a silent wrap-around.
TEST(EmuUnsupported, IntegerClampIsRefusedNotIgnored) {
  try {
    asmevo::emu::test::run_snippet("gfx942", "  v_add_u32_e64 v10, v0, v0 clamp\n", 1);
    FAIL() << "expected an error";
  } catch (const asmevo::Error& e) {
    EXPECT_NE(std::string(e.what()).find("clamp (integer saturation) on v_add_u32_e64"), std::string::npos) << e.what();
  }
}

// The ISA enumeration finds the instructions the corpus uses and the emulator covers most of them.
TEST(EmuCoverage, IsaEnumerationIncludesCommonInstructions) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    auto m = asmevo::program::decodable_mnemonics(*asmevo::codeobj::parse_target_id(arch));
    for (const char* want : {"v_add_f32_e32", "s_load_dword", "ds_read_b128", "global_load_dword", "buffer_load_dword",
                             "v_mfma_f32_32x32x8f16", "v_pk_fma_f32", "s_waitcnt", "v_cmp_lt_f32_e32"}) {
      bool found = m.count(want) || m.count(std::string(want).substr(0, std::string(want).rfind('_')));
      if (std::string(want) == "v_mfma_f32_32x32x8f16" && std::string(arch) != "gfx90a") found = m.count("v_mfma_f32_32x32x8_f16");
      EXPECT_TRUE(found) << arch << " " << want;
    }
    EXPECT_GT(m.size(), 900u) << arch;
  }
}
