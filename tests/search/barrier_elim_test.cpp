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

TEST(BarrierElimTest, RefusesTheBarriersThatOrderLdsAcrossWaves) {
  // Triton's softmax: each reduction step writes per-wave partials to LDS, waits at a barrier, reads
  // them back (read-after-write), and the next step's writes wait for those reads (write-after-read).
  auto k0 = load(corpus::triton_object("gfx942", "softmax_kernel"));
  auto p = program::Program::recover(k0);
  Verdicts v = scan(p, "softmax_kernel");
  EXPECT_TRUE(v.removable.empty());
  std::string all;
  for (const auto& s : v.refused) all += s + "\n";
  EXPECT_NE(all.find("LDS read-after-write"), std::string::npos) << all;
  EXPECT_NE(all.find("LDS write-after-read"), std::string::npos) << all;
  EXPECT_TRUE(propose(p, "softmax_kernel").empty());
}

TEST(BarrierElimTest, RefusesWhatItCannotAnalyse) {
  // A trap anywhere in the kernel: the proof does not know what the handler touches.
  for (const corpus::Kernel& k : corpus::kernels("gfx942", {"kb_softmax_f32"})) {
    auto p = program::Program::recover(load(k.code_object));
    ASSERT_FALSE(scan(p, k.name).removable.empty());
    const program::Function* f = p.function(k.name);
    size_t first = f->begin;
    while (!p.text_line(first).inst) ++first;
    p.insert_before(first, {"s_trap 2"});
    p.touch(k.name);
    p.update_resources();
    auto q = program::Program::recover(rebuilt(p));
    Verdicts v = scan(q, k.name);
    EXPECT_TRUE(v.removable.empty());
    ASSERT_FALSE(v.refused.empty());
    EXPECT_NE(v.refused[0].find("not analysable"), std::string::npos) << v.refused[0];
  }
}

TEST(BarrierElimTest, TheCascadeRejectsTheBarrierAboveTheLdsReadsWait) {
  // The ping-pong race (triton-lang/triton #5018): a barrier placed before the wait for the LDS reads
  // it protects lets another wave overwrite the tile while the reads are in flight. Triton's
  // softmax reads the reduced value (ds_read_b32), waits, and only then passes the barrier after which
  // the next reduction's writes may start; swapping the wait and the barrier is that race, and the
  // cascade's static gate (check/waitcnt.cpp, workgroup release) rejects it before any emulation.
  const corpus::Kernel k = corpus::kernels("gfx942", {"softmax_kernel"}).at(0);
  auto bytes = read_file_bytes(k.code_object);
  auto k0 = codeobj::CodeObject::parse(bytes, k.code_object);
  search::CascadeOptions opts;
  opts.threads = 2;
  search::Cascade cascade(k0, k.name, {emu::load_launch_spec(asmevo::testing::spec_without_perf(k.spec))}, opts);
  search::Individual parent = cascade.individual(bytes, 0, k.code_object);
  const program::Program& p = *parent.program;
  const program::Function* f = p.function(k.name);
  size_t wait = 0;
  for (size_t i = f->begin; i + 1 < f->end && !wait; ++i) {
    // "ds_read ...; ... ; s_waitcnt lgkmcnt(0); s_barrier" with an LDS read since the last barrier.
    if (p.text_line(i).text != "s_waitcnt lgkmcnt(0)" || p.text_line(i + 1).text != "s_barrier") continue;
    for (size_t j = i; j-- > f->begin;) {
      const std::string& t = p.text_line(j).text;
      if (t == "s_barrier") break;
      if (t.rfind("ds_read", 0) == 0) {
        wait = i;
        break;
      }
    }
  }
  ASSERT_GT(wait, 0u);
  search::Edit e;
  e.kernel = k.name;
  e.move = "test";
  e.proposer = "rules";
  e.hunks.push_back(search::make_hunk(p, wait, wait + 1, {"s_barrier", "s_waitcnt lgkmcnt(0)"}));
  search::Evaluation ev = cascade.evaluate(parent, e);
  EXPECT_FALSE(ev.accepted);
  EXPECT_EQ(ev.stage, "static") << ev.reason;
  EXPECT_NE(ev.reason.find("barrier"), std::string::npos) << ev.reason;
}
