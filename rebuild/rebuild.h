// Rebuild: assembles a recovered (possibly edited) listing in-process with LLVM MC and links it
// with lld's ELF driver the way clang links device code objects.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "program/recover.h"

namespace asmevo::rebuild {

// Returns the linked code object. Throws asmevo::Error with assembler diagnostics.
std::vector<uint8_t> rebuild(const program::Listing& listing, const std::string& name);

// Same, from assembly text (what `asmevo rebuild IN.s` reads).
std::vector<uint8_t> rebuild_text(const std::string& assembly, const std::string& name);

}  // namespace asmevo::rebuild
