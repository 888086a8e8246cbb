// Move: occupancy renaming (issue 17, "Occupancy"). register-compact moves whole registers into
// holes the kernel never names; this move reallocates VALUES: each live range of a VGPR (a web:
// the defs and uses one value's liveness connects) is renamed on its own into a register that is
// free over that range, so that no VGPR at or above the next occupancy granule's limit is named
// any more, the KD's VGPR count drops a granule and one more wave fits on a SIMD.
// A whole-kernel move: a window only triggers it.
//
// The limit (AMDGPUUsage "AMDGPU kernel descriptor": granulated_workitem_vgpr_count counts the
// unified VGPR+AGPR file of gfx90a/gfx942/gfx950 in granules of 8, accum_offset places the AGPRs
// after the arch VGPRs in units of 4; codeobj/arch_params: 512 registers per lane per SIMD, at
// most 8 waves): for w waves per SIMD by VGPRs now, the unified count must fall to
// floor(512 / (w + 1) / 8) * 8, so the arch VGPRs to at most that minus the AGPRs the kernel
// names, rounded down to 4. The move is proposed only when the KD then allows more waves by
// registers (SGPRs not binding), recomputed from the renamed code (Program::update_resources).
//
// Why the renamed kernel computes the same for every launch:
// - Liveness is Program::live_in's partial-write mode on VGPR units. A write ends a value only when
//   it writes every lane EXEC enables and the whole 32 bits: the kernel must never write EXEC
//   (refused otherwise), so EXEC is the launch's mask everywhere and a full write replaces every
//   lane that is ever read; a write that may keep part of the old value does not end it (the
//   decoder lists such destinations as uses: DPP `old`, v_writelane, d16 loads, SDWA
//   UNUSED_PRESERVE; may_write_part adds the 16-bit results that keep the other half and anything
//   the emulator does not know), so the old value stays in the same web.
// - Webs: the value live into a line joins the value live out of its predecessor through that
//   line unless the line writes it; every register one operand token names (a tuple), and every
//   unit a line both reads and writes, join into one cluster that is renamed by one shift (even
//   when a cluster holds a tuple: gfx90a+ VGPR tuples are 64-bit aligned, SIRegisterInfo.td
//   *_Align2), so each instruction still sees its operands as consecutive registers.
// - A cluster moves only onto (line, register) points no other cluster occupies (live into the
//   line, or written by it): after the move no value is overwritten while another is live in the
//   same register, and each read still reads the value its def wrote. First only the clusters that
//   reach the limit move; when one finds no place, every movable cluster (those below the limit
//   too) is placed afresh, each onto points no cluster placed before it and no staying (fixed)
//   cluster occupies, so the same holds for the whole allocation. A line that reads a register
//   as one value and writes it as another keeps both in one cluster (conservative).
// - Values live at the kernel's entry (v0's work-item IDs) and registers named by raw-byte lines,
//   or whose text spelling differs from the decoded operands, stay where they are.
// - The static checks (waitcnt, hazards, resources) run on the result (rebuilds_clean), which
//   covers the hazards a new register reuse can create (e.g. VMEM store data overwritten early).
//
// When no renaming gets under the limit, AGPR round trips are first removed (agpr_round_trip.h),
// values recomputed at their uses instead of held and vector loads issued later where registers
// free up (rematerialize.h; each with its own argument), then renamed; `round_trips_removed`,
// `rematerialized` and `loads_sunk` say what was done.
//
// Refused (no proposal, with the reason in `refused`): calls and computed jumps, register indexing
// through M0 (s_movrel*, v_movrel*, s_set_gpr_idx_*), edited lines, kernels that write EXEC,
// occupancy not limited by VGPRs or already at the maximum, SGPRs that would still bind, a value
// live at the entry above the limit, and a value that finds no free register below the limit.
#pragma once
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "program/program.h"
#include "search/moves/rematerialize.h"

namespace asmevo::search {

struct OccupancyRenaming {
  program::Program program;  // renamed, resources updated (the parent when nothing is proposed)
  std::vector<size_t> lines;  // .text lines the renaming rewrote (of the parent; after rematerialization, of its result)
  unsigned clusters_moved = 0;
  bool reallocated = false;   // every movable cluster was placed afresh (moving only those above the limit failed)
  unsigned vgpr_limit = 0;      // arch VGPRs allowed for one more wave (0 when not computed)
  unsigned max_live_vgprs = 0;  // the most VGPR units live into any line (a lower bound on any allocation)
  size_t peak_line = 0;         // a .text line they are live into
  unsigned vgprs_before = 0, vgprs_after = 0;  // unified allocation per the KD
  unsigned waves_before = 0, waves_after = 0;  // by registers
  std::vector<RematerializedValue> rematerialized;  // values recomputed at their uses first (rematerialize.h)
  size_t loads_sunk = 0;                            // load groups issued later first (rematerialize.h)
  size_t round_trips_removed = 0;                   // AGPR copy-out/copy-back pairs removed first (agpr_round_trip.h)
  std::string refused;
};

// Whether one more wave per SIMD by VGPRs would pay on a perf launch: with the allocation of the next
// wave (the unified limit above) the device holds more of that launch's workgroups at once
// (codeobj::compute_occupancy with its block and dynamic LDS, as the timing model's
// timing::launch_occupancy, over the model's CUs) and so runs them in fewer dispatch rounds
// (ceil(workgroups / resident)). Where the rounds stay (every workgroup resident already, or the last
// round as long as before) the extra wave only adds latency hiding, which a search may still find in
// registry order. Returns the reason for the first such launch, "" when none (or the processor has no
// resource table). The move then goes first in the search (Move::leads).
std::string occupancy_at_stake(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>& perf_runs);

// Throws asmevo::Error for an unknown kernel or a processor AsmEvo does not model.
OccupancyRenaming rename_for_occupancy(const program::Program& p, const std::string& kernel);

}  // namespace asmevo::search
