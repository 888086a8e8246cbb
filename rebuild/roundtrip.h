// Round trip: recover a code object, rebuild it in memory, and compare the parts that define
// the kernel's behaviour and ABI: code bytes, kernel descriptors, metadata, e_flags, code-object
// version, other allocated sections' bytes, and symbols.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "program/recover.h"

namespace asmevo::rebuild {

struct Difference {
  std::string what;      // "text", "kernel descriptor", "metadata", "symbol", "e_flags", "section", ...
  std::string where;     // section/kernel/symbol name and offset
  std::string original;  // bytes or value in the original
  std::string rebuilt;   // bytes or value in the rebuilt object
  std::string detail;    // e.g. the instruction text at that offset
};

struct RoundtripResult {
  std::vector<Difference> differences;
  unsigned instructions = 0;      // instructions in the recovered code
  unsigned raw_instructions = 0;  // kept as raw bytes because their text re-encodes differently
  unsigned passes = 0;            // rebuilds needed (raw-instruction fallback)
  bool metadata_bytes_equal = false;
  double recover_ms = 0, rebuild_ms = 0;
  bool ok() const { return differences.empty(); }
  nlohmann::json to_json() const;
};

// Compares `rebuilt` against `original` (see the header comment). Symbols created by the
// linker (_DYNAMIC) are ignored; everything else must match by name.
std::vector<Difference> compare_code_objects(const codeobj::CodeObject& original, const codeobj::CodeObject& rebuilt);

// Recover + rebuild in memory (raw-byte fallback for instructions whose text re-encodes
// differently), then compare. `verified`, when given, receives the final listing: the one whose
// rebuild reproduced the original (what `asmevo disasm` prints).
RoundtripResult roundtrip(const codeobj::CodeObject& original, program::Listing* verified = nullptr);

}  // namespace asmevo::rebuild
