// Magnitude sets (verify/magnitude_sets.h): float inputs scaled by a power of two to the ends of
// their dtype's range; integers and `special: false` buffers untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "emu/launch_spec.h"
#include "verify/element_value.h"
#include "verify/magnitude_sets.h"

using namespace asmevo;

namespace {

template <typename T>
std::shared_ptr<std::vector<uint8_t>> bytes_of(const std::vector<T>& v) {
  auto b = std::make_shared<std::vector<uint8_t>>(v.size() * sizeof(T));
  std::memcpy(b->data(), v.data(), b->size());
  return b;
}

double element(const emu::LaunchSpec& run, size_t arg, uint64_t e) {
  const auto& a = run.args[arg];
  return verify::element_number(a.dtype, verify::element_bits(*a.init.bytes, a.dtype, e));
}

}  // namespace

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
