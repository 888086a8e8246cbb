// The content hash that names code objects everywhere (the optimizer's store, capture directories,
// substitution): 16 hex digits of FNV-1a 64 over the bytes.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace asmevo {

std::string content_hash(std::span<const uint8_t> bytes);

}  // namespace asmevo
