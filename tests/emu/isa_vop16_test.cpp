// 16-bit VALU on gfx9: integer and f16 arithmetic, the high half of 16-bit destinations (zeroed by
// VOP1/VOP2/VOPC-era ops and v_*_legacy_*, kept by the VOP3 op_sel forms and v_mac_f16), op_sel on
// sources and destination, fused vs unfused f16 multiply-add, conversions, packing, 16-bit compares.
#include <gtest/gtest.h>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class Vop16Archs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, Vop16Archs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

uint16_t h(float x) { return std::bit_cast<uint16_t>(static_cast<_Float16>(x)); }

TEST_P(Vop16Archs, IntegerOpsZeroTheHighHalf) {
  const unsigned R = 9;
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v2, 0x5678fff0
  v_mov_b32 v3, 0x00018001
  v_mov_b32 v10, -1
  v_add_u16_e32 v10, 7, v0
  v_mov_b32 v11, -1
  v_add_u16_e32 v11, v2, v0                 // (0xfff0 + lane) & 0xffff, src bits 31:16 ignored
  v_sub_u16_e32 v12, v0, v2                 // lane - 0xfff0
  v_mul_lo_u16_e32 v13, 18, v2
  v_lshlrev_b16_e32 v14, 17, v3             // shift amount S0[3:0] = 1
  v_lshrrev_b16_e32 v15, 4, v3
  v_ashrrev_i16_e32 v16, 4, v3
  v_mov_b32 v17, -1
  v_max_i16_e64 v17, v3, v0                 // max(-32767, lane)
  v_min_u16_e32 v18, v3, v0
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want[R] = {l + 7, (0xfff0u + l) & 0xffffu, l + 0x10u, 0xfee0u, 0x0002u, 0x0800u, 0xf800u, l, l};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

TEST_P(Vop16Archs, OpSelAndKeptHighHalf) {
  const unsigned R = 9;
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v4, 0x00030005
  v_mov_b32 v5, 0x3e00                      // 1.5h
  v_mov_b32 v6, 0x3c01                      // 1 + 2^-10
  v_mov_b32 v7, 0xbc02                      // -(1 + 2^-9)
  v_mov_b32 v10, 0xabcd0000
  v_mad_u16 v10, v0, 2, 1                   // op_sel form: bits 31:16 kept
  v_mov_b32 v11, 0xabcd1111
  v_mad_u16 v11, v0, 2, 1 op_sel:[0,0,0,1]  // result to bits 31:16, bits 15:0 kept
  v_mov_b32 v12, -1
  v_mad_legacy_u16 v12, v0, 2, 1            // legacy form: bits 31:16 zeroed
  v_mov_b32 v13, 0
  v_mad_u16 v13, v4, v0, 0 op_sel:[1,0,0,0] // src0 = v4[31:16] = 3
  v_mov_b32 v14, 0x40000000                 // hi 2.0h
  v_mac_f16_e32 v14, v5, v5                 // lo = 1.5 * 1.5 = 2.25h, hi kept
  v_mov_b32 v15, 0xffff0000
  v_fma_f16 v15, v6, v6, v7                 // fused: 2^-20 (an f16 denormal), hi kept
  v_mov_b32 v16, 0x7777ffff
  v_mad_f16 v16, v6, v6, v7                 // unfused: the product rounds to 1 + 2^-9 -> +0
  v_mov_b32 v17, -1
  v_fma_legacy_f16 v17, v6, v6, v7          // legacy form zeroes bits 31:16
  v_mov_b32 v18, 0x12340000
  v_add_i16 v18, v4, -7 op_sel:[1,0,1]      // hi = v4.hi + (-7) = -4, lo kept
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want[R] = {0xabcd0000u | (2 * l + 1), ((2 * l + 1) << 16) | 0x1111u, 2 * l + 1, 3 * l,
                              0x40004080u, 0xffff0010u, 0x77770000u, 0x0010u, 0xfffc0000u};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

TEST_P(Vop16Archs, FloatArithmeticConversionsAndCompares) {
  const unsigned R = 17;
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v5, 0x3e00                      // 1.5h
  v_mov_b32 v6, 0x3c01                      // 1 + 2^-10
  v_mov_b32 v8, 0x3f801800                  // 1 + 0.75 * 2^-10 (f32)
  v_mov_b32 v9, 0x4788b800                  // 70000.0
  v_mov_b32 v7, 0xc300                      // -3.5h
  v_mov_b32 v10, -1
  v_cvt_f16_f32_e32 v10, v8                 // round to nearest even -> 1 + 2^-10, bits 31:16 zeroed
  v_cvt_pkrtz_f16_f32 v11, v8, v9           // toward zero: 1.0h, 65504h
  v_cvt_f32_f16_e32 v12, v6
  v_cvt_u16_f16_e32 v13, v7                 // saturates to 0
  v_cvt_i16_f16_e32 v14, v7                 // -3 (truncation)
  v_cvt_f16_u16_e32 v15, v0
  v_pack_b32_f16 v16, v5, v6
  v_mov_b32 v1, 0x40000000
  v_pack_b32_f16 v17, v1, v5 op_sel:[1,0,0] // lo = v1[31:16]
  v_mov_b32 v18, -1
  v_add_f16_e32 v18, v5, v5
  v_mul_f16_e64 v19, -v5, v6
  v_max_f16_e32 v20, v5, v6
  v_mov_b32 v3, 2
  v_ldexp_f16_e32 v21, v5, v3
  v_mov_b32 v2, 0x10000
  v_cmp_ne_u16_e64 s[4:5], 0, v2            // bits 31:16 ignored: never true
  v_mov_b32 v22, s4
  s_mov_b32 s6, 0x10005
  v_cmp_lt_u16_e32 vcc, s6, v0              // 5 < lane
  v_mov_b32 v23, vcc_lo
  v_cmp_gt_f16_e64 s[8:9], v5, v1          // 1.5 > v1[15:0] = 0.0
  v_mov_b32 v24, s8
  v_cvt_f16_i16_e32 v25, v7                 // v7 as i16 = 0xc300 = -15616
  v_sub_f16_e32 v26, v6, v5
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want[R] = {0x3c01u, 0x7bff3c00u, 0x3f802000u, 0u, 0xfffdu, h(static_cast<float>(l)), 0x3c013e00u,
                              0x3e004000u, 0x4200u, h(-1.5f * (1.0f + 1.0f / 1024)), 0x3e00u, 0x4600u, 0u,
                              0xffffffc0u, 0xffffffffu, h(-15616.0f), h(1.0f + 1.0f / 1024 - 1.5f)};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
