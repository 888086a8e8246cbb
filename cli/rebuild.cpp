#include "cli/rebuild.h"

#include <fmt/format.h>

#include <iostream>

#include "rebuild/rebuild.h"
#include "rebuild/roundtrip.h"
#include "cli/disasm.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

CLI::App* add_rebuild_command(CLI::App& app, RebuildOptions& opts) {
  auto* cmd = app.add_subcommand("rebuild", "Assemble and link recovered (or edited) assembly into a code object, in-process");
  cmd->add_option("input", opts.input, "assembly as `asmevo disasm` writes it")->required();
  cmd->add_option("-o,--output", opts.output, "code object to write (atomically)")->required();
  return cmd;
}

int run_rebuild(const RebuildOptions& opts) {
  if (opts.input == opts.output) throw Error("output would overwrite the input", opts.input, "choose another -o path");
  auto text = read_file_text(opts.input);
  auto bytes = rebuild::rebuild_text(text, opts.input);
  write_file_atomic(opts.output, bytes);
  std::cout << fmt::format("wrote {} ({} bytes)\n", opts.output, bytes.size());
  return kExitOk;
}

CLI::App* add_roundtrip_command(CLI::App& app, RoundtripOptions& opts) {
  auto* cmd = app.add_subcommand("roundtrip", "Recover + rebuild in memory and compare with the original (exit 0 only if identical)");
  cmd->add_option("file", opts.file, "code object (or a container holding exactly one)")->required();
  cmd->add_flag("--json", opts.json, "machine-readable result");
  return cmd;
}

int run_roundtrip(const RoundtripOptions& opts) {
  auto co = load_single_code_object(opts.file);
  auto r = rebuild::roundtrip(co);
  if (opts.json) {
    auto j = r.to_json();
    j["file"] = opts.file;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("{}: {} ({} instructions, {} kept as raw bytes, {} rebuild pass(es); recover {:.2f} ms, rebuild {:.2f} ms)\n",
                             opts.file, r.ok() ? "identical" : fmt::format("{} difference(s)", r.differences.size()),
                             r.instructions, r.raw_instructions, r.passes, r.recover_ms, r.rebuild_ms);
    std::cout << fmt::format("  compared: e_flags, code object version, allocated sections byte for byte, every KD byte, "
                             "metadata (document and bytes: {}), symbols\n",
                             r.metadata_bytes_equal ? "equal" : "different");
    for (const auto& d : r.differences)
      std::cout << fmt::format("  {} at {}: original {} rebuilt {}{}\n", d.what, d.where, d.original, d.rebuilt,
                               d.detail.empty() ? "" : "  (" + d.detail + ")");
  }
  return r.ok() ? kExitOk : kExitFailure;
}

}  // namespace asmevo::cli
