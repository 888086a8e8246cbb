// search/moves/agpr_round_trip.h: accumulator copies out and back removed (Triton's matmul_128_kernel
// epilogue holds 64); what stops a pair (a write of the AGPR between, EXEC writes, a later read of
// the copy) keeps it or its read.
#include "search/moves/agpr_round_trip.h"

#include "search/moves/moves.h"
#include "search/moves/rematerialize.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

std::string triton_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::triton_spec(kernel)); }

unsigned most(const std::vector<unsigned>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

TEST(AgprRoundTripTest, Matmul128EpilogueCopiesGo) {
  // After its loop, matmul_128_kernel copies a0..a63 into VGPRs and back (v_accvgpr_read_b32 v58, a0
  // ... v_accvgpr_write_b32 a0, v58) while the last tile's LDS reads are in flight: all 64 pairs go,
  // 128 lines, and the most VGPRs one line needs falls.
  const std::string kernel = "matmul_128_kernel";
  auto k0 = load(corpus::triton_object("gfx942", kernel));
  auto p = program::Program::recover(k0);
  auto r = search::remove_agpr_round_trips(p, kernel);
  ASSERT_EQ(r.trips.size(), 64u) << r.refused;
  for (const auto& t : r.trips) EXPECT_TRUE(t.read_removed) << p.text_line(t.read_line).text;
  EXPECT_EQ(p.text_line_count() - r.program.text_line_count(), 128u);
  // The epilogue (from the loop's exit, 0x2290) needs fewer VGPRs at its peak; the loop's 78 stay.
  auto epilogue_need = [&](const program::Program& q) {
    const std::vector<unsigned> need = search::vgpr_need(q, kernel);
    const size_t begin = q.function(kernel)->begin, from = q.line_of_address(0x2290) - begin;
    return most(std::vector<unsigned>(need.begin() + static_cast<long>(from), need.end()));
  };
  const unsigned before = epilogue_need(p), after = epilogue_need(r.program);
  std::cout << "matmul_128_kernel: most VGPRs one epilogue line needs " << before << " -> " << after << "; the whole kernel "
            << most(search::vgpr_need(p, kernel)) << " -> " << most(search::vgpr_need(r.program, kernel)) << "\n";
  EXPECT_LT(after, before);
  auto k1 = rebuilt(r.program, "no_round_trips.co");
  auto report = checked(k1, kernel);
  EXPECT_TRUE(report.clean()) << report.to_text();
  EXPECT_EQ(verdict(k0, k1, triton_spec(kernel)), verify::Verdict::Equivalent);
  // A window holding only the first pair's write removes nothing (both ends must be inside).
  const auto& first = r.trips.front();
  EXPECT_TRUE(search::remove_agpr_round_trips(p, kernel, std::pair{first.write_line, first.write_line}).trips.empty());
  EXPECT_EQ(search::remove_agpr_round_trips(p, kernel, std::pair{first.read_line, first.write_line}).trips.size(), 1u);
  // Through the Move interface: one whole-kernel edit with the same lines.
  auto move = search::make_agpr_round_trip_move();
  EXPECT_EQ(move->name(), "agpr-round-trip");
  auto edits = propose_whole(*move, p, kernel);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(search::apply_edit(p, edits[0]).text_line_count(), r.program.text_line_count());
}

TEST(AgprRoundTripTest, WhatStopsAPair) {
  const std::string kernel = "matmul_128_kernel";
  auto p = program::Program::recover(load(corpus::triton_object("gfx942", kernel)));
  const size_t read = find_line(p, kernel, "v_accvgpr_read_b32 v58, a0"), write = find_line(p, kernel, "v_accvgpr_write_b32 a0, v58");
  ASSERT_GT(read, 0u);
  ASSERT_GT(write, read);
  // The AGPR written between the copies: the write back restores the old value, it stays.
  {
    program::Program q = p;
    q.insert_before(write, {"v_accvgpr_write_b32 a0, 0"});
    auto r = search::remove_agpr_round_trips(q, kernel);
    EXPECT_EQ(r.trips.size(), 63u);
    for (const auto& t : r.trips) EXPECT_NE(t.agpr, (program::RegRange{program::RegFile::AGPR, 0, 1}));
  }
  // The copy read after the write back: the write goes, the read stays.
  {
    program::Program q = p;
    q.insert_before(write + 1, {"v_mov_b32_e32 v200, v58"});
    auto r = search::remove_agpr_round_trips(q, kernel);
    ASSERT_EQ(r.trips.size(), 64u);
    for (const auto& t : r.trips) EXPECT_EQ(t.read_removed, t.read_line != read) << q.text_line(t.read_line).text;
  }
  // EXEC written between: the 16 pairs a0..a15 it splits stay. (An EXEC write anywhere keeps every
  // read: a later VGPR write may then reach only some lanes.)
  {
    program::Program q = p;
    q.insert_before(write, {"s_mov_b64 exec, exec"});
    auto r = search::remove_agpr_round_trips(q, kernel);
    EXPECT_EQ(r.trips.size(), 48u);
    for (const auto& t : r.trips) EXPECT_FALSE(t.read_removed);
  }
  EXPECT_THROW(search::remove_agpr_round_trips(p, "no_such_kernel"), Error);
  // A kernel without AGPR copies: refused with the reason.
  auto va = program::Program::recover(load(hip("vector_add.co")));
  auto none = search::remove_agpr_round_trips(va, "vector_add");
  EXPECT_TRUE(none.trips.empty());
  EXPECT_NE(none.refused.find("no v_accvgpr_write_b32"), std::string::npos) << none.refused;
}

TEST(AgprRoundTripTest, CorpusKernelsStaySafe) {
  // Every corpus kernel: each proposal checks clean and verifies EQUIVALENT (run_on_corpus). The
  // Triton matmuls have round trips (matmul_128_kernel 64, matmul_kernel 16); the HIP MFMA kernels
  // read their accumulators once, after the loop.
  auto move = search::make_agpr_round_trip_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  EXPECT_NE(std::find(changed.begin(), changed.end(), std::string("triton/gfx942/matmul_128_kernel")), changed.end());
}
