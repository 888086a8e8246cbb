// SMT-aimed scalar arguments (prove/inputs.h with launch facts): a proof in K0's observed context
// frees the SGPR that holds a `vary:` scalar argument, bounded by the admitted launches, and the
// solver's value becomes that argument's in the input set it returns.
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "emu/launch_spec.h"
#include "program/program.h"
#include "prove/inputs.h"
#include "prove/launch_facts.h"
#include "support/file_io.h"
#include "verify/backend.h"

namespace asmevo::prove {
namespace {

// prefix_scan_inclusive_i32 returns early at `s_cmp_lt_i32 s10, 1` (s10 = n, kernarg 0x10, loaded
// at 0x1f0c; the spec varies n over [0, 5000]). The edit `s_cmp_lt_i32 s10, 2` differs only at n = 1:
// in the base run's context (n = 5000) no element is involved, so without launch facts there is
// nothing to free; with them, n is free and the model's n = 1 becomes the input set's n.
TEST(ContextProof, AScalarArgumentTheSolverMovesBecomesTheLaunchsValue) {
  auto ks = corpus::kernels("gfx942", {"prefix_scan_inclusive_i32"});
  ASSERT_EQ(ks.size(), 1u);
  codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(ks[0].code_object), ks[0].code_object);
  program::Program p = program::Program::recover(co);
  const emu::LaunchSpec spec = emu::load_launch_spec(ks[0].spec);
  const std::vector<emu::LaunchSpec> runs = emu::expand_runs(spec);
  const size_t line = p.line_of_address(0x1f18);
  ASSERT_EQ(p.text_line(line).text, "s_cmp_lt_i32 s10, 1");
  const std::vector<Change> edit{{line, 1, {"s_cmp_lt_i32 s10, 2"}}};
  auto backend = verify::make_emulator_backend(1);
  auto k0 = backend->load(co, ks[0].name);
  ProofOptions o;
  o.mode_bits = emu::initial_mode_bits(p.kernel_descriptor(ks[0].name));
  ContextProof plain = prove_in_context(*backend, *k0, p, ks[0].name, edit, runs.front(), o);
  EXPECT_FALSE(plain.run) << plain.note;

  // The boundary launches of n (vary [0, 5000]) are admitted launches too: as the reference runs them.
  std::vector<emu::LaunchSpec> admitted = runs;
  emu::LaunchSpec lo = runs.front(), hi = runs.front();
  lo.args[2].value = "0", hi.args[2].value = "5000";
  admitted.push_back(lo), admitted.push_back(hi);
  const LaunchBounds bounds = launch_bounds(co, *co.kernel(ks[0].name), admitted);
  o.launch = &bounds;
  ContextProof aimed = prove_in_context(*backend, *k0, p, ks[0].name, edit, runs.front(), o);
  ASSERT_TRUE(aimed.run) << aimed.note << " / " << aimed.proof.to_text();
  EXPECT_EQ(aimed.scalars, 1u);
  EXPECT_EQ(aimed.run->args[2].value, "1") << aimed.run->label;
  EXPECT_NE(aimed.run->label.find("= 1"), std::string::npos) << aimed.run->label;
}

}  // namespace
}  // namespace asmevo::prove
