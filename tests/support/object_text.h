// The .text section of an ELF object or code object, read with LLVM's Object library (an oracle
// independent of AsmEvo's own codeobj/ reader).
#pragma once
#include <cstdint>
#include <filesystem>
#include <vector>

namespace asmevo::testing {

struct TextSection {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};
// Throws std::runtime_error when the file is unreadable, not an object, or has no .text.
TextSection read_text_section(const std::filesystem::path& file);

}  // namespace asmevo::testing
