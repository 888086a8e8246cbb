// Tie sets (verify/aim_ties.h): a running maximum's `x > best` as `x >= best` changes argmax's
// first-index-on-ties only when one lane meets the row's winning value twice.
#include <gtest/gtest.h>

#include <cstring>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "verify/aim_ties.h"
#include "verify/element_value.h"
#include "verify/verify.h"
#include "tests/verify/edited_kernel.h"

using namespace asmevo;
using verify::Verdict;

namespace {

using verify_test::edited;
using verify_test::load;

}  // namespace

TEST(TieSets, GiveOneLaneTheWinningValueTwice) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f32, count: 8, init: {normal: [0, 1]}}
)", "<string>");
  std::vector<float> x{1, -3, 2.5, 0, 7, -1, 4, 2};
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs{std::make_shared<std::vector<uint8_t>>(32)};
  std::memcpy(inputs[0]->data(), x.data(), 32);
  std::map<uint64_t, verify::LaneComparisons> seen{{0x100, {"v_cmp_gt_f32_e32 vcc, v1, v2", true, 0, {1, 5}}},
                                                   {0x200, {"v_cmp_lt_f32_e32 vcc, v1, v2", false, 0, {2, 6}}},
                                                   {0x300, {"v_cmp_lt_f32_e32 vcc, v1, v2", false, 0, {3}}}};  // one element: no tie
  auto sets = verify::tie_sets(spec, inputs, seen);
  ASSERT_EQ(sets.size(), 2u);
  auto value = [&](const verify::AimedSet& s, uint64_t e) { return verify::element_number("f32", verify::element_bits(*s.run.args[0].init.bytes, "f32", e)); };
  EXPECT_EQ(value(sets[0], 1), 15);  // above the largest, 7: 2 * 7 + 1
  EXPECT_EQ(value(sets[0], 5), 15);
  EXPECT_EQ(value(sets[0], 4), 7) << "the other elements keep their values";
  EXPECT_EQ(value(sets[1], 2), -7);  // below the smallest, -3
  EXPECT_EQ(value(sets[1], 6), -7);
  EXPECT_NE(sets[0].describe().find("x[1] = x[5] = 15, above"), std::string::npos) << sets[0].describe();
}

TEST(TieSets, KillArgmaxsFirstIndexOnTiesFlip) {
  // argmax_kernel keeps per lane the best of the columns it loads 1024 apart; `x > best` as
  // `x >= best` in one of its four element slots returns the later column of a tie in that lane.
  auto k0 = load(corpus::triton_object("gfx942", "argmax_kernel"));
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("argmax_kernel"));
  spec.perf.clear();
  for (auto& a : spec.args) a.vary.reset();
  auto k1 = edited(k0, "argmax_kernel", "v_cmp_gt_f32_e64 s[8:9], v21, v4", "v_cmp_ge_f32_e64 s[8:9], v21, v4");
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  verify::Reference ref(*backend, k0, {spec}, fast);
  auto rep = verify::verify_candidate(ref, k1, fast);
  ASSERT_EQ(rep.verdict, Verdict::Different) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind, "aimed input") << rep.evidence.detail;
  EXPECT_NE(rep.evidence.detail.find("tie"), std::string::npos) << rep.evidence.detail;
  EXPECT_EQ(verify::verify_candidate(ref, k0, fast).verdict, Verdict::Equivalent);
}
