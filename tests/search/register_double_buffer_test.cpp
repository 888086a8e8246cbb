// search/moves/register_double_buffer.cpp on the corpus's tiled GEMMs, after tile-load-batch (which puts
// the A and B loads of one tile in flight together): each edit checks clean and verifies EQUIVALENT on the
// spec's launches (its `vary:` boundary launches included) and on boundary launches of the trip count
// (K = 0: the loop never runs; K = 1 and 16: one iteration, the guard skips the copy; K = 17 and 37: two
// and three iterations, a partial last tile; M, N not multiples of 16); and the refusals, with reasons.
#include <gtest/gtest.h>

#include <tuple>

#include "search/moves/moves.h"
#include "search/moves/register_double_buffer.h"
#include "tests/search/move_test_util.h"
#include "tests/search/tiled_gemm_spec.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The kernel after its tile-load-batch edit (the first one proposed).
program::Program batched(const program::Program& p, const std::string& kernel) {
  auto edits = propose_whole(*search::make_tile_load_batch_move(), p, kernel);
  EXPECT_FALSE(edits.empty()) << kernel;
  return program::Program::recover(rebuilt(search::apply_edit(p, edits.at(0)), "batched.co"));
}

// The .text line of the kernel's first s_cbranch_scc0/scc1 that follows an s_barrier (the tile loop's
// back branch).
size_t loop_branch(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin + 1; i < f->end; ++i)
    if (p.text_line(i).text.rfind("s_cbranch_scc", 0) == 0 && p.text_line(i - 1).text == "s_barrier") return i;
  ADD_FAILURE() << kernel << " has no back branch after a barrier";
  return 0;
}

}  // namespace

TEST(RegisterDoubleBufferTest, GemmNextTileLoadsIssueDuringTheComputeAndVerifyEquivalent) {
  auto move = search::make_register_double_buffer_move();
  // matmul_tiled_f32 (HIP corpus): its loads' code writes the address pair v[12:13] (under each saveexec, read
  // there only) and v5, which the compute reuses: the pair is renamed whole, to an even-aligned fresh pair.
  for (const std::string kernel : {"kb_matmul_f32", "kb_bmm_f32", "matmul_tiled_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    const program::Program p = batched(program::Program::recover(k0), kernel);
    auto edits = propose_whole(*move, p, kernel);
    ASSERT_EQ(edits.size(), 1u) << kernel;
    std::cout << edits[0].description << "\n" << edits[0].diff();
    auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
    auto report = checked(k1, kernel);
    EXPECT_TRUE(report.clean()) << kernel << "\n" << report.to_text();
    // Against the original kernel (both edits together): the spec's launches, vary: included.
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << kernel;
    const int batch = kernel == "kb_bmm_f32" ? 2 : 1;
    for (const auto& [m, n, kk] : {std::tuple{5, 7, 0}, {17, 9, 1}, {16, 16, 16}, {9, 20, 17}, {20, 19, 37}}) {
      const std::string spec = tiled_gemm_spec("register_double_buffer", kernel, m, n, kk, batch);
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << " M N K = " << m << " " << n << " " << kk;
    }
    // Applied once: the loop it made is left alone.
    auto p1 = program::Program::recover(k1);
    EXPECT_TRUE(propose_whole(*move, p1, kernel).empty()) << kernel;
  }
}

TEST(RegisterDoubleBufferTest, RefusesWithReasons) {
  const corpus::Kernel mm = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  const program::Program p0 = program::Program::recover(load(mm.code_object));
  // Before tile-load-batch the A tile's LDS write and its wait sit in the load region, which so ends in another block.
  EXPECT_NE(search::register_double_buffer_refusal(p0, mm.name, loop_branch(p0, mm.name)).find("apply tile-load-batch first"), std::string::npos)
      << search::register_double_buffer_refusal(p0, mm.name, loop_branch(p0, mm.name));
  const program::Program p = batched(p0, mm.name);
  const size_t br = loop_branch(p, mm.name);
  ASSERT_EQ(search::register_double_buffer_refusal(p, mm.name, br), "");
  EXPECT_NE(search::register_double_buffer_refusal(p, mm.name, br - 1).find("not an s_cbranch_scc"), std::string::npos);
  // Variants of the batched loop: a line inserted before `anchor`.
  const std::string compute = "v_fmac_f32_e32 v9, v14, v30", load_a = "global_load_dword v14, v[2:3], off";
  const std::vector<RefusalCase> cases{
      {"global_store_dword v[2:3], v9, off", compute, "memory other than LDS"},
      {"global_load_dword v20, v[2:3], off", compute, "memory other than LDS"},
      {"s_waitcnt vmcnt(0)", compute, "a vmcnt wait"},
      {"s_mov_b64 exec, -1", compute, "an EXEC write"},
      {"ds_read_b32 v20, v12", load_a, "an LDS access"},
      // The A address computed from an LDS value: the slice the loads need is not ALU code alone.
      {"v_add_f32_e32 v2, v14, v9", "v_fmac_f32_e32 v9, v15, v31", "other than ALU code"},
      // The address step moves up across a line that reads the address: they do not commute.
      {"v_add_u32_e32 v20, v2, v9", "s_add_i32 s7, s7, 16", "does not commute"},
      // An address step early in the compute (v13 is a loop-invariant 0): it joins the slice and moves up with it,
      // still double-buffered.
      {"v_add_u32_e32 v2, v2, v13", compute, ""},
      // The compute reads a register the loads' code writes and that cannot be renamed (an SGPR).
      {"v_cndmask_b32_e64 v20, v9, v9, s[10:11]", compute, "which the loop's compute uses"},
      // The compute reads SCC across the moved counter step, or after the exit test (the copy of the loads writes SCC).
      {"s_cselect_b32 s20, 1, 0", compute, "does not commute"},
      {"s_cselect_b32 s20, 1, 0", "v_add_f32_e32 v9, v9, v29", "scc, which the loop's compute uses"},
      // An unrelated accumulator update in the compute: still double-buffered.
      {"v_add_f32_e32 v9, v9, v31", compute, ""},
  };
  expect_refusals(p, mm.name, *search::make_register_double_buffer_move(), asmevo::testing::spec_without_perf(mm.spec), cases,
                  [&](const program::Program& q) { return search::register_double_buffer_refusal(q, mm.name, loop_branch(q, mm.name)); });

}
