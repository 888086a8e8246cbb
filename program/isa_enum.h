// The instruction mnemonics LLVM's disassembler knows for a processor, found by decoding one
// representative encoding per opcode of every gfx9 instruction format (operand fields set to
// v0/s0/off). It answers "how much of the ISA does X cover?" (e.g. `asmevo coverage --isa gfx942`).
// Forms that only decode with particular operand fields may be missed; the count is a lower bound.
#pragma once
#include <set>
#include <string>

#include "codeobj/target.h"

namespace asmevo::program {

std::set<std::string> decodable_mnemonics(const codeobj::TargetId& target);

}  // namespace asmevo::program
