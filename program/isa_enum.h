// The instruction mnemonics LLVM's disassembler knows for a processor, found by decoding one
// representative encoding per opcode of every gfx9 instruction format (operand fields set to
// v0/s0/off). It answers "how much of the ISA does X cover?" (e.g. `asmevo coverage --isa gfx942`).
// Forms that only decode with particular operand fields may be missed; the count is a lower bound.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "program/instruction.h"

#include "codeobj/target.h"

namespace asmevo::program {

std::set<std::string> decodable_mnemonics(const codeobj::TargetId& target);

// Many encodings per opcode of every format, decoded: the representative one above, one with every
// operand field 16 (v16/s16/a16), and `random_per_opcode` with random operand fields and trailing dwords
// (register ranges, AGPR forms, inline constants, DPP/SDWA, modifiers; no literal fields, see isa_enum.cpp). Undecodable ones are skipped.
// For tests that every form LLVM produces fits what later stages expect (tests/emu/isa_decode_variants_test).
std::vector<Instruction> encoding_variants(const codeobj::TargetId& target, unsigned random_per_opcode, uint64_t seed);

}  // namespace asmevo::program
