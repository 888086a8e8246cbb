// search/moves/{vmcnt_branches,setprio,interleave}.cpp on corpus kernels: each edit checks clean and
// verifies EQUIVALENT on the spec's small launches; where a move has nothing to do, it proposes nothing.
#include <gtest/gtest.h>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

}  // namespace

TEST(VmcntBranchesTest, SplitWaitsVerifyEquivalent) {
  auto move = search::make_vmcnt_branches_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"softmax_rows_f32", "layernorm_f32", "reduce_sum_f32", "matmul_tiled_f32", "attention_decode_f32"}, 2, &fired);
  std::cout << "vmcnt-branches fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}

TEST(SetprioTest, BracketedClustersVerifyEquivalent) {
  auto move = search::make_setprio_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"matmul_tiled_f32", "kb_matmul_f32", "matmul_kernel"}, 2, &fired);
  std::cout << "setprio fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}

TEST(InterleaveTest, InterleavedLoopBodiesVerifyEquivalent) {
  auto move = search::make_interleave_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"matmul_mfma_16x16x16_f16", "matmul_mfma_32x32x2_f32", "matmul_kernel", "matmul_128_kernel"}, 2, &fired);
  std::cout << "interleave fired on: " << fired << "\n";
  EXPECT_GT(n, 0u);
}
