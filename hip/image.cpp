#include "hip/image.h"

#include <algorithm>
#include <cstring>

#include "support/error.h"

namespace asmevo::hip {

size_t image_size(const uint8_t* p, const std::string& where) {
  if (std::memcmp(p, "\x7f" "ELF", 4) == 0) {
    uint64_t shoff;
    uint16_t shentsize, shnum;
    std::memcpy(&shoff, p + 0x28, 8), std::memcpy(&shentsize, p + 0x3a, 2), std::memcpy(&shnum, p + 0x3c, 2);
    size_t end = shoff + static_cast<size_t>(shentsize) * shnum;
    for (uint16_t i = 0; i < shnum; ++i) {  // sections may lie after the header table
      const uint8_t* sh = p + shoff + static_cast<size_t>(i) * shentsize;
      uint32_t type;
      uint64_t off, size;
      std::memcpy(&type, sh + 4, 4), std::memcpy(&off, sh + 0x18, 8), std::memcpy(&size, sh + 0x20, 8);
      if (type != 8 /*SHT_NOBITS*/) end = std::max<size_t>(end, off + size);
    }
    return end;
  }
  if (std::memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
    uint64_t count, pos = 32, end = 32;
    std::memcpy(&count, p + 24, 8);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t off, size, idlen;
      std::memcpy(&off, p + pos, 8), std::memcpy(&size, p + pos + 8, 8), std::memcpy(&idlen, p + pos + 16, 8);
      pos += 24 + idlen;
      end = std::max({end, off + size, pos});
    }
    return end;
  }
  if (std::memcmp(p, "CCOB", 4) == 0)
    throw Error("compressed offload bundle (CCOB): not supported", where, "build without --offload-compress");
  throw Error("the image is neither an AMDGPU code object (ELF) nor a clang offload bundle", where);
}

}  // namespace asmevo::hip
