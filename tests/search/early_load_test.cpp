// search/moves/early_load.cpp: it fires on Triton's norms (gfx942), every gfx942 corpus kernel it edits
// checks clean and verifies EQUIVALENT on the spec's small launches, and what the move must not cross
// (a global store before the barrier, an expcnt wait) keeps the loads behind the barrier.
#include <gtest/gtest.h>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The first edit's description, or "none".
std::string first_edit(search::Move& move, const program::Program& q, const std::string& kernel) {
  const auto r = program::Program::recover(rebuilt(q, "changed.co"));
  const auto edits = propose_whole(move, r, kernel);
  return edits.empty() ? std::string("none") : edits[0].description;
}

}  // namespace

TEST(EarlyLoadTest, FiresOnTritonNorms) {
  // The weight loads after the reduction's last barrier (fused_add_rmsnorm_kernel's behind a barrier
  // that shields its residual stores). Their edits are verified by EveryGfx942CorpusEditVerifiesEquivalent.
  auto move = search::make_early_load_move();
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"rmsnorm_kernel", "layernorm_kernel", "fused_add_rmsnorm_kernel"})) {
    const auto p = program::Program::recover(load(k.code_object));
    const auto edits = propose_whole(*move, p, k.name);
    ASSERT_FALSE(edits.empty()) << k.label();
    EXPECT_NE(edits[0].description.find("before 1 s_barrier"), std::string::npos) << k.label() << ": " << edits[0].description;
  }
}

TEST(EarlyLoadTest, StopsAtWhatItMustNotCross) {
  auto move = search::make_early_load_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"rmsnorm_kernel"}).at(0);
  const auto p = program::Program::recover(load(k.code_object));
  const std::string plain = first_edit(*move, p, k.name);
  ASSERT_NE(plain.find("global loads"), std::string::npos) << plain;
  // The weight load the move issues early, and the barrier it follows.
  const size_t w_load = find_line(p, k.name, "buffer_load_ushort v11, v9, s[4:7], 0 offen");
  ASSERT_NE(w_load, 0u);
  size_t barrier = w_load;
  while (p.text_line(barrier).text != "s_barrier") --barrier;
  // A global store before the barrier (to `out`, which may be the weight buffer in some launch): the
  // barrier orders it before the load, so the load stays behind it.
  {
    program::Program q = p;
    q.insert_before(barrier - 1, {"buffer_store_short v11, v9, s[16:19], 0 offen"});
    EXPECT_EQ(first_edit(*move, q, k.name), "none");
  }
  // An expcnt wait between the barrier and the loads protects store data registers: not crossed.
  {
    program::Program q = p;
    q.insert_before(barrier + 1, {"s_waitcnt expcnt(0)"});
    EXPECT_EQ(first_edit(*move, q, k.name), "none");
  }
  // A vmcnt wait between the barrier and the loads is crossed and counts the moved loads: vmcnt(0)
  // becomes vmcnt(4).
  {
    program::Program q = p;
    q.insert_before(barrier + 1, {"s_waitcnt vmcnt(0)"});
    const auto r = program::Program::recover(rebuilt(q, "changed.co"));
    const auto edits = propose_whole(*move, r, k.name);
    ASSERT_FALSE(edits.empty());
    EXPECT_NE(edits[0].diff().find("s_waitcnt vmcnt(4)"), std::string::npos) << edits[0].diff();
  }
}

TEST(EarlyLoadTest, CountsOnlyTheLoadsThatCrossAWait) {
  // A vmcnt(0) between the first and the second weight load is crossed by the three after it only:
  // it becomes vmcnt(3) (vmcnt(4) would let the first one still be outstanding), and the edit verifies.
  auto move = search::make_early_load_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"rmsnorm_kernel"}).at(0);
  const auto k0 = load(k.code_object);
  const auto p = program::Program::recover(k0);
  const size_t second = find_line(p, k.name, "buffer_load_ushort v12, v5, s[4:7], 0 offen");
  ASSERT_NE(second, 0u);
  program::Program q = p;
  q.insert_before(second, {"s_waitcnt vmcnt(0)"});
  const auto kq = rebuilt(q, "changed.co");
  const auto r = program::Program::recover(kq);
  const auto edits = propose_whole(*move, r, k.name);
  ASSERT_FALSE(edits.empty());
  const std::string diff = edits[0].diff();
  EXPECT_NE(diff.find("+s_waitcnt vmcnt(3)"), std::string::npos) << diff;
  EXPECT_EQ(diff.find("vmcnt(4)"), std::string::npos) << diff;
  const auto k1 = rebuilt(search::apply_edit(r, edits[0]), "k1.co");
  EXPECT_TRUE(checked(k1, k.name).clean()) << diff;
  EXPECT_EQ(verdict(kq, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << diff;
}

TEST(EarlyLoadTest, EveryGfx942CorpusEditVerifiesEquivalent) {
  auto move = search::make_early_load_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  EXPECT_NE(std::find(changed.begin(), changed.end(), "triton/gfx942/rmsnorm_kernel"), changed.end());
}
