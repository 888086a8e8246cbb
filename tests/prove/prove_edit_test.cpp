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

}  // namespace
}  // namespace asmevo::prove
