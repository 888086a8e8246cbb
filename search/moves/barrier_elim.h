// The proof behind the barrier-elimination move (barrier_elim.cpp), exposed for its tests.
//
// An s_barrier orders the memory accesses its workgroup's waves make before it against those they
// make after it. Removing barrier B loses exactly the ordering of pairs (x, y) where wave W1 makes x
// after its previous barrier and before B, and another wave W2 makes y after B and before its next
// barrier; every other pair stays ordered by another barrier. So B is removable when no such pair
// conflicts: no read-after-write, write-after-read or write-after-write in LDS, and none in global
// memory (the barrier also orders the workgroup's global accesses), between
//   before(B): every instruction reachable from the previous barriers (or the kernel entry) that
//              reach B, without crossing a barrier, and
//   after(B):  every instruction reachable from B without crossing a barrier.
// The sets come from the CFG alone (loops included: a barrier in a loop sees the loop's accesses on
// both sides), no address is trusted, so the verdict holds for every workgroup size up to the
// kernel's .max_flat_workgroup_size and every argument. The premise is the one __syncthreads has:
// the workgroup's waves execute the same sequence of barriers (HIP/CUDA make divergent barriers
// undefined; a wave that ends early releases the others).
//
// Refused (not analysable): calls and indirect branches (s_swappc/s_setpc: unknown code), messages
// and traps, GDS/GWS and ordered-count operations (cross-workgroup state), lines without a decoded
// instruction.
#pragma once
#include <cstddef>
#include <string>

#include "program/program.h"

namespace asmevo::search {

struct BarrierProof {
  bool removable = false;
  std::string reason;  // why (not): "before: LDS write; after: LDS read (read-after-write)", ...
};

// The verdict for the s_barrier at .text line `barrier` of function `f`.
BarrierProof prove_barrier_removable(const program::Program& p, const program::Function& f, size_t barrier);

}  // namespace asmevo::search
