// Move: address folding (issue 17, loops bound by the address unit). In straight-line code, a 64-bit
// address register pair stepped by a constant between the global loads that read it,
//
//   global_load_dword v10, v[4:5], off          (iteration 0 of loop-pipeline's unrolled copy)
//   v_lshl_add_u64 v[4:5], v[4:5], 0, 4
//   global_load_dword v11, v[4:5], off          (iteration 1)
//   v_lshl_add_u64 v[4:5], v[4:5], 0, 4
//
// becomes loads from one base with immediate offsets, the steps after the last of them:
//
//   global_load_dword v10, v[4:5], off
//   global_load_dword v11, v[4:5], off offset:4
//   v_lshl_add_u64 v[4:5], v[4:5], 0, 4
//   v_lshl_add_u64 v[4:5], v[4:5], 0, 4
//
// and widen (widen.h) merges the loads whose data registers are consecutive (loop-pipeline lays a
// load's registers out so across its iterations) into dwordx2/x3/x4. In the timing model every wave64
// vector memory instruction costs the texture addresser ta_cycles whatever its width
// (timing/memory_hierarchy.cpp), so a loop bound by it runs faster by the loads merged. The edit is
// proposed only when widen merges at least one pair; it is the fold and the merges as one edit.
//
// Why the result computes the same for every launch:
// - A global load in `off` mode reads the bytes at vaddr + sext(offset), a 64-bit sum (AMD "CDNA3
//   ISA", flat/global addressing). A load that followed steps adding C_1..C_n to vA reads
//   (vA + C_1 + .. + C_n) + off = vA + (off + C_1 + .. + C_n) mod 2^64: the same bytes from vA's value
//   before the steps, where the new offset fits the signed 13-bit field of gfx9 global instructions
//   (-4096..4095: LLVM SIInstrInfo::isLegalFLATOffset, AMDGPUBaseInfo getNumFlatOffsetBits).
// - The steps (`v_lshl_add_u64 vA, vA, 0, C`: they read vA and an integer constant and write vA
//   only) keep their order and count, so vA leaves the region with the value it had (same wrap). They
//   move later, to right after the last load they precede, past instructions that neither read vA
//   (its only readers are the rewritten loads, which now read its value before every step), nor
//   write it, nor write EXEC (a VALU step writes the lanes EXEC enables, so it must run under the
//   same mask; the loads read the same lanes).
// - A register with any other reader or writer in the region (a store's address, ALU), named in part,
//   or with a step whose constant is not an integer, is left as it is.
// - Everything else is widen's, with widen's argument (widen.h); the static checks (waitcnt, hazards)
//   and differential verification check the result like any candidate.
// Region: each basic block that meets the window. gfx942/gfx950 only (gfx90a steps its addresses with
// v_add_co/v_addc pairs, which this move does not read).
#pragma once
#include <string>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct AddressFolding {
  program::Program program;  // folded and widened (the parent when nothing is proposed)
  size_t registers = 0;      // address registers folded
  size_t loads_folded = 0;   // loads that now read their base with an immediate offset
  size_t merges = 0;         // widen's merges on the result
  std::string refused;       // why nothing is proposed ("" when something is)
};

// Folds the address registers of the basic block of `kernel` that holds .text lines [first, last]
// (one block) and widens its loads. Throws asmevo::Error for an unknown kernel.
AddressFolding fold_addresses(const program::Program& p, const std::string& kernel, size_t first, size_t last);

}  // namespace asmevo::search
