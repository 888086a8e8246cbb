#include "timing/hw_params.h"

#include "support/error.h"

namespace asmevo::timing {

namespace {

// Shared sources of the rows below (keys as in hw_params.h):
//  clock/CUs: S1, S2 (MI300X 304 CUs, 8 XCDs), S3 (MI250X 110 CUs per GCD; HIP sees one GCD as one
//             device, so one kernel runs on 110 CUs at 1.7 GHz), S15 (MI300X max 2100 MHz), S12/S16 (MI355X
//             256 CUs, 2.4 GHz).
//  issue:     S10 "each cycle the scheduler looks at the waves of one SIMD, round robin; at most one
//             instruction per wave and one per category" -> a SIMD gets a slot every 4 cycles [D];
//             S11/S10 wave64 VALU = 4 cycles on a 16-lane SIMD; S6 transcendentals quarter rate -> 16 [D];
//             S5 independent VALU may issue 4 cycles after an MFMA (co-execution).
//  s_sleep:   ISA guides, S_SLEEP "approximately 64 x SIMM16[6:0] clocks".
//  caches:    S1/S11 L1 32 KiB/CU, 128 B line, 64-way x 4 sets (MI300X, MI355X), MI250X 16 KiB/CU;
//             S10 L1 peak 64 B/clk/CU (gfx90a), 128 B/clk/CU (gfx942, gfx950); S2/S11 L2 4 MiB/XCD,
//             16-way, 128 B line; S10 L2 16 channels x 128 B/clk/XCD (gfx942), 32 x 64 B/clk (gfx90a).
//  MALL/HBM:  S13 MALL 17 TB/s (MI300X); S2 HBM3 5.3 TB/s; S4/S11 MI355X 8 TB/s; S3 MI250X 1.6 TB/s per GCD.
//             Bytes/cycle = TB/s / clock [D]. MALL capacity 256 MiB, 64 B line, 16-way (S11, MI300X and MI355X).
//  latencies: L2, MALL and HBM fitted on the measured pointer chases of mi300x-measured.md A (bench/calibration,
//             fit rows); sL1 48 and L1 116 cycles from an unattributed MI300X p-chase (notes section 5) [U].
//  LDS:       S11 32 banks (64 on gfx950), phases per width (timing/trace.cpp). S10 (CDNA2/3): the SIMDs share the
//             LDS in pairs, one instruction per pair at a time, 64 B/clk per port and direction; a wave64 b32 store
//             takes 8 cycles, a b128 store 20 (= 4 + bytes / 64 [D]). So an instruction holds the pipe for its bank
//             phases or for its bytes at 64 B/clk, whichever is longer. Base and per-phase cost fitted on bench/calibration's two
//             ds_read_b32 rows (S11's measured MI300X blocks of 64 back-to-back ds_read_b32: 500.8 cycles
//             conflict-free, 2 phase cycles and 256 bytes each, so the port's 4 cycles hold; 6810 fully
//             conflicted, 64 phase cycles): 2.39 + max(1.603 per phase cycle, bytes / 64), the same occupancy
//             for both rows as round 3's fit without the port term (3.21 + 1.59 per phase cycle; a first fit,
//             4.6 + 1.59, divided the blocks by 64 and left out that a timed block ends with the last read's
//             latency). Held out: the b64 and b128 rows. Latency 64 [U] (the p-chase says ~51, S6 "2-64").
//  dispatch:  mgpusim models 2 cycles per wave per XCD (notes section 7) [U]; an MI300X XCD has 4 shader engines
//             (rocminfo of an MI300X: 32 shader engines, 304 CUs; ROCm/legacy-rocm-build #4021), so 8 cycles per wave
//             per shader engine [D], the rate assumed for every shader engine [U]. An MI250X GCD has 8 (rocminfo of an
//             MI250X GCD: 110 CUs, 8 shader engines; openmm/openmm #3940): one dispatcher of 2 cycles per wave for
//             the whole GCD could not start the waves of the measured BabelStream (1.35 TB/s on one GCD needs a new
//             wave64 of Copy, which moves 1 KiB, every 1.3 cycles at 1.7 GHz [D]).
constexpr HwParams kRows[] = {
    {
        .arch = codeobj::Arch::gfx942, .device = "MI300X",
        .cus = 304, .xcds = 8, .simds_per_cu = 4, .clock_ghz = 2.1,
        .issue_period = 4, .valu_cycles = 4, .trans_cycles = 16, .salu_cycles = 4,
        .branch_taken_cycles = 8,  // [U] instruction-fetch redirect; no published figure
        .sleep_unit = 64, .mfma_valu_coexec = 4,
        .ta_cycles = 16,  // [U] GCN texture addresser: 4 addresses/clock -> 16 cycles per wave64 instruction
        .l1_bytes = 32 * 1024, .l1_ways = 64, .l1_line = 128, .l1_bw = 128,
        .l2_bytes = 4 * 1024 * 1024, .l2_ways = 16, .l2_line = 128, .l2_bw = 2048,
        .has_mall = true, .mall_bw = 17.0e12 / 2.1e9, .mall_bytes = 256u << 20, .mall_ways = 16,
        .mall_efficiency = 0.70,  // fitted on the Chips and Cheese Infinity Cache row (11.9 of 17 TB/s; bench/calibration)
        .hbm_bw = 5.3e12 / 2.1e9,
        // Fitted on bench/calibration's MI300X pointer-chase rows (fleet-amd-task: L2 83 ns, MALL 259 ns, HBM 347 ns at
        // 2.1 GHz), replacing the unattributed p-chase's 288/600/900 [U]; lat_l1 stays [U].
        .lat_l1 = 116, .lat_l2 = 130, .lat_mall = 500, .lat_hbm = 685,
        .lat_atomic_extra = 64,  // [U] read-modify-write at the L2 on top of the L2 latency
        // Reach and penalty: Chips and Cheese MI300X, 4 KiB-stride chase (one lane, so one CU): a step at 64 MB,
        // +47 ns per miss (99 cycles at 2.1 GHz) [D]. Entry size: the amdgpu driver maps VRAM in fragments and "the
        // L1 TLB can store a single PTE for the whole fragment", "starting with Vega10 the fragment size only controls the L1"
        // (the comment on amdgpu_vm_fragment / amdgpu_vm_frag_ptes, amdgpu_vm.c or amdgpu_vm_pt.c by kernel version); gmc_v9_0.c
        // gives GC 9.4.x a default fragment of 2^9 pages = 2 MiB (amdgpu_vm_adjust_size(adev, 256 * 1024, 9, 3, 48));
        // the L1 TLB is per CU, in its vL1D (UTCL1, S10). So 32 entries of 2 MiB [D]; fully associative [U]. A
        // 4 KiB-stride chase in Chips and Cheese's order (a random cycle, clamchowder/Microbenchmarks FillPatternArr)
        // cannot tell 16384 entries of 4 KiB from 32 of 2 MiB; a stream can (one miss per 2 MiB, not per 4 KiB).
        // The TLB row of bench/calibration checks the penalty directly (a fit row by construction).
        .tlb_entries = 32, .tlb_ways = 32, .tlb_page = 2u << 20, .lat_tlb_miss = 99,
        .scache_bytes = 16 * 1024, .scache_line = 64, .lat_scache = 48, .lat_smem_miss = 288,  // S1 16 KiB/2 CUs; line [U]
        .lds_banks = 32, .lds_cycles_base = 2.39, .lds_cycles_per_phase_cycle = 1.603, .lds_port_bytes = 64, .lat_lds = 64,
        .barrier_cycles = 16,  // [U] release after the last arrival
        .shader_engines = 4, .wave_launch_cycles = 8,
        .hbm_efficiency = 0.783,  // fitted on the BabelStream Copy and Mul rows (4.11-4.13, 4.10-4.26 TB/s of 5.3; bench/calibration)
        // ROCm MAF blog part 2: FP16 GEMM sustained 1115 MHz with the matrix units saturated; fitted on bench/calibration's f16
        // clock row. Held out: the blog's BF16 (1207 MHz) and FP8 (1230 MHz) clocks, which one figure per processor misses by 5-7 %.
        .clock_mfma_ghz = 1.115,
        .launch_overhead_us = 4.5,  // launch + cleanup on MI300X, second-hand (Kog AI via secondary page, notes D) [U]
        // MGPUSim's MI300A calibration: 1800 cycles (1.0 us at 1.8 GHz) for a back-to-back launch, which it calls an
        // estimate, not a measurement (sarchlab/mgpusim mi300a_calibration.md; notes section 7) [U].
        .kernel_boundary_us = 1.0,
    },
    {
        .arch = codeobj::Arch::gfx90a, .device = "MI250X (one GCD)",
        .cus = 110, .xcds = 1, .simds_per_cu = 4, .clock_ghz = 1.7,
        .issue_period = 4, .valu_cycles = 4, .trans_cycles = 16, .salu_cycles = 4,
        .branch_taken_cycles = 8,  // [U]
        .sleep_unit = 64, .mfma_valu_coexec = 4,
        .ta_cycles = 16,  // [U] as gfx942
        .l1_bytes = 16 * 1024, .l1_ways = 64, .l1_line = 64, .l1_bw = 64,  // S1 16 KiB; 64 B line and 64 ways [U]
        .l2_bytes = 8 * 1024 * 1024, .l2_ways = 16, .l2_line = 128, .l2_bw = 2048,  // S10 8 MiB/GCD, 128 B line; 16-way [U]
        .has_mall = false, .mall_bw = 0, .mall_bytes = 0, .mall_ways = 1, .mall_efficiency = 1, .hbm_bw = 1.6e12 / 1.7e9,
        .lat_l1 = 116, .lat_l2 = 130, .lat_mall = 0, .lat_hbm = 685,  // the MI300X fit reused [U] (held out: MI210 rows, bench/calibration)
        .lat_atomic_extra = 64,
        .tlb_entries = 0, .tlb_ways = 1, .tlb_page = 4096, .lat_tlb_miss = 0,  // no published TLB measurement: not modeled
        .scache_bytes = 16 * 1024, .scache_line = 64, .lat_scache = 48, .lat_smem_miss = 288,
        // S10's 64 B/clk per port is CDNA2/3's; the MI300X fit reused [U].
        .lds_banks = 32, .lds_cycles_base = 2.39, .lds_cycles_per_phase_cycle = 1.603, .lds_port_bytes = 64, .lat_lds = 64,
        .barrier_cycles = 16,
        .shader_engines = 8, .wave_launch_cycles = 8,  // 8 shader engines per GCD (rocminfo); rate as gfx942 [U]
        .hbm_efficiency = 0.783,  // the MI300X fit reused [U] (held out: MI250X BabelStream 1.3-1.4 of 1.6 TB/s, bench/calibration)
        .clock_mfma_ghz = 1.7,    // [U] no published sustained clock under MFMA: no throttling modeled
        .launch_overhead_us = 2.0,  // MI210 back-to-back launches, measured fit (te42kyfo/gpu-benches gpu-small-kernels)
        // The same measured MI210 floor: back to back in a graph, a small kernel's time per launch is about 2 us
        // (te42kyfo/gpu-benches gpu-small-kernels/mi210_rocm60_graph.txt), its own body a small part of it [D].
        .kernel_boundary_us = 2.0,
    },
    {
        .arch = codeobj::Arch::gfx950, .device = "MI355X",
        .cus = 256, .xcds = 8, .simds_per_cu = 4, .clock_ghz = 2.4,
        .issue_period = 4, .valu_cycles = 4, .trans_cycles = 16, .salu_cycles = 4,
        .branch_taken_cycles = 8,  // [U]
        .sleep_unit = 64, .mfma_valu_coexec = 4,
        .ta_cycles = 16,  // [U]
        .l1_bytes = 32 * 1024, .l1_ways = 64, .l1_line = 128, .l1_bw = 128,
        .l2_bytes = 4 * 1024 * 1024, .l2_ways = 16, .l2_line = 128, .l2_bw = 2048,  // S11 4 MiB/XCD; 16-way and bw as gfx942 [U]
        .has_mall = true, .mall_bw = 17.0e12 / 2.4e9,  // [U] MI300X's 17 TB/s assumed
        .mall_bytes = 256u << 20, .mall_ways = 16, .mall_efficiency = 0.70,  // S11 capacity; the MI300X fit reused [U]
        .hbm_bw = 8.0e12 / 2.4e9,
        .lat_l1 = 116, .lat_l2 = 130, .lat_mall = 500, .lat_hbm = 685,  // the MI300X fit reused [U]
        .lat_atomic_extra = 64,
        .tlb_entries = 0, .tlb_ways = 1, .tlb_page = 4096, .lat_tlb_miss = 0,  // no published TLB measurement: not modeled
        .scache_bytes = 16 * 1024, .scache_line = 64, .lat_scache = 48, .lat_smem_miss = 288,
        // S11 64 banks; round 3's MI300X fit without the port term reused [U] (CDNA4 reads at 256 B/clk per CU, S11/S12;
        // how that splits over its ports is not published, so no port term).
        .lds_banks = 64, .lds_cycles_base = 3.21, .lds_cycles_per_phase_cycle = 1.59, .lds_port_bytes = 0, .lat_lds = 64,
        .barrier_cycles = 16,
        .shader_engines = 4, .wave_launch_cycles = 8,  // MI300X's 4 per XCD assumed [U]
        .hbm_efficiency = 0.783,  // the MI300X fit reused [U]
        .clock_mfma_ghz = 2.4,    // [U] no published sustained clock under MFMA: no throttling modeled
        .launch_overhead_us = 4.5,  // the MI300X figure reused [U]
        .kernel_boundary_us = 1.0,  // the MI300X figure reused [U]
    },
};

}  // namespace

const HwParams& hw_params(codeobj::Arch arch) {
  for (const auto& r : kRows)
    if (r.arch == arch) return r;
  throw Error("the timing model has no parameters for this processor", codeobj::to_string(arch),
              "time kernels built for gfx90a, gfx942 or gfx950");
}

}  // namespace asmevo::timing
