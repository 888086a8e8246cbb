// Launch spec v3: the `perf:` list (parsing, errors with file:line, perf runs, the v2 stand-in), the
// workgroup sample of a large grid, and the emulator running a subset of a grid's workgroups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"

namespace asmevo::emu {
namespace {

const char* const kV2 = asmevo::testing::kVectorAddSmallSpec;

std::string v3(const std::string& perf) { return std::string(kV2) + "perf:\n" + perf; }

const char* kPerf = "  - {name: decode, grid: [64, 1, 1], values: {n: 16384}, counts: {a: 16384, b: 16384, out: 16384}}\n"
                    "  - {name: prefill, grid: [4096, 1, 1], block: [256, 1, 1], values: {n: 1048576}, counts: {a: 1048576, b: 1048576, out: 1048576}}\n";

std::string error_of(const std::string& text) {
  try {
    parse_launch_spec_text(text, "spec.yaml");
  } catch (const Error& e) {
    return e.format();
  }
  return "no error";
}

TEST(LaunchSpecPerf, ParsesNamedPerfLaunchesOverTheTopLevel) {
  LaunchSpec s = parse_launch_spec_text(v3(kPerf), "spec.yaml");
  ASSERT_EQ(s.perf.size(), 2u);
  EXPECT_EQ(s.perf[0].line, 16);
  std::vector<LaunchSpec> runs = perf_runs(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].perf_name, "decode");
  EXPECT_FALSE(runs[0].perf_fallback);
  EXPECT_EQ(runs[0].grid[0], 64u);
  EXPECT_EQ(runs[0].block[0], 256u);  // from the top level
  EXPECT_EQ(runs[0].args[0].count, 16384u);
  EXPECT_EQ(scalar_bits(runs[0], 3), 16384u);
  EXPECT_EQ(runs[1].grid[0], 4096u);
  EXPECT_EQ(runs[1].args[2].count, 1048576u);
  EXPECT_EQ(runs[1].label, "perf prefill");
  for (const auto& r : runs) EXPECT_TRUE(r.perf.empty() && r.launches.empty() && r.special_variant < 0);
  EXPECT_EQ(perf_description(runs[1]), "perf launch 'prefill' (spec.yaml:17)");
  EXPECT_EQ(shape_text(runs[1]), "grid [4096, 1, 1] x block [256, 1, 1]");
  EXPECT_EQ(perf_run(s, "decode").grid[0], 64u);
  // Verification runs are the launches: x input sets; the perf launches are not among them.
  EXPECT_EQ(expand_runs(s).size(), 2u * 4u);
  for (const auto& r : expand_runs(s)) EXPECT_TRUE(r.perf.empty());
}

TEST(LaunchSpecPerf, V2SpecsTimeTheirFirstVerificationLaunchAndSaySo) {
  LaunchSpec s = parse_launch_spec_text(kV2, "spec.yaml");
  std::vector<LaunchSpec> runs = perf_runs(s);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].perf_fallback);
  EXPECT_EQ(runs[0].perf_name, "full");
  EXPECT_EQ(runs[0].grid[0], 17u);
  EXPECT_EQ(runs[0].label, expand_runs(s)[0].label);
  EXPECT_NE(perf_description(runs[0]).find("first verification launch"), std::string::npos);
  EXPECT_NE(perf_description(runs[0]).find("no perf: list"), std::string::npos);
  // Without launches: the top level.
  std::string plain = kV2;
  plain.erase(plain.find("launches:"), plain.find("args:") - plain.find("launches:"));
  EXPECT_EQ(perf_runs(parse_launch_spec_text(plain)).at(0).perf_name, "top level");
}

TEST(LaunchSpecPerf, UnknownPerfNameListsTheNames) {
  LaunchSpec s = parse_launch_spec_text(v3(kPerf), "spec.yaml");
  try {
    perf_run(s, "decod");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.format().find("decod"), std::string::npos);
    EXPECT_NE(e.format().find("decode, prefill"), std::string::npos) << e.format();
  }
  try {
    perf_run(parse_launch_spec_text(kV2, "spec.yaml"), "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.format().find("no perf: list"), std::string::npos) << e.format();
  }
}

TEST(LaunchSpecPerf, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of(v3("  - {grid: [4, 1, 1]}\n")).find("spec.yaml:16"), std::string::npos);
  EXPECT_NE(error_of(v3("  - {grid: [4, 1, 1]}\n")).find("needs a name"), std::string::npos);
  std::string dup = error_of(v3("  - {name: a}\n  - {name: a}\n"));
  EXPECT_NE(dup.find("spec.yaml:17"), std::string::npos) << dup;
  EXPECT_NE(dup.find("two perf launches"), std::string::npos) << dup;
  std::string key = error_of(v3("  - {name: a, inputs: 3}\n"));
  EXPECT_NE(key.find("spec.yaml:16"), std::string::npos) << key;
  EXPECT_NE(key.find("unknown key 'inputs' in a perf launch"), std::string::npos) << key;
  std::string arg = error_of(v3("  - {name: a, counts: {c: 5}}\n"));
  EXPECT_NE(arg.find("spec.yaml:16"), std::string::npos) << arg;
  EXPECT_NE(arg.find("no argument named 'c'"), std::string::npos) << arg;
  std::string val = error_of(v3("  - {name: a, values: {n: 1.5x}}\n"));
  EXPECT_NE(val.find("spec.yaml:16"), std::string::npos) << val;
  EXPECT_NE(val.find("not a valid i32"), std::string::npos) << val;
  EXPECT_NE(error_of(v3("  - {name: a, values: {a: 3}}\n")).find("not a value argument"), std::string::npos);
  EXPECT_NE(error_of(v3("  - {name: a, grid: [0, 1, 1]}\n")).find(">= 1"), std::string::npos);
  std::string empty = error_of(std::string(kV2) + "perf: []\n");
  EXPECT_NE(empty.find("perf must be a non-empty list"), std::string::npos) << empty;
  EXPECT_NE(empty.find("spec.yaml:15"), std::string::npos) << empty;
}

TEST(WorkgroupSample, CornersFirstLastAndASpread) {
  auto s = sample_workgroups({4096, 1, 1});
  EXPECT_EQ(s.front(), 0u);
  EXPECT_EQ(s.back(), 4095u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());
  EXPECT_GE(s.size(), 8u);
  EXPECT_LE(s.size(), 16u);
  EXPECT_TRUE(std::any_of(s.begin(), s.end(), [](uint64_t g) { return g > 1000 && g < 3000; }));  // the middle
  // A 3-D grid: every corner, so the last row and the last slice (second and third dimension) run.
  std::array<uint32_t, 3> g{7, 5, 3};
  auto c = sample_workgroups(g);
  for (std::string want : {"(0,0,0)", "(6,0,0)", "(0,4,0)", "(6,4,0)", "(0,0,2)", "(6,4,2)"})
    EXPECT_TRUE(std::any_of(c.begin(), c.end(), [&](uint64_t id) { return workgroup_text(g, id) == want; })) << want;
  // Small grids run whole; the same grid always gives the same sample.
  EXPECT_EQ(sample_workgroups({12, 1, 1}).size(), 12u);
  EXPECT_EQ(sample_workgroups({4096, 1, 1}), s);
}

TEST(WorkgroupSubset, OnlyTheChosenWorkgroupsRun) {
  const std::string path = corpus::hip_object("gfx942", "vector_add.co");
  auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  const codeobj::Kernel* k = co.kernel("vector_add");
  ASSERT_NE(k, nullptr);
  program::Decoder decoder(co.target());
  auto prog = Program::build(co, *k, decoder);
  LaunchSpec spec = perf_run(parse_launch_spec_text(v3(kPerf), "spec.yaml"), "decode");  // 64 workgroups
  auto launch = prepare_launch(co, *k, spec, 2);
  RunOptions o;
  o.threads = 2;
  const std::vector<uint64_t> sample{0, 17, 63};
  o.workgroups = sample;  // a span: the ids live in `sample`
  RunResult r = run_launch(*launch, *prog, o);
  EXPECT_EQ(r.stats.workgroups, 3u);
  auto out = launch->contents(launch->buffers[2]);
  auto a = launch->contents(launch->buffers[0]), b = launch->contents(launch->buffers[1]);
  for (uint64_t i = 0; i < 16384; ++i) {
    const uint64_t wg = i / 256;
    float x, y, z;
    std::memcpy(&x, a.data() + 4 * i, 4);
    std::memcpy(&y, b.data() + 4 * i, 4);
    std::memcpy(&z, out.data() + 4 * i, 4);
    if (wg == 0 || wg == 17 || wg == 63) {
      ASSERT_EQ(z, x + y) << i;
    } else {
      uint32_t bits;
      std::memcpy(&bits, &z, 4);
      ASSERT_EQ(bits, 0xffffffffu) << i;  // still poison: the workgroup never ran
    }
  }
  const std::vector<uint64_t> outside{64};
  o.workgroups = outside;
  EXPECT_THROW(run_launch(*launch, *prog, o), Error);  // outside the grid
}

}  // namespace
}  // namespace asmevo::emu
