// Stochastic moves (STOKE-style exploration): swap two adjacent instructions, move one instruction
// a few places up or down, delete one instruction — drawn at random inside the window, within one
// straight-line run of instructions (no label or control flow crossed). They carry no proof at
// all: most change the kernel's meaning or break a wait or hazard rule, and the cascade rejects
// those at its cheap stages (static check, one emulated run). What survives is faster and verified.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "search/moves/moves.h"

namespace asmevo::search {
namespace {

// Instructions a stochastic move may touch: not control flow, not PC-relative address arithmetic
// (its constant depends on its distance from s_getpc_b64), not raw bytes.
bool movable(const program::Line& l) {
  if (l.kind != program::Line::Instr || !l.inst) return false;
  const std::string& t = l.text;
  static const char* const kFixed[] = {"s_branch", "s_cbranch", "s_endpgm", "s_setpc", "s_swappc", "s_call", "s_getpc",
                                       "s_trap", "s_rfe", "s_sethalt", "s_sendmsg", "s_icache", "s_code_end"};
  for (const char* f : kFixed)
    if (t.rfind(f, 0) == 0) return false;
  return t.find('@') == std::string::npos;
}

// Maximal runs [a, b] of movable instructions inside the window.
std::vector<std::pair<size_t, size_t>> runs_in(const program::Program& p, const Window& w) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t i = w.first;
  while (i <= w.last) {
    if (!movable(p.text_line(i))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 <= w.last && movable(p.text_line(j + 1))) ++j;
    runs.push_back({i, j});
    i = j + 1;
  }
  return runs;
}

class StochasticMove final : public Move {
 public:
  enum Kind { Swap, Shift, Delete };
  explicit StochasticMove(Kind k) : kind_(k) {}
  std::string name() const override {
    switch (kind_) {
      case Swap: return "stochastic-swap";
      case Shift: return "stochastic-move";
      case Delete: return "stochastic-delete";
    }
    return "";
  }
  std::string proposer() const override { return "stochastic"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<std::pair<size_t, size_t>> runs = runs_in(c.program, c.window);
    std::vector<std::pair<size_t, size_t>> usable;
    for (auto r : runs)
      if (kind_ == Delete || r.second > r.first) usable.push_back(r);
    std::vector<Edit> edits;
    if (usable.empty()) return edits;
    std::set<std::string> seen;
    for (size_t attempt = 0; attempt < c.max_edits * 4 && edits.size() < c.max_edits; ++attempt) {
      auto [a, b] = usable[c.rng() % usable.size()];
      Edit e;
      e.kernel = c.kernel;
      e.move = name();
      e.proposer = proposer();
      size_t i = a + c.rng() % (b - a + 1);
      if (kind_ == Delete) {
        e.hunks.push_back(make_hunk(c.program, i, i, {}));
        e.description = fmt::format("delete '{}'", c.program.text_line(i).text);
      } else {
        // Swap: i with i+1. Shift: i to a position up to 8 lines away, same run.
        size_t to;
        if (kind_ == Swap) {
          if (i == b) --i;
          to = i + 1;
        } else {
          size_t span = std::min<size_t>(8, b - a);
          size_t d = 1 + c.rng() % span;
          to = (c.rng() & 1) ? std::min(b, i + d) : (i >= a + d ? i - d : a);
          if (to == i) continue;
        }
        size_t lo = std::min(i, to), hi = std::max(i, to);
        std::vector<std::string> lines;
        for (size_t k = lo; k <= hi; ++k) lines.push_back(c.program.text_line(k).text);
        if (to > i) std::rotate(lines.begin(), lines.begin() + 1, lines.end());   // i moves down to `to`
        else std::rotate(lines.rbegin(), lines.rbegin() + 1, lines.rend());       // i moves up to `to`
        e.hunks.push_back(make_hunk(c.program, lo, hi, lines));
        e.description = fmt::format("move '{}' {} {} line(s)", c.program.text_line(i).text, to > i ? "down" : "up",
                                    to > i ? to - i : i - to);
      }
      if (seen.insert(e.to_json().dump()).second) edits.push_back(std::move(e));
    }
    return edits;
  }

 private:
  Kind kind_;
};

}  // namespace

std::unique_ptr<Move> make_stochastic_swap_move() { return std::make_unique<StochasticMove>(StochasticMove::Swap); }
std::unique_ptr<Move> make_stochastic_shift_move() { return std::make_unique<StochasticMove>(StochasticMove::Shift); }
std::unique_ptr<Move> make_stochastic_delete_move() { return std::make_unique<StochasticMove>(StochasticMove::Delete); }

}  // namespace asmevo::search
