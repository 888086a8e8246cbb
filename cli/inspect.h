// `asmevo inspect`: everything AsmEvo knows about the code objects in a file.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace asmevo::cli {

struct InspectOptions {
  std::string file;
  std::optional<std::string> kernel;  // only this kernel
  bool json = false;
  bool kd_fields = true;  // text output: print every KD field
};

// Builds the documented JSON report (docs/inspect-json.md). Throws asmevo::Error.
nlohmann::json inspect_report(const InspectOptions& opts);
// Renders the report as text for people.
std::string render_inspect_text(const nlohmann::json& report, bool kd_fields);

int run_inspect(const InspectOptions& opts);

}  // namespace asmevo::cli
