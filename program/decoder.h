// Decodes AMDGPU machine code into program::Instruction with LLVM's MC layer, in-process:
// the AMDGPU MCDisassembler decodes, the AMDGPU MCInstPrinter prints, MCInstrDesc supplies flags
// and implicit registers, MCRegisterInfo's register names give the register ranges.
#pragma once
#include "codeobj/target.h"
#include "program/instruction.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace asmevo::program {

// Registers LLVM's AMDGPU target (TargetInfo, TargetMC, Disassembler, AsmParser) exactly once per
// process; thread-safe. Anything else in AsmEvo that needs the AMDGPU target calls this too.
void initialize_llvm_amdgpu();

// Thread safety: one Decoder may be used from any number of threads at once. LLVM's disassembler
// and printer keep per-call state, so each concurrent caller leases its own set of them from a
// pool inside the Decoder (created on demand, reused afterwards); decode_range leases once.
class Decoder {
 public:
  // Throws asmevo::Error if LLVM does not know the processor.
  explicit Decoder(const codeobj::TargetId& target);
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;

  // Decodes the instruction at the start of `bytes`, which lie at `address`.
  // Throws asmevo::Error naming the address and the bytes if they do not decode.
  Instruction decode_one(std::span<const uint8_t> bytes, uint64_t address) const;
  // Decodes all of `bytes` (lying at `address`) as consecutive instructions.
  // Throws asmevo::Error at the first undecodable or truncated instruction.
  std::vector<Instruction> decode_range(std::span<const uint8_t> bytes, uint64_t address) const;

  const codeobj::TargetId& target() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asmevo::program
