// prove_edit on a real kernel: the registers live after the window come from the kernel's
// liveness, also when the window ends its basic block (the next line is a label).
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "program/program.h"
#include "prove/prove.h"
#include "support/file_io.h"

namespace asmevo::prove {
namespace {

TEST(ProveEdit, AWindowEndingItsBlockSeesTheNextBlocksLiveRegisters) {
  auto ks = corpus::kernels("gfx942", {"argmax_rows_f32"});
  ASSERT_EQ(ks.size(), 1u);
  codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(ks[0].code_object), ks[0].code_object);
  program::Program p = program::Program::recover(co);
  // argmax's nested exec restores: `s_or_b64 exec, exec, s[4:5]` at 0x19f0 ends its block, and the
  // next block's first instruction (`s_or_b64 exec, exec, s[12:13]`) reads EXEC. Deleting the
  // first restore changes EXEC there: never PROVEN (a label's empty live set once made it so).
  const size_t line = p.line_of_address(0x19f0);
  ASSERT_EQ(p.text_line(line).text.rfind("s_or_b64 exec, exec, s[4:5]", 0), 0u) << p.text_line(line).text;
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(p.kernel_descriptor(ks[0].name));
  ProofResult r = prove_edit(p, ks[0].name, {{line, 1, {}}}, o);
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
}

// Edits spanning blocks: an if-then region entered only at its first line is proven over its
// paths; one whose inner block is also entered from outside (a loop header) is UNKNOWN.
TEST(ProveEdit, EditsSpanningBlocksAreProvenOverTheRegionsPaths) {
  auto ks = corpus::kernels("gfx942", {"argmax_rows_f32"});
  ASSERT_EQ(ks.size(), 1u);
  codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(ks[0].code_object), ks[0].code_object);
  program::Program p = program::Program::recover(co);
  const program::Function* f = p.function(ks[0].name);
  ASSERT_NE(f, nullptr);
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(p.kernel_descriptor(ks[0].name));
  bool if_then = false, loop = false;
  for (size_t b = 1; b < f->blocks.size(); ++b) {
    const program::BasicBlock& prev = f->blocks[b - 1];
    const program::BasicBlock& blk = f->blocks[b];
    const std::string branch = p.text_line(prev.last).text;
    const std::string first = p.text_line(blk.first).text;
    // A one-line change at the previous block's branch and one at this block's first line.
    auto edit = [&](const std::string& new_branch) {
      return std::vector<Change>{{prev.last, 1, {new_branch}}, {blk.first, 1, {first}}};
    };
    if (!if_then && blk.preds.size() == 1 && blk.preds[0] == b - 1 && branch.rfind("s_cbranch_execz ", 0) == 0) {
      if_then = true;
      ProofResult same = prove_edit(p, ks[0].name, edit(branch), o);
      EXPECT_EQ(same.verdict, Verdict::Proven) << same.to_text();
      EXPECT_GE(same.paths, 4u) << same.to_text();
      ProofResult flipped = prove_edit(p, ks[0].name, edit("s_cbranch_execnz " + branch.substr(16)), o);
      EXPECT_EQ(flipped.verdict, Verdict::Disproven) << flipped.to_text();
    }
    bool back_edge = false;
    for (size_t pred : blk.preds) back_edge |= pred >= b;
    if (!loop && back_edge) {
      loop = true;
      ProofResult r = prove_edit(p, ks[0].name, edit(branch), o);
      EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_text();
      EXPECT_NE(r.reason.find("entered from outside"), std::string::npos) << r.reason;
    }
  }
  EXPECT_TRUE(if_then) << "argmax_rows_f32 has no if-then block after an s_cbranch_execz";
  EXPECT_TRUE(loop) << "argmax_rows_f32 has no loop";
}

}  // namespace
}  // namespace asmevo::prove

namespace asmevo::prove {
namespace {

// s_barrier in a real kernel (transpose_lds_f32: tile to LDS, barrier, tile back): register work
// moves across the barrier (PROVEN); the barrier sunk into the `if` after it runs on one path only
// (never PROVEN: the windows would pass different barriers).
TEST(ProveEdit, BarriersInTheTransposeKernel) {
  auto ks = corpus::kernels("gfx942", {"transpose_lds_f32"});
  ASSERT_EQ(ks.size(), 1u);
  codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(ks[0].code_object), ks[0].code_object);
  program::Program p = program::Program::recover(co);
  size_t barrier = 0;
  const program::Function* f = p.function(ks[0].name);
  ASSERT_NE(f, nullptr);
  for (size_t i = f->begin; i < f->end && !barrier; ++i)
    if (p.text_line(i).text.rfind("s_barrier", 0) == 0) barrier = i;
  ASSERT_NE(barrier, 0u);
  const std::string before = p.text_line(barrier - 2).text, wait = p.text_line(barrier - 1).text;
  ASSERT_EQ(before.rfind("s_and_b64 ", 0), 0u) << before;  // the bounds mask, computed before the barrier
  ASSERT_EQ(wait.rfind("s_waitcnt", 0), 0u) << wait;
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(p.kernel_descriptor(ks[0].name));
  ProofResult moved = prove_edit(p, ks[0].name, {{barrier - 2, 3, {wait, "s_barrier", before}}}, o);
  EXPECT_EQ(moved.verdict, Verdict::Proven) << moved.to_text();
  // The barrier moved past `s_and_saveexec; s_cbranch_execz; ds_read`: into the if-then block.
  const std::string saveexec = p.text_line(barrier + 1).text, branch = p.text_line(barrier + 2).text, read = p.text_line(barrier + 3).text;
  ASSERT_EQ(branch.rfind("s_cbranch_execz", 0), 0u) << branch;
  ASSERT_EQ(read.rfind("ds_read", 0), 0u) << read;
  ProofResult sunk = prove_edit(p, ks[0].name, {{barrier, 4, {saveexec, branch, read, "s_barrier"}}}, o);
  EXPECT_NE(sunk.verdict, Verdict::Proven) << sunk.to_text();
  EXPECT_NE(sunk.reason.find("s_barrier"), std::string::npos) << sunk.to_text();
}

}  // namespace
}  // namespace asmevo::prove
