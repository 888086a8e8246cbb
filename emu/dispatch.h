// Dispatch, as the ROCm runtime and the hardware do it: device memory for the arguments, the
// kernarg segment (explicit arguments from the launch spec, hidden arguments per code-object
// v4/v5 from the metadata's value kinds), the AQL dispatch packet, scratch, the loaded code object;
// then each wave's initial SGPRs/VGPRs exactly as the kernel descriptor enables them
// (AMDGPUUsage "Initial Kernel Execution State", "Kernarg Preload", "Hidden Kernel Arguments").
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/input_chunks.h"
#include "emu/launch_spec.h"
#include "emu/memory.h"

namespace asmevo::emu {

class Program;
struct Wave;

struct BufferArg {
  size_t arg_index = 0;
  std::string name, dtype;
  uint64_t address = 0, bytes = 0;
  uint64_t guard = 0;  // canary bytes before and after (part of the same device region)
  uint32_t guard_salt = 0;  // selects this buffer's canary (emu::guard_salt)
  std::string label() const { return name.empty() ? "arg" + std::to_string(arg_index) : name; }
};

struct Launch {
  DeviceMemory mem;
  const codeobj::CodeObject* co = nullptr;
  const codeobj::Kernel* kernel = nullptr;
  const codeobj::KernelMetadata* md = nullptr;
  std::array<uint32_t, 3> grid_items{1, 1, 1};  // work-items in x, y, z (need not be a multiple of block)
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint32_t, 3> num_groups{1, 1, 1};
  uint32_t dynamic_lds = 0;
  uint32_t lds_bytes = 0;  // static (KD group_segment_fixed_size) + dynamic
  uint64_t kernarg_addr = 0, packet_addr = 0, queue_addr = 0;
  uint64_t scratch_addr = 0;
  uint32_t scratch_per_lane = 0;   // private_segment_fixed_size
  uint32_t waves_per_group = 1;
  unsigned scratch_slots = 1;      // one scratch area per concurrently running workgroup
  uint64_t scratch_slot_bytes = 0;
  std::vector<BufferArg> buffers;

  // Actual size (work-items) of workgroup `wg` in each dimension: smaller at the grid's edge.
  std::array<uint32_t, 3> group_size(const std::array<uint32_t, 3>& wg) const;
  // Host views of a buffer argument and of its guard zones.
  std::span<uint8_t> contents(const BufferArg& b) const;
  std::span<uint8_t> guard_before(const BufferArg& b) const;
  std::span<uint8_t> guard_after(const BufferArg& b) const;
  // The buffer with both guard zones: one device region.
  std::span<uint8_t> guarded_region(const BufferArg& b) const;
  // Offset (from the buffer's start; negative: before it) of the first guard byte that no longer
  // holds its canary, if any.
  std::optional<int64_t> first_broken_guard(const BufferArg& b) const;
};

// Explicit argument values for a launch without a spec (tests): raw bytes per explicit argument.
// Builds everything above from the launch spec. `scratch_slots`: workgroups that may run at once.
// Throws asmevo::Error naming the spec line for mismatches with the kernel's metadata.
// `straddle_4g`: place buffers, kernarg segment and scratch across 4 GiB boundaries
// (DeviceMemory::straddle_4g_boundaries) instead of packed at low offsets.
// `inputs`: where lazily filled input chunks made by earlier launches are kept (emu/input_chunks.h),
// or none.
std::unique_ptr<Launch> prepare_launch(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                       const LaunchSpec& spec, unsigned scratch_slots, bool straddle_4g = false,
                                       std::shared_ptr<InputChunks> inputs = nullptr);

// A sample of a grid's workgroups (linear ids, x fastest, ascending, no repeats) for running a large
// launch in part: every corner of the grid (first and last workgroup in each dimension: partial
// tiles, the second and third grid dimension) and `spread` more evenly spaced over the linear ids
// (the first and the last among them). A grid of at most that many workgroups is returned whole.
// Deterministic, so K0 and K1 run the same sample.
std::vector<uint64_t> sample_workgroups(const std::array<uint32_t, 3>& num_groups, unsigned spread = 8);
// "(x,y,z)" of a linear workgroup id.
std::string workgroup_text(const std::array<uint32_t, 3>& num_groups, uint64_t linear_id);

// What the kernel descriptor says about every wave's initial state, decoded once per launch (the
// KD's named fields are looked up by string, too slow to do for every wave).
struct WaveSetup {
  uint32_t mode_bits = 0;
  bool private_segment_buffer = false, dispatch_ptr = false, queue_ptr = false, kernarg_segment_ptr = false,
       dispatch_id = false, flat_scratch_init = false, private_segment_size = false;
  unsigned kernarg_preload_length = 0, kernarg_preload_offset = 0, user_sgpr_count = 0;
  bool workgroup_id[3] = {false, false, false};
  bool workgroup_info = false, private_segment = false;
  unsigned workitem_id_vgprs = 0;
  bool preload_firmware = true;  // RunOptions::preload_firmware
};
WaveSetup wave_setup(const Launch& launch);
// The MODE register a wave of this kernel starts with (float rounding/denormal modes, clamp, IEEE).
uint32_t initial_mode_bits(const codeobj::KernelDescriptor& kd);

// A launch as a program makes it (hip/): the program's own memory, mapped without copying and shared
// between launches, and the explicit arguments as raw kernarg bytes (at their metadata offsets);
// hidden arguments, the AQL packet, queue and scratch are added as for prepare_launch.
struct RawLaunch {
  struct Region {
    uint64_t base = 0, size = 0;
    uint8_t* host = nullptr;  // owned by the caller; must outlive the Launch
    std::string name;
    bool writable = true;
  };
  std::array<uint32_t, 3> grid{1, 1, 1};   // workgroups
  std::array<uint32_t, 3> block{1, 1, 1};  // work-items per workgroup
  uint32_t dynamic_lds = 0;
  std::vector<uint8_t> explicit_kernarg;   // at least up to the end of the last explicit argument
  std::vector<Region> memory;
  bool map_code_object = true;  // false: `memory` holds the code object's segments at kCodeBase + vaddr
};
std::unique_ptr<Launch> prepare_raw_launch(const codeobj::CodeObject& co, const codeobj::Kernel& kernel, const RawLaunch& raw,
                                           unsigned scratch_slots);

// Initial state of wave `wave_index` of workgroup `wg` (running in scratch slot `slot`); `setup` is
// wave_setup(launch).
void init_wave(const Launch& launch, const WaveSetup& setup, const Program& program, Wave& w,
               const std::array<uint32_t, 3>& wg, unsigned wave_index, unsigned slot);

}  // namespace asmevo::emu
