// search/moves/specialize.cpp: guarded specialization on the perf launch's scalar arguments. Over
// the gfx942 corpus the move is proposed from every kernel's perf launches (proposing is cheap; the
// kernels it fires on are printed); on corpus kernels its edits check clean and verify EQUIVALENT
// with the perf launch included (sampled workgroups, full-size buffers), and the runs show both
// paths: the perf launch executes the specialized copy, the small verification launches the
// original. It refuses without a perf launch and where a guarded value never decides a branch.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "check/check.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "rebuild/rebuild.h"
#include "search/moves/moves.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }

std::vector<search::Edit> propose(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>* perf) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext c{p, kernel, {f->begin, f->end - 1, 0, ""}, rng, 8, perf};
  return search::make_specialize_move()->propose(c);
}

// The addresses [first, end) of K1's specialized copy: from after the guard to the label the guard
// branches to (the original code).
std::pair<uint64_t, uint64_t> copy_range(const codeobj::CodeObject& k1, const std::string& kernel, const search::Edit& e) {
  auto q = program::Program::recover(k1);
  const program::Function* f = q.function(kernel);
  const std::string first_guard = e.hunks.at(0).lines.at(0);
  size_t guard_end = 0, guards = 0;
  for (const std::string& l : e.hunks[0].lines) guards += l.rfind("s_cbranch_scc1 ", 0) == 0 && l.find("orig") != std::string::npos;
  std::string target;
  for (size_t i = f->begin; i < f->end; ++i) {
    const program::Line& l = q.text_line(i);
    if (l.kind == program::Line::Instr && l.text == first_guard && !guard_end) {
      size_t j = i, seen = 0;
      for (; j < f->end && seen < guards; ++j)
        if (q.text_line(j).text.rfind("s_cbranch_scc1 ", 0) == 0) ++seen, target = q.text_line(j).text.substr(15);
      guard_end = j;
    }
  }
  EXPECT_GT(guard_end, 0u);
  uint64_t first = 0, end = 0;
  for (size_t i = guard_end; i < f->end; ++i)
    if (q.text_line(i).kind == program::Line::Instr) {
      first = q.text_line(i).address;
      break;
    }
  for (size_t i = guard_end; i + 1 < f->end; ++i)
    if (q.text_line(i).kind == program::Line::Label && q.text_line(i).text == target) {
      for (size_t j = i + 1; j < f->end; ++j)
        if (q.text_line(j).kind == program::Line::Instr) {
          end = q.text_line(j).address;
          break;
        }
      break;
    }
  EXPECT_LT(first, end);
  return {first, end};
}

// Proposes from the spec's perf launches, verifies the edit (perf launch included) and checks which
// path each run took.
void specialize_and_verify(const std::string& object, const std::string& kernel, const std::string& spec_path) {
  SCOPED_TRACE(kernel);
  auto k0 = load(object);
  auto p = program::Program::recover(k0);
  const emu::LaunchSpec spec = emu::load_launch_spec(spec_path);
  const std::vector<emu::LaunchSpec> perf = emu::perf_runs(spec);
  auto edits = propose(p, kernel, &perf);
  ASSERT_FALSE(edits.empty());
  const search::Edit& e = edits[0];
  std::cout << "[specialize] " << kernel << ": " << e.description << "\n";
  EXPECT_NE(e.description.find("specialized on perf launch"), std::string::npos);
  auto k1 = codeobj::CodeObject::parse(rebuild::rebuild(search::apply_edit(p, e).listing(), "k1"), "k1");
  check::CheckOptions opts;
  opts.kernel = kernel;
  auto report = check::check_code_object(k1, opts);
  EXPECT_TRUE(report.clean()) << report.to_text();

  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {spec});
  verify::VerifyReport r = verify::verify_candidate(ref, k1);
  EXPECT_EQ(r.verdict, verify::Verdict::Equivalent) << r.to_text();
  ASSERT_FALSE(r.sampled_runs.empty()) << "the perf launch was not among the verified runs";

  // Which path each run took: the perf launch the copy, the verification launches the original.
  const auto [first, end] = copy_range(k1, kernel, e);
  auto loaded = backend->load(k1, kernel);
  size_t perf_in_copy = 0, small_in_copy = 0, small = 0;
  for (const emu::LaunchSpec& run : ref.runs()) {
    verify::RunOutcome o = backend->run(*loaded, run, 1ull << 28);
    const bool in_copy = std::any_of(o.executed.begin(), o.executed.end(), [&](uint64_t a) { return first <= a && a < end; });
    if (!run.workgroup_sample.empty() || !run.perf_name.empty()) {
      perf_in_copy += in_copy;
      EXPECT_TRUE(in_copy) << run.label << " did not take the specialized path";
    } else {
      ++small;
      small_in_copy += in_copy;
    }
  }
  std::cout << "[specialize] " << kernel << ": perf runs in the copy " << perf_in_copy << "; verification runs in the copy " << small_in_copy
            << " of " << small << "\n";
  EXPECT_GT(perf_in_copy, 0u);
  EXPECT_LT(small_in_copy, small) << "no verification run took the original path";
}

}  // namespace

TEST(SpecializeTest, ProposedOverTheCorpusFromThePerfLaunches) {
  size_t fired = 0, total = 0;
  std::string names;
  for (const auto& k : corpus::kernels("gfx942")) {
    ++total;
    auto p = program::Program::recover(load(k.code_object));
    const std::vector<emu::LaunchSpec> perf = emu::perf_runs(emu::load_launch_spec(k.spec));
    auto edits = propose(p, k.name, &perf);
    if (edits.empty()) continue;
    ++fired;
    names += " " + k.label();
    for (const auto& e : edits) {
      EXPECT_EQ(e.move, "specialize");
      std::cout << "[specialize] " << k.label() << ": " << e.description << "\n";
      // Every edit applies and assembles.
      EXPECT_NO_THROW(rebuild::rebuild(search::apply_edit(p, e).listing(), "k1")) << k.label();
    }
  }
  std::cout << "[specialize] fired on " << fired << " of " << total << " gfx942 corpus kernels:" << names << "\n";
  EXPECT_GT(fired, 0u);
}

TEST(SpecializeTest, CorpusEditsVerifyEquivalentOnBothPaths) {
  specialize_and_verify(corpus::hip_object("gfx942", "conv1d.co"), "conv1d_f32", corpus::hip_spec("conv1d_f32"));
}

TEST(SpecializeTest, RefusesWithoutAPerfLaunchOrABranchTheValuesDecide) {
  auto p = program::Program::recover(load(corpus::hip_object("gfx942", "kb_activation.co")));
  EXPECT_TRUE(propose(p, "kb_relu_f32", nullptr).empty());
  // kb_relu_f32's only uniform values (n, the group size) feed VALU address and bounds arithmetic,
  // never a scalar branch: a copy would only add the guard.
  const std::vector<emu::LaunchSpec> perf = emu::perf_runs(emu::load_launch_spec(corpus::hip_spec("kb_relu_f32")));
  EXPECT_TRUE(propose(p, "kb_relu_f32", &perf).empty());
}

// The edit API's new local labels (what the copy's branch targets are): a fresh name is a label
// line, a name the listing has is refused.
TEST(SpecializeTest, HunksAddOnlyFreshLocalLabels) {
  auto p = program::Program::recover(load(corpus::hip_object("gfx942", "conv1d.co")));
  const program::Function* f = p.function("conv1d_f32");
  size_t first = f->begin;
  while (p.text_line(first).kind != program::Line::Instr) ++first;
  search::Edit fresh;
  fresh.kernel = "conv1d_f32";
  fresh.hunks.push_back(search::make_insertion(first, {".Lfresh_label:", "s_nop 0"}));
  auto q = search::apply_edit(p, fresh);
  EXPECT_EQ(q.text_line(first).kind, program::Line::Label);
  EXPECT_EQ(q.text_line(first).text, ".Lfresh_label");
  std::string taken;
  for (size_t i = f->begin; i < f->end && taken.empty(); ++i)
    if (p.text_line(i).kind == program::Line::Label && p.text_line(i).text.rfind(".L", 0) == 0) taken = p.text_line(i).text;
  ASSERT_FALSE(taken.empty());
  search::Edit clash;
  clash.kernel = "conv1d_f32";
  clash.hunks.push_back(search::make_insertion(first, {taken + ":"}));
  EXPECT_THROW(search::apply_edit(p, clash), Error);
}
