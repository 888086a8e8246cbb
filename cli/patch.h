// `asmevo patch`: in-place patch of one kernel's machine code (rebuild/patch.h has the rules).
#pragma once
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct PatchOptions {
  std::string file, kernel, output;
  std::optional<std::string> at;        // --at OFFSET (kernel-relative; an address with --absolute)
  std::optional<std::string> asm_text;  // --asm TEXT
  std::optional<unsigned> replace;      // --replace N whole instructions (default 1)
  std::optional<unsigned> delete_count; // --delete N: replace N instructions with s_nop 0
  bool absolute = false;
  std::optional<std::string> edits;     // --edits EDITS.yaml
  bool json = false;
};

// Adds the `patch` subcommand to `app`, filling `opts`.
CLI::App* add_patch_command(CLI::App& app, PatchOptions& opts);
int run_patch(const PatchOptions& opts);

}  // namespace asmevo::cli
