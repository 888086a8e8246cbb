// v_cndmask_b32's VOP3/DPP/SDWA source modifiers (Triton folds tl.where(c, -x, x) into
// "v_cndmask_b32_e64 vD, -vS, vS, vcc"): sign-bit operations on the raw 32 bits (emu/generic.h
// sign_bit_mods), checked bit for bit on lanes holding ±0, denormals, NaNs with payloads, ±Inf and
// integers with bit 31 set, with MODE flushing f32 denormals (a move must not flush) and keeping them.
// Also the neighbours LLVM assembles but the ISA leaves undefined, which pre-decode refuses loudly.
#include <gtest/gtest.h>

#include <string>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class CndmaskModsArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, CndmaskModsArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

constexpr uint32_t kSign = 0x80000000u;
// Lanes 0..13 hold these bits; the other lanes lane * 0x9e3779b9 (both signs, mostly).
constexpr uint32_t kEdges[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7fc00001u, 0xffc00000u, 0x7f800001u,
                               0xff800000u, 0x80000005u, 0xdeadbeefu, 0x3fc00000u, 0xc0200000u, 0x7fffffffu, 0xffffffffu};
uint32_t lane_value(unsigned l) { return l < std::size(kEdges) ? kEdges[l] : l * 0x9e3779b9u; }

std::string body(bool flush) {
  std::string s = flush ? "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0   // FP_DENORM f32: flush\n"
                        : "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3   // FP_DENORM f32: keep\n";
  s += "  s_mov_b32 s7, 0x9e3779b9\n  v_mul_lo_u32 v2, v0, s7\n";
  for (unsigned l = 0; l < std::size(kEdges); ++l) s += "  s_mov_b32 s6, " + std::to_string(kEdges[l]) + "\n  v_writelane_b32 v2, s6, " + std::to_string(l) + "\n";
  s += R"(
  s_mov_b32 vcc_lo, 0x55555555           // even lanes select S1, odd lanes S0 ...
  s_mov_b32 vcc_hi, 0x55555555
  s_not_b64 s[4:5], vcc                   // ... and the other way round
  v_cndmask_b32_e64 v10, -v2, v2, vcc
  v_cndmask_b32_e64 v11, -v2, v2, s[4:5]
  v_cndmask_b32_e64 v12, |v2|, -|v2|, vcc
  v_cndmask_b32_e64 v13, |v2|, -|v2|, s[4:5]
  v_cndmask_b32_e64 v14, neg(1.0), |v2|, vcc
  v_cndmask_b32_e64 v15, -|0|, -v2, s[4:5]
  v_cndmask_b32_dpp v16, -v2, |v2|, vcc quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_cndmask_b32_sdwa v17, |v2|, -v2, vcc dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD
  v_mul_f32_e64 v18, -v2, 1.0             // control: a float op, whose source MODE may flush
)";
  return s;
}

void check_lanes(const std::string& arch, bool flush) {
  constexpr unsigned R = 9;
  auto r = run_snippet(arch, body(flush), R);
  for (unsigned l = 0; l < 64; ++l) {
    SCOPED_TRACE(::testing::Message() << arch << (flush ? " flush" : " keep") << " lane " << l);
    const uint32_t x = lane_value(l), partner = lane_value(l ^ 1);
    const bool vcc = (l & 1) == 0;
    EXPECT_EQ(r.at(l, 0, R), vcc ? x : x ^ kSign);
    EXPECT_EQ(r.at(l, 1, R), vcc ? x ^ kSign : x);
    EXPECT_EQ(r.at(l, 2, R), vcc ? x | kSign : x & ~kSign);
    EXPECT_EQ(r.at(l, 3, R), vcc ? x & ~kSign : x | kSign);
    EXPECT_EQ(r.at(l, 4, R), vcc ? x & ~kSign : 0xbf800000u);  // neg(1.0): the inline constant's bits, sign flipped
    EXPECT_EQ(r.at(l, 5, R), vcc ? kSign : x ^ kSign);          // -|0| is -0.0's bits
    EXPECT_EQ(r.at(l, 6, R), vcc ? x & ~kSign : partner ^ kSign);  // DPP moves S0 first, then neg
    EXPECT_EQ(r.at(l, 7, R), vcc ? x ^ kSign : x & ~kSign);
  }
  // The control shows the MODE really differs between the runs: -denormal flushes to -0 in a float op.
  EXPECT_EQ(r.at(2, 8, R), flush ? kSign : 0x80000001u);
}

TEST_P(CndmaskModsArchs, SignModifiersAreBitOperationsUnderEitherMode) {
  check_lanes(GetParam(), true);
  check_lanes(GetParam(), false);
}

TEST_P(CndmaskModsArchs, UndefinedIntegerModifiersAreRefused) {
  const std::string arch = GetParam();
  // VOP3P neg_lo/neg_hi on integer packed units: llvm-mc-22 assembles them, the ISA defines them for floats.
  for (const char* line : {"  v_pk_mov_b32 v[2:3], v[4:5], v[6:7] neg_lo:[1,0]\n", "  v_pk_add_u16 v10, v2, v3 neg_hi:[0,1]\n",
                           "  v_dot4_i32_i8 v10, v2, v3, v4 neg_lo:[1,0,0]\n"}) {
    const std::string msg = expect_error(arch, line);
    EXPECT_NE(msg.find("neg_lo/neg_hi"), std::string::npos) << line << msg;
  }
  // A float packed unit keeps them.
  EXPECT_EQ(expect_error(arch, "  v_pk_add_f16 v10, v2, v3 neg_lo:[1,0]\n"), "(no error)");
  // SDWA: a sign modifier on a sub-dword select (its order against the select is not documented).
  const std::string sdwa = expect_error(arch, "  v_cndmask_b32_sdwa v10, -v2, v3, vcc dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD\n");
  EXPECT_NE(sdwa.find("sub-dword src0_sel"), std::string::npos) << sdwa;
  // Other integer slots still refuse abs/neg (v_dot2c_f32_f16's packed-f16 sources: not a sign-bit op).
  const std::string dot = expect_error(arch, "  v_dot2c_f32_f16_e64 v10, -v2, v3\n");
  EXPECT_NE(dot.find("input modifier on a non-float operand"), std::string::npos) << dot;
}

}  // namespace
}  // namespace asmevo::emu::test
