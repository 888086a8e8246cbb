// Move: load/store widening (issue 7). Adjacent memory accesses of one basic block that use the
// same address registers are merged into one wider access:
//
//   global_load_dword / global_store_dword{,x2,x3}  at offsets k, k+4·n     -> global_*_dwordx{2,3,4}
//   buffer_load_dword / buffer_store_dword{,x2,x3}  (same vaddr, V#, soffset, offen/idxen)
//                                                                           -> buffer_*_dwordx{2,3,4}
//   ds_read_b32 / ds_read_b64   (same address VGPR, any two offsets)        -> ds_read2_b32 / ds_read2_b64
//   ds_write_b32 / ds_write_b64 (same address VGPR, two different offsets)  -> ds_write2_b32 / ds_write2_b64
//
// One instruction instead of two issues once and holds one counter slot (vmcnt / lgkmcnt).
//
// What makes a merge legal (each rule is checked; see widen.cpp for the sources):
// - Registers: the data registers must already be consecutive (no renaming) and, for the wide
//   global/buffer forms and ds_read2, start at an even register (gfx90a/gfx942/gfx950 need
//   64-bit-aligned VGPR/AGPR tuples). Loaded registers may not overlap the address registers.
// - Alignment: the merged global/buffer access starts at the lower access's address, which the
//   original code already used for a dword access; ds_read2/ds_write2 access each element with
//   the alignment of the single-element instruction they replace. No new alignment is assumed.
// - Motion: the merged access sits at the earlier access (loads) or the later one (stores), the
//   other falling back on the other placement. No instruction in between may write the moved
//   access's address, data or EXEC, read or write a moved load's destination, touch memory of
//   the same kind that could alias (stores for a moved load; loads and stores for a moved store),
//   or be a barrier, message, cache control, branch or unknown instruction.
// - Waits: the merged pair is one event on its counter instead of two, so every s_waitcnt after
//   the merge point is re-derived: the new count is the weakest one that still covers every
//   operation the original wait covered (in-order completion, check/waitcnt.h). The block must
//   contain a wait that covers the merged access, or end the program, so that waits in other
//   blocks keep their meaning.
// - Window: both accesses must lie in the window; waits re-derived for a merge may lie after it
//   (in the same block).
// - Gate: each merge is kept only if the rebuilt kernel passes the static checks (waitcnt,
//   hazards, resources); semantics are confirmed by verification like any other candidate.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"
#include "search/edit.h"

namespace asmevo::search {

struct WidenChange {
  uint64_t address = 0;             // of the first (lower-line) access, in the parent
  std::vector<std::string> before;  // the accesses merged, in line order
  std::string after;                // the merged access
};

struct Widening {
  Edit edit;                        // every accepted merge (and its wait changes) as hunks over the parent
  program::Program program;         // the parent with `edit` applied (resources updated)
  std::vector<WidenChange> changes;
  size_t rejected = 0;              // legal-looking merges the static checks refused
  size_t probes = 0;                // rebuild + check rounds spent
};

// Merges accesses on .text lines [first, last] of `kernel` (default: the whole kernel). A merge can
// make a wait stronger: one that waited for the first access of a pair but not the second now waits
// for the merged access. `allow_stronger_waits` false refuses such merges (they may be slower).
// Throws asmevo::Error when the kernel is unknown, its arch is not gfx90a/gfx942/gfx950, or it
// already has static findings while there is something to merge (nothing to compare against).
Widening widen_accesses(const program::Program& p, const std::string& kernel,
                        std::optional<std::pair<size_t, size_t>> window = std::nullopt,
                        bool allow_stronger_waits = false);

}  // namespace asmevo::search
