// The timing model's first stage (llvm-mca's InstrBuilder): what every static instruction is to the
// simulator -- its unit, the counters it waits for, MFMA passes and register ranges, FLOPs -- decoded
// once per program. An instruction the model cannot time is refused here, by name.
#pragma once
#include <cstdint>
#include <string>

#include "codeobj/target.h"
#include "emu/program.h"

namespace asmevo::timing::sim {

enum class Kind : uint8_t { Valu, Trans, Mfma, Salu, Smem, Vmem, Lds, Branch, EndPgm, Waitcnt, Barrier, Nop, Sleep, Setprio };
enum Port : uint8_t { kPortValu, kPortSalu, kPortVmem, kPortLds, kPortBranch, kNumPorts };

struct Range {
  uint16_t first = 0, count = 0;
  bool overlaps(unsigned f, unsigned c) const { return count && f < first + count && first < f + c; }
  bool contains(unsigned r) const { return r >= first && r < first + count; }
};

struct StaticInst {
  Kind kind = Kind::Salu;
  bool store = false, atomic = false;
  bool flat = false;  // flat_*: counts in vmcnt and lgkmcnt (the address may be LDS)
  unsigned wait_vm = ~0u, wait_lgkm = ~0u;
  unsigned nop_states = 0, sleep = 0;
  int prio = 0;
  double flops_per_lane = 0;
  // MFMA.
  int passes = 0;
  bool xdl = false, dgemm16 = false, coexec = true;
  double mfma_flops = 0;
  Range dst, a, b, c;  // unified VGPR indices
};

// The static facts of `in`; throws asmevo::Error naming the instruction when the model cannot time it.
StaticInst classify(const emu::ExecInst& in, codeobj::Arch arch, unsigned accum_offset, const std::string& kernel);

}  // namespace asmevo::timing::sim
