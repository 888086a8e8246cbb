// Stochastic moves (STOKE-style exploration): swap two adjacent instructions, move one instruction
// a few places up or down, delete one instruction, replace one register operand by another register
// of the same file and width that the window names, replace an opcode by another opcode of the
// kernel with the same encoding suffix and operand count — drawn at random inside the window, within
// one straight-line run of instructions (no label or control flow crossed). They carry no proof at
// all: most change the kernel's meaning or break a wait or hazard rule, and the cascade rejects
// those at its cheap stages (static check, one emulated run). What survives is faster and verified.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>
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
  enum Kind { Swap, Shift, Delete, Operand, Opcode };
  explicit StochasticMove(Kind k) : kind_(k) {}
  std::string name() const override {
    switch (kind_) {
      case Swap: return "stochastic-swap";
      case Shift: return "stochastic-move";
      case Delete: return "stochastic-delete";
      case Operand: return "stochastic-operand";
      case Opcode: return "stochastic-opcode";
    }
    return "";
  }
  std::string proposer() const override { return "stochastic"; }
  // Reorderings are what the cascade most often accepts (a load issued earlier, independent work
  // between a load and its use); a random operand or opcode is almost always wrong, so they are
  // drawn less often (STOKE weights its move kinds too).
  double weight() const override {
    switch (kind_) {
      case Swap: case Shift: return 3;
      case Delete: return 2;
      case Operand: case Opcode: return 1;
    }
    return 1;
  }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<std::pair<size_t, size_t>> runs = runs_in(c.program, c.window);
    std::vector<std::pair<size_t, size_t>> usable;
    for (auto r : runs)
      if (kind_ != Swap && kind_ != Shift ? true : r.second > r.first) usable.push_back(r);
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
      } else if (kind_ == Operand || kind_ == Opcode) {
        const std::string& text = c.program.text_line(i).text;
        std::optional<std::string> changed = kind_ == Operand ? replace_operand(c, text) : replace_opcode(c, text);
        if (!changed || *changed == text) continue;
        e.hunks.push_back(make_hunk(c.program, i, i, {*changed}));
        e.description = fmt::format("'{}' -> '{}'", text, *changed);
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
  // Register tokens: s7, v12, a3, s[4:5], v[0:1] (file letter, first, count).
  struct Reg {
    char file;
    unsigned first, count;
    size_t pos, len;
  };
  static std::vector<Reg> registers(const std::string& text) {
    static const std::regex re(R"((^|[\s,\-|(])([sva])(\d+)\b|([sva])\[(\d+):(\d+)\])");
    std::vector<Reg> out;
    const size_t operands = text.find(' ');
    if (operands == std::string::npos) return out;
    for (auto it = std::sregex_iterator(text.begin() + operands, text.end(), re); it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      Reg r;
      if (m[2].matched) {
        r = {m[2].str()[0], static_cast<unsigned>(std::stoul(m[3])), 1, operands + m.position(2), static_cast<size_t>(m[2].length() + m[3].length())};
      } else {
        unsigned a = std::stoul(m[5]), b = std::stoul(m[6]);
        if (b < a) continue;
        r = {m[4].str()[0], a, b - a + 1, operands + m.position(4), static_cast<size_t>(m.length(0))};
      }
      out.push_back(r);
    }
    return out;
  }
  static std::string spell(char file, unsigned first, unsigned count) {
    return count == 1 ? fmt::format("{}{}", file, first) : fmt::format("{}[{}:{}]", file, first, first + count - 1);
  }
  std::optional<std::string> replace_operand(const MoveContext& c, const std::string& text) {
    std::vector<Reg> regs = registers(text);
    if (regs.empty()) return std::nullopt;
    const Reg& r = regs[c.rng() % regs.size()];
    // Candidates: registers of the same file and width the window names.
    std::set<unsigned> pool;
    for (size_t i = c.window.first; i <= c.window.last; ++i)
      for (const Reg& o : registers(c.program.text_line(i).text))
        if (o.file == r.file && o.count == r.count && o.first != r.first) pool.insert(o.first);
    if (pool.empty()) return std::nullopt;
    auto it = pool.begin();
    std::advance(it, c.rng() % pool.size());
    return text.substr(0, r.pos) + spell(r.file, *it, r.count) + text.substr(r.pos + r.len);
  }
  std::optional<std::string> replace_opcode(const MoveContext& c, const std::string& text) {
    const size_t sp = text.find(' ');
    const std::string mnemonic = text.substr(0, sp);
    const std::string operands = sp == std::string::npos ? "" : text.substr(sp);
    auto suffix = [](const std::string& m) { size_t u = m.rfind('_'); return u == std::string::npos ? m : m.substr(u); };
    auto arity = [](const std::string& ops) { return std::count(ops.begin(), ops.end(), ','); };
    // Other opcodes of the kernel with the same prefix class (v_/s_/global_/ds_/buffer_), encoding
    // suffix and operand count: the ones most likely to assemble.
    const std::string cls = mnemonic.substr(0, mnemonic.find('_') + 1);
    std::set<std::string> pool;
    const program::Function* f = c.program.function(c.kernel);
    for (size_t i = f->begin; i < f->end; ++i) {
      const program::Line& l = c.program.text_line(i);
      if (!movable(l)) continue;
      const size_t lsp = l.text.find(' ');
      const std::string m = l.text.substr(0, lsp);
      if (m != mnemonic && m.rfind(cls, 0) == 0 && suffix(m) == suffix(mnemonic) &&
          arity(lsp == std::string::npos ? "" : l.text.substr(lsp)) == arity(operands))
        pool.insert(m);
    }
    if (pool.empty()) return std::nullopt;
    auto it = pool.begin();
    std::advance(it, c.rng() % pool.size());
    return *it + operands;
  }

  Kind kind_;
};

}  // namespace

std::unique_ptr<Move> make_stochastic_swap_move() { return std::make_unique<StochasticMove>(StochasticMove::Swap); }
std::unique_ptr<Move> make_stochastic_shift_move() { return std::make_unique<StochasticMove>(StochasticMove::Shift); }
std::unique_ptr<Move> make_stochastic_delete_move() { return std::make_unique<StochasticMove>(StochasticMove::Delete); }
std::unique_ptr<Move> make_stochastic_operand_move() { return std::make_unique<StochasticMove>(StochasticMove::Operand); }
std::unique_ptr<Move> make_stochastic_opcode_move() { return std::make_unique<StochasticMove>(StochasticMove::Opcode); }

}  // namespace asmevo::search
