// What the code-motion moves (load_hoist.cpp, early_load.cpp) share: which instructions may move with
// a global load, and when two instructions commute as far as registers are concerned. Each move adds
// its own rule for what a moved line may cross (waits, barriers).
#pragma once
#include "program/instruction.h"

namespace asmevo::search {

// A load from global memory through the vector memory unit (buffer or global; no LDS DMA, no atomic,
// no store): it reads no LDS and writes only its destination VGPRs.
bool global_vector_load(const program::Instruction& in);

// SALU ops whose effect or result is not register dataflow: hardware state, the PC (s_getpc's value
// depends on where it sits), sleeping.
bool state_or_pc(const program::Instruction& in);

// May join a load's address slice: VALU/packed VALU/SALU arithmetic whose result depends only on
// the registers it reads (implicit EXEC, VCC, SCC, M0 included in the decoder's uses and defs).
bool pure_compute(const program::Instruction& in);

// Neither writes what the other reads or writes: swapping two adjacent such instructions leaves every
// register with the same value after both (the decoder lists implicit EXEC/VCC/SCC/M0 operands).
bool register_independent(const program::Instruction& a, const program::Instruction& b);

}  // namespace asmevo::search
