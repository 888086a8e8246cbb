#include "program/isa_enum.h"

#include <array>
#include <cstring>
#include <random>
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
  uint32_t fixed_mask;  // the encoding's fixed bits of the first dword (prefix bits, FLAT's segment)
};

// Field layouts from the Vega/CDNA ISA guides' "Microcode Formats" chapter.
constexpr std::array kFormats = {
    Format{"SOP2", 0x80000000u, 23, 7, false, 0, 0xC0000000u},
    Format{"SOPK", 0xB0000000u, 23, 5, false, 0, 0xF0000000u},
    Format{"SOP1", 0xBE800000u, 8, 8, false, 0, 0xFF800000u},
    Format{"SOPC", 0xBF000000u, 16, 7, false, 0, 0xFF800000u},
    Format{"SOPP", 0xBF800000u, 16, 7, false, 0, 0xFF800000u},
    Format{"SMEM", 0xC0000000u, 18, 8, true, 0, 0xFC000000u},
    Format{"VOP2", 0x00000100u, 25, 6, false, 0, 0x80000000u},
    Format{"VOP1", 0x7E000100u, 9, 8, false, 0, 0xFE000000u},
    Format{"VOPC", 0x7C000100u, 17, 8, false, 0, 0xFE000000u},
    Format{"VOP3", 0xD0000000u, 16, 10, true, 0x100u | (0x100u << 9) | (0x100u << 18), 0xFC000000u},
    Format{"VOP3P", 0xD3800000u, 16, 7, true, 0x100u | (0x100u << 9) | (0x100u << 18) | (3u << 27), 0xFF800000u},
    Format{"DS", 0xD8000000u, 17, 8, true, 0, 0xFC000000u},
    Format{"MUBUF", 0xE0000000u, 18, 7, true, 0, 0xFC000000u},
    Format{"MTBUF", 0xE8000000u, 15, 4, true, 0, 0xFC000000u},
    Format{"FLAT", 0xDC000000u, 18, 7, true, 0x7Fu << 16, 0xFC00C000u},
    Format{"SCRATCH", 0xDC004000u, 18, 7, true, 0x7Fu << 16, 0xFC00C000u},
    Format{"GLOBAL", 0xDC008000u, 18, 7, true, 0x7Fu << 16, 0xFC00C000u},
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

std::vector<Instruction> encoding_variants(const codeobj::TargetId& target, unsigned random_per_opcode, uint64_t seed) {
  Decoder dec(target);
  std::vector<Instruction> out;
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(16, 0);
  for (const auto& f : kFormats) {
    uint32_t opcode_mask = ((1u << f.opcode_bits) - 1) << f.opcode_shift;
    uint32_t operand_bits = ~(f.fixed_mask | opcode_mask);
    for (uint32_t op = 0; op < (1u << f.opcode_bits); ++op) {
      uint32_t w0 = f.prefix | (op << f.opcode_shift);
      // Deterministic patterns first: v0/s0, then every field 16 (v16, s16, a16: 9-bit VOP3 fields 0x110),
      // then random fields (register ranges, AGPR bits, constants, literals, modifiers).
      std::vector<std::array<uint32_t, 4>> words{{w0, f.second, 0, 0},
                                                 {w0 | (0x10101010u & operand_bits), 0x110u | (0x110u << 9) | (0x110u << 18), 16, 16}};
      // Random words have bit 0 of every byte cleared: no operand field then holds 255 (the literal
      // constant), which gfx9 allows almost nowhere and on which LLVM 22's disassembler crashes in several
      // formats (VOP3, VOP3P, MUBUF soffset) instead of failing.
      for (unsigned k = 0; k < random_per_opcode; ++k) {
        uint64_t a = rng() & 0xFEFEFEFEFEFEFEFEull, b = rng() & 0xFEFEFEFEFEFEFEFEull;
        words.push_back({w0 | (static_cast<uint32_t>(a) & operand_bits), static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(b),
                         static_cast<uint32_t>(b >> 32)});
      }
      for (const auto& w : words) {
        std::memcpy(bytes.data(), w.data(), 16);
        try {
          out.push_back(dec.decode_one(bytes, 0));
        } catch (const Error&) {
          // Not an encoding of this processor.
        }
      }
    }
  }
  return out;
}

}  // namespace asmevo::program
