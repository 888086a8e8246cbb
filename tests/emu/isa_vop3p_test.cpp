// VOP3P packed math (emu/semantics/vop3p.cpp): op_sel / op_sel_hi / neg_lo / neg_hi, clamp,
// packed f32 with register pairs, v_fma_mix*, dot products. Expectations computed by hand from the
// ISA's VOP3P rules (see the comments next to each instruction).
#include <gtest/gtest.h>

#include <bit>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

uint32_t f(float x) { return std::bit_cast<uint32_t>(x); }

class Vop3p : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, Vop3p, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(Vop3p, PackedOpsAndModifiers) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0x40003c00        // f16 {lo 1.0, hi 2.0}
  v_mov_b32 v2, 0xc2003800        // f16 {lo 0.5, hi -3.0}
  v_mov_b32 v3, 0xfffe0003        // 16-bit {lo 3, hi 0xfffe (-2)}
  v_mov_b32 v4, 0x00050004        // {lo 4, hi 5}
  v_mov_b32 v5, 0x00010001
  v_pk_add_f16 v10, v1, v2                                    // {1.5, -1.0}
  v_pk_add_f16 v11, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]       // lo = 2.0+0.5, hi = 1.0+(-3.0)
  v_pk_add_f16 v12, v1, v2 neg_lo:[1,0] neg_hi:[0,1]          // lo = -1.0+0.5, hi = 2.0+3.0
  v_pk_mul_f16 v13, v1, v2 clamp                              // lo 0.5, hi -6 -> 0
  v_pk_fma_f16 v14, v1, v2, v1                                // lo 1.5, hi -4.0
  v_pk_max_f16 v15, v1, v2                                    // {1.0, 2.0}
  v_pk_add_u16 v16, v3, v4                                    // lo 7, hi (65534+5) mod 2^16 = 3
  v_pk_add_u16 v17, v3, v4 clamp                              // hi saturates to 0xffff
  v_pk_sub_i16 v18, v4, v3                                    // lo 1, hi 5-(-2) = 7
  v_pk_mul_lo_u16 v19, v3, v4                                 // lo 12, hi 65534*5 mod 2^16 = 0xfff6
  v_pk_lshlrev_b16 v20, v4, v3                                // lo 3<<4, hi 0xfffe<<5 = 0xffc0
  v_pk_ashrrev_i16 v21, v5, v3                                // lo 1, hi -1
  v_pk_max_i16 v22, v3, v4                                    // lo 4, hi 5
  v_pk_max_u16 v23, v3, v4                                    // lo 4, hi 0xfffe
  v_mov_b32 v30, 1.5
  v_mov_b32 v31, -2.0
  v_mov_b32 v32, 4.0
  v_mov_b32 v33, 0.25
  v_mov_b32 v34, 10.0
  v_mov_b32 v35, 0x41a00000       // 20.0
  v_pk_fma_f32 v[24:25], v[30:31], v[32:33], v[34:35]         // {16, 19.5}
  v_pk_mul_f32 v[26:27], v[30:31], v[32:33] op_sel_hi:[1,0]   // hi uses v32: {6, -8}
  v_pk_add_f32 v[28:29], v[30:31], 1.0 op_sel_hi:[1,0]        // {2.5, -1.0}
  v_pk_add_f32 v[36:37], v[30:31], v[32:33] op_sel:[1,0] neg_lo:[0,1] neg_hi:[1,0]  // lo v31-v32 = -6, hi -v31+v33 = 2.25
  v_pk_mov_b32 v[38:39], v[30:31], v[32:33] op_sel:[1,0]      // {v31, v32} = {-2, 4}
  v_mov_b32 v40, 0x42003800       // f16 {lo 0.5, hi 3.0}
  v_mov_b32 v41, 2.0
  v_fma_mix_f32 v42, v40, v41, v40 op_sel:[1,0,0] op_sel_hi:[1,0,1]  // 3.0 * 2.0 + 0.5 = 6.5
  v_fma_mix_f32 v43, -v40, |v41|, v41 op_sel_hi:[1,0,0]              // -0.5 * 2 + 2 = 1.0
  v_mov_b32 v44, 0x12345678
  v_mov_b32 v45, 0x12345678
  v_fma_mixlo_f16 v44, v40, v41, 0 op_sel_hi:[1,0,0]          // 1.0 -> low half, high kept
  v_fma_mixhi_f16 v45, v40, v41, 0 op_sel_hi:[1,0,0]          // 1.0 -> high half, low kept
  v_dot2_f32_f16 v46, v1, v2, v41                             // 1*0.5 + 2*(-3) + 2 = -3.5
  v_mov_b32 v6, 0x01ff02fe        // i8 {-2, 2, -1, 1}
  v_mov_b32 v7, 0x03040506        // i8 {6, 5, 4, 3}
  v_mov_b32 v8, 100
  v_dot4_i32_i8 v47, v6, v7, v8                               // -12+10-4+3 + 100 = 97
  v_mov_b32 v48, 1.0
  v_dot2c_f32_f16 v48, v1, v2                                 // -5.5 + 1 = -4.5
)",
                       39);
  const unsigned R = 39;
  const uint32_t want[] = {0xbc003e00, 0xc0004100, 0x4500b800, 0x00003800, 0xc4003e00, 0x40003c00, 0x00030007,
                           0xffff0007, 0x00070001, 0xfff6000c, 0xffc00030, 0xffff0001, 0x00050004, 0xfffe0004,
                           f(16.0f),   f(19.5f),   f(6.0f),    f(-8.0f),   f(2.5f),    f(-1.0f),   f(1.5f),
                           f(-2.0f),   f(4.0f),    f(0.25f),   f(10.0f),   f(20.0f),   f(-6.0f),   f(2.25f),
                           f(-2.0f),   f(4.0f),    0x42003800, f(2.0f),    f(6.5f),    f(1.0f),    0x12343c00,
                           0x3c005678, f(-3.5f),   97u,        f(-4.5f)};
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << GetParam() << " v" << 10 + k << " lane " << l;
}

TEST_P(Vop3p, ExecMasksPackedWrites) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  v_mov_b32 v1, 0x3c003c00
  v_mov_b32 v2, 5
  v_mov_b32 v3, 6
  s_mov_b64 exec, 0xf0
  v_pk_add_f16 v10, v1, v1                      // 2.0 in both halves, lanes 4..7 only
  v_pk_mov_b32 v[12:13], v[2:3], v[2:3] op_sel:[1,0]   // {v3, v2} = {6, 5}
)",
                       4);
  for (unsigned l = 0; l < 64; ++l) {
    bool on = l >= 4 && l < 8;
    EXPECT_EQ(r.at(l, 0, 4), on ? 0x40004000u : 0u);
    EXPECT_EQ(r.at(l, 2, 4), on ? 6u : 0u);
    EXPECT_EQ(r.at(l, 3, 4), on ? 5u : 0u);
  }
}

TEST_P(Vop3p, IntegerAccumulatingDots) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0xfffe0003        // i16 {3, -2}
  v_mov_b32 v2, 0x00050004        // i16 {4, 5}
  v_mov_b32 v10, 10
  v_dot2c_i32_i16 v10, v1, v2     // 10 + 12 - 10 = 12
  v_mov_b32 v3, 0x0000f721        // i4 {1, 2, 7, -1, 0...}
  v_mov_b32 v4, 0x00003333        // i4 {3, 3, 3, 3, 0...}
  v_mov_b32 v11, -1
  v_dot8c_i32_i4 v11, v3, v4      // -1 + 3*(1 + 2 + 7 - 1) = 26
  v_mov_b32 v5, 0x01ff02fe        // i8 {-2, 2, -1, 1}
  v_mov_b32 v6, 0x03040506        // i8 {6, 5, 4, 3}
  v_mov_b32 v12, 100
  v_dot4c_i32_i8 v12, v5, v6      // 100 - 3 = 97
)",
                       3);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 3), 12u);
    EXPECT_EQ(r.at(l, 1, 3), 26u);
    EXPECT_EQ(r.at(l, 2, 3), 97u);
  }
}

TEST(Vop3pGfx950, Minimum3Maximum3) {
  auto r = run_snippet("gfx950", R"(
  v_mov_b32 v1, 0x7e00bc00        // f16 {lo -1.0, hi NaN}
  v_mov_b32 v2, 0x40000000        // {lo +0.0, hi 2.0}
  v_mov_b32 v3, 0x3c008000        // {lo -0.0, hi 1.0}
  v_pk_minimum3_f16 v10, v1, v2, v3     // lo min(-1, 0, -0) = -1; hi NaN
  v_pk_maximum3_f16 v11, v2, v3, v3     // lo max(+0, -0, -0) = +0; hi 2.0
)",
                       2);
  EXPECT_EQ(r.at(0, 0, 2) & 0xffffu, 0xbc00u);
  EXPECT_EQ((r.at(0, 0, 2) >> 16) & 0x7c00u, 0x7c00u);  // NaN
  EXPECT_NE((r.at(0, 0, 2) >> 16) & 0x03ffu, 0u);
  EXPECT_EQ(r.at(0, 1, 2), 0x40000000u);
}

}  // namespace
}  // namespace asmevo::emu::test
