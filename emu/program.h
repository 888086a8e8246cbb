// The pre-decoded program of one kernel: its code (and every device function of the code object,
// for s_swappc/s_setpc calls) decoded once by program::Decoder into a flat array of ExecInst, each
// bound to its semantic unit (emu/registry.h) with operands parsed (emu/operands.h) and branch
// targets resolved to indices. Built once per kernel, then read-only and shared by all waves.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/inst.h"
#include "program/instruction.h"

namespace asmevo::program {
class Decoder;
}

namespace asmevo::emu {

// Device address at which the code object's loadable segments are mapped (PC = kCodeBase + vaddr).
inline constexpr uint64_t kCodeBase = 0x0000'6000'0000'0000ull;

class Program {
 public:
  // Throws asmevo::Error "unsupported instruction <mnemonic> at 0x<addr> in kernel <K>" for any
  // instruction without a semantic unit, and for operands/modifiers the framework cannot represent.
  static std::unique_ptr<Program> build(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                        const program::Decoder& decoder);

  const std::string& kernel() const { return kernel_; }
  const std::vector<ExecInst>& insts() const { return insts_; }
  // Where a wave starts: with kernarg preloading, firmware that preloads enters at the code entry
  // + 256 bytes; older firmware enters at the code entry, whose prologue loads the arguments.
  uint32_t entry_index(bool preload_firmware = true) const { return preload_firmware ? entry_ : legacy_entry_; }
  bool has_kernarg_preload() const { return entry_ != legacy_entry_; }
  // Index of the instruction at device address `pc`, or -1.
  int64_t index_of(uint64_t pc) const {
    auto it = by_address_.find(pc);
    return it == by_address_.end() ? -1 : static_cast<int64_t>(it->second);
  }
  unsigned num_vregs() const { return num_vregs_; }  // unified VGPR+AGPR registers per lane
  unsigned accum_offset() const { return accum_offset_; }
  bool has_global_atomics() const { return has_global_atomics_; }
  codeobj::Arch arch() const { return arch_; }

 private:
  std::string kernel_;
  codeobj::Arch arch_ = codeobj::Arch::Other;
  std::vector<program::Instruction> raw_;
  std::vector<ExecInst> insts_;
  std::unordered_map<uint64_t, uint32_t> by_address_;
  uint32_t entry_ = 0, legacy_entry_ = 0;
  unsigned num_vregs_ = 0, accum_offset_ = 0;
  bool has_global_atomics_ = false;
};

// Static coverage: every mnemonic (with its encoding suffix where DPP/SDWA need a hook) in
// `insts` that the emulator does not implement, sorted and unique.
std::vector<std::string> unsupported_mnemonics(const std::vector<program::Instruction>& insts);

// Pre-decodes one instruction (used by Program::build and tests). `where` names it in errors.
ExecInst predecode(const program::Instruction& raw, unsigned num_vregs, unsigned accum_offset,
                   const std::string& kernel);

}  // namespace asmevo::emu
