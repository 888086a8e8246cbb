// Units added for issue 15 (AITer's mnemonics and ISA coverage), with expectations computed by hand
// from the ISA pseudo-code: scalar stores/atomics (smem_write.cpp), GPR indexing (gpr_idx.cpp),
// s_setvskip (vskip.cpp), v_add_i32/v_sub_i32, v_nop, v_cvt_off_f32_i4, v_cvt_f32_bf16, packed
// buffer atomics, the extra SALU ops (sop_more.cpp). Scalar results are copied to v10.. for the epilogue.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class Issue15Archs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, Issue15Archs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

float f(uint32_t b) { return std::bit_cast<float>(b); }

TEST_P(Issue15Archs, AccvgprReadOfA16) {  // the issue's decode bug: "a16" is a register here, not MIMG's flag
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 77
  v_accvgpr_write_b32 a16, v1
  v_accvgpr_read_b32 v10, a16
)", 1, 64, 32);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 77u);
}

TEST_P(Issue15Archs, SignedAddSubNopAndConversions) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0x7fffffff
  v_add_i32 v10, v1, 1            // wraps: 0x80000000 (no clamp)
  v_sub_i32 v11, 5, 7             // -2
  v_nop
  v_mov_b32 v2, 0x9                // i4 -7 -> -7/16
  v_cvt_off_f32_i4 v12, v2
  v_mov_b32 v2, 0x7                // 7/16
  v_cvt_off_f32_i4 v13, v2
)", 4);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 4), 0x80000000u);
    EXPECT_EQ(r.at(l, 1, 4), 0xfffffffeu);
    EXPECT_EQ(f(r.at(l, 2, 4)), -0.4375f);
    EXPECT_EQ(f(r.at(l, 3, 4)), 0.4375f);
  }
  EXPECT_NE(expect_error(GetParam(), "  v_add_i32 v10, v1, 1 clamp\n").find("clamp"), std::string::npos);
}

TEST(EmuIssue15, CvtF32Bf16) {
  auto r = run_snippet("gfx950", R"(
  v_mov_b32 v1, 0xc0493f80        // low half 0x3f80 = 1.0, high half 0xc049 = -3.140625
  v_cvt_f32_bf16 v10, v1
  v_cvt_f32_bf16_sdwa v11, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
)", 2);
  EXPECT_EQ(f(r.at(3, 0, 2)), 1.0f);
  EXPECT_EQ(f(r.at(3, 1, 2)), -3.140625f);
}

TEST_P(Issue15Archs, ScalarStoreAndAtomics) {
  // The scalar target is dword 0x3f0 of the results buffer (lane 63's slot, which the epilogue overwrites
  // afterwards), so values are checked through SGPRs copied to v10..
  auto r = run_snippet(GetParam(), R"(
  s_mov_b32 s4, 41
  s_store_dword s4, s[2:3], 0x3f0 glc
  s_waitcnt lgkmcnt(0)
  s_load_dword s5, s[2:3], 0x3f0 glc
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s6, 100
  s_atomic_inc s6, s[2:3], 0x3f0 glc   // old 41 -> s6; mem = 42
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s7, 0
  s_atomic_dec s7, s[2:3], 0x3f0 glc   // mem 42 > data 0: mem = 0; old 42 -> s7
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, 5
  s_atomic_add s8, s[2:3], 0x3f0       // no glc: s8 keeps 5; mem = 5
  s_waitcnt lgkmcnt(0)
  s_load_dword s9, s[2:3], 0x3f0 glc
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v10, s5
  v_mov_b32 v11, s6
  v_mov_b32 v12, s7
  v_mov_b32 v13, s9
)", 4);
  EXPECT_EQ(r.at(0, 0, 4), 41u);
  EXPECT_EQ(r.at(0, 1, 4), 41u);
  EXPECT_EQ(r.at(0, 2, 4), 42u);
  EXPECT_EQ(r.at(0, 3, 4), 5u);
}

TEST_P(Issue15Archs, CacheControlAndProbesMoveNoData) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, 5
  s_dcache_wb_vol
  s_dcache_inv_vol
  s_atc_probe 0, s[2:3], 0x0
  s_waitcnt lgkmcnt(0)
)", 1);
  EXPECT_EQ(r.at(0, 0, 1), 5u);
}

TEST_P(Issue15Archs, GprIndexing) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v20, 20
  v_mov_b32 v21, 21
  v_mov_b32 v23, 23
  s_mov_b32 s4, 3
  s_set_gpr_idx_on s4, gpr_idx(SRC0)
  v_mov_b32 v10, v20              // reads v23
  s_set_gpr_idx_off
  v_mov_b32 v11, v20              // plain again: 20
  s_set_gpr_idx_on 1, gpr_idx(DST)
  v_mov_b32 v11, 7                // writes v12
  s_set_gpr_idx_idx 0
  v_add_u32 v13, v21, v21         // index 0: 42
  s_set_gpr_idx_off
)", 4);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 4), 23u);
    EXPECT_EQ(r.at(l, 1, 4), 20u);
    EXPECT_EQ(r.at(l, 2, 4), 7u);
    EXPECT_EQ(r.at(l, 3, 4), 42u);
  }
}

TEST_P(Issue15Archs, SetVskipSkipsVectorInstructions) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, 1
  v_mov_b32 v11, 1
  s_mov_b32 s4, 0x4               // bit 2 set
  s_setvskip s4, 2                // VSKIP = 1
  v_mov_b32 v10, 2                // skipped
  s_mov_b32 s5, 9                 // scalar: runs
  s_setvskip 0, 0                 // VSKIP = 0
  s_setvskip s4, 1                // bit 1 is 0: VSKIP = 0
  v_mov_b32 v11, s5               // runs: 9
)", 2);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 2), 1u);
    EXPECT_EQ(r.at(l, 1, 2), 9u);
  }
}

TEST_P(Issue15Archs, MoreScalarAlu) {
  auto r = run_snippet(GetParam(), R"(
  s_absdiff_i32 s4, 3, -5             // 8
  s_bcnt0_i32_b32 s5, 0xffff00ff      // 8
  s_ff0_i32_b32 s6, 0xff              // 8
  s_flbit_i32 s7, -2                  // 0xfffffffe: 31 leading ones -> 31
  s_mov_b32 s8, 0xf0
  s_bitset0_b32 s8, 4                 // 0xe0
  s_bitset1_b32 s8, 0                 // 0xe1
  s_mov_b32 s9, 0x5678ef01
  s_pack_lh_b32_b16 s9, 0x1234abcd, s9           // 0x5678abcd
  s_wqm_b32 s10, 0x00100201           // quads 0, 2, 5 -> 0x00f00f0f
  s_quadmask_b32 s11, 0x00100201      // bits 0, 2, 5 -> 0x25
  s_bitreplicate_b64_b32 s[12:13], 0x80000005  // low: 0x33 ... bit31 -> 0xc0000000 in the high dword
  s_cmp_eq_u32 0, 1                   // SCC = 0
  s_mov_b64 s[14:15], 3
  s_cmov_b64 s[14:15], 7              // SCC = 0: unchanged (3)
  s_mov_b32 s16, 11
  s_cmov_b32 s16, 12                  // SCC = 0: unchanged (11; it once became 0)
  v_mov_b32 v10, s4
  v_mov_b32 v11, s5
  v_mov_b32 v12, s6
  v_mov_b32 v13, s7
  v_mov_b32 v14, s8
  v_mov_b32 v15, s9
  v_mov_b32 v16, s10
  v_mov_b32 v17, s11
  v_mov_b32 v18, s12
  v_mov_b32 v19, s13
  v_mov_b32 v20, s14
  v_xnor_b32 v21, 0xf0f0f0f0, v0      // lane 0: ~0xf0f0f0f0 = 0x0f0f0f0f
  v_mov_b32 v22, s16
)", 13);
  const uint32_t want[13] = {8, 8, 8, 31, 0xe1, 0x5678abcd, 0x00f00f0f, 0x25, 0x33, 0xc0000000u, 3, 0x0f0f0f0f, 11};
  for (unsigned k = 0; k < 13; ++k) EXPECT_EQ(r.at(0, k, 13), want[k]) << "result " << k;
}

TEST_P(Issue15Archs, BufferAtomicPackedAdd) {
  // V# over the results buffer (64 dwords); the atomic works on its last dword (lane 63's, rewritten by the epilogue).
  auto r = run_snippet(GetParam(), R"(
  s_mov_b32 s4, s2
  s_and_b32 s5, s3, 0xffff
  s_mov_b32 s6, 256
  s_mov_b32 s7, 0x27000
  v_mov_b32 v1, 0x3e004000            // f16 {2.0, 1.5}
  v_mov_b32 v2, 0
  buffer_store_dword v1, off, s[4:7], 0 offset:252
  s_waitcnt vmcnt(0)
  v_mov_b32 v3, 0x3c003c00            // f16 {1.0, 1.0}
  s_mov_b64 exec, 1
  buffer_atomic_pk_add_f16 v3, off, s[4:7], 0 offset:252
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, s[92:93]
  buffer_load_dword v10, off, s[4:7], 0 offset:252
  s_waitcnt vmcnt(0)
)", 1);
  EXPECT_EQ(r.at(5, 0, 1), 0x41004200u);  // {3.0, 2.5}
}

}  // namespace
}  // namespace asmevo::emu::test
