// search/moves/kernarg_preload.cpp: kernarg loads of HIP gfx942 kernels become preloaded user
// SGPRs (KD kernarg_preload, user_sgpr_count), the rest of the SGPRs shift, a 256-byte compatibility
// prologue loads the SGPRs on firmware without preloading. Edits check clean, pass the ABI gate and
// verify EQUIVALENT (verification enters every other run at the prologue); a prologue that misses a
// load is caught on the entry without preloading; kernels it must leave alone are left alone.
#include <gtest/gtest.h>

#include <random>

#include "check/check.h"
#include "corpus/index/corpus.h"
#include "rebuild/abi_diff.h"
#include "rebuild/rebuild.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }

codeobj::CodeObject rebuilt(const program::Program& p) { return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), "edited"), "edited"); }

std::vector<search::Edit> propose(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext c{p, kernel, {f->begin, f->end - 1, 0, ""}, rng, 8};
  return search::make_kernarg_preload_move()->propose(c);
}

verify::Verdict verify_small(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& spec, std::string* text = nullptr) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(asmevo::testing::spec_without_perf(spec))});
  verify::VerifyReport r = verify::verify_candidate(ref, k1);
  if (text) *text = r.to_text();
  return r.verdict;
}

}  // namespace

TEST(KernargPreloadTest, VectorAddPreloadsItsArgumentsWithTheCompatibilityPrologue) {
  auto k0 = load(corpus::hip_object("gfx942", "vector_add.co"));
  auto p = program::Program::recover(k0);
  const unsigned user = p.kernel_descriptor("vector_add").user_sgpr_count();
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  const search::Edit& e = edits[0];
  ASSERT_GT(e.kernarg_preload, 0u);
  auto k1 = rebuilt(search::apply_edit(p, e));
  const codeobj::Kernel* k = k1.kernel("vector_add");
  EXPECT_EQ(k->kd.kernarg_preload_length(), e.kernarg_preload);
  EXPECT_EQ(k->kd.kernarg_preload_offset(), 0u);
  EXPECT_EQ(k->kd.user_sgpr_count(), user + e.kernarg_preload);
  // The prologue: loads, wait, branch to entry + 256, padding; preloading firmware enters there.
  auto q = program::Program::recover(k1);
  const program::Function* f = q.function("vector_add");
  std::vector<const program::Line*> insts;
  for (size_t i = f->begin; i < f->end; ++i)
    if (q.text_line(i).inst) insts.push_back(&q.text_line(i));
  ASSERT_GT(insts.size(), 3u);
  EXPECT_EQ(insts[0]->text.rfind("s_load_dword", 0), 0u) << insts[0]->text;
  size_t branch = 0;
  while (branch < insts.size() && insts[branch]->text.rfind("s_branch", 0) != 0) ++branch;
  ASSERT_LT(branch + 1, insts.size());
  EXPECT_EQ(insts[branch - 1]->text, "s_waitcnt lgkmcnt(0)");
  EXPECT_EQ(insts[branch]->inst->branch_target, k->code_address + 256);
  // No kernarg load of the preloaded dwords is left after the prologue.
  for (size_t i = branch + 1; i < insts.size(); ++i)
    if (insts[i]->address >= k->code_address + 256) EXPECT_EQ(insts[i]->text.find("s[0:1], 0x0"), std::string::npos) << insts[i]->text;
  EXPECT_TRUE(rebuild::abi_diff(k0, k1).compatible()) << rebuild::abi_diff(k0, k1).to_text("k0", "k1");
  check::CheckOptions opts;
  opts.kernel = "vector_add";
  auto report = check::check_code_object(k1, opts);
  EXPECT_TRUE(report.clean()) << report.to_text();
  std::string text;
  EXPECT_EQ(verify_small(k0, k1, corpus::hip_spec("vector_add"), &text), verify::Verdict::Equivalent) << text << e.diff();
}

TEST(KernargPreloadTest, EditsOnCorpusKernelsVerifyEquivalent) {
  // A reduction with LDS and workgroup ids, a tiled matmul, a streaming kernel whose load s[0:3]
  // straddles the user SGPRs, an MFMA matmul whose x4 loads become copies: the SGPR shift must
  // move the workgroup ids with the hardware.
  size_t edited = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"softmax_rows_f32", "matmul_tiled_f32", "kb_relu_f32", "matmul_mfma_16x16x16_f16"})) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose(p, k.name);
    if (edits.empty()) continue;
    ++edited;
    auto k1 = rebuilt(search::apply_edit(p, edits[0]));
    check::CheckOptions opts;
    opts.kernel = k.name;
    auto report = check::check_code_object(k1, opts);
    EXPECT_TRUE(report.clean()) << k.name << "\n" << report.to_text();
    std::string text;
    EXPECT_EQ(verify_small(k0, k1, k.spec, &text), verify::Verdict::Equivalent) << k.name << "\n" << text << edits[0].diff();
  }
  EXPECT_EQ(edited, 4u);
}

TEST(KernargPreloadTest, APrologueMissingALoadIsCaughtWithoutPreloadingFirmware) {
  auto k0 = load(corpus::hip_object("gfx942", "vector_add.co"));
  auto p = program::Program::recover(k0);
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  search::Edit broken = edits[0];
  // The first prologue line is a load of preloaded SGPRs: make it an s_nop 0 (same size).
  bool done = false;
  for (search::Hunk& h : broken.hunks)
    for (std::string& l : h.lines)
      if (!done && l.rfind("s_load_dword", 0) == 0) l = "s_nop 0", done = true;
  ASSERT_TRUE(done);
  auto k1 = rebuilt(search::apply_edit(p, broken));
  std::string text;
  // The registers the load should have filled hold nothing: wrong results or a fault.
  EXPECT_NE(verify_small(k0, k1, corpus::hip_spec("vector_add"), &text), verify::Verdict::Equivalent) << text;
  EXPECT_NE(text.find("without kernarg preload"), std::string::npos) << text;
}

TEST(KernargPreloadTest, LeavesPreloadingAndOtherArchKernelsAlone) {
  auto triton = load(corpus::triton_object("gfx942", "vector_add_kernel"));
  EXPECT_TRUE(propose(program::Program::recover(triton), "vector_add_kernel").empty());
  auto gfx90a = load(corpus::hip_object("gfx90a", "vector_add.co"));
  EXPECT_TRUE(propose(program::Program::recover(gfx90a), "vector_add").empty());
}

TEST(KernargPreloadTest, AbiDiffAcceptsOnlyAConsistentPreload) {
  auto k0 = load(corpus::hip_object("gfx942", "vector_add.co"));
  auto p = program::Program::recover(k0);
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  auto k1 = rebuilt(search::apply_edit(p, edits[0]));
  auto diff = rebuild::abi_diff(k0, k1);
  ASSERT_TRUE(diff.compatible());
  bool reported = false;
  for (const auto& c : diff.changes) reported |= c.field == "kernarg_preload.length";
  EXPECT_TRUE(reported) << diff.to_text("k0", "k1");
  // The reverse (dropping a preload) and a preload from another offset stay breaks.
  EXPECT_FALSE(rebuild::abi_diff(k1, k0).compatible());
  auto q = program::Program::recover(k1);
  auto kd = q.kernel_descriptor("vector_add");
  ASSERT_GT(kd.kernarg_preload_length(), 0u);
}

