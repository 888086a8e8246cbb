// "How long did this launch take", behind one interface for every way of answering it: the
// emulator-driven model here (figures are *modeled*), later the HIP backend on real hardware
// (figures are *measured*). Every Timing says which kind of figure it carries.
#pragma once
#include <memory>
#include <string>

#include "codeobj/code_object.h"
#include "codeobj/resources.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "timing/model.h"
#include "timing/sampling.h"

namespace asmevo::timing {

enum class FigureKind { Modeled, Measured };
const char* figure_kind_name(FigureKind k);  // "modeled", "measured"

struct Timing {
  FigureKind kind = FigureKind::Modeled;
  std::string backend;      // e.g. "asmevo-model gfx942 (MI300X)"
  double cycles = 0;        // engine clock cycles
  double microseconds = 0;
  double clock_ghz = 0;
};

struct KernelLaunch {
  const codeobj::CodeObject* co = nullptr;
  const codeobj::Kernel* kernel = nullptr;
  const emu::LaunchSpec* spec = nullptr;
};

class TimingBackend {
 public:
  virtual ~TimingBackend() = default;
  virtual FigureKind kind() const = 0;
  virtual Timing time(const KernelLaunch& launch) = 0;
};

// Everything one modeled run produced: the model's result, the program it timed (for profiles),
// and what it cost.
struct ModeledRun {
  std::unique_ptr<emu::Program> program;
  ModelResult model;
  SamplePlan sample;           // the workgroups simulated (sample.sampled false: all of them)
  emu::Stats stats;
  double prepare_seconds = 0;  // decoding and the launch's buffers
  double emulate_seconds = 0;  // emulator with the trace recorder
  double model_seconds = 0;    // replaying the traces
  // The same traces replayed on other hardware rows (model_kernel's `variants`, robust fitness):
  // one figure per row, in order.
  std::vector<uint64_t> variant_cycles;
  Timing timing() const;
};

// Emulates the launch (recording traces) and models it. `threads`: emulator threads (0: all cores);
// the result does not depend on it. A launch costing more than `sampling`'s budget is sampled
// (timing/sampling.h: only the sampled workgroups are emulated and simulated; ModelResult::sample
// says which and bounds the error); `sampling.exact` simulates everything. Throws asmevo::Error for
// processors without parameters, instructions the model cannot time, and whatever the emulator refuses.
// `variants`: other hardware rows of the same processor (timing/hw_perturb.h) on which the same
// traces are replayed too (ModeledRun::variant_cycles); the sample is planned on the nominal row.
ModeledRun model_kernel(const KernelLaunch& launch, unsigned threads = 1, const SampleOptions& sampling = {},
                        const std::vector<HwParams>& variants = {});

// The occupancy of this launch (the kernel descriptor's resources plus the launch's dynamic LDS
// and workgroup size).
codeobj::Occupancy launch_occupancy(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                    const emu::LaunchSpec& spec);

class ModelBackend final : public TimingBackend {
 public:
  explicit ModelBackend(unsigned threads = 1, SampleOptions sampling = {}) : threads_(threads), sampling_(sampling) {}
  FigureKind kind() const override { return FigureKind::Modeled; }
  Timing time(const KernelLaunch& launch) override { return model_kernel(launch, threads_, sampling_).timing(); }

 private:
  unsigned threads_;
  SampleOptions sampling_;
};

}  // namespace asmevo::timing
