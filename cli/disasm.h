// `asmevo disasm FILE [-o OUT.s]`: reassemblable assembly for a code object.
#pragma once
#include <string>

#include "codeobj/code_object.h"

namespace asmevo::cli {

struct DisasmOptions {
  std::string file, output;
  bool no_comments = false;
};

codeobj::CodeObject load_single_code_object(const std::string& file);
int run_disasm(const DisasmOptions& opts);

}  // namespace asmevo::cli
