// verify::Backend on the functional emulator.
#include <algorithm>
#include <thread>
#include <fmt/format.h>

#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "verify/backend.h"

namespace asmevo::verify {
namespace {

struct EmulatedKernel : LoadedKernel {
  const codeobj::CodeObject* co = nullptr;
  const codeobj::Kernel* kernel = nullptr;
  std::unique_ptr<program::Decoder> decoder;
  std::unique_ptr<emu::Program> program;
};

class EmulatorBackend : public Backend {
 public:
  explicit EmulatorBackend(unsigned threads) : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

  std::string figure_kind() const override { return "emulated"; }
  bool runs_workgroup_samples() const override { return true; }

  std::unique_ptr<LoadedKernel> load(const codeobj::CodeObject& co, const std::string& name) override {
    auto k = std::make_unique<EmulatedKernel>();
    k->co = &co;
    k->kernel = co.kernel(name);
    if (!k->kernel) throw Error("no kernel named " + name, co.elf().name());
    k->decoder = std::make_unique<program::Decoder>(co.target());
    k->program = emu::Program::build(co, *k->kernel, *k->decoder);
    return k;
  }

  RunOutcome run(const LoadedKernel& loaded, const emu::LaunchSpec& spec, uint64_t max_wave_instructions,
                 const RunVariant& variant, emu::ExecObserver* observer) override {
    const auto& k = static_cast<const EmulatedKernel&>(loaded);
    auto launch = emu::prepare_launch(*k.co, *k.kernel, spec, threads_, variant.straddle_4g);
    RunOutcome out;
    for (const auto& b : launch->buffers) {
      BufferResult r;
      r.arg_index = b.arg_index;
      r.label = b.label();
      r.dtype = b.dtype;
      r.direction = spec.args[b.arg_index].direction;
      r.compare = spec.args[b.arg_index].compare;
      auto view = launch->contents(b);
      r.before.assign(view.begin(), view.end());
      out.buffers.push_back(std::move(r));
    }
    emu::RunOptions options;
    options.threads = threads_;
    options.max_wave_instructions = max_wave_instructions;
    options.schedule = variant.schedule;
    options.preload_firmware = variant.preload_firmware;
    options.lds_fill = variant.lds_fill;
    options.register_fill = variant.register_fill;
    options.lds_races = variant.lds_races;
    options.coverage = true;
    options.observer = observer;
    options.workgroups = spec.workgroup_sample;
    try {
      emu::RunResult rr = emu::run_launch(*launch, *k.program, options);
      out.instructions = rr.stats.total();
      out.max_wave_instructions = rr.stats.max_wave_instructions;
      out.seconds = rr.wall_seconds;
      const auto& insts = k.program->insts();
      for (size_t i = 0; i < rr.executed.size(); ++i)
        if (rr.executed[i] && insts[i].raw) out.executed.push_back(insts[i].raw->address);
    } catch (const emu::StepLimitError& e) {
      out.status = RunOutcome::StepLimit;
      out.message = e.format();
    } catch (const Error& e) {
      if (e.exit_code() != kExitFailure) throw;  // unsupported instruction, internal error: not a fault of the kernel
      out.status = RunOutcome::Faulted;
      out.message = e.format();
    }
    out.out_of_bounds = launch->mem.out_of_bounds();
    for (size_t i = 0; i < launch->buffers.size(); ++i) {
      const auto& b = launch->buffers[i];
      auto view = launch->contents(b);
      out.buffers[i].after.assign(view.begin(), view.end());
      out.buffers[i].broken_guard = launch->first_broken_guard(b);
    }
    return out;
  }

 private:
  unsigned threads_;
};

}  // namespace

std::string RunVariant::describe() const {
  std::string d;
  if (schedule != emu::WaveSchedule::InOrder) d = std::string(emu::schedule_name(schedule)) + " waves";
  if (!preload_firmware) d += std::string(d.empty() ? "" : ", ") + "without kernarg preload";
  if (lds_fill) d += std::string(d.empty() ? "" : ", ") + fmt::format("LDS filled with 0x{:02x}", lds_fill);
  if (straddle_4g) d += std::string(d.empty() ? "" : ", ") + "buffers across 4 GiB boundaries";
  if (register_fill) d += std::string(d.empty() ? "" : ", ") + fmt::format("undefined registers filled with 0x{:08x}", register_fill);
  return d;
}

std::unique_ptr<Backend> make_emulator_backend(unsigned threads) { return std::make_unique<EmulatorBackend>(threads); }

}  // namespace asmevo::verify
