// Parsing LLVM's canonical AMDGPU assembly (program::Instruction::text) into pre-decoded operands
// and modifiers, once per instruction. Syntax: LLVM AMDGPUOperandSyntax / AMDGPUModifierSyntax.
//   "v_add_f32_e64 v0, -|v1|, s2 clamp mul:2"  ->  operands {"v0", "-|v1|", "s2"}, mods {clamp, mul:2}
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "emu/inst.h"

namespace asmevo::emu {

struct SplitText {
  std::vector<std::string> operands;   // comma-separated operands, in printed order
  std::vector<std::string> modifiers;  // space-separated modifiers after the last operand
};
// Splits the text after the mnemonic. Throws nothing; tokens are kept verbatim.
SplitText split_instruction_text(std::string_view text);
bool is_modifier_token(std::string_view tok);

struct OperandEnv {
  unsigned accum_offset = 0;  // unified-file index of a0 (gfx90a+)
  bool has_agprs_unified = true;
  bool sign_bit_mods = false;  // the unit's 32-bit integer sources take abs/neg as sign-bit ops (kSignBitSourceMods)
};

// Parses one operand for a slot of type `ty`. Returns false with `err` set when it cannot.
bool parse_operand(std::string_view tok, Ty ty, const OperandEnv& env, Operand& out, std::string& err);
// Applies one modifier token to `mods`. Returns false with `err` set for an unknown modifier.
bool parse_modifier(std::string_view tok, Mods& mods, std::string& err);

// Encodes a printed constant (decimal, hex, or a float inline constant) for a slot of type `ty`.
bool encode_constant(std::string_view tok, Ty ty, uint64_t& bits);

}  // namespace asmevo::emu
