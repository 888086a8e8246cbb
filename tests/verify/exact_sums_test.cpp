// Exact-sum sets (verify/exact_sums.h): float input buffers that split evenly over the workgroups
// become zeros with one element per workgroup's share holding (g + 1) times the dtype's smallest step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "bench/mutants/mutation.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "tests/verify/input_set_test_util.h"
#include "verify/element_value.h"
#include "verify/exact_sums.h"
#include "verify/verify.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;
using namespace asmevo::inputsettest;

namespace {

const char* const kSpec = R"(kernel: k
grid: [3, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f16, count: 12, init: {normal: [0, 1]}}
  - {name: y, buffer: f32, count: 6, init: {normal: [0, 1]}}
  - {name: w, buffer: f16, count: 4, init: {normal: [0, 1]}}
  - {name: idx, buffer: i32, count: 6, init: {ints: [0, 3]}}
  - {name: keep, buffer: f32, count: 6, init: {normal: [0, 1]}, special: false}
  - {name: out, buffer: f32, count: 3, output: true}
)";

}  // namespace

TEST(ExactSums, EachWorkgroupShareSumsToADifferentSmallMultipleOfTheSmallestStep) {
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(kSpec, "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  std::vector<_Float16> x(12, (_Float16)1.5f);
  inputs[0] = bytes_of(x);
  inputs[1] = bytes_of(std::vector<float>(6, -2.0f));
  inputs[2] = bytes_of(std::vector<_Float16>(4, (_Float16)0.5f));
  inputs[3] = bytes_of(std::vector<int32_t>(6, 1));
  inputs[4] = bytes_of(std::vector<float>(6, 3.0f));
  auto set = verify::exact_sum_set(spec, inputs);
  ASSERT_TRUE(set);
  const emu::LaunchSpec& r = set->run;
  // x: 12 elements over 3 workgroups, shares of 4: elements 0, 4, 8 hold 1, 2, 3 times 2^-24.
  for (uint64_t e = 0; e < 12; ++e)
    EXPECT_EQ(element(r, 0, e), e % 4 ? 0.0 : std::ldexp(static_cast<double>(e / 4 + 1), -24)) << e;
  // y (f32): shares of 2, steps of 2^-149.
  for (uint64_t e = 0; e < 6; ++e) EXPECT_EQ(element(r, 1, e), e % 2 ? 0.0 : std::ldexp(static_cast<double>(e / 2 + 1), -149)) << e;
  // w does not split over 3 workgroups, idx is an integer, keep is special: false: all as the base run.
  EXPECT_NE(r.args[2].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(r.args[3].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(r.args[4].init.kind, emu::InitSpec::Bytes);
  EXPECT_EQ(r.special_variant, -1);
  EXPECT_NE(r.label.find("exact-sum set"), std::string::npos);
  EXPECT_NE(set->description.find("x zero but element 4 * g = (g + 1) * 2^-24"), std::string::npos) << set->description;
}

TEST(ExactSums, NoSetWithoutABufferOfWholeSharesOfAtLeastTwo) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(kSpec, "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  inputs[0] = bytes_of(std::vector<_Float16>(12, (_Float16)0.0f));  // all zero: left alone
  inputs[2] = bytes_of(std::vector<_Float16>(4, (_Float16)0.5f));
  EXPECT_FALSE(verify::exact_sum_set(spec, inputs));
  spec.grid = {12, 1, 1};  // one element per workgroup: no sum to make
  inputs[0] = bytes_of(std::vector<_Float16>(12, (_Float16)1.0f));
  EXPECT_FALSE(verify::exact_sum_set(spec, inputs));
}

namespace {

verify::Reference reference_without_perf_or_vary(verify::Backend& backend, const codeobj::CodeObject& co, const std::string& spec_path,
                                                 const verify::VerifyOptions& options) {
  emu::LaunchSpec spec = emu::load_launch_spec(spec_path);
  spec.perf.clear();  // not needed here: keeps the test fast
  for (auto& a : spec.args) a.vary.reset();
  return verify::Reference(backend, co, {spec}, options);
}

size_t exact_sum_runs(const verify::Reference& ref) {
  size_t n = 0;
  for (const auto& e : ref.run_inputs()) n += e.detail.starts_with("exact small sums");
  return n;
}

}  // namespace

TEST(ExactSums, LayernormMeanWithAWrongQuotientEstimateIsFound) {
  // layernorm_kernel's mean = sum / n_cols with the estimate sum * rcp(n) made sum + rcp(n)
  // (bench/mutants/results/gfx942-issue16-s8.txt, mul-add at 0x1a24): the Newton steps absorb it for
  // every ordinary row; rows summing to k * 2^-24 differ for some k (19 for n_cols 900; bench/mutants/
  // layernorm_mean_counterexample.py), and the exact-sum set's 41 rows hold k = 1 .. 41.
  const auto k = corpus::kernels("gfx942", {"layernorm_kernel"}).at(0);
  const auto co = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
  const auto prog = program::Program::recover(co);
  std::optional<mutants::Mutant> mul_add;
  for (const auto& m : mutants::generate_mutants(prog, "layernorm_kernel"))
    if (m.op == "mul-add" && m.address == 0x1a24) mul_add = m;
  ASSERT_TRUE(mul_add) << "no mul-add at 0x1a24: the corpus code object changed";
  const auto mutant = codeobj::CodeObject::parse(mutants::build_mutant(prog, *mul_add), "mutant");
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions options;
  options.difference_search_steps = 0;
  const verify::Reference ref = reference_without_perf_or_vary(*backend, co, k.spec, options);
  EXPECT_EQ(exact_sum_runs(ref), 1u);  // one launch shape, and it divides
  const auto r = verify::verify_candidate(ref, mutant, options);
  ASSERT_EQ(r.verdict, verify::Verdict::Different) << r.to_text();
  EXPECT_EQ(r.differing_runs.size(), 1u) << r.to_text();
  EXPECT_NE(r.evidence.detail.find("exact small sums"), std::string::npos) << r.to_text();
  ASSERT_FALSE(r.mismatches.empty());
  EXPECT_EQ(r.mismatches[0].buffer, "mean") << r.to_text();
  // No false rejection: the original against itself.
  EXPECT_EQ(verify::verify_candidate(ref, co, options).verdict, verify::Verdict::Equivalent);
}

TEST(ExactSums, NoSetForAKernelThatDoesNotDivide) {
  // vector_add's tail launch (tests/support/corpus_files.h) splits its 300-element buffers evenly over
  // its 2 workgroups, but no reciprocal runs: nothing for the set to aim at.
  const std::string path = corpus::hip_object("gfx942", "vector_add.co");
  const auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto backend = verify::make_emulator_backend(2);
  const verify::Reference ref(*backend, co, {emu::parse_launch_spec_text(asmevo::testing::kVectorAddSmallSpec, "spec.yaml")});
  EXPECT_EQ(exact_sum_runs(ref), 0u);
  EXPECT_GT(ref.runs().size(), 10u);  // the other aimed and magnitude sets are there
}
