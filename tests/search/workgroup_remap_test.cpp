// search/moves/workgroup_remap.cpp: the order is a bijection of every grid (host specification,
// exhaustively on small grids); the edit on the corpus's tiled GEMMs checks clean and verifies
// EQUIVALENT on the spec's launches and on grids of several groups and partial XCD rounds, and on the
// sampled perf launch through the preimage sample; the refusals, with their reasons.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "search/cascade.h"
#include "search/moves/moves.h"
#include "search/moves/workgroup_remap.h"
#include "tests/search/move_test_util.h"
#include "tests/search/tiled_gemm_spec.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

std::string gemm_spec(const std::string& kernel, int m, int n, int k, int batch) { return tiled_gemm_spec("workgroup_remap", kernel, m, n, k, batch); }

// The move's edits with the spec's perf launches in the context, as the optimizer proposes them (G
// comes from the perf launch's occupancy).
std::vector<search::Edit> propose_for_perf(const program::Program& p, const corpus::Kernel& k) {
  auto move = search::make_workgroup_remap_move();
  const program::Function* f = p.function(k.name);
  const std::vector<emu::LaunchSpec> perf = emu::perf_runs(emu::load_launch_spec(k.spec));
  std::mt19937_64 rng(1);
  search::MoveContext ctx{p, k.name, search::Window{f->begin, f->end - 1, 0, k.name}, rng, 8, &perf};
  return move->propose(ctx);
}

}  // namespace

TEST(WorkgroupRemapTest, TheOrderIsABijectionOfEveryGrid) {
  for (unsigned xcds : {1u, 8u})
    for (unsigned g : {0u, 1u, 2u, 4u, 16u}) {
      const search::WorkgroupOrder order{xcds, g};
      for (uint32_t gx = 1; gx <= 40; ++gx)
        for (uint32_t gy = 1; gy <= (g ? 40u : 1u); ++gy) {
          std::set<std::pair<uint32_t, uint32_t>> seen;
          for (uint32_t y = 0; y < gy; ++y)
            for (uint32_t x = 0; x < gx; ++x) {
              const auto [nx, ny] = search::remapped_workgroup({x, y}, {gx, gy}, order);
              ASSERT_TRUE(nx < gx && ny < gy) << fmt::format("X {} G {} grid {}x{} ({},{}) -> ({},{})", xcds, g, gx, gy, x, y, nx, ny);
              seen.insert({nx, ny});
              const auto back = search::original_workgroup({nx, ny}, {gx, gy}, order);
              ASSERT_EQ(back, (std::array<uint32_t, 2>{x, y})) << fmt::format("X {} G {} grid {}x{}", xcds, g, gx, gy);
            }
          ASSERT_EQ(seen.size(), size_t{gx} * gy) << fmt::format("X {} G {} grid {}x{}", xcds, g, gx, gy);
        }
    }
  // The perf grid: each XCD's first 304 workgroups (38 CUs x 8) form a block of 16 rows x 19 columns.
  const search::WorkgroupOrder order{8, 16};
  std::set<uint32_t> rows, cols;
  for (uint32_t l = 0; l < 304 * 8; l += 8) {
    const auto [x, y] = search::remapped_workgroup({l % 224, l / 224}, {224, 224}, order);
    rows.insert(y), cols.insert(x);
  }
  EXPECT_EQ(rows.size(), 16u);
  EXPECT_EQ(cols.size(), 19u);
  // A grid whose size does not fit 32 bits keeps its ids.
  EXPECT_EQ(search::remapped_workgroup({5, 7}, {1u << 16, 1u << 16}, order), (std::array<uint32_t, 2>{5, 7}));
}

TEST(WorkgroupRemapTest, GemmsVerifyEquivalent) {
  for (const std::string kernel : {"kb_matmul_f32", "kb_bmm_f32", "matmul_tiled_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    ASSERT_EQ(search::workgroup_remap_refusal(p, k.name), "") << kernel;
    auto edits = propose_for_perf(p, k);
    ASSERT_EQ(edits.size(), 1u) << kernel;
    std::cout << edits[0].description << "\n" << edits[0].diff();
    auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
    auto report = checked(k1, k.name);
    EXPECT_TRUE(report.clean()) << kernel << "\n" << report.to_text();
    const auto order = search::recognize_workgroup_remap(program::Program::recover(k1), k.name);
    ASSERT_TRUE(order) << kernel;
    EXPECT_EQ(order->xcds, 8u);
    EXPECT_EQ(order->group_rows, 16u) << kernel;
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << kernel;
    if (kernel == "matmul_tiled_f32") continue;  // its arguments are not tiled_gemm_spec's
    const int batch = kernel == "kb_bmm_f32" ? 2 : 1;
    // 5 x 37 tiles: three groups (16, 16, 5 rows), 185 = 23 x 8 + 1 (one XCD with one more); 8 x 20: whole rounds.
    for (const auto& [m, n, kk] : {std::tuple{592, 80, 16}, {320, 128, 17}, {40, 33, 5}}) {
      const std::string spec = gemm_spec(kernel, m, n, kk, batch);
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << " M N K = " << m << " " << n << " " << kk;
    }
  }
}

TEST(WorkgroupRemapTest, SampledPerfLaunchVerifiesThroughThePreimage) {
  const corpus::Kernel k = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  auto k0 = load(k.code_object);
  auto p = program::Program::recover(k0);
  auto edits = propose_for_perf(p, k);
  ASSERT_EQ(edits.size(), 1u);
  auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(k.spec)});
  ASSERT_FALSE(ref.sampled_runs().empty());
  verify::VerifyOptions plain;
  plain.stop_at_first_difference = true;
  // Started at the original's ids, the renumbered kernel computes other tiles: the sampled run differs.
  EXPECT_EQ(verify::verify_candidate(ref, k1, plain).verdict, verify::Verdict::Different);
  verify::VerifyOptions mapped = plain;
  mapped.candidate_sample = search::workgroup_remap_sampler(k1, k.name);
  ASSERT_TRUE(mapped.candidate_sample);
  const verify::VerifyReport r = verify::verify_candidate(ref, k1, mapped);
  EXPECT_EQ(r.verdict, verify::Verdict::Equivalent) << r.summary;
  EXPECT_FALSE(search::workgroup_remap_sampler(k0, k.name));  // the original has no prologue
}

TEST(WorkgroupRemapTest, RefusesWithReasons) {
  // Float global atomics: cross_entropy_rows_f32's atomicAdd total.
  for (const auto& [kernel, reason] : std::vector<std::pair<std::string, std::string>>{
           {"cross_entropy_rows_f32", "float global atomic"},
           {"matmul_kernel", "preloads kernel arguments"},  // Triton: its entry is the preload prologue
       }) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto p = program::Program::recover(load(k.code_object));
    const std::string why = search::workgroup_remap_refusal(p, k.name);
    EXPECT_NE(why.find(reason), std::string::npos) << kernel << ": " << why;
  }
  // Variants of kb_matmul_f32: an id read another way, a float atomic, a returning integer atomic.
  const corpus::Kernel mm = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  auto p = program::Program::recover(load(mm.code_object));
  const program::Function* f = p.function(mm.name);
  size_t first = f->begin;
  while (p.text_line(first).kind != program::Line::Instr) ++first;
  auto move = search::make_workgroup_remap_move();
  for (const auto& [line, reason] : std::vector<std::pair<std::string, std::string>>{
           {"s_getreg_b32 s40, hwreg(HW_REG_HW_ID)", "reads a hardware register"},
           {"s_mov_b32 s40, ttmp9", "reads a TTMP register"},
           {"global_atomic_add_f32 v0, v0, s[0:1]", "float global atomic"},
           {"global_atomic_add v0, v0, v0, s[0:1] sc0", "returns a value"},
       }) {
    search::Edit variant;
    variant.kernel = mm.name;
    variant.hunks.push_back(search::make_insertion(first, {line}));
    const program::Program q = program::Program::recover(rebuilt(search::apply_edit(p, variant), "variant.co"));
    const std::string why = search::workgroup_remap_refusal(q, mm.name);
    EXPECT_NE(why.find(reason), std::string::npos) << line << ": " << why;
    EXPECT_TRUE(propose_whole(*move, q, mm.name).empty()) << line;
  }
}

TEST(WorkgroupRemapTest, OtherDispatchPacketReadersAreNotTakenForTheOrder) {
  // lds-forward's guard also enables the dispatch pointer and loads the packet's workgroup size.
  auto k0 = load(hip("kb_reduce.co"));
  auto p = program::Program::recover(k0);
  auto edits = propose_whole(*search::make_lds_forward_move(), p, "kb_cumsum_f32");
  ASSERT_EQ(edits.size(), 1u);
  auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
  EXPECT_FALSE(search::recognize_workgroup_remap(program::Program::recover(k1), "kb_cumsum_f32"));
  EXPECT_FALSE(search::workgroup_remap_sampler(k1, "kb_cumsum_f32"));
}

TEST(WorkgroupRemapTest, EveryCorpusKernelHasAnEditOrAReason) {
  size_t edits = 0, refused = 0;
  std::map<std::string, size_t> reasons;
  for (const corpus::Kernel& k : corpus::kernels("gfx942")) {
    auto p = program::Program::recover(load(k.code_object));
    const std::string why = search::workgroup_remap_refusal(p, k.name);
    const size_t n = propose_for_perf(p, k).size();
    EXPECT_EQ(n, why.empty() ? 1u : 0u) << k.label() << ": " << why;
    if (why.empty()) ++edits;
    else ++refused, ++reasons[why.substr(0, why.find(':') == std::string::npos ? why.size() : std::min(why.size(), size_t{60}))];
    std::cout << "[workgroup-remap] " << k.label() << ": " << (why.empty() ? "edit" : why) << "\n";
  }
  std::cout << "[workgroup-remap] " << edits << " edits, " << refused << " refused\n";
  EXPECT_GT(edits, 0u);
}

TEST(WorkgroupRemapTest, EveryCorpusEditChecksCleanAndVerifiesEquivalent) {
  auto move = search::make_workgroup_remap_move();
  std::string fired;
  const size_t n = judge_edits(*move, {}, 1, &fired);
  std::cout << "[workgroup-remap] judged " << n << " edits: " << fired << "\n";
  EXPECT_GE(n, 25u);
}

TEST(WorkgroupRemapTest, TheProofStageLeavesARenumberingToTheTests) {
  // A renumbered wave computes another workgroup's tile, so no window proof can relate K1 to K0: the
  // proof stage says so at once (building and freeing the prologue's terms took 32 s a candidate on
  // kb_conv2d_relu_bias_f32, past the proof's deadline) and the candidate goes on to be tested.
  const corpus::Kernel k = corpus::kernels("gfx942", {"kb_matmul_f32"}).at(0);
  const std::vector<uint8_t> bytes = read_file_bytes(k.code_object);
  const codeobj::CodeObject k0 = codeobj::CodeObject::parse(bytes, k.code_object);
  search::Cascade cascade(k0, k.name, {emu::load_launch_spec(gemm_spec(k.name, 320, 128, 17, 1))},
                          {-10, 1, "", false, search::CascadeOptions::Proof::Gate});
  const search::Individual parent = cascade.individual(bytes, 0, k.name);
  const auto edits = propose_for_perf(*parent.program, k);
  ASSERT_EQ(edits.size(), 1u);
  const search::Evaluation ev = cascade.evaluate(parent, edits[0]);
  const search::StageResult* prove = nullptr;
  for (const auto& s : ev.stages)
    if (s.stage == "prove") prove = &s;
  ASSERT_NE(prove, nullptr) << ev.reason;
  EXPECT_TRUE(prove->ok);
  EXPECT_EQ(prove->detail.rfind("UNKNOWN: the edit renumbers the grid's workgroups", 0), 0u) << prove->detail;
  EXPECT_LT(prove->seconds, 0.1);
  EXPECT_NE(ev.stage, "emulate") << ev.reason;  // the quick run (at the preimage of K0's workgroups) agrees
}
