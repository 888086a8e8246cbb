// DPP (VOP1/VOP2 `_dpp`): every dpp_ctrl, row_mask/bank_mask, bound_ctrl, inactive source lanes, the
// write rule for invalid sources, DPP carries and 64-bit DPP. Expectations are written from the ISA's
// description of each control (source lane of lane i; rows of 16 lanes, banks of 4 lanes in a row).
#include <gtest/gtest.h>

#include <bit>
#include <fmt/format.h>
#include <functional>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class DppArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, DppArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

constexpr uint32_t kOld = 0x5000;  // v(10+k) = kOld + lane before the DPP write
constexpr uint32_t kSrc = 100;     // v1 = kSrc + lane

struct Case {
  std::string mods;                  // dpp modifiers
  std::function<int(unsigned)> src;  // source lane of lane l, -1 when out of range
  unsigned row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;
};

uint32_t expected(const Case& c, unsigned l) {
  bool enabled = (c.row_mask >> (l / 16) & 1) && (c.bank_mask >> ((l / 4) % 4) & 1);
  int s = c.src(l);
  if (!enabled) return kOld + l;
  if (s < 0) return c.bound_ctrl ? 0u : kOld + l;
  return kSrc + static_cast<unsigned>(s);
}

TEST_P(DppArchs, EveryControlWithMasksAndBoundCtrl) {
  auto row = [](unsigned l) { return l / 16 * 16; };
  std::vector<Case> cases = {
      {"quad_perm:[3,2,1,0]", [](unsigned l) { return int(l / 4 * 4 + 3 - l % 4); }},
      {"quad_perm:[1,1,0,2]", [](unsigned l) { static const int p[4] = {1, 1, 0, 2}; return int(l / 4 * 4) + p[l % 4]; }},
      {"row_shl:1", [](unsigned l) { return l % 16 < 15 ? int(l + 1) : -1; }},
      {"row_shl:15 bound_ctrl:1", [](unsigned l) { return l % 16 == 0 ? int(l + 15) : -1; }, 0xf, 0xf, true},
      {"row_shr:3", [](unsigned l) { return l % 16 >= 3 ? int(l - 3) : -1; }},
      {"row_shr:7 bound_ctrl:0", [](unsigned l) { return l % 16 >= 7 ? int(l - 7) : -1; }, 0xf, 0xf, true},
      {"row_ror:5", [&](unsigned l) { return int(row(l) + (l % 16 + 16 - 5) % 16); }},
      {"row_ror:15", [&](unsigned l) { return int(row(l) + (l % 16 + 1) % 16); }},
      {"wave_shl:1", [](unsigned l) { return l < 63 ? int(l + 1) : -1; }},
      {"wave_rol:1", [](unsigned l) { return int((l + 1) % 64); }},
      {"wave_shr:1 bound_ctrl:1", [](unsigned l) { return l > 0 ? int(l - 1) : -1; }, 0xf, 0xf, true},
      {"wave_ror:1", [](unsigned l) { return int((l + 63) % 64); }},
      {"row_mirror", [&](unsigned l) { return int(row(l) + 15 - l % 16); }},
      {"row_half_mirror", [](unsigned l) { return int(l / 8 * 8 + 7 - l % 8); }},
      {"row_bcast:15 row_mask:0xa", [](unsigned l) { return l >= 16 ? int(l / 16 * 16 - 1) : -1; }, 0xa},
      {"row_bcast:31 row_mask:0xc", [](unsigned l) { return l >= 32 ? 31 : -1; }, 0xc},
      {"row_bcast:15", [](unsigned l) { return l >= 16 ? int(l / 16 * 16 - 1) : -1; }},
      {"row_bcast:31 bound_ctrl:1", [](unsigned l) { return l >= 32 ? 31 : -1; }, 0xf, 0xf, true},
      {"quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0x6", [](unsigned l) { return int(l); }, 0x5, 0x6},
      {"row_shl:2 row_mask:0x3 bank_mask:0x9 bound_ctrl:1", [](unsigned l) { return l % 16 < 14 ? int(l + 2) : -1; }, 0x3, 0x9, true},
      {"row_newbcast:5", [&](unsigned l) { return int(row(l) + 5); }},
      {"row_newbcast:15 row_mask:0x6", [&](unsigned l) { return int(row(l) + 15); }, 0x6},
  };
  std::string body = fmt::format("  v_add_u32_e32 v1, {}, v0\n", kSrc);
  for (size_t k = 0; k < cases.size(); ++k)
    body += fmt::format("  v_add_u32_e32 v{0}, {1}, v0\n  v_mov_b32_dpp v{0}, v1 {2}\n", 10 + k, kOld, cases[k].mods);
  const unsigned R = static_cast<unsigned>(cases.size());
  auto r = run_snippet(GetParam(), body, R);
  for (size_t k = 0; k < cases.size(); ++k)
    for (unsigned l = 0; l < 64; ++l)
      EXPECT_EQ(r.at(l, static_cast<unsigned>(k), R), expected(cases[k], l)) << cases[k].mods << ", lane " << l;
}

// Inactive source lanes are invalid: with bound_ctrl they read 0, without it the lane keeps its old
// value; inactive destination lanes are never written. The Triton butterfly (row_shl:4 bank_mask:0x5
// then row_shr:4 bank_mask:0xa) exchanges lanes i and i^4.
TEST_P(DppArchs, InactiveSourceLanesAndButterfly) {
  auto r = run_snippet(GetParam(), R"(
  v_add_u32_e32 v1, 100, v0
  v_add_u32_e32 v10, 0x5000, v0
  v_add_u32_e32 v11, 0x5000, v0
  v_add_u32_e32 v12, 0x5000, v0
  s_mov_b32 exec_lo, 0xffeffff7             // lanes 3 and 20 inactive
  s_mov_b32 exec_hi, -1
  v_mov_b32_dpp v10, v1 row_shr:1
  v_mov_b32_dpp v11, v1 row_shr:1 bound_ctrl:1
  v_add_u32_dpp v12, v1, v1 row_shr:1 bound_ctrl:1
  s_mov_b64 exec, -1
  v_mov_b32_dpp v13, v1 row_shl:4 row_mask:0xf bank_mask:0x5
  v_mov_b32_dpp v13, v1 row_shr:4 row_mask:0xf bank_mask:0xa
)",
                       4);
  for (unsigned l = 0; l < 64; ++l) {
    bool active = l != 3 && l != 20, src_ok = l % 16 != 0 && l - 1 != 3 && l - 1 != 20;
    EXPECT_EQ(r.at(l, 0, 4), active && src_ok ? 100 + l - 1 : 0x5000 + l) << l;
    EXPECT_EQ(r.at(l, 1, 4), !active ? 0x5000 + l : src_ok ? 100 + l - 1 : 0u) << l;
    EXPECT_EQ(r.at(l, 2, 4), !active ? 0x5000 + l : (src_ok ? 100 + l - 1 : 0u) + 100 + l) << l;
    EXPECT_EQ(r.at(l, 3, 4), 100 + (l ^ 4)) << l;
  }
}

// The wave reduction LLVM and Triton emit: row_shr 1/2/4/8 with bound_ctrl, then row_bcast:15
// (rows 1, 3) and row_bcast:31 (rows 2, 3) gives the inclusive prefix sum in every lane.
TEST_P(DppArchs, InclusiveScanAndMinReduction) {
  auto r = run_snippet(GetParam(), R"(
  v_cvt_f32_u32_e32 v10, v0
  v_add_f32_dpp v10, v10, v10 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_add_f32_dpp v10, v10, v10 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_add_f32_dpp v10, v10, v10 row_shr:4 row_mask:0xf bank_mask:0xe
  v_add_f32_dpp v10, v10, v10 row_shr:8 row_mask:0xf bank_mask:0xc
  v_add_f32_dpp v10, v10, v10 row_bcast:15 row_mask:0xa bank_mask:0xf
  v_add_f32_dpp v10, v10, v10 row_bcast:31 row_mask:0xc bank_mask:0xf
  v_sub_u32_e32 v11, 1000, v0               // 1000 - lane: the minimum is in lane 63
  v_min_i32_dpp v11, v11, v11 row_shr:1 row_mask:0xf bank_mask:0xf
  v_min_i32_dpp v11, v11, v11 row_shr:2 row_mask:0xf bank_mask:0xf
  v_min_i32_dpp v11, v11, v11 row_shr:4 row_mask:0xf bank_mask:0xf
  v_min_i32_dpp v11, v11, v11 row_shr:8 row_mask:0xf bank_mask:0xf
  v_min_i32_dpp v11, v11, v11 row_bcast:15 row_mask:0xa bank_mask:0xf
  v_min_i32_dpp v11, v11, v11 row_bcast:31 row_mask:0xc bank_mask:0xf
  v_readlane_b32 s4, v11, 63
  v_mov_b32 v12, s4
)",
                       3);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 3), std::bit_cast<uint32_t>(static_cast<float>(l * (l + 1) / 2))) << l;
    EXPECT_EQ(r.at(l, 2, 3), 1000u - 63u) << l;
  }
}

// A DPP op with a carry-out: lanes whose source is invalid are not written, and keep their VCC bit.
// 64-bit DPP (gfx90a+ "DP ALU DPP": row_newbcast only): v_fmac_f64_dpp reads both halves of src0.
TEST_P(DppArchs, CarryOutAnd64Bit) {
  std::string body = R"(
  v_add_u32_e32 v1, 100, v0
  v_mov_b32 v2, 0xffffff9c                 // -100
  s_mov_b64 vcc, 0
  v_mov_b32 v10, 7
  v_add_co_u32_dpp v10, vcc, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf
  v_mov_b32 v11, vcc_lo
  v_mov_b32 v12, vcc_hi
  v_cvt_f64_u32_e32 v[2:3], v0
  v_mov_b32 v4, 0
  v_mov_b32 v5, 0x3ff00000                 // 1.0
  v_mov_b32 v6, 0
  v_mov_b32 v7, 0x3fe00000                 // 0.5
  v_fmac_f64_dpp v[6:7], v[2:3], v[4:5] row_newbcast:1 row_mask:0xf bank_mask:0xf
  v_cvt_f32_f64_e32 v13, v[6:7]
)";
  if (GetParam() != "gfx90a")  // v_mov_b64 is gfx940+
    body += "  v_mov_b64_dpp v[8:9], v[2:3] row_newbcast:15 row_mask:0xf bank_mask:0xf\n  v_cvt_f32_f64_e32 v14, v[8:9]\n";
  else
    body += "  v_mov_b32 v14, 0\n";
  auto r = run_snippet(GetParam(), body, 5);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 5), l % 16 ? l - 1 : 7u) << l;
    EXPECT_EQ(r.at(l, 1, 5), 0xfffefffeu);
    EXPECT_EQ(r.at(l, 2, 5), 0xfffefffeu);
    EXPECT_EQ(r.at(l, 3, 5), std::bit_cast<uint32_t>(static_cast<float>(l / 16 * 16 + 1) + 0.5f)) << l;
    if (GetParam() != "gfx90a") EXPECT_EQ(r.at(l, 4, 5), std::bit_cast<uint32_t>(static_cast<float>(l / 16 * 16 + 15))) << l;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
