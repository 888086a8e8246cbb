// The difference search (verify/difference_search.h): K0 and the candidate side by side on moved
// inputs, guided by K0's range edges, kills a division-estimate mutant the fixed input sets miss,
// and finds nothing against the original itself.
#include <gtest/gtest.h>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "verify/difference_search.h"
#include "verify/verify.h"
#include "tests/verify/edited_kernel.h"

using namespace asmevo;
using verify::Verdict;

namespace {

using verify_test::edited;
using verify_test::load;

// fused_add_rmsnorm_kernel on 3 rows (the spec's row length 1200, bf16), no perf launches.
emu::LaunchSpec three_rows() {
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("fused_add_rmsnorm_kernel"));
  spec.perf.clear();
  spec.grid = {3, 1, 1};
  for (auto& a : spec.args) {
    a.vary.reset();
    if (a.count == 34800) a.count = 3600;
  }
  return spec;
}

}  // namespace

TEST(DifferenceSearch, KillsTheQuotientEstimateAtTheOriginalsOverflowEdge) {
  // var = ss / n (ss the row's sum of squares of x + residual, n = 1200) with the quotient estimate
  // ss * rcp(n) as ss + rcp(n): the Newton steps absorb it at every ordinary magnitude (random,
  // special, aimed, magnitude and literal sets agree), but the candidate's n * estimate overflows
  // where the original's ss is still finite: at the shift just inside K0's own overflow edge.
  auto k0 = load(corpus::triton_object("gfx942", "fused_add_rmsnorm_kernel"));
  auto k1 = edited(k0, "fused_add_rmsnorm_kernel", "v_mul_f32_e32 v20, v19, v7", "v_add_f32_e32 v20, v19, v7");
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  fast.difference_search_steps = 0;
  const emu::LaunchSpec spec = three_rows();
  verify::Reference ref(*backend, k0, {spec}, fast);
  ASSERT_EQ(verify::verify_candidate(ref, k1, fast).verdict, Verdict::Equivalent) << "the fixed sets now kill it: pick another mutant";
  verify::VerifyOptions searched = fast;
  searched.difference_search_steps = 32;
  auto rep = verify::verify_candidate(ref, k1, searched);
  ASSERT_EQ(rep.verdict, Verdict::Different) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind, "searched input");
  EXPECT_NE(rep.evidence.detail.find("overflow edge"), std::string::npos) << rep.evidence.detail;
  auto same = verify::verify_candidate(ref, k0, searched);
  EXPECT_EQ(same.verdict, Verdict::Equivalent) << same.to_text();
}

TEST(DifferenceSearch, FindsTheOriginalsEdgesAndNothingAgainstItself) {
  auto k0 = load(corpus::triton_object("gfx942", "fused_add_rmsnorm_kernel"));
  auto backend = verify::make_emulator_backend(2);
  const emu::LaunchSpec spec = three_rows();
  auto runs = emu::expand_runs(spec);
  auto loaded = backend->load(k0, "fused_add_rmsnorm_kernel");
  verify::DifferenceSearchOptions o;
  o.steps = 16;
  auto ds = verify::search_difference(*backend, *loaded, *loaded, runs.front(), 1ull << 32, o);
  EXPECT_FALSE(ds.run) << ds.description;
  ASSERT_TRUE(ds.upper_edge);
  ASSERT_TRUE(ds.lower_edge);
  // bf16 normal(0, 1) inputs: squares of 1200 of them overflow f32 near |x| = 2^60, so the upper edge is
  // a shift of about 2^58 to 2^62; the lower edge lies below 0.
  EXPECT_GT(*ds.upper_edge, 50);
  EXPECT_LT(*ds.upper_edge, 66);
  EXPECT_LT(*ds.lower_edge, 0);
  EXPECT_GE(ds.k1_runs, 12u);
}
