// Strict asynchronous memory (issue 4). A memory instruction computes its result when it issues,
// but the result lands in registers only when an s_waitcnt guarantees completion under the gfx9
// counter rules:
//   vmcnt   - VMEM/GLOBAL/FLAT/SCRATCH loads, stores and atomics: return in issue order.
//   lgkmcnt - LDS (DS) in issue order among themselves; SMEM (s_load/s_buffer_load/s_memtime) may
//             return out of order, so only lgkmcnt(0) guarantees an SMEM result; FLAT ops whose
//             addresses hit the LDS aperture count here too (out of order).
//   expcnt  - exports/GDS (in order); unused by compute kernels, supported for completeness.
// An op is guaranteed complete by s_waitcnt vmcnt(N) when at least N vm ops were issued after it;
// by lgkmcnt(N) when N == 0, or (ordered LDS op) when at least N LDS ops were issued after it.
// Until then, an instruction that reads one of its destination registers, or writes one (except a
// later in-order VMEM load, or DS load after a DS load, writing the same register), is a "waitcnt violation". Ops may also lock
// source registers (store data that the hardware reads late): writing them before completion is a
// violation too (gfx9 VMEM/DS stores read their data at issue, so they lock nothing). Loads to LDS
// (global_load_lds_*) write LDS at completion as well, so LDS read before the covering vmcnt wait is stale.
#pragma once
#include <bitset>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "emu/inst.h"

namespace asmevo::emu {

struct Wave;

enum CounterBits : uint8_t { kVm = 1, kLgkm = 2, kExp = 4 };

struct PendingWrite {
  // 0 VGPR (unified index), 1 scalar (Wave::s index), 2 LDS dwords (loads to LDS: `data` holds
  // {byte offset into `lds`, value} pairs; no register is written, so no violation check applies).
  uint8_t file = 0;
  uint8_t* lds = nullptr;  // file 2: the workgroup's LDS
  uint16_t reg = 0, count = 0;
  uint64_t lanes = 0;      // VGPR: lanes written
  std::vector<uint32_t> data;  // VGPR: count * 64 (register-major); scalar: count
};

struct PendingOp {
  uint8_t counters = 0;        // CounterBits
  bool lgkm_in_order = false;  // LDS (DS) ops; SMEM and FLAT are out of order
  const ExecInst* inst = nullptr;
  std::vector<PendingWrite> writes;
  std::vector<RegUse> locks;
  // Filled by the tracker.
  bool vm_done = false, lgkm_done = false, exp_done = false;
};

class WaitcntState {
 public:
  bool any() const { return !ops_.empty(); }
  size_t outstanding() const { return ops_.size(); }
  void issue(PendingOp op);
  // s_waitcnt with the given counts (values >= the field maximum mean "don't wait on it").
  void wait(Wave& w, unsigned vm, unsigned lgkm, unsigned exp);
  // Applies everything (used by tests / at s_endpgm we simply drop).
  void wait_all(Wave& w) { wait(w, 0, 0, 0); }
  void clear() { ops_.clear(), vbits_.reset(), sbits_.reset(); }
  // Empty when `in` may execute now; otherwise a description of the violation.
  std::string violation(const ExecInst& in, uint8_t in_counters) const;

 private:
  void rebuild_bits();
  std::deque<PendingOp> ops_;
  std::bitset<512> vbits_;
  std::bitset<kNumScalarRegs> sbits_;
};

}  // namespace asmevo::emu
