// Miscellaneous VALU: v_perm_b32 (every selector class), gfx950 v_bitop3_b32/_b16, v_permlane16/32_swap,
// v_cvt_pk_f16_f32 / v_cvt_pk_bf16_f32, SAD/lerp ops. Expectations from the ISA pseudo-code.
#include <gtest/gtest.h>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class MiscArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, MiscArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(MiscArchs, PermAndSad) {
  // {S0, S1} = 0x8899aabb_44556677: bytes 0..7 = 77 66 55 44 bb aa 99 88.
  // Selectors: 0-7 a byte; 8/9/10/11 = sign of bytes 1/3/5/7 (0x66 -> 00, 0x44 -> 00, 0xaa -> ff, 0x88 -> ff);
  // 12 -> 0x00; 13+ -> 0xff.
  const unsigned R = 8;
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0x8899aabb
  v_mov_b32 v2, 0x44556677
  s_mov_b32 s4, 0x00070408
  s_mov_b32 s5, 0x0b090a0c
  s_mov_b32 s6, 0x0d0c0302
  v_perm_b32 v10, v1, v2, s4
  v_perm_b32 v11, v1, v2, s5
  v_perm_b32 v12, v1, v2, s6
  v_mov_b32 v3, 0x01ff0510
  v_mov_b32 v4, 0x02000a08
  v_sad_u8 v13, v3, v4, v0                  // |1-2|+|255-0|+|5-10|+|16-8| + lane = 269 + lane
  v_sad_u16 v14, v3, v4, 1                  // |0x01ff-0x0200| + |0x0510-0x0a08| + 1
  v_sad_u32 v15, v4, v3, 0
  v_sad_hi_u8 v16, v3, v4, 3                // (269 << 16) + 3
  v_lerp_u8 v17, v3, v4, 1                  // per byte (a + b + 1) >> 1 (rounding bit = S2 bit 0 of the byte)
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want[R] = {0x7788bb00u, 0xff00ff00u, 0xff004455u, 269u + l, 1u + 1u + 0x4f8u, 0x02000a08u - 0x01ff0510u,
                              (269u << 16) + 3, 0x017f070cu};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

TEST_P(MiscArchs, SwapNormAndBitScan) {
  const unsigned R = 9;
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, v0
  v_add_u32_e32 v11, 100, v0
  s_mov_b32 exec_hi, 0                      // lanes 0-31
  v_swap_b32 v10, v11                       // lanes 0-31 only
  s_mov_b64 exec, -1
  v_cvt_pknorm_i16_f32 v12, 0.5, -1.0       // 16383.5 -> 16384 (nearest even), -32767
  v_cvt_pknorm_u16_f32 v13, 2.0, 0.5        // clamps to 65535; 32767.5 -> 32768
  v_mov_b32 v3, 0xff800123
  v_sat_pk_u8_i16_e32 v14, v3               // {sat(-128) = 0, sat(291) = 255}, bits 31:16 zeroed
  v_mov_b32 v4, 0x00ffffff
  v_ffbh_i32_e32 v15, v4                    // 8
  v_ffbh_i32_e32 v16, -2                    // 31
  v_ffbh_i32_e32 v17, 0                     // -1
  v_xad_u32 v18, v0, -1, 64                 // (lane ^ -1) + 64 = 63 - lane (xor, then ADD)
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t want[R] = {l < 32 ? 100 + l : l, l < 32 ? l : 100 + l, 0x80014000u, 0x8000ffffu, 0x00ffu, 8u, 31u, 0xffffffffu, 63u - l};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

TEST(EmuMiscGfx950, Bitop3PermlaneSwapAndPackedConversions) {
  const unsigned R = 9;
  auto r = run_snippet("gfx950", R"(
  v_mov_b32 v1, 0xf0f0f0f0
  v_mov_b32 v2, 0xcccccccc
  v_mov_b32 v3, 0xaaaaaaaa
  v_bitop3_b32 v10, v1, v2, v3 bitop3:0x36  // with the canonical inputs the result is the table itself
  v_bitop3_b32 v11, v0, 32, 63 bitop3:8     // ~lane & 32 & 63
  v_mov_b32 v12, 0x5555ffff
  v_bitop3_b16 v12, v1, v2, v3 bitop3:0xf8 op_sel:[0,0,0,1]  // (a | (b & c)) into bits 31:16, low kept
  v_mov_b32 v13, v0
  v_add_u32_e32 v14, 100, v0
  v_permlane32_swap_b32 v13, v14            // v13 lanes 32-63 <-> v14 lanes 0-31
  v_mov_b32 v15, v0
  v_add_u32_e32 v16, 100, v0
  v_permlane16_swap_b32 v15, v16            // v15 odd rows <-> v16 even rows
  v_mov_b32 v4, 0x3fc00000                  // 1.5
  v_mov_b32 v5, 0x3f808000                  // 1.00390625: bf16 ties to even -> 1.0; f16 exact
  v_cvt_pk_f16_f32 v17, v4, -v5
  v_cvt_pk_bf16_f32 v18, v4, v5
)",
                       R);
  for (unsigned l = 0; l < 64; ++l) {
    const uint32_t swap32_d = l >= 32 ? 100 + (l - 32) : l, swap32_s = l < 32 ? l + 32 : 100 + l;
    const bool odd_row = (l / 16) % 2 == 1;
    const uint32_t swap16_d = odd_row ? 100 + (l - 16) : l, swap16_s = odd_row ? 100 + l : l + 16;
    const uint32_t want[R] = {0x36363636u, ~l & 32u, 0xf8f8ffffu, swap32_d, swap32_s, swap16_d, swap16_s,
                              0xbc043e00u, 0x3f803fc0u};
    for (unsigned k = 0; k < R; ++k) EXPECT_EQ(r.at(l, k, R), want[k]) << "v" << 10 + k << " lane " << l;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
