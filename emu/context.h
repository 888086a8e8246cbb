// What a semantic unit can reach besides its wave: the launch (memory, kernel, code object),
// the workgroup it runs in (LDS), statistics, and the fault helpers that stop the run.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "emu/inst.h"
#include "emu/memory.h"
#include "emu/registry.h"
#include "support/error.h"

namespace asmevo::emu {

class Program;
class LdsRaceTracker;
struct Wave;

struct Stats {
  uint64_t by_category[5] = {};  // Category
  uint64_t lane_ops = 0;         // active lanes summed over vector instructions
  uint64_t waves = 0, workgroups = 0;
  uint64_t max_wave_instructions = 0;  // the longest-running wave's instruction count
  void add(const Stats& o) {
    for (int i = 0; i < 5; ++i) by_category[i] += o.by_category[i];
    lane_ops += o.lane_ops, waves += o.waves, workgroups += o.workgroups;
    max_wave_instructions = std::max(max_wave_instructions, o.max_wave_instructions);
  }
  uint64_t total() const {
    uint64_t t = 0;
    for (auto c : by_category) t += c;
    return t;
  }
};

// Watches execution for an analysis that needs the dynamic instruction stream (the timing model,
// timing/trace.h). Called from the emulator's worker threads: one workgroup is only ever seen by one
// thread at a time, so an observer that keeps its state per workgroup needs no locks. Null by default:
// the emulator then pays one pointer test per instruction and per memory access.
struct ExecObserver {
  virtual ~ExecObserver() = default;
  // Before `in` executes on `w` (registers and EXEC as the instruction will read them).
  virtual void before_inst(const ExecContext& ctx, const Wave& w, const ExecInst& in) = 0;
  // One lane's (lane >= 0) or the scalar unit's (lane -1) access to device memory by the instruction
  // now executing: global, buffer, flat-to-global, scratch and scalar memory (not LDS).
  virtual void on_access(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t address, unsigned size,
                         bool write, int lane) = 0;
  // A run of `count` accesses of `size` bytes each, access i at `address` + i * size by lane `lane` + i * lane_step:
  // one lane's consecutive dwords (lane_step 0, a MUBUF x2/x3/x4 lane) or consecutive lanes' consecutive elements
  // (lane_step 1, a global load or store of a wave reading a row), each in range (access_run). By default on_access
  // for each in order, the calls the emulator makes one access at a time; an observer that needs only the bytes
  // touched takes the run in one call.
  virtual void on_access_run(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t address, unsigned size,
                             unsigned count, bool write, int lane, int lane_step) {
    for (unsigned i = 0; i < count; ++i)
      on_access(ctx, w, in, address + static_cast<uint64_t>(i) * size, size, write, lane + static_cast<int>(i) * lane_step);
  }
};

struct ExecContext {
  const Program* program = nullptr;
  ExecObserver* observer = nullptr;  // see ExecObserver
  // The observer's own, per emulator thread: what its before_inst leaves for its on_access calls of the same
  // instruction (TraceRecorder: the trace of the wave now executing), so a per-lane access needs no lookup.
  mutable void* observer_cursor = nullptr;
  DeviceMemory* mem = nullptr;
  mutable const DeviceMemory::Region* mem_hint = nullptr;  // last region access() hit in *mem (this thread's cache)
  std::string kernel;
  std::array<uint32_t, 3> wg_id{};
  uint8_t* lds = nullptr;  // this workgroup's LDS
  uint32_t lds_size = 0;
  uint64_t scratch_base = 0;       // device address of this workgroup's scratch (per lane, per wave)
  uint32_t scratch_per_lane = 0;
  Stats stats;
  uint8_t* executed = nullptr;  // optional: executed[i] = 1 once instruction i ran (RunOptions::coverage)
  const Wave* ds_wave = nullptr;      // the DS instruction now executing (set by emu/semantics/ds.cpp),
  const ExecInst* ds_inst = nullptr;  // for its out-of-range notes and the LDS race check
  LdsRaceTracker* lds_races = nullptr;  // RunOptions::lds_races: this workgroup's LDS race check (emu/lds_races.h)
};

// Stops the run: throws asmevo::Error naming kernel, workgroup, wave, PC, instruction text, and
// (when lane >= 0) the lane and address.
// The exit code is kExitFailure (the kernel misbehaved) unless given: an instruction the emulator
// does not implement is kExitBadInput (unsupported input, not a fault of the kernel).
[[noreturn]] void fail(const ExecContext& ctx, const Wave& w, const ExecInst& in, const std::string& what,
                       int lane = -1, uint64_t address = 0, const std::string& fix = {}, int exit_code = kExitFailure);

// Records an access that does not stop the run but lies outside what the launch allows: a guard
// zone of buffer region `r`, or (r null) LDS beyond the workgroup's allocation (DeviceMemory::OutOfBounds).
void note_out_of_bounds(const ExecContext& ctx, const Wave& w, const ExecInst& in, const DeviceMemory::Region* r,
                        uint64_t addr, unsigned size, bool write, int lane);

// Memory access helper for semantics: the host pointer of [addr, addr+size) or a memory fault.
// An access that touches a buffer's guard zone is noted (note_out_of_bounds).
inline uint8_t* access(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t addr, unsigned size,
                       bool write, int lane) {
  if (ctx.observer) ctx.observer->on_access(ctx, w, in, addr, size, write, lane);
  uint8_t* p = ctx.mem->translate(addr, size, write, ctx.mem_hint);
  if (!p) {
    fail(ctx, w, in,
         std::string("memory fault: ") + (write ? "write of " : "read of ") + std::to_string(size) +
             " bytes outside every range AsmEvo allocated" + (write && ctx.mem->find(addr) ? " (read-only region)" : ""),
         lane, addr, "check the kernel's address arithmetic and the launch spec's buffer sizes");
  }
  const DeviceMemory::Region* r = ctx.mem_hint;  // translate() left the region of addr there
  if (r->guard) [[unlikely]] {
    const uint64_t off = addr - r->base;
    if (off < r->guard || off + size > r->size - r->guard) note_out_of_bounds(ctx, w, in, r, addr, size, write, lane);
  }
  return p;
}

// access() for a run of `count` accesses of `size` bytes at consecutive addresses from `addr`, access i by lane
// `lane` + i * lane_step (ExecObserver::on_access_run): one translation and one observer call when the run lies in one
// region and clear of its guard zones, as nearly all do. Otherwise nothing is done and nullptr returned: the caller
// then takes the accesses one by one with access(), so a fault names its lane and address and an out-of-bounds note
// counts each. (One access() per dword of a buffer_load_dwordx4 was 256 calls; with the trace recorder's on_access,
// per-lane accesses were 13-18 % of a sampled GEMM's instructions and 41 % of kb_layernorm's: callgrind.)
inline uint8_t* access_run(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t addr, unsigned size, unsigned count,
                           bool write, int lane, int lane_step) {
  const uint64_t bytes = static_cast<uint64_t>(size) * count;
  uint8_t* p = ctx.mem->translate(addr, bytes, write, ctx.mem_hint);  // makes lazily filled pages, as access() would
  if (!p) return nullptr;
  const DeviceMemory::Region* r = ctx.mem_hint;  // translate() left the region of addr there
  if (r->guard && (addr - r->base < r->guard || addr - r->base + bytes > r->size - r->guard)) return nullptr;
  if (ctx.observer) ctx.observer->on_access_run(ctx, w, in, addr, size, count, write, lane, lane_step);
  return p;
}

}  // namespace asmevo::emu
