// search/moves/{dpp_permute,pk_math}.cpp on corpus kernels: each edit checks clean and verifies
// EQUIVALENT on the spec's small launches; and the cases each move must refuse, with the reason.
#include <gtest/gtest.h>

#include "search/moves/dpp_permute.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The refusal reason of every DS cross-lane read of `kernel` (gfx942), in line order.
std::vector<std::string> refusals(const corpus::Kernel& k) {
  auto p = program::Program::recover(load(k.code_object));
  const program::Function* f = p.function(k.name);
  std::vector<std::string> out;
  for (size_t i = f->begin; i < f->end; ++i) {
    const auto& l = p.text_line(i);
    if (l.inst && (l.inst->mnemonic == "ds_bpermute_b32" || l.inst->mnemonic == "ds_swizzle_b32"))
      out.push_back(search::dpp_permute_refusal(p, k.name, i));
  }
  return out;
}

}  // namespace

TEST(DppPermuteTest, XorButterfliesBecomeDppAndVerifyEquivalent) {
  auto move = search::make_dpp_permute_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"rmsnorm_f16", "log_softmax_rows_f32", "layernorm_f32"}, 2, &fired);
  EXPECT_EQ(fired, "rmsnorm_f16 log_softmax_rows_f32 layernorm_f32 ");
  std::cout << "dpp-permute fired on: " << fired << "\n";
  EXPECT_GE(n, 5u);
}

TEST(DppPermuteTest, RefusesShflDownTreesAndCrossRowSwaps) {
  // hipcc's __shfl_down(v, d): lane i reads i + d, or itself past lane 63: no DPP row pattern gives
  // that on every lane, so every one is refused.
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"reduce_sum_f32"}))
    for (const std::string& why : refusals(k)) EXPECT_FALSE(why.empty()) << k.label();
  // The xor-16 / xor-32 steps of __shfl_xor trees cross rows: refused; xor 8..1 accepted.
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"rmsnorm_f16"})) {
    auto why = refusals(k);
    ASSERT_GE(why.size(), 6u) << k.label();
    EXPECT_EQ(why[0], "the permutation is not a DPP row/bank pattern");  // xor 32
    EXPECT_EQ(why[1], "the permutation is not a DPP row/bank pattern");  // xor 16
    for (size_t i = 2; i < 6; ++i) EXPECT_EQ(why[i], "") << "step " << i;
  }
  // Triton's ds_swizzle SWAP,16 (lane i ^ 16) in decode attention: refused.
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"decode_attention_kernel"}))
    for (const std::string& why : refusals(k)) EXPECT_FALSE(why.empty()) << k.label();
}

TEST(PkMathTest, PairsBecomePackedAndVerifyEquivalent) {
  auto move = search::make_pk_math_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"sigmoid_f32_vec4", "vector_add_kernel", "gelu_add_kernel", "layernorm_kernel"}, 2, &fired);
  std::cout << "pk-math fired on: " << fired << "\n";
  EXPECT_EQ(fired, "sigmoid_f32_vec4 vector_add_kernel gelu_add_kernel layernorm_kernel ");
  EXPECT_GE(n, 5u);
}

TEST(PkMathTest, RefusesUnpairableSourcesAndDependentHalves) {
  // vector_add_kernel (Triton) adds v[4:5] += v[8:9] as two v_add_f32: merged. Changed so that the
  // high half reads v10 (no register pair (v8, v10)) or the low half's result v4, it must not be.
  const corpus::Kernel k = corpus::kernels("gfx942", {"vector_add_kernel"}).at(0);
  auto p = program::Program::recover(load(k.code_object));
  const size_t lo = find_line(p, k.name, "v_add_f32_e32 v4, v4, v8"), hi = find_line(p, k.name, "v_add_f32_e32 v5, v5, v9");
  ASSERT_NE(lo, 0u);
  ASSERT_NE(hi, 0u);
  auto move = search::make_pk_math_move();
  auto merges = [&](const program::Program& q) {
    for (const search::Edit& e : propose_whole(*move, q, k.name))
      if (e.hunks.size() == 2 && e.description.find("v_add_f32_e32 v4, v4, v8") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(merges(p));
  for (const char* changed : {"v_add_f32_e32 v5, v5, v10", "v_add_f32_e32 v5, v4, v9", "v_add_f32_e64 v5, v5, -v9"}) {
    search::Edit e;
    e.kernel = k.name;
    e.hunks.push_back(search::make_hunk(p, hi, hi, {changed}));
    auto q = program::Program::recover(rebuilt(search::apply_edit(p, e), "q.co"));
    EXPECT_FALSE(merges(q)) << changed;
  }
}
