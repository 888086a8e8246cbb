// Issue 16 parts 1-2: K1's reads of memory the launch does not allow are FAULTs (K0's own
// over-reads are not held against it), inputs aimed at K0's decisions kill range-check mutants
// random inputs miss, and boundary launches (`vary:`) kill off-by-one bounds compares.
#include <gtest/gtest.h>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "verify/verify.h"
#include "tests/verify/edited_kernel.h"

using namespace asmevo;
using verify::Verdict;

namespace {

using verify_test::edited;
using verify_test::load;

const char* kVectorAdd = R"(kernel: vector_add
grid: [17, 1, 1]
block: [256, 1, 1]
seed: 1
inputs: 2
args:
  - {name: a, buffer: f32, count: 4321, init: {normal: [0, 1]}}
  - {name: b, buffer: f32, count: 4321, init: {uniform: [-1, 1]}}
  - {name: out, buffer: f32, count: 4321, output: true}
  - {name: n, value: 4321, type: i32}
)";

struct Ref {
  std::unique_ptr<verify::Backend> backend = verify::make_emulator_backend(2);
  std::unique_ptr<verify::Reference> ref;
  Ref(const codeobj::CodeObject& k0, const emu::LaunchSpec& spec, verify::VerifyOptions o = {}) {
    ref = std::make_unique<verify::Reference>(*backend, k0, std::vector<emu::LaunchSpec>{spec}, o);
  }
};

}  // namespace

TEST(OutOfBoundsTest, BoundsCompareFlipReadsTheGuardZoneAndFaults) {
  // idx < n as idx <= n: the lane with idx == n loads a[n] and b[n] from the guard zones. The
  // store has the same mask, so the canary would catch the write too, but the read comes first.
  auto k0 = load(corpus::hip_object("gfx942", "vector_add.co"));
  Ref r(k0, emu::parse_launch_spec_text(kVectorAdd, "spec.yaml"));
  auto k1 = edited(k0, "vector_add", {{"v_cmp_gt_i32_e32 vcc, s4, v0", "v_cmp_ge_i32_e32 vcc, s4, v0"}});
  auto rep = verify::verify_candidate(*r.ref, k1);
  ASSERT_EQ(rep.verdict, Verdict::Fault) << rep.to_text();
  ASSERT_TRUE(rep.out_of_bounds);
  EXPECT_FALSE(rep.out_of_bounds->write);
  EXPECT_EQ(rep.out_of_bounds->lowest, 4321 * 4);  // one element past the end
  EXPECT_GE(rep.out_of_bounds->lane, 0);
  EXPECT_NE(rep.out_of_bounds->inst.find("global_load_dword"), std::string::npos);
  EXPECT_EQ(rep.evidence.kind, "out-of-bounds");
  EXPECT_NE(rep.to_json().dump().find("\"out_of_bounds\""), std::string::npos);
}

TEST(OutOfBoundsTest, TheOriginalsOwnOverReadIsNotHeldAgainstTheCandidate) {
  // K0 reads a[i + 1] (the last lane reads a[n], in the guard zone: a legal over-read inside a
  // padded allocation, for the verifier's purpose). A candidate making the same over-read at the
  // same instruction is EQUIVALENT; one that reads further is a FAULT.
  auto k0 = edited(load(corpus::hip_object("gfx942", "vector_add.co")), "vector_add",
                   {{"global_load_dword v6, v[4:5], off", "global_load_dword v6, v[4:5], off offset:4"}});
  Ref r(k0, emu::parse_launch_spec_text(kVectorAdd, "spec.yaml"));
  bool noted = false;
  for (const auto& n : r.ref->notes()) noted |= n.find("guard zone") != std::string::npos;
  EXPECT_TRUE(noted);
  auto same = edited(k0, "vector_add", {{"v_cmp_gt_i32_e32 vcc, s4, v0", "v_cmp_lt_i32_e64 vcc, v0, s4"}});  // same mask
  auto rep = verify::verify_candidate(*r.ref, same);
  EXPECT_EQ(rep.verdict, Verdict::Equivalent) << rep.to_text();
  auto further = edited(k0, "vector_add", {{"global_load_dword v6, v[4:5], off offset:4", "global_load_dword v6, v[4:5], off offset:8"}});
  rep = verify::verify_candidate(*r.ref, further);
  EXPECT_EQ(rep.verdict, Verdict::Fault) << rep.to_text();
}

TEST(AimedInputsTest, RangeCheckMulToAddIsKilledByAimedInputs) {
  // softmax's exp2 underflow test: x*log2e < -126 selects the 2^64 pre-scale. As x + log2e the
  // check only changes results for x - max in (-127.4, -87.3), which random and special inputs
  // never reach; the aimed sets put elements at max - 87.34 and one ulp around it.
  auto k0 = load(corpus::triton_object("gfx942", "softmax_kernel"));
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("softmax_kernel"));
  spec.args[2].vary.reset();  // boundary launches are tested below; keep this one small
  auto k1 = edited(k0, "softmax_kernel", {{"v_mul_f32_e32 v5, 0x3fb8aa3b, v3", "v_add_f32_e32 v5, 0x3fb8aa3b, v3"}});
  verify::VerifyOptions no_aim;
  no_aim.aimed_inputs = false;
  no_aim.difference_search_steps = 0;  // it kills this one too (verify/difference_search.h)
  Ref plain(k0, spec, no_aim);
  EXPECT_EQ(verify::verify_candidate(*plain.ref, k1, no_aim).verdict, Verdict::Equivalent) << "random and special inputs miss it";
  Ref aimed(k0, spec);
  auto rep = verify::verify_candidate(*aimed.ref, k1);
  ASSERT_EQ(rep.verdict, Verdict::Different) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind, "aimed input");
  EXPECT_NE(rep.evidence.detail.find("v_cmp_gt_f32"), std::string::npos) << rep.evidence.detail;
  EXPECT_EQ(verify::verify_candidate(*aimed.ref, k0).verdict, Verdict::Equivalent);
}

TEST(AimedInputsTest, MagnitudeSetsKillAMulAddTheOrdinaryMagnitudesHide) {
  // cross_entropy_rows_f32's l / rows: the quotient estimate n * rcp(d) as n + rcp(d). The Newton
  // steps absorb it at ordinary magnitudes (random, special and aimed inputs: outputs equal); with
  // the logits scaled to the top of the f32 range, v_div_scale's scaled path no longer does.
  auto k0 = load(corpus::hip_object("gfx942", "cross_entropy.co"));
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::hip_spec("cross_entropy_rows_f32"));
  spec.perf.clear();
  for (auto& a : spec.args) a.vary.reset();
  auto k1 = edited(k0, "cross_entropy_rows_f32", {{"v_mul_f32_e32 v1, v0, v6", "v_add_f32_e32 v1, v0, v6"}});
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  Ref r(k0, spec, fast);
  auto rep = verify::verify_candidate(*r.ref, k1, fast);
  ASSERT_EQ(rep.verdict, Verdict::Different) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind, "magnitude input") << rep.evidence.detail;
  EXPECT_NE(rep.evidence.detail.find("logits by 2^"), std::string::npos) << rep.evidence.detail;
  EXPECT_EQ(verify::verify_candidate(*r.ref, k0, fast).verdict, Verdict::Equivalent);
}

TEST(AimedInputsTest, BoundaryLaunchesKillAnOffByOneMaskOfALaterElement) {
  // Each softmax lane handles 4 elements 256 apart; the mask of the second, idx < n_cols as
  // idx <= n_cols, differs only when n_cols is in [256, 511]: the spec's n_cols = 781 never is,
  // its vary: [1, 781] launches at 256 +- 1 are.
  auto k0 = load(corpus::triton_object("gfx942", "softmax_kernel"));
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("softmax_kernel"));
  ASSERT_TRUE(spec.args[2].vary);
  auto k1 = edited(k0, "softmax_kernel", {{"v_cmp_gt_i32_e64 s[0:1], s9, v1", "v_cmp_ge_i32_e64 s[0:1], s9, v1"}});
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  Ref r(k0, spec, fast);
  auto rep = verify::verify_candidate(*r.ref, k1, fast);
  ASSERT_NE(rep.verdict, Verdict::Equivalent) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind.find("boundary launch") != std::string::npos || rep.evidence.detail.find("boundary launch") != std::string::npos, true)
      << rep.evidence.kind << ": " << rep.evidence.detail;
}

TEST(AimedInputsTest, VaryIsForIntegerValueArguments) {
  const char* bad = R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, value: 1.5, type: f32, vary: [0, 2]}
)";
  EXPECT_THROW(emu::parse_launch_spec_text(bad, "bad.yaml"), Error);
  const char* good = R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: n, value: 7, type: i32, vary: [1, 9]}
)";
  auto s = emu::parse_launch_spec_text(good, "good.yaml");
  ASSERT_TRUE(s.args[0].vary);
  EXPECT_EQ(s.args[0].vary->second, 9);
  EXPECT_FALSE(s.inputs_given);
}
