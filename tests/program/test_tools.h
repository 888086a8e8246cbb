// Helpers for the program tests: run this LLVM's tools (llvm-mc, llvm-objdump, clang) on small
// inputs at test time and read their results.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace asmevo::program::test {

// Bytes of little-endian 32-bit words, as the ISA documents and llvm-objdump print them.
std::vector<uint8_t> words(std::initializer_list<uint32_t> ws);

// A directory for this test process's files, <tmp>/asmevo_program_test_<pid>/<name>, removed at exit.
std::filesystem::path scratch_dir(const std::string& name);

// Runs a shell command; returns its exit status and captures stdout+stderr into `output`.
int run(const std::string& command, std::string* output = nullptr);

// Assembles `source` with llvm-mc for `mcpu` into an object file; returns its path.
std::filesystem::path assemble(const std::string& source, const std::string& mcpu, const std::string& name);

struct Section {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};
// The .text section of an ELF object or code object (via llvm::object).
Section read_text(const std::filesystem::path& file);

struct ObjdumpInst {
  uint64_t address = 0;
  std::string text;      // instruction text, trimmed
  std::string encoding;  // "C00200C0 00000024"
};
// `llvm-objdump -d` of `file`, one entry per instruction.
std::vector<ObjdumpInst> objdump(const std::filesystem::path& file, const std::string& mcpu);

}  // namespace asmevo::program::test
