// Helpers for the build tests: scratch directories, running this LLVM's tools at test time,
// compiling the tiny HIP kernels, and comparing code objects section by section.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "codeobj/code_object.h"

namespace asmevo::rebuild::test {

// <tmp>/asmevo_build_test_<pid>/<name>, created; the process directory is removed at exit.
std::filesystem::path scratch_dir(const std::string& name);

// Runs a shell command; returns its exit status, captures stdout+stderr into `output`.
int run(const std::string& command, std::string* output = nullptr);

std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& bytes);

// What clang++-22 produces for tests/rebuild/tiny_kernels.hip (fixed -cuid so runs agree).
struct ClangOutputs {
  std::string assembly;              // -S
  std::vector<uint8_t> code_object;  // full device compile + link (what `-c`/no flag produce)
  std::filesystem::path s_path, co_path;
};
// `cov` 0 = clang's default code object version. Cached per (arch, cov) within the process.
const ClangOutputs& clang_tiny_kernels(const std::string& arch, unsigned cov = 0);

// The differences between two code objects in everything that is loaded or read by the
// runtime: ELF header fields except the section-header table's position/count, program headers,
// and every allocated section (name, address, flags, bytes). Empty when they agree.
std::vector<std::string> loaded_differences(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

// A corpus code object by its path relative to <binary>/corpus/hip, e.g. "gfx942/blur_gauss.co".
std::filesystem::path corpus_path(const std::string& rel);

}  // namespace asmevo::rebuild::test
