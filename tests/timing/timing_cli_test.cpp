// `asmevo time` and `asmevo profile`: text and JSON reports (marked modeled), exit codes on bad input.
#include <array>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "corpus/index/corpus.h"

using namespace asmevo;

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
std::string object() { return corpus::hip_object("gfx942", "matmul_tiled.co"); }
// The corpus spec without its perf: list (a v2 spec): its perf launch (a 2048^3 matmul) takes far
// too long to model in a test, so these tests time the first verification launch.
std::string spec() {
  const std::string path = (std::filesystem::temp_directory_path() / "asmevo_timing_cli_matmul_tiled_v2.yaml").string();
  std::ifstream in(corpus::hip_spec("matmul_tiled_f32"));
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  s = s.substr(0, s.find("\nperf:")) + "\n";
  std::ofstream(path) << s;
  return path;
}

// vector_add with two small perf launches (v3).
std::string perf_spec() {
  const std::string path = (std::filesystem::temp_directory_path() / "asmevo_timing_cli_vector_add_v3.yaml").string();
  std::ofstream(path) << R"(kernel: vector_add
grid: [17, 1, 1]
block: [256, 1, 1]
args:
  - {name: a, buffer: f32, count: 4321, init: {normal: [0, 1]}}
  - {name: b, buffer: f32, count: 4321, init: {uniform: [-1, 1]}}
  - {name: out, buffer: f32, count: 4321, output: true}
  - {name: n, value: 4321, type: i32}
perf:
  - {name: small_batch, grid: [16, 1, 1], values: {n: 4096}, counts: {a: 4096, b: 4096, out: 4096}}
  - {name: large_batch, grid: [256, 1, 1], values: {n: 65536}, counts: {a: 65536, b: 65536, out: 65536}}
)";
  return path;
}
std::string vector_add() { return corpus::hip_object("gfx942", "vector_add.co"); }

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

// The device's start and end of a kernel (HwParams::kernel_boundary_us) is printed next to the kernel time, which
// stays the simulated kernel alone: microseconds are the cycles at the modeled clock.
TEST(TimingCli, TimeReportsTheKernelStartAndEndApart) {
  std::string out;
  ASSERT_EQ(run(cli() + " time " + vector_add() + " --launch " + perf_spec() + " --perf small_batch", &out), 0) << out;
  EXPECT_NE(out.find("kernel start/end  1.0 us more in a measured kernel duration"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " time --json " + vector_add() + " --launch " + perf_spec() + " --perf small_batch", &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.time/1");
  EXPECT_DOUBLE_EQ(j["kernel_boundary_us"].get<double>(), 1.0);  // MI300X: MGPUSim's 1800-cycle estimate [U]
  const double us = j["microseconds"].get<double>(), cycles = j["cycles"].get<double>(), ghz = j["clock_ghz"].get<double>();
  EXPECT_NEAR(us, cycles / (ghz * 1e3), 1e-9 * us);  // not included in the kernel time
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

TEST(TimingCli, TimeModelsEveryPerfLaunchAndNamesEach) {
  std::string out;
  ASSERT_EQ(run(cli() + " time " + vector_add() + " --launch " + perf_spec(), &out), 0) << out;
  EXPECT_NE(out.find("perf launch 'small_batch' ("), std::string::npos) << out;
  EXPECT_NE(out.find("perf launch 'large_batch' ("), std::string::npos) << out;
  EXPECT_NE(out.find("geomean"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " time --json " + vector_add() + " --launch " + perf_spec(), &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.time.launches/1");
  ASSERT_EQ(j["launches"].size(), 2u);
  EXPECT_EQ(j["launches"][0]["launch"]["name"], "small_batch");
  EXPECT_EQ(j["launches"][1]["launch"]["name"], "large_batch");
  EXPECT_EQ(j["launches"][1]["workgroups"], 256);
  const double a = j["launches"][0]["cycles"].get<double>(), b = j["launches"][1]["cycles"].get<double>();
  EXPECT_GT(b, a);  // 16 times the work
  EXPECT_NEAR(j["geomean_cycles"].get<double>(), std::sqrt(a * b), 1e-6 * b);
}

TEST(TimingCli, PerfSelectsOneLaunch) {
  std::string out;
  ASSERT_EQ(run(cli() + " time --json " + vector_add() + " --launch " + perf_spec() + " --perf large_batch", &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.time/1");
  EXPECT_EQ(j["launch"]["name"], "large_batch");
  EXPECT_EQ(j["launch"]["source"], "perf");
  EXPECT_EQ(j["workgroups"], 256);
  ASSERT_EQ(run(cli() + " profile " + vector_add() + " --launch " + perf_spec() + " --perf large_batch", &out), 0) << out;
  EXPECT_NE(out.find("profile of perf launch 'large_batch'"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " profile --json " + vector_add() + " --launch " + perf_spec(), &out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["launch"]["name"], "small_batch");  // profile: the first perf launch
  EXPECT_EQ(run(cli() + " time " + vector_add() + " --launch " + perf_spec() + " --perf huge", &out), 2) << out;
  EXPECT_NE(out.find("small_batch, large_batch"), std::string::npos) << out;
}

TEST(TimingCli, V2SpecSaysItTimesTheFirstVerificationLaunch) {
  std::string out;
  ASSERT_EQ(run(cli() + " time " + object() + " --launch " + spec(), &out), 0) << out;
  EXPECT_NE(out.find("the first verification launch ('top level'"), std::string::npos) << out;
  EXPECT_NE(out.find("no perf: list"), std::string::npos) << out;
  ASSERT_EQ(run(cli() + " time --json " + object() + " --launch " + spec(), &out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["launch"]["source"], "first verification launch (no perf: list in the spec)");
}

TEST(TimingCli, BadInputExitsTwo) {
  std::string out;
  EXPECT_EQ(run(cli() + " time /no/such/file.co --launch " + spec(), &out), 2) << out;
  EXPECT_EQ(run(cli() + " time " + object() + " --kernel other --launch " + spec(), &out), 2) << out;
  EXPECT_NE(out.find("launch spec"), std::string::npos) << out;
  EXPECT_EQ(run(cli() + " profile " + object() + " --launch /no/such/spec.yaml", &out), 2) << out;
}

}  // namespace
