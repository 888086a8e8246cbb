// The cycle-approximate timing model: replays the emulator's per-wave traces (timing/trace.h) on an
// explicit hardware description (timing/hw_params.h), in small stages as llvm-mca does:
//   dispatch   workgroups go to CUs (round robin over XCDs) as occupancy allows; a finished
//              workgroup frees its slot for the next one (tail effects fall out of this);
//   issue      per SIMD, one slot every issue_period cycles; at most one instruction per wave and per
//              port (VALU, SALU, VMEM, LDS, scalar memory, branch) per slot; priority (s_setprio),
//              then the oldest ready wave wins;
//   execute    VALU 4 cycles per wave64 (16 for transcendentals), MFMA holds the matrix unit for its
//              passes (check/isa.h pass counts) with the dependency rules of the ISA guides (S7), SALU,
//              branches, s_nop, s_sleep, barriers;
//   memory     per instruction the 64-byte sectors its lanes touched are coalesced into cache lines and
//              looked up in a per-CU L1, a per-XCD L2 (set-associative LRU), the MALL and HBM; every
//              level is a bandwidth server shared by all waves using it; s_waitcnt waits for the
//              modeled completion times (vmcnt in order, lgkmcnt in order for LDS, out of order for
//              scalar memory); LDS has a per-CU pipe charged by bank-conflict phases.
// Events are processed in time order with fixed tie-breaks, so the same traces give the same cycles.
// Every figure it produces is *modeled*, not measured.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codeobj/resources.h"
#include "emu/program.h"
#include "timing/hw_params.h"
#include "timing/trace.h"

namespace asmevo::timing {

enum class Stall : uint8_t { WaitcntVm, WaitcntLgkm, Dependency, Barrier, IssueContention, MfmaBusy };
inline constexpr int kNumStalls = 6;
const char* stall_name(Stall s);  // "waitcnt-vm", "waitcnt-lgkm", "dependency", "barrier", "issue", "mfma-busy"

struct InstProfile {
  uint64_t executions = 0;
  double issue_cycles = 0;                    // cycles the instruction itself held its wave (summed over waves)
  std::array<double, kNumStalls> stall{};     // cycles its waves waited before it could issue
  double cycles() const {
    double c = issue_cycles;
    for (double s : stall) c += s;
    return c;
  }
};

struct ModelResult {
  const HwParams* hw = nullptr;
  uint64_t cycles = 0;          // kernel start to the last wave's end and the last memory write
  double microseconds = 0;      // cycles at clock_ghz
  double clock_ghz = 0;         // the engine clock under this kernel's matrix-unit load (set_clock)
  codeobj::Occupancy occupancy;
  uint64_t workgroups = 0, waves = 0, wave_instructions = 0;
  unsigned cus_used = 0;
  std::vector<InstProfile> per_inst;          // by emu::Program::insts index
  std::vector<uint64_t> group_end;            // per traced workgroup (LaunchTrace order): when its last wave ended
  // Traffic and unit work.
  uint64_t l1_bytes = 0, l2_bytes = 0, mall_bytes = 0, hbm_bytes = 0, lds_bytes = 0;
  uint64_t unique_bytes = 0;    // distinct 64-byte sectors touched x 64: what HBM must move at least once
  double flops = 0;             // VALU lane-FLOPs (FMA = 2) plus MFMA 2*M*N*K*blocks
  double valu_busy = 0, mfma_busy = 0, salu_busy = 0;  // unit-cycles summed over SIMDs
  // Roofline (set_roofline): the largest of bytes / HBM bandwidth and each unit's work / its device-wide rate.
  double roofline_cycles = 0;
  std::string roofline_bound;   // "HBM bandwidth", "VALU", "MFMA", "SALU"
  // Sampled simulation (timing/sampling.h): what was simulated and how wrong the figure may be.
  // Counters above are then extrapolated to the whole launch.
  struct Sample {
    bool sampled = false;
    uint64_t simulated_groups = 0;
    std::string description;     // SamplePlan::describe()
    double error_bound = 0;      // relative bound on `cycles`
    double extrapolated_share = 0;  // part of `cycles` not simulated but extrapolated
  } sample;
  double total_stall(Stall s) const;
  Stall top_stall() const;
};

// The engine clock under the kernel's load and the time at it: the peak clock, lowered towards
// clock_mfma_ghz in proportion to the matrix units' busy share over `cus` CUs (power limit; the linear
// rule between the two sourced end points is an assumption [U]).
void set_clock(ModelResult& r, const HwParams& hw, double cus);

// Roofline: the largest of bytes / HBM bandwidth and each unit's work / its rate on `cus` CUs.
void set_roofline(ModelResult& r, const HwParams& hw, double cus, double hbm_bytes_per_cycle);

// Models one launch from its traces. `occupancy` limits the workgroups resident per CU.
ModelResult model_launch(const emu::Program& program, const LaunchTrace& trace, const codeobj::Occupancy& occupancy,
                         const HwParams& hw);
// A workgroup the sampled simulation does not time but whose loads warm the device-wide MALL
// (functional warming, as SMARTS keeps caches warm while it fast-forwards): it runs beside a simulated
// workgroup, its representative, and issues each load when the representative's wave issues the same
// trace entry, shifted by `offset` cycles (its dispatch start on the whole device minus the
// representative's on the slice). The L2s are not warmed: a warming workgroup that runs in lockstep
// with its representative on one XCD prefetches for it far more regularly than a workgroup on its own
// timeline does (matmul_naive_f32 went from +12.8 % to -27.5 %; docs/timing.md, "Sampling").
struct WarmingGroup {
  const std::vector<WaveTrace>* waves = nullptr;
  unsigned device_xcd = 0;  // its XCD (its TLB translates its loads)
  int64_t offset = 0;
};
// [index into the slice's trace] -> the workgroups that its representative stands for.
using Warming = std::vector<std::vector<WarmingGroup>>;

// The same on a slice of the device (sampled simulation, timing/sampling.h): `trace` holds the
// workgroups dispatched to the slice's CUs, in dispatch order; `warming` (may be null) the workgroups
// that warm its MALL (slice.warmed_share).
ModelResult model_launch(const emu::Program& program, const LaunchTrace& trace, const codeobj::Occupancy& occupancy,
                         const HwParams& hw, const DeviceSlice& slice, const Warming* warming = nullptr);

}  // namespace asmevo::timing
