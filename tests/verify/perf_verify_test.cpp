// Verification on perf launches (launch spec v3): each perf launch runs with full-size buffers on a
// sample of its workgroups, the same for K0 and K1, and catches what only large sizes expose. The
// candidate here computes the global index with a 16-bit add (v_add_u16): right for every index
// below 65536, so the spec's small adversarial launches (4321 elements) cannot tell it apart; at the
// perf launch's 1M elements every workgroup from 256 on writes to the wrong place.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
