#include "check/violation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace asmevo::check {

std::string Violation::to_text() const {
  std::string s = fmt::format("{} [{}] {} 0x{:x}: {}", rule, check, function, pc, text);
  if (!message.empty()) s += "\n    " + message;
  return s;
}

nlohmann::json Violation::to_json() const {
  nlohmann::json j;
  j["check"] = check;
  j["rule"] = rule;
  j["function"] = function;
  j["pc"] = pc;
  j["pc_hex"] = fmt::format("0x{:x}", pc);
  j["text"] = text;
  if (!reg.empty()) j["register"] = reg;
  if (producer_pc) {
    j["producer_pc"] = *producer_pc;
    j["producer_text"] = producer_text;
  }
  if (!needed_wait.empty()) j["needed_wait"] = needed_wait;
  if (needed >= 0) j["needed_wait_states"] = needed;
  if (found >= 0) j["found_wait_states"] = found;
  j["message"] = message;
  return j;
}

}  // namespace asmevo::check
