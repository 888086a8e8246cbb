// Move: dead and redundant instruction elimination (issue 7), inside a window of a kernel, from the
// kernel's register liveness — as program::Program::live_in computes it, except that a VGPR/AGPR
// write never ends liveness (it reaches only the lanes EXEC enables: in if/else code the else
// half's write leaves the then half's lanes live). Removed:
//  - dead ALU instructions: SALU/VALU/VOP3P/MFMA with no side effect whose every def is dead after
//    it (not live on any path before being redefined or the kernel ending). Only register files
//    liveness tracks count (SGPR, VGPR, AGPR, VCC, EXEC, SCC, M0): an instruction writing MODE,
//    flat_scratch, TTMPs or a hardware register stays.
//  - identity moves (`v_mov_b32 vX, vX`, `s_mov_b32 sX, sX`, `s_mov_b64`), and a move whose
//    destination already holds that value: an identical move earlier in the same block with
//    neither its destination nor any of its sources (EXEC too, for a VALU move: a move under
//    another EXEC writes other lanes) written in between;
//  - branches to the label right after them (a jump to the next instruction);
//  - `s_cbranch_execz L` over at most 4 VALU instructions that only write VGPRs (then L): with
//    EXEC = 0 a VALU op writes no VGPR lane (gfx9 ISA guide, "EXEC mask"), so running them is
//    harmless. Not for v_readlane/v_readfirstlane/v_writelane (they ignore EXEC or write SGPRs),
//    v_cmpx (writes EXEC), MAI instructions, or anything writing an SGPR (a VOPC/VOP3 compare
//    writes 0 bits for inactive lanes) or touching memory;
//  - an exec save/restore around nothing: `s_and_saveexec_b64 sX, Y` followed directly by
//    `s_or_b64 exec, exec, sX` (optionally with an `s_cbranch_execz` to the s_or between): EXEC
//    ends as it started ((E & Y) | E = E), so the pair goes when sX and SCC are dead after it.
// Removals repeat to a fixed point (removing one dead instruction can kill what fed it).
//
// Kept on purpose: every memory instruction, loads included. A load whose result is dead may
// still fault (an address the program never meant to be valid when the result is unused), and
// every memory instruction counts in vmcnt/lgkmcnt: removing one changes what a later
// `s_waitcnt vmcnt(N)` with N > 0 waits for, so an in-order counter wait could then let a needed
// older access stay outstanding. Also kept: branches (other than the above), waits, barriers,
// s_nop, messages, s_setprio/s_sleep and other sequencer instructions.
//
// Refused kernels (no proposal): kernels with calls (liveness does not see what a callee reads)
// and kernels that index registers through M0 (s_movrel*, v_movrel*, s_set_gpr_idx_*: the
// registers really accessed are not the ones the instruction names).
// The result is rebuilt and checked (removing an instruction removes a wait state a hazard may
// need); if it is not clean, removals are kept one at a time only when each keeps it clean.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct DeadCodeRemoval {
  size_t line = 0;       // .text line in the parent program
  uint64_t address = 0;  // of the removed original instruction
  std::string text;      // its text
  std::string reason;    // "dead", "identity move", "repeated move", "branch to next", "execz skip", "exec save/restore"
};

struct DeadCodeElimination {
  program::Program program;  // with every removal applied (resources updated)
  std::vector<DeadCodeRemoval> removals;
  size_t probes = 0;  // rebuild + check rounds spent
  std::string refused;  // why nothing was attempted (empty when the kernel was analysed)
};

// `window`: only lines [first, last] (inclusive) may be removed; default the whole kernel.
// Throws asmevo::Error when the kernel is unknown or already has static findings.
DeadCodeElimination eliminate_dead_code(const program::Program& p, const std::string& kernel,
                                        std::optional<std::pair<size_t, size_t>> window = std::nullopt);

}  // namespace asmevo::search
