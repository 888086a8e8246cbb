// The signed tiny set at the whole-tile boundary launch (verify/magnitude_sets.h, docs/verify.md
// "Boundary launches"): kb_matmul_tb_f32's tile-loop exit `k0 + 16 >= K` flipped to `>` runs one more
// zero-filled tile when 16 divides K, which changes C only where the accumulator is -0. Random,
// special, aimed and magnitude inputs never make a -0 accumulator (each tile adds 12 products rounded
// one by one: -0 only if all 12 are -0); signed tiny inputs with one sign per buffer at K = 32 do.
#include <gtest/gtest.h>

#include "bench/mutants/mutation.h"
#include "corpus/index/corpus.h"
#include "support/file_io.h"
#include "verify/verify.h"

using namespace asmevo;

TEST(SignedTiny, AnExtraZeroTileIsFoundAtTheWholeTileLaunch) {
  const auto k = corpus::kernels("gfx942", {"kb_matmul_tb_f32"}).at(0);
  const auto co = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
  const auto prog = program::Program::recover(co);
  // The mutant of bench/mutants/results/gfx942-issue16-s8.txt (compare-flip at 0x3dcc).
  std::optional<mutants::Mutant> flip;
  for (const auto& m : mutants::generate_mutants(prog, "kb_matmul_tb_f32"))
    if (m.op == "compare-flip" && m.address == 0x3dcc) flip = m;
  ASSERT_TRUE(flip) << "no compare-flip at 0x3dcc: the corpus code object changed";
  const auto mutant = codeobj::CodeObject::parse(mutants::build_mutant(prog, *flip), "mutant");
  emu::LaunchSpec spec = emu::load_launch_spec(k.spec);
  spec.perf.clear();  // not needed here: keeps the test fast
  for (auto& a : spec.args)
    if (a.name != "K") a.vary.reset();
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions options;
  options.stop_at_first_difference = true;
  options.difference_search_steps = 0;
  const verify::Reference ref(*backend, co, {spec}, options);
  size_t tiny_boundary = 0;
  for (const auto& e : ref.run_inputs()) tiny_boundary += e.kind == "boundary launch" && e.detail.find("signed tiny") != std::string::npos;
  EXPECT_EQ(tiny_boundary, 1u);  // one per `vary:` argument: K = 32
  const auto r = verify::verify_candidate(ref, mutant, options);
  EXPECT_EQ(r.verdict, verify::Verdict::Different) << r.to_text();
  EXPECT_EQ(r.evidence.kind, "boundary launch") << r.to_text();
  EXPECT_NE(r.evidence.detail.find("K = 32"), std::string::npos) << r.evidence.detail;
  EXPECT_NE(r.evidence.detail.find("signed tiny inputs"), std::string::npos) << r.evidence.detail;
  ASSERT_FALSE(r.mismatches.empty());
  EXPECT_NE(r.mismatches[0].k0.find("-0"), std::string::npos) << r.mismatches[0].k0;  // K0's -0 accumulator
  // No false rejection: the original against itself.
  EXPECT_EQ(verify::verify_candidate(ref, co, options).verdict, verify::Verdict::Equivalent);
}
