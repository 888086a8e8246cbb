// Verification on perf launches (launch spec v3): each perf launch runs with full-size buffers on a
// sample of its workgroups, the same for K0 and K1, and catches what only large sizes expose. The
// candidate here computes the global index with a 16-bit add (v_add_u16): right for every index
// below 65536, so the spec's small adversarial launches (4321 elements) cannot tell it apart; at the
// perf launch's 1M elements every workgroup from 256 on writes to the wrong place.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "verify/verify.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;
using verify::Verdict;

namespace {

const std::string kObject = corpus::hip_object("gfx942", "vector_add.co");

const char* const kSmall = asmevo::testing::kVectorAddSmallSpec;
// 1M elements: 4096 workgroups, 12 MiB of buffers.
const std::string kWithPerf = std::string(kSmall) +
                              "perf:\n  - {name: stream_1m, grid: [4096, 1, 1], values: {n: 1048576}, "
                              "counts: {a: 1048576, b: 1048576, out: 1048576}}\n";

codeobj::CodeObject original() { return codeobj::CodeObject::parse(read_file_bytes(kObject), kObject); }

codeobj::CodeObject with_16bit_index() {
  auto p = program::Program::recover(original());
  const program::Function* f = p.function("vector_add");
  mutants::Mutant m;
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).inst && p.text_line(i).text.find("v_add_u32_e32 v0, s2, v0") != std::string::npos)
      m.edits.push_back({i, "v_add_u16_e32 v0, s2, v0", false, p.text_line(i).text});
  if (m.edits.size() != 1) throw std::runtime_error("vector_add no longer has its index add");
  return codeobj::CodeObject::parse(mutants::build_mutant(p, m), "index16.co");
}

verify::VerifyReport check(const std::string& spec, const codeobj::CodeObject& k1) {
  auto backend = verify::make_emulator_backend(2);
  codeobj::CodeObject k0 = original();
  verify::Reference ref(*backend, k0, {emu::parse_launch_spec_text(spec, "spec.yaml")});
  return verify::verify_candidate(ref, k1);
}

TEST(PerfVerify, SmallLaunchesMissTheSixteenBitIndex) {
  auto r = check(kSmall, with_16bit_index());
  EXPECT_EQ(r.verdict, Verdict::Equivalent) << r.to_text();
  EXPECT_TRUE(r.sampled_runs.empty());
}

TEST(PerfVerify, PerfLaunchOnSampledWorkgroupsCatchesIt) {
  auto r = check(kWithPerf, with_16bit_index());
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  ASSERT_FALSE(r.mismatches.empty());
  EXPECT_EQ(r.mismatches[0].run_label.rfind("perf stream_1m (", 0), 0u) << r.mismatches[0].run_label;
  EXPECT_GE(r.mismatch_count, 256u);  // at least one sampled workgroup's worth
  // The report says which launch and which workgroups.
  ASSERT_EQ(r.sampled_runs.size(), 1u);
  const auto& s = r.sampled_runs[0];
  EXPECT_EQ(s.workgroups_total, 4096u);
  EXPECT_EQ(s.workgroups.front(), "(0,0,0)");
  EXPECT_EQ(s.workgroups.back(), "(4095,0,0)");
  EXPECT_LE(s.workgroups.size(), 16u);
  EXPECT_EQ(s.buffer_bytes, 3u * 4 * 1048576);
  EXPECT_NE(s.launch.find("perf launch 'stream_1m' (spec.yaml:16)"), std::string::npos) << s.launch;
  EXPECT_NE(r.to_text().find("sampled: perf stream_1m"), std::string::npos) << r.to_text();
  EXPECT_NE(r.to_text().find("(4095,0,0)"), std::string::npos);
  nlohmann::json j = r.to_json();
  ASSERT_EQ(j["sampled_runs"].size(), 1u);
  EXPECT_EQ(j["sampled_runs"][0]["workgroups"].back(), "(4095,0,0)");
  EXPECT_EQ(j["sampled_runs"][0]["workgroups_total"], 4096);
}

TEST(PerfVerify, OriginalAgreesWithItselfOnTheSample) {
  codeobj::CodeObject k0 = original();
  auto r = check(kWithPerf, k0);
  EXPECT_EQ(r.verdict, Verdict::Equivalent) << r.to_text();
  EXPECT_EQ(r.runs_done, 26u + 1u);  // 2 launches x (4 input sets + 5 magnitude + 1 signed tiny + 3 literal sets), then the perf launch
  ASSERT_EQ(r.sampled_runs.size(), 1u);
}

// vector_add with out + 4 * i computed by a 32-bit add of the low halves: the carry into the high
// half is dropped, which is right while no accessed range crosses a 4 GiB boundary.
codeobj::CodeObject with_dropped_carry() {
  auto p = program::Program::recover(original());
  const program::Function* f = p.function("vector_add");
  mutants::Mutant m;
  for (size_t i = f->begin; i < f->end && m.edits.empty(); ++i)
    if (p.text_line(i).inst && p.text_line(i).text == "v_lshl_add_u64 v[0:1], s[2:3], 0, v[0:1]") {
      m.edits.push_back({i, "v_add_u32_e32 v0, s2, v0", false, p.text_line(i).text});
      m.edits.push_back({i + 1, "v_mov_b32_e32 v1, s3", true, {}});
    }
  if (m.edits.size() != 2) throw std::runtime_error("vector_add no longer has its 64-bit address add");
  return codeobj::CodeObject::parse(mutants::build_mutant(p, m), "no_carry.co");
}

// Small launches of 64 elements (256-byte buffers: at 256-byte alignment they never cross a 4 GiB
// boundary, straddled or not) and `inputs` random sets, so the number of runs before the perf launch
// changes with `inputs`; the perf launch's 4 MiB buffers cross one when straddled.
std::string tiny_buffers_with_perf(int inputs) {
  return fmt::format(R"(kernel: vector_add
grid: [1, 1, 1]
block: [256, 1, 1]
seed: 1
inputs: {}
special: true
args:
  - {{name: a, buffer: f32, count: 64, init: {{normal: [0, 1]}}}}
  - {{name: b, buffer: f32, count: 64, init: {{uniform: [-1, 1]}}}}
  - {{name: out, buffer: f32, count: 64, output: true}}
  - {{name: n, value: 64, type: i32}}
perf:
  - {{name: stream_1m, grid: [4096, 1, 1], values: {{n: 1048576}}, counts: {{a: 1048576, b: 1048576, out: 1048576}}}}
)",
                     inputs);
}

size_t perf_run_index(const verify::Reference& ref) {
  for (size_t i = 0; i < ref.runs().size(); ++i)
    if (ref.run_inputs()[i].kind == "perf launch") return i;
  throw std::runtime_error("no perf run");
}

TEST(PerfVerify, PerfRunStraddlesFourGigabyteBoundariesWhateverRunsPrecedeIt) {
  // Only the perf launch can show the dropped carry (the small buffers never cross a boundary). Its
  // candidate run straddles and fills undefined registers at every run index, not one index in four.
  auto backend = verify::make_emulator_backend(2);
  codeobj::CodeObject k0 = original(), k1 = with_dropped_carry();
  std::set<size_t> indices_mod_4;
  for (int inputs = 1; inputs <= 4; ++inputs) {
    verify::Reference ref(*backend, k0, {emu::parse_launch_spec_text(tiny_buffers_with_perf(inputs), "spec.yaml")});
    const size_t perf = perf_run_index(ref);
    indices_mod_4.insert(perf % 4);
    const verify::RunVariant v = ref.candidate_conditions(perf, {});
    EXPECT_TRUE(v.straddle_4g) << "perf run " << perf;
    EXPECT_NE(v.register_fill, 0u) << "perf run " << perf;
    verify::VerifyOptions fixed;
    fixed.vary_run_conditions = false;
    EXPECT_FALSE(ref.candidate_conditions(perf, fixed).straddle_4g);
    auto r = verify::verify_candidate(ref, k1);
    ASSERT_NE(r.verdict, Verdict::Equivalent) << "inputs: " << inputs << "\n" << r.to_text();
    const std::string& where = r.verdict == Verdict::Fault ? r.fault_run : r.mismatches.at(0).run_label;
    EXPECT_EQ(where.rfind("perf stream_1m (", 0), 0u) << where;
    EXPECT_NE(where.find("buffers across 4 GiB boundaries"), std::string::npos) << where;
    EXPECT_EQ(verify::verify_candidate(ref, k0).verdict, Verdict::Equivalent);
  }
  EXPECT_EQ(indices_mod_4.size(), 4u) << "the inputs counts should put the perf run at every index modulo 4";
}

TEST(PerfVerify, OriginalThatNeedsPackedBuffersOnThePerfLaunchKeepsThem) {
  // K0 is the dropped-carry kernel itself: right in every small run (the first-run probe sees no
  // address sensitivity) and wrong at full size across a boundary. The reference notices on the perf
  // run, says so, and runs candidates there with packed buffers: K0 agrees with itself.
  auto backend = verify::make_emulator_backend(2);
  codeobj::CodeObject k0 = with_dropped_carry();
  verify::Reference ref(*backend, k0, {emu::parse_launch_spec_text(tiny_buffers_with_perf(2), "spec.yaml")});
  EXPECT_FALSE(ref.address_sensitive());
  const size_t perf = perf_run_index(ref);
  const verify::RunVariant v = ref.candidate_conditions(perf, {});
  EXPECT_FALSE(v.straddle_4g);
  EXPECT_NE(v.register_fill, 0u) << "the register fill alone leaves K0's results as they are";
  bool noted = false;
  for (const auto& n : ref.notes())
    noted |= n.find("perf stream_1m") != std::string::npos && n.find("straddle 4 GiB boundaries") != std::string::npos &&
             n.find("packed buffers") != std::string::npos;
  EXPECT_TRUE(noted) << fmt::format("{}", fmt::join(ref.notes(), "\n"));
  auto r = verify::verify_candidate(ref, k0);
  EXPECT_EQ(r.verdict, Verdict::Equivalent) << r.to_text();
}

}  // namespace
