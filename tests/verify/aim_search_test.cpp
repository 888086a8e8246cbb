// The aimed inputs' threshold search (verify/aimed.h): decisions whose operand depends on an input
// element by a chain the direct inversion cannot invert (a cubic, a 16-bit element) get elements
// placed on their threshold by secant steps and bisection with K0 on the emulator as the oracle;
// and the ordered element representation the search steps in.
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "verify/aimed.h"
#include "verify/element_value.h"

using namespace asmevo;

TEST(ElementValueTest, KeysOrderValuesAndAdjacentKeysAreAdjacentValues) {
  for (const char* dt : {"f32", "f16", "bf16"}) {
    const std::string d = dt;
    auto one = verify::element_from_number(d, 1.0);
    ASSERT_TRUE(one);
    const int64_t k = verify::element_key(d, *one);
    auto up = verify::element_of_key(d, k + 1), down = verify::element_of_key(d, k - 1);
    ASSERT_TRUE(up && down);
    EXPECT_GT(verify::element_number(d, *up), 1.0) << d;
    EXPECT_LT(verify::element_number(d, *down), 1.0) << d;
    // Nothing representable lies between 1 and the next key.
    auto mid = verify::element_from_number(d, (1.0 + verify::element_number(d, *up)) / 2);
    ASSERT_TRUE(mid);
    EXPECT_TRUE(*mid == *one || *mid == *up) << d;
    // Negative values order below positive ones, -0 and +0 are one key.
    EXPECT_LT(verify::element_key(d, *verify::element_from_number(d, -2.0)), verify::element_key(d, *verify::element_from_number(d, -1.0)));
    EXPECT_EQ(verify::element_key(d, *verify::element_from_number(d, -0.0)), verify::element_key(d, *verify::element_from_number(d, 0.0)));
    EXPECT_FALSE(verify::element_from_number(d, INFINITY));
  }
  EXPECT_EQ(verify::element_number("i8", *verify::element_of_key("i8", -128)), -128);
  EXPECT_FALSE(verify::element_of_key("i8", 128));
  EXPECT_FALSE(verify::element_of_key("u16", -1));
}

TEST(AimSearchTest, GeluExpRangeCheckThroughACubicOfAnF16Element) {
  // gelu_add: z = x + y (f16 elements), u = 0.798 (z + 0.0447 z^3), exp(2u) as exp2(2u log2e)
  // with the underflow check 2u log2e < -126 (v_cmp_gt_f32 vcc, s0, v4), reached at z near
  // -10.6. The operand is a cubic of a 16-bit element: no affine chain, so only the search
  // places elements there; with the other of x ~ N(0, 1), y ~ N(0, 0.5) held, the element searched
  // lands in about [-15, -6].
  auto co = codeobj::CodeObject::parse(read_file_bytes(corpus::triton_object("gfx942", "gelu_add_kernel")), "gelu_add_kernel");
  emu::LaunchSpec spec = emu::load_launch_spec(corpus::triton_spec("gelu_add_kernel"));
  auto backend = verify::make_emulator_backend(2);
  auto k0 = backend->load(co, "gelu_add_kernel");
  const emu::LaunchSpec base = emu::expand_runs(spec).front();
  verify::AimedInputs aimed = verify::aim_inputs(*backend, *k0, base);
  EXPECT_GT(aimed.search_walks, 0u);
  EXPECT_GT(aimed.search_found, 0u);
  EXPECT_LE(aimed.search_runs, verify::kSearchRuns);
  size_t at_check = 0;
  for (const auto& t : aimed.thresholds) {
    if (!t.searched || t.inst.find("v_cmp_gt_f32") == std::string::npos) continue;
    ++at_check;
    EXPECT_LE(t.arg, 1u) << t.inst;  // x or y, the other held at its value
    EXPECT_GT(t.value, -15.0) << t.inst;
    EXPECT_LT(t.value, -6.0) << t.inst;
  }
  EXPECT_GT(at_check, 0u) << "no searched threshold for x at the exp range check";
  EXPECT_FALSE(aimed.sets.empty());
}
