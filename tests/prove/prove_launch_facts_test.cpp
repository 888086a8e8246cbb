// Constraint-aware proofs (prove/launch_facts.h): the facts the spec's launches fix settle a window
// that differs only outside them, and only there.
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "emu/launch_spec.h"
#include "program/program.h"
#include "prove/launch_facts.h"
#include "prove/prove.h"
#include "support/file_io.h"

namespace asmevo::prove {
namespace {

struct ScanKernel {
  codeobj::CodeObject co;
  program::Program p;
  std::string name;
  emu::LaunchSpec spec;
  size_t line = 0;  // `s_and_b32 s12, s2, 0xffff` (s2: hidden_group_size_x | y << 16, loaded at 0x1f20)
};
ScanKernel scan_kernel() {
  auto ks = corpus::kernels("gfx942", {"prefix_scan_inclusive_i32"});
  EXPECT_EQ(ks.size(), 1u);
  codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(ks[0].code_object), ks[0].code_object);
  program::Program p = program::Program::recover(co);
  ScanKernel k{co, p, ks[0].name, emu::load_launch_spec(ks[0].spec), p.line_of_address(0x1f40)};
  EXPECT_EQ(k.p.text_line(k.line).text, "s_and_b32 s12, s2, 0xffff");
  EXPECT_EQ(k.p.text_line(k.line + 1).text, "s_cmp_gt_u32 s12, 1");
  return k;
}

// The mutant bench's swap-adjacent: `s_cmp_gt_u32 s12, 1` moved above `s_and_b32 s12, s2, 0xffff`.
// s_and's own SCC (result != 0) then reaches s_cselect instead of `block x > 1`: they differ only for
// a block of one work-item in x. Window-level that is a counterexample; every launch the spec admits
// has block x = 256, so under the launch facts it is PROVEN, and with an admitted block of 1 it is not.
TEST(LaunchFacts, ABlockSizeTheSpecFixesSettlesAnScc) {
  ScanKernel k = scan_kernel();
  const std::vector<Change> swap{{k.line, 2, {"s_cmp_gt_u32 s12, 1", "s_and_b32 s12, s2, 0xffff"}}};
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(k.p.kernel_descriptor(k.name));
  ProofResult free = prove_edit(k.p, k.name, swap, o);
  EXPECT_EQ(free.verdict, Verdict::Disproven) << free.to_text();
  EXPECT_TRUE(free.facts.empty());

  const LaunchBounds bounds = launch_bounds(k.co, *k.co.kernel(k.name), emu::expand_runs(k.spec));
  EXPECT_EQ(bounds.max_block[0], 256u);
  const std::vector<RegisterFact> facts = launch_facts(k.p, k.name, k.line, bounds);
  bool group_size = false;
  for (const RegisterFact& f : facts) group_size |= !f.vector && f.reg == 2 && f.lo_bit == 0 && f.width == 16 && f.min == 256 && f.max == 256;
  EXPECT_TRUE(group_size) << "no fact s2[15:0] = 256";
  o.launch = &bounds;
  ProofResult admitted = prove_edit(k.p, k.name, swap, o);
  EXPECT_EQ(admitted.verdict, Verdict::Proven) << admitted.to_text();
  EXPECT_FALSE(admitted.facts.empty());

  LaunchBounds with_one = bounds;
  with_one.kernarg_halves.at(0x24).min = 1;  // as if a launch with block x = 1 were admitted
  with_one.kernarg_dwords.at(0x24).min = 0x10001;
  o.launch = &with_one;
  ProofResult wider = prove_edit(k.p, k.name, swap, o);
  EXPECT_EQ(wider.verdict, Verdict::Disproven) << wider.to_text();
}

// A register the block derives from a fact's register before the window: `s_cmp_gt_u32 s12, 1` as
// `s_cmp_lg_u32 s12, 0` differs only at s12 = 1, and s12 = s2 & 0xffff is computed one line before
// the edit, where no fact names it. DISPROVEN at the edit; prove_edit then starts the window earlier
// in the block (back to the s_load before it), where s2[15:0] = 256 holds: PROVEN.
TEST(LaunchFacts, AWindowStartedEarlierCarriesTheFactsToDerivedRegisters) {
  ScanKernel k = scan_kernel();
  const std::vector<Change> edit{{k.line + 1, 1, {"s_cmp_lg_u32 s12, 0"}}};
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(k.p.kernel_descriptor(k.name));
  EXPECT_EQ(prove_edit(k.p, k.name, edit, o).verdict, Verdict::Disproven);
  const LaunchBounds bounds = launch_bounds(k.co, *k.co.kernel(k.name), emu::expand_runs(k.spec));
  o.launch = &bounds;
  ProofResult r = prove_edit(k.p, k.name, edit, o);
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  EXPECT_LT(r.first_line, k.line) << r.to_text();
  EXPECT_NE(r.reason.find("earlier"), std::string::npos) << r.reason;
  // A compare that differs inside the facts stays DISPROVEN (s12 = 256 is not > 256).
  ProofResult real = prove_edit(k.p, k.name, {{k.line + 1, 1, {"s_cmp_gt_u32 s12, 0x100"}}}, o);
  EXPECT_EQ(real.verdict, Verdict::Disproven) << real.to_text();
}

// A fact holds only where the register still has that value: s2 is the workgroup id at entry and
// the loaded group size after 0x1f20, so the window at 0x1f40 gets no workgroup-id fact for s2, and
// the kernel's first line (before the load) gets no group-size fact.
TEST(LaunchFacts, AFactHoldsOnlyWhereItsValueReaches) {
  ScanKernel k = scan_kernel();
  const LaunchBounds bounds = launch_bounds(k.co, *k.co.kernel(k.name), emu::expand_runs(k.spec));
  ASSERT_EQ(bounds.workgroup_id_sgpr[0], 2);
  for (const RegisterFact& f : launch_facts(k.p, k.name, k.line, bounds))
    EXPECT_FALSE(!f.vector && f.reg == 2 && f.why.starts_with("workgroup id")) << fact_text(f);
  const size_t entry = k.p.line_of_address(0x1f00);
  bool wg = false;
  for (const RegisterFact& f : launch_facts(k.p, k.name, entry, bounds)) {
    EXPECT_FALSE(!f.vector && f.reg == 2 && f.why.find("kernarg") != std::string::npos) << fact_text(f);
    wg |= !f.vector && f.reg == 2 && f.min == 0 && f.max == 0 && f.why.starts_with("workgroup id x");
  }
  EXPECT_TRUE(wg) << "no fact s2 = 0 (grid x 1) at the kernel's entry";
}

}  // namespace
}  // namespace asmevo::prove
