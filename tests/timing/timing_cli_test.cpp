// `asmevo time` and `asmevo profile`: text and JSON reports (marked modeled), exit codes on bad input.
#include <array>
#include <cstdio>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include "corpus/index/corpus.h"

namespace {

int run(const std::string& cmd, std::string* out) {
  out->clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out->append(buf.data(), n);
  int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string cli() { return ASMEVO_CLI; }
std::string object() { return asmevo::corpus::hip_object("gfx942", "matmul_tiled.co"); }
std::string spec() { return asmevo::corpus::hip_spec("matmul_tiled_f32"); }

TEST(TimingCli, TimeSaysItIsModeled) {
  std::string out;
  ASSERT_EQ(run(cli() + " time " + object() + " --launch " + spec(), &out), 0) << out;
  EXPECT_NE(out.find("MODELED"), std::string::npos) << out;
  EXPECT_NE(out.find("roofline"), std::string::npos) << out;
  EXPECT_NE(out.find("occupancy"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " time --json " + object() + " --launch " + spec(), &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.time/1");
  EXPECT_EQ(j["figure"], "modeled");
  EXPECT_GT(j["cycles"].get<double>(), 0);
  EXPECT_GE(j["cycles"].get<double>(), j["roofline"]["cycles"].get<double>());
  EXPECT_GT(j["occupancy"]["waves_per_simd"].get<int>(), 0);
}

TEST(TimingCli, ProfileShowsHotWindowsWithinTheLengthLimit) {
  std::string out;
  ASSERT_EQ(run(cli() + " profile " + object() + " --launch " + spec() + " --windows 3 --window-length 16", &out), 0) << out;
  EXPECT_NE(out.find("hot window 1"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " profile --json " + object() + " --launch " + spec() + " --windows 3 --window-length 16", &out), 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.profile/1");
  ASSERT_FALSE(j["hot_windows"].empty());
  EXPECT_LE(j["hot_windows"].size(), 3u);
  double prev = 1e300;
  for (const auto& w : j["hot_windows"]) {
    EXPECT_LE(w["lines"].size(), 16u);
    EXPECT_LE(w["cycles"].get<double>(), prev);  // ranked
    prev = w["cycles"].get<double>();
  }
  double share = 0;
  for (const auto& i : j["instructions"]) share += i["share"].get<double>();
  EXPECT_NEAR(share, 1.0, 1e-6);
}

TEST(TimingCli, BadInputExitsTwo) {
  std::string out;
  EXPECT_EQ(run(cli() + " time /no/such/file.co --launch " + spec(), &out), 2) << out;
  EXPECT_EQ(run(cli() + " time " + object() + " --kernel other --launch " + spec(), &out), 2) << out;
  EXPECT_NE(out.find("launch spec"), std::string::npos) << out;
  EXPECT_EQ(run(cli() + " profile " + object() + " --launch /no/such/spec.yaml", &out), 2) << out;
}

}  // namespace
