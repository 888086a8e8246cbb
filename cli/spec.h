// `asmevo spec FILE [--kernel K] [-o SPEC.yaml]`: drafts a launch spec for one kernel from its
// code object's metadata (verify/spec_draft.h). Exit 0 with the draft, 2 on bad input.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct SpecOptions {
  std::string file, kernel, output;
};

CLI::App* add_spec_command(CLI::App& app, SpecOptions& opts);
int run_spec(const SpecOptions& opts);

}  // namespace asmevo::cli
