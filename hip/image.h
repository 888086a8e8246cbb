// The size of a code-object image the HIP API hands over by pointer only (hipModuleLoadData, the
// fat-binary wrapper): an ELF's extent from its section headers, or a clang offload bundle's from
// its entry table. Throws asmevo::Error for anything else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace asmevo::hip {

size_t image_size(const uint8_t* image, const std::string& where);

}  // namespace asmevo::hip
