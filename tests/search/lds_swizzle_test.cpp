// search/moves/lds_swizzle.cpp on corpus kernels: its edits check clean and verify EQUIVALENT on the
// spec's small launches, and the kernels and changed programs it must leave alone get no edit.
#include <gtest/gtest.h>

#include <set>

#include "search/moves/lds_swizzle.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

TEST(LdsSwizzleTest, TransposedTileGemmsVerifyEquivalent) {
  auto move = search::make_lds_swizzle_move();
  std::string fired;
  // All three swizzles of two X·Wᵀ GEMMs, whose Ws[tx][k] column reads conflict.
  const size_t n = judge_edits(*move, {"kb_gemm_add_relu_f32", "kb_matmul_tb_f32"}, 3, &fired);
  std::cout << "lds-swizzle fired on: " << fired << "\n";
  EXPECT_EQ(fired, "kb_gemm_add_relu_f32 kb_matmul_tb_f32 ");
  EXPECT_EQ(n, 6u);
}

TEST(LdsSwizzleTest, RefusesWhatItCannotProve) {
  auto move = search::make_lds_swizzle_move();
  // kb_matmul_f32 reads its B tile with ds_read2_b32 at Bs[k][tx] and Bs[k + 1][tx], 64 bytes apart: bit 6 of
  // the first address is tx's, so the second may carry into bits 7-8 and take another XOR term. One base
  // register cannot address both after π: no edit.
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"kb_matmul_f32"})) {
    const auto p = program::Program::recover(load(k.code_object));
    EXPECT_NE(search::lds_swizzle_refusal(p, k.name).find("64 bytes apart and may take different XOR terms"), std::string::npos)
        << search::lds_swizzle_refusal(p, k.name);
    EXPECT_TRUE(propose_whole(*move, p, k.name).empty()) << k.label();
  }
  // An LDS atomic is no read or write the move rewrites.
  {
    const corpus::Kernel k = corpus::kernels("gfx942", {"kb_gemm_add_relu_f32"}).at(0);
    program::Program q = program::Program::recover(load(k.code_object));
    const size_t at = find_line(q, k.name, "v_lshlrev_b32_e32 v10, 6, v7");
    ASSERT_NE(at, 0u);
    q.insert_before(at, {"ds_add_u32 v10, v7"});
    const auto r = program::Program::recover(rebuilt(q, "atomic.co"));
    EXPECT_NE(search::lds_swizzle_refusal(r, k.name).find("not an LDS read or write the move rewrites"), std::string::npos)
        << search::lds_swizzle_refusal(r, k.name);
  }

  const corpus::Kernel k = corpus::kernels("gfx942", {"kb_gemm_add_relu_f32"}).at(0);
  const auto p = program::Program::recover(load(k.code_object));
  const size_t def = find_line(p, k.name, "v_lshlrev_b32_e32 v10, 6, v7");  // the Ws[tx][*] read address
  ASSERT_NE(def, 0u);
  EXPECT_EQ(search::lds_swizzle_refusal(p, k.name), "");
  // A changed program as the optimizer hands it to a move: rebuilt and recovered (decoded lines).
  auto refusal = [&](const program::Program& changed) {
    const auto q = program::Program::recover(rebuilt(changed, "changed.co"));
    const std::string why = search::lds_swizzle_refusal(q, k.name);
    if (!why.empty()) EXPECT_TRUE(propose_whole(*move, q, k.name).empty()) << why;
    return why;
  };
  auto with_def = [&](const std::string& text) {
    program::Program q = p;
    q.replace(def, def, {text});
    return q;
  };
  auto has = [](const std::string& s, const char* part) { return s.find(part) != std::string::npos; };
  // tx * 4 is only 4-byte aligned: a ds_read_b128 there may straddle two 16-byte chunks.
  std::string why = refusal(with_def("v_lshlrev_b32_e32 v10, 2, v7"));
  EXPECT_TRUE(has(why, "known 4-byte aligned only")) << why;
  // An SGPR-derived address (s6 is the loop counter): nothing known of its low bits.
  why = refusal(with_def("v_mov_b32_e32 v10, s6"));
  EXPECT_TRUE(has(why, "known 1-byte aligned only")) << why;
  // The address as a load's result: not ready right after its definition, so not hoisted.
  why = refusal(with_def("global_load_dword v10, v[0:1], off"));
  EXPECT_TRUE(has(why, "not a VALU result")) << why;
  // A second definition in the branch that loads W (skipped where no lane is in bounds): no single
  // last definition.
  {
    program::Program q = p;
    const size_t in_loop = find_line(p, k.name, "global_load_dword v12, v[2:3], off");
    ASSERT_NE(in_loop, 0u);
    q.insert_before(in_loop, {"v_mov_b32_e32 v10, 0"});
    why = refusal(q);
    EXPECT_TRUE(has(why, "no single last definition")) << why;
  }
  // Whole-wave code (EXEC set to all lanes): a definition no longer writes every lane that may run later.
  {
    program::Program q = p;
    q.insert_before(def, {"s_mov_b64 exec, -1"});
    why = refusal(q);
    EXPECT_TRUE(has(why, "EXEC write that may enable lanes")) << why;
  }
}

TEST(LdsSwizzleTest, EveryCorpusKernelGetsAPlanOrAReason) {
  // No verification here (the first test verifies the GEMMs' edits); the table says where the move
  // applies on gfx942 and why not elsewhere.
  std::set<std::string> planned;
  size_t kernels = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942")) {
    ++kernels;
    const auto p = program::Program::recover(load(k.code_object));
    const std::string why = search::lds_swizzle_refusal(p, k.name);
    std::cout << "[lds-swizzle] " << k.label() << ": " << (why.empty() ? "plan" : why) << "\n";
    if (why.empty()) planned.insert(k.name);
  }
  for (const char* gemm : {"kb_matmul_tb_f32", "kb_gemm_add_relu_f32", "kb_gemm_mul_leakyrelu_f32", "kb_matmul_div_gelu_f32",
                           "matmul_kernel", "matmul_128_kernel"})
    EXPECT_TRUE(planned.count(gemm)) << gemm;
  std::cout << "[lds-swizzle] a plan for " << planned.size() << " of " << kernels << " gfx942 corpus kernels\n";
}

TEST(LdsSwizzleTest, Gfx90aAndGfx950EditsVerifyEquivalent) {
  // The first (bank-aware) swizzle of one X·Wᵀ GEMM on the other two archs: gfx950 has 64 banks.
  auto move = search::make_lds_swizzle_move();
  for (const char* arch : {"gfx90a", "gfx950"})
    for (const corpus::Kernel& k : corpus::kernels(arch, {"kb_gemm_add_relu_f32"})) {
      auto k0 = load(k.code_object);
      auto p = program::Program::recover(k0);
      auto edits = propose_whole(*move, p, k.name);
      ASSERT_FALSE(edits.empty()) << k.label() << ": " << search::lds_swizzle_refusal(p, k.name);
      EXPECT_NE(edits[0].description.find(std::string(">> ") + (std::string(arch) == "gfx950" ? "8" : "7")), std::string::npos)
          << edits[0].description;
      auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << report.to_text();
      EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << k.label();
    }
}

TEST(LdsSwizzleTest, TritonMatmulsVerifyEquivalent) {
  // Triton's tiled GEMMs: their addresses are XOR/OR/shift/cndmask/v_xad trees of the work-item id, whose
  // bound comes from .max_flat_workgroup_size (256) with only the x id enabled. matmul_128_kernel's
  // ds_read2st64_b64/ds_write2st64_b64 pairs are 4096 bytes apart (a multiple of 2^(s + 2), one XOR term)
  // and its ds_write2_b32 pairs 64 bytes apart from a base whose bit 6 is known 0 (no carry): all stay one
  // instruction, so s = 6, which needs 64 < 2^6, is skipped there.
  auto move = search::make_lds_swizzle_move();
  std::string fired;
  const size_t n = judge_edits(*move, {"matmul_kernel", "matmul_128_kernel"}, 3, &fired);
  EXPECT_EQ(fired, "matmul_kernel matmul_128_kernel ");
  EXPECT_EQ(n, 5u);  // matmul_kernel s = 7, 6, 8; matmul_128_kernel s = 7, 8
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"matmul_128_kernel"})) {
    const auto p = program::Program::recover(load(k.code_object));
    const auto edits = propose_whole(*move, p, k.name);
    ASSERT_EQ(edits.size(), 2u);
    // The pair stays one instruction on the new base with its offsets unchanged relative to the lower one.
    EXPECT_NE(edits[0].diff().find("ds_write2_b32 v"), std::string::npos) << edits[0].diff();
    EXPECT_NE(edits[0].diff().find("offset0:16 offset1:24"), std::string::npos) << edits[0].diff();
  }
}

TEST(LdsSwizzleTest, TritonMatmulsOnGfx90aVerifyEquivalentAndOnGfx950Refuse) {
  // gfx90a: both GEMMs, matmul_128_kernel with its read2st64/write2st64/write2 pairs, as on gfx942. gfx950:
  // Triton reads the B tile with the transposing ds_read_b64_tr_b16 there (refused: a lane's bytes come
  // from other lanes' addresses).
  auto move = search::make_lds_swizzle_move();
  for (const auto& [arch, kernel] : std::vector<std::pair<std::string, std::string>>{{"gfx90a", "matmul_128_kernel"}, {"gfx90a", "matmul_kernel"}})
    for (const corpus::Kernel& k : corpus::kernels(arch, {kernel})) {
      auto k0 = load(k.code_object);
      auto p = program::Program::recover(k0);
      auto edits = propose_whole(*move, p, k.name);
      ASSERT_FALSE(edits.empty()) << k.label() << ": " << search::lds_swizzle_refusal(p, k.name);
      auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << report.to_text();
      EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << k.label() << "\n"
                                                                                                           << edits[0].diff();
    }
  for (const corpus::Kernel& k : corpus::kernels("gfx950", {"matmul_kernel", "matmul_128_kernel"})) {
    const auto p = program::Program::recover(load(k.code_object));
    EXPECT_NE(search::lds_swizzle_refusal(p, k.name).find("ds_read_b64_tr_b16"), std::string::npos) << search::lds_swizzle_refusal(p, k.name);
  }
}
