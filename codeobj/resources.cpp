#include "codeobj/resources.h"

#include <algorithm>

namespace asmevo::codeobj {
namespace {
unsigned round_up(unsigned v, unsigned g) { return g ? (v + g - 1) / g * g : v; }
}  // namespace

Occupancy compute_occupancy(const ArchParams& a, unsigned vgprs, unsigned sgprs, uint32_t lds, unsigned wg_size) {
  Occupancy o;
  o.by_vgprs = vgprs ? std::min(a.max_waves_per_simd, a.vgprs_per_simd_lane / round_up(vgprs, a.vgpr_alloc_granule))
                     : a.max_waves_per_simd;
  o.by_sgprs = sgprs ? std::min(a.max_waves_per_simd, a.sgprs_per_simd / round_up(sgprs, a.sgpr_alloc_granule))
                     : a.max_waves_per_simd;
  unsigned waves_per_wg = std::max(1u, (wg_size + a.wave_size - 1) / a.wave_size);
  // A workgroup's waves are spread over the CU's SIMDs; the CU holds at most
  // max_waves_per_simd * simds_per_cu waves.
  unsigned cu_wave_slots = a.max_waves_per_simd * a.simds_per_cu;
  unsigned wg_by_slots = cu_wave_slots / waves_per_wg;
  o.by_workgroup = std::min(a.max_waves_per_simd, wg_by_slots * waves_per_wg / a.simds_per_cu);
  unsigned lds_alloc = lds ? round_up(lds, a.lds_encoding_granule) : 0;
  unsigned wg_by_lds = lds_alloc ? a.lds_bytes_per_cu / lds_alloc : wg_by_slots;
  o.by_lds = std::min(a.max_waves_per_simd, std::max(wg_by_lds * waves_per_wg / a.simds_per_cu, wg_by_lds ? 1u : 0u));
  o.waves_per_simd = std::min({o.by_vgprs, o.by_sgprs, o.by_lds, o.by_workgroup});
  // Workgroups per CU allowed by the per-SIMD register limits.
  unsigned wg_by_regs = (std::min(o.by_vgprs, o.by_sgprs) * a.simds_per_cu) / waves_per_wg;
  o.workgroups_per_cu = std::min({wg_by_regs, wg_by_lds, wg_by_slots});
  o.limiter = o.waves_per_simd == a.max_waves_per_simd && o.by_workgroup == a.max_waves_per_simd ? "waves"
              : o.waves_per_simd == o.by_vgprs                                                     ? "vgprs"
              : o.waves_per_simd == o.by_sgprs                                                     ? "sgprs"
              : o.waves_per_simd == o.by_lds                                                       ? "lds"
                                                                                                   : "workgroup";
  return o;
}

Resources derive_resources(const ArchParams& a, const KernelDescriptor& kd, const KernelMetadata* md, uint32_t dynamic_lds) {
  Resources r;
  r.vgprs_allocated = (kd.vgpr_blocks() + 1) * a.vgpr_encoding_granule;
  // The field counts units of 8 SGPRs; the hardware allocates in granules of 16.
  r.sgprs_allocated = round_up((kd.sgpr_blocks() + 1) * a.sgpr_encoding_granule, a.sgpr_alloc_granule);
  r.arch_vgprs = (kd.accum_offset_field() + 1) * a.accum_offset_granule;
  r.arch_vgprs = std::min(r.arch_vgprs, r.vgprs_allocated);
  r.agprs = r.vgprs_allocated - r.arch_vgprs;
  r.lds_bytes = kd.group_segment_fixed_size;
  r.scratch_bytes = kd.private_segment_fixed_size;
  r.kernarg_bytes = kd.kernarg_size;
  r.max_workgroup_size = a.max_workgroup_size;
  if (md) {
    r.md_vgpr_count = static_cast<unsigned>(md->vgpr_count);
    r.md_agpr_count = static_cast<unsigned>(md->agpr_count.value_or(0));
    r.md_sgpr_count = static_cast<unsigned>(md->sgpr_count);
    r.max_workgroup_size = static_cast<unsigned>(md->max_flat_workgroup_size);
    if (md->group_segment_fixed_size != kd.group_segment_fixed_size)
      r.inconsistencies.push_back("metadata .group_segment_fixed_size " + std::to_string(md->group_segment_fixed_size) +
                                  " != KD " + std::to_string(kd.group_segment_fixed_size));
    if (md->private_segment_fixed_size != kd.private_segment_fixed_size)
      r.inconsistencies.push_back("metadata .private_segment_fixed_size " + std::to_string(md->private_segment_fixed_size) +
                                  " != KD " + std::to_string(kd.private_segment_fixed_size));
    if (md->kernarg_segment_size != kd.kernarg_size)
      r.inconsistencies.push_back("metadata .kernarg_segment_size " + std::to_string(md->kernarg_segment_size) +
                                  " != KD " + std::to_string(kd.kernarg_size));
    for (const auto& w : kernarg_layout_warnings(*md)) r.inconsistencies.push_back(w);
    // On gfx90a+ .vgpr_count counts the unified file (VGPRs aligned to 4, then AGPRs).
    if (r.md_vgpr_count > r.vgprs_allocated)
      r.inconsistencies.push_back("metadata .vgpr_count " + std::to_string(r.md_vgpr_count) + " exceeds the " +
                                  std::to_string(r.vgprs_allocated) + " VGPRs the KD allocates");
    if (r.md_agpr_count > r.agprs)
      r.inconsistencies.push_back("metadata .agpr_count " + std::to_string(r.md_agpr_count) + " exceeds the " +
                                  std::to_string(r.agprs) + " AGPRs the KD allocates");
  }
  r.occupancy = compute_occupancy(a, r.vgprs_allocated, r.sgprs_allocated, r.lds_bytes + dynamic_lds, r.max_workgroup_size);
  return r;
}

}  // namespace asmevo::codeobj
