// The dynamic instruction stream the timing model replays: recorded from the emulator through its
// observer hook (emu/context.h ExecObserver), one trace per wave of every workgroup. Per executed
// instruction: which static instruction, how many lanes were active, the 64-byte memory sectors its
// lanes touched (global, buffer, scratch, scalar), and for LDS instructions the bank-conflict cost.
// Scratch addresses are renumbered per workgroup, so traces do not depend on which emulator thread
// (scratch slot) ran a workgroup: the same launch gives the same traces at any thread count.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "emu/context.h"
#include "emu/dispatch.h"
#include "emu/program.h"
#include "timing/hw_params.h"
#include "timing/trace_buffer.h"

namespace asmevo::timing {

inline constexpr unsigned kSectorShift = 6;  // 64-byte sectors: the finest line of any cache modelled (MALL, S11)

struct TraceEntry {
  uint32_t inst = 0;              // index into emu::Program::insts
  uint32_t sector_first = 0;      // into WaveTrace::sectors
  uint32_t sector_count = 0;      // sectors touched (may repeat: the model de-duplicates)
  uint16_t lds_phase_cycles = 0;  // LDS: sum over the access phases of the busiest bank's distinct dwords
  uint8_t active_lanes = 0;       // EXEC population before the instruction
  uint8_t lds_lane_bytes = 0;     // LDS: bytes each active lane moves through the data port (width x addresses)
};

struct WaveTrace {
  TraceBuffer<TraceEntry> entries;
  TraceBuffer<uint64_t> sectors;  // device address >> kSectorShift
};

struct LaunchTrace {
  std::array<uint32_t, 3> num_groups{1, 1, 1};
  std::vector<std::vector<WaveTrace>> groups;  // [workgroup][wave in group]: every workgroup by linear id (x fastest),
                                               // or those of group_ids
  std::vector<uint64_t> group_ids;             // sampled traces: linear id of groups[i]; empty: all, in order
  uint64_t instructions() const;
};

// LDS cost of one access: lane addresses (bytes) of the active lanes, `bytes_per_address` each
// (1, 2, 4, 8, 12 or 16), `addresses_per_lane` 1 or 2 (read2/write2). Phases as measured on MI300X/
// MI355X (S11): a phase serves banks*4 bytes of lanes; ds_read_b128 uses the measured lane groups.
// Returns the sum over phases of the largest number of distinct dwords any one bank serves.
unsigned lds_phase_cycles(const uint32_t* lane_addr0, const uint32_t* lane_addr1, uint64_t exec, unsigned bytes_per_address,
                          unsigned addresses_per_lane, unsigned banks, bool is_read);

// lds_phase_cycles with a memory of a wave's last accesses, by static instruction. A GEMM's loop reads the same
// LDS pattern every iteration (shifted by whole bank rows where it alternates buffers); computing each cost afresh
// was 15 % of the instructions emulating matmul_128_kernel:decode_b64 (callgrind). Exact: a cost depends on the
// addresses only through their dwords' banks and equalities, which subtracting a multiple of banks x 4 bytes from
// every address keeps; an access whose addresses could wrap past 2^32 is computed afresh.
class LdsCostCache {
 public:
  unsigned cost(uint32_t inst, const uint32_t* lane_addr0, const uint32_t* lane_addr1, uint64_t exec, unsigned bytes_per_address,
                unsigned addresses_per_lane, unsigned banks, bool is_read);

 private:
  struct Entry {
    uint32_t inst = UINT32_MAX;
    uint64_t exec = 0;
    uint16_t bytes = 0, addresses = 0, banks = 0, is_read = 0;
    unsigned cost = 0;
    std::array<uint32_t, 2 * 64> addr{};  // 64 lanes: active lanes' addresses less the shift, then the second's
  };
  std::array<Entry, 32> entries_;  // by instruction index mod 32 (a GEMM loop has a dozen LDS instructions and more)
};

class TraceRecorder final : public emu::ExecObserver {
 public:
  // `workgroups`: the linear ids the emulator runs (emu::RunOptions::workgroups), empty: all.
  TraceRecorder(const emu::Launch& launch, const emu::Program& program, const HwParams& hw,
                std::span<const uint64_t> workgroups = {});
  void before_inst(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in) override;
  void on_access(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in, uint64_t address,
                 unsigned size, bool write, int lane) override;
  // The run's sectors at once: the same sectors, in the same order, as its accesses one by one.
  void on_access_run(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in, uint64_t address, unsigned size,
                     unsigned count, bool write, int lane, int lane_step) override;
  LaunchTrace take() { return std::move(trace_); }

 private:
  struct DsShape {
    bool memory = false;  // reads or writes LDS at an address (not permute/swizzle)
    bool read = false;
    uint8_t bytes = 4, addresses = 1;
    int64_t offset0 = 0, offset1 = 0;  // bytes added to the address VGPR
  };
  std::pair<size_t, unsigned> wave_index(const emu::ExecContext& ctx, const emu::Wave& w) const;  // [group][wave]
  WaveTrace& wave_of(const emu::ExecContext& ctx, const emu::Wave& w);
  LaunchTrace trace_;
  std::vector<std::vector<std::unique_ptr<LdsCostCache>>> lds_costs_;  // [group][wave], made at a wave's first LDS access
  const HwParams& hw_;
  std::vector<DsShape> ds_;  // per static instruction
  std::vector<uint8_t> ends_;  // per static instruction: s_endpgm
  std::vector<uint32_t> slot_;  // sampled: linear workgroup id -> index into trace_.groups
  uint64_t scratch_slot_bytes_ = 0;
};

}  // namespace asmevo::timing
