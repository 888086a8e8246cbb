// `asmevo check`: exit codes (0 clean, 1 violations, 2 bad input), text and JSON reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "support/file_io.h"
#include "tests/check/check_test_util.h"
#include "corpus/index/corpus.h"

namespace asmevo::check {
namespace {

using test::run;

std::string cli() { return ASMEVO_CLI; }
std::string corpus_file() { return corpus::hip_object("gfx942", "vector_add.co"); }

TEST(CliCheckTest, CleanFileExitsZero) {
  std::string out;
  EXPECT_EQ(run(cli() + " check " + corpus_file(), &out), 0) << out;
  EXPECT_NE(out.find("clean"), std::string::npos) << out;
  EXPECT_EQ(run(cli() + " check --kernel vector_add " + corpus_file(), &out), 0) << out;
  // Containers: every code object inside is checked.
  EXPECT_EQ(run(cli() + " check " + std::string(ASMEVO_BINARY_DIR) + "/corpus/hip/bundle/vector_add.hipfb", &out), 0) << out;
}

TEST(CliCheckTest, ViolationsExitOneWithRuleAndPc) {
  auto path = test::assemble_kernel_file(
      "  global_load_dword v2, v[0:1], off\n"
      "  v_add_f32_e32 v3, v2, v2\n",
      "gfx942");
  std::string out;
  EXPECT_EQ(run(cli() + " check " + path.string(), &out), 1) << out;
  EXPECT_NE(out.find("waitcnt.raw"), std::string::npos) << out;
  EXPECT_NE(out.find("0x"), std::string::npos) << out;
  EXPECT_EQ(run(cli() + " check --json " + path.string() + " 2>/dev/null", &out), 1);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.check/1");
  EXPECT_FALSE(j["clean"].get<bool>());
  const auto& v = j["code_objects"][0]["violations"][0];
  EXPECT_EQ(v["rule"], "waitcnt.raw");
  EXPECT_EQ(v["register"], "v2");
  EXPECT_EQ(v["needed_wait"], "vmcnt(0)");
  EXPECT_TRUE(v.contains("pc"));
  EXPECT_TRUE(v.contains("producer_pc"));
}

TEST(CliCheckTest, BadInputExitsTwo) {
  auto bad = test::scratch_dir() / "not_an_elf.co";
  std::ofstream(bad) << "hello";
  std::string out;
  EXPECT_EQ(run(cli() + " check " + bad.string(), &out), 2) << out;
  EXPECT_EQ(run(cli() + " check --kernel no_such_kernel " + corpus_file(), &out), 2) << out;
  EXPECT_EQ(run(cli() + " check /no/such/file.co", &out), 2) << out;
}

TEST(CliCheckTest, RulesTable) {
  std::string out;
  ASSERT_EQ(run(cli() + " check --rules --json 2>/dev/null", &out), 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_GE(j["rules"].size(), 30u);
  for (const auto& r : j["rules"]) EXPECT_FALSE(r["source"].get<std::string>().empty());
}

}  // namespace
}  // namespace asmevo::check
