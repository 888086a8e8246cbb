// Runs a prepared launch: each workgroup's waves together (round-robin, a wave runs until it ends
// or reaches s_barrier; the barrier releases when every wave that has not ended arrived), the
// workgroups on a thread pool. Results do not depend on the thread count: workgroups of ordinary
// kernels are independent, and kernels with global atomics run their workgroups one at a time in
// linear workgroup order (x fastest), which fixes the order of every atomic (docs/emulator.md).
// When a run fails, the error reported is the one of the lowest-numbered failing workgroup.
#pragma once
#include <cstdint>

#include "emu/context.h"
#include "emu/dispatch.h"
#include "emu/program.h"

namespace asmevo::emu {

struct RunOptions {
  unsigned threads = 1;                        // 0: hardware concurrency
  uint64_t max_wave_instructions = 1ull << 32; // a wave running longer stops the run (endless loop)
  ExecObserver* observer = nullptr;            // sees every instruction and memory access (emu/context.h)
};

struct RunResult {
  Stats stats;
  double wall_seconds = 0;
  unsigned threads = 1;
};

RunResult run_launch(Launch& launch, const Program& program, const RunOptions& options);

// Runs one wave until it ends, reaches a barrier or faults (exposed for unit tests).
void step_wave(ExecContext& ctx, Wave& w, uint64_t max_instructions);

}  // namespace asmevo::emu
