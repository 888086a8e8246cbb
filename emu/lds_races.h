// LDS race check (RunOptions::lds_races, `asmevo run --lds-races`): stops the run at the first pair of
// accesses to one LDS byte by two waves of a workgroup, at least one a write, with no s_barrier between
// them. s_barrier is the only ordering between waves that the check knows (gfx9 has no other LDS fence
// between waves), so such a pair may happen in either order on hardware: its result depends on timing.
// The default schedule (each wave until it reaches s_barrier) shows such a race as a wrong result; this
// check names the two instructions instead. Two writes of one byte by two waves are no race when every
// write of that byte in the epoch stores the same value (many waves storing one result to one slot, e.g.
// Triton's output staging): the byte ends the same in either order, and a read by a wave that did not
// write last is still a read-after-write race. Covered: DS loads and stores (ds.cpp's lds_at); DS atomics
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
  // A DS load (data = nullptr) or store of the `size` bytes at `data` to [addr, addr + size) by the wave and
  // instruction now executing, before the store changes LDS; stops the run (fail) on a race.
  void access(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t addr, unsigned size,
              const uint8_t* data);

 private:
  struct Byte {
    uint32_t write_epoch = 0;  // epoch + 1 of the last write; 0: none
    uint32_t read_epoch = 0;   // epoch + 1 of the reads in `readers`
    // The last writer and its instruction, and the last writer before it that is another wave (named
    // when the last writer is the wave now writing a different value).
    uint32_t write_pc = 0, earlier_write_pc = 0;
    // The last reader and its instruction, and the last reader before it that is another wave: a race
    // report names a read of a wave other than the one now writing, with that wave's own instruction.
    uint32_t read_pc = 0, earlier_read_pc = 0;
    uint16_t readers = 0;      // waves (bit per wave id, < 16) that read it in read_epoch
    uint16_t writers = 0;      // waves that wrote it in write_epoch
    bool rewritten = false;    // a write in write_epoch after its first stored a value other than the byte held
    uint8_t writer = 0, earlier_writer = 0, reader = 0, earlier_reader = 0;
  };
  std::vector<Byte> bytes_;
  uint32_t epoch_ = 0;
};

}  // namespace asmevo::emu
