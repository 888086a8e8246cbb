// Physics: for every corpus kernel (HIP and Triton) the modeled time is at least the roofline bound
// (bytes every kernel must move / HBM bandwidth, and each unit's work / its peak rate), the model can
// time every instruction the corpus uses, and the cycles do not depend on the emulator's thread count.
#include <filesystem>
#include <gtest/gtest.h>
#include <map>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"
#include "timing/backend.h"
#include "timing/llvm_sched.h"
#include "timing/profile.h"
#include <iostream>
#include "corpus/index/corpus.h"

namespace fs = std::filesystem;

namespace asmevo::timing {
namespace {

struct CorpusCase {
  std::string object, spec;
};

// (code object, launch spec) of every corpus kernel built for `arch`.
std::vector<CorpusCase> corpus_cases(const std::string& arch) {
  std::vector<CorpusCase> out;
  for (const auto& k : corpus::kernels(arch)) out.push_back({k.code_object, k.spec});
  return out;
}

class Physics : public ::testing::TestWithParam<std::string> {};

TEST_P(Physics, ModeledTimeIsAtLeastTheRooflineForEveryCorpusKernel) {
  auto cases = corpus_cases(GetParam());
  ASSERT_GE(cases.size(), 40u) << "corpus for " << GetParam() << " not found or incomplete";
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec + " on " + c.object);
    auto spec = emu::load_launch_spec(c.spec);
    auto co = codeobj::CodeObject::parse(read_file_bytes(c.object), c.object);
    const codeobj::Kernel* k = co.kernel(spec.kernel);
    ASSERT_NE(k, nullptr);
    ModeledRun r = model_kernel({&co, k, &spec}, 2);
    const ModelResult& m = r.model;
    EXPECT_GT(m.cycles, 0u);
    EXPECT_GT(m.unique_bytes, 0u);
    EXPECT_GE(static_cast<double>(m.cycles), m.roofline_cycles);
    EXPECT_GE(static_cast<double>(m.cycles), m.unique_bytes / m.hw->hbm_bw);
    EXPECT_GE(m.hbm_bytes, m.unique_bytes);  // every byte touched came from HBM once (cold caches)
    EXPECT_EQ(m.wave_instructions, r.stats.total());
    // Deterministic: one emulator thread gives the same cycles and traffic as two.
    ModeledRun one = model_kernel({&co, k, &spec}, 1);
    EXPECT_EQ(one.model.cycles, m.cycles);
    EXPECT_EQ(one.model.hbm_bytes, m.hbm_bytes);
  }
}

// Second opinion: over the corpus's straight-line windows (hot windows of every kernel), the model's
// cycles per window execution and LLVM's MCSchedModel estimate must rank windows alike (positively).
TEST_P(Physics, RanksStraightLineWindowsLikeLlvmsSchedulingModel) {
  std::vector<double> ours, llvms;
  for (const auto& c : corpus_cases(GetParam())) {
    auto spec = emu::load_launch_spec(c.spec);
    auto co = codeobj::CodeObject::parse(read_file_bytes(c.object), c.object);
    const codeobj::Kernel* k = co.kernel(spec.kernel);
    ASSERT_NE(k, nullptr);
    ModeledRun r = model_kernel({&co, k, &spec}, 2);
    LlvmSchedModel llvm_model(co.target());
    for (const auto& w : hot_windows(*r.program, r.model, 64, 1000)) {
      const auto execs = r.model.per_inst[w.first].executions;
      if (!execs) continue;
      std::vector<const program::Instruction*> insts;
      for (uint32_t i = w.first; i <= w.last; ++i) insts.push_back(r.program->insts()[i].raw);
      ours.push_back(w.cycles / static_cast<double>(execs));
      llvms.push_back(llvm_model.estimate(insts));
    }
  }
  const double rho = spearman(ours, llvms);
  std::cout << "  [modeled] " << GetParam() << ": Spearman " << rho << " over " << ours.size() << " windows\n";
  EXPECT_GE(ours.size(), 200u);
  EXPECT_GT(rho, 0.3);
}

TEST(Spearman, RanksNotValues) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 300, 4000}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 2, 2, 3}), 1.0, 1e-12);  // ties get average ranks
}

INSTANTIATE_TEST_SUITE_P(Arch, Physics, ::testing::Values("gfx942", "gfx90a", "gfx950"));

}  // namespace
}  // namespace asmevo::timing
