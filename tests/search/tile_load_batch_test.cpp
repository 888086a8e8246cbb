// search/moves/tile_load_batch.cpp on the corpus's tiled GEMMs: each edit checks clean and verifies
// EQUIVALENT on the spec's launch and on boundary launches (K = 0: the loop never runs; K = 1 and 16:
// one tile; K = 37: a partial last tile; M, N not multiples of 16); and the refusals, with their reasons.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tuple>

#include "search/moves/moves.h"
#include "search/moves/tile_load_batch.h"
#include "tests/search/move_test_util.h"
#include "tests/search/tiled_gemm_spec.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

std::string gemm_spec(const std::string& kernel, int m, int n, int k, int batch) { return tiled_gemm_spec("tile_load_batch", kernel, m, n, k, batch); }

// The .text line of `kernel`'s first `s_waitcnt vmcnt(0)` followed by the LDS write `write`.
size_t wait_before(const program::Program& p, const std::string& kernel, const std::string& write) {
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i + 1 < f->end; ++i)
    if (p.text_line(i).text == "s_waitcnt vmcnt(0)" && p.text_line(i + 1).text == write) return i;
  ADD_FAILURE() << kernel << " has no vmcnt(0) before " << write;
  return 0;
}

}  // namespace

TEST(TileLoadBatchTest, GemmTileLoadsBatchAndVerifyEquivalent) {
  auto move = search::make_tile_load_batch_move();
  // kb_matmul_tb_f32 (B transposed: the same loop shape with v12) has the same arguments.
  for (const std::string kernel : {"kb_matmul_f32", "kb_bmm_f32", "kb_matmul_tb_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_EQ(edits.size(), 1u) << kernel;
    std::cout << edits[0].description << "\n" << edits[0].diff();
    auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
    auto report = checked(k1, k.name);
    EXPECT_TRUE(report.clean()) << kernel << "\n" << report.to_text();
    const int batch = kernel == "kb_bmm_f32" ? 2 : 1;
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << kernel;
    for (const auto& [m, n, kk] : {std::tuple{5, 7, 0}, {17, 9, 1}, {16, 16, 16}, {20, 19, 37}}) {
      const std::string spec = gemm_spec(kernel, m, n, kk, batch);
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << " M N K = " << m << " " << n << " " << kk;
    }
    // Applied once: the edited kernel's remaining vmcnt(0) is followed by both LDS writes and a wait.
    auto p1 = program::Program::recover(k1);
    EXPECT_TRUE(propose_whole(*move, p1, k.name).empty()) << kernel;
  }
}

TEST(TileLoadBatchTest, RefusesWhatCouldChangeTheResult) {
  const corpus::Kernel mm = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  auto p = program::Program::recover(load(mm.code_object));
  // kb_matmul_f32's K loop: W1 waits for the A element (v14) before `ds_write_b32 v11, v14`; the B element's
  // wait (W2) comes before `ds_write_b32 v11, v14 offset:1024`, then lgkmcnt(0) and the barrier.
  const std::string a_write = "ds_write_b32 v11, v14", b_write = "ds_write_b32 v11, v14 offset:1024";
  const size_t w1 = wait_before(p, mm.name, a_write);
  ASSERT_EQ(search::tile_load_batch_refusal(p, mm.name, w1), "");
  EXPECT_NE(search::tile_load_batch_refusal(p, mm.name, wait_before(p, mm.name, b_write)).find("another wait (s_waitcnt lgkmcnt(0))"), std::string::npos);
  EXPECT_NE(search::tile_load_batch_refusal(p, mm.name, w1 + 1).find("not an s_waitcnt vmcnt(0)"), std::string::npos);
  // The B tile's bounds test, in the region between the two waits.
  const std::string in_region = "s_and_saveexec_b64 s[2:3], s[10:11]";
  const std::string region_start = "v_add_u32_e32 v14, s7, v8";
  auto with = [&](const std::vector<std::string>& lines, const std::string& anchor) {
    const size_t at = [&] {
      const program::Function* f = p.function(mm.name);
      for (size_t i = w1; i < f->end; ++i)
        if (p.text_line(i).text == anchor) return i;
      return size_t{0};
    }();
    EXPECT_NE(at, 0u);
    search::Edit e;
    e.kernel = mm.name;
    e.hunks.push_back(search::make_insertion(at, lines));
    auto q = program::Program::recover(rebuilt(search::apply_edit(p, e), "k1.co"));
    return std::pair{q, wait_before(q, mm.name, a_write)};
  };
  struct Case {
    std::string line, anchor, reason;  // inserted before `anchor`; "" reason: still batched
  };
  const std::vector<Case> cases{
      {"s_barrier", in_region, "a barrier"},
      {"ds_read_b32 v20, v12", in_region, "an LDS access"},
      {"global_store_dword v[2:3], v9, off", in_region, "a store or atomic"},
      {"s_load_dword s20, s[8:9], 0x0", in_region, "does not reorder across"},
      {"s_waitcnt lgkmcnt(0)", in_region, "another wait"},
      {"s_mov_b64 exec, -1", in_region, "changes EXEC"},
      {"s_mov_b64 s[2:3], 0", "global_load_dword v14, v[4:5], off", "writes the saved EXEC"},
      // The A value (v14), read by the region before it rewrites v14: it cannot be renamed there.
      {"v_add_f32_e32 v9, v9, v14", region_start, "reads v14 before writing it"},
      // The LDS write's address, changed by the region: renamed, and copied back after the B write (below).
      {"v_mov_b32_e32 v11, 0", in_region, ""},
      // An accumulator update reading an address register: nothing G reads, nothing in flight.
      {"v_add_f32_e32 v9, v9, v2", in_region, ""},
  };
  for (const auto& [line, anchor, reason] : cases) {
    const std::vector<std::string> lines{line};
    auto [q, w] = with(lines, anchor);
    const std::string why = search::tile_load_batch_refusal(q, mm.name, w);
    if (reason.empty()) {
      EXPECT_EQ(why, "") << lines[0];
      // Batched: the edit of this variant verifies EQUIVALENT against the variant itself.
      auto edits = propose_whole(*search::make_tile_load_batch_move(), q, mm.name);
      ASSERT_EQ(edits.size(), 1u) << lines[0];
      auto q0 = rebuilt(q, "q0.co"), q1 = rebuilt(search::apply_edit(q, edits[0]), "q1.co");
      EXPECT_TRUE(checked(q1, mm.name).clean()) << lines[0];
      EXPECT_EQ(verdict(q0, q1, asmevo::testing::spec_without_perf(mm.spec)), verify::Verdict::Equivalent) << lines[0] << "\n" << edits[0].diff();
    } else EXPECT_NE(why.find(reason), std::string::npos) << lines[0] << ": " << why;
  }
}

TEST(TileLoadBatchTest, FiresOnEveryArchAndOnTheFusedGemms) {
  auto move = search::make_tile_load_batch_move();
  // The fused X·Wᵀ GEMMs (epilogues after the loop), gfx942; and kb_matmul_f32 on gfx90a and gfx950, on the
  // spec's verification launches.
  std::vector<corpus::Kernel> kernels = corpus::kernels("gfx942", {"kb_gemm_add_relu_f32", "kb_matmul_div_gelu_f32"});
  for (const char* arch : {"gfx90a", "gfx950"}) kernels.push_back(corpus::kernels(arch, {"kb_matmul_f32"}).at(0));
  for (const corpus::Kernel& k : kernels) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_FALSE(edits.empty()) << k.label();
    for (const search::Edit& e : edits) {
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << "\n" << report.to_text();
      EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << k.label() << "\n" << e.diff();
    }
  }
}

TEST(TileLoadBatchTest, RefusesTheHipCorpusTileLoopsWithReasons) {
  // matmul_tiled_f32's second wait (the first is batched: TileLoadBatchTest.RenamesHalvesOf64BitPairs);
  // transpose_lds_f32's four groups branch to different waits, or reach the barrier's lgkmcnt wait.
  const std::vector<std::tuple<std::string, std::string, std::string>> cases{
      {"matmul_tiled_f32", "ds_write_b32 v9, v5 offset:1024", "another wait (s_waitcnt lgkmcnt(0))"},
      {"transpose_lds_f32", "ds_write_b32 v0, v5", "paths from the LDS writes end at different waits"},
      {"transpose_lds_f32", "ds_write_b32 v0, v2 offset:3168", "another wait (s_waitcnt lgkmcnt(0))"},
  };
  for (const auto& [kernel, write, reason] : cases) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto p = program::Program::recover(load(k.code_object));
    const std::string why = search::tile_load_batch_refusal(p, kernel, wait_before(p, kernel, write));
    EXPECT_NE(why.find(reason), std::string::npos) << kernel << " " << write << ": " << why;
  }
}

TEST(TileLoadBatchTest, LeavesTheOtherCorpusKernelsWithTheShapeAlone) {
  // The other gfx942 corpus kernels with an `s_waitcnt vmcnt(0)` right before an LDS write (found with asmevo disasm):
  // conv2d_3x3_f32 loops back to the wait before a second vmcnt(0); kb_cumsum_f32 and prefix_scan_inclusive_i32 reach the
  // barrier's lgkmcnt(0) first.
  auto move = search::make_tile_load_batch_move();
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"conv2d_3x3_f32", "kb_cumsum_f32", "prefix_scan_inclusive_i32"})) {
    auto p = program::Program::recover(load(k.code_object));
    EXPECT_TRUE(propose_whole(*move, p, k.name).empty()) << k.label();
    const program::Function* f = p.function(k.name);
    for (size_t i = f->begin; i + 1 < f->end; ++i)
      if (p.text_line(i).text == "s_waitcnt vmcnt(0)" && p.text_line(i + 1).text.rfind("ds_write", 0) == 0)
        std::cout << k.label() << " before " << p.text_line(i + 1).text << ": " << search::tile_load_batch_refusal(p, k.name, i) << "\n";
  }
}

TEST(TileLoadBatchTest, RenamesHalvesOf64BitPairs) {
  // matmul_tiled_f32 (HIP corpus): the region rewrites the A element's v5 (`v_mov v5, 0`), then under the saveexec
  // `v_ashrrev_i32 v5, 31, v4` and reads `v[4:5]` as the B address: v5 takes the odd half of a fresh pair, and v4 is
  // copied into the even half right before the read.
  auto move = search::make_tile_load_batch_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"matmul_tiled_f32"}).at(0);
  auto k0 = load(k.code_object);
  auto p = program::Program::recover(k0);
  auto edits = propose_whole(*move, p, k.name);
  ASSERT_EQ(edits.size(), 1u);
  std::cout << edits[0].description << "\n";
  const search::Edit& e = edits[0];
  bool copied = false;
  for (const search::Hunk& h : e.hunks)
    for (const std::string& l : h.lines) copied |= l.rfind("v_mov_b32_e32 v", 0) == 0 && l.find(", v4") != std::string::npos;
  EXPECT_TRUE(copied) << e.diff();
  auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
  auto report = checked(k1, k.name);
  EXPECT_TRUE(report.clean()) << report.to_text();
  EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent);
  for (const auto& [m, n, kk] : {std::tuple{5, 7, 0}, {17, 9, 1}, {16, 16, 16}, {20, 19, 37}}) {
    const std::string spec = gemm_spec(k.name, m, n, kk, 1);
    EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << "M N K = " << m << " " << n << " " << kk;
  }
}
