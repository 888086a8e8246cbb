#include "search/moves/reschedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <limits>
#include <set>
#include <string_view>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"
#include "timing/hw_params.h"

namespace asmevo::search {

using program::Instruction;
using program::InstClass;
using program::Line;
using program::RegFile;
using program::RegRange;

const char* variant_name(ScheduleVariant v) {
  switch (v) {
    case ScheduleVariant::Full: return "list schedule";
    case ScheduleVariant::LoadsOnly: return "loads hoisted";
    case ScheduleVariant::FullFixedWaits: return "list schedule, waits in place";
    case ScheduleVariant::LoadsFixedWaits: return "loads hoisted, waits in place";
    case ScheduleVariant::Interleave: return "MFMA/memory interleaved";
  }
  return "?";
}

namespace {

// ---- Register units -----------------------------------------------------------------------------
// One bit per 32-bit register unit of every file an instruction can name, so that any overlap of
// two RegRanges is an intersection of bit sets. The gfx9 names never alias across files (vcc,
// flat_scratch and xnack_mask are separate names from s0..s101), so separate files are disjoint.
constexpr size_t kSgpr = 0, kVgpr = kSgpr + 128, kAgpr = kVgpr + 512, kVcc = kAgpr + 256, kExec = kVcc + 2,
                 kScc = kExec + 2, kM0 = kScc + 1, kFlatScratch = kM0 + 1, kXnack = kFlatScratch + 2,
                 kTtmp = kXnack + 2, kMode = kTtmp + 16, kUnits = kMode + 1;
using Units = std::bitset<kUnits>;

// False for a register the model has no unit for (RegFile::Other: src_shared_base, lds_direct,
// ...): such an instruction is a fixed point.
bool add_units(Units& u, const RegRange& r) {
  size_t base = 0, size = 0;
  switch (r.file) {
    case RegFile::SGPR: base = kSgpr, size = 128; break;
    case RegFile::VGPR: base = kVgpr, size = 512; break;
    case RegFile::AGPR: base = kAgpr, size = 256; break;
    case RegFile::VCC: base = kVcc, size = 2; break;
    case RegFile::EXEC: base = kExec, size = 2; break;
    case RegFile::SCC: base = kScc, size = 1; break;
    case RegFile::M0: base = kM0, size = 1; break;
    case RegFile::FlatScratch: base = kFlatScratch, size = 2; break;
    case RegFile::XnackMask: base = kXnack, size = 2; break;
    case RegFile::TTMP: base = kTtmp, size = 16; break;
    case RegFile::Mode: base = kMode, size = 1; break;
    case RegFile::Other: return false;
  }
  if (r.first + r.count > size) return false;
  for (unsigned k = 0; k < r.count; ++k) u.set(base + r.first + k);
  return true;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// ---- Memory counters (gfx9) -----------------------------------------------------------------------
// vmcnt counts every vector-memory instruction (buffer, global, scratch, flat); lgkmcnt counts
// LDS/GDS (ds_*), scalar memory (s_load/s_store/...) and flat (which may reach LDS). Source: the
// CDNA3 ISA guide, section 4.4 "Data Dependency Resolution" (s_waitcnt counters), and LLVM
// SIInsertWaitcnts.cpp (which events each counter tracks on gfx9).
bool counts_vm(const Instruction& i) { return check::is_vmem(i); }
bool counts_lgkm(const Instruction& i) { return check::is_smem(i) || check::is_ds(i) || check::is_flat(i); }
bool is_memory(const Instruction& i) { return counts_vm(i) || counts_lgkm(i); }
bool is_load(const Instruction& i) { return is_memory(i) && i.may_load && !i.may_store; }

// Mnemonics with effects the dependence graph does not model.
bool unmodeled(const Instruction& i) {
  static constexpr std::string_view kFixed[] = {
      "s_getpc", "s_setpc", "s_swappc", "s_call", "s_getreg", "s_setreg", "s_memtime", "s_memrealtime",
      "s_dcache", "s_icache", "s_set_gpr_idx", "s_sendmsg", "s_trap", "s_ttrace", "s_rfe", "s_atc_probe",
      "s_cbranch", "s_branch", "s_endpgm", "s_barrier", "s_nop", "s_sleep", "s_setprio", "s_sethalt",
      "s_setkill", "s_wakeup", "s_incperflevel", "s_decperflevel", "s_denorm_mode", "s_round_mode",
      "buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "s_scratch_"};
  for (auto p : kFixed)
    if (starts_with(i.mnemonic, p)) return true;
  return false;
}

// Latencies in cycles, all from the timing model's per-arch table (timing/hw_params.h, sources
// there). A pass of an MFMA is 4 cycles: the AMD Matrix Instruction Calculator (S5) lists every
// MFMA's cycles as 4 × its passes (e.g. v_mfma_f32_32x32x8f16: 16 passes, 64 cycles).
constexpr unsigned kCyclesPerMfmaPass = 4;

struct Node {
  size_t line = 0;
  const Instruction* inst = nullptr;
  Units defs, uses;
  bool vm = false, lgkm = false, memory = false, load = false, store = false, smem = false, mfma = false;
  std::optional<check::Wait> wait;
  bool waits_vm = false, waits_lgkm = false;
  unsigned latency = 0;      // cycles until a reader of its defs may issue
  unsigned pipe_cycles = 0;  // MFMA: cycles the matrix pipe stays busy
  struct Edge {
    size_t node;
    unsigned latency;  // 0: order only
    unsigned gap = 0;  // instructions wanted between the two (manual wait states, see hazard_gap)
  };
  std::vector<Edge> preds;
  std::vector<Edge> succs;
  double priority = 0;  // latency-weighted path length to the end of the region
};

struct Context {
  const program::Program& p;
  codeobj::Arch arch;
  const timing::HwParams& hw;
  check::CounterLimits limits;
  Units written_by_vm, written_by_lgkm;  // registers any memory operation of .text writes
};

bool movable(const Context& c, const Line& l) {
  if (l.kind != Line::Instr || !l.inst) return false;
  const Instruction& i = *l.inst;
  if (i.is_branch || i.is_terminator || i.is_call || i.is_return || i.no_fallthrough) return false;
  switch (i.cls) {
    case InstClass::Branch:
    case InstClass::Barrier:
    case InstClass::Message:
    case InstClass::Nop:
    case InstClass::Other:
    case InstClass::VMEMCache: return false;
    case InstClass::Waitcnt: {
      auto w = check::decode_waitcnt(i, c.arch);
      // expcnt (exports, GDS) is not modelled.
      return w && w->count[check::kExpCnt] >= c.limits.max[check::kExpCnt];
    }
    default: break;
  }
  if (unmodeled(i) || check::is_gds(i) || check::is_lds_dma(i)) return false;
  for (const auto& op : i.operands)
    if (op.kind == program::Operand::Expr) return false;  // PC-relative or symbolic: address-dependent
  Units known;
  for (const auto* list : {&i.defs, &i.uses})
    for (const auto& r : *list)
      if (r.count && !add_units(known, r)) return false;
  return true;
}

Node make_node(const Context& c, size_t line) {
  Node n;
  n.line = line;
  n.inst = &*c.p.text_line(line).inst;
  const Instruction& i = *n.inst;
  for (const auto& r : i.defs)
    if (r.count) add_units(n.defs, r);
  for (const auto& r : i.uses)
    if (r.count) add_units(n.uses, r);
  n.vm = counts_vm(i);
  n.lgkm = counts_lgkm(i);
  n.memory = n.vm || n.lgkm;
  n.load = is_load(i);
  n.store = n.memory && i.may_store;
  n.smem = check::is_smem(i);
  // Vector instructions read EXEC whether or not the decoder lists it (conservative: a missing
  // implicit use would let an exec write pass them).
  if (check::is_valu(i) || n.vm || check::is_ds(i)) n.uses.set(kExec), n.uses.set(kExec + 1);
  if (i.cls == InstClass::Waitcnt) {
    n.wait = check::decode_waitcnt(i, c.arch);
    n.waits_vm = n.wait->count[check::kVmCnt] < c.limits.max[check::kVmCnt];
    n.waits_lgkm = n.wait->count[check::kLgkmCnt] < c.limits.max[check::kLgkmCnt];
  }
  const auto& hw = c.hw;
  if (n.wait) n.latency = 0;
  else if (n.vm) n.latency = hw.lat_l2 + (n.load || !i.may_load ? 0 : hw.lat_atomic_extra);  // S10 L2 hit
  else if (n.smem) n.latency = hw.lat_scache;
  else if (check::is_ds(i)) n.latency = hw.lat_lds;
  else if (auto m = check::mfma_info(i, c.arch)) {
    n.mfma = true;
    n.latency = n.pipe_cycles = kCyclesPerMfmaPass * static_cast<unsigned>(std::max(m->passes, 1));
  } else if (check::is_trans(i)) n.latency = hw.trans_cycles;
  else if (check::is_valu(i)) n.latency = hw.valu_cycles;
  else n.latency = hw.salu_cycles;
  return n;
}

// Must b (later in program order) stay after a (earlier)? Returns the edge latency, or nullopt.
std::optional<unsigned> dependence(const Context& c, const Node& a, const Node& b, bool fixed_waits) {
  std::optional<unsigned> lat;
  auto need = [&](unsigned l) { lat = std::max(lat.value_or(0), l); };
  if ((a.defs & b.uses).any()) need(a.latency);              // RAW
  if ((a.uses & b.defs).any() || (a.defs & b.defs).any()) need(0);  // WAR, WAW
  // Memory: one counter's operations stay in issue order (what a wait covers is "all but the last
  // N issued"; it also keeps every pair of accesses to one address space in order: vector memory,
  // LDS, and flat, which counts in both). Scalar and vector memory both reach global memory, so
  // they are ordered when either writes. LDS (ds_*) and vector memory are independent.
  if ((a.vm && b.vm) || (a.lgkm && b.lgkm)) need(0);
  if (((a.smem && b.vm) || (a.vm && b.smem)) && (a.store || b.store)) need(0);
  for (auto [w, o] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    if (!w->wait) continue;
    if (fixed_waits || o->wait) {
      need(0);
      continue;
    }
    // A wait keeps its place relative to the operations of its counters and to every instruction
    // that touches a register such an operation writes (anywhere: loads of earlier blocks may still
    // be in flight).
    Units touched;
    if (w->waits_vm) touched |= c.written_by_vm;
    if (w->waits_lgkm) touched |= c.written_by_lgkm;
    if ((w->waits_vm && o->vm) || (w->waits_lgkm && o->lgkm) || ((o->defs | o->uses) & touched).any()) need(0);
  }
  return lat;
}

// Instructions the hardware wants between producer a and a reader b of what it writes when the
// pair forms a software-managed hazard (check/hazard_rules.cpp has the exact rules and sources:
// LLVM GCNHazardRecognizer). A heuristic, rounded up to cover the rule family on every gfx9 arch:
// the scheduler prefers orders that keep these gaps so that the static check, which has the final
// word, rejects fewer of them.
unsigned hazard_gap(const Node& a, const Node& b) {
  const Instruction& p = *a.inst;
  const Instruction& q = *b.inst;
  if (!check::is_valu(p)) return 0;
  const Units raw = a.defs & b.uses;
  static const Units scalar = [] {
    Units u;
    for (size_t k = kSgpr; k < kSgpr + 128; ++k) u.set(k);
    for (size_t k : {kVcc, kVcc + 1, kExec, kExec + 1, kM0}) u.set(k);
    return u;
  }();
  static const Units vector = [] {
    Units u;
    for (size_t k = kVgpr; k < kAgpr + 256; ++k) u.set(k);
    return u;
  }();
  unsigned gap = 0;
  if ((raw & scalar).any()) gap = std::max(gap, b.vm ? 5u : check::is_valu(q) ? 4u : 0u);  // valu-sgpr-vmem 5, lane select 4, valu-sgpr-valu 2
  if ((raw & vector).any()) {
    if (a.mfma) gap = std::max(gap, static_cast<unsigned>(a.pipe_cycles / kCyclesPerMfmaPass) + 3);  // mfma-read: P+3 (gfx90a 5/11/19)
    else if (b.mfma || check::is_dpp(q)) gap = std::max(gap, 2u);  // valu-vgpr-mfma, dpp-vgpr
    if (check::readlane_source(q) || check::is_trans(p)) gap = std::max(gap, 1u);  // valu-vgpr-readlane, trans-forwarding
  }
  return gap;
}

struct Region {
  size_t first = 0, last = 0;
};

std::vector<Region> regions_of(const Context& c, const program::Function& f, size_t first, size_t last) {
  std::set<size_t> block_starts;
  for (const auto& b : f.blocks) block_starts.insert(b.first);
  std::vector<Region> out;
  std::optional<Region> cur;
  auto close = [&] {
    if (cur && cur->last > cur->first) out.push_back(*cur);
    cur.reset();
  };
  for (size_t i = first; i <= last; ++i) {
    const Line& l = c.p.text_line(i);
    if (block_starts.count(i)) close();
    if (!movable(c, l)) {
      close();
      continue;
    }
    if (!cur) cur = Region{i, i};
    cur->last = i;
  }
  close();
  return out;
}

// Issue times of a region's nodes, one wave alone: a node issues when the previous one has used its
// issue slot (hw.issue_period: S10, one instruction per wave per slot), its inputs are ready (RAW
// edge latencies; a wait's edges carry the latency of the operations it must see complete) and the
// matrix pipe is free (MFMA). A vector-memory op completes hw.ta_cycles after the texture addresser
// takes it, behind the ones before it, plus its latency. `span` is the last completion in the region.
struct Sim {
  const Context& c;
  const std::vector<Node>& nodes;
  std::vector<double> issue, queued;  // queued: cycles a vector-memory op waited for the addresser
  std::vector<bool> done;
  double t = 0, mfma_free = 0, ta_free = 0, span = 0;
  Sim(const Context& c, const std::vector<Node>& n)
      : c(c), nodes(n), issue(n.size(), 0), queued(n.size(), 0), done(n.size(), false) {}
  bool available(size_t k) const {
    if (done[k]) return false;
    for (const auto& e : nodes[k].preds)
      if (!done[e.node]) return false;
    return true;
  }
  double earliest(size_t k) const {
    double e = t;
    for (const auto& p : nodes[k].preds) e = std::max(e, issue[p.node] + p.latency + (p.latency ? queued[p.node] : 0));
    if (nodes[k].mfma) e = std::max(e, mfma_free);
    return e;
  }
  void commit(size_t k) {
    double at = earliest(k);
    issue[k] = at;
    done[k] = true;
    t = at + c.hw.issue_period;
    if (nodes[k].mfma) mfma_free = at + nodes[k].pipe_cycles;
    if (nodes[k].vm) {
      // The addresser is a queue: issue does not wait for it, completion does (as timing/model.cpp).
      double start = std::max(at, ta_free);
      ta_free = start + c.hw.ta_cycles;
      queued[k] = ta_free - at;
    }
    span = std::max(span, at + queued[k] + std::max<double>(nodes[k].latency, c.hw.issue_period));
  }
};

double span_of(const Context& c, const std::vector<Node>& nodes, const std::vector<size_t>& order) {
  Sim s(c, nodes);
  for (size_t k : order) s.commit(k);
  return s.span;
}

std::vector<size_t> list_schedule(const Context& c, const std::vector<Node>& nodes, ScheduleVariant variant) {
  const bool loads_only = variant == ScheduleVariant::LoadsOnly || variant == ScheduleVariant::LoadsFixedWaits;
  const bool interleave = variant == ScheduleVariant::Interleave;
  bool want_memory = true;  // interleave: the kind to place next
  Sim s(c, nodes);
  std::vector<size_t> order, pos(nodes.size(), 0);
  // Placing k next keeps the hazard gaps to its producers.
  auto gaps_kept = [&](size_t k) {
    for (const auto& e : nodes[k].preds)
      if (e.gap && order.size() - pos[e.node] - 1 < e.gap) return false;
    return true;
  };
  while (order.size() < nodes.size()) {
    std::optional<size_t> pick;
    // Candidates that keep the gaps first; when none does, any (the static check decides).
    for (bool need_gaps : {true, false}) {
      if (pick) break;
      auto candidate = [&](size_t k) { return s.available(k) && (!need_gaps || gaps_kept(k)); };
      if (interleave) {
        // The wanted kind first (program order within it), else the earliest non-MFMA (address
        // arithmetic that makes the next memory op ready), else anything.
        for (size_t k = 0; k < nodes.size() && !pick; ++k)
          if (candidate(k) && (want_memory ? nodes[k].memory : nodes[k].mfma)) pick = k;
        for (size_t k = 0; k < nodes.size() && !pick; ++k)
          if (candidate(k) && !nodes[k].mfma && !nodes[k].memory) pick = k;
        for (size_t k = 0; k < nodes.size() && !pick; ++k)
          if (candidate(k)) pick = k;
        if (pick && (nodes[*pick].memory || nodes[*pick].mfma)) want_memory = nodes[*pick].mfma;
      } else if (loads_only) {
        // Program order, except that a load whose inputs are issued goes first.
        for (size_t k = 0; k < nodes.size() && !pick; ++k)
          if (candidate(k) && nodes[k].load) pick = k;
        for (size_t k = 0; k < nodes.size() && !pick; ++k)
          if (candidate(k)) pick = k;
      } else {
        // Of the nodes that can issue soonest (now, or else at the earliest time any can), the one
        // with the longest latency-weighted path to the end; ties keep program order.
        double soonest = std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < nodes.size(); ++k)
          if (candidate(k)) soonest = std::min(soonest, s.earliest(k));
        for (size_t k = 0; k < nodes.size(); ++k) {
          if (!candidate(k) || s.earliest(k) > std::max(soonest, s.t)) continue;
          if (!pick || nodes[k].priority > nodes[*pick].priority) pick = k;
        }
      }
    }
    if (!pick) throw Error("reschedule: the dependence graph has a cycle", "", "", kExitInternal);
    pos[*pick] = order.size();
    order.push_back(*pick);
    s.commit(*pick);
  }
  return order;
}

RegionSchedule schedule_region(const Context& c, const Region& r, ScheduleVariant variant) {
  std::vector<Node> nodes;
  for (size_t i = r.first; i <= r.last; ++i) nodes.push_back(make_node(c, i));
  const bool fixed_waits = variant == ScheduleVariant::FullFixedWaits || variant == ScheduleVariant::LoadsFixedWaits ||
                           variant == ScheduleVariant::Interleave;
  // Which earlier operations each wait must see complete: of its counter's operations in this
  // region, all but the last N (the ones before the region are unknown and count as complete).
  std::vector<std::set<size_t>> must_complete(nodes.size());
  for (size_t w = 0; w < nodes.size(); ++w) {
    if (!nodes[w].wait) continue;
    for (auto [waits, counter] : {std::pair{nodes[w].waits_vm, check::kVmCnt}, std::pair{nodes[w].waits_lgkm, check::kLgkmCnt}}) {
      if (!waits) continue;
      std::vector<size_t> ops;
      for (size_t k = 0; k < w; ++k)
        if (counter == check::kVmCnt ? nodes[k].vm : nodes[k].lgkm) ops.push_back(k);
      size_t allowed = nodes[w].wait->count[counter];
      for (size_t j = 0; j + allowed < ops.size(); ++j) must_complete[w].insert(ops[j]);
    }
  }
  for (size_t b = 0; b < nodes.size(); ++b)
    for (size_t a = 0; a < b; ++a) {
      auto lat = dependence(c, nodes[a], nodes[b], fixed_waits);
      if (must_complete[b].count(a)) lat = std::max(lat.value_or(0), nodes[a].latency);
      if (!lat) continue;
      // A hazard gap also costs time: the wait states are issue slots.
      unsigned gap = hazard_gap(nodes[a], nodes[b]);
      if (gap) lat = std::max(*lat, (gap + 1) * c.hw.issue_period);
      nodes[b].preds.push_back({a, *lat, gap});
      nodes[a].succs.push_back({b, *lat, gap});
    }
  for (size_t k = nodes.size(); k-- > 0;) {
    double p = nodes[k].latency;
    for (const auto& e : nodes[k].succs) p = std::max(p, e.latency + nodes[e.node].priority);
    nodes[k].priority = p;
  }
  std::vector<size_t> identity(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) identity[k] = k;
  std::vector<size_t> order = list_schedule(c, nodes, variant);
  // Every edge kept (the scheduler's own invariant; a failure here is a bug).
  std::vector<size_t> pos(nodes.size());
  for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = k;
  for (size_t b = 0; b < nodes.size(); ++b)
    for (const auto& e : nodes[b].preds)
      if (pos[e.node] > pos[b]) throw Error("reschedule: a schedule broke a dependence", "", "", kExitInternal);

  RegionSchedule rs;
  rs.variant = variant;
  rs.cycles_before = span_of(c, nodes, identity);
  rs.cycles_after = span_of(c, nodes, order);
  // Only an order the estimate calls faster is proposed (interleaving: the timing model decides).
  if (rs.cycles_after >= rs.cycles_before && variant != ScheduleVariant::Interleave) {
    order = identity;
    rs.cycles_after = rs.cycles_before;
  }
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] != k) ++rs.moved;
    if (nodes[order[k]].load && order[k] > k) {
      ++rs.loads_hoisted;
      rs.max_hoist = std::max(rs.max_hoist, order[k] - k);
    }
  }
  // Trim to the lines that changed.
  size_t lo = 0, hi = order.size();
  while (lo < hi && order[lo] == lo) ++lo;
  while (hi > lo && order[hi - 1] == hi - 1) --hi;
  if (lo == hi) lo = 0, hi = order.size();
  rs.first = r.first + lo;
  rs.last = r.first + hi - 1;
  for (size_t k = lo; k < hi; ++k) rs.order.push_back(r.first + order[k]);
  return rs;
}

Context make_context(const program::Program& p) {
  const codeobj::Arch arch = p.original().target().arch;
  Context c{p, arch, timing::hw_params(arch), check::counter_limits(arch), {}, {}};
  for (size_t i = 0; i < p.text_line_count(); ++i) {
    const Line& l = p.text_line(i);
    if (!l.inst) continue;
    if (!is_memory(*l.inst)) continue;
    Units d;
    for (const auto& r : l.inst->defs)
      if (r.count) add_units(d, r);
    if (counts_vm(*l.inst)) c.written_by_vm |= d;
    if (counts_lgkm(*l.inst)) c.written_by_lgkm |= d;
  }
  return c;
}

program::Program applied(const program::Program& p, const std::vector<const RegionSchedule*>& regions) {
  program::Program copy = p;
  for (const RegionSchedule* r : regions) copy.replace(r->first, r->last, r->lines(p));
  return copy;
}

}  // namespace

std::string RegionSchedule::description() const {
  std::string s = fmt::format("lines {}-{} rescheduled ({}): {} instructions moved", first, last, variant_name(variant), moved);
  if (loads_hoisted) s += fmt::format(", {} load{} hoisted by up to {}", loads_hoisted, loads_hoisted == 1 ? "" : "s", max_hoist);
  s += fmt::format("; estimated {:.0f} -> {:.0f} cycles", cycles_before, cycles_after);
  return s;
}

std::vector<std::string> RegionSchedule::lines(const program::Program& p) const {
  std::vector<std::string> out;
  for (size_t l : order) out.push_back(p.text_line(l).text);
  return out;
}

std::vector<RegionSchedule> plan_schedules(const program::Program& p, const std::string& kernel, size_t first,
                                           size_t last, ScheduleVariant variant) {
  const program::Function& f = kernel_function(p, kernel);
  if (first > last || first < f.begin || last >= f.end)
    throw Error(fmt::format("window [{}, {}] is not inside kernel {} (lines {}-{})", first, last, kernel, f.begin, f.end - 1),
                p.original().elf().name());
  Context c = make_context(p);
  std::vector<RegionSchedule> out;
  for (const Region& r : regions_of(c, f, first, last)) out.push_back(schedule_region(c, r, variant));
  return out;
}

Rescheduling reschedule(const program::Program& p, const std::string& kernel,
                        std::optional<std::pair<size_t, size_t>> window) {
  const program::Function& f = kernel_function(p, kernel);
  const size_t first = window ? window->first : f.begin, last = window ? window->second : f.end - 1;
  Rescheduling r{p, {}, 0};
  static constexpr ScheduleVariant kVariants[] = {ScheduleVariant::Full, ScheduleVariant::LoadsOnly,
                                                  ScheduleVariant::FullFixedWaits, ScheduleVariant::LoadsFixedWaits};
  std::vector<std::vector<RegionSchedule>> plans;
  for (ScheduleVariant v : kVariants) plans.push_back(plan_schedules(p, kernel, first, last, v));
  std::vector<const RegionSchedule*> full;
  for (const auto& rs : plans[0])
    if (rs.changed()) full.push_back(&rs);
  bool any = false;
  for (const auto& plan : plans)
    for (const auto& rs : plan) any |= rs.changed();
  if (!any) return r;
  ++r.probes;
  if (!rebuilds_clean(p, kernel))
    throw Error("kernel " + kernel + " already has static findings; rescheduling needs a clean kernel", p.original().elf().name(),
                "run asmevo check on it");
  // Everything at its most aggressive first; when the checker objects (a hazard's wait states), region
  // by region, each with the first variant that keeps the kernel clean on top of those already kept.
  // Regions the full schedule leaves alone still try the milder variants.
  std::vector<const RegionSchedule*> kept;
  std::vector<bool> settled(plans[0].size(), false);
  if (!full.empty()) {
    ++r.probes;
    if (rebuilds_clean(applied(p, full), kernel)) {
      kept = full;
      for (size_t i = 0; i < plans[0].size(); ++i) settled[i] = plans[0][i].changed();
    }
  }
  for (size_t i = 0; i < plans[0].size(); ++i) {
    if (settled[i]) continue;
    std::set<std::vector<size_t>> tried;
    for (const auto& plan : plans) {
      const RegionSchedule& rs = plan[i];
      if (!rs.changed() || !tried.insert(rs.order).second) continue;
      auto trial = kept;
      trial.push_back(&rs);
      ++r.probes;
      if (rebuilds_clean(applied(p, trial), kernel)) {
        kept = std::move(trial);
        break;
      }
    }
  }
  std::sort(kept.begin(), kept.end(), [](const RegionSchedule* a, const RegionSchedule* b) { return a->first < b->first; });
  r.program = applied(p, kept);
  for (const RegionSchedule* rs : kept) r.regions.push_back(*rs);
  r.program.touch(kernel);
  r.program.update_resources();
  return r;
}

}  // namespace asmevo::search

namespace asmevo::search {
namespace {

class RescheduleMove final : public Move {
 public:
  std::string name() const override { return "reschedule"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    Rescheduling r = reschedule(c.program, c.kernel, std::pair{c.window.first, c.window.last});
    std::vector<Edit> edits;
    auto edit = [&](std::string description) {
      Edit e;
      e.kernel = c.kernel;
      e.move = name();
      e.proposer = proposer();
      e.description = std::move(description);
      return e;
    };
    if (r.regions.size() > 1) {
      size_t moved = 0, loads = 0;
      for (const auto& rs : r.regions) moved += rs.moved, loads += rs.loads_hoisted;
      Edit e = edit(fmt::format("{} regions rescheduled: {} instructions moved, {} loads hoisted", r.regions.size(), moved, loads));
      for (const auto& rs : r.regions) e.hunks.push_back(make_hunk(c.program, rs.first, rs.last, rs.lines(c.program)));
      edits.push_back(std::move(e));
    }
    for (const auto& rs : r.regions) {
      if (edits.size() >= c.max_edits) break;
      Edit e = edit(rs.description());
      e.hunks.push_back(make_hunk(c.program, rs.first, rs.last, rs.lines(c.program)));
      edits.push_back(std::move(e));
    }
    return edits;
  }
};

}  // namespace

std::unique_ptr<Move> make_reschedule_move() { return std::make_unique<RescheduleMove>(); }

}  // namespace asmevo::search
