#include "cli/spec.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "support/error.h"
#include "support/file_io.h"
#include "verify/spec_draft.h"

namespace asmevo::cli {

CLI::App* add_spec_command(CLI::App& app, SpecOptions& opts) {
  auto* cmd = app.add_subcommand("spec", "Draft a launch spec (YAML) for a kernel from its metadata; replace every FILL");
  cmd->add_option("file", opts.file, "code object, offload bundle, or host ELF with .hip_fatbin")->required();
  cmd->add_option("--kernel", opts.kernel, "kernel to draft for (needed when the file holds several)");
  cmd->add_option("-o,--output", opts.output, "write the draft here (atomically) instead of stdout");
  return cmd;
}

int run_spec(const SpecOptions& opts) {
  auto bytes = read_file_bytes(opts.file);
  // The whole draft exists before anything is written, and the write is atomic: an error never
  // leaves a partial spec behind.
  auto draft = verify::draft_launch_spec_for_file(bytes, opts.file, opts.kernel);
  if (opts.output.empty()) {
    std::cout << draft.yaml;
  } else {
    write_file_atomic(opts.output, draft.yaml);
    std::cerr << "wrote a draft launch spec for " << draft.kernel << " to " << opts.output
              << ": replace every FILL before using it\n";
  }
  return kExitOk;
}

}  // namespace asmevo::cli
