// verify/compare.h: element comparison by dtype and rule, and element formatting.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "verify/compare.h"

using namespace asmevo;
using emu::CompareSpec;

namespace {

template <class T> bool match(const std::string& dtype, const CompareSpec& rule, T a, T b) {
  return verify::elements_match(dtype, rule, reinterpret_cast<const uint8_t*>(&a), reinterpret_cast<const uint8_t*>(&b));
}
CompareSpec ulp(uint64_t n) { return {CompareSpec::Ulp, n, 0, 0}; }
CompareSpec tol(double r, double a) { return {CompareSpec::Tolerance, 0, r, a}; }

}  // namespace

TEST(CompareTest, ExactIsBitForBit) {
  EXPECT_TRUE(match("f32", {}, 1.5f, 1.5f));
  EXPECT_FALSE(match("f32", {}, 0.0f, -0.0f));  // exact: signed zeros differ
  EXPECT_FALSE(match("f32", {}, 1.0f, std::nextafter(1.0f, 2.0f)));
  EXPECT_TRUE(match("f32", {}, std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0x7fc00001u)));
  EXPECT_FALSE(match("f32", {}, std::bit_cast<float>(0x7fc00000u), std::bit_cast<float>(0x7fc00001u)));
  EXPECT_FALSE(match("i32", {}, 7, 8));
}

TEST(CompareTest, UlpCountsRepresentableStepsAcrossZero) {
  EXPECT_EQ(verify::ulp_distance("f32", 0x3f800000, 0x3f800002), 2u);
  EXPECT_EQ(verify::ulp_distance("f32", 0x00000001, 0x80000001), 2u);  // +denorm_min .. -denorm_min
  EXPECT_EQ(verify::ulp_distance("f32", 0x00000000, 0x80000000), 0u);
  EXPECT_EQ(verify::ulp_distance("f16", 0x3c00, 0x3c01), 1u);
  float one = 1.0f, two_up = std::nextafter(std::nextafter(one, 2.0f), 2.0f);
  EXPECT_TRUE(match("f32", ulp(2), one, two_up));
  EXPECT_FALSE(match("f32", ulp(1), one, two_up));
  EXPECT_TRUE(match("f32", ulp(0), 0.0f, -0.0f));
}

TEST(CompareTest, NanAndInfinityRules) {
  float nan1 = std::bit_cast<float>(0x7fc00000u), nan2 = std::bit_cast<float>(0xffc00123u);
  EXPECT_TRUE(match("f32", ulp(4), nan1, nan2));
  EXPECT_FALSE(match("f32", ulp(1u << 30), nan1, 1.0f));
  EXPECT_FALSE(match("f32", tol(1e9, 1e9), 1.0f, nan1));
  EXPECT_FALSE(match("f32", tol(1e9, 1e9), INFINITY, 3.0e38f));
  EXPECT_FALSE(match("f32", ulp(8), INFINITY, -INFINITY));
  EXPECT_TRUE(match("f32", tol(0, 0), INFINITY, INFINITY));
}

TEST(CompareTest, ToleranceIsRelativeToTheReference) {
  EXPECT_TRUE(match("f32", tol(1e-3, 0), 1000.0f, 1000.9f));
  EXPECT_FALSE(match("f32", tol(1e-3, 0), 1000.0f, 1001.5f));
  EXPECT_TRUE(match("f32", tol(0, 1e-6), 0.0f, 5e-7f));
  EXPECT_TRUE(match("f64", tol(1e-12, 0), 1.0, 1.0 + 1e-13));
  uint16_t a = 0x3c00, b = 0x3c01;  // f16 1.0 and the next value (1 + 2^-10)
  EXPECT_TRUE(match("f16", tol(1e-3, 0), a, b));
  EXPECT_FALSE(match("f16", tol(1e-4, 0), a, b));
  uint16_t c = 0x3f80, d = 0x3f81;  // bf16 1.0 and the next value (1 + 2^-7)
  EXPECT_TRUE(match("bf16", ulp(1), c, d));
  EXPECT_FALSE(match("bf16", tol(1e-3, 0), c, d));
}

TEST(CompareTest, IntegersAreAlwaysExact) {
  EXPECT_FALSE(match("i32", ulp(100), 1, 2));  // a rule on an integer buffer is refused by the parser;
  EXPECT_TRUE(match("u8", ulp(100), uint8_t{3}, uint8_t{3}));  // here it falls back to exact
}

TEST(CompareTest, FormatsByDtype) {
  float f = 0.25f;
  EXPECT_EQ(verify::format_element("f32", reinterpret_cast<const uint8_t*>(&f)), "0.25 (0x3e800000)");
  int32_t i = -7;
  EXPECT_EQ(verify::format_element("i32", reinterpret_cast<const uint8_t*>(&i)), "-7 (0xfffffff9)");
  uint32_t u = 4000000000u;
  EXPECT_EQ(verify::format_element("u32", reinterpret_cast<const uint8_t*>(&u)), "4000000000 (0xee6b2800)");
  uint16_t h = 0xbc00;
  EXPECT_EQ(verify::format_element("f16", reinterpret_cast<const uint8_t*>(&h)), "-1 (0xbc00)");
}
