// The timing model's hardware description: one row per processor, every number with its source.
// Source keys S1..S17 are those of /work/shared/notes/amd-instinct-microarch.md (copied into
// docs/timing.md): S1 ROCm GPU hardware specifications, S2/S3 ROCm MI300/MI250 microarchitecture,
// S4 ROCm matrix-core blog, S5 AMD Matrix Instruction Calculator, S6 LLVM SISchedule.td,
// S7 GCNHazardRecognizer.cpp, S10 ROCm Compute Profiler, S11 nod-ai AMDGPU kernel optimization guide
// (measured), S12 Chips and Cheese, S13 ServeTheHome, S15 rocminfo of an MI300X, S16 svethardware.
// [U] marks an assumption or an unconfirmed figure: the value is a lead, not a measurement.
#pragma once
#include <cstdint>
#include <vector>

#include "codeobj/target.h"

namespace asmevo::timing {

struct HwParams {
  codeobj::Arch arch;
  const char* device;           // the processor the row describes
  // Device.
  unsigned cus;                 // compute units one kernel can use
  unsigned xcds;                // dies with their own L2 (workgroups round-robin over them)
  unsigned simds_per_cu;
  double clock_ghz;             // peak engine clock
  // Issue (S10: a SIMD is offered an issue slot every simds_per_cu cycles; per slot at most one
  // instruction per wave and one per category).
  unsigned issue_period;        // cycles between a SIMD's issue slots
  unsigned valu_cycles;         // wave64 VALU on a 16-lane SIMD
  unsigned trans_cycles;        // wave64 quarter-rate transcendental (isTRANS)
  unsigned salu_cycles;
  unsigned branch_taken_cycles; // extra cycles of a taken branch (instruction-fetch redirect)
  unsigned sleep_unit;          // s_sleep N sleeps about N * sleep_unit cycles
  unsigned mfma_valu_coexec;    // cycles after an MFMA issues before the VALU port is free again
  // Vector memory.
  unsigned ta_cycles;           // cycles the texture addresser spends per wave64 VMEM instruction
  unsigned l1_bytes, l1_ways, l1_line;  // per CU vector L1
  double l1_bw;                 // bytes/cycle/CU
  unsigned l2_bytes, l2_ways, l2_line;  // per XCD
  double l2_bw;                 // bytes/cycle/XCD
  bool has_mall;
  double mall_bw;               // bytes/cycle, device (peak)
  unsigned mall_bytes, mall_ways;  // device-wide memory-side cache, 64-byte lines (sectors)
  double mall_efficiency;       // achievable share of mall_bw for streaming reads
  double hbm_bw;                // bytes/cycle, device
  unsigned lat_l1, lat_l2, lat_mall, lat_hbm, lat_atomic_extra;
  // Address translation of L1 misses: an L1 TLB per CU of `tlb_entries` entries of `tlb_page` bytes each (the
  // driver's fragment: one entry covers it; the reach is their product); a miss adds lat_tlb_miss. 0: not modeled.
  unsigned tlb_entries, tlb_ways, tlb_page, lat_tlb_miss;
  // Scalar memory.
  unsigned scache_bytes, scache_line, lat_scache, lat_smem_miss;
  // LDS.
  unsigned lds_banks;
  // Pipe occupancy = base + max(per * sum of phase cycles, active lanes x bytes per lane / lds_port_bytes).
  double lds_cycles_base, lds_cycles_per_phase_cycle;
  double lds_port_bytes;        // bytes/cycle of the data port a SIMD pair shares; 0: no port term
  unsigned lat_lds;
  // Workgroups.
  unsigned barrier_cycles;      // from the last wave's arrival to the release
  unsigned shader_engines;      // per XCD, each with a workgroup dispatcher of its own
  unsigned wave_launch_cycles;  // per wave on one shader engine's dispatcher, when a workgroup starts on a CU
  // Calibration (bench/calibration, docs/timing.md "Calibration").
  double hbm_efficiency;        // achievable share of hbm_bw for streaming traffic (refresh, page and bank conflicts)
  double clock_mfma_ghz;        // sustained engine clock with every matrix unit busy (power limit)
  double launch_overhead_us;    // host launch to kernel start and end to completion signal: reported, not in the kernel time
  // The device's own start and end of one kernel, which a measured kernel duration (profiler timestamps, or a graph
  // replay's time per kernel) includes and the simulated kernel does not: the command processor's dispatch setup
  // before the first wave and the end-of-kernel release after the last write. Reported next to the kernel time, not in
  // its cycles; bench/calibration adds it to rows that time whole kernels. Part of launch_overhead_us, not added to it.
  double kernel_boundary_us;
};

// The part of the device a simulation models: `xcds` dies of `cus_per_xcd` CUs each. A slice smaller
// than the device (sampled simulation, timing/sampling.h) gets the share of every shared unit that
// its CUs would use: `xcd_share` of each XCD's L2 capacity and bandwidth and of its workgroup
// dispatcher, `device_share` of the MALL and HBM bandwidth (shares of the CUs the launch keeps busy).
struct DeviceSlice {
  unsigned xcds = 1, cus_per_xcd = 1;
  double xcd_share = 1, device_share = 1;
  // The share of the other workgroups whose loads warm the MALL (timing/model.h, WarmingGroup): the
  // MALL keeps the capacity share they and the slice stand for (all of it at 1); its bandwidth keeps
  // the share above.
  double warmed_share = 0;
  // Sampled workgroups keep the L1 of the device CU they stand for (SliceWorkgroups::XcdWindow, timing/sampling.h).
  bool l1_by_device_cu = false;
  // Read sharing the slice lost (the reuse probe, timing/reuse_probe.h): per buffer, the share of a line
  // fetched below the L2 that one workgroup's read stands for on the device, where co-resident workgroups
  // read the same line through one fetch. Empty: every fetch counts whole (an unsampled launch).
  struct ReadShare {
    uint64_t first_sector = 0, end_sector = 0;  // the buffer: [first, end) 64-byte sectors
    double mall_share = 1, hbm_share = 1;        // of an L2 miss's MALL access, of its HBM fetch
  };
  std::vector<ReadShare> read_shares = {};  // ascending, disjoint
  unsigned cus() const { return xcds * cus_per_xcd; }
  bool whole(const HwParams& hw) const { return xcds == hw.xcds && cus_per_xcd == hw.cus / hw.xcds; }
  static DeviceSlice whole_device(const HwParams& hw) { return {hw.xcds, hw.cus / hw.xcds, 1.0, 1.0}; }
};

// The row for `arch`; throws asmevo::Error naming the processor when the model has none.
const HwParams& hw_params(codeobj::Arch arch);

}  // namespace asmevo::timing
