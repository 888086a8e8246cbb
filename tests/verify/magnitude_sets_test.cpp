// Magnitude sets (verify/magnitude_sets.h): float inputs scaled by a power of two to the ends of
// their dtype's range; integers and `special: false` buffers untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "emu/launch_spec.h"
#include "tests/verify/input_set_test_util.h"
#include "verify/element_value.h"
#include "verify/magnitude_sets.h"

using namespace asmevo;
using namespace asmevo::inputsettest;

TEST(MagnitudeSets, ScaleFloatInputsExactlyToEachTargetExponent) {
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f32, count: 4, init: {normal: [0, 1]}}
  - {name: idx, buffer: i32, count: 2, init: {ints: [0, 3]}}
  - {name: h, buffer: f16, count: 2, init: {normal: [0, 1]}}
  - {name: keep, buffer: f32, count: 1, init: {normal: [0, 1]}, special: false}
  - {name: out, buffer: f32, count: 4, output: true}
  - {name: n, value: 4, type: i32}
)", "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  inputs[0] = bytes_of(std::vector<float>{0.75f, -3.0f, 0.0f, 1.0e-3f});
  inputs[1] = bytes_of(std::vector<int32_t>{1, 2});
  inputs[2] = bytes_of(std::vector<_Float16>{(_Float16)0.5f, (_Float16)-0.25f});
  inputs[3] = bytes_of(std::vector<float>{2.0f});
  const auto sets = verify::magnitude_sets(spec, inputs);
  const auto f32 = verify::magnitude_targets("f32"), f16 = verify::magnitude_targets("f16");
  ASSERT_EQ(f32.size(), 5u);
  EXPECT_EQ(f32[0].exponent, 127);
  EXPECT_EQ(f16[0].exponent, 15);
  EXPECT_TRUE(verify::magnitude_targets("i32").empty());
  ASSERT_EQ(sets.size(), 5u);
  for (size_t t = 0; t < sets.size(); ++t) {
    const emu::LaunchSpec& r = sets[t].run;
    // x: largest |x| = 3 = 1.5 * 2^1 moves to exponent f32[t]; normal results are exact.
    EXPECT_EQ(std::ilogb(std::fabs(element(r, 0, 1))), f32[t].exponent) << sets[t].description;
    EXPECT_EQ(element(r, 0, 1), std::ldexp(-3.0, f32[t].exponent - 1));
    EXPECT_EQ(element(r, 0, 2), 0.0);
    // h: largest 0.5 = 2^-1 moves to f16[t] (the denormal target rounds the smaller element).
    EXPECT_EQ(element(r, 2, 0), std::ldexp(1.0, f16[t].exponent)) << sets[t].description;
    // Integers, special: false buffers and outputs are left to the base run.
    EXPECT_NE(r.args[1].init.kind, emu::InitSpec::Bytes);
    EXPECT_NE(r.args[3].init.kind, emu::InitSpec::Bytes);
    EXPECT_EQ(r.special_variant, -1);
    EXPECT_NE(r.label.find("magnitude set"), std::string::npos);
  }
  // A run whose float inputs are all zero gets no set.
  inputs[0] = bytes_of(std::vector<float>{0, 0, 0, 0});
  inputs[2] = bytes_of(std::vector<_Float16>{(_Float16)0.0f, (_Float16)0.0f});
  EXPECT_TRUE(verify::magnitude_sets(spec, inputs).empty());
}

TEST(MagnitudeSets, SignedTinySetHasBothZerosBothSignsAndUnderflowingProducts) {
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(R"(kernel: k
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f32, count: 400, init: {normal: [0, 1]}}
  - {name: idx, buffer: i32, count: 2, init: {ints: [0, 3]}}
  - {name: h, buffer: f16, count: 400, init: {normal: [0, 1]}}
  - {name: keep, buffer: f32, count: 1, init: {normal: [0, 1]}, special: false}
  - {name: zeros, buffer: f32, count: 2, init: zeros}
  - {name: out, buffer: f32, count: 4, output: true}
  - {name: n, value: 4, type: i32}
)", "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  inputs[0] = bytes_of(std::vector<float>(400, 1.5f));
  inputs[1] = bytes_of(std::vector<int32_t>{1, 2});
  inputs[2] = bytes_of(std::vector<_Float16>(400, (_Float16)0.5f));
  inputs[3] = bytes_of(std::vector<float>{2.0f});
  inputs[4] = bytes_of(std::vector<float>{0.0f, 0.0f});
  const auto set = verify::signed_tiny_set(spec, inputs);
  ASSERT_TRUE(set);
  EXPECT_EQ(verify::signed_tiny_exponent("f32"), -100);
  EXPECT_EQ(verify::signed_tiny_exponent("bf16"), -100);
  EXPECT_EQ(verify::signed_tiny_exponent("f16"), -21);
  EXPECT_FALSE(verify::signed_tiny_exponent("i32"));
  for (size_t arg : {size_t{0}, size_t{2}}) {
    const auto& a = set->run.args[arg];
    ASSERT_EQ(a.init.kind, emu::InitSpec::Bytes) << a.name;
    const int top = *verify::signed_tiny_exponent(a.dtype);
    size_t plus_zero = 0, minus_zero = 0, positive = 0, negative = 0;
    for (uint64_t e = 0; e < 400; ++e) {
      const double v = element(set->run, arg, e);
      if (v == 0) (std::signbit(v) ? minus_zero : plus_zero)++;
      else {
        (v < 0 ? negative : positive)++;
        EXPECT_LE(std::ilogb(std::fabs(v)), top) << a.name << "[" << e << "]";
        EXPECT_GE(std::ilogb(std::fabs(v)), top - 3) << a.name << "[" << e << "]";  // f16 denormals round
      }
    }
    // About 1 in 4 zeros of either sign, the rest of either sign (400 draws: well inside these bounds).
    EXPECT_GT(plus_zero, 25u) << a.name;
    EXPECT_GT(minus_zero, 25u) << a.name;
    EXPECT_LT(plus_zero + minus_zero, 160u) << a.name;
    EXPECT_GT(positive, 100u) << a.name;
    EXPECT_GT(negative, 100u) << a.name;
  }
  // A product of two f32 elements underflows to a zero with the product's sign: a dot product of
  // them can end as -0.
  const float p = static_cast<float>(element(set->run, 0, 0)) * static_cast<float>(element(set->run, 0, 1));
  EXPECT_EQ(p, 0.0f);
  // Integers, `special: false` and all-zero buffers are left to the base run.
  EXPECT_NE(set->run.args[1].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(set->run.args[3].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(set->run.args[4].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(set->description.find("x (+-2^-102..2^-100, 1 in 4 +-0)"), std::string::npos) << set->description;
  EXPECT_NE(set->run.label.find("signed tiny set"), std::string::npos);
  // Another salt, another draw; no float buffer, no set.
  const auto other = verify::signed_tiny_set(spec, inputs, verify::TinySigns::Mixed, 1);
  ASSERT_TRUE(other);
  EXPECT_NE(*other->run.args[0].init.bytes, *set->run.args[0].init.bytes);
  std::vector<std::shared_ptr<std::vector<uint8_t>>> only_ints(spec.args.size());
  only_ints[1] = inputs[1];
  EXPECT_FALSE(verify::signed_tiny_set(spec, only_ints));
  // One sign per buffer, alternating over the float buffers that take the set (x negative, h
  // positive), zeros with their buffer's sign: every product of an x and an h element is negative
  // or -0.
  const auto by_buffer = verify::signed_tiny_set(spec, inputs, verify::TinySigns::ByBuffer);
  ASSERT_TRUE(by_buffer);
  size_t zeros = 0;
  for (uint64_t e = 0; e < 400; ++e) {
    const double x = element(by_buffer->run, 0, e), h = element(by_buffer->run, 2, e);
    EXPECT_TRUE(std::signbit(x)) << "x[" << e << "] = " << x;
    EXPECT_FALSE(std::signbit(h)) << "h[" << e << "] = " << h;
    zeros += x == 0;
    const float p = static_cast<float>(x) * static_cast<float>(h);
    EXPECT_TRUE(std::signbit(p)) << e;
  }
  EXPECT_GT(zeros, 50u);
  EXPECT_LT(zeros, 160u);
  EXPECT_NE(by_buffer->description.find("x (-2^-102..2^-100, 1 in 4 -0), h (+2^-23..2^-21, 1 in 4 +0)"), std::string::npos)
      << by_buffer->description;
}
