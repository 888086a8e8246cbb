// SDWA (VOP1/VOP2/VOPC `_sdwa`): src0_sel/src1_sel with zero and sign extension, dst_sel with
// dst_unused UNUSED_PAD / UNUSED_SEXT / UNUSED_PRESERVE, SGPR and constant sources (gfx9), 16-bit ops,
// SDWA compares writing VCC or an SGPR pair. Expectations from the ISA's SDWA field definitions.
#include <gtest/gtest.h>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class SdwaArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, SdwaArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(SdwaArchs, SelectsExtendAndMerge) {
  // v1 = 0x80f17f00 | lane: BYTE_0 = lane, BYTE_1 = 0x7f, BYTE_2 = 0xf1, BYTE_3 = 0x80,
  // WORD_0 = 0x7f00 | lane (positive), WORD_1 = 0x80f1 (negative).
  const unsigned R = 24;
  auto r = run_snippet(GetParam(), R"(
  v_or_b32_e32 v1, 0x80f17f00, v0
  v_mov_b32 v2, 1000
  v_mov_b32 v3, 4
  s_mov_b32 s4, 3
  s_movk_i32 s5, 0xff
  v_mov_b32 v6, 0x3c004000                  // hi 1.0h, lo 2.0h
  v_and_b32_e32 v7, -2, v0
  v_add_u32_e32 v7, 0x7f00, v7              // 0x7f00 | (lane & ~1)
  v_mov_b32 v8, 7
  s_mov_b32 s10, 0xfffffff1
  s_movk_i32 s11, 0x1234
  v_mov_b32_sdwa v10, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0
  v_mov_b32_sdwa v11, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2
  v_mov_b32_sdwa v12, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2
  v_mov_b32_sdwa v13, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_mov_b32_sdwa v14, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_mov_b32_sdwa v15, v1 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_2
  v_mov_b32_sdwa v16, v1 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_2
  v_mov_b32 v17, 0x12345678
  v_mov_b32_sdwa v17, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
  v_mov_b32_sdwa v18, v1 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_3
  v_mov_b32_sdwa v19, v1 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:WORD_0
  v_mov_b32 v20, 0x12345678
  v_mov_b32_sdwa v20, v1 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0
  v_add_u32_sdwa v21, v2, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
  v_lshlrev_b32_sdwa v22, v3, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0
  v_mul_u32_u24_sdwa v23, v1, s4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
  v_and_b32_sdwa v24, v1, s5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:DWORD
  v_cvt_f32_f16_sdwa v25, v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_mov_b32 v26, 0xaaaa5555
  v_add_f16_sdwa v26, v6, v6 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
  v_cmp_eq_u32_sdwa vcc, v1, v7 src0_sel:WORD_0 src1_sel:DWORD
  v_mov_b32 v27, vcc_lo
  v_cmp_eq_u32_sdwa s[8:9], sext(v1), s10 src0_sel:BYTE_2 src1_sel:DWORD
  v_mov_b32 v28, s9
  v_cndmask_b32_sdwa v29, v8, v6, vcc dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1
  v_add_u32_sdwa v30, s11, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:BYTE_0
  v_mov_b32 v31, -1
  v_add_u16_sdwa v31, v1, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1
  v_mov_b32 v32, -1
  v_sub_u16_sdwa v32, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:WORD_0
  v_mov_b32 v33, 0
  v_add_u32_sdwa v33, v1, 5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t w0 = 0x7f00u | l;
    const uint32_t want[R] = {l,
                        0xf1u,
                        0xfffffff1u,
                        0x80f1u,
                        0xffff80f1u,
                        0xf100u,
                        0xfffff100u,
                        (w0 << 16) | 0x5678u,
                        0xffffff80u,
                        w0,
                        0x12005678u | (l << 16),
                        1000u + w0,
                        w0 << 4,
                        0x80f1u * 3,
                        0x80u,
                        0x3f800000u,  // 1.0f
                        0x42005555u,  // 3.0h in the high half, low half kept
                        0x55555555u,  // even lanes
                        0xffffffffu,
                        l % 2 == 0 ? 0x3c00u : 7u,
                        0x12u + l,
                        0x01e2u,      // (0x80f1 + 0x80f1) & 0xffff, bits 31:16 padded with zero
                        ((l - 1000u) & 0xffffu) << 16,  // WORD_1 = lane - 1000; UNUSED_SEXT: nothing above, zeros below
                        l + 5};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
