#include "emu/executor.h"
#include "emu/gpr_idx.h"
#include "emu/lds_races.h"
#include "emu/registry.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

#include "emu/wave.h"
#include "support/error.h"

namespace asmevo::emu {

namespace {

// "kernel K, workgroup (x,y,z) wave W, pc 0x...: <instruction>" for errors that stop a run.
std::string where_in_run(const ExecContext& ctx, const Wave& w, const ExecInst& in) {
  return fmt::format("kernel {}, workgroup ({},{},{}) wave {}, pc 0x{:x}: {}", ctx.kernel, ctx.wg_id[0], ctx.wg_id[1],
                     ctx.wg_id[2], w.id_in_group, in.raw ? in.raw->address : in.address, in.raw ? in.raw->text : std::string("?"));
}

}  // namespace

void fail(const ExecContext& ctx, const Wave& w, const ExecInst& in, const std::string& what, int lane, uint64_t address,
          const std::string& fix, int exit_code) {
  std::string where = where_in_run(ctx, w, in);
  if (lane >= 0) where += fmt::format(", lane {}, address 0x{:x}", lane, address);
  throw Error(what, where, fix, exit_code);
}

void note_out_of_bounds(const ExecContext& ctx, const Wave& w, const ExecInst& in, const DeviceMemory::Region* r,
                        uint64_t addr, unsigned size, bool write, int lane) {
  DeviceMemory::OutOfBounds o;
  o.region = r ? r->name : "LDS";
  o.pc = in.raw ? in.raw->address : in.address;
  o.inst = in.raw ? in.raw->text : std::string();
  o.write = write;
  // Offsets from the buffer's start (the region begins with its guard zone); LDS from 0.
  o.lowest = r ? static_cast<int64_t>(addr - r->base) - static_cast<int64_t>(r->guard) : static_cast<int64_t>(addr);
  o.highest = o.lowest + size;
  o.count = 1;
  o.lane = lane;
  o.address = addr;
  o.workgroup = ctx.wg_id;
  o.wave = w.id_in_group;
  ctx.mem->note_out_of_bounds(o);
}

const char* schedule_name(WaveSchedule s) {
  switch (s) {
    case WaveSchedule::InOrder: return "in order";
    case WaveSchedule::Reverse: return "reverse";
    case WaveSchedule::Interleaved: return "interleaved";
  }
  return "?";
}

namespace {
// What VSKIP skips: every instruction the vector units execute.
bool is_vector_instruction(program::InstClass c) {
  using program::InstClass;
  switch (c) {
    case InstClass::VALU: case InstClass::VOP3P: case InstClass::MFMA: case InstClass::VMEMLoad: case InstClass::VMEMStore:
    case InstClass::VMEMAtomic: case InstClass::VMEMCache: case InstClass::FLAT: case InstClass::GLOBAL: case InstClass::SCRATCH:
    case InstClass::DS:
      return true;
    default:
      return false;
  }
}
}  // namespace

void step_wave(ExecContext& ctx, Wave& w, uint64_t max_instructions, uint64_t quantum) {
  const std::vector<ExecInst>& insts = ctx.program->insts();
  const size_t n = insts.size();
  for (uint64_t executed = 0; !w.done && !w.at_barrier && (quantum == 0 || executed < quantum); ++executed) {
    const ExecInst& in = insts[w.pc];
    if (!in.fn) fail(ctx, w, in, "unsupported instruction " + in.raw->mnemonic + " reached", -1, 0,
                     "implement it in emu/semantics (docs/emulator.md)", kExitBadInput);
    if (w.wc.any()) {
      std::string v = w.wc.violation(in, in.entry->counters);
      if (!v.empty())
        fail(ctx, w, in, "waitcnt violation: " + v, -1, 0, "insert the s_waitcnt the hardware needs before this instruction");
    }
    if (ctx.executed) ctx.executed[w.pc] = 1;
    if (ctx.observer) ctx.observer->before_inst(ctx, w, in);
    w.pc += 1;
    if ((w.mode.bits & kModeGprIdxEn) || w.vskip) [[unlikely]] {
      if (w.vskip && is_vector_instruction(in.raw->cls)) continue;  // skipped: not counted as executed
      if (in.category == static_cast<uint8_t>(Category::Vector) || in.category == static_cast<uint8_t>(Category::MFMA))
        run_gpr_indexed(ctx, w, in);
      else
        in.fn(ctx, w, in);
    } else {
      in.fn(ctx, w, in);
    }
    ++ctx.stats.by_category[in.category];
    if (++w.instructions > max_instructions)
      throw StepLimitError(fmt::format("wave executed more than {} instructions (endless loop?)", max_instructions),
                           where_in_run(ctx, w, in),
                           "raise the step limit if the kernel really runs this long", kExitFailure);
    if (w.pc >= n && !w.done) fail(ctx, w, in, "execution ran past the end of the code");
  }
}

namespace {

// RunOptions::register_fill after init_wave: the SGPRs it leaves undefined already hold the fill
// (the null SGPR and EXEC excepted), and so does every VGPR/AGPR except the work-item IDs (v0 packed
// on gfx90a+, else v0 .. v2 as the kernel descriptor enables them), in every lane.
void fill_undefined_registers(Wave& w, const WaveSetup& setup, const Program& prog, uint32_t fill) {
  w.s[kNullSgpr] = 0;
  const unsigned ids = prog.arch() != codeobj::Arch::Other ? 1 : 1 + setup.workitem_id_vgprs;
  for (unsigned r = ids; r < w.num_vregs; ++r) std::fill(std::begin(w.v[r].lane), std::end(w.v[r].lane), fill);
}

void run_workgroup(ExecContext& ctx, Launch& L, const WaveSetup& setup, const Program& prog, const std::array<uint32_t, 3>& wg,
                   unsigned slot, std::vector<uint8_t>& lds, std::vector<Wave>& waves, const RunOptions& opt) {
  ctx.wg_id = wg;
  auto gs = L.group_size(wg);
  unsigned nwaves = (gs[0] * gs[1] * gs[2] + 63) / 64;
  std::fill(lds.begin(), lds.end(), opt.lds_fill);  // undefined on hardware; a fixed byte keeps runs reproducible
  ctx.lds = lds.data();
  ctx.lds_size = static_cast<uint32_t>(lds.size());
  ctx.scratch_base = L.scratch_addr + slot * L.scratch_slot_bytes;
  ctx.scratch_per_lane = L.scratch_per_lane;
  waves.resize(std::max<size_t>(waves.size(), nwaves));
  for (unsigned i = 0; i < nwaves; ++i) {
    Wave& w = waves[i];
    w.done = w.at_barrier = false;
    w.instructions = 0;
    w.scc = false;
    w.vskip = false;
    w.s.fill(opt.register_fill);  // init_wave overwrites the SGPRs the kernel descriptor defines
    w.wc.clear();
    init_wave(L, setup, prog, w, wg, i, slot);
    if (opt.register_fill) fill_undefined_registers(w, setup, prog, opt.register_fill);
  }
  if (ctx.lds_races) ctx.lds_races->reset(ctx.lds_size);
  ctx.stats.waves += nwaves;
  ctx.stats.workgroups += 1;
  const uint64_t quantum = opt.schedule == WaveSchedule::Interleaved ? 1 : 0;
  const bool reverse = opt.schedule == WaveSchedule::Reverse;
  for (;;) {
    bool any_alive = false, all_at_barrier = true;
    for (unsigned k = 0; k < nwaves; ++k) {
      Wave& w = waves[reverse ? nwaves - 1 - k : k];
      if (w.done) continue;
      if (!w.at_barrier) step_wave(ctx, w, opt.max_wave_instructions, quantum);
      any_alive |= !w.done;
      all_at_barrier &= w.done || w.at_barrier;
    }
    if (!any_alive) break;
    // Every live wave is at the barrier now: release them.
    if (all_at_barrier) {
      for (unsigned i = 0; i < nwaves; ++i) waves[i].at_barrier = false;
      if (ctx.lds_races) ctx.lds_races->next_epoch();
    }
  }
  for (unsigned i = 0; i < nwaves; ++i)
    ctx.stats.max_wave_instructions = std::max(ctx.stats.max_wave_instructions, waves[i].instructions);
}

}  // namespace

RunResult run_launch(Launch& L, const Program& prog, const RunOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  const uint64_t grid_groups = static_cast<uint64_t>(L.num_groups[0]) * L.num_groups[1] * L.num_groups[2];
  const uint64_t total = opt.workgroups.empty() ? grid_groups : opt.workgroups.size();
  for (uint64_t id : opt.workgroups)
    if (id >= grid_groups)
      throw Error(fmt::format("RunOptions::workgroups names workgroup {} but the grid has {}", id, grid_groups), L.kernel->name,
                  "pass linear workgroup ids below the grid size");
  unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  if (prog.has_global_atomics()) threads = 1;  // fixed atomic order: linear workgroup order
  threads = static_cast<unsigned>(std::min<uint64_t>({threads, std::max<uint64_t>(total, 1), L.scratch_slots}));
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> first_error{UINT64_MAX};
  std::mutex mu;
  std::exception_ptr error;  // an asmevo::Error (or StepLimitError) of the lowest failing workgroup
  std::optional<std::string> internal;
  Stats stats;
  std::vector<uint8_t> coverage;
  WaveSetup setup = wave_setup(L);
  setup.preload_firmware = opt.preload_firmware;
  auto worker = [&](unsigned slot) {
    ExecContext ctx;
    ctx.program = &prog;
    ctx.observer = opt.observer;
    ctx.mem = &L.mem;
    ctx.kernel = L.kernel->name;
    std::vector<uint8_t> executed(opt.coverage ? prog.insts().size() : 0);
    if (opt.coverage) ctx.executed = executed.data();
    std::vector<uint8_t> lds(L.lds_bytes);
    LdsRaceTracker races;
    if (opt.lds_races) ctx.lds_races = &races;
    std::vector<Wave> waves;
    for (;;) {
      uint64_t g = next.fetch_add(1);
      if (g >= total || g > first_error.load()) break;
      const uint64_t id = opt.workgroups.empty() ? g : opt.workgroups[g];
      std::array<uint32_t, 3> wg{static_cast<uint32_t>(id % L.num_groups[0]),
                                 static_cast<uint32_t>(id / L.num_groups[0] % L.num_groups[1]),
                                 static_cast<uint32_t>(id / (static_cast<uint64_t>(L.num_groups[0]) * L.num_groups[1]))};
      try {
        run_workgroup(ctx, L, setup, prog, wg, slot, lds, waves, opt);
      } catch (const Error&) {
        std::lock_guard<std::mutex> lock(mu);
        if (g < first_error.load()) first_error = g, error = std::current_exception(), internal.reset();
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        if (g < first_error.load()) first_error = g, internal = e.what(), error = nullptr;
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    stats.add(ctx.stats);
    if (opt.coverage) {
      coverage.resize(executed.size());
      for (size_t i = 0; i < executed.size(); ++i) coverage[i] |= executed[i];
    }
  };
  if (threads <= 1) worker(0);
  else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  if (internal) throw Error("internal error in the emulator: " + *internal, L.kernel->name, {}, kExitInternal);
  RunResult r;
  r.stats = stats;
  r.executed = std::move(coverage);
  r.threads = threads;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace asmevo::emu
