#include "timing/backend.h"

#include <chrono>
#include <fmt/format.h>
#include <thread>

#include "codeobj/arch_params.h"
#include "emu/dispatch.h"
#include "program/decoder.h"
#include "support/error.h"
#include "timing/trace.h"

namespace asmevo::timing {

const char* figure_kind_name(FigureKind k) { return k == FigureKind::Modeled ? "modeled" : "measured"; }

Timing ModeledRun::timing() const {
  Timing t;
  t.kind = FigureKind::Modeled;
  t.backend = fmt::format("asmevo-model {} ({})", codeobj::to_string(model.hw->arch), model.hw->device);
  t.cycles = static_cast<double>(model.cycles);
  t.microseconds = model.microseconds;
  t.clock_ghz = model.hw->clock_ghz;
  return t;
}

codeobj::Occupancy launch_occupancy(const codeobj::CodeObject& co, const codeobj::Kernel& k, const emu::LaunchSpec& spec) {
  const codeobj::ArchParams* ap = codeobj::arch_params(co.target().arch);
  if (!ap || !k.resources)
    throw Error("no resource description for kernel " + k.name, co.target().str(), "time kernels built for gfx90a, gfx942 or gfx950");
  const auto& r = *k.resources;
  const unsigned wg = spec.block[0] * spec.block[1] * spec.block[2];
  return codeobj::compute_occupancy(*ap, r.vgprs_allocated, r.sgprs_allocated, r.lds_bytes + spec.dynamic_lds, wg);
}

ModeledRun model_kernel(const KernelLaunch& kl, unsigned threads) {
  const HwParams& hw = hw_params(kl.co->target().arch);
  ModeledRun out;
  program::Decoder decoder(kl.co->target());
  out.program = emu::Program::build(*kl.co, *kl.kernel, decoder);
  const codeobj::Occupancy occ = launch_occupancy(*kl.co, *kl.kernel, *kl.spec);
  unsigned slots = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  auto launch = emu::prepare_launch(*kl.co, *kl.kernel, *kl.spec, slots);
  TraceRecorder recorder(*launch, *out.program, hw);
  emu::RunOptions ro;
  ro.threads = threads;
  ro.observer = &recorder;
  auto t0 = std::chrono::steady_clock::now();
  emu::RunResult rr = emu::run_launch(*launch, *out.program, ro);
  auto t1 = std::chrono::steady_clock::now();
  LaunchTrace trace = recorder.take();
  out.model = model_launch(*out.program, trace, occ, hw);
  auto t2 = std::chrono::steady_clock::now();
  out.stats = rr.stats;
  out.emulate_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.model_seconds = std::chrono::duration<double>(t2 - t1).count();
  return out;
}

}  // namespace asmevo::timing
