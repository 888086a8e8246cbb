// search/moves/stochastic.cpp: the exploration moves stay inside their window, never touch control
// flow or PC-relative code, are deterministic for a seed, and whatever of their output the cascade
// accepts re-verifies EQUIVALENT from scratch (they carry no proof; the cascade is the proof).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>

#include "search/cascade.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;

namespace {

std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }

std::vector<std::unique_ptr<search::Move>> stochastic_moves() { return search::make_moves("stochastic"); }

search::Window whole(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  return {f->begin, f->end - 1, 1.0, kernel};
}

bool control_or_pcrel(const std::string& t) {
  for (const char* f : {"s_branch", "s_cbranch", "s_endpgm", "s_setpc", "s_swappc", "s_getpc", "s_call"})
    if (t.rfind(f, 0) == 0) return true;
  return t.find('@') != std::string::npos;
}

}  // namespace

TEST(StochasticMovesTest, EditsStayInTheWindowAndAwayFromControlFlow) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("softmax.co")), "softmax.co");
  auto p = program::Program::recover(k0);
  const std::string kernel = "softmax_rows_f32";
  const program::Function* f = p.function(kernel);
  // A window in the middle of the kernel.
  search::Window w{f->begin + (f->end - f->begin) / 3, f->begin + 2 * (f->end - f->begin) / 3, 0.5, "mid"};
  std::set<std::string> names;
  for (auto& m : stochastic_moves()) {
    names.insert(m->name());
    EXPECT_EQ(m->proposer(), "stochastic");
    std::mt19937_64 rng(42);
    auto edits = m->propose({p, kernel, w, rng, 6});
    EXPECT_FALSE(edits.empty()) << m->name();
    EXPECT_LE(edits.size(), 6u);
    std::set<std::string> distinct;
    for (const auto& e : edits) {
      EXPECT_EQ(e.move, m->name());
      EXPECT_TRUE(distinct.insert(e.to_json().dump()).second) << "duplicate edit from " << m->name();
      for (const auto& h : e.hunks) {
        EXPECT_GE(h.first, w.first) << m->name();
        EXPECT_LE(h.first + h.count, w.last + 1) << m->name();
        for (const auto& b : h.before) EXPECT_FALSE(control_or_pcrel(b)) << m->name() << ": " << b;
        EXPECT_NO_THROW(search::apply_edit(p, e)) << e.diff();
      }
    }
    // Same seed, same edits.
    std::mt19937_64 again(42);
    auto repeat = m->propose({p, kernel, w, again, 6});
    ASSERT_EQ(repeat.size(), edits.size());
    for (size_t i = 0; i < edits.size(); ++i) EXPECT_EQ(repeat[i].to_json(), edits[i].to_json());
  }
  EXPECT_EQ(names, (std::set<std::string>{"stochastic-swap", "stochastic-move", "stochastic-delete", "stochastic-operand",
                                          "stochastic-opcode"}));
}

TEST(StochasticMovesTest, OperandReplacementKeepsTheRegisterFileAndWidth) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  auto move = search::make_stochastic_operand_move();
  std::mt19937_64 rng(7);
  const std::regex reg(R"(([sva])(\[(\d+):(\d+)\]|\d+))");
  size_t checked = 0;
  for (int round = 0; round < 5; ++round)
    for (const auto& e : move->propose({p, "vector_add", whole(p, "vector_add"), rng, 8})) {
      ASSERT_EQ(e.hunks.size(), 1u);
      const std::string& a = e.hunks[0].before.at(0);
      const std::string& b = e.hunks[0].lines.at(0);
      EXPECT_EQ(a.substr(0, a.find(' ')), b.substr(0, b.find(' '))) << "only an operand changes";
      // The multiset of register tokens differs in exactly one token of the same file and width.
      auto tokens = [&](const std::string& t) {
        std::vector<std::string> out;
        for (auto it = std::sregex_iterator(t.begin() + t.find(' '), t.end(), reg); it != std::sregex_iterator(); ++it) out.push_back((*it)[0]);
        return out;
      };
      auto ta = tokens(a), tb = tokens(b);
      ASSERT_EQ(ta.size(), tb.size()) << a << " -> " << b;
      size_t diffs = 0;
      for (size_t i = 0; i < ta.size(); ++i)
        if (ta[i] != tb[i]) {
          ++diffs;
          EXPECT_EQ(ta[i][0], tb[i][0]) << a << " -> " << b;
          EXPECT_EQ(ta[i].find('[') == std::string::npos, tb[i].find('[') == std::string::npos) << a << " -> " << b;
        }
      EXPECT_EQ(diffs, 1u) << a << " -> " << b;
      ++checked;
    }
  EXPECT_GT(checked, 5u);
}

TEST(StochasticMovesTest, WhatTheCascadeAcceptsReverifiesEquivalent) {
  // 120 random edits of vector_add from every stochastic move through the cascade (min gain 0, so
  // anything not slower may pass the timing stage): most are rejected at the cheap stages, and
  // every accepted one is EQUIVALENT under a fresh reference with other seeds.
  const std::vector<uint8_t> bytes = read_file_bytes(hip("vector_add.co"));
  auto k0 = codeobj::CodeObject::parse(bytes, "vector_add.co");
  // Without the spec's perf: list: modeling its 4M-element perf launch for each of 120 edits is too slow.
  auto spec = emu::load_launch_spec(asmevo::testing::spec_without_perf(corpus::hip_spec("vector_add")));
  search::Cascade cascade(k0, "vector_add", {spec}, {0.0, 1, "", false});
  search::Individual parent = cascade.individual(bytes, 0, "vector_add.co");
  std::mt19937_64 rng(3);
  std::map<std::string, size_t> stage_of_rejection;
  size_t accepted = 0, total = 0;
  auto moves = stochastic_moves();
  for (int round = 0; round < 8; ++round)
    for (auto& m : moves)
      for (const auto& e : m->propose({*parent.program, "vector_add", whole(*parent.program, "vector_add"), rng, 3})) {
        ++total;
        auto ev = cascade.evaluate(parent, e);
        if (!ev.accepted) {
          ++stage_of_rejection[ev.stage];
          continue;
        }
        ++accepted;
        EXPECT_EQ(cascade.reverify(*ev.child->co, 77).verdict, verify::Verdict::Equivalent) << e.diff();
      }
  EXPECT_GE(total, 80u);
  // The cheap stages: everything before timing; "prove" refuses DISPROVEN edits before they are
  // emulated. ("cache" answers an edit whose text an earlier one already produced: not counted.)
  std::string stages;
  for (const auto& [stage, n] : stage_of_rejection) stages += fmt::format(" {}={}", stage, n);
  EXPECT_GT(stage_of_rejection["static"] + stage_of_rejection["emulate"] + stage_of_rejection["rebuild"] + stage_of_rejection["prove"],
            total / 3)
      << "random edits are mostly wrong, and wrong ones die at the cheap stages; rejected at:" << stages;
  RecordProperty("accepted", static_cast<int>(accepted));
  RecordProperty("rejected_at", stages);
}
