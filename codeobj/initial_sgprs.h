// The SGPRs the hardware sets at a kernel's entry (AMDGPUUsage, "Initial Kernel Execution State"):
// the user SGPRs the KD enables, then the system SGPRs (workgroup ids x, y, z, workgroup info, the
// private segment wave offset), in that order. One definition for resource recomputation and the
// moves that place code or registers around the entry.
#pragma once
#include "codeobj/kernel_descriptor.h"

namespace asmevo::codeobj {

// The system SGPRs the KD enables (they follow the user SGPRs).
inline unsigned system_sgpr_count(const KernelDescriptor& kd) {
  return kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_x") + kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y") +
         kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_z") + kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_info") +
         kd.get("compute_pgm_rsrc2.enable_private_segment");
}

// SGPRs [0, initialized_sgpr_count) hold values the hardware set at the entry.
inline unsigned initialized_sgpr_count(const KernelDescriptor& kd) { return kd.user_sgpr_count() + system_sgpr_count(kd); }

}  // namespace asmevo::codeobj
