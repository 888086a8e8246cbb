// Per-processor resource parameters used to derive allocations and occupancy.
// One row per Instinct processor; every number cites where it comes from.
#pragma once
#include "codeobj/target.h"

namespace asmevo::codeobj {

struct ArchParams {
  Arch arch;
  const char* name;
  // Registers (per lane for VGPR/AGPR, per wave for SGPR).
  unsigned vgpr_encoding_granule;  // KD granulated_workitem_vgpr_count unit
  unsigned vgpr_alloc_granule;     // allocation unit of the unified VGPR+AGPR file
  unsigned max_arch_vgprs;         // addressable v0..v255
  unsigned max_agprs;              // addressable a0..a255
  unsigned vgprs_per_simd_lane;    // unified file size per lane per SIMD (VGPR+AGPR)
  unsigned sgpr_encoding_granule;  // KD granulated_wavefront_sgpr_count unit: field = ceil(sgprs / unit) - 1
  unsigned sgpr_alloc_granule;
  unsigned sgprs_per_simd;
  unsigned max_addressable_sgprs;  // s0..s101 (VCC etc. are separate)
  unsigned accum_offset_granule;   // compute_pgm_rsrc3.accum_offset unit
  // Workgroups and waves.
  unsigned max_waves_per_simd;
  unsigned simds_per_cu;
  unsigned wave_size;
  unsigned max_workgroup_size;
  // LDS.
  unsigned lds_bytes_per_cu;        // also the per-workgroup maximum
  unsigned lds_encoding_granule;    // bytes per KD granulated_lds_size unit
};

// Sources (see shared notes "amd-instinct-microarch.md" for the full list):
//  [BaseInfo] LLVM Utils/AMDGPUBaseInfo.cpp: getVGPREncodingGranule / getVGPRAllocGranule (8 with
//             gfx90a insts), getTotalNumVGPRs (512 unified), getAddressableNumArchVGPRs (256),
//             getSGPREncodingGranule (8), getSGPRAllocGranule (16), getTotalNumSGPRs (800),
//             getAddressableNumSGPRs (102); llvm-objdump-22 prints .amdhsa_next_free_sgpr (field+1)*8,
//             getMaxWavesPerEU (8 with the gfx90a feature).
//  [Usage]    LLVM AMDGPUUsage "compute_pgm_rsrc2" GRANULATED_LDS_SIZE granularity: gfx9 128 dwords,
//             gfx950 320 dwords; "compute_pgm_rsrc3 GFX90A" ACCUM_OFFSET in units of 4 VGPRs.
//  [Specs]    ROCm "GPU hardware specifications": LDS 64 KiB/CU on MI200/MI300X, 160 KiB on MI355X;
//             4 SIMDs per CU; wave64.
inline constexpr ArchParams kArchParams[] = {
    //   arch         name      vEnc vAlloc maxV maxA vFile sEnc sAlloc sFile maxS acc  waves simd wsz  wg    lds     ldsG
    {Arch::gfx90a, "gfx90a",    8,   8,     256, 256, 512,  8,   16,    800,  102,  4,   8,    4,   64,  1024, 65536,  512},
    {Arch::gfx942, "gfx942",    8,   8,     256, 256, 512,  8,   16,    800,  102,  4,   8,    4,   64,  1024, 65536,  512},
    {Arch::gfx950, "gfx950",    8,   8,     256, 256, 512,  8,   16,    800,  102,  4,   8,    4,   64,  1024, 163840, 1280},
};

// Parameters of a modeled processor; nullptr for Arch::Other.
inline const ArchParams* arch_params(Arch a) {
  for (const auto& p : kArchParams)
    if (p.arch == a) return &p;
  return nullptr;
}

}  // namespace asmevo::codeobj
