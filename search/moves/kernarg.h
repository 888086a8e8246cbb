// What the kernarg moves (kernarg-hoist, kernarg-preload) share: where the kernarg segment pointer
// lives, which scalar loads read kernel arguments, and where the pointer still holds its address.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

// A scalar load of kernel arguments: s_load_dword{,x2,x4,x8,x16} sD / s[D:E], s[K:K+1], OFFSET with
// the kernarg pointer as base and a constant offset, nothing else.
struct ArgLoad {
  size_t line = 0;
  unsigned dwords = 0;
  unsigned dest = 0;  // first SGPR
  unsigned offset = 0;  // bytes
};
std::optional<ArgLoad> parse_arg_load(const std::string& text, unsigned kernarg_sgpr);

// The first SGPR of the kernarg segment pointer (after the private segment buffer, dispatch and
// queue pointers the KD enables: AMDGPUUsage, "Initial Kernel Execution State"); nullopt when the
// KD does not enable the pointer.
std::optional<unsigned> kernarg_pointer_sgpr(const codeobj::KernelDescriptor& kd);

// Per line of the function: whether the kernarg pointer SGPRs still hold the kernarg address there,
// i.e. no write of them can reach the line (a write taints the rest of its block and every block
// reachable from it). Empty when a writing instruction lies outside every block (then nothing is
// known).
std::vector<bool> kernarg_pointer_intact(const program::Program& p, const program::Function& f, unsigned kernarg_sgpr);

std::string sgpr_operand(unsigned first, unsigned count);  // "s5" or "s[4:7]"

}  // namespace asmevo::search
