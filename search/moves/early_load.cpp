// Move: early load. The global loads that follow an s_barrier (with the VALU/SALU lines that compute
// their addresses and masks) move up across the barrier, the s_waitcnt before it and whatever
// else they commute with, so that their latency overlaps the barrier's wait instead of following
// it. Triton's norms (rmsnorm, layernorm, fused_add_rmsnorm) load the weight (gamma/beta) only after
// the reduction's last barrier; load-hoist (load_hoist.cpp) moves loads up to a barrier, never
// across one.
//
// The edit. For a barrier B and the global loads L1..Lk after it in its block (up to the first
// other vector-memory operation, barrier or branch), the moved set H starts as {L1..Lk}; the lines
// above Lk are visited upwards: a line that shares a register with a line of H (one writes what the
// other reads or writes) joins H when it is plain VALU/SALU arithmetic (motion.h pure_compute) and
// ends the walk otherwise; a line that shares none is crossed if the rules below allow it, and ends
// the walk if not. H is placed, in its own order, before the topmost line crossed (t); the lines
// crossed keep their order after it. Proposed only when B is crossed; with fewer loads (the last ones
// left in place) when all of them cannot cross it.
//
// Why every launch. The new order of lines [t, Lk] is a permutation that keeps H's order and the
// others' (R) order; the only pairs whose order changes are (r, h) with r in R before h in H, and each
// such pair commutes:
//   * Registers: r and h are register-independent (motion.h: neither writes what the other reads or
//     writes, implicit EXEC/VCC/SCC/M0 included), so each computes from the same values and every
//     register ends with the same last writer. A load's destination is written when the data returns,
//     at some point before the vmcnt wait that releases it: no crossed line reads or writes it, so
//     none sees the difference, and lanes EXEC leaves alone keep their old values exactly as before.
//   * What r may be: VALU/SALU/MFMA arithmetic (no hardware state, PC or branch), s_nop, s_setprio
//     (no effect on values: GFX9 ISA), an LDS (DS) instruction (not GWS/GDS: LDS and global memory do
//     not alias, and FLAT instructions, whose address may be either, are never crossed), an s_waitcnt
//     or an s_barrier. Never a vector/scalar memory instruction, message or branch: vector-memory
//     operations keep their issue order, so vmcnt (an in-order count) covers the same operations at
//     every wait after Lk.
//   * An s_waitcnt r crossed by k' loads of H (those after it) waits for vmcnt N+k' instead of N: the
//     k' loads are the newest outstanding ones there, so N+k' outstanding still means every operation
//     older than the N newest of the original is done. Refused above the 6-bit maximum and for a wait
//     on expcnt (it protects store data registers, which the load count does not describe). A wait
//     crossed by h no longer guards h's inputs: refused unless each asynchronous write (an SMEM, LDS,
//     buffer/global/flat load) that may reach a register h reads or writes (program/reaching.h, every
//     write on every path, none hiding another) is complete at t: a wait in t's block before t, after
//     that write when it lies in the block, that waits for its counter (lgkmcnt, vmcnt, both for FLAT)
//     to reach 0.
//   * An s_barrier r: h is a global load, which the barrier orders only against the global stores
//     (and atomics) the workgroup's waves make before it. Aliasing is not decided from the pointers
//     (two kernel arguments may name the same buffer in some launch): the move requires that no
//     instruction that writes global memory (buffer/global/flat store or atomic, scalar store; not
//     scratch, which is private to the lane) can run in any wave before B other than behind an
//     earlier barrier B0 of B's block that stays above t, with no vmcnt wait between B0 and B (so B0
//     orders those stores before the load exactly as B did: everything a wave does between B0 and B
//     is free of global stores and of waits that would complete earlier ones). The walk goes up from
//     B through the block and, past its first line, through every block that can reach it (loops
//     included); barriers of other blocks shield nothing. Kernels with calls are refused (a callee may
//     store). Across workgroups and dispatches a barrier orders nothing.
// Hazard wait states are the static checker's: the edit is rebuilt and checked (plain, then with s_nop
// after moved VALU lines that write SGPRs or VCC) before it is proposed.
// Refused (no edit): no barrier with global loads after it in the block, an address slice that needs
// a memory result or hardware state, a crossing any rule above forbids before B is crossed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "check/isa.h"
#include "program/reaching.h"
#include "search/moves/motion.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::InstClass;

// Writes global memory (seen by the other waves of the workgroup).
bool global_store(const program::Instruction& in) {
  if (in.cls == InstClass::DS || in.cls == InstClass::SCRATCH) return false;
  return in.may_store || in.cls == InstClass::VMEMStore || in.cls == InstClass::VMEMAtomic;
}

bool vector_memory(const program::Instruction& in) {
  switch (in.cls) {
    case InstClass::VMEMLoad: case InstClass::VMEMStore: case InstClass::VMEMAtomic: case InstClass::VMEMCache:
    case InstClass::FLAT: case InstClass::GLOBAL: case InstClass::SCRATCH: return true;
    default: return false;
  }
}

// The counters whose wait makes an asynchronous register write complete (none: not asynchronous).
std::vector<check::Counter> async_counters(const program::Instruction& in) {
  if (!in.may_load && in.cls != InstClass::DS) return {};
  switch (in.cls) {
    case InstClass::SMEM: case InstClass::DS: return {check::kLgkmCnt};
    case InstClass::VMEMLoad: case InstClass::VMEMAtomic: case InstClass::GLOBAL: case InstClass::SCRATCH: return {check::kVmCnt};
    case InstClass::FLAT: return {check::kVmCnt, check::kLgkmCnt};
    default: return {};
  }
}

struct Plan {
  std::vector<size_t> moved;                 // H, sorted
  size_t top = 0, last = 0;                  // the permuted lines [top, last]
  std::map<size_t, std::string> waits;       // crossed waits, rewritten
  size_t loads = 0, barriers = 0, crossed_waits = 0;
};

class Planner {
 public:
  Planner(const program::Program& p, const program::Function& f)
      : p_(p), f_(f), arch_(p.original().target().arch), limits_(check::counter_limits(arch_)) {}

  // The plan for the barrier at `barrier` in block `b`, if the loads after it can cross it.
  std::optional<Plan> plan(size_t b, size_t barrier) {
    const program::BasicBlock& blk = f_.blocks[b];
    std::vector<size_t> loads;
    for (size_t j = barrier + 1; j <= blk.last; ++j) {
      const program::Line& l = p_.text_line(j);
      if (!l.inst) return std::nullopt;
      const program::Instruction& in = *l.inst;
      if (global_vector_load(in)) loads.push_back(j);
      else if (vector_memory(in) || in.cls == InstClass::Barrier || in.is_branch || in.cls == InstClass::Message) break;
    }
    // The most loads (in issue order) that still cross the barrier.
    for (size_t k = loads.size(); k > 0; --k) {
      std::optional<Plan> pl = walk(blk, barrier, std::vector<size_t>(loads.begin(), loads.begin() + k));
      if (pl) return pl;
    }
    return std::nullopt;
  }

 private:
  std::optional<Plan> walk(const program::BasicBlock& blk, size_t barrier, const std::vector<size_t>& seed) {
    std::set<size_t> h(seed.begin(), seed.end());
    std::optional<Plan> best;
    std::map<size_t, std::string> waits;
    size_t barriers = 0, crossed_waits = 0;
    const size_t last = seed.back();
    for (size_t x = last; x-- > blk.first;) {
      if (h.count(x)) continue;
      const program::Line& l = p_.text_line(x);
      if (!l.inst) break;
      const program::Instruction& in = *l.inst;
      const bool shares = std::any_of(h.begin(), h.end(), [&](size_t m) { return !register_independent(in, *p_.text_line(m).inst); });
      if (shares) {
        if (!pure_compute(in) || in.is_branch) break;
        h.insert(x);
        continue;
      }
      // The loads that cross this line: those of the seed below it (a wait between two loads of the
      // seed is crossed only by the later ones).
      const size_t crossing = std::count_if(seed.begin(), seed.end(), [&](size_t j) { return j > x; });
      if (!crossable(blk, x, in, h, crossing, waits)) break;
      barriers += in.cls == InstClass::Barrier;
      crossed_waits += in.cls == InstClass::Waitcnt;
      if (x <= barrier) {
        Plan pl;
        pl.moved.assign(h.begin(), h.end());
        pl.top = x, pl.last = last, pl.waits = waits;
        pl.loads = seed.size(), pl.barriers = barriers, pl.crossed_waits = crossed_waits;
        best = std::move(pl);
      }
    }
    return best;
  }

  bool crossable(const program::BasicBlock& blk, size_t x, const program::Instruction& in, const std::set<size_t>& h,
                 size_t loads, std::map<size_t, std::string>& waits) {
    switch (in.cls) {
      case InstClass::DS: return in.mnemonic.find("gws") == std::string::npos && in.text.find(" gds") == std::string::npos;
      case InstClass::SALU: return !state_or_pc(in) && !in.is_branch;
      case InstClass::VALU: case InstClass::VOP3P: case InstClass::MFMA: case InstClass::Nop: return !in.is_branch;
      case InstClass::Other: return in.mnemonic == "s_setprio";
      case InstClass::Barrier: return in.mnemonic == "s_barrier" && no_store_before(blk, x);
      case InstClass::Waitcnt: {
        std::optional<check::Wait> w = check::decode_waitcnt(in, arch_);
        if (!w) return false;  // s_waitcnt_vmcnt with an SGPR, ...
        for (int c = 0; c < check::kNumCounters; ++c) w->count[c] = std::min(w->count[c], limits_.max[c]);
        if (w->count[check::kExpCnt] < limits_.max[check::kExpCnt]) return false;
        const bool waits_on_something =
            w->count[check::kVmCnt] < limits_.max[check::kVmCnt] || w->count[check::kLgkmCnt] < limits_.max[check::kLgkmCnt];
        if (!waits_on_something) return true;
        for (size_t m : h)
          if (!inputs_complete(blk, x, m)) return false;
        if (w->count[check::kVmCnt] < limits_.max[check::kVmCnt]) {
          if (w->count[check::kVmCnt] + loads > limits_.max[check::kVmCnt]) return false;
          w->count[check::kVmCnt] += loads;
          waits[x] = check::waitcnt_text(*w, limits_);
        }
        return true;
      }
      default: return false;
    }
  }

  // Whether every asynchronous write that may reach a register line `m` reads or writes is complete
  // at `t`: a wait in t's block before t (after the write, if it lies there) for its counters at 0.
  bool inputs_complete(const program::BasicBlock& blk, size_t t, size_t m) {
    const program::Instruction& in = *p_.text_line(m).inst;
    std::vector<program::RegRange> regs = in.uses;
    regs.insert(regs.end(), in.defs.begin(), in.defs.end());
    for (const program::RegRange& r : regs) {
      if (r.file == program::RegFile::EXEC) continue;  // written only by SALU/VALU (no memory load writes EXEC)
      for (size_t d : program::reaching_definitions(p_, f_, m, r, [](size_t) { return false; })) {
        if (d == program::kEntryValue) continue;
        const program::Line& dl = p_.text_line(d);
        if (!dl.inst) return false;
        const std::vector<check::Counter> counters = async_counters(*dl.inst);
        if (counters.empty()) continue;
        const size_t from = blk.first <= d && d < t ? d + 1 : blk.first;
        if (d >= t && d <= blk.last) return false;
        bool complete = false;
        for (size_t w = from; w < t && !complete; ++w) {
          const program::Line& wl = p_.text_line(w);
          if (!wl.inst) continue;
          std::optional<check::Wait> wait = check::decode_waitcnt(*wl.inst, arch_);
          complete = wait && std::all_of(counters.begin(), counters.end(), [&](check::Counter c) { return wait->count[c] == 0; });
        }
        if (!complete) return false;
      }
    }
    return true;
  }

  // No global store can run in any wave before the barrier at `x` except behind an earlier barrier of
  // the block with no vmcnt wait between it and `x`.
  bool no_store_before(const program::BasicBlock& blk, size_t x) {
    bool vm_wait = false;
    for (size_t y = x; y-- > blk.first;) {
      const program::Line& l = p_.text_line(y);
      if (!l.inst) return false;
      const program::Instruction& in = *l.inst;
      if (global_store(in)) return false;
      if (std::optional<check::Wait> w = check::decode_waitcnt(in, arch_); w && w->count[check::kVmCnt] < limits_.max[check::kVmCnt])
        vm_wait = true;
      if (in.cls == InstClass::Waitcnt && !check::decode_waitcnt(in, arch_)) vm_wait = true;  // a wait it cannot read
      if (in.cls == InstClass::Barrier && !vm_wait) return true;
    }
    // Every block that can reach this one (through its predecessors, transitively, itself included).
    size_t b0 = 0;
    while (&f_.blocks[b0] != &blk) ++b0;
    std::set<size_t> seen;
    std::vector<size_t> todo(f_.blocks[b0].preds.begin(), f_.blocks[b0].preds.end());
    while (!todo.empty()) {
      const size_t b = todo.back();
      todo.pop_back();
      if (!seen.insert(b).second) continue;
      for (size_t i = f_.blocks[b].first; i <= f_.blocks[b].last; ++i) {
        const program::Line& l = p_.text_line(i);
        if (!l.inst || global_store(*l.inst) || l.inst->is_call) return false;
      }
      todo.insert(todo.end(), f_.blocks[b].preds.begin(), f_.blocks[b].preds.end());
    }
    return true;
  }

  const program::Program& p_;
  const program::Function& f_;
  codeobj::Arch arch_;
  check::CounterLimits limits_;
};

class EarlyLoadMove final : public Move {
 public:
  std::string name() const override { return "early-load"; }
  std::string proposer() const override { return "rules"; }

  // Every barrier of the kernel, not only the window's: what the edit saves is the wait that consumes
  // the loads, which lies outside the moved lines (rmsnorm_kernel's hot window is the row load, its
  // weight loads' wait another 13 % further down). Edits whose lines meet the window come first; the
  // optimizer evaluates an edit once per parent however many windows propose it.
  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f || !f->callees.empty()) return {};
    Planner planner(p, *f);
    std::vector<std::pair<bool, Plan>> plans;
    for (size_t b = 0; b < f->blocks.size(); ++b)
      for (size_t x = f->blocks[b].first; x <= f->blocks[b].last; ++x) {
        const program::Line& l = p.text_line(x);
        if (!l.inst || l.inst->cls != InstClass::Barrier) continue;
        if (std::optional<Plan> pl = planner.plan(b, x)) plans.push_back({pl->last >= c.window.first && pl->top <= c.window.last, std::move(*pl)});
      }
    std::stable_sort(plans.begin(), plans.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Edit> out;
    for (const auto& [in_window, pl] : plans) {
      if (out.size() >= c.max_edits) break;
      if (std::optional<Edit> e = edit_of(p, c.kernel, pl)) out.push_back(std::move(*e));
    }
    return out;
  }

 private:
  std::optional<Edit> edit_of(const program::Program& p, const std::string& kernel, const Plan& pl) const {
    for (const unsigned pad : {0u, 1u, 4u}) {
      std::vector<std::string> lines;
      for (size_t i : pl.moved) {
        const program::Instruction& in = *p.text_line(i).inst;
        lines.push_back(in.text);
        const bool sgpr_write = std::any_of(in.defs.begin(), in.defs.end(), [](const program::RegRange& r) {
          return r.file == program::RegFile::SGPR || r.file == program::RegFile::VCC;
        });
        if (pad && in.cls == InstClass::VALU && sgpr_write) lines.push_back(fmt::format("s_nop {}", pad));
      }
      for (size_t i = pl.top; i <= pl.last; ++i) {
        if (std::binary_search(pl.moved.begin(), pl.moved.end(), i)) continue;
        auto w = pl.waits.find(i);
        lines.push_back(w != pl.waits.end() ? w->second : p.text_line(i).inst->text);
      }
      Edit e;
      e.kernel = kernel, e.move = name(), e.proposer = proposer();
      e.hunks.push_back(make_hunk(p, pl.top, pl.last, lines));
      if (!rebuilds_clean(apply_edit(p, e), kernel)) continue;
      e.description = fmt::format("{} global loads (with {} address lines) issued before {} s_barrier and {} s_waitcnt they followed{}",
                                  pl.loads, pl.moved.size() - pl.loads, pl.barriers, pl.crossed_waits,
                                  pad ? fmt::format(", s_nop {} after SGPR-writing VALU lines", pad) : "");
      return e;
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Move> make_early_load_move() { return std::make_unique<EarlyLoadMove>(); }

}  // namespace asmevo::search
