// search/moves/address_fold.h on loop-pipeline's copies of the address-unit-bound KernelBench loops:
// the copy's loads of one array, stepped by a constant, get one base and immediate offsets and widen
// merges them (fewer vector memory instructions); each edit checks clean and verifies EQUIVALENT on the
// spec's launches, which run the copy; a wrong offset is told apart; refusals say why.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>

#include "search/moves/address_fold.h"
#include "search/moves/moves.h"
#include "search/steps.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// `kernel` (gfx942) with its self-loop pipelined by `k` (loop-pipeline's edit), rebuilt and recovered.
program::Program pipelined(const program::Program& p, const std::string& kernel, unsigned k) {
  auto move = search::make_loop_pipeline_move();
  for (const search::Edit& e : propose_whole(*move, p, kernel))
    if (e.description.find(fmt::format("pipelined by {}:", k)) != std::string::npos) return search::step_input(search::apply_edit(p, e));
  ADD_FAILURE() << kernel << ": no copy pipelined by " << k;
  return p;
}

// Vector memory instructions of `kernel` whose mnemonic matches `re`.
size_t count(const program::Program& p, const std::string& kernel, const std::string& re) {
  const std::regex r(re);
  const program::Function* f = p.function(kernel);
  size_t n = 0;
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).inst && std::regex_match(p.text_line(i).inst->mnemonic, r)) ++n;
  return n;
}

}  // namespace

TEST(AddressFoldTest, TallSkinnyCopyLoadsTheARowAsDwordx4) {
  // kb_matmul_tall_skinny_f32: per iteration one load of A (v[4:5], stepped by 4 bytes) and one of B
  // (stepped by M * 4 bytes in an SGPR pair: not a constant, left as it is). In the 16-iteration copy
  // the 16 A loads become 4 global_load_dwordx4 from one base (offsets 0, 16, 32, 48): 32 -> 20 vector
  // loads in the copy. Verified on the spec's launches (K = 32: the copy runs twice, K = 0 skips it).
  const std::string kernel = "kb_matmul_tall_skinny_f32";
  const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
  auto k0 = load(k.code_object);
  const program::Program p16 = pipelined(program::Program::recover(k0), kernel, 16);
  const size_t loads_before = count(p16, kernel, "global_load_dword.*");
  auto move = search::make_address_fold_move();
  EXPECT_EQ(move->name(), "address-fold");
  auto edits = propose_whole(*move, p16, kernel);
  ASSERT_EQ(edits.size(), 1u);
  std::cout << edits[0].description << "\n" << edits[0].diff();
  const program::Program folded = search::step_input(search::apply_edit(p16, edits[0]));
  EXPECT_EQ(count(folded, kernel, "global_load_dwordx4"), 4u);
  EXPECT_EQ(count(folded, kernel, "global_load_dword.*"), loads_before - 12);
  auto k1 = rebuilt(search::apply_edit(p16, edits[0]), "k1.co");
  auto report = checked(k1, kernel);
  EXPECT_TRUE(report.clean()) << report.to_text();
  const std::string spec = asmevo::testing::spec_without_perf(k.spec);
  EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << edits[0].diff();
  // One A load told one element too far: the launches run the copy and see it.
  search::Edit wrong = edits[0];
  bool changed = false;
  for (search::Hunk& h : wrong.hunks)
    for (std::string& l : h.lines)
      if (!changed && l.rfind("global_load_dwordx4", 0) == 0 && l.find("offset:16") != std::string::npos) {
        l.replace(l.find("offset:16"), 9, "offset:20");
        changed = true;
      }
  ASSERT_TRUE(changed) << edits[0].diff();
  EXPECT_NE(verdict(k0, rebuilt(search::apply_edit(p16, wrong), "wrong.co"), spec), verify::Verdict::Equivalent);
  // The copy of another pipelining factor, or of gfx950's build (the same v_lshl_add_u64 steps): folded,
  // clean and verified the same way, with as many dwordx4 as the copy has groups of four A loads.
  auto expect_folded = [&](const codeobj::CodeObject& co, unsigned factor, size_t dwordx4, const std::string& name) {
    SCOPED_TRACE(name);
    const program::Program p = pipelined(program::Program::recover(co), kernel, factor);
    auto e = propose_whole(*move, p, kernel);
    ASSERT_EQ(e.size(), 1u);
    auto k1 = rebuilt(search::apply_edit(p, e[0]), name + ".co");
    EXPECT_EQ(count(program::Program::recover(k1), kernel, "global_load_dwordx4"), dwordx4);
    EXPECT_TRUE(checked(k1, kernel).clean());
    EXPECT_EQ(verdict(co, k1, spec), verify::Verdict::Equivalent) << e[0].diff();
  };
  expect_folded(k0, 8, 2, "gfx942-factor8");
  expect_folded(load(corpus::kernels("gfx950", {kernel}).at(0).code_object), 16, 4, "gfx950-factor16");
}

TEST(AddressFoldTest, Conv2dRowCopyLoadsItsThreePixelsAsOneDwordx3) {
  // kb_conv2d_f32's inner loop (kx over a 3-wide filter row): one global load of x stepped by 4 bytes and one
  // scalar weight load per iteration. The 3-iteration copy's three x loads become one global_load_dwordx3.
  const std::string kernel = "kb_conv2d_f32";
  const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
  auto k0 = load(k.code_object);
  const program::Program p3 = pipelined(program::Program::recover(k0), kernel, 3);
  auto edits = propose_whole(*search::make_address_fold_move(), p3, kernel);
  ASSERT_EQ(edits.size(), 1u);
  std::cout << edits[0].description << "\n" << edits[0].diff();
  auto k1 = rebuilt(search::apply_edit(p3, edits[0]), "k1.co");
  EXPECT_EQ(count(program::Program::recover(k1), kernel, "global_load_dwordx3"), 1u);
  auto report = checked(k1, kernel);
  EXPECT_TRUE(report.clean()) << report.to_text();
  EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << edits[0].diff();
}

TEST(AddressFoldTest, RefusesWithReasons) {
  // The original loops: each load reads its address before the iteration's step, so nothing follows a
  // step (the fold is for straight-line copies of several iterations).
  const std::string kernel = "kb_matmul_tall_skinny_f32";
  auto p = program::Program::recover(load(corpus::kernels("gfx942", {kernel}).at(0).code_object));
  const program::Function* f = p.function(kernel);
  for (const program::BasicBlock& b : f->blocks) {
    if (std::find(b.succs.begin(), b.succs.end(), static_cast<size_t>(&b - f->blocks.data())) == b.succs.end()) continue;
    const search::AddressFolding r = search::fold_addresses(p, kernel, b.first, b.last);
    EXPECT_EQ(r.merges, 0u);
    EXPECT_NE(r.refused.find("no load reads it after a step"), std::string::npos) << r.refused;
  }
  // gfx90a steps addresses with carry pairs: said so.
  auto pa = program::Program::recover(load(corpus::kernels("gfx90a", {kernel}).at(0).code_object));
  const program::Function* fa = pa.function(kernel);
  EXPECT_NE(search::fold_addresses(pa, kernel, fa->blocks[0].first, fa->blocks[0].last).refused.find("gfx942 and gfx950 only"), std::string::npos);
}

TEST(AddressFoldTest, CorpusKernelsStaySafe) {
  // Every corpus kernel as compiled: a proposal (straight-line code stepping an address between loads)
  // must check clean and verify EQUIVALENT (run_on_corpus).
  auto move = search::make_address_fold_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  std::cout << changed.size() << " corpus kernel(s) changed\n";
}
