#include "cli/abi_diff.h"

#include <CLI/CLI.hpp>

#include <iostream>

#include "codeobj/code_object.h"
#include "rebuild/abi_diff.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

CLI::App* add_abi_diff_command(CLI::App& app, AbiDiffOptions& opts) {
  auto* cmd = app.add_subcommand(
      "abi-diff", "Check that code object B can replace A under every launch of A (exit 1 on an ABI break)");
  cmd->add_option("a", opts.a, "the original code object")->required();
  cmd->add_option("b", opts.b, "the replacement code object")->required();
  cmd->add_flag("--json", opts.json, "machine-readable report (schema asmevo.abi-diff/1, docs/rebuild.md)");
  return cmd;
}

int run_abi_diff(const AbiDiffOptions& opts) {
  auto a = codeobj::CodeObject::parse(read_file_bytes(opts.a), opts.a);
  auto b = codeobj::CodeObject::parse(read_file_bytes(opts.b), opts.b);
  rebuild::AbiDiff d = rebuild::abi_diff(a, b);
  if (opts.json)
    std::cout << d.to_json(opts.a, opts.b).dump(2) << "\n";
  else
    std::cout << d.to_text(opts.a, opts.b);
  return d.compatible() ? kExitOk : kExitFailure;
}

}  // namespace asmevo::cli
