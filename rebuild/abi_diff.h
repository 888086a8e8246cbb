// ABI comparison of two code objects: can B replace A under every launch of A?
//
// A *break* is any difference a launch of A could observe or that changes how the hardware or the
// runtime sets a wave up: the kernel set and symbol names, the kernarg segment (size, alignment,
// every argument's offset/size/value_kind/address_space), launch-setup KD fields (user and system
// SGPRs, workitem-id VGPRs, wave size, kernarg preload, dynamic stack, private segment), the float
// mode the hardware starts the wave in, the target and the code object version. A *change* is a
// resource difference (registers, LDS, scratch, accum_offset, code size) that affects occupancy
// and speed but not correctness. The per-field classification of the kernel descriptor is the
// table kKdClassification in abi_diff.cpp; any KD bit field missing from it counts as a break.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codeobj/code_object.h"

namespace asmevo::rebuild {

struct AbiFinding {
  std::string kernel;   // empty for file-level findings
  std::string field;    // "target", "kernels", "kernarg_segment_size", "args[2].offset",
                        // "compute_pgm_rsrc2.user_sgpr_count", "symbol kGauss5", ...
  std::string a, b;     // the values in A and B ("-" when absent)
  std::string message;  // why it matters
};

struct AbiDiff {
  std::vector<AbiFinding> breaks;   // B cannot replace A
  std::vector<AbiFinding> changes;  // allowed differences (resources), reported
  bool compatible() const { return breaks.empty(); }
  // {"schema":"asmevo.abi-diff/1","a":..,"b":..,"compatible":bool,"breaks":[..],"changes":[..]}
  nlohmann::json to_json(const std::string& a_name, const std::string& b_name) const;
  std::string to_text(const std::string& a_name, const std::string& b_name) const;
};

AbiDiff abi_diff(const codeobj::CodeObject& a, const codeobj::CodeObject& b);

// How abi_diff treats one kernel-descriptor field.
enum class KdFieldClass { Break, Resource, Ignored };
struct KdFieldRule {
  const char* field;  // name as in kd_bit_fields(), or a KD member ("kernarg_size", ...)
  KdFieldClass cls;
  const char* why;
};
// The classification table (every KD bit field and the KD's scalar members).
const std::vector<KdFieldRule>& kd_field_rules();

}  // namespace asmevo::rebuild
