// asmevo: makes compiled AMD GPU kernels faster at the assembly level.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/inspect.h"
#include "support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"AsmEvo: recover, verify and optimize compiled AMD GPU kernels (gfx90a, gfx942, gfx950)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "asmevo 0.1");

  asmevo::cli::InspectOptions inspect;
  auto* cmd_inspect = app.add_subcommand("inspect", "Describe every code object and kernel in a file");
  cmd_inspect->add_option("file", inspect.file, "code object, offload bundle, or host ELF with .hip_fatbin")
      ->required();
  cmd_inspect->add_option("--kernel", inspect.kernel, "only this kernel");
  cmd_inspect->add_flag("--json", inspect.json, "machine-readable report (schema asmevo.inspect/1, docs/inspect-json.md)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : asmevo::kExitBadInput;
  }
  try {
    if (*cmd_inspect) return asmevo::cli::run_inspect(inspect);
  } catch (const asmevo::Error& e) {
    std::cerr << e.format() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n  please report this with the input file\n";
    return asmevo::kExitInternal;
  }
  return 0;
}
