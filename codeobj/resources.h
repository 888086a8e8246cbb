// Resources a kernel uses, derived from its kernel descriptor (what the hardware allocates)
// and cross-checked against the metadata, plus the occupancy they allow.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codeobj/arch_params.h"
#include "codeobj/kernel_descriptor.h"
#include "codeobj/metadata.h"

namespace asmevo::codeobj {

struct Occupancy {
  unsigned waves_per_simd = 0;  // the binding limit
  unsigned by_vgprs = 0, by_sgprs = 0, by_lds = 0, by_workgroup = 0;  // waves per SIMD each allows
  unsigned workgroups_per_cu = 0;
  std::string limiter;  // "vgprs", "sgprs", "lds", "waves", "workgroup"
};

struct Resources {
  // Allocated by the KD (granule-rounded).
  unsigned vgprs_allocated = 0;  // unified VGPR+AGPR per lane
  unsigned arch_vgprs = 0;       // accum_offset on gfx90a+ (VGPRs below the AGPR block)
  unsigned agprs = 0;            // vgprs_allocated - arch_vgprs on gfx90a+
  unsigned sgprs_allocated = 0;
  uint32_t lds_bytes = 0;        // group_segment_fixed_size (static LDS)
  uint32_t scratch_bytes = 0;    // private_segment_fixed_size per lane
  uint32_t kernarg_bytes = 0;
  unsigned max_workgroup_size = 0;
  // As the metadata reports them (what the compiler counted).
  unsigned md_vgpr_count = 0, md_agpr_count = 0, md_sgpr_count = 0;
  Occupancy occupancy;
  // Disagreements between KD and metadata, e.g. metadata counts above the KD allocation.
  std::vector<std::string> inconsistencies;
};

// `md` may be null (objects without a metadata note); then metadata-derived fields stay 0.
// `dynamic_lds` adds launch-time LDS to the occupancy computation.
Resources derive_resources(const ArchParams& arch, const KernelDescriptor& kd, const KernelMetadata* md,
                           uint32_t dynamic_lds = 0);

Occupancy compute_occupancy(const ArchParams& arch, unsigned vgprs_allocated, unsigned sgprs_allocated,
                            uint32_t lds_bytes, unsigned workgroup_size);

}  // namespace asmevo::codeobj
