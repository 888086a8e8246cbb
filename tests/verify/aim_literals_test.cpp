// Literal sets (verify/aim_literals.h): float inputs drawn from the original kernel's own constants
// put a normalized value exactly on a constant threshold that random inputs and the threshold
// search only bracket.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "verify/aim_literals.h"
#include "verify/element_value.h"
#include "verify/verify.h"
#include "tests/verify/edited_kernel.h"

using namespace asmevo;
using verify::Verdict;

namespace {

using verify_test::edited;
using verify_test::load;

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST(LiteralSets, DrawEachFloatBufferFromTheConstantsItHoldsExactlyUpToEachCeiling) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f16, count: 500, init: {normal: [0, 1]}}
  - {name: i, buffer: i32, count: 8, init: {ints: [0, 3]}}
  - {name: y, buffer: f16, count: 500, output: true}
)", "<string>");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(3);
  inputs[0] = std::make_shared<std::vector<uint8_t>>(1000, 0);
  inputs[1] = std::make_shared<std::vector<uint8_t>>(32, 0);
  // 448 and 464 (fp8 e4m3's largest value and its overflow threshold), the rounding midpoint
  // 2.5 * 2^-9, 1.0; 1e-12 (below f16's smallest denormal), a NaN and 0x7fff (as f32, a
  // denormal f16 cannot hold) are not f16 values and are left out.
  const std::set<uint32_t> literals{f32_bits(448), f32_bits(464), f32_bits(0.0048828125f), f32_bits(1), f32_bits(-1),
                                    f32_bits(1e-12f), 0x7fc00000u, 0x7fffu};
  auto sets = verify::literal_sets(spec, inputs, literals);
  ASSERT_EQ(sets.size(), 3u);  // ceilings 464, 448 and 1: a fourth would leave a single value
  const double expected_ceiling[] = {464, 448, 1};
  for (size_t s = 0; s < sets.size(); ++s) {
    EXPECT_EQ(sets[s].run.args[1].init.kind, spec.args[1].init.kind) << "integer buffers keep their inputs";
    const auto& bytes = *sets[s].run.args[0].init.bytes;
    std::set<double> seen;
    for (uint64_t e = 0; e < 500; ++e) seen.insert(std::fabs(verify::element_number("f16", verify::element_bits(bytes, "f16", e))));
    EXPECT_EQ(*seen.rbegin(), expected_ceiling[s]) << sets[s].description;
    EXPECT_EQ(std::fabs(verify::element_number("f16", verify::element_bits(bytes, "f16", 0))), expected_ceiling[s]);
    EXPECT_TRUE(seen.count(0.0048828125)) << sets[s].description;
    EXPECT_TRUE(seen.count(1.0));
    EXPECT_EQ(seen.size(), 4u - s) << sets[s].description;
  }
}

TEST(LiteralSets, KillTheFp8RoundingMidpointCompareFlip) {
  // fp8_quant_fn_kernel: y = x / (amax / 448) rounded to e4m3 by compares of |y|'s bits against
  // the midpoints between codes; `0x3ba00000 < |y|` (2.5 * 2^-9, between codes 2 and 3) as `<=`
  // changes only |y| exactly on the midpoint. A row whose largest |x| is the kernel's constant 448
  // has scale 1, and its x equal to the constant 2.5 * 2^-9 are on it: code 2 (ties to even) vs 3.
  auto k0 = load(corpus::triton_object("gfx942", "fp8_quant_fn_kernel"));
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("fp8_quant_fn_kernel"));
  spec.perf.clear();
  for (auto& a : spec.args) a.vary.reset();
  auto k1 = edited(k0, "fp8_quant_fn_kernel", "v_cmp_lt_u32_e32 vcc, s23, v9", "v_cmp_le_u32_e32 vcc, s23, v9");
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  verify::Reference ref(*backend, k0, {spec}, fast);
  auto rep = verify::verify_candidate(ref, k1, fast);
  ASSERT_EQ(rep.verdict, Verdict::Different) << rep.to_text();
  EXPECT_EQ(rep.evidence.kind, "literal input") << rep.evidence.detail;
  EXPECT_EQ(verify::verify_candidate(ref, k0, fast).verdict, Verdict::Equivalent);
}
