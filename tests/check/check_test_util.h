// Helpers for the static-check tests: assemble small snippets with this LLVM's llvm-mc (and
// ld.lld for whole code objects) at test time and decode them with program::Decoder.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "check/code.h"
#include "codeobj/code_object.h"

namespace asmevo::check::test {

// A directory for this test process's files (removed at exit).
std::filesystem::path scratch_dir();

// Runs a shell command; returns its exit status and captures stdout+stderr into `output`.
int run(const std::string& command, std::string* output = nullptr);

// Assembles `body` (instructions and local labels, one per line) for `mcpu` ("gfx942") and
// decodes its .text into a Function. Throws std::runtime_error when llvm-mc rejects it.
Function assemble_function(const std::string& body, const std::string& mcpu, bool is_kernel = true);

struct KernelSpec {
  std::string name = "k";
  unsigned next_free_vgpr = 32, next_free_sgpr = 16, accum_offset = 32;  // accum_offset: 0 = next_free_vgpr
  uint32_t group_segment = 0, private_segment = 0;
  bool dynamic_stack = false;
  std::string extra_directives;  // more .amdhsa_* lines
};
// A complete code object with one kernel whose code is `body` (s_endpgm appended), built with
// llvm-mc + ld.lld -shared.
codeobj::CodeObject assemble_kernel(const std::string& body, const std::string& mcpu, const KernelSpec& spec = {});
// The path of the code object assemble_kernel last wrote for `spec.name` (for CLI tests).
std::filesystem::path assemble_kernel_file(const std::string& body, const std::string& mcpu, const KernelSpec& spec = {});

}  // namespace asmevo::check::test
