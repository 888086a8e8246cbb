// All static safety checks of a code object, the gate a candidate passes before emulation:
// waitcnt safety (waitcnt.h), software-managed hazards (hazards.h) and resources (resources.h).
// The ABI comparison with the original (rebuild/abi_diff.h) is separate: it needs both objects.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/violation.h"
#include "codeobj/code_object.h"

namespace asmevo::check {

struct CheckOptions {
  std::optional<std::string> kernel;  // only this kernel (and the device functions it may call)
  // LDS bytes the launch adds (dynamic shared memory), when known: enables resources.lds-offset.
  std::optional<uint32_t> dynamic_lds;
  bool waitcnt = true, hazards = true, resources = true;
};

struct FunctionSummary {
  std::string name;
  bool is_kernel = true;
  size_t instructions = 0, blocks = 0;
};

struct CheckReport {
  std::string object;  // the code object's name / origin
  std::string target;  // "gfx942:sramecc+:xnack-"
  std::vector<FunctionSummary> functions;
  std::vector<Violation> violations;
  bool clean() const { return violations.empty(); }
  std::string to_text() const;
  nlohmann::json to_json() const;
};

// Throws asmevo::Error for a processor AsmEvo does not model or a kernel name that does not exist.
CheckReport check_code_object(const codeobj::CodeObject& co, const CheckOptions& opts = {});

}  // namespace asmevo::check
