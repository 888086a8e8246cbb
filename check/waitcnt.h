// Waitcnt safety: a forward dataflow analysis over a function's CFG proving that no register
// written by an outstanding memory operation is read or overwritten before an s_waitcnt
// guarantees the operation has completed, on every path.
//
// Model (gfx9: gfx90a, gfx942, gfx950; see docs/checks.md "waitcnt" for sources):
// - Counters: vmcnt (VMEM loads, stores and atomics, buffer/global/scratch/flat), lgkmcnt (LDS,
//   GDS, SMEM, s_sendmsg, flat), expcnt (GDS and export data-register locks). A memory
//   instruction increments its counter(s) at issue and decrements them on completion;
//   `s_waitcnt X(N)` stalls until at most N are outstanding.
// - Ordering: VMEM operations other than flat_* complete in issue order (one in-order queue on
//   vmcnt, loads and stores alike); LDS operations complete in issue order among themselves.
//   SMEM, GDS, messages and flat_* (which may be LDS or global and can be reported early) are
//   out of order. A register written by an in-order operation E is complete after
//   `X(N)` iff at least N operations of E's in-order class were issued after E; a register
//   written by an out-of-order operation only after `X(0)`. Out-of-order operations issued
//   after E do not count for E (they may complete first).
// - A field at its maximum (vmcnt 63, lgkmcnt 15, expcnt 7) is treated as no wait.
// - Join at CFG merges takes the weakest guarantee: pending on any path, the fewest newer
//   operations, out-of-order if on any path.
// - Rules: RAW (an instruction reads a register with a pending write), WAW (an instruction
//   writes one with a pending write, unless it is a later operation of the same in-order queue,
//   which completes after it), WAR (an instruction writes a register a GDS or export
//   instruction still has to read: expcnt; gfx9 VMEM stores read their data without a counter,
//   their data hazard is the hazard rule `vmem-store-data-12dw`), and the function-boundary
//   contracts below.
// - Calls (s_swappc_b64, s_call_b64): the registers the call reads must be complete; after the
//   call nothing is outstanding (LLVM's calling convention: the callee waits for everything
//   before it returns, SIInsertWaitcnts callWaitsOnFunctionReturn / SI_RETURN).
// - Device-function entry: any register may still be the target of a caller's load, so every
//   register counts as pending out-of-order on every counter until a wait of 0 (LLVM inserts
//   `s_waitcnt 0` at the entry of every non-entry function). Kernel entry: nothing is pending.
// - Device-function return (s_setpc_b64 that is not a resolved long branch, in a non-kernel
//   function): nothing may be outstanding (rule waitcnt.return).
#pragma once
#include <cstdint>
#include <vector>

#include "check/code.h"
#include "check/violation.h"
#include "codeobj/target.h"

namespace asmevo::check {

struct WaitcntOptions {
  codeobj::Arch arch = codeobj::Arch::gfx942;
};

std::vector<Violation> check_waitcnt(const Function& f, const WaitcntOptions& opts);

// Addresses of the s_waitcnt instructions of `f` that complete nothing on any path: every
// access they would wait for is already complete (or none is outstanding). Removing one of
// them cannot create a violation; the tests use it to explain removals the check accepts.
std::vector<uint64_t> noop_waits(const Function& f, const WaitcntOptions& opts);

}  // namespace asmevo::check
