// search/moves/widen_short.cpp on Triton's scalarized f16/bf16 loads: the edits check clean and
// verify EQUIVALENT on the spec's launches (their `vary:` row lengths include odd ones and 1, which
// take the fallback), and loads whose offsets are not adjacent elements are refused.
#include <gtest/gtest.h>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

TEST(WidenShortTest, TritonNormsVerifyEquivalent) {
  auto move = search::make_widen_short_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"rmsnorm_kernel", "layernorm_kernel", "fused_add_rmsnorm_kernel"}, 2, &fired);
  EXPECT_EQ(fired, "rmsnorm_kernel layernorm_kernel fused_add_rmsnorm_kernel ");
  EXPECT_EQ(n, 3u);  // rmsnorm 1 (elements 2, 3), layernorm 1 guard over its first group, fused_add_rmsnorm 1
}

TEST(WidenShortTest, RefusesNonAdjacentElements) {
  // fp8_quant_fn loads elements 256 apart (v0, v0|0x100, ...) and rotary elements 64 apart: no pair.
  auto move = search::make_widen_short_move();
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"fp8_quant_fn_kernel", "rotary_kernel"})) {
    const auto p = program::Program::recover(load(k.code_object));
    EXPECT_TRUE(propose_whole(*move, p, k.name).empty()) << k.label();
  }
}

TEST(WidenShortTest, AWrongFastPathIsToldApart) {
  // The spec's launches take the fast path (n_cols 1000: even row bases, equal masks on full waves):
  // the same edit with the two halves swapped in the unpack verifies DIFFERENT.
  auto move = search::make_widen_short_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"rmsnorm_kernel"}).at(0);
  auto k0 = load(k.code_object);
  const auto p = program::Program::recover(k0);
  auto edits = propose_whole(*move, p, k.name);
  ASSERT_FALSE(edits.empty());
  search::Edit e = edits[0];
  std::cout << e.description << "\n" << e.diff();
  size_t swapped = 0;
  for (std::string& line : e.hunks[0].lines)
    if (line.rfind("v_lshrrev_b32_e32 ", 0) == 0 && line.find(", 16, ") != std::string::npos)
      line.replace(line.find(", 16, "), 6, ", 0, "), ++swapped;  // the high element gets the whole dword
  ASSERT_EQ(swapped, 1u);
  auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
  EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Different);
}
