// search/moves/{vmcnt_branches,setprio,interleave}.cpp on corpus kernels: each edit checks clean and
// verifies EQUIVALENT on the spec's small launches; where a move has nothing to do, it proposes nothing.
#include <gtest/gtest.h>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The first `per_kernel` edits of `move` on each kernel: each checks clean and verifies EQUIVALENT.
size_t judge_all(search::Move& move, const std::vector<std::string>& kernels, size_t per_kernel, std::string* fired = nullptr) {
  size_t n = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942", kernels)) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(move, p, k.name);
    if (edits.size() > per_kernel) edits.resize(per_kernel);
    if (edits.empty()) continue;
    if (fired) *fired += k.name + " ";
    const std::string spec = asmevo::testing::spec_without_perf(k.spec);
    for (const search::Edit& e : edits) {
      ++n;
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << "\n" << e.description << "\n" << e.diff() << report.to_text();
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << k.label() << "\n" << e.description << "\n" << e.diff();
    }
  }
  return n;
}

}  // namespace

TEST(VmcntBranchesTest, SplitWaitsVerifyEquivalent) {
  auto move = search::make_vmcnt_branches_move();
  std::string fired;
  const size_t n = judge_all(*move, {"softmax_rows_f32", "layernorm_f32", "reduce_sum_f32", "matmul_tiled_f32", "attention_decode_f32"}, 2, &fired);
  std::cout << "vmcnt-branches fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}

TEST(SetprioTest, BracketedClustersVerifyEquivalent) {
  auto move = search::make_setprio_move();
  std::string fired;
  const size_t n = judge_all(*move, {"matmul_tiled_f32", "kb_matmul_f32", "matmul_kernel"}, 2, &fired);
  std::cout << "setprio fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}

TEST(InterleaveTest, InterleavedLoopBodiesVerifyEquivalent) {
  auto move = search::make_interleave_move();
  std::string fired;
  const size_t n = judge_all(*move, {"matmul_mfma_16x16x16_f16", "matmul_mfma_32x32x2_f32", "matmul_kernel", "matmul_128_kernel"}, 2, &fired);
  std::cout << "interleave fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}
