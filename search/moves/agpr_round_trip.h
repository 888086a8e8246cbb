// AGPR round trips (issue 17, "Occupancy"): a compiler that runs short of registers at a block's
// end copies accumulators out and back (`v_accvgpr_read_b32 v42, a16` ... `v_accvgpr_write_b32
// a16, v42`; Triton's matmul_128_kernel does it for all 64 AGPRs in its epilogue, while the last
// tile's LDS reads are in flight). The write back is a no-op, and the read then feeds nothing:
// both go, and the VGPRs they held are free there. A stage of occupancy renaming
// (occupancy_rename.h), run before rematerialization.
//
// Which pairs: R `v_accvgpr_read_b32 vX, aY` and, later in the same basic block, W
// `v_accvgpr_write_b32 aY, vX` (plain operands, no modifiers), with no line between them that
// writes vX, aY or EXEC (registers_of: an edited line counts as writing every register it names),
// in a kernel with no calls and no register indexing through M0.
//
// Why the kernel computes the same for every launch:
// - W is a no-op. R and W run on the same EXEC (nothing between writes it). R sets each enabled
//   lane of vX to that lane of aY; nothing between writes vX or aY, so at W each enabled lane of vX
//   still holds aY's value, and W writes aY's enabled lanes with what they hold. Disabled lanes are
//   written by neither. So every register holds the same after W's place with or without it.
// - R is removed only when, with W gone, nothing reads the value it writes: vX is not live after R
//   (Program::live_in_partial on VGPR units) in a kernel that never writes EXEC, so that every full
//   VGPR write reaches every lane that any instruction reads (the argument of rematerialize.h).
//   Lanes R never wrote (disabled ones) are as before. R has no other effect (a VALU copy: no
//   memory, no SCC/VCC, no MODE). Without that (EXEC writes, or vX read later) R stays.
// - The static checks (waitcnt, hazards, resources) run on the result (rebuilds_clean): removing
//   lines removes wait states an MFMA result read may have relied on; if the result is not clean,
//   nothing is proposed.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct AgprRoundTrip {
  size_t read_line = 0, write_line = 0;  // .text lines of R and W in the parent
  program::RegRange vgpr, agpr;
  bool read_removed = false;  // false: R's value is still read (or the kernel writes EXEC): only W went
};

struct AgprRoundTripRemoval {
  program::Program program;  // the parent without the removed lines (unchanged when none)
  std::vector<AgprRoundTrip> trips;
  std::string refused;  // why nothing was removed
};

// Removes every round trip in `window` (parent .text lines, both ends inside; the whole kernel when
// none is given). Throws asmevo::Error for an unknown kernel or a window outside it.
AgprRoundTripRemoval remove_agpr_round_trips(const program::Program& p, const std::string& kernel,
                                             std::optional<std::pair<size_t, size_t>> window = std::nullopt);

}  // namespace asmevo::search
