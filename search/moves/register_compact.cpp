#include "search/moves/register_compact.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cctype>
#include <map>
#include <set>

#include "codeobj/arch_params.h"
#include "codeobj/initial_sgprs.h"
#include "codeobj/resources.h"
#include "emu/registry.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::Line;
using program::RegFile;
using program::RegRange;

constexpr std::array<RegFile, 3> kFiles{RegFile::VGPR, RegFile::AGPR, RegFile::SGPR};
constexpr unsigned kUnits = 256;  // per file; SGPRs stop at 102 (checked by update_resources)

int file_index(RegFile f) {
  for (size_t i = 0; i < kFiles.size(); ++i)
    if (kFiles[i] == f) return static_cast<int>(i);
  return -1;
}

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == ']' || c == ':'; }

// A set of registers named together (overlapping tuples merged): it moves as one.
struct Group {
  RegFile file;
  unsigned lo = 0, hi = 0;  // original units, inclusive
  unsigned align = 1;       // a move keeps lo modulo this
  bool fixed = false;
};

struct Analysis {
  std::string refused;
  std::array<std::bitset<kUnits>, 3> used, reserved;  // reserved: never a target, never moved
  std::vector<Group> groups;
};

// Alignment a tuple of `count` registers needs (see the header for the sources).
unsigned tuple_alignment(RegFile f, unsigned count) {
  if (count < 2) return 1;
  if (f == RegFile::SGPR) return count == 2 ? 2 : 4;
  return 2;
}

Analysis analyze(const program::Program& p, const program::Function& f) {
  Analysis a;
  if (!f.callees.empty()) {
    a.refused = "it calls device functions";
    return a;
  }
  std::array<std::vector<RegRange>, 3> ranges;
  auto reserve = [&](const RegRange& r) {
    int fi = file_index(r.file);
    if (fi < 0) return;
    for (unsigned u = r.first; u < r.first + r.count && u < kUnits; ++u) a.reserved[fi].set(u);
  };
  for (size_t i = f.begin; i < f.end; ++i) {
    const Line& l = p.text_line(i);
    if (!l.is_instruction()) continue;
    if (!l.inst) {
      a.refused = "line " + std::to_string(i) + " is an edited line (its implicit registers are unknown)";
      return a;
    }
    const program::Instruction& inst = *l.inst;
    if (inst.is_call || inst.mnemonic == "s_setpc_b64" || inst.mnemonic == "s_swappc_b64") {
      a.refused = "it has calls or computed jumps (" + inst.mnemonic + ")";
      return a;
    }
    if (inst.mnemonic.starts_with("s_movrel") || inst.mnemonic.starts_with("v_movrel") || inst.mnemonic.starts_with("s_set_gpr_idx")) {
      a.refused = "it indexes registers through M0 (" + inst.mnemonic + ")";
      return a;
    }
    std::set<std::tuple<int, unsigned, unsigned>> decoded, spelled;
    auto note = [&](const RegRange& r) {
      int fi = file_index(r.file);
      if (fi < 0 || r.count == 0) return;
      decoded.insert({fi, r.first, r.count});
      ranges[fi].push_back(r);
      for (unsigned u = r.first; u < r.first + r.count && u < kUnits; ++u) a.used[fi].set(u);
    };
    for (const auto& op : inst.operands)
      if (op.kind == program::Operand::Reg) note(op.reg);
    for (const auto& r : inst.defs) note(r);
    for (const auto& r : inst.uses) note(r);
    for_each_register_token(l.text, [&](size_t, size_t, const RegRange& r) { spelled.insert({file_index(r.file), r.first, r.count}); });
    // What cannot be renamed in the text stays where it is.
    if (l.kind == Line::RawInstr || decoded != spelled) {
      for (const auto& [fi, first, count] : decoded) reserve(RegRange{kFiles[fi], first, count});
      for (const auto& [fi, first, count] : spelled) reserve(RegRange{kFiles[fi], first, count});
    }
  }
  // ABI registers and whatever is live at the entry.
  reserve(RegRange{RegFile::VGPR, 0, 1});
  const codeobj::KernelDescriptor& kd = p.kernel_descriptor(f.name);
  reserve(RegRange{RegFile::SGPR, 0, codeobj::initialized_sgpr_count(kd)});
  if (!f.blocks.empty()) {
    // A partial write (a 16-bit result keeping the other half) does not end the entry value's life.
    const program::RegSet entry = p.live_in_partial(f, may_write_part)[f.blocks[0].first - f.begin];
    for (RegFile file : kFiles)
      for (unsigned u = 0; u < kUnits; ++u)
        if (entry.contains(RegRange{file, u, 1})) reserve(RegRange{file, u, 1});
  }
  // Groups: overlapping ranges merged.
  for (size_t fi = 0; fi < kFiles.size(); ++fi) {
    auto& rs = ranges[fi];
    std::sort(rs.begin(), rs.end(), [](const RegRange& x, const RegRange& y) { return x.first < y.first; });
    for (const RegRange& r : rs) {
      unsigned last = r.first + r.count - 1;
      if (a.groups.empty() || a.groups.back().file != kFiles[fi] || r.first > a.groups.back().hi)
        a.groups.push_back(Group{kFiles[fi], r.first, last, 1, false});
      Group& g = a.groups.back();
      g.hi = std::max(g.hi, last);
      g.align = std::max(g.align, tuple_alignment(kFiles[fi], r.count));
    }
  }
  for (Group& g : a.groups) {
    int fi = file_index(g.file);
    for (unsigned u = g.lo; u <= g.hi; ++u) g.fixed |= u >= kUnits || a.reserved[fi].test(u);
  }
  return a;
}

// Greedy per file: the group on top moves to the lowest hole that fits below its top, until the
// top group cannot move. Returns the moves in order (group index -> new lo).
std::vector<std::pair<size_t, unsigned>> plan(const Analysis& a, RegFile file) {
  const int fi = file_index(file);
  std::bitset<kUnits> occupied = a.used[fi] | a.reserved[fi];
  std::vector<size_t> members;
  std::map<size_t, unsigned> lo;
  for (size_t g = 0; g < a.groups.size(); ++g)
    if (a.groups[g].file == file) members.push_back(g), lo[g] = a.groups[g].lo;
  std::vector<std::pair<size_t, unsigned>> moves;
  for (;;) {
    size_t top = SIZE_MAX;
    unsigned top_hi = 0;
    for (size_t g : members) {
      unsigned hi = lo[g] + a.groups[g].hi - a.groups[g].lo;
      if (top == SIZE_MAX || hi > top_hi) top = g, top_hi = hi;
    }
    if (top == SIZE_MAX || a.groups[top].fixed) break;
    const Group& g = a.groups[top];
    const unsigned len = g.hi - g.lo + 1, cur = lo[top];
    std::optional<unsigned> target;
    for (unsigned b = cur % g.align; b + len - 1 < top_hi && !target; b += g.align) {
      bool fits = true;
      for (unsigned u = b; u < b + len && fits; ++u) fits = !occupied.test(u) || (u >= cur && u <= top_hi);
      if (fits) target = b;
    }
    if (!target) break;
    for (unsigned u = cur; u <= top_hi; ++u) occupied.reset(u);
    for (unsigned u = *target; u < *target + len; ++u) occupied.set(u);
    lo[top] = *target;
    moves.push_back({top, *target});
  }
  return moves;
}

struct Outcome {
  program::Program program;
  std::vector<size_t> lines;
  unsigned vgprs = 0, sgprs = 0, waves = 0;
};

Outcome evaluate(const program::Program& p, const program::Function& f, const Analysis& a,
                 const std::map<size_t, unsigned>& moved) {
  Outcome o{p, {}, 0, 0, 0};
  for (size_t i = f.begin; i < f.end; ++i) {
    const Line& l = p.text_line(i);
    if (!l.is_instruction() || l.kind == Line::RawInstr) continue;
    std::string text = l.text;
    bool changed = false;
    // Right to left, so earlier token positions stay valid.
    std::vector<std::tuple<size_t, size_t, RegRange>> tokens;
    for_each_register_token(text, [&](size_t pos, size_t len, const RegRange& r) { tokens.push_back({pos, len, r}); });
    for (size_t t = tokens.size(); t-- > 0;) {
      auto [pos, len, r] = tokens[t];
      for (const auto& [g, to] : moved) {
        const Group& grp = a.groups[g];
        if (grp.file != r.file || r.first < grp.lo || r.first > grp.hi) continue;
        text.replace(pos, len, program::to_string(RegRange{r.file, r.first - grp.lo + to, r.count}));
        changed = true;
        break;
      }
    }
    if (changed) {
      o.program.replace(i, i, {text});
      o.lines.push_back(i);
    }
  }
  // Resources are recomputed on a copy: o.program keeps its metadata as recovered, because a
  // copy of a Program whose metadata was rewritten with values of another encoded length is not
  // faithful (codeobj::Metadata's copy re-parses the new encoding but then swaps in the old bytes
  // its strings point into), and the oracle copies what it checks.
  const std::string& kernel = f.name;
  program::Program updated = o.program;
  updated.touch(kernel);
  updated.update_resources();
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  auto res = codeobj::derive_resources(*ap, updated.kernel_descriptor(kernel), nullptr);
  o.vgprs = res.vgprs_allocated;
  o.sgprs = res.sgprs_allocated;
  o.waves = std::min(res.occupancy.by_vgprs, res.occupancy.by_sgprs);
  return o;
}

}  // namespace

void for_each_register_token(const std::string& text, const std::function<void(size_t, size_t, const RegRange&)>& visit) {
  size_t i = text.find(' ');
  if (i == std::string::npos) return;
  while (i < text.size()) {
    if (!token_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && token_char(text[j])) ++j;
    if (auto r = program::parse_reg(std::string_view(text).substr(i, j - i)); r && file_index(r->file) >= 0) visit(i, j - i, *r);
    i = j;
  }
}

bool may_write_part(const Line& l) {
  if (!l.inst) return true;
  const emu::SemanticEntry* e = emu::Registry::get().find(emu::mnemonic_stem(l.inst->mnemonic));
  return !e || (e->flags & emu::kKeepHigh16);
}

std::string rename_registers(const std::string& text, const RegRange& from, unsigned to) {
  std::string out = text;
  std::vector<std::tuple<size_t, size_t, RegRange>> tokens;
  for_each_register_token(text, [&](size_t pos, size_t len, const RegRange& r) { tokens.push_back({pos, len, r}); });
  for (size_t t = tokens.size(); t-- > 0;) {
    auto [pos, len, r] = tokens[t];
    if (r.file != from.file || r.first < from.first || r.first >= from.first + from.count) continue;
    out.replace(pos, len, program::to_string(RegRange{r.file, r.first - from.first + to, r.count}));
  }
  return out;
}

RegisterCompaction compact_registers(const program::Program& p, const std::string& kernel) {
  const program::Function& f = kernel_function(p, kernel);
  if (!codeobj::arch_params(p.original().target().arch))
    throw Error("register compaction needs a modeled processor (gfx90a, gfx942, gfx950), not " + p.original().target().processor,
                p.original().elf().name());
  RegisterCompaction r{p, {}, {}, 0, 0, 0, 0, 0, 0, ""};
  Analysis a = analyze(p, f);
  if (!a.refused.empty()) {
    r.refused = a.refused;
    return r;
  }
  Outcome before = evaluate(p, f, a, {});
  r.vgprs_before = r.vgprs_after = before.vgprs;
  r.sgprs_before = r.sgprs_after = before.sgprs;
  r.waves_before = r.waves_after = before.waves;
  std::array<std::vector<std::pair<size_t, unsigned>>, 3> moves;
  for (size_t fi = 0; fi < kFiles.size(); ++fi) moves[fi] = plan(a, kFiles[fi]);
  std::array<size_t, 3> take{moves[0].size(), moves[1].size(), moves[2].size()};
  auto chosen = [&] {
    std::map<size_t, unsigned> m;
    for (size_t fi = 0; fi < kFiles.size(); ++fi)
      for (size_t k = 0; k < take[fi]; ++k) m[moves[fi][k].first] = moves[fi][k].second;
    return m;
  };
  if (take == std::array<size_t, 3>{0, 0, 0}) {
    r.refused = "no register can move lower";
    return r;
  }
  Outcome full = evaluate(p, f, a, chosen());
  if (full.waves <= before.waves) {
    r.refused = fmt::format("compaction would not raise occupancy ({} waves per SIMD by registers; VGPRs {} -> {}, SGPRs {} -> {})",
                            before.waves, before.vgprs, full.vgprs, before.sgprs, full.sgprs);
    return r;
  }
  // The fewest moves per file (each move lowers that file's top) that keep the same occupancy.
  for (size_t fi = 0; fi < kFiles.size(); ++fi) {
    size_t lo = 0, hi = take[fi];
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      take[fi] = mid;
      if (evaluate(p, f, a, chosen()).waves >= full.waves) hi = mid;
      else lo = mid + 1;
    }
    take[fi] = lo;
  }
  Outcome best = evaluate(p, f, a, chosen());
  if (!rebuilds_clean(best.program, kernel)) {
    r.refused = "the compacted kernel does not check clean";
    return r;
  }
  for (const auto& [g, to] : chosen()) {
    const Group& grp = a.groups[g];
    r.renames.push_back({RegRange{grp.file, grp.lo, grp.hi - grp.lo + 1}, to});
  }
  r.program = std::move(best.program);
  r.program.touch(kernel);
  r.program.update_resources();
  r.lines = std::move(best.lines);
  r.vgprs_after = best.vgprs;
  r.sgprs_after = best.sgprs;
  r.waves_after = best.waves;
  return r;
}

namespace {

class RegisterCompactMove final : public Move {
 public:
  std::string name() const override { return "register-compact"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    window_lines(c.program, c.kernel, std::pair{c.window.first, c.window.last});  // only a trigger, but it must be this kernel's
    RegisterCompaction r = compact_registers(c.program, c.kernel);
    if (r.renames.empty()) return {};
    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    std::string what;
    for (const auto& rn : r.renames)
      what += fmt::format("{}{}->{}", what.empty() ? "" : ", ", program::to_string(rn.from),
                          program::to_string(RegRange{rn.from.file, rn.to, rn.from.count}));
    e.description = fmt::format("registers renamed into unused ones ({}): VGPRs {} -> {}, SGPRs {} -> {}, waves per SIMD {} -> {}", what,
                                r.vgprs_before, r.vgprs_after, r.sgprs_before, r.sgprs_after, r.waves_before, r.waves_after);
    for (size_t line : r.lines) e.hunks.push_back(make_hunk(c.program, line, line, {r.program.text_line(line).text}));
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_register_compact_move() { return std::make_unique<RegisterCompactMove>(); }

}  // namespace asmevo::search
