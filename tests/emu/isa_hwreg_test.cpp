// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 (emu/semantics/hwreg.cpp): MODE round trips
// and their effect on later instructions, refused mode changes, STATUS / HW_ID values.
// The snippet's KD (assembler defaults) gives MODE = FP_DENORM 0xc (f32 flushed, f16/f64 kept) |
// DX10_CLAMP | IEEE = 0x3c0.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

const char* kArchs[] = {"gfx90a", "gfx942", "gfx950"};

TEST(EmuHwreg, ModeRoundTrip) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, R"(
  s_getreg_b32 s4, hwreg(HW_REG_MODE)
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1
  s_getreg_b32 s5, hwreg(HW_REG_MODE, 23, 1)
  s_getreg_b32 s6, hwreg(HW_REG_MODE)
  s_getreg_b32 s7, hwreg(HW_REG_MODE, 4, 4)
  s_mov_b32 s8, 0
  s_setreg_b32 hwreg(HW_REG_MODE, 23, 1), s8
  s_getreg_b32 s9, hwreg(HW_REG_MODE)
  v_mov_b32 v10, s4
  v_mov_b32 v11, s5
  v_mov_b32 v12, s6
  v_mov_b32 v13, s7
  v_mov_b32 v14, s9
)",
                         5);
    EXPECT_EQ(r.at(0, 0, 5), 0x3c0u) << arch;
    EXPECT_EQ(r.at(0, 1, 5), 1u) << arch;
    EXPECT_EQ(r.at(0, 2, 5), 0x3c0u | (1u << 23)) << arch;
    EXPECT_EQ(r.at(0, 3, 5), 0xcu) << arch;
    EXPECT_EQ(r.at(0, 4, 5), 0x3c0u) << arch;
  }
}

TEST(EmuHwreg, DenormModeChangeTakesEffect) {
  // 2^-126 * 0.5 is an f32 denormal (0x00400000): flushed with the KD's FP_DENORM f32 = 0, kept
  // after s_setreg writes 3 to MODE[5:4], flushed again after restoring the saved MODE.
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, R"(
  v_mov_b32 v1, 0x800000
  v_mul_f32_e32 v10, 0.5, v1
  s_getreg_b32 s4, hwreg(HW_REG_MODE)
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
  v_mul_f32_e32 v11, 0.5, v1
  s_setreg_b32 hwreg(HW_REG_MODE), s4
  v_mul_f32_e32 v12, 0.5, v1
)",
                         3);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 3), 0u) << arch;
      EXPECT_EQ(r.at(l, 1, 3), 0x400000u) << arch;
      EXPECT_EQ(r.at(l, 2, 3), 0u) << arch;
    }
  }
}

TEST(EmuHwreg, UnimplementedModeChangesAreRefused) {
  std::string msg = expect_error("gfx942", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\n");
  EXPECT_NE(msg.find("FP_ROUND"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not implement"), std::string::npos) << msg;
  EXPECT_NE(msg.find("s_setreg_imm32_b32"), std::string::npos) << msg;
  msg = expect_error("gfx90a", "  s_mov_b32 s4, 1\n  s_setreg_b32 hwreg(HW_REG_MODE, 2, 2), s4\n");
  EXPECT_NE(msg.find("FP_ROUND f16/f64"), std::string::npos) << msg;
  msg = expect_error("gfx950", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\n");
  EXPECT_NE(msg.find("FP_DENORM f16/f64"), std::string::npos) << msg;
  msg = expect_error("gfx942", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 12, 7), 1\n");
  EXPECT_NE(msg.find("EXCP_EN"), std::string::npos) << msg;
  msg = expect_error("gfx942", "  s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 1), 1\n");
  EXPECT_NE(msg.find("only HW_REG_MODE is writable"), std::string::npos) << msg;
  msg = expect_error("gfx942", "  s_getreg_b32 s4, hwreg(HW_REG_LDS_ALLOC)\n");
  EXPECT_NE(msg.find("not modelled"), std::string::npos) << msg;
  // Writing back the same (round-to-nearest-even) value is fine.
  auto ok = run_snippet("gfx942", "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0\n  v_mov_b32 v10, 1\n", 1);
  EXPECT_EQ(ok.at(0, 0, 1), 1u);
}

TEST(EmuHwreg, StatusAndHwIdAreDeterministic) {
  for (const char* arch : kArchs) {
    // Four waves: SIMD_ID = wave % 4, WAVE_ID = wave / 4, everything else 0.
    auto r = run_snippet(arch, R"(
  s_getreg_b32 s4, hwreg(HW_REG_HW_ID)
  s_mov_b64 vcc, 1
  s_cmp_eq_u32 0, 0
  s_getreg_b32 s5, hwreg(HW_REG_STATUS)
  s_getreg_b32 s6, hwreg(HW_REG_TRAPSTS)
  v_mov_b32 v10, s4
  v_mov_b32 v11, s5
  v_mov_b32 v12, s6
)",
                         3, 256);
    for (unsigned t = 0; t < 256; t += 17) {
      EXPECT_EQ(r.at(t, 0, 3), ((t / 64) % 4) << 4) << arch << " thread " << t;
      EXPECT_EQ(r.at(t, 1, 3), 0x10001u) << arch;  // SCC, VALID; EXECZ = VCCZ = 0
      EXPECT_EQ(r.at(t, 2, 3), 0u) << arch;
    }
  }
  auto x = run_snippet("gfx942", "  s_getreg_b32 s4, hwreg(HW_REG_XCC_ID)\n  v_mov_b32 v10, s4\n", 1);
  EXPECT_EQ(x.at(5, 0, 1), 0u);
}

}  // namespace
}  // namespace asmevo::emu::test
