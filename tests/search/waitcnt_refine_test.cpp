// search/moves/waitcnt_refine.h: over-strong waits are weakened or removed, needed ones stay, the
// result checks clean and verifies EQUIVALENT against the original on the emulator.
#include <gtest/gtest.h>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "search/moves/waitcnt_refine.h"
#include "support/error.h"
#include "support/file_io.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
// The corpus spec without its perf: list: moves are verified on the small adversarial launches
// (sampled perf runs are covered by tests/verify/perf_verify_test.cpp).
std::string spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::hip_spec(kernel)); }

codeobj::CodeObject rebuilt(program::Program p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), name), name);
}

verify::Verdict verdict(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& kernel) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec(kernel))});
  return verify::verify_candidate(ref, k1).verdict;
}

}  // namespace

TEST(WaitcntRefineTest, RemovesAnInsertedOverStrongWaitAndKeepsTheNeededOne) {
  // vector_add with an extra `s_waitcnt vmcnt(0)` right after its first load: nothing reads the
  // load before the existing wait, so the extra one needs nothing; the wait before v_add_f32 reads
  // both loads and must stay vmcnt(0).
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  size_t first_load = 0;
  for (size_t i = f->begin; i < f->end && !first_load; ++i)
    if (p.text_line(i).inst && p.text_line(i).text.rfind("global_load_dword", 0) == 0) first_load = i;
  ASSERT_GT(first_load, 0u);
  p.insert_before(first_load + 1, {"s_waitcnt vmcnt(0)"});
  auto padded = rebuilt(p, "padded.co");
  // A window that does not hold the extra wait leaves it alone.
  auto outside = search::refine_waitcnts(program::Program::recover(padded), "vector_add", std::pair{first_load + 2, f->end - 1});
  EXPECT_TRUE(outside.changes.empty());
  auto r = search::refine_waitcnts(program::Program::recover(padded), "vector_add");
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].before, "s_waitcnt vmcnt(0)");
  EXPECT_EQ(r.changes[0].after, "");
  EXPECT_GT(r.probes, 1u);
  auto refined = rebuilt(r.program, "refined.co");
  check::CheckOptions opts;
  opts.kernel = "vector_add";
  EXPECT_TRUE(check::check_code_object(refined, opts).clean());
  EXPECT_EQ(refined.kernel("vector_add")->code_size, k0.kernel("vector_add")->code_size);
  EXPECT_EQ(verdict(k0, refined, "vector_add"), verify::Verdict::Equivalent);
}

TEST(WaitcntRefineTest, WeakensAWaitToTheExactCount) {
  // A vmcnt(0) before a use of the first load only: vmcnt(1) suffices there (the second load may
  // stay outstanding), and the wait before v_add_f32, which reads both, stays vmcnt(0).
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  size_t wait = 0;
  for (size_t i = f->begin; i < f->end && !wait; ++i)
    if (p.text_line(i).inst && p.text_line(i).text == "s_waitcnt vmcnt(0)") wait = i;
  ASSERT_GT(wait, 0u);
  // Before the real wait: v8 = a[i] * 1 (reads only the first load's v6) behind its own vmcnt(0).
  p.insert_before(wait, {"s_waitcnt vmcnt(0)", "v_mul_f32_e32 v8, 1.0, v6"});
  auto edited = rebuilt(p, "edited.co");
  auto r = search::refine_waitcnts(program::Program::recover(edited), "vector_add");
  bool weakened = false;
  for (const auto& c : r.changes) weakened |= c.before == "s_waitcnt vmcnt(0)" && c.after == "s_waitcnt vmcnt(1)";
  EXPECT_TRUE(weakened) << r.changes.size();
  auto refined = rebuilt(r.program, "refined.co");
  EXPECT_EQ(verdict(edited, refined, "vector_add"), verify::Verdict::Equivalent);
}

TEST(WaitcntRefineTest, CorpusKernelsStaySafeAndEquivalent) {
  for (auto [file, kernel] : {std::pair{"softmax.co", "softmax_rows_f32"}, std::pair{"layernorm.co", "layernorm_f32"}}) {
    auto k0 = load(hip(file));
    auto r = search::refine_waitcnts(program::Program::recover(k0), kernel);
    auto refined = rebuilt(r.program, "refined.co");
    check::CheckOptions opts;
    opts.kernel = kernel;
    EXPECT_TRUE(check::check_code_object(refined, opts).clean()) << kernel;
    EXPECT_EQ(verdict(k0, refined, kernel), verify::Verdict::Equivalent) << kernel << ": " << r.changes.size() << " changes";
  }
}

TEST(WaitcntRefineTest, RefusesAKernelWithFindings) {
  auto k0 = load(hip("vector_add.co"));
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).inst && p.text_line(i).text == "s_waitcnt vmcnt(0)") {
      p.remove(i, i);
      break;
    }
  auto unsafe = rebuilt(p, "unsafe.co");
  EXPECT_THROW(search::refine_waitcnts(program::Program::recover(unsafe), "vector_add"), Error);
  EXPECT_THROW(search::refine_waitcnts(program::Program::recover(k0), "no_such_kernel"), Error);
}
