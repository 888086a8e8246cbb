// The code the static checks run on: one function (a kernel or a device function) as its decoded
// instructions plus a control-flow graph over them.
//
// The checks work on *built* code, decoded from a code object with program::Decoder, rather than
// on program::Program's editable listing: lines produced by edits carry only text, and a check
// must see exactly the instructions and addresses the hardware will run. A candidate K1 is
// therefore rebuilt into a code object first and then checked (`asmevo check K1.co`).
// Tests can build a Function from any instruction list (e.g. assembled with llvm-mc).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "program/instruction.h"

namespace asmevo::check {

struct Block {
  size_t first = 0, last = 0;        // instruction indices, inclusive
  std::vector<size_t> succs, preds;  // block indices
};

struct Function {
  std::string name;
  bool is_kernel = true;
  std::vector<program::Instruction> insts;
  std::vector<Block> blocks;      // in address order; block 0 holds the entry
  std::vector<size_t> block_of;   // instruction index -> block index
  // Instruction indices that end the function (s_endpgm, return s_setpc, unresolved jump).
  std::vector<size_t> exits;
};

// Builds the CFG: leaders are the entry, direct branch targets inside the function and the
// instruction after any branch/terminator. Successors: the branch target and, for conditional
// branches and calls, the next instruction. s_setpc_b64 whose source was computed in the same
// block by s_getpc_b64 + s_add_u32/s_addc_u32 with literal offsets (LLVM's long-branch
// expansion) is a direct jump; any other s_setpc_b64 ends the function (a return, or an
// indirect jump the checks treat as leaving the function). Blocks no edge reaches are still
// analysed, as if entered at function entry.
Function build_function(std::string name, bool is_kernel, std::vector<program::Instruction> insts);

// Every kernel and device function of a code object, decoded. Throws asmevo::Error when code
// cannot be decoded.
std::vector<Function> functions_of(const codeobj::CodeObject& co);

// The 64-bit value an SGPR pair holds just before instruction `before`, when it was computed
// by s_getpc_b64 + s_add_u32/s_addc_u32 with literal offsets (long branches, call targets).
std::optional<uint64_t> getpc_value(const std::vector<program::Instruction>& insts, size_t before,
                                    const program::RegRange& pair);

// Index of the instruction at `address`, if any.
std::optional<size_t> index_of_address(const Function& f, uint64_t address);

}  // namespace asmevo::check
