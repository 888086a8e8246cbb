#include "search/moves/address_fold.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/widen.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

// The signed 13-bit offset field of gfx9 global instructions (the header's source).
constexpr int64_t kMinOffset = -4096, kMaxOffset = 4095;

std::optional<int64_t> integer(const std::string& s) {
  static const std::regex re(R"(^-?(0x[0-9a-fA-F]+|\d+)$)");
  if (!std::regex_match(s, re)) return std::nullopt;
  return std::stoll(s, nullptr, 0);
}

bool same(const std::optional<RegRange>& a, const RegRange& b) {
  return a && a->file == b.file && a->first == b.first && a->count == b.count;
}

// `v_lshl_add_u64 vA, vA, 0, C` with C an integer: the step of vA by C.
std::optional<std::pair<RegRange, int64_t>> step_of(const program::Line& l) {
  const program::Instruction& in = *l.inst;
  if (in.mnemonic != "v_lshl_add_u64") return std::nullopt;
  const std::vector<std::string> ops = split_operands(l.text, in.mnemonic.size());
  if (ops.size() != 4 || ops[2] != "0") return std::nullopt;
  const auto d = program::parse_reg(ops[0]), s = program::parse_reg(ops[1]);
  const auto c = integer(ops[3]);
  if (!d || d->file != RegFile::VGPR || d->count != 2 || !same(s, *d) || !c) return std::nullopt;
  return std::pair{*d, *c};
}

// A global load in `off` mode of 1..4 dwords (widen's kinds): its address operand and offset.
struct Load {
  RegRange address;
  int64_t offset = 0;
};
std::optional<Load> load_of(const program::Line& l) {
  static const std::regex mnemonic(R"(^global_load_dword(x[234])?$)");
  const program::Instruction& in = *l.inst;
  if (!std::regex_match(in.mnemonic, mnemonic)) return std::nullopt;
  const std::vector<std::string> ops = split_operands(l.text, in.mnemonic.size());
  if (ops.size() != 3 || !(ops[2] == "off" || ops[2].rfind("off ", 0) == 0)) return std::nullopt;
  const auto a = program::parse_reg(ops[1]);
  if (!a || a->file != RegFile::VGPR || a->count != 2) return std::nullopt;
  Load out{*a, 0};
  static const std::regex offset(R"((?:^|\s)offset:(-?(?:0x[0-9a-fA-F]+|\d+)))");
  std::smatch m;
  if (std::regex_search(ops[2], m, offset)) out.offset = std::stoll(m[1], nullptr, 0);
  return out;
}

// The load's text with its offset field set to `offset`.
std::string with_offset(const std::string& text, int64_t offset) {
  static const std::regex field(R"( offset:-?(?:0x[0-9a-fA-F]+|\d+))");
  std::string t = std::regex_replace(text, field, "");
  const size_t off = t.find(", off");
  const std::string value = offset ? fmt::format(" offset:{}", offset) : "";
  return t.substr(0, off + 5) + value + t.substr(off + 5);
}

bool writes_exec(const program::Instruction& in) {
  for (const RegRange& d : in.defs)
    if (d.file == RegFile::EXEC) return true;
  return false;
}

// Folds one address register of lines [first, last] of `q` (decoded), or says why not. Line count
// and indices stay.
std::string fold_one(program::Program& q, const std::string& kernel, size_t first, size_t last, const RegRange& reg, size_t* loads) {
  std::vector<std::pair<size_t, int64_t>> steps;  // line, constant
  std::vector<std::pair<size_t, Load>> readers;
  for (size_t i = first; i <= last; ++i) {
    const program::Line& l = q.text_line(i);
    if (!l.is_instruction()) continue;
    const program::Instruction& in = *l.inst;
    const bool w = in.writes(reg), r = in.reads(reg);
    if (!w && !r) continue;
    if (auto s = step_of(l); s && s->first.first == reg.first) {
      steps.push_back({i, s->second});
      continue;
    }
    const auto ld = load_of(l);
    if (w || !ld || ld->address.first != reg.first) return fmt::format("'{}' reads or writes v[{}:{}] otherwise than a global load's address", l.text, reg.first, reg.first + 1);
    readers.push_back({i, *ld});
  }
  // The last load that some step precedes: the steps before it move right after it.
  std::optional<size_t> last_load;
  for (const auto& [line, ld] : readers)
    if (!steps.empty() && steps.front().first < line) last_load = line;
  if (!last_load) return "no load reads it after a step";
  const size_t from = steps.front().first;
  for (size_t i = from; i <= *last_load; ++i) {
    const program::Line& l = q.text_line(i);
    if (!l.is_instruction()) return "a line that is not an instruction among its loads";
    if (writes_exec(*l.inst)) return fmt::format("'{}' writes EXEC between its steps and loads", l.text);
  }
  std::vector<std::string> texts, moved;
  int64_t stepped = 0;
  size_t folded = 0;
  auto step_at = [&](size_t line) { return std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return s.first == line; }); };
  auto reader_at = [&](size_t line) { return std::find_if(readers.begin(), readers.end(), [&](const auto& x) { return x.first == line; }); };
  for (size_t i = from; i <= *last_load; ++i) {
    const std::string& text = q.text_line(i).text;
    if (auto s = step_at(i); s != steps.end()) {
      stepped += s->second;
      moved.push_back(text);
      continue;
    }
    if (auto x = reader_at(i); x != readers.end() && stepped != 0) {
      const int64_t offset = x->second.offset + stepped;
      if (offset < kMinOffset || offset > kMaxOffset) return fmt::format("offset {} does not fit the 13-bit field", offset);
      texts.push_back(with_offset(text, offset));
      ++folded;
      continue;
    }
    texts.push_back(text);
  }
  texts.insert(texts.end(), moved.begin(), moved.end());
  q.replace(from, *last_load, texts);
  decode_edited_lines(q, kernel);
  *loads += folded;
  return "";
}

}  // namespace

AddressFolding fold_addresses(const program::Program& p, const std::string& kernel, size_t first, size_t last) {
  kernel_function(p, kernel);
  AddressFolding out{p, 0, 0, 0, ""};
  const codeobj::Arch arch = p.original().target().arch;
  if (arch != codeobj::Arch::gfx942 && arch != codeobj::Arch::gfx950) {
    out.refused = "address steps are read on gfx942 and gfx950 only (v_lshl_add_u64)";
    return out;
  }
  std::vector<RegRange> regs;
  for (size_t i = first; i <= last; ++i) {
    const program::Line& l = p.text_line(i);
    if (!l.is_instruction()) continue;
    if (!l.inst) {
      out.refused = "an edited or raw line in the block";
      return out;
    }
    if (auto s = step_of(l); s && std::none_of(regs.begin(), regs.end(), [&](const RegRange& r) { return r.first == s->first.first; }))
      regs.push_back(s->first);
  }
  if (regs.empty()) {
    out.refused = "no address register stepped by a constant";
    return out;
  }
  program::Program q = p;
  std::string why;
  for (const RegRange& reg : regs) {
    const std::string w = fold_one(q, kernel, first, last, reg, &out.loads_folded);
    if (w.empty()) ++out.registers;
    else why += fmt::format("{}v[{}:{}]: {}", why.empty() ? "" : "; ", reg.first, reg.first + 1, w);
  }
  if (!out.registers) {
    out.refused = why;
    return out;
  }
  try {
    Widening w = widen_accesses(q, kernel, std::pair{first, last}, false);
    if (w.changes.empty()) w = widen_accesses(q, kernel, std::pair{first, last}, true);
    if (w.changes.empty()) {
      out.refused = fmt::format("widen merges none of the {} folded load(s)", out.loads_folded);
      return out;
    }
    out.merges = w.changes.size();
    out.program = std::move(w.program);
  } catch (const Error& e) {
    out.refused = "widen: " + e.what_text();
  }
  return out;
}

namespace {

class AddressFoldMove final : public Move {
 public:
  std::string name() const override { return "address-fold"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<Edit> out;
    const program::Function& f = kernel_function(c.program, c.kernel);
    for (const program::BasicBlock& blk : f.blocks) {
      if (blk.last < c.window.first || blk.first > c.window.last) continue;
      if (out.size() >= c.max_edits) break;
      AddressFolding r = fold_addresses(c.program, c.kernel, blk.first, blk.last);
      if (!r.merges) continue;
      Edit e = diff_edit(c.program, r.program, c.kernel);
      e.kernel = c.kernel;
      e.move = name();
      e.proposer = proposer();
      e.description = fmt::format("{} address register(s) of the block at line {} folded into {} load offset(s); widen then merged {} pair(s)",
                                  r.registers, blk.first, r.loads_folded, r.merges);
      out.push_back(std::move(e));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_address_fold_move() { return std::make_unique<AddressFoldMove>(); }

}  // namespace asmevo::search
