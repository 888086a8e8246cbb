// Every corpus launch spec (HIP and Triton) has perf launches (launch spec v3): each named, each
// preceded in the file by a `# source:` comment saying where its size comes from, each within what
// verification on sampled workgroups can afford to allocate (docs/emulator.md "Launch spec").
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"

namespace {

using namespace asmevo;

// The cap on one perf launch's buffers: verification holds them about 5 times (device copy, K0's
// before/after, K1's after), so 160 MiB of buffers is under 1 GiB of host memory.
constexpr uint64_t kMaxPerfBufferBytes = 160ull << 20;

std::map<std::string, std::string> corpus_specs() {
  std::map<std::string, std::string> specs;  // path -> kernel
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"})
    for (const auto& k : corpus::kernels(arch)) specs[k.spec] = k.name;
  return specs;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

TEST(CorpusPerf, EverySpecHasPerfLaunchesWithTheirSource) {
  auto specs = corpus_specs();
  ASSERT_GE(specs.size(), 50u);
  for (const auto& [path, kernel] : specs) {
    SCOPED_TRACE(path);
    emu::LaunchSpec s = emu::load_launch_spec(path);
    ASSERT_FALSE(s.perf.empty()) << "no perf: launches";
    auto lines = lines_of(path);
    for (const auto& p : s.perf) {
      ASSERT_GE(p.line, 2);
      const std::string& above = lines.at(static_cast<size_t>(p.line) - 2);
      EXPECT_EQ(above.rfind("  # source: ", 0), 0u) << p.name << ": the line above is '" << above << "'";
      EXPECT_GT(above.size(), 30u) << p.name << ": a source says where the size comes from";
    }
    bool any_larger = false;  // at least one perf launch is larger than the verification launches (batch-1 decode may not be)
    for (const emu::LaunchSpec& r : emu::perf_runs(s)) {
      uint64_t bytes = 0;
      for (const auto& a : r.args)
        if (a.kind == emu::ArgSpec::Buffer) bytes += a.count * emu::dtype_size(a.dtype);
      EXPECT_LE(bytes, kMaxPerfBufferBytes) << r.perf_name;
      uint64_t largest_verification = 0;
      for (const emu::LaunchSpec& v : emu::expand_runs(s)) {
        uint64_t b = 0;
        for (const auto& a : v.args)
          if (a.kind == emu::ArgSpec::Buffer) b += a.count * emu::dtype_size(a.dtype);
        largest_verification = std::max(largest_verification, b);
      }
      const uint64_t groups = static_cast<uint64_t>(r.grid[0]) * r.grid[1] * r.grid[2];
      const uint64_t small_groups = static_cast<uint64_t>(s.grid[0]) * s.grid[1] * s.grid[2];
      any_larger |= bytes > largest_verification || groups > small_groups;
    }
    EXPECT_TRUE(any_larger) << "no perf launch is larger than the verification launches";
  }
}

}  // namespace
