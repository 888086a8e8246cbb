// One finding of a static check, in the form every check reports it.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace asmevo::check {

struct Violation {
  std::string check;      // "waitcnt", "hazard", "resources"
  std::string rule;       // rule id, e.g. "waitcnt.raw", "valu-sgpr-vmem"
  std::string function;   // kernel or device function name
  uint64_t pc = 0;        // address of the offending (consuming) instruction
  std::string text;       // its assembly
  std::string reg;        // the register involved, assembly spelling ("v[4:7]", "s2"); may be empty
  std::optional<uint64_t> producer_pc;  // the instruction that creates the obligation
  std::string producer_text;
  // waitcnt: the wait that makes the use safe ("vmcnt(2)"). hazard: wait states needed and
  // found (found = the fewest over all paths). Unused fields stay empty / -1.
  std::string needed_wait;
  int needed = -1, found = -1;
  std::string message;    // one line, for people

  // "waitcnt.raw at 0x1b24 in k: v_add_f32_e32 v0, v1, v2 reads v1 ..."
  std::string to_text() const;
  nlohmann::json to_json() const;
};

}  // namespace asmevo::check
