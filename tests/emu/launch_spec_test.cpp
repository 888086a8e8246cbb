// Launch spec v1 parsing (errors carry line numbers), input generators, .npy round trip.
#include <gtest/gtest.h>

#include <cstring>

#include "emu/launch_spec.h"
#include "emu/npy.h"
#include "support/error.h"

namespace asmevo::emu {
namespace {

const char* kGood = R"(kernel: vector_add
grid: [17, 1, 1]
block: [256, 1, 1]
dynamic_lds: 0
seed: 1
args:
  - {name: a, buffer: f32, count: 10, init: {normal: [0, 1]}}
  - {buffer: i32, count: 4, init: {ints: [-3, 3]}}
  - {name: out, buffer: f32, count: 10, init: zeros}
  - {name: n, value: 10, type: i32}
  - {pointer: null}
)";

TEST(LaunchSpec, ParsesV1) {
  LaunchSpec s = parse_launch_spec_text(kGood, "spec.yaml");
  EXPECT_EQ(s.kernel, "vector_add");
  EXPECT_EQ(s.grid[0], 17u);
  EXPECT_EQ(s.block[0], 256u);
  ASSERT_EQ(s.args.size(), 5u);
  EXPECT_EQ(s.args[0].kind, ArgSpec::Buffer);
  EXPECT_EQ(s.args[0].line, 7);
  EXPECT_EQ(s.args[1].init.kind, InitSpec::Ints);
  EXPECT_EQ(s.args[3].kind, ArgSpec::Value);
  EXPECT_EQ(scalar_bits(s, 3), 10u);
  EXPECT_EQ(s.args[4].kind, ArgSpec::NullPointer);
}

// `type: pad` fills a by-value argument of any size with zeros (AITer's 12-byte struct padding).
TEST(LaunchSpec, PadIsZeroBytesAndOnlyZero) {
  std::string text = kGood;
  text.replace(text.find("  - {pointer: null}"), 0, "  - {name: p, value: 0, type: pad}\n");
  LaunchSpec s = parse_launch_spec_text(text, "spec.yaml");
  ASSERT_EQ(s.args.size(), 6u);
  EXPECT_EQ(s.args[4].kind, ArgSpec::Value);
  EXPECT_EQ(s.args[4].dtype, "pad");
  EXPECT_EQ(scalar_bits(s, 4), 0u);
  std::string one = text;
  one.replace(one.find("value: 0, type: pad"), 8, "value: 1");
  EXPECT_THROW(parse_launch_spec_text(one, "spec.yaml"), Error);
  std::string vary = text;
  vary.replace(vary.find("type: pad}"), 10, "type: pad, vary: [0, 1]}");
  EXPECT_THROW(parse_launch_spec_text(vary, "spec.yaml"), Error);
}

TEST(LaunchSpec, GeneratorsAreSeededAndDeterministic) {
  LaunchSpec s = parse_launch_spec_text(kGood);
  auto a = make_buffer(s, 0), b = make_buffer(s, 0);
  EXPECT_EQ(a, b);
  auto ints = make_buffer(s, 1);
  for (int i = 0; i < 4; ++i) {
    int32_t v;
    std::memcpy(&v, ints.data() + 4 * i, 4);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
  }
  s.seed = 2;
  EXPECT_NE(make_buffer(s, 0), a);
}

TEST(LaunchSpec, UnknownKeyNamesTheLine) {
  std::string text = kGood;
  text.replace(text.find("  - {name: out, buffer"), 0, "  - {name: x, buffer: f32, count: 3, colour: red}\n");
  try {
    parse_launch_spec_text(text, "spec.yaml");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "spec.yaml:9") << e.format();
    EXPECT_NE(e.what_text().find("colour"), std::string::npos) << e.format();
  }
}

TEST(LaunchSpec, BadValueAndBadTypeNameTheLine) {
  std::string text = std::string(kGood);
  text.replace(text.find("value: 10"), 9, "value: ten");
  try {
    parse_launch_spec_text(text, "s.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "s.yaml:10") << e.format();
  }
  text = kGood;
  text.replace(text.find("buffer: i32"), 11, "buffer: q7");
  try {
    parse_launch_spec_text(text, "s.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "s.yaml:8") << e.format();
  }
  try {
    parse_launch_spec_text("kernel: k\ngrid: [1, 1, 1]\nblock: [64, 1, 1]\nwarp: 3\nargs: []\n", "t.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "t.yaml:4") << e.format();
  }
}

TEST(Npy, RoundTrip) {
  std::vector<float> v = {1.5f, -2.0f, 3.25f};
  auto bytes = encode_npy("f32", v.data(), v.size() * 4);
  EXPECT_EQ((bytes.size() - v.size() * 4) % 64, 0u);
  NpyArray a = decode_npy(bytes, "mem");
  EXPECT_EQ(a.descr, "<f4");
  ASSERT_EQ(a.shape.size(), 1u);
  EXPECT_EQ(a.shape[0], 3u);
  EXPECT_EQ(std::memcmp(a.data.data(), v.data(), 12), 0);
}

}  // namespace
}  // namespace asmevo::emu
