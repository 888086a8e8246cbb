// Exact-sum sets (verify/exact_sums.h): float input buffers that split evenly over the workgroups
// become zeros with one element per workgroup's share holding (g + 1) times the dtype's smallest step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "emu/launch_spec.h"
#include "verify/element_value.h"
#include "verify/exact_sums.h"

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

const char* const kSpec = R"(kernel: k
grid: [3, 1, 1]
block: [64, 1, 1]
args:
  - {name: x, buffer: f16, count: 12, init: {normal: [0, 1]}}
  - {name: y, buffer: f32, count: 6, init: {normal: [0, 1]}}
  - {name: w, buffer: f16, count: 4, init: {normal: [0, 1]}}
  - {name: idx, buffer: i32, count: 6, init: {ints: [0, 3]}}
  - {name: keep, buffer: f32, count: 6, init: {normal: [0, 1]}, special: false}
  - {name: out, buffer: f32, count: 3, output: true}
)";

}  // namespace

TEST(ExactSums, EachWorkgroupShareSumsToADifferentSmallMultipleOfTheSmallestStep) {
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(kSpec, "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  std::vector<_Float16> x(12, (_Float16)1.5f);
  inputs[0] = bytes_of(x);
  inputs[1] = bytes_of(std::vector<float>(6, -2.0f));
  inputs[2] = bytes_of(std::vector<_Float16>(4, (_Float16)0.5f));
  inputs[3] = bytes_of(std::vector<int32_t>(6, 1));
  inputs[4] = bytes_of(std::vector<float>(6, 3.0f));
  auto set = verify::exact_sum_set(spec, inputs);
  ASSERT_TRUE(set);
  const emu::LaunchSpec& r = set->run;
  // x: 12 elements over 3 workgroups, shares of 4: elements 0, 4, 8 hold 1, 2, 3 times 2^-24.
  for (uint64_t e = 0; e < 12; ++e)
    EXPECT_EQ(element(r, 0, e), e % 4 ? 0.0 : std::ldexp(static_cast<double>(e / 4 + 1), -24)) << e;
  // y (f32): shares of 2, steps of 2^-149.
  for (uint64_t e = 0; e < 6; ++e) EXPECT_EQ(element(r, 1, e), e % 2 ? 0.0 : std::ldexp(static_cast<double>(e / 2 + 1), -149)) << e;
  // w does not split over 3 workgroups, idx is an integer, keep is special: false: all as the base run.
  EXPECT_NE(r.args[2].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(r.args[3].init.kind, emu::InitSpec::Bytes);
  EXPECT_NE(r.args[4].init.kind, emu::InitSpec::Bytes);
  EXPECT_EQ(r.special_variant, -1);
  EXPECT_NE(r.label.find("exact-sum set"), std::string::npos);
  EXPECT_NE(set->description.find("x zero but element 4 * g = (g + 1) * 2^-24"), std::string::npos) << set->description;
}

TEST(ExactSums, NoSetWithoutABufferOfWholeSharesOfAtLeastTwo) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(kSpec, "spec.yaml");
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(spec.args.size());
  inputs[0] = bytes_of(std::vector<_Float16>(12, (_Float16)0.0f));  // all zero: left alone
  inputs[2] = bytes_of(std::vector<_Float16>(4, (_Float16)0.5f));
  EXPECT_FALSE(verify::exact_sum_set(spec, inputs));
  spec.grid = {12, 1, 1};  // one element per workgroup: no sum to make
  inputs[0] = bytes_of(std::vector<_Float16>(12, (_Float16)1.0f));
  EXPECT_FALSE(verify::exact_sum_set(spec, inputs));
}
