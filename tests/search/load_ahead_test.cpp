// search/moves/load_ahead.cpp on the HIP corpus's MFMA matmuls: each edit checks clean and verifies
// EQUIVALENT on the spec's launches (`vary:` boundary launches included) and on launches that cover the
// trip count (K = 0: no iteration; one tile: the copy's first exit test leaves at once; 2, 3, 4 tiles
// with partial last tiles: both halves of the unrolled copy and both exits) with M, N not multiples of
// the tile, and a 32-lane workgroup, for which the EXEC guard keeps the original loop; every corpus
// kernel it edits verifies EQUIVALENT; and the refusals, with reasons.
#include <gtest/gtest.h>

#include <tuple>

#include "search/moves/load_ahead.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

struct MfmaKernel {
  std::string name, dtype;
  int tile, k_step;
};
const std::vector<MfmaKernel> kMfma{{"matmul_mfma_16x16x16_f16", "f16", 16, 16},  {"matmul_mfma_32x32x8_f16", "f16", 32, 8},
                                    {"matmul_mfma_16x16x16_bf16", "bf16", 16, 16}, {"matmul_mfma_32x32x8_bf16", "bf16", 32, 8},
                                    };
// Refused today: the epilogue's v_mad_u64_u32 reads a VGPR the loads write (v7 / v19, as the high half of a
// 64-bit addend whose high result is overwritten), so liveness keeps it live after the loop.
const std::vector<std::string> kRefusedF32{"matmul_mfma_16x16x4_f32", "matmul_mfma_32x32x2_f32"};

// One launch of C[M][N] = A[M][K] B[K][N], one wave per tile (corpus/hip/matmul_mfma_*.hip), `lanes` work-items per workgroup.
std::string mfma_spec(const MfmaKernel& k, int m, int n, int kk, int lanes) {
  const auto path = asmevo::testing::scratch_dir("load_ahead", "") /
                    (k.name + "_" + std::to_string(m) + "_" + std::to_string(n) + "_" + std::to_string(kk) + "_" + std::to_string(lanes) + ".yaml");
  auto count = [](int v) { return std::to_string(std::max(1, v)); };
  const std::string text = "kernel: " + k.name + "\ngrid: [" + std::to_string((n + k.tile - 1) / k.tile) + ", " + std::to_string((m + k.tile - 1) / k.tile) +
                           ", 1]\nblock: [" + std::to_string(lanes) + ", 1, 1]\ndynamic_lds: 0\nseed: 13\ninputs: 2\nspecial: true\nargs:\n" +
                           "  - {name: A, buffer: " + k.dtype + ", count: " + count(m * kk) + ", init: {normal: [0, 1]}}\n" +
                           "  - {name: B, buffer: " + k.dtype + ", count: " + count(kk * n) + ", init: {normal: [0, 1]}}\n" +
                           "  - {name: C, buffer: f32, count: " + count(m * n) + ", output: true}\n" +
                           "  - {name: M, value: " + std::to_string(m) + ", type: i32}\n  - {name: N, value: " + std::to_string(n) +
                           ", type: i32}\n  - {name: K, value: " + std::to_string(kk) + ", type: i32}\n";
  write_file_atomic(path.string(), text);
  return path.string();
}

// The kernel's back branch: the s_cbranch_scc that follows its MFMA's block.
size_t loop_branch(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  bool mfma = false;
  for (size_t i = f->begin; i < f->end; ++i) {
    mfma |= p.text_line(i).text.rfind("v_mfma", 0) == 0;
    if (mfma && p.text_line(i).text.rfind("s_cbranch_scc", 0) == 0) return i;
  }
  ADD_FAILURE() << kernel << " has no back branch after an MFMA";
  return 0;
}

}  // namespace

TEST(LoadAheadTest, MfmaMatmulsKeepTwoTilesInFlightAndVerifyEquivalent) {
  auto move = search::make_load_ahead_move();
  for (const MfmaKernel& mk : kMfma) {
    const corpus::Kernel k = corpus::kernels("gfx942", {mk.name}).at(0);
    auto k0 = load(k.code_object);
    const program::Program p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, mk.name);
    ASSERT_EQ(edits.size(), 1u) << mk.name;
    std::cout << edits[0].description << "\n";
    auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
    auto report = checked(k1, mk.name);
    EXPECT_TRUE(report.clean()) << mk.name << "\n" << report.to_text() << edits[0].diff();
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << mk.name;
    const int s = mk.k_step;
    for (const auto& [m, n, kk, lanes] : {std::tuple{5, 7, 0, 64}, {17, 9, 1, 64}, {mk.tile, mk.tile, s, 64}, {9, 20, 2 * s - 1, 64},
                                          {20, 19, 3 * s, 64}, {33, 31, 4 * s - 1, 64}, {20, 19, 3 * s + 1, 32}}) {
      EXPECT_EQ(verdict(k0, k1, mfma_spec(mk, m, n, kk, lanes)), verify::Verdict::Equivalent)
          << mk.name << " M N K = " << m << " " << n << " " << kk << ", " << lanes << " lanes";
    }
    // Applied once: the loop it made is left alone.
    EXPECT_TRUE(propose_whole(*move, program::Program::recover(k1), mk.name).empty()) << mk.name;
  }
}

TEST(LoadAheadTest, RefusesWithReasons) {
  const corpus::Kernel mm = corpus::kernels("gfx942", {"matmul_mfma_16x16x16_f16"}).at(0);
  const program::Program p = program::Program::recover(load(mm.code_object));
  const size_t br = loop_branch(p, mm.name);
  ASSERT_EQ(search::load_ahead_refusal(p, mm.name, br), "");
  EXPECT_NE(search::load_ahead_refusal(p, mm.name, br - 1).find("not an s_cbranch_scc"), std::string::npos);
  // Variants of the loop: a line inserted before `anchor`.
  const std::string mfma = "v_mfma_f32_16x16x16_f16 v[2:5], v[24:25], v[0:1], v[2:5]";
  const std::string skipped = "v_ashrrev_i32_e32 v19, 31, v18";  // under the first load's s_cbranch_execz
  const std::vector<RefusalCase> cases{
      {"global_store_dword v[8:9], v2, off", mfma, "only ALU and MFMA code"},
      {"s_waitcnt lgkmcnt(0)", mfma, "only ALU and MFMA code"},
      {"s_mov_b64 exec, -1", mfma, "writes EXEC"},
      // What an execz skip covers must be inert with EXEC = 0: an SGPR write is not.
      {"v_cmp_gt_i32_e64 s[24:25], s6, v18", skipped, "acts with EXEC = 0"},
      {"s_add_i32 s24, s24, 1", skipped, "acts with EXEC = 0"},
      // The compute reads an SGPR the loads write (s[14:15]): the next tile's loads would clobber it.
      {"v_cndmask_b32_e64 v6, v6, v6, s[14:15]", mfma, "which the loop's compute uses"},
      // The counter code reads a loaded register: it would run before the wait.
      {"v_add_u32_e32 v11, v11, v17", "s_add_i32 s17, s17, 16", "reads v17"},
      // A loaded register live after the loop: the second set would hold the last tile.
      {"v_mov_b32_e32 v6, v17", "v_add_u32_e32 v0, s7, v7", "live after the loop"},
      // An unrelated accumulator update in the compute: still edited.
      {"v_add_u32_e32 v6, 0, v6", mfma, ""},
  };
  expect_refusals(p, mm.name, *search::make_load_ahead_move(), asmevo::testing::spec_without_perf(mm.spec), cases,
                  [&](const program::Program& q) { return search::load_ahead_refusal(q, mm.name, loop_branch(q, mm.name)); });

  // An LDS-tiled GEMM: its loop has a barrier and LDS code (register-double-buffer's ground).
  const corpus::Kernel tiled = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  const program::Program pt = program::Program::recover(load(tiled.code_object));
  EXPECT_TRUE(propose_whole(*search::make_load_ahead_move(), pt, tiled.name).empty());
}

TEST(LoadAheadTest, EveryCorpusKernelItEditsVerifiesEquivalent) {
  auto move = search::make_load_ahead_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  for (const std::string& name : kRefusedF32)
    EXPECT_EQ(std::find_if(changed.begin(), changed.end(), [&](const std::string& l) { return l.find(name) != std::string::npos; }), changed.end()) << name;
  for (const MfmaKernel& mk : kMfma)
    EXPECT_NE(std::find_if(changed.begin(), changed.end(), [&](const std::string& l) { return l.find(mk.name) != std::string::npos; }), changed.end())
        << mk.name;
}
