// Runs a prepared launch: each workgroup's waves together (round-robin per RunOptions::schedule;
// the barrier releases when every wave that has not ended arrived), the
// workgroups on a thread pool. Results do not depend on the thread count: workgroups of ordinary
// kernels are independent, and kernels with global atomics run their workgroups one at a time in
// linear workgroup order (x fastest), which fixes the order of every atomic (docs/emulator.md).
// When a run fails, the error reported is the one of the lowest-numbered failing workgroup.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "emu/context.h"
#include "emu/dispatch.h"
#include "emu/program.h"
#include "support/error.h"

namespace asmevo::emu {

// How the waves of one workgroup take turns. Correct (race-free) kernels give the same results
// under every schedule; `verify` runs candidates under several so that a missing s_barrier or
// s_waitcnt on LDS shows up as a difference.
enum class WaveSchedule {
  InOrder,      // wave 0, 1, ...: each runs until it ends or reaches s_barrier (the default)
  Reverse,      // the last wave first, each until it ends or reaches s_barrier
  Interleaved,  // one instruction per wave per turn, in order
};
const char* schedule_name(WaveSchedule s);

struct RunOptions {
  unsigned threads = 1;                        // 0: hardware concurrency
  uint64_t max_wave_instructions = 1ull << 32; // a wave running longer stops the run (endless loop)
  WaveSchedule schedule = WaveSchedule::InOrder;
  // Kernels with kernarg preloading: false runs them as on firmware without preloading (entry at
  // the code entry, preload SGPRs not filled), which executes the compatibility prologue.
  bool preload_firmware = true;
  // LDS contents when a workgroup starts (undefined on hardware): every byte set to this.
  uint8_t lds_fill = 0;
  // Registers the kernel descriptor leaves undefined at wave start (every SGPR and VGPR/AGPR it does not
  // initialise; VCC and M0 too): 0 keeps them zeroed, else every such register holds this value.
  uint32_t register_fill = 0;
  bool coverage = false;  // fill RunResult::executed
  // Stop at the first pair of DS accesses to one LDS byte by two waves with no s_barrier between
  // them, at least one a write (emu/lds_races.h). Off by default: it costs a record per LDS byte.
  bool lds_races = false;
  ExecObserver* observer = nullptr;            // sees every instruction and memory access (emu/context.h)
  // Linear workgroup ids (x fastest) to run, in this order; empty: every workgroup of the grid.
  // Sampled timing (timing/sampling.h) runs only the workgroups it simulates.
  std::span<const uint64_t> workgroups;
};

struct RunResult {
  Stats stats;
  std::vector<uint8_t> executed;  // with RunOptions::coverage: 1 per Program instruction that ran
  double wall_seconds = 0;
  unsigned threads = 1;
};

// A wave ran longer than RunOptions::max_wave_instructions (an endless loop, or a hang).
class StepLimitError : public Error {
 public:
  using Error::Error;
};

// Throws asmevo::Error for a fault (memory, unsupported instruction, waitcnt violation) and
// StepLimitError when a wave exceeds the step limit.
RunResult run_launch(Launch& launch, const Program& program, const RunOptions& options);

// Runs one wave until it ends, reaches a barrier, faults or has executed `quantum` instructions
// (0: no limit) (exposed for unit tests).
void step_wave(ExecContext& ctx, Wave& w, uint64_t max_instructions, uint64_t quantum = 0);

}  // namespace asmevo::emu
