// The optimizer's fitness is the modeled time of the spec's perf launches (geomean when several),
// and every figure the optimizer keeps (log, outcome, store, report) names its launches. Small perf
// launches (16 and 64 workgroups) keep the test fast; the corpus's real-size ones are exercised by
// bench/speedups.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "rebuild/rebuild.h"
#include "search/cascade.h"
#include "search/optimizer.h"
#include "search/report.h"
#include "search/store.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "timing/backend.h"

using namespace asmevo;

namespace {

const char* kV2 = R"(kernel: vector_add
grid: [17, 1, 1]
block: [256, 1, 1]
seed: 1
args:
  - {name: a, buffer: f32, count: 4321, init: {normal: [0, 1]}}
  - {name: b, buffer: f32, count: 4321, init: {uniform: [-1, 1]}}
  - {name: out, buffer: f32, count: 4321, output: true}
  - {name: n, value: 4321, type: i32}
)";
const std::string kV3 = std::string(kV2) +
                        "perf:\n"
                        "  - {name: decode, grid: [16, 1, 1], values: {n: 4096}, counts: {a: 4096, b: 4096, out: 4096}}\n"
                        "  - {name: prefill, grid: [64, 1, 1], values: {n: 16384}, counts: {a: 16384, b: 16384, out: 16384}}\n";

std::vector<uint8_t> k0_bytes() { return read_file_bytes(corpus::hip_object("gfx942", "vector_add.co")); }

// vector_add with `s_nop 7` x4 before its add: slower, equivalent; something for the search to find.
std::vector<uint8_t> padded() {
  auto co = codeobj::CodeObject::parse(k0_bytes(), "vector_add.co");
  auto p = program::Program::recover(co);
  const program::Function* f = p.function("vector_add");
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).text.rfind("v_add_f32", 0) == 0) {
      p.insert_before(i, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"});
      break;
    }
  p.update_resources();
  return rebuild::rebuild(p.listing(), "padded");
}

TEST(PerfFitness, IsTheGeomeanOfTheModeledPerfLaunches) {
  auto co = codeobj::CodeObject::parse(k0_bytes(), "vector_add.co");
  emu::LaunchSpec spec = emu::parse_launch_spec_text(kV3, "v3.yaml");
  search::Cascade cascade(co, "vector_add", {spec}, {});
  ASSERT_EQ(cascade.perf_runs().size(), 2u);
  EXPECT_EQ(cascade.timing_run().perf_name, "decode");  // profiled for hot windows
  search::Individual ind = cascade.individual(k0_bytes(), 0, "vector_add.co");
  ASSERT_EQ(ind.launches.size(), 2u);
  double expect[2];
  for (int i = 0; i < 2; ++i) {
    const emu::LaunchSpec run = emu::perf_run(spec, i ? "prefill" : "decode");
    expect[i] = static_cast<double>(timing::model_kernel({&co, co.kernel("vector_add"), &run}).model.cycles);
    EXPECT_EQ(ind.launches[i].name, run.perf_name);
    EXPECT_EQ(ind.launches[i].cycles, expect[i]);
  }
  EXPECT_GT(expect[1], expect[0]);
  EXPECT_NEAR(ind.cycles, std::sqrt(expect[0] * expect[1]), 1e-9 * ind.cycles);
  EXPECT_NE(cascade.fitness_description().find("geomean of modeled time (as cycles at the peak clock) on perf launches 'decode' (v3.yaml:11), 'prefill' (v3.yaml:12)"),
            std::string::npos)
      << cascade.fitness_description();
}

TEST(PerfFitness, AV2SpecIsTimedOnItsFirstVerificationLaunchAndSaysSo) {
  auto co = codeobj::CodeObject::parse(k0_bytes(), "vector_add.co");
  search::Cascade cascade(co, "vector_add", {emu::parse_launch_spec_text(kV2, "v2.yaml")}, {});
  ASSERT_EQ(cascade.perf_runs().size(), 1u);
  EXPECT_TRUE(cascade.timing_run().perf_fallback);
  EXPECT_NE(cascade.fitness_description().find("the first verification launch"), std::string::npos) << cascade.fitness_description();
  search::Individual ind = cascade.individual(k0_bytes(), 0, "vector_add.co");
  ASSERT_EQ(ind.launches.size(), 1u);
  EXPECT_EQ(ind.cycles, ind.launches[0].cycles);
}

TEST(PerfFitness, OutcomeStoreAndReportNameTheLaunches) {
  const auto dir = asmevo::testing::scratch_dir("search", "perf_fitness");
  const std::string db = (dir / "run.sqlite").string();
  std::filesystem::remove(db);
  search::Store store(db);
  search::OptimizeOptions o;
  o.budget = 12;
  o.seed = 3;
  std::vector<std::string> log;
  search::Progress progress;
  progress.log = [&](const std::string& l) { log.push_back(l); };
  search::KernelJob job{"vector_add", "v3.yaml", {emu::parse_launch_spec_text(kV3, "v3.yaml")}};
  auto r = search::optimize(padded(), "padded.co", {job}, store, o, "test", progress);
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  EXPECT_NE(k.fitness.find("'decode'"), std::string::npos) << k.fitness;
  ASSERT_EQ(k.baseline_launches.size(), 2u);
  ASSERT_EQ(k.best_launches.size(), 2u);
  EXPECT_EQ(k.best_launches[1].name, "prefill");
  EXPECT_NEAR(k.baseline_cycles, std::sqrt(k.baseline_launches[0].cycles * k.baseline_launches[1].cycles), 1e-9 * k.baseline_cycles);
  for (const std::string& l : log)
    if (l.find("accepted #") != std::string::npos) EXPECT_NE(l.find("geomean over perf launches: decode "), std::string::npos) << l;
  // The store: the kernel's fitness and K0's per-launch figures; each timed candidate's.
  auto kernels = store.kernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].fitness, k.fitness);
  auto base = search::parse_launches_json(kernels[0].perf_launches_json);
  ASSERT_EQ(base.size(), 2u);
  EXPECT_EQ(base[0].name, "decode");
  size_t timed = 0;
  for (const auto& c : store.candidates(kernels[0].id))
    if (c.cycles > 0) {
      ++timed;
      auto per = search::parse_launches_json(c.launches_json);
      ASSERT_EQ(per.size(), 2u);
      EXPECT_NEAR(c.cycles, std::sqrt(per[0].cycles * per[1].cycles), 1e-9 * c.cycles);
    }
  EXPECT_GT(timed, 0u);
  auto fin = store.final_result(kernels[0].id);
  ASSERT_TRUE(fin.has_value());
  EXPECT_EQ(search::parse_launches_json(fin->launches_json).size(), 2u);
  const std::string html_path = (dir / "report.html").string();
  search::write_report(db, html_path);
  const std::string html = read_file_text(html_path);
  EXPECT_NE(html.find("per perf launch"), std::string::npos);
  EXPECT_NE(html.find("<code>prefill</code>"), std::string::npos);
  EXPECT_NE(html.find("geomean of modeled time (as cycles at the peak clock) on perf launches"), std::string::npos);
}

}  // namespace
