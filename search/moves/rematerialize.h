// Rematerialization for occupancy (issue 17, "Occupancy"): a VGPR value that is live across the
// lines where the kernel needs the most VGPRs, but is a cheap pure function of values that are
// live at each of its uses anyway, is dropped and recomputed right before each use. Used by
// occupancy renaming (occupancy_rename.h) when renaming alone cannot get under the next granule.
//
// Which values: the value a line D writes into one VGPR R, where D is a cheap op (v_add_u32,
// v_sub_u32, v_subrev_u32, v_xor_b32, v_and_b32, v_or_b32, v_lshlrev_b32, v_lshrrev_b32,
// v_ashrrev_i32, v_lshl_or_b32, v_lshl_add_u32, v_add_lshl_u32, v_and_or_b32, v_or3_b32,
// v_xad_u32, v_mov_b32; e32/e64 without modifiers: no clamp, no DPP/SDWA) of VGPRs, SGPRs and
// integer constants. A VGPR source that is not itself live at the use is expanded through its own
// single cheap definition (up to 3 levels); an identity step (add/or/xor of 0, a shift by 0, a move)
// is dropped, and a value that is a bare copy of a live register is read from that register.
//
// Why the kernel computes the same for every launch:
// - The kernel must not write EXEC (refused otherwise), so every instruction runs on the launch's
//   EXEC: the lanes the recomputation writes are the lanes D wrote, and all of them.
// - Every use U of the value is reached by D alone (no other definition of R, and not the kernel's
//   entry value, reaches U), and no line on a path from D to U writes a source register of the
//   recomputation (each expanded source likewise from its own definition to U). So at U each source
//   holds the value it had when D (or the expanded definition) ran, and the ops are pure functions
//   of their operands (integer ALU: no MODE, no VCC, no SCC, no memory): the recomputed value is
//   bit for bit the value R holds at U.
// - The recomputation writes a register that is free right before U: U's own first destination
//   VGPR when U writes it whole and does not read it (then U reads the address from it, as
//   compilers emit `v_add_u32 v30, 0, v17; ds_read_b64 v[30:31], v30`), else R itself (which holds
//   the same value at that point). The sources it reads are live into U already, so no live range
//   grows except the temporary's one line.
// - D and the expanded definitions are deleted when nothing reads their result any more (they are
//   pure and write only that register).
// - The static checks (waitcnt, hazards, resources) run on the result (rebuilds_clean), which covers
//   a wait state a new VALU write before a memory read may need.
#pragma once
#include <string>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct RematerializedValue {
  size_t def_line = 0;         // parent .text line of the definition dropped
  program::RegRange reg;       // the register that held the value
  std::string expression;      // the recomputation (its instructions, "; "-separated; empty: a copy read at its source)
  unsigned uses = 0;           // uses that now recompute it
};

struct Rematerialization {
  program::Program program;  // the parent with the recomputations (edited lines carry their decoding)
  std::vector<RematerializedValue> values;
  unsigned need_before = 0, need_after = 0;  // the most VGPR units one line needs (live into it or written by it)
  std::string refused;                       // why nothing was done
};

// The VGPR units each line of `kernel` needs: live into the line (Program::live_in, partial-write
// mode) or written by it. Lines that are not instructions need 0.
std::vector<unsigned> vgpr_need(const program::Program& p, const std::string& kernel);

// Drops and recomputes values live across the lines that need more than `limit` VGPR units, the ones
// live across most such lines first, until no such line is left or no value qualifies. Throws
// asmevo::Error for an unknown kernel.
Rematerialization rematerialize_vgprs(const program::Program& p, const std::string& kernel, unsigned limit);

// Load sinking for occupancy: a group of loads (buffer/global loads, or ds_read LDS reads) with the
// ALU work right before them that computes what they read issues later in its block, after lines it
// does not depend on, when that lowers the most VGPRs a line needs (their results then need
// registers only from their later issue, which registers dying in between provide: "issue the B
// prefetch after the first MFMAs"). Up to 6 groups, each at the place that lowers the need most
// (the earliest such place).
// Why the kernel computes the same: the lines passed neither read nor write a register the group
// writes, nor write one it reads (implicit EXEC/VCC/SCC/M0 included); they access no vector or
// scalar memory (no FLAT), are no branch, barrier or message, and for a group with vector loads no
// s_waitcnt among them waits on vmcnt, for one with LDS reads they hold no LDS access and no wait on
// lgkmcnt: every later wait then covers the same memory operations in the same order, and no load
// passes a store it could alias (global loads cannot alias LDS). The group's temporaries (single
// VGPRs it writes whole before any read of them and nothing after it reads: its loads' addresses)
// are renamed to VGPRs below `limit` that no line of the block from the group on names and that are
// live into none of the lines after it, when the group writes no EXEC: each read of a temporary
// still sees the group's own write on the same lanes, the new register held nothing anyone reads
// later, and the old one is no longer written (nothing read the group's value in it). So a line
// that reuses a temporary's register (the next LDS read's destination) no longer stops the group.
// The static checks run on the result (rebuilds_clean).
struct SunkGroup {
  size_t first = 0, last = 0;  // the group's lines (of the program it was moved in)
  size_t after = 0;            // it now follows this line (same numbering)
};
struct LoadSinking {
  program::Program program;
  std::vector<SunkGroup> moves;
  unsigned need_before = 0, need_after = 0;
  std::string refused;
};
LoadSinking sink_loads_for_pressure(const program::Program& p, const std::string& kernel, unsigned limit);

}  // namespace asmevo::search
