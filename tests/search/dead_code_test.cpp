// search/moves/dead_code.h: dead and redundant instructions inside a window are removed, nothing
// else is; every result checks clean and verifies EQUIVALENT on the emulator.
#include "search/moves/dead_code.h"

#include <set>

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// Replaces the first occurrence of `anchor` (a whole line) in `text` by `anchor` + `extra`.
std::string insert_after_line(std::string text, const std::string& anchor, const std::string& extra) {
  size_t pos = text.find("\n" + anchor + "\n");
  EXPECT_NE(pos, std::string::npos) << anchor;
  if (pos == std::string::npos) return text;
  pos += anchor.size() + 2;
  text.insert(pos, extra);
  return text;
}

// `co` with its kernels' resources recomputed (for objects assembled from edited text).
codeobj::CodeObject with_resources(const codeobj::CodeObject& co, const std::string& kernel) {
  auto p = program::Program::recover(co);
  p.touch(kernel);
  return rebuilt(p, "resources.co");
}

}  // namespace

TEST(DeadCodeTest, RemovesAnInsertedDeadMoveAndOnlyIt) {
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  size_t end = find_line(p, "vector_add", "s_endpgm");
  ASSERT_GT(end, 0u);
  // v1 is not read again: the move is dead on both paths into the final block.
  p.insert_before(end, {"v_mov_b32_e32 v1, 0"});
  auto padded = rebuilt(p, "padded.co");
  auto pp = program::Program::recover(padded);
  const size_t dead_line = find_line(pp, "vector_add", "v_mov_b32_e32 v1, 0");
  ASSERT_GT(dead_line, 0u);

  // A window without the move leaves it alone.
  auto outside = search::eliminate_dead_code(pp, "vector_add", std::pair{pp.function("vector_add")->begin, dead_line - 1});
  EXPECT_TRUE(outside.removals.empty());

  auto r = search::eliminate_dead_code(pp, "vector_add");
  EXPECT_TRUE(r.refused.empty()) << r.refused;
  ASSERT_EQ(r.removals.size(), 1u);
  EXPECT_EQ(r.removals[0].text, "v_mov_b32_e32 v1, 0");
  EXPECT_EQ(r.removals[0].reason, "dead");
  EXPECT_EQ(r.removals[0].line, dead_line);
  auto cleaned = rebuilt(std::move(r.program), "cleaned.co");
  // Exactly the original code again.
  auto code = cleaned.code_bytes(*cleaned.kernel("vector_add"));
  auto original = k0.code_bytes(*k0.kernel("vector_add"));
  EXPECT_TRUE(std::equal(code.begin(), code.end(), original.begin(), original.end()));
  EXPECT_TRUE(checked(cleaned, "vector_add").clean());
  EXPECT_EQ(verdict(k0, cleaned, hip_spec("vector_add")), verify::Verdict::Equivalent);

  // The same through the Move interface: one edit deleting that line.
  auto move = search::make_dead_code_move();
  EXPECT_EQ(move->name(), "dead-code");
  EXPECT_EQ(move->proposer(), "rules");
  auto edits = propose_whole(*move, pp, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].first, dead_line);
  EXPECT_TRUE(edits[0].hunks[0].lines.empty());
  auto via_edit = rebuilt(search::apply_edit(pp, edits[0]), "via_edit.co");
  EXPECT_EQ(verdict(padded, via_edit, hip_spec("vector_add")), verify::Verdict::Equivalent);
}

TEST(DeadCodeTest, RemovesIdentityAndRepeatedMovesButNotTheFirstCopy) {
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  size_t add = find_line(p, "vector_add", "v_add_f32_e32 v2, v6, v7");
  ASSERT_GT(add, 0u);
  // v8 = 1.0 (read at once: v6 *= v8), and again after the add with v8 and EXEC unchanged in
  // between (then v2 *= v8); and an identity move of v6.
  p.insert_before(add + 1, {"v_mov_b32_e32 v8, 1.0", "v_mul_f32_e32 v2, v2, v8"});
  p.insert_before(add, {"v_mov_b32_e32 v8, 1.0", "v_mul_f32_e32 v6, v6, v8", "v_mov_b32_e32 v6, v6"});
  auto edited = rebuilt(p, "edited.co");
  auto r = search::eliminate_dead_code(program::Program::recover(edited), "vector_add");
  std::multiset<std::string> reasons;
  for (const auto& rm : r.removals) reasons.insert(rm.reason + ": " + rm.text);
  EXPECT_EQ(reasons, (std::multiset<std::string>{"identity move: v_mov_b32_e32 v6, v6", "repeated move: v_mov_b32_e32 v8, 1.0"}));
  auto cleaned = rebuilt(std::move(r.program), "cleaned.co");
  auto left = program::Program::recover(cleaned);
  EXPECT_GT(find_line(left, "vector_add", "v_mov_b32_e32 v8, 1.0"), 0u);  // the first copy feeds the multiply
  EXPECT_TRUE(checked(cleaned, "vector_add").clean());
  EXPECT_EQ(verdict(edited, cleaned, hip_spec("vector_add")), verify::Verdict::Equivalent);
}

TEST(DeadCodeTest, RemovesAnExeczSkipOverValuOnlyCodeAndAnEmptyExecSaveRestore) {
  auto k0 = load(hip("vector_add.co"));
  auto text = program::Program::recover(k0).listing().to_assembly(false);
  // Inside the bounds-checked region, before the store of v2.
  text = insert_after_line(text, "\tv_add_f32_e32 v2, v6, v7",
                           "\ts_cbranch_execz .Lskip_valu\n"
                           "\tv_mul_f32_e32 v2, 1.0, v2\n"
                           ".Lskip_valu:\n"
                           "\ts_and_saveexec_b64 s[8:9], vcc\n"
                           "\ts_cbranch_execz .Lempty\n"
                           ".Lempty:\n"
                           "\ts_or_b64 exec, exec, s[8:9]\n");
  auto edited = with_resources(assembled(text, "edited.co"), "vector_add");
  ASSERT_TRUE(checked(edited, "vector_add").clean());
  auto r = search::eliminate_dead_code(program::Program::recover(edited), "vector_add");
  // (Recovery names labels by address, so the branches are compared by mnemonic.)
  std::multiset<std::string> reasons;
  for (const auto& rm : r.removals) reasons.insert(rm.reason + ": " + rm.text.substr(0, rm.text.find(' ')));
  EXPECT_EQ(reasons, (std::multiset<std::string>{"execz skip: s_cbranch_execz", "exec save/restore: s_and_saveexec_b64",
                                                 "exec save/restore: s_cbranch_execz", "exec save/restore: s_or_b64"}));
  auto cleaned = rebuilt(std::move(r.program), "cleaned.co");
  EXPECT_GT(find_line(program::Program::recover(cleaned), "vector_add", "v_mul_f32_e32 v2, 1.0, v2"), 0u);
  EXPECT_TRUE(checked(cleaned, "vector_add").clean());
  EXPECT_EQ(verdict(edited, cleaned, hip_spec("vector_add")), verify::Verdict::Equivalent);
}

TEST(DeadCodeTest, KeepsLoadsWithDeadResults) {
  // A second load of a[i] into v9, never read: a load may fault and counts in vmcnt, so it stays.
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  size_t load_line = find_line(p, "vector_add", "global_load_dword v6, v[4:5], off");
  ASSERT_GT(load_line, 0u);
  p.insert_before(load_line, {"global_load_dword v9, v[4:5], off"});
  auto edited = rebuilt(p, "edited.co");
  auto r = search::eliminate_dead_code(program::Program::recover(edited), "vector_add");
  EXPECT_TRUE(r.removals.empty()) << r.removals.size();
}

TEST(DeadCodeTest, KeepsADeadInstructionAHazardNeedsAsAWaitState) {
  // softmax_rows_f32: v_cmp_*_e64 writes s[6:7], `s_nop 1` (2 wait states), then v_cndmask reads
  // s[6:7] as its mask. With the s_nop 1 replaced by a dead `v_mov_b32 v20, 0` + `s_nop 0` the
  // move still gives the 2 wait states; removing the dead move would leave 1, a hazard, so the
  // rebuilt-and-checked fallback keeps it.
  auto k0 = load(hip("softmax.co"));
  const std::string kernel = "softmax_rows_f32";
  auto p = program::Program::recover(k0);
  size_t nop = find_line(p, kernel, "s_nop 1");
  ASSERT_GT(nop, 0u);
  p.replace(nop, nop, {"v_mov_b32_e32 v20, 0", "s_nop 0"});
  auto edited = rebuilt(p, "edited.co");
  ASSERT_TRUE(checked(edited, kernel).clean());
  auto r = search::eliminate_dead_code(program::Program::recover(edited), kernel);
  for (const auto& rm : r.removals) EXPECT_NE(rm.text, "v_mov_b32_e32 v20, 0");
  EXPECT_GE(r.probes, 3u);  // the kernel, the whole result, then each removal alone
  auto cleaned = rebuilt(std::move(r.program), "cleaned.co");
  EXPECT_TRUE(checked(cleaned, kernel).clean());
}

TEST(DeadCodeTest, KeepsTheThenHalfOfAnIfElse) {
  // tanh_f32 computes v3 in a "then" half and writes v3 again in the "else" half under the
  // complementary EXEC mask; the then half's lanes are read after the join. A liveness that
  // counted the else half's VALU write as a kill would call the whole then half dead.
  auto k0 = load(hip("tanh.co"));
  auto r = search::eliminate_dead_code(program::Program::recover(k0), "tanh_f32");
  for (const auto& rm : r.removals) EXPECT_EQ(rm.text.rfind("v_", 0), std::string::npos) << rm.text;
  EXPECT_TRUE(r.removals.empty());
}

TEST(DeadCodeTest, RefusesKernelsWithCallsAndUnknownKernels) {
  auto k0 = load(hip("bias_gelu.co"));
  auto r = search::eliminate_dead_code(program::Program::recover(k0), "bias_gelu_f32");
  EXPECT_FALSE(r.refused.empty());
  EXPECT_TRUE(r.removals.empty());
  EXPECT_THROW(search::eliminate_dead_code(program::Program::recover(k0), "no_such_kernel"), Error);
}

TEST(DeadCodeTest, CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_dead_code_move();
  run_on_corpus(*move);
}

TEST(DeadCodeTest, Gfx90aAndGfx950CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_dead_code_move();
  for (const char* arch : {"gfx90a", "gfx950"}) run_on_corpus(*move, arch);
}
