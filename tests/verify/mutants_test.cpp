// A small run of the mutant benchmark as a test: on three corpus kernels every mutant that deletes
// a needed s_waitcnt or a hazard s_nop is rejected, every semantics-preserving rewrite verifies
// EQUIVALENT, and the operators produce buildable mutants.
#include <gtest/gtest.h>

#include <map>

#include "corpus/index/corpus.h"
#include "bench/mutants/mutation.h"
#include "support/error.h"
#include "support/file_io.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

struct Tally {
  size_t built = 0, unbuildable = 0, killed = 0, equivalent = 0, error = 0;
  std::vector<std::string> equivalent_diffs, rejected_diffs;
};

// `boundary`: keep the spec's vary: launches (the rewrites' false-rejection check does; the kill
// checks do not need them, and they multiply the runs of every mutant that survives).
std::map<std::string, Tally> run(const std::string& kernel, bool rewrites, size_t cap, bool boundary = true) {
  auto k = corpus::kernels("gfx942", {kernel}).at(0);
  auto co = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
  auto prog = program::Program::recover(co);
  auto backend = verify::make_emulator_backend(2);
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  emu::LaunchSpec spec = emu::load_launch_spec(k.spec);
  if (!boundary)
    for (auto& a : spec.args) a.vary.reset();
  verify::Reference ref(*backend, co, {spec}, fast);
  std::map<std::string, Tally> t;
  auto all = rewrites ? mutants::generate_rewrites(prog, kernel) : mutants::generate_mutants(prog, kernel);
  std::map<std::string, size_t> taken;
  for (const auto& m : all) {
    if (taken[m.op] >= cap) continue;
    Tally& x = t[m.op];
    std::vector<uint8_t> bytes;
    try {
      bytes = mutants::build_mutant(prog, m);
    } catch (const Error&) {
      ++x.unbuildable;
      continue;
    }
    ++taken[m.op];
    ++x.built;
    auto r = verify::verify_candidate(ref, codeobj::CodeObject::parse(std::move(bytes), "mutant"), fast);
    if (r.verdict == verify::Verdict::Equivalent) ++x.equivalent, x.equivalent_diffs.push_back(m.diff());
    else if (r.verdict == verify::Verdict::Error) ++x.error, x.rejected_diffs.push_back(m.diff() + r.summary);
    else ++x.killed, x.rejected_diffs.push_back(m.diff() + r.summary);
  }
  return t;
}

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST(MutantsTest, HazardNopDeletionsAreAllRejected) {
  // The compiler inserts s_nop only for hazards (here: DPP and VALU-written SGPR/EXEC in a scan).
  auto t = run("scan_blocks_exclusive_u32", false, 1000, /*boundary=*/false);
  ASSERT_GT(t["delete-nop"].built, 0u);
  EXPECT_EQ(t["delete-nop"].equivalent, 0u) << lines(t["delete-nop"].equivalent_diffs);
  ASSERT_GT(t["delete-waitcnt"].built, 0u);
  EXPECT_EQ(t["delete-waitcnt"].equivalent, 0u) << lines(t["delete-waitcnt"].equivalent_diffs);
  EXPECT_EQ(t["delete-store"].equivalent, 0u) << lines(t["delete-store"].equivalent_diffs);
}

TEST(MutantsTest, EveryOperatorKillsOnSoftmax) {
  auto t = run("softmax_rows_f32", false, 8, /*boundary=*/false);
  for (const auto& op : {"imm", "sibling", "delete-store", "delete-waitcnt", "retarget", "swap-adjacent"}) {
    EXPECT_GT(t[op].built, 0u) << op;
    EXPECT_GT(t[op].killed, 0u) << op;
  }
  EXPECT_EQ(t["delete-waitcnt"].equivalent, 0u) << lines(t["delete-waitcnt"].equivalent_diffs);
  EXPECT_EQ(t["delete-barrier"].equivalent, 0u) << lines(t["delete-barrier"].equivalent_diffs);
}

TEST(MutantsTest, RewritesAreEquivalent) {
  for (const char* kernel : {"softmax_rows_f32", "layernorm_f32", "vector_add"}) {
    auto t = run(kernel, true, 12);
    size_t built = 0;
    for (const auto& [op, x] : t) {
      built += x.built;
      EXPECT_EQ(x.killed + x.error, 0u) << kernel << " " << op << ":\n" << lines(x.rejected_diffs);
    }
    EXPECT_GT(t["insert-nop"].built, 0u) << kernel;
    EXPECT_GT(built, 10u) << kernel;
  }
}
