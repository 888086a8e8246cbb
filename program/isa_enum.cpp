#include "program/isa_enum.h"

#include <array>
#include <cstring>
#include <vector>

#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::program {
namespace {

// One gfx9 encoding format: the fixed bits of its first dword, where its opcode field lies, and a
// second dword for 64-bit formats (operands chosen to be legal: v0, s0, `off`).
struct Format {
  const char* name;
  uint32_t prefix;
  unsigned opcode_shift, opcode_bits;
  bool two_dwords;
  uint32_t second;
};

// Field layouts from the Vega/CDNA ISA guides' "Microcode Formats" chapter.
constexpr std::array kFormats = {
    Format{"SOP2", 0x80000000u, 23, 7, false, 0},
    Format{"SOPK", 0xB0000000u, 23, 5, false, 0},
    Format{"SOP1", 0xBE800000u, 8, 8, false, 0},
    Format{"SOPC", 0xBF000000u, 16, 7, false, 0},
    Format{"SOPP", 0xBF800000u, 16, 7, false, 0},
    Format{"SMEM", 0xC0000000u, 18, 8, true, 0},
    Format{"VOP2", 0x00000100u, 25, 6, false, 0},
    Format{"VOP1", 0x7E000100u, 9, 8, false, 0},
    Format{"VOPC", 0x7C000100u, 17, 8, false, 0},
    Format{"VOP3", 0xD0000000u, 16, 10, true, 0x100u | (0x100u << 9) | (0x100u << 18)},
    Format{"VOP3P", 0xD3800000u, 16, 7, true, 0x100u | (0x100u << 9) | (0x100u << 18) | (3u << 27)},
    Format{"DS", 0xD8000000u, 17, 8, true, 0},
    Format{"MUBUF", 0xE0000000u, 18, 7, true, 0},
    Format{"MTBUF", 0xE8000000u, 15, 4, true, 0},
    Format{"FLAT", 0xDC000000u, 18, 7, true, 0x7Fu << 16},
    Format{"SCRATCH", 0xDC004000u, 18, 7, true, 0x7Fu << 16},
    Format{"GLOBAL", 0xDC008000u, 18, 7, true, 0x7Fu << 16},
};

}  // namespace

std::set<std::string> decodable_mnemonics(const codeobj::TargetId& target) {
  Decoder dec(target);
  std::set<std::string> out;
  std::vector<uint8_t> bytes(16, 0);
  for (const auto& f : kFormats) {
    for (uint32_t op = 0; op < (1u << f.opcode_bits); ++op) {
      uint32_t w0 = f.prefix | (op << f.opcode_shift);
      std::memcpy(bytes.data(), &w0, 4);
      std::memcpy(bytes.data() + 4, &f.second, 4);
      try {
        out.insert(dec.decode_one(bytes, 0).mnemonic);
      } catch (const Error&) {
        // Not an opcode of this processor (or not with these operand fields).
      }
    }
  }
  return out;
}

}  // namespace asmevo::program
