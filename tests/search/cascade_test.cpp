// search/cascade.h: every stage of the evaluation cascade rejects what it should, in order, and a
// faster equivalent candidate is accepted — on the corpus kernel vector_add (gfx942).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rebuild/rebuild.h"
#include "search/cascade.h"
#include "support/error.h"
#include "support/file_io.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
using search::Edit;

namespace {

std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }

// vector_add with a launch shape that has no tail (every lane in range) first, and a tail launch
// second: a missing bounds check passes the quick run and fails full verification.
emu::LaunchSpec spec() {
  return emu::parse_launch_spec_text(R"(
kernel: vector_add
grid: [16, 1, 1]
block: [256, 1, 1]
seed: 3
inputs: 2
special: true
args:
  - {name: a, buffer: f32, count: 4096, init: {normal: [0, 1]}}
  - {name: b, buffer: f32, count: 4096, init: {uniform: [-1, 1]}}
  - {name: out, buffer: f32, count: 4096, output: true}
  - {name: n, value: 4096, type: i32}
launches:
  - {name: exact}
  - {name: tail, grid: [2, 1, 1], block: [64, 1, 1], values: {n: 101}, counts: {a: 101, b: 101, out: 101}}
)");
}

struct Fixture {
  std::vector<uint8_t> bytes = read_file_bytes(hip("vector_add.co"));
  codeobj::CodeObject k0 = codeobj::CodeObject::parse(bytes, "vector_add.co");
  search::Cascade cascade;
  search::Individual parent;
  explicit Fixture(double min_gain = 0.01, search::CascadeOptions::Proof proof = search::CascadeOptions::Proof::Gate)
      : cascade(k0, "vector_add", {spec()}, {min_gain, 1, "", false, proof}), parent(cascade.individual(bytes, 0, "vector_add.co")) {}

  size_t line(const std::string& prefix) const {
    const program::Function* f = parent.program->function("vector_add");
    for (size_t i = f->begin; i < f->end; ++i)
      if (parent.program->text_line(i).text.rfind(prefix, 0) == 0) return i;
    ADD_FAILURE() << "no line starting with " << prefix;
    return 0;
  }
  Edit edit(std::vector<search::Hunk> hunks) const {
    Edit e;
    e.kernel = "vector_add";
    e.move = "test";
    e.proposer = "rules";
    e.hunks = std::move(hunks);
    return e;
  }
};

std::string stages(const search::Evaluation& ev) {
  std::string s;
  for (const auto& st : ev.stages) s += st.stage + (st.ok ? "+ " : "- ");
  return s;
}

}  // namespace

TEST(CascadeTest, EditStageRejectsAHunkForAnotherVersionOfTheKernel) {
  Fixture f;
  search::Hunk h = search::make_hunk(*f.parent.program, f.line("v_add_f32"), f.line("v_add_f32"), {"v_sub_f32_e32 v2, v6, v7"});
  h.before = {"v_mul_f32_e32 v2, v6, v7"};
  auto ev = f.cascade.evaluate(f.parent, f.edit({h}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "edit") << stages(ev);
  EXPECT_NE(ev.reason.find("expected"), std::string::npos) << ev.reason;
}

TEST(CascadeTest, RebuildStageRejectsTextTheAssemblerRefuses) {
  Fixture f;
  size_t l = f.line("v_add_f32");
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, l, l, {"v_add_f32_e32 v2, v6, s0, s1"})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_TRUE(ev.stage == "rebuild" || ev.stage == "edit") << stages(ev) << ev.reason;
  EXPECT_FALSE(ev.reason.empty());
}

TEST(CascadeTest, StaticStageRejectsADeletedNeededWait) {
  Fixture f;
  size_t l = f.line("s_waitcnt vmcnt(0)");
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, l, l, {})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "static") << stages(ev);
  EXPECT_NE(ev.reason.find("waitcnt"), std::string::npos) << ev.reason;
}

TEST(CascadeTest, ProveStageRejectsAWrongResultBeforeEmulation) {
  // v_add_f32 -> v_sub_f32: the solver's live-in state, re-run on the emulator's units, differs.
  Fixture f;
  size_t l = f.line("v_add_f32");
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, l, l, {"v_sub_f32_e32 v2, v6, v7"})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "prove") << stages(ev);
  EXPECT_NE(ev.reason.find("DISPROVEN"), std::string::npos) << ev.reason;
  for (const auto& s : ev.stages) EXPECT_NE(s.stage, "emulate") << "a DISPROVEN candidate is never emulated";
}

TEST(CascadeTest, EmulateStageRejectsAWrongResult) {
  Fixture f(0.01, search::CascadeOptions::Proof::Off);
  size_t l = f.line("v_add_f32");
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, l, l, {"v_sub_f32_e32 v2, v6, v7"})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "emulate") << stages(ev);
  EXPECT_NE(ev.reason.find("DIFFERENT"), std::string::npos) << ev.reason;
  EXPECT_EQ(ev.cycles, 0) << "a wrong candidate is never timed";
}

TEST(CascadeTest, TimingStageRejectsASlowerEquivalentCandidate) {
  Fixture f;
  size_t l = f.line("v_add_f32");
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "timing") << stages(ev);
  EXPECT_GT(ev.cycles, f.parent.cycles);
  EXPECT_NE(ev.reason.find("not faster"), std::string::npos) << ev.reason;
  // The limit is said with its decimal and the gain it stands for (a whole-cycle figure could equal the candidate's).
  EXPECT_NE(ev.reason.find(fmt::format("needs <= {:.1f} (min gain", f.parent.cycles * (1 - 0.01))), std::string::npos)
      << ev.reason;
}

TEST(CascadeTest, VerifyStageRejectsWhatOnlyOtherRunsExpose) {
  // Without the bounds check every lane stores: identical on the exact launch (the quick run),
  // out of bounds on the tail launch. min_gain -10 lets it past timing whatever the model says.
  // The proof is off: it follows the branch and refuses the edit first (below).
  Fixture f(-10, search::CascadeOptions::Proof::Off);
  size_t a = f.line("s_and_saveexec_b64"), b = f.line("s_cbranch_execz");
  ASSERT_EQ(b, a + 1);
  auto ev = f.cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, a, b, {})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "verify") << stages(ev) << ev.reason;
  EXPECT_TRUE(ev.reason.rfind("FAULT", 0) == 0 || ev.reason.rfind("DIFFERENT", 0) == 0) << ev.reason;
  // With the proof (the default gate) the region proof sees EXEC and the exit change.
  Fixture g(-10);
  auto proved = g.cascade.evaluate(g.parent, g.edit({search::make_hunk(*g.parent.program, a, b, {})}));
  EXPECT_FALSE(proved.accepted);
  EXPECT_EQ(proved.stage, "prove") << stages(proved) << proved.reason;
  EXPECT_EQ(proved.reason.rfind("DISPROVEN", 0), 0u) << proved.reason;
}

TEST(CascadeTest, AcceptsAFasterEquivalentCandidateAndReverifiesItFromScratch) {
  // The parent is vector_add padded with needless s_nops (slower, equivalent); removing them is
  // accepted, and the child re-verifies EQUIVALENT with fresh seeds.
  Fixture f;
  size_t l = f.line("v_add_f32");
  Edit pad = f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})});
  program::Program padded = search::apply_edit(*f.parent.program, pad);
  search::Individual slow = f.cascade.individual(rebuild::rebuild(padded.listing(), "padded"), 7, "padded");
  ASSERT_GT(slow.cycles, f.parent.cycles);
  const program::Function* fn = slow.program->function("vector_add");
  size_t first = 0;
  for (size_t i = fn->begin; i < fn->end && !first; ++i)
    if (slow.program->text_line(i).text == "s_nop 7") first = i;
  Edit unpad = f.edit({search::make_hunk(*slow.program, first, first + 3, {})});
  auto ev = f.cascade.evaluate(slow, unpad);
  ASSERT_TRUE(ev.accepted) << stages(ev) << ev.reason;
  EXPECT_EQ(ev.stage, "accept");
  ASSERT_TRUE(ev.child);
  EXPECT_LT(ev.child->cycles, slow.cycles);
  EXPECT_EQ(ev.child->cycles, f.parent.cycles) << "removing the padding gives back K0's code";
  std::vector<std::string> names;
  for (const auto& s : ev.stages) names.push_back(s.stage);
  EXPECT_EQ(names, (std::vector<std::string>{"edit", "rebuild", "abi", "static", "prove", "emulate", "timing", "robust", "verify", "accept"}));
  EXPECT_EQ(ev.child->robust_cycles.size(), f.cascade.robust_rows().size());
  EXPECT_EQ(ev.stages[7].detail.rfind("faster under all 4 perturbed rows", 0), 0u) << ev.stages[7].detail;
  EXPECT_EQ(ev.stages[4].detail.rfind("PROVEN", 0), 0u) << ev.stages[4].detail;
  EXPECT_EQ(f.cascade.reverify(*ev.child->co, 1000).verdict, verify::Verdict::Equivalent);
  // The per-line profile names every instruction of the kernel with its modeled cycles.
  auto lines = nlohmann::json::parse(search::per_line_json(*ev.child, "vector_add"));
  ASSERT_FALSE(lines.empty());
  double total = 0;
  for (const auto& x : lines) total += x["cycles"].get<double>();
  EXPECT_GT(total, 0);
}

TEST(CascadeTest, AbiStageRejectsACandidateThatCannotReplaceK0) {
  // Code edits keep the launch setup (the rebuild only recomputes resources), so the ABI gate
  // guards against parents and proposers that change more: here the parent is vector_add built for
  // gfx90a, and any edit of it is refused before it runs.
  Fixture f;
  search::Individual other = f.cascade.individual(read_file_bytes(corpus::hip_object("gfx90a", "vector_add.co")), 9, "gfx90a");
  const program::Function* fn = other.program->function("vector_add");
  size_t l = 0;
  for (size_t i = fn->begin; i < fn->end && !l; ++i)
    if (other.program->text_line(i).text.rfind("v_add_f32", 0) == 0) l = i;
  ASSERT_GT(l, 0u);
  auto ev = f.cascade.evaluate(other, f.edit({search::make_insertion(l, {"s_nop 0"})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "abi") << stages(ev) << ev.reason;
  EXPECT_NE(ev.reason.find("ABI"), std::string::npos) << ev.reason;
}

TEST(CascadeTest, RepeatedCodeIsAnsweredFromTheCache) {
  // The same text again costs no rebuild, static check or emulation: a rebuild failure is answered
  // at once, and an equivalent slower candidate keeps its timed figure and is judged against the parent.
  Fixture f;
  size_t l = f.line("v_add_f32");
  Edit bad = f.edit({search::make_hunk(*f.parent.program, l, l, {"v_add_f32_e32 v2, v6, s0, s1"})});
  auto first_bad = f.cascade.evaluate(f.parent, bad);
  ASSERT_FALSE(first_bad.accepted);
  if (first_bad.stage == "rebuild") {  // an edit-stage refusal has no text to remember
    auto again = f.cascade.evaluate(f.parent, bad);
    EXPECT_EQ(again.stage, "cache") << stages(again);
    EXPECT_NE(again.reason.find("rejected at rebuild"), std::string::npos) << again.reason;
  }
  Edit slow = f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})});
  auto first = f.cascade.evaluate(f.parent, slow);
  ASSERT_EQ(first.stage, "timing") << stages(first);
  auto again = f.cascade.evaluate(f.parent, slow);
  EXPECT_EQ(stages(again), "edit+ cache+ timing- ");
  EXPECT_EQ(again.cycles, first.cycles);
  EXPECT_LT(again.seconds, first.seconds);
}

TEST(CascadeTest, RobustStageRejectsAWinThePerturbedRowsDoNotConfirm) {
  // The unpadding edit of the test above is a win under every row; against a parent whose figures
  // under the perturbed rows are made lower than any candidate's (tampered here to exercise the
  // gate), it is faster only under the nominal row and is refused at the robust stage, never verified.
  Fixture f;
  size_t l = f.line("v_add_f32");
  program::Program padded = search::apply_edit(*f.parent.program, f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})}));
  search::Individual slow = f.cascade.individual(rebuild::rebuild(padded.listing(), "padded"), 7, "padded");
  ASSERT_EQ(slow.robust_cycles.size(), 4u);
  for (double& c : slow.robust_cycles) c = 1;
  const program::Function* fn = slow.program->function("vector_add");
  size_t first = 0;
  for (size_t i = fn->begin; i < fn->end && !first; ++i)
    if (slow.program->text_line(i).text == "s_nop 7") first = i;
  auto ev = f.cascade.evaluate(slow, f.edit({search::make_hunk(*slow.program, first, first + 3, {})}));
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "robust") << stages(ev);
  EXPECT_NE(ev.reason.find("faster only under the nominal row"), std::string::npos) << ev.reason;
  for (const auto& s : ev.stages) EXPECT_NE(s.stage, "verify");
}

TEST(CascadeTest, RobustStageStopsAtTheFirstRowThatDoesNotConfirmTheWin) {
  // The rows are replayed one at a time on the traces the timing stage kept, and the first row under
  // which the candidate is not faster ends the stage: with the parent's figure under row 0 made lower
  // than any candidate's, only row 0 is replayed and named; with row 2's, rows 0-2. The figures
  // the rows give are those of a full robust fitness of the same code.
  Fixture f;
  size_t l = f.line("v_add_f32");
  program::Program padded = search::apply_edit(*f.parent.program, f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})}));
  const search::Individual slow = f.cascade.individual(rebuild::rebuild(padded.listing(), "padded"), 7, "padded");
  ASSERT_EQ(slow.robust_cycles.size(), 4u);
  const program::Function* fn = slow.program->function("vector_add");
  size_t first = 0;
  for (size_t i = fn->begin; i < fn->end && !first; ++i)
    if (slow.program->text_line(i).text == "s_nop 7") first = i;
  const Edit unpad = f.edit({search::make_hunk(*slow.program, first, first + 3, {})});
  for (size_t row : {0u, 2u}) {
    // A fresh cascade each time: the same code again would be answered from the cache.
    search::Cascade cascade(f.k0, "vector_add", {spec()}, {0.01, 1, "", false, search::CascadeOptions::Proof::Gate});
    search::Individual tampered = slow;
    tampered.robust_cycles[row] = 1;
    auto ev = cascade.evaluate(tampered, unpad);
    EXPECT_FALSE(ev.accepted);
    ASSERT_EQ(ev.stage, "robust") << stages(ev);
    EXPECT_EQ(cascade.robust_replays(), row + 1) << "rows after the first failing one are not replayed";
    EXPECT_NE(ev.reason.find(fmt::format("not under row {}: 1 -> ", row)), std::string::npos) << ev.reason;
    EXPECT_EQ(ev.reason.find(fmt::format("row {}:", row + 1)), std::string::npos) << ev.reason;
    EXPECT_NE(ev.stages.back().detail.find(fmt::format("({} of 4 rows replayed)", row + 1)), std::string::npos) << ev.stages.back().detail;
  }
  search::Cascade cascade(f.k0, "vector_add", {spec()}, {0.01, 1, "", false, search::CascadeOptions::Proof::Gate});
  auto ev = cascade.evaluate(slow, unpad);
  ASSERT_TRUE(ev.accepted) << stages(ev) << ev.reason;
  EXPECT_EQ(cascade.robust_replays(), 4u);
  EXPECT_EQ(ev.child->robust_cycles, cascade.fitness(*ev.child->co, /*robust=*/true).robust_cycles);
}

TEST(CascadeTest, ProofStageEndsUnknownAboutItsTimeout) {
  // An equivalent edit whose proof needs the solver to bit-blast 32-bit multipliers in every lane
  // (v0 + (a*a - (a+b)(a-b) - b*b), the added term 0, which simplification does not show): with a
  // proof timeout of 500 ms the stage ends UNKNOWN about then (the wall-clock deadline cuts the
  // query; building and freeing the terms is not cut), and the candidate goes on to be tested.
  Fixture f;
  search::CascadeOptions o{0.01, 1, "", false, search::CascadeOptions::Proof::Gate};
  o.proof_timeout_ms = 500;
  search::Cascade cascade(f.k0, "vector_add", {spec()}, o);
  const size_t l = f.line("v_add_u32_e32 v0, s2, v0");
  const Edit hard = f.edit({search::make_hunk(*f.parent.program, l, l,
                                              {"v_mov_b32_e32 v10, s2", "v_add_u32_e32 v8, v10, v0", "v_sub_u32_e32 v9, v10, v0",
                                               "v_mul_lo_u32 v8, v8, v9", "v_mul_lo_u32 v9, v10, v10", "v_sub_u32_e32 v8, v9, v8",
                                               "v_mul_lo_u32 v9, v0, v0", "v_sub_u32_e32 v8, v8, v9", "v_add_u32_e32 v0, v10, v0",
                                               "v_add_u32_e32 v0, v0, v8"})});
  auto ev = cascade.evaluate(f.parent, hard);
  const search::StageResult* prove = nullptr;
  for (const auto& s : ev.stages)
    if (s.stage == "prove") prove = &s;
  ASSERT_NE(prove, nullptr) << stages(ev) << ev.reason;
  EXPECT_TRUE(prove->ok);
  EXPECT_EQ(prove->detail.rfind("UNKNOWN", 0), 0u) << prove->detail;
  EXPECT_NE(prove->detail.find("wall-clock deadline"), std::string::npos) << prove->detail;
  EXPECT_LT(prove->seconds, 0.5 + 1.5) << prove->detail;
  EXPECT_EQ(ev.stage, "timing") << stages(ev) << ev.reason;  // tested (the quick run agrees), then slower
}

TEST(CascadeTest, ProveWinnersOnlyProvesJustBeforeFullVerification) {
  // With the proof late, a wrong candidate meets the cheap quick run first, and a win is proved
  // after timing and the robust stage, before full verification.
  Fixture f;
  search::CascadeOptions late{0.01, 1, "", false, search::CascadeOptions::Proof::Gate};
  late.prove_winners_only = true;
  search::Cascade cascade(f.k0, "vector_add", {spec()}, late);
  size_t l = f.line("v_add_f32");
  auto wrong = cascade.evaluate(f.parent, f.edit({search::make_hunk(*f.parent.program, l, l, {"v_sub_f32_e32 v2, v6, v7"})}));
  EXPECT_EQ(wrong.stage, "emulate") << stages(wrong);
  program::Program padded = search::apply_edit(*f.parent.program, f.edit({search::make_insertion(l, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})}));
  search::Individual slow = cascade.individual(rebuild::rebuild(padded.listing(), "padded"), 7, "padded");
  const program::Function* fn = slow.program->function("vector_add");
  size_t first = 0;
  for (size_t i = fn->begin; i < fn->end && !first; ++i)
    if (slow.program->text_line(i).text == "s_nop 7") first = i;
  auto ev = cascade.evaluate(slow, f.edit({search::make_hunk(*slow.program, first, first + 3, {})}));
  ASSERT_TRUE(ev.accepted) << stages(ev) << ev.reason;
  EXPECT_EQ(stages(ev), "edit+ rebuild+ abi+ static+ emulate+ timing+ robust+ prove+ verify+ accept+ ");
}
