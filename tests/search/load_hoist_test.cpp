// search/moves/load_hoist.cpp on Triton's GEMMs: the edits check clean and verify EQUIVALENT on the
// spec's small launches (gfx942, gfx90a), and what the move must not cross refuses.
#include <gtest/gtest.h>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

TEST(LoadHoistTest, TritonGemmsVerifyEquivalent) {
  auto move = search::make_load_hoist_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"matmul_kernel", "matmul_128_kernel"}, 1, &fired);
  EXPECT_EQ(fired, "matmul_kernel matmul_128_kernel ");
  EXPECT_EQ(n, 2u);
  // The gfx90a and gfx950 builds leave nothing to move without renaming: gfx90a already issues the next
  // tiles' loads before the barrier except matmul_128_kernel's B tile, whose address registers v32/v33 the
  // body's first ds_read2st64_b64 overwrites; gfx950's matmul_kernel loads its B tile into v[24:27], which
  // the body's ds_read_b128 writes and the first MFMA reads.
  for (const char* arch : {"gfx90a", "gfx950"})
    for (const corpus::Kernel& k : corpus::kernels(arch, {"matmul_kernel", "matmul_128_kernel"})) {
      const auto p = program::Program::recover(load(k.code_object));
      EXPECT_TRUE(propose_whole(*move, p, k.name).empty()) << k.label();
    }
}

TEST(LoadHoistTest, StopsAtWhatItMustNotCross) {
  auto move = search::make_load_hoist_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"matmul_kernel"}).at(0);
  const auto p = program::Program::recover(load(k.code_object));
  auto lines_moved = [&](const program::Program& q) {
    const auto r = program::Program::recover(rebuilt(q, "changed.co"));
    const auto edits = propose_whole(*move, r, k.name);
    return edits.empty() ? std::string("none") : edits[0].description;
  };
  const std::string plain = lines_moved(p);
  EXPECT_NE(plain.find("global loads"), std::string::npos) << plain;
  // The loop body's first global load (the next A tile) after the LDS reads of the current one.
  const size_t a_load = find_line(p, k.name, "buffer_load_dwordx4 v[50:53], v22, s[24:27], 0 offen");
  ASSERT_NE(a_load, 0u);
  // A vmcnt wait before it: the load may not cross it (the wait would then cover it).
  {
    program::Program q = p;
    q.insert_before(a_load, {"s_waitcnt vmcnt(0)"});
    EXPECT_NE(lines_moved(q), plain);
  }
  // Its mask computed from an LDS result: the slice reaches a memory load and stays.
  {
    program::Program q = p;
    const size_t mask = find_line(p, k.name, "v_cndmask_b32_e64 v22, v21, v19, s[2:3]");
    ASSERT_NE(mask, 0u);
    q.replace(mask, mask, {"v_cndmask_b32_e64 v22, v26, v19, s[2:3]"});  // v26 comes from a ds_read_b64
    EXPECT_NE(lines_moved(q), plain);
  }
}

TEST(LoadHoistTest, EveryGfx942CorpusEditVerifiesEquivalent) {
  // Wherever else it fires (a barrier followed by global loads it may move), the edit must check clean
  // and verify EQUIVALENT on the spec's launches.
  auto move = search::make_load_hoist_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  EXPECT_NE(std::find(changed.begin(), changed.end(), "triton/gfx942/matmul_kernel"), changed.end());
}
