// search/moves/nop_minimize.h: an s_nop no hazard needs goes, the s_nops the hazard rules need stay
// at exactly the count they need, and results check clean and verify EQUIVALENT.
#include "search/moves/nop_minimize.h"

#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The hazard findings of `p` with line `line` set to `text` ("" removes it).
std::vector<check::Violation> hazards_with(const program::Program& p, const std::string& kernel, size_t line, const std::string& text) {
  program::Program copy = p;
  if (text.empty()) copy.remove(line, line);
  else copy.replace(line, line, {text});
  std::vector<check::Violation> out;
  for (const auto& v : checked(rebuilt(copy, "probe.co"), kernel).violations)
    if (v.check == "hazard") out.push_back(v);
  return out;
}

}  // namespace

TEST(NopMinimizeTest, RemovesAnInsertedNopNoHazardNeeds) {
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  size_t wait = find_line(p, "vector_add", "s_waitcnt lgkmcnt(0)");
  ASSERT_GT(wait, 0u);
  p.insert_before(wait, {"s_nop 7"});  // between two scalar loads and their wait: no hazard
  auto padded = rebuilt(p, "padded.co");
  auto pp = program::Program::recover(padded);
  const size_t nop = find_line(pp, "vector_add", "s_nop 7");
  ASSERT_GT(nop, 0u);
  auto outside = search::minimize_nops(pp, "vector_add", std::pair{nop + 1, pp.function("vector_add")->end - 1});
  EXPECT_TRUE(outside.changes.empty());
  auto r = search::minimize_nops(pp, "vector_add");
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].before, "s_nop 7");
  EXPECT_EQ(r.changes[0].after, "");
  EXPECT_GT(r.probes, 1u);
  auto minimized = rebuilt(std::move(r.program), "minimized.co");
  auto code = minimized.code_bytes(*minimized.kernel("vector_add"));
  auto original = k0.code_bytes(*k0.kernel("vector_add"));
  EXPECT_TRUE(std::equal(code.begin(), code.end(), original.begin(), original.end()));
  EXPECT_TRUE(checked(minimized, "vector_add").clean());
  EXPECT_EQ(verdict(k0, minimized, hip_spec("vector_add")), verify::Verdict::Equivalent);

  auto move = search::make_nop_minimize_move();
  EXPECT_EQ(move->name(), "nop-minimize");
  auto edits = propose_whole(*move, pp, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].first, nop);
  EXPECT_TRUE(edits[0].hunks[0].lines.empty());
}

TEST(NopMinimizeTest, HazardNopsComeBackToTheCountTheRulesNeed) {
  // softmax_rows_f32 has s_nop 0 / s_nop 1 between a VALU that writes an SGPR mask (v_cmp_*_e64)
  // and the v_cndmask that reads it. The compiler's counts are the minimum: minimization keeps
  // them, and each one lower is a hazard finding. Inflated, they come back to those counts.
  auto k0 = load(hip("softmax.co"));
  const std::string kernel = "softmax_rows_f32";
  auto p = program::Program::recover(k0);
  auto r = search::minimize_nops(p, kernel);
  EXPECT_TRUE(r.changes.empty()) << r.changes.size();
  const program::Function* f = p.function(kernel);
  std::vector<size_t> nops;
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).inst && p.text_line(i).inst->mnemonic == "s_nop") nops.push_back(i);
  ASSERT_GE(nops.size(), 2u);
  program::Program inflated = p;
  for (size_t line : nops) {
    const std::string& text = p.text_line(line).text;
    unsigned n = static_cast<unsigned>(std::stoul(text.substr(6)));
    std::string lower = n == 0 ? "" : "s_nop " + std::to_string(n - 1);
    auto found = hazards_with(p, kernel, line, lower);
    EXPECT_FALSE(found.empty()) << text << " at line " << line << " is more than the rules need";
    inflated.replace(line, line, {"s_nop " + std::to_string(n + 4)});
  }
  auto inflated_co = rebuilt(inflated, "inflated.co");
  auto back = search::minimize_nops(program::Program::recover(inflated_co), kernel);
  ASSERT_EQ(back.changes.size(), nops.size());
  for (size_t k = 0; k < nops.size(); ++k) EXPECT_EQ(back.changes[k].after, p.text_line(nops[k]).text);
  auto minimized = rebuilt(std::move(back.program), "minimized.co");
  auto code = minimized.code_bytes(*minimized.kernel(kernel));
  auto original = k0.code_bytes(*k0.kernel(kernel));
  EXPECT_TRUE(std::equal(code.begin(), code.end(), original.begin(), original.end()));
}

TEST(NopMinimizeTest, LeavesTheKernargPreloadSledAlone) {
  // Triton kernels preload kernargs: the 256 bytes after the kernel's start are a fixed-size
  // prologue padded with s_nop that the move must not shrink.
  const std::string path = corpus::triton_object("gfx942", "vector_add_kernel");
  auto k0 = load(path);
  const codeobj::Kernel* k = k0.kernel("vector_add_kernel");
  ASSERT_GT(k->kd.kernarg_preload_length(), 0u);
  auto r = search::minimize_nops(program::Program::recover(k0), "vector_add_kernel");
  for (const auto& c : r.changes) EXPECT_GE(c.address, k->code_address + 256) << c.before;
  auto minimized = rebuilt(std::move(r.program), "minimized.co");
  EXPECT_TRUE(checked(minimized, "vector_add_kernel").clean());
  EXPECT_EQ(verdict(k0, minimized, corpus::triton_spec("vector_add_kernel")),
            verify::Verdict::Equivalent);
}

TEST(NopMinimizeTest, CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_nop_minimize_move();
  run_on_corpus(*move);
}

TEST(NopMinimizeTest, Gfx90aAndGfx950CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_nop_minimize_move();
  for (const char* arch : {"gfx90a", "gfx950"}) run_on_corpus(*move, arch);
}
