#include "program/reaching.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace asmevo::program {

std::set<size_t> reaching_definitions(const Program& p, const Function& f, size_t line, const RegRange& reg,
                                      const std::function<bool(size_t)>& hides) {
  std::set<size_t> out;
  size_t b0 = f.blocks.size();
  for (size_t b = 0; b < f.blocks.size() && b0 == f.blocks.size(); ++b)
    if (f.blocks[b].first <= line && line <= f.blocks[b].last) b0 = b;
  if (b0 == f.blocks.size()) return out;
  std::set<size_t> visited;                     // blocks scanned from their last line
  std::vector<std::pair<size_t, size_t>> todo;  // (block, scan from this line up to the block's first)
  auto push_preds = [&](size_t b) {
    if (b == 0) out.insert(kEntryValue);
    for (size_t pb : f.blocks[b].preds)
      if (visited.insert(pb).second) todo.push_back({pb, f.blocks[pb].last});
  };
  if (line > f.blocks[b0].first) todo.push_back({b0, line - 1});
  else push_preds(b0);
  while (!todo.empty()) {
    auto [b, from] = todo.back();
    todo.pop_back();
    bool stopped = false;
    for (size_t i = from + 1; i-- > f.blocks[b].first;) {
      const Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      bool writes = false;
      for (const RegRange& d : p.registers_of(l).defs) writes |= overlaps(d, reg);
      if (!writes) continue;
      out.insert(i);
      if (!hides || hides(i)) {
        stopped = true;
        break;
      }
    }
    if (!stopped) push_preds(b);
  }
  return out;
}

bool only_definition(const Program& p, const Function& f, size_t line, const RegRange& reg, size_t def) {
  const std::set<size_t> defs = reaching_definitions(p, f, line, reg);
  return defs.size() == 1 && *defs.begin() == def;
}

namespace {

const RegRange kExecPair{RegFile::EXEC, 0, 2};

struct ExecState {
  EntryExec exec = EntryExec::Entry;
  std::set<unsigned> saved;  // first SGPR of pairs that hold E0 (a saveexec under E0)
  bool operator==(const ExecState&) const = default;
};

ExecState merge(const ExecState& a, const ExecState& b) {
  ExecState m;
  m.exec = std::max(a.exec, b.exec);
  for (unsigned r : a.saved)
    if (b.saved.count(r)) m.saved.insert(r);
  return m;
}

void step(const Instruction& in, ExecState& s) {
  const std::string& m = in.mnemonic;
  std::optional<unsigned> source_pair;
  for (const Operand& o : in.operands)
    if (!o.is_def && o.kind == Operand::Reg && o.reg.file == RegFile::SGPR && o.reg.count == 2) source_pair = o.reg.first;
  std::optional<unsigned> saved_now;
  if (m == "s_and_saveexec_b64") {
    for (const Operand& o : in.operands)
      if (o.is_def && o.kind == Operand::Reg && o.reg.file == RegFile::SGPR && o.reg.count == 2 && s.exec == EntryExec::Entry) saved_now = o.reg.first;
    s.exec = s.exec == EntryExec::Unknown ? EntryExec::Unknown : EntryExec::Subset;
  } else if (in.writes(kExecPair)) {
    const bool restore = (m == "s_or_b64" && in.reads(kExecPair) && s.exec != EntryExec::Unknown) || m == "s_mov_b64";
    const bool narrow = (m == "s_and_b64" || m == "s_andn2_b64") && in.reads(kExecPair) && s.exec != EntryExec::Unknown;
    if (restore && source_pair && s.saved.count(*source_pair)) s.exec = EntryExec::Entry;
    else if (narrow) s.exec = EntryExec::Subset;
    else s.exec = EntryExec::Unknown;
  }
  for (const RegRange& d : in.defs)
    if (d.file == RegFile::SGPR)
      for (auto it = s.saved.begin(); it != s.saved.end();)
        it = *it + 1 >= d.first && *it < d.first + d.count ? s.saved.erase(it) : std::next(it);
  if (saved_now) s.saved.insert(*saved_now);
}

}  // namespace

std::vector<EntryExec> exec_from_entry(const Program& p, const Function& f) {
  std::vector<EntryExec> out(f.end - f.begin, EntryExec::Unknown);
  if (f.blocks.empty()) return out;
  std::vector<std::optional<ExecState>> in(f.blocks.size());
  in[0] = ExecState{};
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      if (!in[b]) continue;
      ExecState s = *in[b];
      for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) {
        out[i - f.begin] = s.exec;
        const Line& l = p.text_line(i);
        if (l.kind == Line::Instr && l.inst) step(*l.inst, s);
      }
      for (size_t t : f.blocks[b].succs) {
        ExecState next = in[t] ? merge(*in[t], s) : s;
        if (!in[t] || !(next == *in[t])) in[t] = next, changed = true;
      }
    }
  }
  return out;
}

}  // namespace asmevo::program
