// LDS race check (RunOptions::lds_races, `asmevo run --lds-races`): stops the run at the first pair of
// accesses to one LDS byte by two waves of a workgroup, at least one a write, with no s_barrier between
// them. s_barrier is the only ordering between waves that the check knows (gfx9 has no other LDS fence
// between waves), so such a pair may happen in either order on hardware: its result depends on timing.
// The default schedule (each wave until it reaches s_barrier) shows such a race as a wrong result; this
// check names the two instructions instead. Covered: DS loads and stores (ds.cpp's lds_at); DS atomics
// are not tracked (atomic updates from several waves are not a race), nor flat accesses to LDS or loads
// to LDS (no AITer or corpus kernel that needed the check uses them).
#pragma once
#include <cstdint>
#include <vector>

namespace asmevo::emu {

struct ExecContext;
struct Wave;
struct ExecInst;

class LdsRaceTracker {
 public:
  // For one workgroup of `bytes` LDS bytes (clears every record).
  void reset(uint32_t bytes);
  // Every wave passed one more s_barrier.
  void next_epoch() { ++epoch_; }
  // A DS load (write = false) or store of [addr, addr + size) by the wave and instruction now executing;
  // stops the run (fail) on a race.
  void access(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t addr, unsigned size, bool write);

 private:
  struct Byte {
    uint32_t write_epoch = 0;  // epoch + 1 of the last write; 0: none
    uint32_t read_epoch = 0;   // epoch + 1 of the reads in `readers`
    uint32_t write_pc = 0;
    // The last reader and its instruction, and the last reader before it that is another wave: a race
    // report names a read of a wave other than the one now writing, with that wave's own instruction.
    uint32_t read_pc = 0, earlier_read_pc = 0;
    uint16_t readers = 0;      // waves (bit per wave id, < 16) that read it in read_epoch
    uint8_t writer = 0, reader = 0, earlier_reader = 0;
  };
  std::vector<Byte> bytes_;
  uint32_t epoch_ = 0;
};

}  // namespace asmevo::emu
