#include "search/moves/occupancy_rename.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <functional>
#include <optional>
#include <map>
#include <numeric>

#include "codeobj/arch_params.h"
#include "codeobj/resources.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"
#include "search/moves/agpr_round_trip.h"
#include "search/moves/rematerialize.h"
#include "support/error.h"
#include "timing/hw_params.h"

namespace asmevo::search {
namespace {

using program::Line;
using program::RegFile;
using program::RegRange;

constexpr unsigned kUnits = 256;
using Units = std::bitset<kUnits>;

void add_units(Units& s, const RegRange& r) {
  for (unsigned u = r.first; u < r.first + r.count && u < kUnits; ++u) s.set(u);
}

struct LineFacts {
  bool instruction = false;
  Units uses, defs;         // VGPR units read and written
  Units pinned;             // named in a way the text cannot rename (raw line, spelling != decoding)
  bool tuple = false;       // some VGPR operand token names two or more registers
};

// The VGPR part of each line's live-in set.
std::vector<Units> vgpr_units(const std::vector<program::RegSet>& live) {
  std::vector<Units> out(live.size());
  for (size_t k = 0; k < live.size(); ++k)
    for (unsigned u = 0; u < kUnits; ++u) out[k][u] = live[k].bits[program::RegSet::kVgpr + u];
  return out;
}

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

struct Outcome {
  program::Program program;
  unsigned vgprs = 0, waves = 0, by_sgprs = 0;
};

Outcome evaluate(const program::Program& p, const std::string& kernel) {
  Outcome o{p, 0, 0, 0};
  program::Program updated = p;  // a copy whose metadata is rewritten (register_compact.cpp says why not o.program)
  updated.touch(kernel);
  updated.update_resources();
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  auto res = codeobj::derive_resources(*ap, updated.kernel_descriptor(kernel), nullptr);
  o.vgprs = res.vgprs_allocated;
  o.waves = std::min(res.occupancy.by_vgprs, res.occupancy.by_sgprs);
  o.by_sgprs = res.occupancy.by_sgprs;
  return o;
}

}  // namespace

// Renaming alone (the header's argument); `p` may hold edited lines that carry their decoding.
static OccupancyRenaming rename_only(const program::Program& p, const std::string& kernel) {
  const program::Function& f = kernel_function(p, kernel);
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  if (!ap)
    throw Error("occupancy renaming needs a modeled processor (gfx90a, gfx942, gfx950), not " + p.original().target().processor,
                p.original().elf().name());
  OccupancyRenaming r{p, {}, 0, false, 0, 0, 0, 0, 0, 0, 0, {}, 0, 0, ""};
  if (!f.callees.empty()) {
    r.refused = "it calls device functions";
    return r;
  }
  Outcome before = evaluate(p, kernel);
  r.vgprs_before = r.vgprs_after = before.vgprs;
  r.waves_before = r.waves_after = before.waves;
  const unsigned by_vgprs = std::min(ap->max_waves_per_simd, ap->vgprs_per_simd_lane / std::max(1u, before.vgprs));
  if (by_vgprs >= ap->max_waves_per_simd) {
    r.refused = fmt::format("VGPRs already allow the most waves per SIMD ({})", ap->max_waves_per_simd);
    return r;
  }
  if (before.by_sgprs <= by_vgprs) {
    r.refused = fmt::format("SGPRs bind too ({} waves per SIMD by SGPRs)", before.by_sgprs);
    return r;
  }
  const unsigned unified_limit = ap->vgprs_per_simd_lane / (by_vgprs + 1) / ap->vgpr_alloc_granule * ap->vgpr_alloc_granule;
  const program::RegisterUse use = p.register_use(kernel);
  const unsigned agprs = use.max_agpr >= 0 ? static_cast<unsigned>(use.max_agpr) + 1 : 0;
  if (agprs >= unified_limit) {
    r.refused = fmt::format("the {} AGPRs alone exceed the {} registers one more wave allows", agprs, unified_limit);
    return r;
  }
  r.vgpr_limit = agprs ? (unified_limit - agprs) / ap->accum_offset_granule * ap->accum_offset_granule : unified_limit;
  const unsigned limit = r.vgpr_limit;
  // Facts per line.
  const size_t n = f.end - f.begin;
  std::vector<LineFacts> facts(n);
  for (size_t i = f.begin; i < f.end; ++i) {
    const Line& l = p.text_line(i);
    if (!l.is_instruction()) continue;
    if (!l.inst) {
      r.refused = fmt::format("line {} is an edited line (its implicit registers are unknown)", i);
      return r;
    }
    const program::Instruction& inst = *l.inst;
    if (inst.is_call || inst.mnemonic == "s_setpc_b64" || inst.mnemonic == "s_swappc_b64") {
      r.refused = "it has calls or computed jumps (" + inst.mnemonic + ")";
      return r;
    }
    if (inst.mnemonic.starts_with("s_movrel") || inst.mnemonic.starts_with("v_movrel") || inst.mnemonic.starts_with("s_set_gpr_idx")) {
      r.refused = "it indexes registers through M0 (" + inst.mnemonic + ")";
      return r;
    }
    LineFacts& lf = facts[i - f.begin];
    lf.instruction = true;
    const program::LineRegisters regs = p.registers_of(l);
    for (const RegRange& d : regs.defs)
      if (d.file == RegFile::EXEC) {
        r.refused = fmt::format("it writes EXEC (line {}: {}), so a VGPR write may reach only some lanes", i, l.text);
        return r;
      }
    for (const RegRange& u : regs.uses)
      if (u.file == RegFile::VGPR) add_units(lf.uses, u);
    for (const RegRange& d : regs.defs)
      if (d.file == RegFile::VGPR) add_units(lf.defs, d);
    Units spelled;
    for_each_register_token(l.text, [&](size_t, size_t, const RegRange& t) {
      if (t.file != RegFile::VGPR) return;
      add_units(spelled, t);
      lf.tuple |= t.count > 1;
    });
    if (l.kind == Line::RawInstr || spelled != (lf.uses | lf.defs)) lf.pinned = spelled | lf.uses | lf.defs;
  }
  // Successor lines and VGPR liveness (Program::live_in's partial-write mode: a write that may keep
  // part of the old value, may_write_part, does not end it).
  std::vector<std::vector<size_t>> succ = p.successor_lines(f);
  for (auto& list : succ)
    for (size_t& s : list) s -= f.begin;
  const std::vector<Units> live = vgpr_units(p.live_in_partial(f, may_write_part));
  for (size_t k = 0; k < n; ++k)
    if (live[k].count() > r.max_live_vgprs) r.max_live_vgprs = static_cast<unsigned>(live[k].count()), r.peak_line = f.begin + k;


  // Webs: node 2k+.. per (line k, unit): live-in node and def node.
  auto in_node = [](size_t k, unsigned u) { return static_cast<int>((k * 2) * kUnits + u); };
  auto def_node = [](size_t k, unsigned u) { return static_cast<int>((k * 2 + 1) * kUnits + u); };
  UnionFind uf(n * 2 * kUnits);
  for (size_t k = 0; k < n; ++k) {
    if (!facts[k].instruction) continue;
    for (size_t s : succ[k])
      for (unsigned u = 0; u < kUnits; ++u)
        if (live[s].test(u)) uf.join(facts[k].defs.test(u) ? def_node(k, u) : in_node(k, u), in_node(s, u));
    for (unsigned u = 0; u < kUnits; ++u)
      if (live[k].test(u) && facts[k].defs.test(u)) uf.join(in_node(k, u), def_node(k, u));
    // Registers one token names move together.
    const Line& l = p.text_line(f.begin + k);
    for_each_register_token(l.text, [&](size_t, size_t, const RegRange& t) {
      if (t.file != RegFile::VGPR) return;
      auto node = [&](unsigned u) { return live[k].test(u) ? in_node(k, u) : def_node(k, u); };
      for (unsigned u = t.first + 1; u < t.first + t.count && u < kUnits; ++u) uf.join(node(t.first), node(u));
    });
  }
  // Clusters: their points, whether they may move, whether they must keep even alignment.
  struct Cluster {
    std::vector<std::pair<size_t, unsigned>> points;  // (line, unit)
    unsigned lo = kUnits, hi = 0;
    bool fixed = false, even = false;
  };
  std::map<int, Cluster> clusters;
  std::vector<Units> occupied(n);
  size_t entry = SIZE_MAX;
  if (!f.blocks.empty())
    for (size_t i = f.blocks[0].first; i <= f.blocks[0].last && entry == SIZE_MAX; ++i)
      if (facts[i - f.begin].instruction) entry = i - f.begin;
  for (size_t k = 0; k < n; ++k) {
    if (!facts[k].instruction) continue;
    const Units present = live[k] | facts[k].defs;
    occupied[k] = present | facts[k].pinned;
    for (unsigned u = 0; u < kUnits; ++u)
      for (int node : {in_node(k, u), def_node(k, u)}) {
        if (node == in_node(k, u) ? !live[k].test(u) : !facts[k].defs.test(u)) continue;
        Cluster& c = clusters[uf.find(node)];
        if (node == in_node(k, u) || !live[k].test(u)) c.points.push_back({k, u});
        c.lo = std::min(c.lo, u);
        c.hi = std::max(c.hi, u);
        c.fixed |= facts[k].pinned.test(u) || (k == entry && node == in_node(k, u));
        c.even |= facts[k].tuple && (facts[k].uses.test(u) || facts[k].defs.test(u));
      }
  }
  // Which clusters move: first only those that reach the limit, the largest first, each to the
  // lowest free place (the fewest lines rewritten). When one of them finds no place (the clusters
  // below the limit fragment the free registers: a 4-register tuple needs 4 consecutive registers
  // at an even shift), every movable cluster is reallocated below the limit from scratch, in a few
  // greedy orders (tuples and long ranges first, the most points first, program order), the first
  // that places them all kept. Each placement is a shift onto points no placed or staying cluster
  // occupies, so the argument above holds whichever clusters move.
  std::vector<int> todo, movable;
  for (auto& [id, c] : clusters) {
    if (!c.fixed) movable.push_back(id);
    if (c.hi >= limit) {
      if (c.fixed) {
        r.refused = fmt::format("v{} holds a value live at the kernel's entry or named by a line that cannot be renamed", c.hi);
        return r;
      }
      todo.push_back(id);
    }
  }
  if (todo.empty()) {
    r.refused = fmt::format("no VGPR at or above v{} is named, yet the KD allows {} waves", limit, by_vgprs);
    return r;
  }
  auto bigger = [&](int a, int b) { return clusters[a].points.size() > clusters[b].points.size(); };
  std::sort(todo.begin(), todo.end(), bigger);
  // Places `order` one by one; the shifts, or the cluster that found no place.
  auto place = [&](const std::vector<int>& order, std::map<int, int>& shift) -> std::optional<int> {
    std::vector<Units> occ = occupied;
    for (int id : order)
      for (const auto& [k, u] : clusters[id].points) occ[k].reset(u);
    for (int id : order) {
      const Cluster& c = clusters[id];
      std::optional<int> chosen;
      const unsigned span = c.hi - c.lo;
      for (unsigned base = 0; base + span < limit && !chosen; ++base) {
        const int d = static_cast<int>(base) - static_cast<int>(c.lo);
        if (c.even && d % 2) continue;
        bool free = true;
        for (const auto& [k, u] : c.points)
          if (occ[k].test(static_cast<unsigned>(static_cast<int>(u) + d))) {
            free = false;
            break;
          }
        if (free) chosen = d;
      }
      if (!chosen) return id;
      for (const auto& [k, u] : c.points) occ[k].set(static_cast<unsigned>(static_cast<int>(u) + *chosen));
      if (*chosen) shift[id] = *chosen;
    }
    return std::nullopt;
  };
  std::map<int, int> shift;
  std::optional<int> stuck = place(todo, shift);
  if (stuck) {
    const int first_stuck = *stuck;
    std::map<int, size_t> first_line;
    for (int id : movable) {
      size_t k0 = SIZE_MAX;
      for (const auto& pt : clusters[id].points) k0 = std::min(k0, pt.first);
      first_line[id] = k0;
    }
    using Order = std::function<bool(int, int)>;
    const std::vector<Order> orders = {
        [&](int a, int b) {  // tuples first, the widest, then the longest ranges
          const Cluster &x = clusters[a], &y = clusters[b];
          if (x.even != y.even) return x.even;
          if (x.hi - x.lo != y.hi - y.lo) return x.hi - x.lo > y.hi - y.lo;
          return x.points.size() > y.points.size();
        },
        bigger,
        [&](int a, int b) { return first_line[a] != first_line[b] ? first_line[a] < first_line[b] : clusters[a].hi - clusters[a].lo > clusters[b].hi - clusters[b].lo; },
    };
    for (const Order& less : orders) {
      std::vector<int> order = movable;
      std::stable_sort(order.begin(), order.end(), less);
      shift.clear();
      if (!(stuck = place(order, shift))) break;
    }
    r.reallocated = !stuck;
    if (stuck) {
      r.refused = fmt::format("the value in v{} (one of {} clusters above v{}) finds no register free over its live range below v{}, "
                              "nor does every cluster reallocated ({} movable; v{} finds none) "
                              "({} VGPRs live at once at line {}: {})",
                              clusters[first_stuck].hi, todo.size(), limit - 1, limit, movable.size(), clusters[*stuck].hi,
                              r.max_live_vgprs, r.peak_line, p.text_line(r.peak_line).text);
      return r;
    }
  }
  // Rewrite the tokens of the moved clusters.
  program::Program out = p;
  for (size_t k = 0; k < n; ++k) {
    if (!facts[k].instruction) continue;
    const Line& l = p.text_line(f.begin + k);
    std::vector<std::tuple<size_t, size_t, RegRange>> tokens;
    for_each_register_token(l.text, [&](size_t pos, size_t len, const RegRange& t) {
      if (t.file == RegFile::VGPR) tokens.push_back({pos, len, t});
    });
    std::string text = l.text;
    bool changed = false;
    for (size_t t = tokens.size(); t-- > 0;) {
      auto [pos, len, reg] = tokens[t];
      const int node = live[k].test(reg.first) ? in_node(k, reg.first) : def_node(k, reg.first);
      auto it = shift.find(uf.find(node));
      if (it == shift.end()) continue;
      text.replace(pos, len, program::to_string(RegRange{RegFile::VGPR, static_cast<unsigned>(static_cast<int>(reg.first) + it->second), reg.count}));
      changed = true;
    }
    if (changed) {
      out.replace(f.begin + k, f.begin + k, {text});
      r.lines.push_back(f.begin + k);
    }
  }
  Outcome after = evaluate(out, kernel);
  if (after.waves <= before.waves) {
    r.refused = fmt::format("renaming left {} VGPRs allocated ({} waves per SIMD by registers)", after.vgprs, after.waves);
    r.lines.clear();
    r.reallocated = false;
    return r;
  }
  if (!rebuilds_clean(out, kernel)) {
    r.refused = "the renamed kernel does not check clean";
    r.lines.clear();
    r.reallocated = false;
    return r;
  }
  r.program = std::move(out);
  r.program.touch(kernel);
  r.program.update_resources();
  r.clusters_moved = static_cast<unsigned>(shift.size());
  r.vgprs_after = after.vgprs;
  r.waves_after = after.waves;
  return r;
}

std::string occupancy_at_stake(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>& perf_runs) {
  kernel_function(p, kernel);
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  if (!ap) return "";
  const timing::HwParams& hw = timing::hw_params(p.original().target().arch);
  const codeobj::Resources res = codeobj::derive_resources(*ap, p.kernel_descriptor(kernel), nullptr);
  const unsigned by_vgprs = std::min(ap->max_waves_per_simd, ap->vgprs_per_simd_lane / std::max(1u, res.vgprs_allocated));
  if (by_vgprs >= ap->max_waves_per_simd) return "";
  const unsigned next = ap->vgprs_per_simd_lane / (by_vgprs + 1) / ap->vgpr_alloc_granule * ap->vgpr_alloc_granule;
  for (const emu::LaunchSpec& run : perf_runs) {
    const unsigned wg = run.block[0] * run.block[1] * run.block[2];
    const uint32_t lds = res.lds_bytes + run.dynamic_lds;
    const codeobj::Occupancy now = codeobj::compute_occupancy(*ap, res.vgprs_allocated, res.sgprs_allocated, lds, wg);
    const codeobj::Occupancy then = codeobj::compute_occupancy(*ap, next, res.sgprs_allocated, lds, wg);
    const uint64_t groups = uint64_t{run.grid[0]} * run.grid[1] * run.grid[2];
    const uint64_t resident = uint64_t{hw.cus} * now.workgroups_per_cu, resident_then = uint64_t{hw.cus} * then.workgroups_per_cu;
    if (!resident) continue;
    const uint64_t rounds = (groups + resident - 1) / resident, rounds_then = (groups + resident_then - 1) / resident_then;
    if (rounds_then < rounds)
      return fmt::format("perf launch {}: {} workgroups in {} dispatch round(s) of {} ({} per CU with {} VGPRs), {} round(s) of {} with {}",
                         run.perf_name.empty() ? run.label : run.perf_name, groups, rounds, resident, now.workgroups_per_cu,
                         res.vgprs_allocated, rounds_then, resident_then, next);
  }
  return "";
}

OccupancyRenaming rename_for_occupancy(const program::Program& p, const std::string& kernel) {
  OccupancyRenaming r = rename_only(p, kernel);
  if (!r.lines.empty() || r.vgpr_limit == 0 || r.max_live_vgprs == 0 || r.refused.find("finds no register free") == std::string::npos)
    return r;
  // Renaming cannot get under the limit: drop AGPR round trips, recompute cheap values instead of
  // holding them, issue loads later where registers free up, then rename. Renaming is greedy and
  // keeps tuples aligned, so a peak exactly at the limit may still not fit: the stages aim a few
  // registers lower when it does not.
  AgprRoundTripRemoval trips = remove_agpr_round_trips(p, kernel);
  const program::Program& start = trips.trips.empty() ? p : trips.program;
  std::string why;
  for (unsigned slack : {0u, 2u, 4u, 6u, 8u}) {
    if (slack >= r.vgpr_limit) break;
    const unsigned target = r.vgpr_limit - slack;
    program::Program staged = start;
    std::string steps = trips.trips.empty() ? "" : fmt::format("{} AGPR round trip(s) removed", trips.trips.size());
    Rematerialization rm = rematerialize_vgprs(staged, kernel, target);
    if (!rm.values.empty()) {
      staged = rm.program;
      steps += fmt::format("{}{} value(s) rematerialized (the most VGPRs one line needs {} -> {})", steps.empty() ? "" : ", ", rm.values.size(), rm.need_before, rm.need_after);
    }
    LoadSinking sk = sink_loads_for_pressure(staged, kernel, target);
    if (!sk.moves.empty()) {
      staged = sk.program;
      steps += fmt::format("{}{} load group(s) issued later ({} -> {})", steps.empty() ? "" : ", ", sk.moves.size(), sk.need_before, sk.need_after);
    }
    if (steps.empty()) {
      r.refused += "; AGPR round trips: " + trips.refused + "; rematerialization: " + rm.refused + "; load sinking: " + sk.refused;
      return r;
    }
    OccupancyRenaming after = rename_only(staged, kernel);
    after.rematerialized = std::move(rm.values);
    after.loads_sunk = sk.moves.size();
    after.round_trips_removed = trips.trips.size();
    if (!after.lines.empty()) return after;
    why += fmt::format("; aiming at {}: after {}: {}", target, steps, after.refused);
    r.rematerialized = std::move(after.rematerialized);
    r.loads_sunk = after.loads_sunk;
    r.round_trips_removed = after.round_trips_removed;
    const std::vector<unsigned> need = vgpr_need(staged, kernel);
    if (need.empty() || *std::max_element(need.begin(), need.end()) > target) break;  // a lower aim is out of reach too
  }
  r.refused += why;
  return r;
}

namespace {

class OccupancyRenameMove final : public Move {
 public:
  std::string name() const override { return "occupancy-rename"; }
  std::string proposer() const override { return "rules"; }
  std::string leads(const MoveContext& c) const override {
    return c.perf_runs ? occupancy_at_stake(c.program, c.kernel, *c.perf_runs) : "";
  }
  std::vector<Edit> propose(const MoveContext& c) override {
    window_lines(c.program, c.kernel, std::pair{c.window.first, c.window.last});  // only a trigger, but it must be this kernel's
    OccupancyRenaming r = rename_for_occupancy(c.program, c.kernel);
    if (r.lines.empty()) return {};
    Edit e = diff_edit(c.program, r.program, c.kernel);
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    e.description = fmt::format("{}{} VGPR live range(s) renamed below v{}: VGPRs {} -> {} allocated, waves per SIMD {} -> {}",
                                r.rematerialized.empty() && !r.loads_sunk && !r.round_trips_removed ? "" : fmt::format("{} AGPR round trip(s) removed, {} value(s) recomputed at their uses, {} load group(s) issued later, ", r.round_trips_removed, r.rematerialized.size(), r.loads_sunk),
                                r.clusters_moved, r.vgpr_limit, r.vgprs_before, r.vgprs_after, r.waves_before, r.waves_after);
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_occupancy_rename_move() { return std::make_unique<OccupancyRenameMove>(); }

}  // namespace asmevo::search
