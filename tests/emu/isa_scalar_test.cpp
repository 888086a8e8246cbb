// SOP1/SOP2/SOPK/SOPC/SOPP and SMEM, with expectations computed by hand from the ISA pseudo-code.
// Scalar results are copied to v10.. with v_mov_b32 so the epilogue stores them.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class Archs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, Archs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(Archs, ScalarArithmeticAndScc) {
  auto r = run_snippet(GetParam(), R"(
  s_mov_b32 s4, 0xffffffff
  s_add_u32 s5, s4, 2          // 0xffffffff + 2 = 1, carry -> SCC = 1
  s_addc_u32 s6, 0, 0          // 0 + 0 + SCC = 1
  s_sub_u32 s7, 3, 5           // 0xfffffffe, borrow
  s_cselect_b32 s8, 7, 9       // SCC (borrow) = 1 -> 7
  s_mul_i32 s9, -3, 7          // -21
  s_lshl_b32 s10, 1, 33        // shift amount 33 & 31 = 1 -> 2
  s_ashr_i32 s11, -16, 2       // -4
  s_mov_b32 s12, 0x80004
  s_bfe_u32 s12, 0x12345678, s12       // offset 4, width 8 -> 0x67
  s_movk_i32 s13, 0xfffe       // sign-extended: -2
  s_cmp_lt_i32 -1, 0           // SCC = 1
  s_cselect_b32 s14, 1, 0
  s_cmpk_eq_u32 s13, 0xfffe    // zero-extended K: 0xfffffffe != 0x0000fffe -> SCC = 0
  s_cselect_b32 s15, 1, 0
  s_andn2_b32 s16, 0xff, 0x0f  // 0xf0
  s_not_b32 s17, 0             // 0xffffffff
  s_ff1_i32_b32 s18, 0x80      // 7
  s_bcnt1_i32_b32 s19, 0xf0f   // 8
  v_mov_b32 v10, s5
  v_mov_b32 v11, s6
  v_mov_b32 v12, s7
  v_mov_b32 v13, s8
  v_mov_b32 v14, s9
  v_mov_b32 v15, s10
  v_mov_b32 v16, s11
  v_mov_b32 v17, s12
  v_mov_b32 v18, s13
  v_mov_b32 v19, s14
  v_mov_b32 v20, s15
  v_mov_b32 v21, s16
  v_mov_b32 v22, s17
  v_mov_b32 v23, s18
  v_mov_b32 v24, s19
)",
                       15);
  const uint32_t want[] = {1, 1, 0xfffffffe, 7, static_cast<uint32_t>(-21), 2, static_cast<uint32_t>(-4), 0x67,
                           0xfffffffe, 1, 0, 0xf0, 0xffffffff, 7, 8};
  for (unsigned lane : {0u, 37u, 63u})
    for (unsigned k = 0; k < 15; ++k) EXPECT_EQ(r.at(lane, k, 15), want[k]) << "result " << k << " lane " << lane;
}

TEST_P(Archs, SaveexecBranchesAndLoops) {
  // Lanes < 10 take the "then" side; a scalar loop counts to 5 with s_cbranch_scc1.
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, 100
  v_cmp_gt_u32_e32 vcc, 10, v0
  s_and_saveexec_b64 s[4:5], vcc
  s_cbranch_execz .Lskip
  v_mov_b32 v10, 1
.Lskip:
  s_or_b64 exec, exec, s[4:5]
  s_mov_b32 s6, 0
.Lloop:
  s_add_u32 s6, s6, 1
  s_cmp_lt_u32 s6, 5
  s_cbranch_scc1 .Lloop
  v_mov_b32 v11, s6
  s_getpc_b64 s[8:9]
.Lafter_getpc:
  s_add_u32 s8, s8, .Lret-.Lafter_getpc
  s_addc_u32 s9, s9, 0
  s_setpc_b64 s[8:9]
  v_mov_b32 v11, 999
.Lret:
  v_mov_b32 v12, 1
)",
                       3);
  for (unsigned lane = 0; lane < 64; ++lane) {
    EXPECT_EQ(r.at(lane, 0, 3), lane < 10 ? 1u : 100u) << lane;
    EXPECT_EQ(r.at(lane, 1, 3), 5u);
    EXPECT_EQ(r.at(lane, 2, 3), 1u);
  }
}

TEST_P(Archs, ScalarLoadsWaitForLgkmcnt) {
  // s[2:3] holds the output pointer; load our own kernarg back and compare (high half is nonzero).
  auto r = run_snippet(GetParam(), R"(
  s_load_dword s4, s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v10, s7
  s_xor_b32 s8, s4, s2
  v_mov_b32 v11, s8
  s_xor_b32 s8, s7, s3
  v_mov_b32 v12, s8
)",
                       3);
  EXPECT_NE(r.at(5, 0, 3), 0u);
  EXPECT_EQ(r.at(5, 1, 3), 0u);
  EXPECT_EQ(r.at(5, 2, 3), 0u);
}

TEST(EmuScalar, UnsupportedInstructionFailsAtPredecode) {
  try {
    run_snippet("gfx942", "  s_rfe_b64 s[4:5]\n", 1);  // trap-handler return: unsupported (docs/emulator.md)
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.what_text().find("unsupported instruction s_rfe_b64"), std::string::npos) << e.format();
    EXPECT_NE(e.what_text().find("in kernel k"), std::string::npos) << e.format();
  }
}

}  // namespace
}  // namespace asmevo::emu::test
