// Move: hazard-aware s_nop minimization (issue 7). Every s_nop of a kernel (or of a window of its
// lines) is lowered to the smallest count the hazard rules (check/hazards.h) still accept — or
// removed when nothing needs it. `s_nop N` provides N+1 wait states; an s_nop the hazard checker
// does not need only costs issue cycles.
//
// The oracle is the whole static check of the rebuilt kernel, as in waitcnt refinement
// (waitcnt_refine.h): for each s_nop, first to last, the smallest setting in
// {removed, s_nop 0, ..., s_nop N} that keeps the kernel free of findings is found by bisection —
// more wait states never create a hazard, so if a setting is safe every larger one is. Each probe
// rebuilds the candidate and checks the built code. The count therefore never goes below what the
// checker requires.
//
// Left alone: s_nops in blocks that no path from the kernel's entry reaches (the 256-byte
// kernarg-preload compatibility sled of Triton kernels, whose size fixes where the hardware enters
// a preloading kernel — AMDGPUUsage "Preloaded Kernel Arguments" — and .text padding after
// s_endpgm), and every s_nop within the first 256 bytes of a kernel that preloads kernargs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

struct NopChange {
  uint64_t address = 0;  // of the original s_nop
  std::string before;    // "s_nop 7"
  std::string after;     // "s_nop 1"; empty: removed
};

struct NopMinimization {
  program::Program program;  // with every change applied (resources updated)
  std::vector<NopChange> changes;
  size_t probes = 0;  // rebuild + check rounds spent
};

// `window`: only s_nops on .text lines [first, last] (inclusive); default the whole kernel.
// Throws asmevo::Error when the kernel is unknown or already has static findings.
NopMinimization minimize_nops(const program::Program& p, const std::string& kernel,
                              std::optional<std::pair<size_t, size_t>> window = std::nullopt);

}  // namespace asmevo::search
