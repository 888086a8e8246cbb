// Tie-count sets (verify/exact_sums.h): each workgroup's share holds k elements tied at 1 and the rest at
// the dtype's lowest finite value, k the counts whose reciprocal lies nearest an f32 rounding midpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/mutants/mutation.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "tests/verify/input_set_test_util.h"
#include "verify/exact_sums.h"
#include "verify/verify.h"

using namespace asmevo;
using namespace asmevo::inputsettest;

TEST(TieCounts, ReciprocalMidpointDistanceInUlps) {
  EXPECT_EQ(verify::reciprocal_midpoint_distance(1), 0.5);     // 1 / 1 and 1 / 2^j are floats
  EXPECT_EQ(verify::reciprocal_midpoint_distance(1024), 0.5);
  EXPECT_NEAR(verify::reciprocal_midpoint_distance(3), 1.0 / 6, 1e-9);  // 2^25 / 3 = 11184810 + 2/3 ulps
}

TEST(TieCounts, HardestCountsAreTheNearestToAMidpointInOrder) {
  // Against a brute-force ranking of every count of [1, 1001].
  std::vector<std::pair<double, uint64_t>> all;
  for (uint64_t k = 1; k <= 1001; ++k) all.emplace_back(verify::reciprocal_midpoint_distance(k), k);
  std::sort(all.begin(), all.end());
  const auto hard = verify::hard_reciprocal_counts(1001, 7);
  ASSERT_EQ(hard.size(), 7u);
  for (size_t i = 0; i < hard.size(); ++i) EXPECT_EQ(hard[i], all[i].second) << i;
  EXPECT_EQ(hard[0], 953u);  // 1 / 953 is 0.00052 ulps from an f32 midpoint (computed apart, in C)
  EXPECT_EQ(verify::hard_reciprocal_counts(5, 100).size(), 5u);  // no more than the range holds
  EXPECT_TRUE(verify::hard_reciprocal_counts(0, 3).empty());
}

TEST(TieCounts, EachShareHoldsItsCountOfTiesAtOneAndTheRestAtTheLowestValue) {
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: k
grid: [3, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f32, count: 120, init: {normal: [0, 1]}}
  - {name: h, buffer: f16, count: 24, init: {normal: [0, 1]}}
  - {name: keep, buffer: f32, count: 6, init: {normal: [0, 1]}, special: false}
  - {name: out, buffer: f32, count: 3, output: true}
)", "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  inputs[0] = bytes_of(std::vector<float>(120, 0.25f));
  inputs[1] = bytes_of(std::vector<_Float16>(24, (_Float16)0.5f));
  inputs[2] = bytes_of(std::vector<float>(6, 3.0f));
  auto set = verify::tie_count_set(spec, inputs);
  ASSERT_TRUE(set);
  const emu::LaunchSpec& r = set->run;
  const struct {
    size_t arg;
    uint64_t share;
    double lowest;
  } buffers[] = {{0, 40, -static_cast<double>(std::numeric_limits<float>::max())}, {1, 8, -65504.0}};
  for (const auto& b : buffers) {
    const auto counts = verify::hard_reciprocal_counts(b.share, 3);
    for (uint64_t g = 0; g < 3; ++g) {
      uint64_t ties = 0;
      for (uint64_t i = 0; i < b.share; ++i) {
        const double v = element(r, b.arg, g * b.share + i);
        ties += v == 1.0;
        EXPECT_TRUE(v == 1.0 || v == b.lowest) << b.arg << " " << g << " " << i << " " << v;
      }
      EXPECT_EQ(ties, counts[g]) << "buffer " << b.arg << " workgroup " << g;
    }
  }
  EXPECT_NE(r.args[2].init.kind, emu::InitSpec::Bytes);  // special: false stays as it was
  // A sampled run (a perf launch): the workgroups that run take the hardest counts.
  emu::LaunchSpec sampled = spec;
  sampled.workgroup_sample = {2};
  auto on_sample = verify::tie_count_set(sampled, inputs);
  ASSERT_TRUE(on_sample);
  const auto counts = verify::hard_reciprocal_counts(40, 3);
  const uint64_t expect[] = {counts[1], counts[2], counts[0]};  // workgroups 0, 1, 2
  for (uint64_t g = 0; g < 3; ++g) {
    uint64_t ties = 0;
    for (uint64_t i = 0; i < 40; ++i) ties += element(on_sample->run, 0, g * 40 + i) == 1.0;
    EXPECT_EQ(ties, expect[g]) << "workgroup " << g;
  }
  EXPECT_NE(r.label.find("tie-count set"), std::string::npos);
  EXPECT_NE(set->description.find("tie counts: x: k ties at 1 per share of 40"), std::string::npos) << set->description;
}

TEST(TieCounts, SoftmaxReciprocalWithAWrongEstimateIsFoundOnThePerfLaunch) {
  // kb_softmax_f32's inv = 1 / s with the estimate 1 * rcp(s) made 1 + rcp(s) (mul-add at 0x2d34,
  // bench/mutants/results/gfx942-issue16-s13.txt): the Newton steps absorb it except for rare large s.
  // A share of 32768 is the shortest power-of-two row whose hardest count (24579) the mutant rounds
  // the other way (bench/mutants/recip_estimate_exhaustive.c's model): only the perf launch has such rows.
  const auto k = corpus::kernels("gfx942", {"kb_softmax_f32"}).at(0);
  const auto co = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
  const auto prog = program::Program::recover(co);
  std::optional<mutants::Mutant> mul_add;
  for (const auto& m : mutants::generate_mutants(prog, "kb_softmax_f32"))
    if (m.op == "mul-add" && m.address == 0x2d34) mul_add = m;
  ASSERT_TRUE(mul_add) << "no mul-add at 0x2d34: the corpus code object changed";
  const auto mutant = codeobj::CodeObject::parse(mutants::build_mutant(prog, *mul_add), "mutant");
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: kb_softmax_f32
grid: [3, 1, 1]
block: [64, 1, 1]
seed: 306
inputs: 1
args:
  - {name: x, buffer: f32, count: 51, init: {normal: [0, 3]}}
  - {name: y, buffer: f32, count: 51, output: true}
  - {name: rows, value: 3, type: i32}
  - {name: cols, value: 17, type: i32}
perf:
  - {name: long, grid: [2, 1, 1], block: [256, 1, 1], values: {rows: 2, cols: 32768}, counts: {x: 65536, y: 65536}}
)", "spec.yaml");
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions options;
  options.difference_search_steps = 0;
  const verify::Reference ref(*backend, co, {spec}, options);
  size_t tie_runs = 0, perf_tie_runs = 0;
  for (size_t i = 0; i < ref.run_inputs().size(); ++i)
    if (ref.run_inputs()[i].detail.find("tie counts") != std::string::npos) ++tie_runs, perf_tie_runs += !ref.runs()[i].workgroup_sample.empty();
  EXPECT_EQ(tie_runs, 2u);  // the small shape's and the perf launch's
  EXPECT_EQ(perf_tie_runs, 1u);
  const auto r = verify::verify_candidate(ref, mutant, options);
  ASSERT_EQ(r.verdict, verify::Verdict::Different) << r.to_text();
  EXPECT_EQ(r.differing_runs.size(), 1u) << r.to_text();
  EXPECT_EQ(r.evidence.kind, "aimed input") << r.to_text();
  EXPECT_NE(r.evidence.detail.find("tie counts"), std::string::npos) << r.to_text();
  // No false rejection: the original against itself.
  EXPECT_EQ(verify::verify_candidate(ref, co, options).verdict, verify::Verdict::Equivalent);
}
