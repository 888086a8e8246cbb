#include "search/moves/rematerialize.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "check/isa.h"
#include "program/decoder.h"
#include "program/reaching.h"
#include "rebuild/assembler.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::Line;
using program::RegFile;
using program::RegRange;

// The cheap pure integer ops a value may be recomputed with (header).
const std::set<std::string, std::less<>> kCheapStems = {
    "v_add_u32",     "v_sub_u32",      "v_subrev_u32",   "v_xor_b32",   "v_and_b32",  "v_or_b32",
    "v_lshlrev_b32", "v_lshrrev_b32",  "v_ashrrev_i32",  "v_lshl_or_b32", "v_lshl_add_u32", "v_add_lshl_u32",
    "v_and_or_b32",  "v_or3_b32",      "v_xad_u32",      "v_mov_b32"};

bool is_integer_literal(const std::string& s) {
  size_t i = s.size() > 1 && s[0] == '-' ? 1 : 0;
  if (i >= s.size()) return false;
  if (s.compare(i, 2, "0x") == 0) {
    if (i + 2 >= s.size()) return false;
    return std::all_of(s.begin() + static_cast<long>(i + 2), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  }
  return std::all_of(s.begin() + static_cast<long>(i), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// One step of a recomputation: an instruction's mnemonic and operands (operand 0 the destination).
struct Step {
  std::string mnemonic;
  std::vector<std::string> ops;
  int chain = -1;  // the operand that reads the previous step's result (-1: none)
};

struct CheapOp {
  Step step;
  RegRange dst;
  int identity_src = -1;  // the op copies this operand (add/or/xor of 0, shift by 0, move)
};

// The operand an op copies when `v` is its only VGPR source: add/or/xor of 0, a shift by 0, a move.
int identity_source(std::string_view stem, const std::vector<std::string>& ops, int v) {
  const bool two = ops.size() == 3, other_zero = two && ops[v == 1 ? 2 : 1] == "0";
  if ((stem == "v_mov_b32" && ops.size() == 2) || ((stem == "v_add_u32" || stem == "v_or_b32" || stem == "v_xor_b32") && other_zero) ||
      ((stem == "v_lshlrev_b32" || stem == "v_lshrrev_b32" || stem == "v_ashrrev_i32") && two && v == 2 && ops[1] == "0"))
    return v;
  return -1;
}

std::optional<CheapOp> cheap_op(const Line& l) {
  if (l.kind != Line::Instr || !l.inst || l.inst->cls != program::InstClass::VALU) return std::nullopt;
  const program::Instruction& in = *l.inst;
  std::string_view stem = in.mnemonic;
  for (std::string_view suffix : {"_e32", "_e64"})
    if (stem.ends_with(suffix)) stem.remove_suffix(suffix.size());
  if (!kCheapStems.contains(stem)) return std::nullopt;
  if (in.defs.size() != 1 || in.defs[0].file != RegFile::VGPR || in.defs[0].count != 1) return std::nullopt;
  for (const RegRange& u : in.uses)
    if (!(u.file == RegFile::EXEC || ((u.file == RegFile::VGPR || u.file == RegFile::SGPR) && u.count == 1))) return std::nullopt;
  if (may_write_part(l)) return std::nullopt;
  CheapOp op{{in.mnemonic, split_operands(l.text, in.mnemonic.size()), -1}, in.defs[0], -1};
  const auto& ops = op.step.ops;
  if (ops.size() < 2 || program::parse_reg(ops[0]) != op.dst) return std::nullopt;
  std::vector<int> vgpr_srcs;
  for (size_t i = 1; i < ops.size(); ++i) {  // plain registers and integers only: no modifiers
    auto r = program::parse_reg(ops[i]);
    if (r && r->count == 1 && (r->file == RegFile::VGPR || r->file == RegFile::SGPR)) {
      if (r->file == RegFile::VGPR) vgpr_srcs.push_back(static_cast<int>(i));
      continue;
    }
    if (!is_integer_literal(ops[i])) return std::nullopt;
  }
  if (vgpr_srcs.size() == 1) op.identity_src = identity_source(stem, ops, vgpr_srcs[0]);
  return op;
}

// An instruction text that writes a VGPR with its own value (`v_add_u32_e32 v24, 0, v24`): a no-op.
bool is_self_copy(const std::string& text) {
  const size_t space = text.find(' ');
  if (space == std::string::npos) return false;
  std::string_view stem(text.data(), space);
  for (std::string_view suffix : {"_e32", "_e64"})
    if (stem.ends_with(suffix)) stem.remove_suffix(suffix.size());
  const std::vector<std::string> ops = split_operands(text, space);
  if (ops.size() < 2) return false;
  auto dst = program::parse_reg(ops[0]);
  if (!dst || dst->file != RegFile::VGPR) return false;
  for (size_t i = 1; i < ops.size(); ++i)
    if (program::parse_reg(ops[i]) == dst) return identity_source(stem, ops, static_cast<int>(i)) == static_cast<int>(i);
  return false;
}

// Control flow and registers of one function, at line granularity (indices relative to f.begin).
struct Flow {
  const program::Program& p;
  const program::Function& f;
  size_t n;
  std::vector<std::vector<size_t>> succ, pred;
  std::vector<program::LineRegisters> regs;
  std::vector<program::RegSet> live;
  std::vector<char> instr;

  Flow(const program::Program& prog, const program::Function& fn)
      : p(prog), f(fn), n(fn.end - fn.begin), succ(prog.successor_lines(fn)), pred(n), regs(n), live(prog.live_in_partial(fn, may_write_part)), instr(n, 0) {
    for (size_t k = 0; k < n; ++k) {
      for (size_t& s : succ[k]) s -= f.begin;
      for (size_t s : succ[k]) pred[s].push_back(k);
      const Line& l = p.text_line(f.begin + k);
      if (!l.is_instruction()) continue;
      instr[k] = 1;
      regs[k] = p.registers_of(l);
    }
  }
  const Line& line(size_t k) const { return p.text_line(f.begin + k); }
  bool writes(size_t k, const RegRange& r) const {
    return std::any_of(regs[k].defs.begin(), regs[k].defs.end(), [&](const RegRange& d) { return program::overlaps(d, r); });
  }
  bool reads(size_t k, const RegRange& r) const {
    return std::any_of(regs[k].uses.begin(), regs[k].uses.end(), [&](const RegRange& u) { return program::overlaps(u, r); });
  }
  bool live_into(size_t k, const RegRange& r) const { return live[k].contains(r); }
  // Lines reachable from `k` over one edge or more (forward), or that reach `k` so (backward).
  std::vector<char> reach(size_t k, bool forward) const {
    std::vector<char> seen(n, 0);
    std::vector<size_t> todo(forward ? succ[k] : pred[k]);
    while (!todo.empty()) {
      size_t w = todo.back();
      todo.pop_back();
      if (seen[w]) continue;
      seen[w] = 1;
      for (size_t x : forward ? succ[w] : pred[w]) todo.push_back(x);
    }
    return seen;
  }
  // Whether line `d` writes exactly `r`, whole, and does not read it.
  bool writes_whole(size_t d, const RegRange& r) const {
    return regs[d].defs.size() == 1 && regs[d].defs[0] == r && !may_write_part(line(d)) && !reads(d, r);
  }
  // The one line whose write of `r` reaches line `k` (program/reaching.h); none when several do,
  // when the function's entry value may, or when that line writes `r` only in part or with other
  // registers, or reads it.
  std::optional<size_t> unique_def(size_t k, const RegRange& r) const {
    const std::set<size_t> defs = program::reaching_definitions(p, f, f.begin + k, r);
    if (defs.size() != 1 || *defs.begin() == program::kEntryValue || !writes_whole(*defs.begin() - f.begin, r)) return std::nullopt;
    return *defs.begin() - f.begin;
  }
  // The lines that read the value line `d` writes into `r` (those it reaches); nullopt when one of
  // them also writes `r` or is reached by another write of `r`, or `d` does not write `r` whole.
  std::optional<std::vector<size_t>> uses_of(size_t d, const RegRange& r) const {
    std::vector<size_t> uses;
    for (size_t u = 0; u < n; ++u) {
      if (!instr[u] || !reads(u, r)) continue;
      const std::set<size_t> defs = program::reaching_definitions(p, f, f.begin + u, r);
      if (!defs.contains(f.begin + d)) continue;
      if (writes(u, r) || defs.size() != 1 || !writes_whole(d, r)) return std::nullopt;
      uses.push_back(u);
    }
    return uses;
  }
};

// How the value `d` writes is recomputed right before line `u` (header: sources stable from their
// definition to `u`, VGPR sources live into `u`).
struct Recompute {
  std::vector<Step> steps;          // in order; empty: the value is a copy of `copy_of`
  std::optional<RegRange> copy_of;
  std::vector<size_t> def_lines;    // the definitions it replaces (relative lines)
};

std::optional<Recompute> expand(const Flow& fl, size_t d, size_t u, int depth) {
  std::optional<CheapOp> op = cheap_op(fl.line(d));
  if (!op || fl.reads(d, op->dst)) return std::nullopt;
  const std::vector<char> from = fl.reach(d, true), to = fl.reach(u, false);
  auto stable = [&](const RegRange& r) {
    for (size_t w = 0; w < fl.n; ++w)
      if (from[w] && to[w] && fl.instr[w] && fl.writes(w, r)) return false;
    return true;
  };
  auto expand_source = [&](const RegRange& r) -> std::optional<Recompute> {
    if (depth >= 3) return std::nullopt;
    std::optional<size_t> d2 = fl.unique_def(d, r);
    if (!d2) return std::nullopt;
    return expand(fl, *d2, u, depth + 1);
  };
  if (op->identity_src >= 0) {
    const RegRange x = *program::parse_reg(op->step.ops[op->identity_src]);
    std::optional<Recompute> rc;
    if (stable(x) && fl.live_into(u, x)) rc = Recompute{{}, x, {}};
    else rc = expand_source(x);
    if (rc) rc->def_lines.push_back(d);
    return rc;
  }
  Step step = op->step;
  std::optional<Recompute> inner;
  for (size_t i = 1; i < step.ops.size(); ++i) {
    auto r = program::parse_reg(step.ops[i]);
    if (!r) continue;
    if (r->file == RegFile::SGPR) {
      if (!stable(*r)) return std::nullopt;
      continue;
    }
    if (stable(*r) && fl.live_into(u, *r)) continue;
    if (step.chain >= 0) return std::nullopt;  // one chain per recomputation (it has one temporary)
    inner = expand_source(*r);
    if (!inner) return std::nullopt;
    if (inner->copy_of) step.ops[i] = program::to_string(*inner->copy_of);
    else step.chain = static_cast<int>(i);
  }
  Recompute rc;
  if (inner) {
    rc.def_lines = inner->def_lines;
    if (!inner->copy_of) rc.steps = inner->steps;
  }
  rc.steps.push_back(step);
  rc.def_lines.push_back(d);
  return rc;
}

// Candidate value: its definition, register, uses and the recomputation before each use.
struct Candidate {
  size_t def = 0;
  RegRange reg;
  std::vector<size_t> uses;
  std::vector<Recompute> at_use;
  std::vector<size_t> relieved;  // over-limit lines where it is live and not read
};

std::string text_of(const Step& s) {
  std::string t = s.mnemonic + " ";
  for (size_t i = 0; i < s.ops.size(); ++i) t += (i ? ", " : "") + s.ops[i];
  return t;
}

unsigned most(const std::vector<unsigned>& need) { return need.empty() ? 0 : *std::max_element(need.begin(), need.end()); }

bool is_vector_load(const program::Instruction& in) {
  return (in.cls == program::InstClass::VMEMLoad || in.cls == program::InstClass::GLOBAL) && in.may_load && !in.may_store;
}

// LDS reads (not GDS, not LDS DMA) sink too, behind their own counter.
bool is_sinkable_load(const program::Instruction& in) {
  if (is_vector_load(in)) return true;
  return in.cls == program::InstClass::DS && in.may_load && !in.may_store && in.mnemonic.starts_with("ds_read") &&
         in.text.find(" gds") == std::string::npos;
}

}  // namespace

std::vector<unsigned> vgpr_need(const program::Program& p, const std::string& kernel) {
  const program::Function& f = kernel_function(p, kernel);
  const std::vector<program::RegSet> live = p.live_in_partial(f, may_write_part);
  std::vector<unsigned> need(f.end - f.begin, 0);
  for (size_t k = 0; k < need.size(); ++k) {
    const Line& l = p.text_line(f.begin + k);
    if (!l.is_instruction()) continue;
    program::RegSet s = live[k];
    for (const RegRange& d : p.registers_of(l).defs) s.add(d);
    for (unsigned u = 0; u < 256; ++u) need[k] += s.bits[program::RegSet::kVgpr + u];
  }
  return need;
}

namespace {

// One round: the values chosen on `p`'s liveness (the greedy estimate of what each relieves is
// optimistic, so rematerialize_vgprs repeats rounds on the result).
Rematerialization remat_round(const program::Program& p, const std::string& kernel, unsigned limit) {
  const program::Function& f = kernel_function(p, kernel);
  Rematerialization r{p, {}, 0, 0, ""};
  std::vector<unsigned> need = vgpr_need(p, kernel);
  r.need_before = r.need_after = need.empty() ? 0 : *std::max_element(need.begin(), need.end());
  if (r.need_before <= limit) {
    r.refused = fmt::format("no line needs more than {} VGPRs", limit);
    return r;
  }
  const Flow fl(p, f);
  for (size_t k = 0; k < fl.n; ++k)
    if (fl.instr[k])
      for (const RegRange& d : fl.regs[k].defs)
        if (d.file == RegFile::EXEC) {
          r.refused = fmt::format("it writes EXEC (line {}), so a recomputation may not reach the lanes its value had", f.begin + k);
          return r;
        }
  // Candidates: cheap single-register values live (unread) across over-limit lines.
  std::vector<Candidate> candidates;
  for (size_t d = 0; d < fl.n; ++d) {
    if (!fl.instr[d]) continue;
    std::optional<CheapOp> op = cheap_op(fl.line(d));
    if (!op) continue;
    Candidate c{d, op->dst, {}, {}, {}};
    for (size_t k = 0; k < fl.n; ++k)
      if (need[k] > limit && fl.live_into(k, c.reg) && !fl.reads(k, c.reg)) c.relieved.push_back(k);
    if (c.relieved.empty()) continue;
    std::optional<std::vector<size_t>> uses = fl.uses_of(d, c.reg);
    if (!uses || uses->empty()) continue;
    c.uses = *uses;
    bool ok = true;
    for (size_t u : c.uses) {
      // U must name the register as a whole operand (not inside a tuple) so that it can be rewritten.
      for_each_register_token(fl.line(u).text, [&](size_t, size_t, const RegRange& t) {
        if (program::overlaps(t, c.reg) && t != c.reg) ok = false;
      });
      std::optional<Recompute> rc = ok ? expand(fl, d, u, 0) : std::nullopt;
      if (!rc) {
        ok = false;
        break;
      }
      c.at_use.push_back(*rc);
    }
    if (ok) candidates.push_back(std::move(c));
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.relieved.size() > b.relieved.size(); });
  // Greedy: take a candidate while it relieves a line still over the limit. Not one whose
  // recomputation reads the register of another chosen value, or whose register another chosen
  // recomputation reads: the chosen value's definition may go, and its register then no longer
  // holds it where the other recomputation runs.
  auto sources_of = [](const Candidate& c) {
    std::vector<RegRange> out;
    for (const Recompute& rc : c.at_use) {
      if (rc.copy_of) out.push_back(*rc.copy_of);
      for (const Step& s : rc.steps)
        for (size_t i = 1; i < s.ops.size(); ++i)
          if (auto r = program::parse_reg(s.ops[i]); r && r->file == RegFile::VGPR && static_cast<int>(i) != s.chain) out.push_back(*r);
    }
    return out;
  };
  std::vector<std::vector<RegRange>> sources(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) sources[i] = sources_of(candidates[i]);
  auto reads_value_of = [&](size_t reader, size_t value) {
    for (const RegRange& r : sources[reader])
      if (program::overlaps(r, candidates[value].reg)) return true;
    return false;
  };
  std::vector<size_t> chosen_index;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (std::none_of(c.relieved.begin(), c.relieved.end(), [&](size_t k) { return need[k] > limit; })) continue;
    if (std::any_of(chosen_index.begin(), chosen_index.end(), [&](size_t o) { return reads_value_of(i, o) || reads_value_of(o, i); })) continue;
    chosen_index.push_back(i);
    for (size_t k : c.relieved) --need[k];
  }
  std::vector<const Candidate*> chosen;
  for (size_t i : chosen_index) chosen.push_back(&candidates[i]);
  if (chosen.empty()) {
    r.refused = fmt::format("no value live across the lines needing more than {} VGPRs is a cheap function of values live at its uses", limit);
    return r;
  }
  // Rewrites in parent lines: insertions before uses, new use texts, deleted definitions.
  std::map<size_t, std::vector<std::string>> inserts;
  std::map<size_t, std::string> texts;
  std::set<size_t> temp_taken, deleted;
  for (const Candidate* c : chosen) {
    RematerializedValue v{f.begin + c->def, c->reg, "", static_cast<unsigned>(c->uses.size())};
    for (size_t i = 0; i < c->uses.size(); ++i) {
      const size_t u = c->uses[i];
      const Recompute& rc = c->at_use[i];
      RegRange t = c->reg;
      if (rc.copy_of) t = *rc.copy_of;
      else if (!temp_taken.contains(u) && !may_write_part(fl.line(u))) {
        // U's own first destination VGPR, when U writes it whole and does not read it.
        for (const RegRange& d : fl.regs[u].defs)
          if (d.file == RegFile::VGPR) {
            const RegRange first{RegFile::VGPR, d.first, 1};
            if (!fl.reads(u, first)) t = first, temp_taken.insert(u);
            break;
          }
      }
      std::string expr;
      for (Step s : rc.steps) {
        s.ops[0] = program::to_string(t);
        if (s.chain >= 0) s.ops[s.chain] = program::to_string(t);
        inserts[u].push_back(text_of(s));
        expr += (expr.empty() ? "" : "; ") + text_of(s);
      }
      if (v.expression.empty()) v.expression = rc.copy_of ? "copy of " + program::to_string(*rc.copy_of) : expr;
      if (t != c->reg) {
        std::string& text = texts.try_emplace(u, fl.line(u).text).first->second;
        text = rename_registers(text, c->reg, t.first);
      }
      for (size_t dl : rc.def_lines) deleted.insert(dl);
    }
    r.values.push_back(v);
  }
  // A replaced definition goes when every line reading its value goes too (or reads a recomputation).
  std::set<size_t> dead;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t d : deleted) {
      if (dead.contains(d)) continue;
      const RegRange reg = fl.regs[d].defs[0];
      std::optional<std::vector<size_t>> uses = fl.uses_of(d, reg);
      if (!uses) continue;
      bool all_gone = true;
      for (size_t u : *uses) {
        bool recomputed = false;
        for (const Candidate* c : chosen) recomputed |= c->def == d && std::find(c->uses.begin(), c->uses.end(), u) != c->uses.end();
        all_gone &= recomputed || dead.contains(u);
      }
      if (all_gone) dead.insert(d), changed = true;
    }
  }
  program::Program q = p;
  std::set<size_t> touched;
  for (const auto& [u, _] : inserts) touched.insert(u);
  for (const auto& [u, _] : texts) touched.insert(u);
  for (size_t d : dead) touched.insert(d);
  for (auto it = touched.rbegin(); it != touched.rend(); ++it) {
    const size_t k = *it, line = f.begin + k;
    if (dead.contains(k)) {
      q.remove(line, line);
      continue;
    }
    auto ins = inserts.find(k);
    const std::vector<std::string> added = ins != inserts.end() ? ins->second : std::vector<std::string>{};
    if (auto t = texts.find(k); t != texts.end() && is_self_copy(t->second) && !added.empty()) {
      q.replace(line, line, added);  // the recomputation already leaves the value where the copy put it
      continue;
    }
    if (auto t = texts.find(k); t != texts.end()) q.replace(line, line, {t->second});
    if (!added.empty()) q.insert_before(line, added);
  }
  decode_edited_lines(q, kernel);  // so that liveness and renaming read their exact registers
  need = vgpr_need(q, kernel);
  r.need_after = *std::max_element(need.begin(), need.end());
  r.program = std::move(q);
  return r;
}

// How far a need profile is over `limit`: the most one line needs, then the units over it summed.
std::pair<unsigned, unsigned> excess(const std::vector<unsigned>& need, unsigned limit) {
  unsigned over = 0;
  for (unsigned n : need) over += n > limit ? n - limit : 0;
  return {most(need), over};
}

}  // namespace

Rematerialization rematerialize_vgprs(const program::Program& p, const std::string& kernel, unsigned limit) {
  Rematerialization total = remat_round(p, kernel, limit);
  if (total.values.empty()) return total;
  for (unsigned round = 1; round < 6; ++round) {
    Rematerialization next = remat_round(total.program, kernel, limit);
    if (next.values.empty() ||
        excess(vgpr_need(next.program, kernel), limit) >= excess(vgpr_need(total.program, kernel), limit))
      break;
    total.program = std::move(next.program);
    total.need_after = next.need_after;
    total.values.insert(total.values.end(), next.values.begin(), next.values.end());
  }
  return total;
}

LoadSinking sink_loads_for_pressure(const program::Program& p, const std::string& kernel, unsigned limit) {
  kernel_function(p, kernel);  // throws for an unknown kernel
  LoadSinking r{p, {}, 0, 0, ""};
  const codeobj::Arch arch = p.original().target().arch;
  const check::CounterLimits limits = check::counter_limits(arch);
  r.need_before = r.need_after = most(vgpr_need(p, kernel));
  if (r.need_before <= limit) {
    r.refused = fmt::format("no line needs more than {} VGPRs", limit);
    return r;
  }
  program::Program cur = p;
  for (unsigned round = 0; round < 6; ++round) {
    const program::Function& cf = kernel_function(cur, kernel);
    const Flow fl(cur, cf);
    const std::pair<unsigned, unsigned> now = excess(vgpr_need(cur, kernel), limit);
    if (now.first <= limit) break;
    struct Best {
      std::pair<unsigned, unsigned> need;
      size_t first = 0, last = 0, after = 0;  // relative lines
      std::vector<std::string> texts;         // the group's lines, temporaries renamed
    } best;
    best.need = now;
    for (const program::BasicBlock& b : cf.blocks) {
      for (size_t end = b.first; end <= b.last; ++end) {
        const size_t e = end - cf.begin;
        if (!fl.instr[e] || !fl.line(e).inst || !is_sinkable_load(*fl.line(e).inst)) continue;
        if (end < b.last && fl.instr[e + 1] && fl.line(e + 1).inst && is_sinkable_load(*fl.line(e + 1).inst)) continue;  // not a group's last
        // The group: the loads and, right before them, the ALU work that computes what they read.
        size_t a = e;
        auto joins = [&](size_t k) {
          if (!fl.instr[k] || !fl.line(k).inst) return false;
          const program::Instruction& in = *fl.line(k).inst;
          if (is_sinkable_load(in) || in.cls == program::InstClass::Nop) return true;
          if (in.cls != program::InstClass::VALU && in.cls != program::InstClass::SALU) return false;
          for (const RegRange& d : fl.regs[k].defs)
            for (size_t g = k + 1; g <= e; ++g)
              if (fl.reads(g, d)) return true;
          return false;
        };
        while (a > b.first - cf.begin && joins(a - 1)) --a;
        bool vmem = false, lds = false;
        for (size_t g = a; g <= e; ++g) {
          const program::Instruction& in = *fl.line(g).inst;
          vmem |= is_vector_load(in);
          lds |= in.cls == program::InstClass::DS;
        }
        // Its temporaries (single VGPRs it writes that nothing reads after it, as the address
        // operands of its loads) move into VGPRs below the limit that no line of the block from the
        // group on names and none is live into after it: then a line that reuses a temporary's
        // register (the next LDS read's destination) does not stop the slide.
        std::map<unsigned, unsigned> temp_to;
        {
          std::set<unsigned> named;
          for (size_t k = a; k <= b.last - cf.begin; ++k) {
            if (!fl.instr[k]) continue;
            for (const auto* list : {&fl.regs[k].defs, &fl.regs[k].uses})
              for (const RegRange& r : *list)
                if (r.file == RegFile::VGPR)
                  for (unsigned v = r.first; v < r.first + r.count; ++v) named.insert(v);
          }
          auto free_after = [&](unsigned v) {
            for (size_t k = e + 1; k <= b.last - cf.begin; ++k)
              if (fl.instr[k] && fl.live_into(k, RegRange{RegFile::VGPR, v, 1})) return false;
            return true;
          };
          // A temporary's first access in the group is a whole write, and the group writes no EXEC
          // (each read of it then sees the group's own write, on the same lanes).
          auto written_first = [&](const RegRange& d) {
            for (size_t g = a; g <= e; ++g) {
              if (fl.reads(g, d)) return false;
              if (fl.writes(g, d)) return !may_write_part(fl.line(g));
            }
            return false;
          };
          bool writes_exec = false;
          for (size_t g = a; g <= e; ++g) writes_exec |= fl.writes(g, RegRange{RegFile::EXEC, 0, 2});
          unsigned next = 0;
          for (size_t g = a; g <= e && !writes_exec; ++g)
            for (const RegRange& d : fl.regs[g].defs) {
              if (d.file != RegFile::VGPR || d.count != 1 || temp_to.contains(d.first) || fl.live_into(e + 1, d) || !written_first(d)) continue;
              while (next < limit && (named.contains(next) || !free_after(next))) ++next;
              if (next >= limit) break;
              temp_to[d.first] = next++;
            }
        }
        auto renamed = [&](RegRange r) {
          if (auto it = temp_to.find(r.first); r.file == RegFile::VGPR && r.count == 1 && it != temp_to.end()) r.first = it->second;
          return r;
        };
        std::vector<std::string> group_texts;
        for (size_t g = a; g <= e; ++g) {
          std::string t = fl.line(g).text;
          std::string out;
          // All temporaries at once, token by token (a rename may land on another temporary's name).
          size_t at = 0;
          for_each_register_token(t, [&](size_t pos, size_t len, const RegRange& r) {
            out += t.substr(at, pos - at);
            out += program::to_string(renamed(r));
            at = pos + len;
          });
          group_texts.push_back(out + t.substr(at));
        }
        // Slide it down past independent lines that touch no vector memory and wait on no vmcnt.
        for (size_t x = e + 1; x < b.last - cf.begin; ++x) {
          if (!fl.instr[x] || !fl.line(x).inst || !fl.instr[x + 1]) break;
          const program::Instruction& in = *fl.line(x).inst;
          using program::InstClass;
          if (is_vmem(in.cls) || in.cls == InstClass::GLOBAL || in.cls == InstClass::FLAT || in.cls == InstClass::SCRATCH ||
              in.cls == InstClass::SMEM || in.cls == InstClass::Branch || in.cls == InstClass::Barrier || in.cls == InstClass::Message ||
              in.is_branch || in.is_terminator || (lds && in.cls == InstClass::DS))
            break;
          if (auto w = check::decode_waitcnt(in, arch);
              w && ((vmem && w->count[check::kVmCnt] < limits.max[check::kVmCnt]) || (lds && w->count[check::kLgkmCnt] < limits.max[check::kLgkmCnt])))
            break;
          bool dependent = false;
          for (size_t g = a; g <= e && !dependent; ++g) {
            for (const RegRange& d : fl.regs[g].defs) dependent |= fl.reads(x, renamed(d)) || fl.writes(x, renamed(d));
            for (const RegRange& u : fl.regs[g].uses) dependent |= fl.writes(x, renamed(u));
          }
          if (dependent) break;
          program::Program trial = cur;
          trial.insert_before(cf.begin + x + 1, group_texts);
          trial.remove(cf.begin + a, cf.begin + e);
          decode_edited_lines(trial, kernel);
          const std::pair<unsigned, unsigned> n = excess(vgpr_need(trial, kernel), limit);
          if (n < best.need) best = {n, a, e, x, group_texts};
        }
      }
    }
    if (best.need >= now) break;
    cur.insert_before(cf.begin + best.after + 1, best.texts);
    cur.remove(cf.begin + best.first, cf.begin + best.last);
    decode_edited_lines(cur, kernel);
    r.moves.push_back({cf.begin + best.first, cf.begin + best.last, cf.begin + best.after});
  }
  if (r.moves.empty()) {
    r.refused = "no group of vector loads can issue later where it lowers the most VGPRs a line needs";
    return r;
  }
  r.need_after = most(vgpr_need(cur, kernel));
  r.program = std::move(cur);
  return r;
}

}  // namespace asmevo::search
