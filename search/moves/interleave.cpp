// Move: MFMA/memory interleaving in loop bodies — the effect of LLVM's sched_group_barrier /
// iglp_opt. Compilers often cluster a tile's global and LDS loads, then its MFMAs; while the
// cluster of loads issues, the matrix core idles, and while the MFMAs run, the memory pipes do.
// In each region (reschedule.h) of a loop body of the window, the region is list-scheduled with
// ScheduleVariant::Interleave: a memory operation first (the next tile's loads early), then one
// MFMA, one memory operation, ... as the dependence graph allows, waits in place; proposed when
// the part that moved holds an MFMA and a memory operation. Measured on hardware +6 … +22 % on
// GEMMs and −16 % on another layout (ROCm/composable_kernel #515; notes/mi300x-measured.md F): the timing model
// decides, so the move proposes the order whether or not the scheduler's own estimate likes it.
// Why every launch: the order is a permutation of the region that keeps every edge of
// reschedule's dependence graph (registers incl. implicit exec/vcc/scc/m0/mode, the issue order of
// each counter's memory operations, every wait's place), so each instruction reads what it read
// and memory sees the same accesses in the same order per counter; hazard wait states are the
// static checker's (the edit is rebuilt and checked before it is proposed).
#include <fmt/format.h>

#include "check/isa.h"
#include "search/moves/loops.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/reschedule.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

class InterleaveMove final : public Move {
 public:
  std::string name() const override { return "interleave"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f) return {};
    const codeobj::Arch arch = p.original().target().arch;
    const std::vector<bool> in_loop = loop_blocks(*f);
    auto loop_line = [&](size_t line) {
      for (size_t b = 0; b < f->blocks.size(); ++b)
        if (f->blocks[b].first <= line && line <= f->blocks[b].last) return static_cast<bool>(in_loop[b]);
      return false;
    };
    std::vector<Edit> out;
    std::vector<RegionSchedule> plans;
    try {
      plans = plan_schedules(p, c.kernel, c.window.first, c.window.last, ScheduleVariant::Interleave);
    } catch (const Error&) {
      return {};
    }
    for (const RegionSchedule& rs : plans) {
      if (out.size() >= c.max_edits) break;
      if (!rs.changed() || !loop_line(rs.first)) continue;
      size_t mfmas = 0, memory = 0;
      for (size_t line : rs.order) {
        const program::Line& l = p.text_line(line);
        if (!l.inst) continue;
        if (check::mfma_info(*l.inst, arch)) ++mfmas;
        else if (check::is_vmem(*l.inst) || check::is_ds(*l.inst) || check::is_flat(*l.inst)) ++memory;
      }
      if (mfmas < 1 || memory < 1) continue;  // nothing to interleave in the part that moved
      Edit e;
      e.kernel = c.kernel;
      e.move = name();
      e.proposer = proposer();
      e.hunks.push_back(make_hunk(p, rs.first, rs.last, rs.lines(p)));
      try {
        if (!rebuilds_clean(apply_edit(p, e), c.kernel)) continue;  // a hazard's wait states: the checker objects
      } catch (const Error&) {
        continue;
      }
      e.description = fmt::format("lines {}-{}: {} MFMAs and {} memory operations interleaved ({} instructions moved)", rs.first, rs.last, mfmas,
                                  memory, rs.moved);
      out.push_back(std::move(e));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_interleave_move() { return std::make_unique<InterleaveMove>(); }

}  // namespace asmevo::search
