// `asmevo check FILE [--kernel K] [--launch SPEC] [--json] [--rules]`: the static safety checks (check/check.h)
// on every code object in FILE. Exit 0 when clean, 1 when any check fails, 2 on bad input.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct CheckOptions {
  std::string file, kernel;
  bool json = false;
  long long dynamic_lds = -1;  // bytes of dynamic LDS at launch; -1: unknown
  std::string launch;          // launch spec: its kernel and (smallest) dynamic LDS
  bool rules = false;  // print the hazard rule table instead of checking
};

CLI::App* add_check_command(CLI::App& app, CheckOptions& opts);
int run_check(const CheckOptions& opts);

}  // namespace asmevo::cli
