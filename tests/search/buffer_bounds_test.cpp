// search/moves/buffer_bounds.cpp: hipcc's `x = (i < n) ? p[i] : 0` loads become buffer loads whose
// V# range does the masking. The edits check clean and verify EQUIVALENT on the specs' launches
// (their `vary:` ends, n = 0 among them) and on added tails (n = 1, 97, 257: not multiples of 64); a
// V# one dword short is told apart; refusals carry their reasons; every gfx942 kernel's exec-masked
// global loads get a plan or a reason.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "search/moves/buffer_bounds.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

const std::vector<std::string> kFires = {"prefix_scan_inclusive_i32", "scan_blocks_exclusive_u32", "kb_cumsum_f32"};

// The spec's small launches plus launches with the bound `arg` at each of `values` (the spec's
// buffers kept: the loads past the bound are the masked ones).
std::string spec_with_tails(const corpus::Kernel& k, const std::string& arg, const std::vector<int>& values) {
  std::ifstream in(asmevo::testing::spec_without_perf(k.spec));
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  EXPECT_EQ(text.find("\nlaunches:"), std::string::npos) << k.label();
  text += "launches:\n  - {name: spec}\n";
  for (int n : values) text += "  - {name: tail" + std::to_string(n) + ", values: {" + arg + ": " + std::to_string(n) + "}}\n";
  const auto path = asmevo::testing::scratch_dir("specs") / ("buffer_bounds_" + k.name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

std::string bound_arg(const std::string& kernel) { return kernel == "kb_cumsum_f32" ? "cols" : "n"; }

}  // namespace

TEST(BufferBoundsTest, CorpusEditsVerifyEquivalentWithTails) {
  auto move = search::make_buffer_bounds_move();
  size_t judged = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942", kFires)) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_EQ(edits.size(), 1u) << k.label();  // one site each
    const std::string spec = spec_with_tails(k, bound_arg(k.name), {0, 1, 97, 257});
    for (const search::Edit& e : edits) {
      ++judged;
      std::cout << "[buffer-bounds] " << k.label() << ": " << e.description << "\n" << e.diff();
      EXPECT_EQ(e.move, "buffer-bounds");
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << report.to_text();
      auto backend = verify::make_emulator_backend(2);
      verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec)});
      std::cout << "[buffer-bounds] " << k.label() << ": " << ref.runs().size() << " runs\n";
      EXPECT_GE(ref.runs().size(), 5u);  // the spec's launch and the four tails, each with its input sets
      EXPECT_EQ(verify::verify_candidate(ref, k1).verdict, verify::Verdict::Equivalent) << k.label();
    }
  }
  EXPECT_EQ(judged, 3u);
}

TEST(BufferBoundsTest, AVSharpOneDwordShortIsToldApart) {
  // num_records 4n - 4 (0 for n = 0): lane n - 1 reads 0 instead of x[n - 1], and the scan carries it into every later y.
  auto move = search::make_buffer_bounds_move();
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"scan_blocks_exclusive_u32", "kb_cumsum_f32"})) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_FALSE(edits.empty()) << k.label();
    search::Edit e = edits[0];
    size_t shortened = 0;
    for (search::Hunk& h : e.hunks)
      for (size_t i = 0; i < h.lines.size(); ++i)
        if (h.lines[i].rfind("s_lshl_b32 ", 0) == 0) {
          const std::string d = h.lines[i].substr(11, h.lines[i].find(',') - 11);
          h.lines.insert(h.lines.begin() + static_cast<long>(i) + 1, "s_sub_u32 " + d + ", " + d + ", 4");
          h.lines.insert(h.lines.begin() + static_cast<long>(i) + 2, "s_cselect_b32 " + d + ", 0, " + d);  // a borrow: n = 0
          ++shortened;
          break;
        }
    ASSERT_EQ(shortened, 1u);
    auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
    EXPECT_EQ(verdict(k0, k1, spec_with_tails(k, bound_arg(k.name), {97})), verify::Verdict::Different) << k.label();
  }
}

TEST(BufferBoundsTest, RefusalsCarryTheirReasons) {
  auto reason_of = [](const program::Program& q, const std::string& kernel) {
    const auto sites = search::buffer_bounds_sites(q, kernel);
    return sites.empty() ? std::string("no site") : sites.front().reason;
  };
  // Variants of scan_blocks_exclusive_u32's site: one line inserted.
  const corpus::Kernel scan = corpus::kernels("gfx942", {"scan_blocks_exclusive_u32"}).at(0);
  const auto p = program::Program::recover(load(scan.code_object));
  auto search_move = search::make_buffer_bounds_move();
  expect_refusals(p, scan.name, *search_move, asmevo::testing::spec_without_perf(scan.spec),
                  {
                      // masked-off lanes would keep 1, which the range check cannot give
                      {"v_mov_b32_e32 v1, 1", "s_and_saveexec_b64 s[0:1], vcc", "do not hold 0"},
                      // the bound rewritten after the compare
                      {"s_mov_b32 s10, 7", "s_and_saveexec_b64 s[0:1], vcc", "bound's SGPR is rewritten"},
                      // an address register read after the join (its masked lanes would differ)
                      {"v_mov_b32_e32 v9, v4", "v_mbcnt_lo_u32_b32 v4, -1, 0", "may be read after the join"},
                      // other work under the mask
                      {"v_add_f32_e32 v9, v9, v9", "global_load_dword v1, v[4:5], off", "other work"},
                  },
                  [&](const program::Program& q) { return reason_of(q, scan.name); });
  // Corpus kernels: a two-sided 2-D tile bound, a 64-bit bound, a stencil's two-sided bound.
  const std::map<std::string, std::string> expected = {
      {"matmul_tiled_f32", "two-sided"}, {"kb_relu_f32", "64-bit bound"}, {"bias_gelu_f32", "two-sided"}};
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"matmul_tiled_f32", "kb_relu_f32", "bias_gelu_f32"})) {
    const auto q = program::Program::recover(load(k.code_object));
    const auto sites = search::buffer_bounds_sites(q, k.name);
    ASSERT_FALSE(sites.empty()) << k.label();
    for (const auto& s : sites) EXPECT_FALSE(s.reason.empty()) << k.label();
    EXPECT_NE(sites.front().reason.find(expected.at(k.name)), std::string::npos) << k.label() << ": " << sites.front().reason;
    EXPECT_TRUE(propose_whole(*search_move, q, k.name).empty()) << k.label();
  }
  // The same scan on gfx90a: dword3's flags are read from Triton's gfx942 objects only.
  for (const corpus::Kernel& k : corpus::kernels("gfx90a", {"scan_blocks_exclusive_u32"})) {
    const auto q = program::Program::recover(load(k.code_object));
    const auto sites = search::buffer_bounds_sites(q, k.name);
    ASSERT_FALSE(sites.empty()) << k.label();
    EXPECT_NE(sites.front().reason.find("gfx942 only"), std::string::npos) << k.label() << ": " << sites.front().reason;
    EXPECT_TRUE(propose_whole(*search_move, q, k.name).empty()) << k.label();
  }
}

TEST(BufferBoundsTest, EveryGfx942CorpusKernelGetsAPlanOrAReason) {
  std::set<std::string> planned;
  size_t kernels = 0, sites = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942")) {
    ++kernels;
    const auto p = program::Program::recover(load(k.code_object));
    const auto found = search::buffer_bounds_sites(p, k.name);
    if (found.empty()) std::cout << "[buffer-bounds] " << k.label() << ": no exec-masked global load\n";
    for (const auto& s : found) {
      ++sites;
      std::cout << "[buffer-bounds] " << k.label() << " line " << s.saveexec << ": " << (s.reason.empty() ? "plan" : s.reason) << "\n";
      if (s.reason.empty()) planned.insert(k.name);
    }
  }
  EXPECT_EQ(planned, std::set<std::string>(kFires.begin(), kFires.end()));
  std::cout << "[buffer-bounds] a plan on " << planned.size() << " of " << kernels << " gfx942 corpus kernels (" << sites
            << " exec-masked global-load sites)\n";
}

TEST(BufferBoundsTest, ABoundWrittenInTheLoopKeepsTheUniformTestsAtTheSite) {
  // prefix_scan_inclusive_i32's chunk loop with n rewritten (to itself) before the compare: the V#
  // and the uniform tests cannot be computed once before the loop, so they stay at the site; the
  // edit still verifies EQUIVALENT.
  const corpus::Kernel k = corpus::kernels("gfx942", {"prefix_scan_inclusive_i32"}).at(0);
  auto k0 = load(k.code_object);
  const auto p = program::Program::recover(k0);
  auto move = search::make_buffer_bounds_move();
  auto hoisted = propose_whole(*move, p, k.name);
  ASSERT_EQ(hoisted.size(), 1u);
  EXPECT_NE(hoisted[0].description.find("1 of them with the V#"), std::string::npos) << hoisted[0].description;
  const size_t at = find_line(p, k.name, "v_cmp_gt_i32_e64 s[2:3], s10, v2");
  ASSERT_NE(at, 0u);
  search::Edit variant;
  variant.kernel = k.name;
  variant.hunks.push_back(search::make_insertion(at, {"s_mov_b32 s10, s10"}));
  const auto q = program::Program::recover(rebuilt(search::apply_edit(p, variant), "variant.co"));
  auto edits = propose_whole(*move, q, k.name);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_NE(edits[0].description.find("0 of them with the V#"), std::string::npos) << edits[0].description;
  auto q0 = rebuilt(q, "q0.co"), q1 = rebuilt(search::apply_edit(q, edits[0]), "q1.co");
  EXPECT_TRUE(checked(q1, k.name).clean());
  EXPECT_EQ(verdict(q0, q1, spec_with_tails(k, "n", {1, 97, 257})), verify::Verdict::Equivalent);
}
