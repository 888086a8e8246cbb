// search/moves/kernarg_hoist.cpp: kernarg loads after the entry block move to the entry into fresh
// SGPRs; every edit on the HIP corpus checks clean and verifies EQUIVALENT; kernels it must leave
// alone are left alone. Also search::diff_edit, which the move uses to fold in refined waits.
#include <gtest/gtest.h>

#include <random>

#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"
#include "rebuild/rebuild.h"
#include "check/check.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"

using namespace asmevo;

namespace {

std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }

codeobj::CodeObject rebuilt(program::Program p) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), "edited"), "edited");
}

std::vector<search::Edit> propose(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext c{p, kernel, {f->begin, f->end - 1, 0, ""}, rng, 8};
  return search::make_kernarg_hoist_move()->propose(c);
}

}  // namespace

TEST(KernargHoistTest, VectorAddLoadsItsPointersAtTheEntry) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  const std::string diff = edits[0].diff();
  EXPECT_NE(diff.find("+s_load_dwordx4 s[8:11], s[0:1], 0x0"), std::string::npos) << diff;
  EXPECT_NE(diff.find("-s_load_dwordx4 s[4:7], s[0:1], 0x0"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+s_mov_b64 s[4:5], s[8:9]"), std::string::npos) << diff;
  auto child = search::apply_edit(p, edits[0]);
  // The hoisted loads come before the kernel's first wait, i.e. in the entry block.
  const program::Function* f = child.function("vector_add");
  size_t hoisted = 0, first_wait = 0;
  for (size_t i = f->begin; i < f->end; ++i) {
    const std::string& t = child.text_line(i).text;
    if (!hoisted && t == "s_load_dwordx4 s[8:11], s[0:1], 0x0") hoisted = i;
    if (!first_wait && t.rfind("s_waitcnt", 0) == 0) first_wait = i;
  }
  EXPECT_LT(hoisted, first_wait);
  auto k1 = rebuilt(child);
  check::CheckOptions opts;
  opts.kernel = "vector_add";
  EXPECT_TRUE(check::check_code_object(k1, opts).clean());
  EXPECT_GT(k1.kernel("vector_add")->kd.sgpr_blocks(), 0u);
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(corpus::hip_spec("vector_add"))});
  EXPECT_EQ(verify::verify_candidate(ref, k1).verdict, verify::Verdict::Equivalent);
}

TEST(KernargHoistTest, LeavesLoadsAWriteOfTheKernargPointerReaches) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  size_t first = f->begin;
  while (p.text_line(first).kind != program::Line::Instr) ++first;
  p.insert_before(first, {"s_mov_b32 s1, s1"});  // harmless, but a write of the pointer that reaches every load
  EXPECT_TRUE(propose(program::Program::recover(rebuilt(p)), "vector_add").empty());
}

TEST(KernargHoistTest, LeavesKernargPreloadKernelsAlone) {
  const std::string triton = corpus::triton_object("gfx942", "vector_add_kernel");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(triton), triton);
  ASSERT_GT(k0.kernel("vector_add_kernel")->kd.kernarg_preload_length(), 0u);
  EXPECT_TRUE(propose(program::Program::recover(k0), "vector_add_kernel").empty());
}

TEST(KernargHoistTest, EveryEditOnTheHipCorpusChecksCleanAndVerifiesEquivalent) {
  size_t changed = 0, kernels = 0;
  for (const auto& k : corpus::kernels("gfx942")) {
    if (k.code_object.find("/corpus/hip/") == std::string::npos) continue;
    ++kernels;
    auto k0 = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
    auto p = program::Program::recover(k0);
    for (const auto& e : propose(p, k.name)) {
      ++changed;
      auto k1 = rebuilt(search::apply_edit(p, e));
      check::CheckOptions opts;
      opts.kernel = k.name;
      auto report = check::check_code_object(k1, opts);
      EXPECT_TRUE(report.clean()) << k.name << "\n" << e.diff() << report.to_text();
      auto backend = verify::make_emulator_backend(2);
      // The spec's small launches only: sampled perf runs at full size for every edit of every corpus
      // kernel would take minutes (tests/verify/perf_verify_test.cpp covers them).
      verify::Reference ref(*backend, k0, {emu::load_launch_spec(asmevo::testing::spec_without_perf(k.spec))});
      EXPECT_EQ(verify::verify_candidate(ref, k1).verdict, verify::Verdict::Equivalent) << k.name << "\n" << e.diff();
    }
  }
  EXPECT_GT(kernels, 30u);
  EXPECT_GT(changed, kernels / 2) << "clang sinks kernarg loads below the bounds check in most corpus kernels";
  RecordProperty("changed", static_cast<int>(changed));
}

TEST(DiffEditTest, ReproducesTheChildFromTheParent) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  program::Program child = p;
  size_t a = 0, b = 0;
  for (size_t i = f->begin; i < f->end; ++i) {
    if (!a && p.text_line(i).text.rfind("v_ashrrev", 0) == 0) a = i;
    if (!b && p.text_line(i).text.rfind("v_add_f32", 0) == 0) b = i;
  }
  child.replace(b, b, {"v_add_f32_e32 v2, v7, v6"});
  child.insert_before(a, {"s_nop 0", "s_nop 1"});
  search::Edit e = search::diff_edit(p, child, "vector_add");
  EXPECT_EQ(e.hunks.size(), 2u) << e.diff();
  auto again = search::apply_edit(p, e);
  ASSERT_EQ(again.text_line_count(), child.text_line_count());
  for (size_t i = 0; i < child.text_line_count(); ++i) EXPECT_EQ(again.text_line(i).text, child.text_line(i).text) << i;
  EXPECT_TRUE(search::diff_edit(p, p, "vector_add").empty());
}

// Two objects assembled separately, one kernel two instructions longer: the assembler fills to the
// next alignment boundary, so the longer one has two fillers fewer after the kernel. The diff of the
// two listings is the two instructions only (it used to include the fillers, and `verify --prove`
// called such an edit "outside the kernel's code").
TEST(DiffEditTest, FillerAfterTheKernelIsNotPartOfTheEdit) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  size_t at = 0, filler = 0;
  for (size_t i = f->begin; i < f->end && !at; ++i)
    if (p.text_line(i).text.rfind("v_add_f32", 0) == 0) at = i;
  for (size_t i = f->end; i + 1 < p.text_line_count() && !filler; ++i)
    if (p.text_line(i).text == "s_nop 0" && p.text_line(i + 1).text == "s_nop 0") filler = i;
  ASSERT_NE(at, 0u);
  ASSERT_NE(filler, 0u) << "vector_add.co has no s_nop 0 fillers after the kernel";
  program::Program child = p;
  child.replace(filler, filler + 1, {});
  child.insert_before(at, {"v_mov_b32_e32 v9, v9", "v_mov_b32_e32 v10, v10"});
  search::Edit e = search::diff_edit(p, child, "vector_add");
  ASSERT_EQ(e.hunks.size(), 1u) << e.diff();
  EXPECT_EQ(e.hunks[0].first, at);
  EXPECT_EQ(e.hunks[0].count, 0u);
  EXPECT_EQ(e.hunks[0].lines, (std::vector<std::string>{"v_mov_b32_e32 v9, v9", "v_mov_b32_e32 v10, v10"}));
  // A difference after the kernel that is not filler stays in the edit.
  program::Program other = p;
  other.replace(filler, filler, {"s_nop 1"});
  search::Edit o = search::diff_edit(p, other, "vector_add");
  ASSERT_EQ(o.hunks.size(), 1u) << o.diff();
  EXPECT_EQ(o.hunks[0].first, filler);
}
