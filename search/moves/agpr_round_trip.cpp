#include "search/moves/agpr_round_trip.h"

#include <fmt/format.h>

#include <algorithm>

#include "search/edit.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"

namespace asmevo::search {
namespace {

using program::Line;
using program::RegFile;
using program::RegRange;

// `mnemonic dst, src` with plain single-register operands of the given files (no modifiers).
std::optional<std::pair<RegRange, RegRange>> copy_operands(const Line& l, std::string_view mnemonic, RegFile dst_file, RegFile src_file) {
  if (l.kind != Line::Instr || !l.inst || l.inst->mnemonic != mnemonic) return std::nullopt;
  const std::vector<std::string> ops = split_operands(l.text, mnemonic.size());
  if (ops.size() != 2) return std::nullopt;
  auto d = program::parse_reg(ops[0]), s = program::parse_reg(ops[1]);
  if (!d || !s || d->file != dst_file || s->file != src_file || d->count != 1 || s->count != 1) return std::nullopt;
  return std::pair{*d, *s};
}

bool writes(const program::LineRegisters& regs, const RegRange& r) {
  return std::any_of(regs.defs.begin(), regs.defs.end(), [&](const RegRange& d) { return program::overlaps(d, r); });
}

// Why the kernel's registers cannot be followed by name (empty when they can).
std::string refusal(const program::Program& p, const program::Function& f) {
  if (!f.callees.empty()) return "it calls device functions";
  for (size_t i = f.begin; i < f.end; ++i) {
    const Line& l = p.text_line(i);
    if (!l.is_instruction() || !l.inst) continue;
    const std::string& m = l.inst->mnemonic;
    if (l.inst->is_call || m == "s_setpc_b64" || m == "s_swappc_b64") return "it has calls or computed jumps (" + m + ")";
    if (m.starts_with("s_movrel") || m.starts_with("v_movrel") || m.starts_with("s_set_gpr_idx")) return "it indexes registers through M0 (" + m + ")";
  }
  return "";
}

}  // namespace

AgprRoundTripRemoval remove_agpr_round_trips(const program::Program& p, const std::string& kernel,
                                             std::optional<std::pair<size_t, size_t>> window) {
  const auto [first, last] = window_lines(p, kernel, window);
  const program::Function& f = kernel_function(p, kernel);
  AgprRoundTripRemoval r{p, {}, ""};
  if (std::string why = refusal(p, f); !why.empty()) {
    r.refused = why;
    return r;
  }
  bool writes_exec = false;
  const RegRange exec{RegFile::EXEC, 0, 2};
  for (size_t i = f.begin; i < f.end; ++i)
    if (p.text_line(i).is_instruction()) writes_exec |= writes(p.registers_of(p.text_line(i)), exec);
  // The pairs: for each W, the nearest earlier line of its block that writes vX must be its R.
  for (const program::BasicBlock& b : f.blocks) {
    for (size_t w = std::max(b.first, first); w <= std::min(b.last, last); ++w) {
      auto back = copy_operands(p.text_line(w), "v_accvgpr_write_b32", RegFile::AGPR, RegFile::VGPR);
      if (!back) continue;
      const auto [agpr, vgpr] = *back;
      for (size_t k = w; k-- > std::max(b.first, first);) {
        const Line& l = p.text_line(k);
        if (!l.is_instruction()) continue;
        if (auto out = copy_operands(l, "v_accvgpr_read_b32", RegFile::VGPR, RegFile::AGPR); out && out->first == vgpr) {
          if (out->second == agpr) r.trips.push_back({k, w, vgpr, agpr, false});
          break;
        }
        const program::LineRegisters regs = p.registers_of(l);
        if (writes(regs, vgpr) || writes(regs, agpr) || writes(regs, exec)) break;
      }
    }
  }
  if (r.trips.empty()) {
    r.refused = "no v_accvgpr_write_b32 writes back the value a v_accvgpr_read_b32 of its block copied out";
    return r;
  }
  std::vector<size_t> removed;
  program::Program without_writes = p;
  for (auto it = r.trips.rbegin(); it != r.trips.rend(); ++it) removed.push_back(it->write_line);
  std::sort(removed.begin(), removed.end());
  for (auto it = removed.rbegin(); it != removed.rend(); ++it) without_writes.remove(*it, *it);
  // Line numbers after the writes' removal, to look R's value up in its liveness.
  auto shifted = [&](size_t line) { return line - static_cast<size_t>(std::lower_bound(removed.begin(), removed.end(), line) - removed.begin()); };
  if (!writes_exec) {
    const program::Function& g = kernel_function(without_writes, kernel);
    const std::vector<program::RegSet> live = without_writes.live_in_partial(g, may_write_part);
    const std::vector<std::vector<size_t>> succ = without_writes.successor_lines(g);
    for (AgprRoundTrip& t : r.trips) {
      const size_t k = shifted(t.read_line) - g.begin;
      t.read_removed = std::none_of(succ[k].begin(), succ[k].end(), [&](size_t s) { return live[s - g.begin].contains(t.vgpr); });
    }
  }
  for (const AgprRoundTrip& t : r.trips)
    if (t.read_removed) removed.push_back(t.read_line);
  std::sort(removed.begin(), removed.end());
  program::Program out = p;
  for (auto it = removed.rbegin(); it != removed.rend(); ++it) out.remove(*it, *it);
  if (!rebuilds_clean(out, kernel)) {
    r.trips.clear();
    r.refused = "without the round trips the kernel does not check clean";
    return r;
  }
  r.program = std::move(out);
  return r;
}

}  // namespace asmevo::search

namespace asmevo::search {
namespace {

// The removal as a move of its own: two VALU lines fewer per pair where no occupancy is gained. A
// whole-kernel move (epilogue copies are rarely in a hot window): a window only triggers it.
class AgprRoundTripMove final : public Move {
 public:
  std::string name() const override { return "agpr-round-trip"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    window_lines(c.program, c.kernel, std::pair{c.window.first, c.window.last});  // only a trigger, but it must be this kernel's
    AgprRoundTripRemoval r = remove_agpr_round_trips(c.program, c.kernel);
    if (r.trips.empty()) return {};
    Edit e = diff_edit(c.program, r.program, c.kernel);
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    size_t reads = 0;
    for (const AgprRoundTrip& t : r.trips) reads += t.read_removed;
    e.description = fmt::format("{} AGPR copy-back(s) removed (v_accvgpr_write_b32 of the value its v_accvgpr_read_b32 copied out), {} dead copy-out(s) with them", r.trips.size(), reads);
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_agpr_round_trip_move() { return std::make_unique<AgprRoundTripMove>(); }

}  // namespace asmevo::search
