// Move: latency-aware rescheduling (issue 7). Inside a window of a kernel, every maximal run of
// movable instructions of one basic block (a "region") is list-scheduled again: memory loads issue
// as early as their operands allow, independent work fills the time until a load's or an MFMA's
// result is read, and an s_waitcnt sinks below work that does not need what it waits for.
//
// Nothing is renamed: an order is a permutation of the region's own lines, so register pressure
// and encodings do not change. A permutation is legal when it keeps every edge of a dependence
// graph (see reschedule.cpp): register RAW/WAR/WAW including implicit operands (exec, vcc, scc, m0,
// mode); the issue order of memory operations counted by the same counter (vmcnt, lgkmcnt — the
// counters are in-order FIFOs for what an s_waitcnt covers, and this also keeps every pair of
// accesses to one address space in order); scalar loads against vector stores; and, for each
// s_waitcnt, its place relative to the memory operations of the counters it waits on and to every
// instruction touching a register such an operation writes anywhere in the function. Instructions
// with effects the graph cannot model (branches, s_barrier, s_nop, s_setprio, s_sleep, messages,
// s_getpc and PC-relative arithmetic, s_getreg/s_setreg, cache control, GDS, LDS DMA, s_memtime,
// RawInstr lines) are fixed points that end regions.
//
// Manual wait states (hazards) are not edges of the graph: the scheduler only prefers orders that
// keep the usual gaps (VALU writing an SGPR before its VALU/VMEM reader, MFMA results, DPP,
// readlane, TRANS), then each proposal is rebuilt and checked by check::check_code_object, and a
// region whose schedule the checker rejects falls back to milder variants (only loads hoisted;
// s_waitcnt kept in place) or is left alone. A region is only changed when the scheduler's own
// one-wave estimate (issue slots, latencies from timing/hw_params.h) says it got faster.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

enum class ScheduleVariant {
  Full,            // list scheduling by latency-weighted critical path; waits may move
  LoadsOnly,       // only memory loads move (up, as far as the graph allows); waits may move
  FullFixedWaits,  // Full, with every s_waitcnt a barrier
  LoadsFixedWaits, // LoadsOnly, with every s_waitcnt a barrier
  // MFMA/memory interleaving (search/moves/interleave.cpp): alternate MFMAs and memory operations
  // (one memory op after each MFMA, starting with memory), waits in place; proposed whether or
  // not the scheduler's own estimate calls it faster (the timing model decides).
  Interleave,
};
const char* variant_name(ScheduleVariant v);

struct RegionSchedule {
  // .text lines (inclusive) of the part of the region that changed (the whole region when
  // nothing did), and those lines in their new order (original line indices).
  size_t first = 0, last = 0;
  std::vector<size_t> order;
  ScheduleVariant variant = ScheduleVariant::Full;
  size_t loads_hoisted = 0;        // memory loads that now issue earlier
  size_t max_hoist = 0;            // the largest distance (in instructions) a load moved up
  size_t moved = 0;                // lines whose position changed
  double cycles_before = 0, cycles_after = 0;  // the scheduler's own estimate of the region
  bool changed() const { return moved > 0; }
  std::string description() const;
  std::vector<std::string> lines(const program::Program& p) const;  // texts in the new order
};

// The regions of lines [first, last] of `kernel` and a schedule of each under `variant`, unchecked
// (unchanged regions included). Throws asmevo::Error for an unknown kernel or a window outside it.
std::vector<RegionSchedule> plan_schedules(const program::Program& p, const std::string& kernel, size_t first,
                                           size_t last, ScheduleVariant variant);

struct Rescheduling {
  program::Program program;               // every accepted region applied (resources updated)
  std::vector<RegionSchedule> regions;    // accepted, changed regions, in line order
  size_t probes = 0;                      // rebuild + check rounds spent
};

// Plans every region of the window (default: the whole kernel) and keeps, per region, the most
// aggressive variant that leaves the kernel free of static findings: all regions' full schedules
// together first (one probe), then, if the checker objects, region by region with fallbacks. Only
// orders the scheduler's own estimate calls faster are proposed. Throws asmevo::Error for an unknown
// kernel or a window outside it, and, when there is something to reschedule, for a kernel that
// already has static findings.
Rescheduling reschedule(const program::Program& p, const std::string& kernel,
                        std::optional<std::pair<size_t, size_t>> window = std::nullopt);

}  // namespace asmevo::search
