// search/moves/reschedule.h: small hand-built sequences (inserted into vector_add between two s_nop
// fixed points, rebuilt and recovered so that every line is decoded) show what moves and what may
// not; corpus kernels (HIP and Triton; gfx942, with samples of gfx90a and gfx950) rescheduled whole,
// and edits for their hot windows, must rebuild, check clean and verify EQUIVALENT on the emulator.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/edit.h"
#include "search/move.h"
#include "search/moves/moves.h"
#include "search/moves/reschedule.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "timing/profile.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;
using search::ScheduleVariant;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
// The corpus specs without their perf: lists: the move is verified on the small adversarial launches
// (sampled perf runs at full size for every case would take too long; tests/verify covers them).
std::string hip_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::hip_spec(kernel)); }
std::string triton(const std::string& kernel, const std::string& arch = "gfx942") {
  return corpus::triton_object(arch, kernel);
}
std::string triton_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::triton_spec(kernel)); }

codeobj::CodeObject rebuilt(program::Program p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), name), name);
}

constexpr ScheduleVariant kAllVariants[] = {ScheduleVariant::Full, ScheduleVariant::LoadsOnly, ScheduleVariant::FullFixedWaits,
                                            ScheduleVariant::LoadsFixedWaits};

// vector_add with `seq` inserted before its s_endpgm between two `s_nop 0` (fixed points, so the
// sequence is one region of its own), rebuilt and recovered.
struct Sequence {
  program::Program p;
  size_t first = 0, last = 0;  // the sequence's lines
};

Sequence with_sequence(const std::vector<std::string>& seq) {
  auto p = program::Program::recover(load(hip("vector_add.co")));
  const program::Function* f = p.function("vector_add");
  auto endpgm = [](const program::Program& q, const program::Function& g) {
    size_t e = 0;
    for (size_t i = g.begin; i < g.end; ++i)
      if (q.text_line(i).inst && q.text_line(i).inst->mnemonic == "s_endpgm") e = i;
    return e;
  };
  size_t e = endpgm(p, *f);
  std::vector<std::string> lines = {"s_nop 0"};
  lines.insert(lines.end(), seq.begin(), seq.end());
  lines.push_back("s_nop 0");
  p.insert_before(e, lines);
  auto q = program::Program::recover(rebuilt(p, "sequence.co"));
  size_t e2 = endpgm(q, *q.function("vector_add"));
  return {q, e2 - 1 - seq.size(), e2 - 2};
}

// The sequence's instruction texts after scheduling it with `variant`.
std::vector<std::string> scheduled(const Sequence& s, ScheduleVariant variant) {
  std::vector<std::string> texts;
  for (size_t i = s.first; i <= s.last; ++i) texts.push_back(s.p.text_line(i).text);
  for (const auto& r : search::plan_schedules(s.p, "vector_add", s.first, s.last, variant)) {
    auto lines = r.lines(s.p);
    for (size_t k = 0; k < lines.size(); ++k) texts[r.first - s.first + k] = lines[k];
  }
  return texts;
}

// Position of the one line that contains `needle`.
size_t pos(const std::vector<std::string>& texts, const std::string& needle) {
  size_t found = texts.size(), n = 0;
  for (size_t i = 0; i < texts.size(); ++i)
    if (texts[i].find(needle) != std::string::npos) found = i, ++n;
  EXPECT_EQ(n, 1u) << "'" << needle << "' should name exactly one line";
  return found;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string s;
  for (const auto& t : texts) s += "  " + t + "\n";
  return s;
}

}  // namespace

TEST(RescheduleTest, HoistsAnIndependentLoadAboveValuWork) {
  auto s = with_sequence({
      "v_mul_f32_e32 v40, v41, v41",
      "v_add_f32_e32 v42, v40, v40",
      "v_add_f32_e32 v43, v42, v42",
      "global_load_dword v44, v[46:47], off",
      "s_waitcnt vmcnt(0)",
      "v_add_f32_e32 v45, v44, v43",
  });
  for (ScheduleVariant v : kAllVariants) {
    auto t = scheduled(s, v);
    SCOPED_TRACE(std::string(search::variant_name(v)) + ":\n" + joined(t));
    EXPECT_EQ(pos(t, "global_load_dword v44"), 0u);
    EXPECT_LT(pos(t, "global_load_dword v44"), pos(t, "s_waitcnt"));
    EXPECT_LT(pos(t, "s_waitcnt"), pos(t, "v45"));
    EXPECT_LT(pos(t, "v40, v41"), pos(t, "v42, v40"));
  }
  auto plans = search::plan_schedules(s.p, "vector_add", s.first, s.last, ScheduleVariant::Full);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].loads_hoisted, 1u);
  EXPECT_EQ(plans[0].max_hoist, 3u);
  EXPECT_LT(plans[0].cycles_after, plans[0].cycles_before);
}

TEST(RescheduleTest, AStoreNeverMovesPastALoadOfItsAddressSpaceButLdsMayPassIt) {
  // The LDS chain is the critical path, so the full schedule starts it first, ahead of the global
  // store; the global load must stay behind the store (same address space, may alias).
  auto s = with_sequence({
      "global_store_dword v[46:47], v48, off",
      "v_mul_f32_e32 v40, v41, v41",
      "global_load_dword v44, v[50:51], off",
      "ds_read_b32 v52, v53",
      "s_waitcnt lgkmcnt(0)",
      "ds_read_b32 v54, v52",
      "s_waitcnt lgkmcnt(0)",
      "ds_read_b32 v55, v54",
      "s_waitcnt lgkmcnt(0)",
      "ds_read_b32 v56, v55",
      "s_waitcnt lgkmcnt(0)",
      "ds_read_b32 v57, v56",
      "s_waitcnt lgkmcnt(0)",
      "ds_read_b32 v58, v57",
      "s_waitcnt vmcnt(0) lgkmcnt(0)",
      "v_add_f32_e32 v45, v44, v58",
  });
  for (ScheduleVariant v : kAllVariants) {
    auto t = scheduled(s, v);
    SCOPED_TRACE(std::string(search::variant_name(v)) + ":\n" + joined(t));
    EXPECT_LT(pos(t, "global_store_dword"), pos(t, "global_load_dword"));
    EXPECT_LT(pos(t, "global_load_dword"), pos(t, "vmcnt(0)"));
  }
  auto t = scheduled(s, ScheduleVariant::Full);
  EXPECT_LT(pos(t, "ds_read_b32 v52"), pos(t, "global_store_dword")) << joined(t);
}

TEST(RescheduleTest, AVccReaderNeverMovesAboveItsVCmpWriter) {
  // v_cndmask_b32_e32 reads vcc only implicitly; the second v_cmp is independent of everything
  // but vcc and heads the longest chain, so without the implicit operands it would be scheduled
  // right after the load, above the first v_cmp.
  auto s = with_sequence({
      "v_mul_f32_e32 v40, v41, v41",
      "v_mul_f32_e32 v42, v40, v40",
      "v_cmp_gt_f32_e32 vcc, v42, v43",
      "v_cndmask_b32_e32 v44, v45, v46, vcc",
      "v_cmp_lt_f32_e32 vcc, v51, v52",
      "v_cndmask_b32_e32 v53, v54, v55, vcc",
      "global_load_dword v47, v[48:49], off",
      "v_add_f32_e32 v56, v53, v53",
      "v_add_f32_e32 v57, v56, v56",
      "v_add_f32_e32 v58, v57, v57",
      "v_add_f32_e32 v59, v58, v58",
      "v_add_f32_e32 v60, v59, v59",
      "s_waitcnt vmcnt(0)",
      "v_add_f32_e32 v50, v47, v44",
      "v_add_f32_e32 v61, v60, v50",
  });
  for (ScheduleVariant v : kAllVariants) {
    auto t = scheduled(s, v);
    SCOPED_TRACE(std::string(search::variant_name(v)) + ":\n" + joined(t));
    EXPECT_LT(pos(t, "vcc, v42, v43"), pos(t, "v44, v45, v46, vcc"));
    EXPECT_LT(pos(t, "v44, v45, v46, vcc"), pos(t, "vcc, v51, v52"));
    EXPECT_LT(pos(t, "vcc, v51, v52"), pos(t, "v53, v54, v55, vcc"));
    EXPECT_EQ(pos(t, "global_load_dword"), 0u);
  }
}

TEST(RescheduleTest, NothingCrossesABarrierAndOnlyUnrelatedWorkCrossesAWait) {
  auto s = with_sequence({
      "global_load_dword v40, v[48:49], off",
      "v_mul_f32_e32 v41, v42, v42",
      "s_barrier",
      "v_mul_f32_e32 v43, v44, v44",
      "v_add_f32_e32 v45, v43, v43",
      "global_load_dword v46, v[50:51], off",
      "s_waitcnt vmcnt(0)",
      "v_add_f32_e32 v47, v46, v40",
      "v_mul_f32_e32 v52, v53, v53",
  });
  for (ScheduleVariant v : kAllVariants) {
    auto t = scheduled(s, v);
    SCOPED_TRACE(std::string(search::variant_name(v)) + ":\n" + joined(t));
    ASSERT_EQ(pos(t, "s_barrier"), 2u);
    EXPECT_LT(pos(t, "v40, v[48:49]"), 2u);
    EXPECT_LT(pos(t, "v41, v42"), 2u);
    EXPECT_LT(pos(t, "v46, v[50:51]"), pos(t, "s_waitcnt"));
    EXPECT_LT(pos(t, "s_waitcnt"), pos(t, "v47, v46, v40"));
    EXPECT_EQ(pos(t, "v46, v[50:51]"), 3u);  // hoisted to the top of its region
    bool fixed = v == ScheduleVariant::FullFixedWaits || v == ScheduleVariant::LoadsFixedWaits;
    if (fixed) {
      EXPECT_GT(pos(t, "v52, v53"), pos(t, "s_waitcnt"));
      EXPECT_LT(pos(t, "v45, v43"), pos(t, "s_waitcnt"));
    }
  }
  // Work that needs nothing the wait covers fills the wait's time in the full schedule.
  auto t = scheduled(s, ScheduleVariant::Full);
  EXPECT_LT(pos(t, "v52, v53"), pos(t, "s_waitcnt")) << joined(t);
}

TEST(RescheduleTest, AHoistedLoadKeepsTheWaitStatesAfterTheValuThatWritesItsAddress) {
  // valu-sgpr-vmem (check/hazard_rules.cpp): 5 wait states from a VALU writing an SGPR to a VMEM
  // reading it. The load wants to issue as early as possible, but not closer than that.
  std::vector<std::string> seq = {"v_readfirstlane_b32 s40, v41", "v_readfirstlane_b32 s41, v42"};
  for (int k = 0; k < 7; ++k) seq.push_back(fmt::format("v_mul_f32_e32 v{}, v{}, v{}", 60 + k, 70 + k, 70 + k));
  seq.insert(seq.end(), {"global_load_dword v50, v51, s[40:41]", "s_waitcnt vmcnt(0)", "v_add_f32_e32 v52, v50, v50"});
  auto s = with_sequence(seq);
  auto t = scheduled(s, ScheduleVariant::Full);
  size_t writer = pos(t, "s41, v42"), load = pos(t, "global_load_dword");
  EXPECT_LT(load, 9u) << joined(t);        // hoisted ...
  EXPECT_GE(load - writer - 1, 5u) << joined(t);  // ... but not into the hazard
}

TEST(RescheduleTest, RejectsUnknownKernelsAndWindowsOutsideTheKernel) {
  auto p = program::Program::recover(load(hip("vector_add.co")));
  EXPECT_THROW(search::reschedule(p, "no_such_kernel"), Error);
  const program::Function* f = p.function("vector_add");
  EXPECT_THROW(search::plan_schedules(p, "vector_add", f->begin, f->end, ScheduleVariant::Full), Error);
}

namespace {

struct CorpusKernel {
  std::string object, kernel, spec;
};

std::vector<CorpusKernel> sample_kernels() {
  return {
      {hip("vector_add.co"), "vector_add", hip_spec("vector_add")},
      {hip("matmul_tiled.co"), "matmul_tiled_f32", hip_spec("matmul_tiled_f32")},
      {hip("matmul_mfma_f16.co"), "matmul_mfma_16x16x16_f16", hip_spec("matmul_mfma_16x16x16_f16")},
      {hip("softmax.co"), "softmax_rows_f32", hip_spec("softmax_rows_f32")},
      {hip("layernorm.co"), "layernorm_f32", hip_spec("layernorm_f32")},
      {triton("matmul_kernel"), "matmul_kernel", triton_spec("matmul_kernel")},
      {triton("softmax_kernel"), "softmax_kernel", triton_spec("softmax_kernel")},
      {triton("layernorm_kernel"), "layernorm_kernel", triton_spec("layernorm_kernel")},
      // The other two archs (their own hazard rules and MFMA pass counts).
      {triton("matmul_kernel", "gfx90a"), "matmul_kernel", triton_spec("matmul_kernel")},
      {triton("matmul_kernel", "gfx950"), "matmul_kernel", triton_spec("matmul_kernel")},
      {corpus::hip_object("gfx90a", "matmul_mfma_f16.co"), "matmul_mfma_32x32x8_f16", hip_spec("matmul_mfma_32x32x8_f16")},
  };
}

verify::Verdict verdict(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& spec) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec)});
  return verify::verify_candidate(ref, k1).verdict;
}

bool is_counted(const program::Line& l, bool vm) {
  if (!l.inst) return false;
  return vm ? check::is_vmem(*l.inst) : (check::is_smem(*l.inst) || check::is_ds(*l.inst) || check::is_flat(*l.inst));
}

}  // namespace

TEST(RescheduleTest, CorpusKernelsRescheduledWholeStayCleanAndEquivalent) {
  size_t changed = 0;
  for (const auto& c : sample_kernels()) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto p = program::Program::recover(k0);
    auto r = search::reschedule(p, c.kernel);
    if (r.regions.empty()) continue;
    ++changed;
    // Each counter's memory operations and the waits keep their issue order inside every region.
    for (const auto& rs : r.regions) {
      for (bool vm : {true, false}) {
        std::vector<size_t> before, after;
        for (size_t l = rs.first; l <= rs.last; ++l)
          if (is_counted(p.text_line(l), vm) || p.text_line(l).inst->cls == program::InstClass::Waitcnt) before.push_back(l);
        for (size_t l : rs.order)
          if (is_counted(p.text_line(l), vm) || p.text_line(l).inst->cls == program::InstClass::Waitcnt) after.push_back(l);
        EXPECT_EQ(before, after) << rs.description();
      }
    }
    auto k1 = rebuilt(r.program, "rescheduled.co");
    check::CheckOptions opts;
    opts.kernel = c.kernel;
    auto report = check::check_code_object(k1, opts);
    EXPECT_TRUE(report.clean()) << report.to_text();
    EXPECT_EQ(k1.kernel(c.kernel)->code_size, k0.kernel(c.kernel)->code_size);
    EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent) << r.regions.size() << " regions";
  }
  EXPECT_GE(changed, 3u) << "the move should find something to reschedule in most sample kernels";
}

TEST(RescheduleTest, TheMoveProposesApplicableEditsForAWindowBestFirst) {
  auto moves = search::make_moves("rules");
  search::Move* move = nullptr;
  for (auto& m : moves)
    if (m->name() == "reschedule") move = m.get();
  ASSERT_NE(move, nullptr);
  EXPECT_EQ(move->proposer(), "rules");
  const std::string kernel = "matmul_tiled_f32";
  auto k0 = load(hip("matmul_tiled.co"));
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext ctx{p, kernel, {f->begin, f->end - 1, 0, kernel + "@whole"}, rng, 8};
  auto edits = move->propose(ctx);
  ASSERT_FALSE(edits.empty());
  EXPECT_LE(edits.size(), 8u);
  for (const auto& e : edits) {
    EXPECT_EQ(e.move, "reschedule");
    EXPECT_FALSE(e.description.empty());
    auto json_round = search::Edit::from_json(e.to_json());
    EXPECT_EQ(json_round.hunks.size(), e.hunks.size());
  }
  // The first edit is the whole window; it applies, checks clean and verifies.
  auto k1 = rebuilt(search::apply_edit(p, edits[0]), "edit.co");
  check::CheckOptions opts;
  opts.kernel = kernel;
  EXPECT_TRUE(check::check_code_object(k1, opts).clean());
  EXPECT_EQ(verdict(k0, k1, hip_spec(kernel)), verify::Verdict::Equivalent) << edits[0].description;
  for (size_t i = 1; i < edits.size(); ++i) EXPECT_NO_THROW(search::apply_edit(p, edits[i])) << edits[i].description;
  // A one-line window has nothing to reorder.
  search::MoveContext one{p, kernel, {f->begin, f->begin, 0, kernel + "@one"}, rng, 8};
  EXPECT_TRUE(move->propose(one).empty());
}

TEST(RescheduleTest, HotWindowsOfCorpusKernelsGiveCleanEquivalentEdits) {
  // The windows the optimizer will pass: the timing profile's hot windows (timing/profile.h),
  // mapped from the emulator's instruction indices to .text lines by address.
  auto move = search::make_reschedule_move();
  size_t windows = 0, with_edits = 0;
  for (const auto& c : sample_kernels()) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto p = program::Program::recover(k0);
    const program::Function* f = p.function(c.kernel);
    auto spec = emu::load_launch_spec(c.spec);
    auto run = timing::model_kernel({&k0, k0.kernel(c.kernel), &spec}, 2);
    std::mt19937_64 rng(7);
    for (const auto& w : timing::hot_windows(*run.program, run.model, 64, 5)) {
      size_t first = p.line_of_address(run.program->insts()[w.first].raw->address);
      size_t last = p.line_of_address(run.program->insts()[w.last].raw->address);
      if (first < f->begin || last >= f->end) continue;  // a device function's window
      ++windows;
      search::MoveContext ctx{p, c.kernel, {first, last, w.share, fmt::format("{}@{}", c.kernel, first)}, rng, 4};
      auto edits = move->propose(ctx);
      if (edits.empty()) continue;
      ++with_edits;
      for (const auto& e : edits)
        for (const auto& h : e.hunks) {
          EXPECT_GE(h.first, first);
          EXPECT_LE(h.first + h.count, last + 1);
        }
      auto k1 = rebuilt(search::apply_edit(p, edits[0]), "window.co");
      check::CheckOptions opts;
      opts.kernel = c.kernel;
      EXPECT_TRUE(check::check_code_object(k1, opts).clean()) << edits[0].description;
      EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent) << edits[0].description;
    }
  }
  std::printf("%zu hot windows, %zu with edits\n", windows, with_edits);
  EXPECT_GE(windows, 10u);
  EXPECT_GE(with_edits, 3u);
}

// Every corpus kernel (HIP and Triton, gfx942) with a launch spec, rescheduled whole: the changed
// ones must check clean and verify EQUIVALENT; prints modeled cycles before and after. Slow (the
// whole corpus on the emulator twice): run with --gtest_also_run_disabled_tests.
TEST(RescheduleTest, DISABLED_CorpusSweepWithModeledTiming) {
  std::vector<CorpusKernel> all;
  for (const auto& k : corpus::kernels("gfx942")) all.push_back({k.code_object, k.name, k.spec});
  size_t changed = 0, faster = 0, slower = 0;
  double total_before = 0, total_after = 0;
  for (const auto& c : all) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto r = search::reschedule(program::Program::recover(k0), c.kernel);
    if (r.regions.empty()) {
      std::printf("%-32s unchanged\n", c.kernel.c_str());
      continue;
    }
    ++changed;
    auto k1 = rebuilt(r.program, "rescheduled.co");
    check::CheckOptions opts;
    opts.kernel = c.kernel;
    EXPECT_TRUE(check::check_code_object(k1, opts).clean());
    EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent);
    auto spec = emu::load_launch_spec(c.spec);
    double before = timing::model_kernel({&k0, k0.kernel(c.kernel), &spec}, 2).model.cycles;
    double after = timing::model_kernel({&k1, k1.kernel(c.kernel), &spec}, 2).model.cycles;
    faster += after < before, slower += after > before;
    total_before += before, total_after += after;
    size_t moved = 0;
    for (const auto& rs : r.regions) moved += rs.moved;
    std::printf("%-32s %2zu regions %4zu moved  %10.0f -> %10.0f cycles (%+.2f%%)  %zu probes\n", c.kernel.c_str(), r.regions.size(),
                moved, before, after, 100.0 * (after - before) / before, r.probes);
  }
  std::printf("%zu kernels, %zu changed: %zu faster, %zu slower (modeled); sum %.0f -> %.0f cycles\n", all.size(), changed, faster,
              slower, total_before, total_after);
}
