// Enabling chains (Move::enables, Edit::then; docs/search.md "Enabling chains"): a move whose edit is
// correct but not fast enough alone is tried together with its follow-up's edit on it, as one compound
// candidate that goes through every stage of the cascade against the parent. On kb_bmm_f32
// (tile-load-batch, then register-double-buffer) with a minimum gain that the enabling step alone
// misses: the compound is accepted, the final object re-verifies EQUIVALENT against the corpus spec,
// the enabling step alone is not accepted, and without the follow-up nothing is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "corpus/index/corpus.h"
#include "search/optimizer.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/search/tiled_gemm_spec.h"
#include "tests/support/corpus_files.h"
#include "verify/verify.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("asmevo-chain-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// kb_bmm_f32 searched on a small batched launch (2 x 64 x 256 x 64, 32 workgroups: every tile's load
// latency is on the critical path, so both steps gain), timed on that launch (no perf: list).
struct BmmSearch {
  corpus::Kernel k = corpus::kernels("gfx942", {"kb_bmm_f32"}).at(0);
  std::string spec = movetest::tiled_gemm_spec("enabling_chain", "kb_bmm_f32", 64, 64, 256, 2);
  search::OptimizeResult run(const TempDir& dir, const std::string& db, std::vector<std::string> moves, double min_gain) const {
    search::Store store(dir / db);
    search::OptimizeOptions o;
    o.budget = 12;
    o.seed = 1;
    o.proposers = {"rules"};
    o.moves = std::move(moves);
    o.min_gain = min_gain;
    o.prove_winners_only = true;
    return search::optimize(read_file_bytes(k.code_object), "kb_bmm_f32.co", {{k.name, spec, {emu::load_launch_spec(spec)}}}, store, o, "test");
  }
};

// The minimum gain the test asks for: above tile-load-batch's gain alone on this launch, below the
// compound's (both measured by the searches themselves and checked below).
constexpr double kMinGain = 0.30;

}  // namespace

TEST(EnablingChainTest, TheCompoundIsAcceptedWhereTheEnablingStepAloneIsNot) {
  TempDir dir;
  const BmmSearch s;
  // Without the follow-up: the enabling step is rejected at timing, and nothing else is proposed.
  const search::OptimizeResult alone = s.run(dir, "alone.sqlite", {"tile-load-batch"}, kMinGain);
  ASSERT_EQ(alone.kernels.size(), 1u);
  EXPECT_EQ(alone.kernels[0].accepted, 0u);
  EXPECT_GE(alone.kernels[0].rejected_at.count("timing"), 1u);
  // With it: the compound is accepted, and only the compound.
  const search::OptimizeResult chain = s.run(dir, "chain.sqlite", {"tile-load-batch", "register-double-buffer"}, kMinGain);
  ASSERT_EQ(chain.kernels.size(), 1u);
  const search::KernelOutcome& k = chain.kernels[0];
  EXPECT_EQ(k.final_verdict, "EQUIVALENT");
  EXPECT_EQ(k.accepted_moves.count("tile-load-batch+register-double-buffer"), 1u) << k.accepted;
  EXPECT_EQ(k.accepted_moves.count("tile-load-batch"), 0u);
  EXPECT_GE(k.speedup(), 1.0 / (1.0 - kMinGain));
  std::cout << "kb_bmm_f32 2x64x256x64: " << k.baseline_us << " -> " << k.best_us << " us modeled (" << k.speedup() << "x)\n";
  // The written object against K0 on the corpus spec (its vary: launches and the sampled perf launch)
  // and on boundary trip counts (K = 0, 1, 17, 37).
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(s.k.code_object), "k0.co");
  auto k1 = codeobj::CodeObject::parse(chain.bytes, "k1.co");
  auto backend = verify::make_emulator_backend(1);
  for (const std::string& spec : {asmevo::testing::spec_without_perf(s.k.spec), movetest::tiled_gemm_spec("enabling_chain", "kb_bmm_f32", 17, 9, 1, 2),
                                  movetest::tiled_gemm_spec("enabling_chain", "kb_bmm_f32", 5, 7, 0, 2),
                                  movetest::tiled_gemm_spec("enabling_chain", "kb_bmm_f32", 20, 19, 37, 2)}) {
    verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec)});
    EXPECT_EQ(verify::verify_candidate(ref, k1).verdict, verify::Verdict::Equivalent) << spec;
  }
}

TEST(EnablingChainTest, ACompoundEditRoundTripsAndOnlyTheCascadeAppliesIt) {
  search::Edit step;
  step.kernel = "k";
  step.move = "register-double-buffer";
  step.hunks.push_back({3, 1, {"s_nop 0"}, {"s_nop 1"}});
  search::Edit e;
  e.kernel = "k";
  e.move = "tile-load-batch+register-double-buffer";
  e.hunks.push_back({1, 0, {"s_nop 0"}, {}});
  e.then.push_back(step);
  const search::Edit back = search::Edit::from_json(nlohmann::json::parse(e.to_json().dump()));
  ASSERT_EQ(back.then.size(), 1u);
  EXPECT_EQ(back.then[0].move, "register-double-buffer");
  EXPECT_EQ(back.then[0].hunks.at(0).lines, std::vector<std::string>{"s_nop 0"});
  EXPECT_EQ(back.to_json(), e.to_json());
  EXPECT_NE(e.diff().find("@@ then register-double-buffer\n@@ line 3\n-s_nop 1\n+s_nop 0\n"), std::string::npos) << e.diff();
  // apply_edit has no rebuilt object to apply a step to: it refuses, naming the cascade.
  const corpus::Kernel k = corpus::kernels("gfx942", {"kb_bmm_f32"}).at(0);
  const auto p = program::Program::recover(codeobj::CodeObject::parse(read_file_bytes(k.code_object), "k0.co"));
  e.kernel = k.name;
  try {
    search::apply_edit(p, e);
    ADD_FAILURE() << "a compound edit was applied without its rebuild";
  } catch (const Error& err) {
    EXPECT_NE(err.fix().find("search::Cascade"), std::string::npos) << err.format();
  }
}
