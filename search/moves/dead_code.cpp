#include "search/moves/dead_code.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::Instruction;
using program::InstClass;
using program::Line;
using program::RegFile;
using program::RegRange;
using program::RegSet;

constexpr size_t kNone = std::numeric_limits<size_t>::max();
constexpr size_t kMaxExeczRegion = 4;  // "tiny": the VALU work run with EXEC = 0 stays negligible

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Register indexing through M0 (the registers accessed are not the ones named).
bool indexes_registers(const Instruction& i) {
  return starts_with(i.mnemonic, "s_movrel") || starts_with(i.mnemonic, "v_movrel") || starts_with(i.mnemonic, "s_set_gpr_idx");
}

// The operand texts after the mnemonic, split at ", " ("v_mov_b32_e32 v1, v2" -> {"v1", "v2"}).
std::vector<std::string> operand_texts(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = text.find(' ');
  while (pos != std::string::npos) {
    size_t start = text.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    pos = comma == std::string::npos ? std::string::npos : comma + 1;
  }
  return out;
}

// A branch's target label (the last operand of s_branch / s_cbranch_*).
std::optional<std::string> branch_label(const Line& l) {
  if (!l.inst || !l.inst->branch_target || l.inst->is_call) return std::nullopt;
  auto ops = operand_texts(l.text);
  if (ops.empty()) return std::nullopt;
  return ops.back();
}

bool tracked(const RegRange& r) {
  switch (r.file) {
    case RegFile::SGPR: return r.first + r.count <= 128;
    case RegFile::VGPR:
    case RegFile::AGPR: return r.first + r.count <= 256;
    case RegFile::VCC:
    case RegFile::EXEC:
    case RegFile::SCC:
    case RegFile::M0: return true;
    default: return false;
  }
}

bool is_plain_move(const Instruction& i) {
  return i.mnemonic == "v_mov_b32_e32" || i.mnemonic == "v_mov_b64_e32" || i.mnemonic == "s_mov_b32" || i.mnemonic == "s_mov_b64";
}

// Why the kernel cannot be analysed (empty when it can).
std::string refusal(const program::Program& p, const program::Function& f) {
  std::set<std::string> labels;
  for (size_t i = f.begin; i < f.end; ++i)
    if (p.text_line(i).kind == Line::Label) labels.insert(p.text_line(i).text);
  if (!f.callees.empty()) return "it calls device functions";
  for (size_t i = f.begin; i < f.end; ++i) {
    const Line& l = p.text_line(i);
    if (l.kind != Line::Instr && l.kind != Line::RawInstr) continue;
    if (!l.inst) return "line " + std::to_string(i) + " is an edited line (its implicit registers are unknown)";
    const Instruction& inst = *l.inst;
    if (inst.is_call || inst.mnemonic == "s_setpc_b64" || inst.mnemonic == "s_swappc_b64")
      return "it has calls or computed jumps (" + inst.mnemonic + ")";
    if (indexes_registers(inst)) return "it indexes registers through M0 (" + inst.mnemonic + ")";
    if (inst.branch_target) {
      auto label = branch_label(l);
      if (!label || !labels.count(*label)) return "a branch leaves the kernel (" + l.text + ")";
    }
  }
  return "";
}

struct Candidate {
  std::vector<size_t> lines;  // lines of the working program, ascending
  const char* reason = "";
};

// One analysis of the working program: finds removable lines in the order of the kernel.
class Analysis {
 public:
  Analysis(const program::Program& p, const program::Function& f) : p_(p), f_(f), in_(p.live_in(f, /*vector_writes_kill=*/false)) {
    block_of_.assign(f.end - f.begin, kNone);
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) block_of_[i - f.begin] = b;
    reachable_.assign(f.blocks.size(), false);
    std::vector<size_t> todo;
    if (!f.blocks.empty()) todo.push_back(0), reachable_[0] = true;
    while (!todo.empty()) {
      size_t b = todo.back();
      todo.pop_back();
      for (size_t s : f.blocks[b].succs)
        if (!reachable_[s]) reachable_[s] = true, todo.push_back(s);
    }
  }

  bool is_inst(size_t i) const {
    const Line& l = p_.text_line(i);
    return l.is_instruction() && l.inst;
  }
  size_t block(size_t i) const { return block_of_[i - f_.begin]; }
  bool reachable(size_t i) const { return block(i) != kNone && reachable_[block(i)]; }

  // Registers live right after line i.
  RegSet live_after(size_t i) const {
    const auto& b = f_.blocks[block(i)];
    for (size_t j = i + 1; j <= b.last; ++j)
      if (is_inst(j)) return in_[j - f_.begin];
    RegSet live;
    for (size_t s : b.succs) live.bits |= in_[f_.blocks[s].first - f_.begin].bits;
    return live;
  }

  // Every way line i can go, or nullopt.
  std::optional<Candidate> at(size_t i) const {
    if (!is_inst(i) || !reachable(i)) return std::nullopt;
    const Instruction& inst = *p_.text_line(i).inst;
    if (dead(inst, i)) return Candidate{{i}, "dead"};
    if (is_plain_move(inst)) {
      auto ops = operand_texts(p_.text_line(i).text);
      if (ops.size() == 2 && ops[0] == ops[1]) return Candidate{{i}, "identity move"};
      if (repeated_move(i)) return Candidate{{i}, "repeated move"};
    }
    if (branch_to_next(i)) return Candidate{{i}, "branch to next"};
    if (execz_skip(i)) return Candidate{{i}, "execz skip"};
    if (auto pair = exec_save_restore(i)) return Candidate{*pair, "exec save/restore"};
    return std::nullopt;
  }

 private:
  bool dead(const Instruction& inst, size_t i) const {
    const InstClass c = inst.cls;
    if (c != InstClass::SALU && c != InstClass::VALU && c != InstClass::VOP3P && c != InstClass::MFMA) return false;
    if (inst.may_load || inst.may_store || inst.is_branch || inst.is_call || inst.is_terminator || inst.is_return) return false;
    // s_setreg, s_setvskip, s_setprio, s_sethalt, s_set_gpr_idx_*: they change how the wave runs.
    if (starts_with(inst.mnemonic, "s_set") || indexes_registers(inst)) return false;
    if (inst.defs.empty()) return false;
    RegSet live = live_after(i);
    for (const RegRange& d : inst.defs)
      if (!tracked(d) || live.contains(d)) return false;
    return true;
  }

  // An identical move earlier in the block, with its destination and sources unchanged since.
  bool repeated_move(size_t i) const {
    const Line& l = p_.text_line(i);
    for (const RegRange& d : l.inst->defs)
      for (const RegRange& u : l.inst->uses)
        if (u.file != RegFile::EXEC && program::overlaps(d, u)) return false;  // the second copy would read a new value
    std::vector<RegRange> watch = l.inst->defs;
    watch.insert(watch.end(), l.inst->uses.begin(), l.inst->uses.end());
    if (l.inst->cls == InstClass::VALU) watch.push_back(RegRange{RegFile::EXEC, 0, 2});
    const size_t first = f_.blocks[block(i)].first;
    for (size_t j = i; j-- > first;) {
      if (!is_inst(j)) continue;
      const Line& e = p_.text_line(j);
      if (e.text == l.text) return true;
      for (const RegRange& d : e.inst->defs)
        for (const RegRange& w : watch)
          if (!tracked(d) || program::overlaps(d, w)) return false;
    }
    return false;
  }

  // Lines after i up to the label `label`: their indices (instructions only), or nullopt when
  // something else (another label, a directive) comes first or the label is not there.
  std::optional<std::vector<size_t>> lines_to_label(size_t i, const std::string& label, size_t max_instructions) const {
    std::vector<size_t> out;
    for (size_t j = i + 1; j < f_.end; ++j) {
      const Line& l = p_.text_line(j);
      if (l.kind == Line::Label) {
        if (l.text == label) return out;
        continue;  // several labels may name one place; the target must still come before any instruction
      }
      if (l.kind == Line::Comment) continue;
      if (!is_inst(j) || out.size() == max_instructions) return std::nullopt;
      // A label seen before this instruction that is not ours would be a second entry.
      for (size_t k = i + 1; k < j; ++k)
        if (p_.text_line(k).kind == Line::Label) return std::nullopt;
      out.push_back(j);
    }
    return std::nullopt;
  }

  bool branch_to_next(size_t i) const {
    const Line& l = p_.text_line(i);
    if (!starts_with(l.inst->mnemonic, "s_branch") && !starts_with(l.inst->mnemonic, "s_cbranch_")) return false;
    auto label = branch_label(l);
    if (!label) return false;
    auto between = lines_to_label(i, *label, 0);
    return between && between->empty();
  }

  bool execz_skip(size_t i) const {
    const Line& l = p_.text_line(i);
    if (l.inst->mnemonic != "s_cbranch_execz") return false;
    auto label = branch_label(l);
    if (!label) return false;
    auto region = lines_to_label(i, *label, kMaxExeczRegion);
    if (!region) return false;
    for (size_t j : *region) {
      const Instruction& r = *p_.text_line(j).inst;
      if (r.cls == InstClass::Nop) continue;
      if (r.cls != InstClass::VALU && r.cls != InstClass::VOP3P) return false;
      if (r.may_load || r.may_store || indexes_registers(r)) return false;
      for (std::string_view m : {"v_readlane", "v_readfirstlane", "v_writelane", "v_cmpx", "v_accvgpr", "v_mfma", "v_smfmac"})
        if (starts_with(r.mnemonic, m)) return false;
      for (const RegRange& d : r.defs)
        if (d.file != RegFile::VGPR) return false;
    }
    return true;
  }

  // s_and_saveexec_b64 sX, Y ; [s_cbranch_execz L ; L:] s_or_b64 exec, exec, sX
  std::optional<std::vector<size_t>> exec_save_restore(size_t i) const {
    const Line& l = p_.text_line(i);
    if (l.inst->mnemonic != "s_and_saveexec_b64") return std::nullopt;
    auto ops = operand_texts(l.text);
    if (ops.size() != 2) return std::nullopt;
    const std::string& saved = ops[0];
    std::vector<size_t> lines{i};
    size_t j = i + 1;
    while (j < f_.end && !is_inst(j) && p_.text_line(j).kind != Line::Label) ++j;
    if (j >= f_.end) return std::nullopt;
    if (is_inst(j) && p_.text_line(j).inst->mnemonic == "s_cbranch_execz") {
      auto label = branch_label(p_.text_line(j));
      if (!label) return std::nullopt;
      auto between = lines_to_label(j, *label, 0);
      if (!between || !between->empty()) return std::nullopt;
      lines.push_back(j);
      ++j;
    }
    while (j < f_.end && !is_inst(j)) {
      if (p_.text_line(j).kind == Line::Directive) return std::nullopt;
      ++j;
    }
    if (j >= f_.end) return std::nullopt;
    const std::string& restore = p_.text_line(j).text;
    if (restore != "s_or_b64 exec, exec, " + saved && restore != "s_or_b64 exec, " + saved + ", exec") return std::nullopt;
    // Nothing else may enter at the restore (it would arrive expecting it).
    for (size_t pred : f_.blocks[block(j)].preds)
      if (block(j) != block(i) && pred != block(i)) return std::nullopt;
    // The pair writes EXEC back to what it was; what else it writes (sX, SCC) must be dead.
    RegSet live = live_after(j);
    auto saved_reg = program::parse_reg(saved);
    if (!saved_reg || live.contains(*saved_reg) || live.contains(RegRange{RegFile::SCC, 0, 1})) return std::nullopt;
    lines.push_back(j);
    return lines;
  }

  const program::Program& p_;
  const program::Function& f_;
  std::vector<RegSet> in_;
  std::vector<size_t> block_of_;
  std::vector<bool> reachable_;
};

struct Pass {
  program::Program program;
  std::vector<size_t> origin;  // working line -> parent line
  std::vector<DeadCodeRemoval> removals;
  size_t probes = 0;
};

// Removes candidates one at a time to a fixed point. With `check_each`, a removal stays only if
// the rebuilt kernel stays clean.
Pass run_pass(const program::Program& p, const std::string& kernel, size_t first, size_t last, bool check_each) {
  Pass s{p, {}, {}, 0};
  s.origin.resize(p.text_line_count());
  for (size_t i = 0; i < s.origin.size(); ++i) s.origin[i] = i;
  std::set<size_t> rejected;  // parent lines whose removal broke the check
  for (;;) {
    const program::Function& f = kernel_function(s.program, kernel);
    Analysis a(s.program, f);
    std::optional<Candidate> found;
    for (size_t i = f.begin; i < f.end && !found; ++i) {
      if (s.origin[i] < first || s.origin[i] > last || rejected.count(s.origin[i])) continue;
      auto c = a.at(i);
      if (!c) continue;
      bool inside = std::all_of(c->lines.begin(), c->lines.end(),
                                [&](size_t l) { return s.origin[l] >= first && s.origin[l] <= last && !rejected.count(s.origin[l]); });
      if (inside) found = c;
    }
    if (!found) break;
    program::Program next = s.program;
    for (size_t k = found->lines.size(); k-- > 0;) next.remove(found->lines[k], found->lines[k]);
    if (check_each) {
      ++s.probes;
      if (!rebuilds_clean(next, kernel)) {
        for (size_t l : found->lines) rejected.insert(s.origin[l]);
        continue;
      }
    }
    for (size_t k = found->lines.size(); k-- > 0;) {
      size_t l = found->lines[k];
      const Line& line = s.program.text_line(l);
      s.removals.push_back({s.origin[l], line.address, line.text, found->reason});
      s.origin.erase(s.origin.begin() + static_cast<std::ptrdiff_t>(l));
    }
    s.program = std::move(next);
  }
  return s;
}

}  // namespace

DeadCodeElimination eliminate_dead_code(const program::Program& p, const std::string& kernel,
                                        std::optional<std::pair<size_t, size_t>> window) {
  const auto [first, last] = window_lines(p, kernel, window);
  const program::Function& f = kernel_function(p, kernel);
  DeadCodeElimination r{p, {}, 0, refusal(p, f)};
  if (!r.refused.empty()) return r;
  ++r.probes;
  if (!rebuilds_clean(p, kernel))
    throw Error("kernel " + kernel + " already has static findings; dead-code elimination needs a clean kernel",
                p.original().elf().name(), "run asmevo check on it");
  Pass s = run_pass(p, kernel, first, last, false);
  if (!s.removals.empty()) {
    ++r.probes;
    // Fewer instructions can mean fewer wait states before a hazard's consumer: then keep only
    // the removals that each leave the kernel clean.
    if (!rebuilds_clean(s.program, kernel)) s = run_pass(p, kernel, first, last, true);
  }
  r.probes += s.probes;
  r.removals = std::move(s.removals);
  r.program = std::move(s.program);
  r.program.touch(kernel);
  r.program.update_resources();
  return r;
}

namespace {

class DeadCodeMove final : public Move {
 public:
  std::string name() const override { return "dead-code"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    DeadCodeElimination r = eliminate_dead_code(c.program, c.kernel, std::pair{c.window.first, c.window.last});
    if (r.removals.empty()) return {};
    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    std::map<std::string, size_t> by_reason;
    for (const auto& rm : r.removals) ++by_reason[rm.reason];
    std::string reasons;
    for (const auto& [reason, n] : by_reason) reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", n, reason);
    e.description = fmt::format("{} instructions removed ({})", r.removals.size(), reasons);
    std::set<size_t> lines;
    for (const auto& rm : r.removals) lines.insert(rm.line);
    for (size_t line : lines) e.hunks.push_back(make_hunk(c.program, line, line, {}));
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_dead_code_move() { return std::make_unique<DeadCodeMove>(); }

}  // namespace asmevo::search
