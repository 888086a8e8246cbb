// search/moves/lds_forward.cpp: guarded store-to-load forwarding of a lane's own LDS word. On
// kb_cumsum_f32 (the hand edit of bench/moves/cumsum_hand_edits.py, now a move) the edit forwards the
// scan's nine own-word reads, checks clean, passes the ABI check (the dispatch pointer added), verifies
// EQUIVALENT on the spec's launches, which run the copy, and a launch with a 2-D workgroup (where
// another wave stores to the same word, so forwarding would be wrong) runs the original code and equals
// K0. Kernels without such a pair are refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "program/reaching.h"
#include "rebuild/abi_diff.h"
#include "search/moves/lds_forward.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

const char* kKernel = "kb_cumsum_f32";

// [first, end): the addresses of K1's guarded copy, from after the guard's last branch to the
// original code the guard branches to.
std::pair<uint64_t, uint64_t> copy_range(const codeobj::CodeObject& k1) {
  auto q = program::Program::recover(k1);
  const program::Function* f = q.function(kKernel);
  size_t last_guard = 0, guards = 0;
  std::string target;
  for (size_t i = f->begin; i < f->end && guards < 2; ++i)
    if (q.text_line(i).text.rfind("s_cbranch_scc1 ", 0) == 0) ++guards, last_guard = i, target = q.text_line(i).text.substr(15);
  uint64_t first = 0, end = 0;
  for (size_t i = last_guard + 1; i < f->end && !first; ++i)
    if (q.text_line(i).kind == program::Line::Instr) first = q.text_line(i).address;
  for (size_t i = last_guard + 1; i < f->end && !end; ++i)
    if (q.text_line(i).kind == program::Line::Label && q.text_line(i).text == target)
      for (size_t j = i + 1; j < f->end && !end; ++j)
        if (q.text_line(j).kind == program::Line::Instr) end = q.text_line(j).address;
  return {first, end};
}

// Runs `spec` on K0 and K1 and returns whether K1 took its copy (in every run) or the original (in none).
struct Paths {
  size_t in_copy = 0, runs = 0;
};
Paths paths(const codeobj::CodeObject& k1, const verify::Reference& ref, verify::Backend& backend) {
  const auto [first, end] = copy_range(k1);
  EXPECT_LT(first, end);
  auto loaded = backend.load(k1, kKernel);
  Paths out;
  for (const emu::LaunchSpec& run : ref.runs()) {
    verify::RunOutcome o = backend.run(*loaded, run, 1ull << 28);
    out.in_copy += std::any_of(o.executed.begin(), o.executed.end(), [&](uint64_t a) { return first <= a && a < end; });
    ++out.runs;
  }
  return out;
}

}  // namespace

TEST(LdsForwardTest, CumsumOwnWordReadsForwardedAndVerifiedOnBothPaths) {
  auto k0 = load(hip("kb_reduce.co"));
  auto p = program::Program::recover(k0);
  auto move = search::make_lds_forward_move();
  auto edits = propose_whole(*move, p, kKernel);
  ASSERT_EQ(edits.size(), 1u) << search::lds_forward_refusal(p, kKernel);
  const search::Edit& e = edits[0];
  std::cout << "[lds-forward] " << kKernel << ": " << e.description << "\n";
  EXPECT_TRUE(e.dispatch_ptr);
  EXPECT_NE(e.description.find("forwarded 9 LDS read(s)"), std::string::npos) << e.description;

  auto edited = search::apply_edit(p, e);
  auto k1 = codeobj::CodeObject::parse(rebuild::rebuild(edited.listing(), "k1"), "k1");
  const codeobj::Kernel* kernel1 = k1.kernel(kKernel);
  ASSERT_NE(kernel1, nullptr);
  EXPECT_EQ(kernel1->kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr"), 1u);
  EXPECT_EQ(kernel1->kd.user_sgpr_count(), k0.kernel(kKernel)->kd.user_sgpr_count() + 2);
  auto report = checked(k1, kKernel);
  EXPECT_TRUE(report.clean()) << report.to_text();
  const rebuild::AbiDiff abi = rebuild::abi_diff(k0, k1);
  EXPECT_TRUE(abi.compatible()) << abi.breaks.front().field << ": " << abi.breaks.front().message;

  // The spec's launches (1-D workgroups of 256, rows/cols varied): EQUIVALENT, all through the copy.
  auto backend = verify::make_emulator_backend(2);
  {
    verify::Reference ref(*backend, k0, {emu::load_launch_spec(hip_spec(kKernel))});
    verify::VerifyReport r = verify::verify_candidate(ref, k1);
    EXPECT_EQ(r.verdict, verify::Verdict::Equivalent) << r.to_text();
    const Paths ps = paths(k1, ref, *backend);
    EXPECT_GT(ps.runs, 0u);
    EXPECT_EQ(ps.in_copy, ps.runs) << "a 1-D launch did not take the forwarded copy";
  }
  // A 2-D workgroup (128 x 2): lanes of the two y rows share x and so buf[x]; the guard sends it to
  // the original code, and K1 equals K0.
  {
    emu::LaunchSpec two_d = emu::load_launch_spec(hip_spec(kKernel));
    two_d.block = {128, 2, 1};
    verify::Reference ref(*backend, k0, {two_d});
    verify::VerifyReport r = verify::verify_candidate(ref, k1);
    EXPECT_EQ(r.verdict, verify::Verdict::Equivalent) << r.to_text();
    const Paths ps = paths(k1, ref, *backend);
    EXPECT_GT(ps.runs, 0u);
    EXPECT_EQ(ps.in_copy, 0u) << "a 2-D launch took the forwarded copy";
  }
  // Without the guard the copy is wrong for the 2-D launch: the guard is what makes it correct.
  {
    search::Edit unguarded = e;
    std::vector<std::string>& lines = unguarded.hunks[0].lines;
    lines.erase(std::remove_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("s_cbranch_scc1 .Lfwd", 0) == 0; }), lines.end());
    auto k1u = codeobj::CodeObject::parse(rebuild::rebuild(search::apply_edit(p, unguarded).listing(), "k1u"), "k1u");
    emu::LaunchSpec two_d = emu::load_launch_spec(hip_spec(kKernel));
    two_d.block = {128, 2, 1};
    verify::Reference ref(*backend, k0, {two_d});
    EXPECT_NE(verify::verify_candidate(ref, k1u).verdict, verify::Verdict::Equivalent) << "the 2-D launch does not tell the guard's need";
  }
}

TEST(LdsForwardTest, RefusesKernelsWithoutOwnWordPairs) {
  auto p = program::Program::recover(load(hip("kb_activation.co")));
  EXPECT_EQ(search::lds_forward_refusal(p, "kb_relu_f32"), "no lane-word store and load");
  EXPECT_TRUE(propose_whole(*search::make_lds_forward_move(), p, "kb_relu_f32").empty());
}

// Over the gfx942 corpus: where the move fires (printed), and every edit applies and assembles.
TEST(LdsForwardTest, ProposedOverTheCorpus) {
  size_t fired = 0, total = 0;
  std::string names;
  std::map<std::string, size_t> reasons;
  auto move = search::make_lds_forward_move();
  for (const auto& k : corpus::kernels("gfx942")) {
    ++total;
    auto p = program::Program::recover(load(k.code_object));
    auto edits = propose_whole(*move, p, k.name);
    if (edits.empty()) {
      std::string why = search::lds_forward_refusal(p, k.name);
      EXPECT_FALSE(why.empty()) << k.label();
      ++reasons[why.substr(0, why.find(':'))];
      continue;
    }
    ++fired;
    names += " " + k.label();
    for (const auto& e : edits) {
      std::cout << "[lds-forward] " << k.label() << ": " << e.description << "\n";
      EXPECT_NO_THROW(rebuild::rebuild(search::apply_edit(p, e).listing(), "k1")) << k.label();
    }
  }
  for (const auto& [why, n] : reasons) std::cout << "[lds-forward] refused " << n << ": " << why << "\n";
  std::cout << "[lds-forward] fired on " << fired << " of " << total << " gfx942 corpus kernels:" << names << "\n";
  EXPECT_GT(fired, 0u);
}

// program/reaching.h exec_from_entry, which lds-forward's pairs rest on, on Triton's rmsnorm_kernel:
// EXEC is the entry EXEC until the first s_and_saveexec_b64, a subset of it at the LDS store inside,
// the entry EXEC again after `s_or_b64 exec, exec, s[12:13]` restores the saved pair, and unknown
// once the pair no longer holds E0 and is restored anyway (an edit that overwrites it in between).
TEST(ReachingTest, ExecFromEntryFollowsSaveexecAndRestore) {
  const corpus::Kernel k = corpus::kernels("gfx942", {"rmsnorm_kernel"}).at(0);
  const auto p = program::Program::recover(load(k.code_object));
  const program::Function& f = *p.function(k.name);
  const size_t save = find_line(p, k.name, "s_and_saveexec_b64 s[12:13], s[6:7]");
  const size_t store = find_line(p, k.name, "ds_write_b32 v8, v10");
  const size_t restore = find_line(p, k.name, "s_or_b64 exec, exec, s[12:13]");
  ASSERT_TRUE(save && store && restore && save < store && store < restore);
  const std::vector<program::EntryExec> exec = program::exec_from_entry(p, f);
  EXPECT_EQ(exec[save - f.begin], program::EntryExec::Entry);
  EXPECT_EQ(exec[store - f.begin], program::EntryExec::Subset);
  EXPECT_EQ(exec[restore + 1 - f.begin], program::EntryExec::Entry);
  program::Program q = p;
  q.insert_before(restore, {"s_mov_b32 s12, 0"});  // the saved E0 is gone: the restore restores something else
  const auto r = program::Program::recover(rebuilt(q, "changed.co"));
  const size_t restore_r = find_line(r, k.name, "s_or_b64 exec, exec, s[12:13]");
  EXPECT_EQ(program::exec_from_entry(r, *r.function(k.name))[restore_r + 1 - r.function(k.name)->begin], program::EntryExec::Unknown);
}
