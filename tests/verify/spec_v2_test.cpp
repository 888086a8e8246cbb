// Launch spec v2 (docs/emulator.md "Launch spec"): buffer directions, compare rules, guard zones,
// input sets, edge values, launch shapes, and the errors for each misuse.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "emu/launch_spec.h"
#include "support/error.h"

using namespace asmevo;
using emu::ArgSpec;
using emu::LaunchSpec;

namespace {

const char* kBase = R"(kernel: k
grid: [4, 1, 1]
block: [64, 1, 1]
seed: 7
args:
  - {name: x, buffer: f32, count: 1000, init: {normal: [0, 1]}}
  - {name: idx, buffer: i32, count: 1000, init: {ints: [0, 99]}}
  - {name: y, buffer: f32, count: 1000, output: true, compare: {ulp: 2}}
  - {name: acc, buffer: f32, count: 16, init: zeros, inout: true, compare: {rtol: 0.001, atol: 0.0001}, guard: 1024, align: 4096}
  - {name: n, value: 1000, type: i32}
)";

LaunchSpec parse(const std::string& text) { return emu::parse_launch_spec_text(text); }

// The error message (with its file:line) a spec text produces.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.format();
  }
  return "no error";
}

std::string with_args(const std::string& extra_arg) {
  return std::string("kernel: k\ngrid: [1, 1, 1]\nblock: [64, 1, 1]\nargs:\n") + extra_arg + "\n";
}

}  // namespace

TEST(SpecV2Test, ParsesDirectionsCompareGuardAlign) {
  LaunchSpec s = parse(kBase);
  ASSERT_EQ(s.args.size(), 5u);
  EXPECT_EQ(s.args[0].direction, ArgSpec::Input);
  EXPECT_EQ(s.args[0].guard, 256u);  // default
  EXPECT_EQ(s.args[2].direction, ArgSpec::Output);
  EXPECT_EQ(s.args[2].compare.kind, emu::CompareSpec::Ulp);
  EXPECT_EQ(s.args[2].compare.ulp, 2u);
  EXPECT_EQ(s.args[3].direction, ArgSpec::InOut);
  EXPECT_EQ(s.args[3].compare.kind, emu::CompareSpec::Tolerance);
  EXPECT_DOUBLE_EQ(s.args[3].compare.rtol, 0.001);
  EXPECT_EQ(s.args[3].guard, 1024u);
  EXPECT_EQ(s.args[3].align, 4096u);
  EXPECT_TRUE(s.has_outputs());
  EXPECT_EQ(s.inputs, 1u);
  EXPECT_FALSE(s.special);
}

TEST(SpecV2Test, MisuseIsAnErrorWithItsLine) {
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, output: true, init: zeros}")).find("<string>:5"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, output: true, init: zeros}")).find("poisoned"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, output: true, inout: true}")).find("not both"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, compare: exact}")).find("input buffer must stay unchanged"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: i32, count: 4, output: true, compare: {ulp: 1}}")).find("integer"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, output: true, compare: {ulps: 1}}")).find("unknown key 'ulps'"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: 4, output: true, align: 3}")).find("power of two"), std::string::npos);
  EXPECT_NE(error_of(with_args("  - {buffer: f32, count: FILL, output: true}")).find("placeholder FILL"), std::string::npos);
  EXPECT_NE(error_of("kernel: k\ngrid: [FILL, 1, 1]\nblock: [64, 1, 1]\nargs: []\n").find("placeholder FILL left in the spec for grid"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "inputs: 0\n").find("inputs must be between"), std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "poison: 300\n").find("one byte"), std::string::npos);
}

TEST(SpecV2Test, LaunchShapesOverrideTheTopLevel) {
  LaunchSpec s = parse(std::string(kBase) + R"(launches:
  - {name: full}
  - {name: tail, grid: [1, 1, 1], block: [32, 1, 1], values: {n: 20}, counts: {x: 20, y: 20}}
)");
  ASSERT_EQ(s.launches.size(), 2u);
  auto runs = emu::expand_runs(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "launch full, input set 0");
  EXPECT_EQ(runs[1].label, "launch tail, input set 0");
  EXPECT_EQ(runs[1].grid[0], 1u);
  EXPECT_EQ(runs[1].block[0], 32u);
  EXPECT_EQ(runs[1].args[4].value, "20");
  EXPECT_EQ(runs[1].args[0].count, 20u);
  EXPECT_EQ(runs[1].args[2].count, 20u);
  EXPECT_EQ(runs[1].args[1].count, 1000u);  // not overridden
  EXPECT_TRUE(runs[1].launches.empty());

  EXPECT_NE(error_of(std::string(kBase) + "launches:\n  - {values: {m: 3}}\n").find("no argument named 'm'"), std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "launches:\n  - {values: {x: 3}}\n").find("not a value argument"), std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "launches:\n  - {counts: {n: 3}}\n").find("not a buffer"), std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "launches:\n  - {values: {n: abc}}\n").find("<string>:12"), std::string::npos);
}

TEST(SpecV2Test, InputSetsAndSpecialSetsHaveTheirOwnSeedsAndPoison) {
  LaunchSpec s = parse(std::string(kBase) + "inputs: 3\nspecial: true\n");
  auto runs = emu::expand_runs(s);
  ASSERT_EQ(runs.size(), 5u);
  std::set<uint64_t> seeds;
  for (size_t i = 0; i < runs.size(); ++i) {
    seeds.insert(runs[i].seed);
    EXPECT_EQ(runs[i].special_variant, i < 3 ? -1 : static_cast<int>(i - 3));
    EXPECT_EQ(runs[i].poison, i % 2 ? 0xA5 : 0xFF);
  }
  EXPECT_EQ(seeds.size(), 5u);
  EXPECT_EQ(runs[3].label, "special input set 0");
  // Different input sets really differ.
  EXPECT_NE(emu::make_buffer(runs[0], 0), emu::make_buffer(runs[1], 0));
  // A fixed poison applies to every run.
  auto fixed = emu::expand_runs(parse(std::string(kBase) + "inputs: 2\npoison: 0x5a\n"));
  EXPECT_EQ(fixed[0].poison, 0x5a);
  EXPECT_EQ(fixed[1].poison, 0x5a);
}

TEST(SpecV2Test, OutputsArePoisonedAndInputsKeepTheirInit) {
  auto runs = emu::expand_runs(parse(std::string(kBase) + "inputs: 2\n"));
  for (const auto& r : runs) {
    auto y = emu::make_buffer(r, 2);
    ASSERT_EQ(y.size(), 4000u);
    for (uint8_t b : y) ASSERT_EQ(b, r.poison);
    auto acc = emu::make_buffer(r, 3);  // inout: its init (zeros)
    for (uint8_t b : acc) ASSERT_EQ(b, 0);
  }
}

TEST(SpecV2Test, SpecialSetsMixEdgeValuesIntoNormalValues) {
  auto runs = emu::expand_runs(parse(std::string(kBase) + "special: true\n"));
  ASSERT_EQ(runs.size(), 3u);
  for (int variant = 0; variant < 2; ++variant) {
    const LaunchSpec& r = runs[1 + variant];
    auto x = emu::make_buffer(r, 0);
    size_t nan = 0, inf = 0, zero = 0, denorm = 0, normal = 0;
    for (size_t i = 0; i < 1000; ++i) {
      float v;
      std::memcpy(&v, x.data() + 4 * i, 4);
      if (std::isnan(v)) ++nan;
      else if (std::isinf(v)) ++inf;
      else if (v == 0) ++zero;
      else if (std::fpclassify(v) == FP_SUBNORMAL) ++denorm;
      else ++normal;
    }
    EXPECT_GT(normal, variant == 0 ? 600u : 900u) << "edge values are mixed in, not the whole set";
    if (variant == 0) {
      EXPECT_GT(nan, 0u);
      EXPECT_GT(inf, 0u);
      EXPECT_GT(zero, 0u);
      EXPECT_GT(denorm, 0u);
    }
    EXPECT_GT(nan + inf + zero + denorm, 0u);
    // Integer buffers stay inside their declared range and reach both ends.
    auto idx = emu::make_buffer(r, 1);
    std::set<int32_t> values;
    for (size_t i = 0; i < 1000; ++i) {
      int32_t v;
      std::memcpy(&v, idx.data() + 4 * i, 4);
      ASSERT_GE(v, 0);
      ASSERT_LE(v, 99);
      values.insert(v);
    }
    if (variant == 0) EXPECT_TRUE(values.count(0) && values.count(99));
  }
  // special: false on a buffer keeps it as generated.
  auto plain = emu::expand_runs(parse(std::string(kBase) + "special: true\n"));
  LaunchSpec no_special = plain[1];
  no_special.args[0].special = false;
  LaunchSpec random_only = no_special;
  random_only.special_variant = -1;
  EXPECT_EQ(emu::make_buffer(no_special, 0), emu::make_buffer(random_only, 0));
}

TEST(SpecV2Test, TypeExtremesWithoutARange) {
  auto runs = emu::expand_runs(parse(with_args("  - {buffer: i8, count: 4000, init: {normal: [0, 3]}}\n  - {buffer: u16, count: 4000, output: true}") +
                                     "special: true\n"));
  auto b = emu::make_buffer(runs[1], 0);
  std::set<int8_t> seen(reinterpret_cast<int8_t*>(b.data()), reinterpret_cast<int8_t*>(b.data()) + b.size());
  EXPECT_TRUE(seen.count(-128) && seen.count(127) && seen.count(-1));
}

TEST(SpecV2Test, SecondSpecialSetRepeatsValues) {
  auto runs = emu::expand_runs(parse(std::string(kBase) + "special: true\n"));
  for (int variant = 0; variant < 2; ++variant) {
    auto x = emu::make_buffer(runs[1 + variant], 0);
    std::set<uint32_t> distinct;
    for (size_t i = 0; i < 1000; ++i) {
      uint32_t v;
      std::memcpy(&v, x.data() + 4 * i, 4);
      distinct.insert(v);
    }
    // Normal random floats almost never repeat; edge values repeat in both sets, copies only in set 1.
    if (variant == 1) EXPECT_LT(distinct.size(), 920u);
    else EXPECT_GT(distinct.size(), 700u);
  }
}
