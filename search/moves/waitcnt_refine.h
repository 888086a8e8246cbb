// Move: waitcnt refinement (issue 7). Replaces each s_waitcnt of a kernel (or of a window of its
// lines) by the weakest counts the static waitcnt proof (check/waitcnt.h) still accepts, and
// removes waits that need nothing. Weaker waits let independent memory operations overlap.
//
// It is a search with the checker as oracle: for each wait, first to last (so waiting moves as
// late as possible: an early wait is weakened and a later one keeps what is still needed), and
// each counter it waits on, the largest count that keeps the whole kernel free of static findings
// is found by bisection — a larger count is a weaker wait, and if a count is safe every smaller
// one is. Each probe rebuilds the candidate and checks the built code,
// so the result is what the hardware would run. Semantics are then confirmed by `verify` like any
// other candidate (the optimizer's cascade); the tests do that on corpus kernels.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct WaitcntChange {
  uint64_t address = 0;   // of the original s_waitcnt
  std::string before;     // "s_waitcnt vmcnt(0) lgkmcnt(0)"
  std::string after;      // "s_waitcnt vmcnt(1)"; empty: removed
};

struct WaitcntRefinement {
  program::Program program;  // with every change applied (resources updated)
  std::vector<WaitcntChange> changes;
  size_t probes = 0;         // rebuild + check rounds spent
};

// `window`: only waits on .text lines [first, last] (inclusive); default the whole kernel.
// Throws asmevo::Error when the kernel is unknown or already has static findings (nothing to
// compare a refinement against).
WaitcntRefinement refine_waitcnts(const program::Program& p, const std::string& kernel,
                                  std::optional<std::pair<size_t, size_t>> window = std::nullopt);

}  // namespace asmevo::search
