// Where a kernel runs for verification. Verification needs only "run this launch and give me
// every buffer and its guard zones back, or tell me it faulted or hung"; the emulator implements
// it now, a HIP backend on real GPUs later. Every figure a backend produces says what it is.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"

namespace asmevo::verify {

// One buffer argument after a run.
struct BufferResult {
  size_t arg_index = 0;
  std::string label, dtype;
  emu::ArgSpec::Direction direction = emu::ArgSpec::Input;
  emu::CompareSpec compare;
  std::vector<uint8_t> before;  // as the kernel saw it at launch
  std::vector<uint8_t> after;
  std::optional<int64_t> broken_guard;  // first changed guard byte, offset from the buffer's start
};

struct RunOutcome {
  enum Status { Completed, Faulted, StepLimit } status = Completed;
  std::string message;  // for Faulted / StepLimit: the formatted error
  std::vector<BufferResult> buffers;
  uint64_t instructions = 0, max_wave_instructions = 0;
  double seconds = 0;
  std::vector<uint64_t> executed;  // code-object addresses of the instructions that ran (coverage)
  // Accesses outside what the launch allows that did not stop the run: buffer guard zones, LDS
  // past the allocation (emu::DeviceMemory::OutOfBounds). Reads of unmapped memory are faults.
  std::vector<emu::DeviceMemory::OutOfBounds> out_of_bounds;

  // The bytes of every buffer but the outputs as the kernel saw them at launch, indexed by argument
  // (null elsewhere): what an input set derived from this run starts from.
  std::vector<std::shared_ptr<std::vector<uint8_t>>> input_bytes(size_t args) const {
    std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs(args);
    for (const BufferResult& b : buffers)
      if (b.direction != emu::ArgSpec::Output) inputs[b.arg_index] = std::make_shared<std::vector<uint8_t>>(b.before);
    return inputs;
  }
};

// Conditions a run may vary that a correct kernel's results must not depend on (emulators only;
// hardware picks its own schedule and firmware).
struct RunVariant {
  emu::WaveSchedule schedule = emu::WaveSchedule::InOrder;  // the order a workgroup's waves take turns
  bool preload_firmware = true;  // false: enter kernarg-preload kernels at their compatibility prologue
  uint8_t lds_fill = 0;          // LDS bytes at workgroup start (undefined on hardware)
  bool straddle_4g = false;      // buffers and kernarg segment placed across 4 GiB boundaries
  uint32_t register_fill = 0;    // registers the kernel descriptor leaves undefined hold this (0: zeroed)
  // Stop at the first LDS race: two waves of a workgroup touch one LDS byte, one writing, with no
  // s_barrier between (emu/lds_races.h); a deleted barrier shows even when every schedule hides it.
  bool lds_races = false;
  std::string describe() const;  // "" for the default, else "reverse waves, without kernarg preload" (not the race check: it changes no result)
};

// A kernel made ready to run (decoded once, run many times).
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // What its figures are: "emulated" (functional emulator) or "measured" (hardware).
  virtual std::string figure_kind() const = 0;
  // Whether run() honours LaunchSpec::workgroup_sample (an emulator can run some workgroups of a
  // grid; a GPU runs them all).
  virtual bool runs_workgroup_samples() const { return false; }
  // Throws asmevo::Error when the kernel cannot run here at all (unsupported instruction).
  virtual std::unique_ptr<LoadedKernel> load(const codeobj::CodeObject& co, const std::string& kernel) = 0;
  // Runs one concrete launch (emu::expand_runs). Faults and step-limit stops are outcomes;
  // a launch the spec describes wrongly throws asmevo::Error.
  // `observer` (emulators only; others refuse a non-null one) sees every instruction executed.
  virtual RunOutcome run(const LoadedKernel& kernel, const emu::LaunchSpec& run, uint64_t max_wave_instructions,
                         const RunVariant& variant = {}, emu::ExecObserver* observer = nullptr) = 0;
};

// The gfx9 functional emulator (emu/). `threads`: worker threads per run (0: all cores).
std::unique_ptr<Backend> make_emulator_backend(unsigned threads = 0);

}  // namespace asmevo::verify
