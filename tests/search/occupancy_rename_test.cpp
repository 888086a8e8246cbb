// search/moves/occupancy_rename.h: VGPR live ranges renamed, each on its own, below the next
// occupancy granule's limit; results check clean, verify EQUIVALENT and allow more waves; of the
// corpus's two VGPR-limited kernels (Triton matmuls), matmul_kernel is refused with the live count that
// stops it and matmul_128_kernel reaches a fourth wave once every cluster is reallocated.
#include "search/moves/occupancy_rename.h"

#include "codeobj/resources.h"
#include "search/moves/moves.h"
#include "search/moves/agpr_round_trip.h"
#include "search/moves/register_compact.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

codeobj::Resources resources(const codeobj::CodeObject& co, const std::string& kernel) {
  return codeobj::derive_resources(*codeobj::arch_params(co.target().arch), co.kernel(kernel)->kd, nullptr);
}

std::string triton_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::triton_spec(kernel)); }

// `p` with every occurrence of `from` (all its live ranges) renamed to start at `to`.
program::Program renamed_everywhere(program::Program p, const std::string& kernel, const program::RegRange& from, unsigned to) {
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i < f->end; ++i) {
    const auto& l = p.text_line(i);
    if (l.kind != program::Line::Instr) continue;
    std::string text = search::rename_registers(l.text, from, to);
    if (text != l.text) p.replace(i, i, {text});
  }
  return p;
}

}  // namespace

TEST(OccupancyRenameTest, SplitsARegistersLiveRangesBackBelowTheLimit) {
  // Triton's matmul_kernel (no EXEC writes) loads the B tile into v[50:53] twice: before the loop
  // and in it, two live ranges, each read by two ds_write_b64. The loop's range is renamed to
  // v[200:203] (from its load to the end): 2 waves per SIMD by VGPRs. v[50:53] is still named by
  // the first range, so register-compact's best hole is v[54:57] (6 waves); this move sees that
  // v[50:53] is free over the loop's range and puts it back there: 7 waves, the original 54 VGPRs.
  auto k0 = load(corpus::triton_object("gfx942", "matmul_kernel"));
  auto high_p = program::Program::recover(k0);
  {
    const size_t from = find_line(high_p, "matmul_kernel", "buffer_load_dwordx4 v[50:53], v22, s[24:27], 0 offen");
    ASSERT_GT(from, 0u);
    const program::Function* f = high_p.function("matmul_kernel");
    for (size_t i = from; i < f->end; ++i) {
      const auto& l = high_p.text_line(i);
      if (l.kind != program::Line::Instr) continue;
      std::string text = search::rename_registers(l.text, {program::RegFile::VGPR, 50, 4}, 200);
      if (text != l.text) high_p.replace(i, i, {text});
    }
  }
  auto high = rebuilt(high_p, "high.co");
  ASSERT_EQ(resources(high, "matmul_kernel").occupancy.by_vgprs, 2u);
  auto r = search::rename_for_occupancy(program::Program::recover(high), "matmul_kernel");
  ASSERT_FALSE(r.lines.empty()) << r.refused;
  EXPECT_EQ(r.waves_before, 2u);
  EXPECT_EQ(r.waves_after, 7u);
  EXPECT_EQ(r.clusters_moved, 1u);
  EXPECT_LT(search::compact_registers(program::Program::recover(high), "matmul_kernel").waves_after, 7u);
  auto k1 = rebuilt(std::move(r.program), "renamed.co");
  EXPECT_EQ(resources(k1, "matmul_kernel").occupancy.by_vgprs, 7u);
  EXPECT_LE(program::Program::recover(k1).register_use("matmul_kernel").max_vgpr, 53);
  auto report = checked(k1, "matmul_kernel");
  EXPECT_TRUE(report.clean()) << report.to_text();
  EXPECT_EQ(verdict(k0, k1, triton_spec("matmul_kernel")), verify::Verdict::Equivalent);

  // Through the Move interface: one edit with the same effect.
  auto move = search::make_occupancy_rename_move();
  EXPECT_EQ(move->name(), "occupancy-rename");
  auto hp = program::Program::recover(high);
  auto edits = propose_whole(*move, hp, "matmul_kernel");
  ASSERT_EQ(edits.size(), 1u);
  auto via_edit = rebuilt(search::apply_edit(hp, edits[0]), "via_edit.co");
  EXPECT_EQ(resources(via_edit, "matmul_kernel").occupancy.by_vgprs, 7u);
  EXPECT_EQ(verdict(high, via_edit, triton_spec("matmul_kernel")), verify::Verdict::Equivalent);
}

TEST(OccupancyRenameTest, MatmulKernelReachesEightWaves) {
  // matmul_kernel: 54 VGPRs + 16 AGPRs = 72 (7 waves); 8 waves need 64, so v0..v47. 53 VGPRs are live
  // at once at its peak, but the stages before renaming (AGPR round trips removed, values recomputed at
  // their uses, loads issued later) bring the peak to at most 48, and every cluster is then reallocated
  // below v48. CorpusKernelsStaySafe checks and verifies the edit.
  auto mm = load(corpus::triton_object("gfx942", "matmul_kernel"));
  auto r = search::rename_for_occupancy(program::Program::recover(mm), "matmul_kernel");
  EXPECT_FALSE(r.lines.empty()) << r.refused;
  EXPECT_EQ(r.vgpr_limit, 48u);
  EXPECT_EQ(r.waves_before, 7u);
  EXPECT_LE(r.max_live_vgprs, r.vgpr_limit);
}

TEST(OccupancyRenameTest, RefusesWithReasons) {
  auto va = load(hip("vector_add.co"));
  auto r = search::rename_for_occupancy(program::Program::recover(va), "vector_add");
  EXPECT_TRUE(r.lines.empty());
  EXPECT_NE(r.refused.find("already allow the most waves"), std::string::npos) << r.refused;
  EXPECT_THROW(search::rename_for_occupancy(program::Program::recover(va), "no_such_kernel"), Error);
  // vector_add with its second load in v200 (2 waves): it masks lanes through EXEC, so a VGPR
  // write may reach only some lanes and live ranges are not known lane by lane: refused.
  auto high = renamed_everywhere(program::Program::recover(va), "vector_add", {program::RegFile::VGPR, 7, 1}, 200);
  auto rh = search::rename_for_occupancy(program::Program::recover(rebuilt(high, "high.co")), "vector_add");
  EXPECT_TRUE(rh.lines.empty());
  EXPECT_NE(rh.refused.find("writes EXEC"), std::string::npos) << rh.refused;
}

TEST(OccupancyRenameTest, CorpusKernelsStaySafe) {
  // Every corpus kernel: a proposal must check clean and verify EQUIVALENT (run_on_corpus). The HIP
  // kernels are at 8 waves; Triton's matmul_kernel (7 waves, MatmulKernelReachesEightWaves) and
  // matmul_128_kernel (3 waves) are the kernels it may change on gfx942.
  auto move = search::make_occupancy_rename_move();
  const std::vector<std::string> changed = run_on_corpus(*move);
  ASSERT_EQ(changed.size(), 2u);
  for (const std::string& label : changed)
    EXPECT_TRUE(label.find("matmul_128_kernel") != std::string::npos || label.find("matmul_kernel") != std::string::npos) << label;
  for (const char* arch : {"gfx90a", "gfx950"})
    for (const std::string& label : run_on_corpus(*move, arch))
      EXPECT_TRUE(label.find("matmul_128_kernel") != std::string::npos || label.find("matmul_kernel") != std::string::npos) << arch << ": " << label;
}

TEST(OccupancyRenameTest, Matmul128RecomputesAddressesAndIssuesLoadsLater) {
  // Triton's matmul_128_kernel needs 78 VGPRs at its peak (the B prefetch issued before the MFMAs);
  // 4 waves need 64. Rematerialization drops the loop's six swizzled LDS read addresses (each one
  // v_xor_b32 of v17/v18, recomputed into the ds_read's own destination) and prologue values;
  // sinking issues the B prefetch after the first MFMAs. The loop then needs 64; the epilogue's
  // AGPR round trips (agpr_round_trip.h, occupancy renaming's first stage) are checked in
  // agpr_round_trip_test.cpp. Renaming is still refused: 64 values live at the loop's first MFMA
  // leave v24..v29 free, and the tuples above v63 (v[62:65], v[66:69] of the LDS reads) need 4
  // aligned registers each. Each stage checks clean and verifies EQUIVALENT.
  const std::string kernel = "matmul_128_kernel";
  auto k0 = load(corpus::triton_object("gfx942", kernel));
  auto p = program::Program::recover(k0);
  auto rm = search::rematerialize_vgprs(p, kernel, 64);
  ASSERT_FALSE(rm.values.empty()) << rm.refused;
  EXPECT_EQ(rm.need_before, 78u);
  EXPECT_LT(rm.need_after, rm.need_before);
  size_t lds_addresses = 0;
  for (const auto& v : rm.values) lds_addresses += v.expression.find("v_xor_b32_e32") == 0 && v.expression.find("v17") != std::string::npos;
  EXPECT_GE(lds_addresses, 3u);
  auto sk = search::sink_loads_for_pressure(rm.program, kernel, 64);
  ASSERT_FALSE(sk.moves.empty()) << sk.refused;
  EXPECT_LT(sk.need_after, rm.need_after);
  const program::Function* f = sk.program.function(kernel);
  const auto need = search::vgpr_need(sk.program, kernel);
  for (size_t k = 0; k < need.size(); ++k)
    if (sk.program.text_line(f->begin + k).text.starts_with("v_mfma")) {
      // Every MFMA of the loop (before the epilogue's AGPR copies) fits in 64.
      if (k + f->begin < sk.program.line_of_address(0x2290)) EXPECT_LE(need[k], 64u) << sk.program.text_line(f->begin + k).text;
    }
  // Aiming at 56 after the AGPR round trips go: the B prefetch group sinks too, its address
  // temporaries (v54/v55, the next LDS read's destination) renamed into free VGPRs below the limit.
  auto trips = search::remove_agpr_round_trips(p, kernel);
  auto rm56 = search::rematerialize_vgprs(trips.program, kernel, 56);
  auto sk56 = search::sink_loads_for_pressure(rm56.program, kernel, 56);
  ASSERT_EQ(sk56.moves.size(), 2u) << sk56.refused;
  EXPECT_LE(sk56.need_after, 56u);
  std::cout << "matmul_128_kernel aiming at 56: " << rm56.values.size() << " values rematerialized, " << sk56.moves.size()
            << " load groups sunk: the most VGPRs one line needs " << rm56.need_before << " -> " << sk56.need_after << "\n";
  for (auto* stage : {&rm.program, &sk.program, &sk56.program}) {
    auto k1 = rebuilt(*stage, "stage.co");
    auto report = checked(k1, kernel);
    EXPECT_TRUE(report.clean()) << report.to_text();
    EXPECT_EQ(verdict(k0, k1, triton_spec(kernel)), verify::Verdict::Equivalent);
  }
}

TEST(OccupancyRenameTest, Matmul128ReallocatesEveryClusterForAFourthWave) {
  // After the stages above, matmul_128_kernel's loop needs at most 64 VGPRs per line, but renaming
  // only the clusters above v63 fails: the LDS reads' 4-register tuples (v[62:65], v[66:69], the
  // epilogue's v[78:81]) need 4 consecutive registers at an even shift and the clusters below the
  // limit that stay fragment the free ones. Reallocating every movable cluster places them all:
  // 88 -> <= 64 arch VGPRs, 152 -> <= 128 unified, 3 -> 4 waves per SIMD. Every VGPR tuple the
  // result names starts at an even register; it checks clean and verifies EQUIVALENT.
  const std::string kernel = "matmul_128_kernel";
  auto k0 = load(corpus::triton_object("gfx942", kernel));
  auto p = program::Program::recover(k0);
  auto r = search::rename_for_occupancy(p, kernel);
  ASSERT_FALSE(r.lines.empty()) << r.refused;
  std::cout << "matmul_128_kernel: " << r.round_trips_removed << " AGPR round trips removed, " << r.rematerialized.size()
            << " values rematerialized, " << r.loads_sunk << " load groups sunk, " << r.clusters_moved << " clusters moved ("
            << (r.reallocated ? "every movable cluster reallocated" : "those above the limit") << "): VGPRs " << r.vgprs_before
            << " -> " << r.vgprs_after << ", waves " << r.waves_before << " -> " << r.waves_after << "\n";
  EXPECT_TRUE(r.reallocated);
  EXPECT_EQ(r.vgpr_limit, 64u);
  EXPECT_EQ(r.waves_before, 3u);
  EXPECT_EQ(r.waves_after, 4u);
  EXPECT_EQ(r.round_trips_removed, 64u);
  const program::Function* f = r.program.function(kernel);
  size_t tuples = 0;
  for (size_t i = f->begin; i < f->end; ++i)
    search::for_each_register_token(r.program.text_line(i).text, [&](size_t, size_t, const program::RegRange& t) {
      if (t.file != program::RegFile::VGPR || t.count < 2) return;
      ++tuples;
      EXPECT_EQ(t.first % 2, 0u) << r.program.text_line(i).text;
      EXPECT_LT(t.first + t.count, 65u) << r.program.text_line(i).text;
    });
  EXPECT_GT(tuples, 0u);
  auto k1 = rebuilt(r.program, "four_waves.co");
  EXPECT_EQ(resources(k1, kernel).occupancy.by_vgprs, 4u);
  EXPECT_LE(program::Program::recover(k1).register_use(kernel).max_vgpr, 63);
  auto report = checked(k1, kernel);
  EXPECT_TRUE(report.clean()) << report.to_text();
  EXPECT_EQ(verdict(k0, k1, triton_spec(kernel)), verify::Verdict::Equivalent);
  // Through the Move interface: one edit with the same effect.
  auto move = search::make_occupancy_rename_move();
  auto edits = propose_whole(*move, p, kernel);
  ASSERT_EQ(edits.size(), 1u);
  auto via_edit = rebuilt(search::apply_edit(p, edits[0]), "via_edit.co");
  EXPECT_EQ(resources(via_edit, kernel).occupancy.by_vgprs, 4u);
  EXPECT_EQ(verdict(k0, via_edit, triton_spec(kernel)), verify::Verdict::Equivalent);
}

TEST(OccupancyRenameTest, LeadsTheSearchWhereAWaveMoreSavesADispatchRound) {
  // matmul_128_kernel (152 VGPRs: 3 waves per SIMD; 256-lane workgroups: 3 per CU): its prefill_4k perf
  // launch has 1024 workgroups, 2 rounds of 304 CUs x 3 = 912; with 128 VGPRs 4 per CU, 1216: one round.
  // The move goes first in the search. decode_b64 (32 workgroups) is one round either way: no reason.
  // matmul_kernel (72 -> 64 VGPRs, 7 -> 8 per CU): prefill's 4096 workgroups take 2 rounds of 2128 and
  // 2 of 2432, so it keeps its place in the registry order;
  // vector_add (already 8 waves) too.
  auto move = search::make_occupancy_rename_move();
  auto at_stake = [&](const std::string& kernel, bool first_only) {
    auto p = program::Program::recover(load(corpus::triton_object("gfx942", kernel)));
    std::vector<emu::LaunchSpec> perf = emu::perf_runs(emu::load_launch_spec(corpus::triton_spec(kernel)));
    EXPECT_EQ(perf.size(), 2u);
    if (first_only) perf.resize(1);
    const program::Function* f = p.function(kernel);
    std::mt19937_64 rng(1);
    search::MoveContext ctx{p, kernel, search::Window{f->begin, f->end - 1, 0, kernel}, rng, 8, &perf};
    EXPECT_EQ(move->leads(ctx), search::occupancy_at_stake(p, kernel, perf));
    return search::occupancy_at_stake(p, kernel, perf);
  };
  const std::string why = at_stake("matmul_128_kernel", false);
  std::cout << "matmul_128_kernel: " << why << "\n";
  EXPECT_NE(why.find("prefill_4k: 1024 workgroups in 2 dispatch round(s) of 912"), std::string::npos) << why;
  EXPECT_NE(why.find("1 round(s) of 1216"), std::string::npos) << why;
  EXPECT_EQ(at_stake("matmul_128_kernel", true), "");
  EXPECT_EQ(at_stake("matmul_kernel", false), "");
  auto va = program::Program::recover(load(hip("vector_add.co")));
  EXPECT_EQ(search::occupancy_at_stake(va, "vector_add", emu::perf_runs(emu::load_launch_spec(corpus::hip_spec("vector_add")))), "");
}
