// timing/hw_perturb.h: the perturbed rows robust fitness uses move exactly the [U]/fitted parameters
// by +/- the fraction, leave sourced and structural ones alone, are reproducible per seed; and the
// replay on variant rows (model_kernel's `variants`) gives the nominal figure on the nominal row.
#include <gtest/gtest.h>

#include <cmath>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "tests/emu/emu_test_util.h"
#include "timing/backend.h"
#include "timing/hw_perturb.h"

namespace asmevo::timing {
namespace {

TEST(HwPerturb, MovesEachUncertainParameterByTheFractionAndNothingElse) {
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  const HwParams p = perturbed_params(hw, 5, 0.25);
  auto moved = [](double base, double now) { return std::abs(now / base - 1.25) < 0.02 || std::abs(now / base - 0.75) < 0.02; };
  EXPECT_TRUE(moved(hw.lat_hbm, p.lat_hbm)) << p.lat_hbm;               // fitted
  EXPECT_TRUE(moved(hw.lat_lds, p.lat_lds)) << p.lat_lds;               // [U]
  EXPECT_TRUE(moved(hw.barrier_cycles, p.barrier_cycles)) << p.barrier_cycles;
  EXPECT_TRUE(moved(hw.lds_cycles_base, p.lds_cycles_base)) << p.lds_cycles_base;
  EXPECT_LE(p.hbm_efficiency, 1.0);
  // Sourced figures and structure stay.
  EXPECT_EQ(p.cus, hw.cus);
  EXPECT_EQ(p.l2_line, hw.l2_line);
  EXPECT_EQ(p.lds_banks, hw.lds_banks);
  EXPECT_EQ(p.valu_cycles, hw.valu_cycles);
  EXPECT_EQ(p.hbm_bw, hw.hbm_bw);
  EXPECT_EQ(p.clock_mfma_ghz, hw.clock_mfma_ghz);  // sourced on gfx942 (ROCm MAF blog)
  // Reproducible per seed; several seeds give several rows.
  EXPECT_EQ(perturbed_params(hw, 5, 0.25).lat_l2, p.lat_l2);
  bool differs = false;
  for (uint64_t s = 6; s < 10; ++s) differs |= perturbed_params(hw, s, 0.25).lat_l2 != p.lat_l2 || perturbed_params(hw, s, 0.25).lat_lds != p.lat_lds;
  EXPECT_TRUE(differs);
  EXPECT_FALSE(uncertain_params(codeobj::Arch::gfx942).empty());
}

TEST(HwPerturb, VariantReplaysGiveTheNominalFigureOnTheNominalRow) {
  auto co = codeobj::CodeObject::parse(emu::test::assemble_kernel("gfx942",
                                                                  "  v_lshlrev_b32 v1, 2, v0\n  global_load_dword v2, v1, s[2:3]\n"
                                                                  "  s_waitcnt vmcnt(0)\n  v_add_u32 v2, v2, v2\n"
                                                                  "  global_store_dword v1, v2, s[2:3]\n",
                                                                  0, {}, 0),
                                       "snippet");
  emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(
kernel: k
grid: [4, 1, 1]
block: [64, 1, 1]
args:
  - {name: out, buffer: u32, count: 1024, init: {ints: [0, 1000]}}
)");
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  HwParams slow = hw;
  slow.lat_hbm *= 2;
  slow.lat_mall *= 2;
  slow.lat_l2 *= 2;
  ModeledRun r = model_kernel({&co, co.kernel("k"), &spec}, 1, {}, {hw, slow});
  ASSERT_EQ(r.variant_cycles.size(), 2u);
  EXPECT_EQ(r.variant_cycles[0], r.model.cycles);
  EXPECT_GT(r.variant_cycles[1], r.model.cycles) << "doubled memory latencies make a load-bound kernel slower";
}

}  // namespace
}  // namespace asmevo::timing
