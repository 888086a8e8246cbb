#include "timing/backend.h"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <thread>
#include <unordered_map>

#include "codeobj/arch_params.h"
#include "emu/dispatch.h"
#include "program/decoder.h"
#include "support/error.h"
#include "timing/reuse_probe.h"
#include "timing/trace.h"

namespace asmevo::timing {

const char* figure_kind_name(FigureKind k) { return k == FigureKind::Modeled ? "modeled" : "measured"; }

Timing ModeledRun::timing() const {
  Timing t;
  t.kind = FigureKind::Modeled;
  t.backend = fmt::format("asmevo-model {} ({})", codeobj::to_string(model.hw->arch), model.hw->device);
  t.cycles = static_cast<double>(model.cycles);
  t.microseconds = model.microseconds;
  t.clock_ghz = model.clock_ghz;
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

namespace {

// Counters of a sampled simulation scaled from the simulated workgroups to the whole launch.
void scale_to_launch(ModelResult& m, const SamplePlan& plan, const SampleEstimate& est, const HwParams& hw,
                     uint64_t buffer_bytes) {
  const double f = static_cast<double>(plan.grid_groups) / static_cast<double>(plan.workgroups.size());
  auto scale = [f](uint64_t& v) { v = static_cast<uint64_t>(std::llround(static_cast<double>(v) * f)); };
  for (uint64_t* v : {&m.waves, &m.wave_instructions, &m.l1_bytes, &m.l2_bytes, &m.mall_bytes, &m.hbm_bytes, &m.lds_bytes,
                      &m.unique_bytes})
    scale(*v);
  m.flops *= f, m.valu_busy *= f, m.mfma_busy *= f, m.salu_busy *= f;
  for (auto& p : m.per_inst) {
    scale(p.executions);
    p.issue_cycles *= f;
    for (double& st : p.stall) st *= f;
  }
  // Workgroups share inputs (GEMM panels): scaled distinct bytes overcount them; the launch's buffers bound them.
  m.unique_bytes = std::min(m.unique_bytes, buffer_bytes);
  m.workgroups = plan.grid_groups;
  m.cus_used = static_cast<unsigned>(std::min<uint64_t>(hw.cus, plan.grid_groups));
  m.cycles = static_cast<uint64_t>(std::llround(est.cycles));
  set_roofline(m, hw, hw.cus, hw.hbm_bw);
  set_clock(m, hw, hw.cus);
  m.sample.sampled = true;
  m.sample.simulated_groups = plan.workgroups.size();
  m.sample.description = plan.describe();
  m.sample.error_bound = est.error_bound;
  m.sample.extrapolated_share = est.cycles > 0 ? est.extrapolated_cycles / est.cycles : 0;
}

}  // namespace

struct LaunchTraces {
  std::shared_ptr<const emu::Program> program;
  LaunchTrace trace;          // the simulated workgroups
  LaunchTrace warming_trace;  // the warming groups (`warming` points into it)
  Warming warming;
  bool warmed = false;        // warming applies
  codeobj::Occupancy occupancy;
  SamplePlan sample;
  uint64_t buffer_bytes = 0, once_bytes = 0;
  codeobj::Arch arch{};
};

ModelResult replay(const LaunchTraces& t, const HwParams& row) {
  require(row.arch == t.arch, "a hardware variant of another processor", "perturb the row of the kernel's own arch");
  ModelResult m = model_launch(*t.program, t.trace, t.occupancy, row, t.sample.slice, t.warmed ? &t.warming : nullptr);
  if (t.sample.sampled) scale_to_launch(m, t.sample, extrapolate(t.sample, m, t.once_bytes), row, t.buffer_bytes);
  return m;
}

ModeledRun model_kernel(const KernelLaunch& kl, unsigned threads, const SampleOptions& sampling, const std::vector<HwParams>& variants,
                        bool keep_traces) {
  const HwParams& hw = hw_params(kl.co->target().arch);
  ModeledRun out;
  const auto t_prepare = std::chrono::steady_clock::now();
  program::Decoder decoder(kl.co->target());
  out.program = emu::Program::build(*kl.co, *kl.kernel, decoder);
  const codeobj::Occupancy occ = launch_occupancy(*kl.co, *kl.kernel, *kl.spec);
  unsigned slots = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  auto launch = emu::prepare_launch(*kl.co, *kl.kernel, *kl.spec, slots, false, kl.inputs);
  const uint64_t grid_groups =
      static_cast<uint64_t>(launch->num_groups[0]) * launch->num_groups[1] * launch->num_groups[2];
  auto t0 = std::chrono::steady_clock::now();
  // The first workgroup alone: its wave-instructions size the sample; it is the first of every sample.
  const uint64_t first[] = {0};
  TraceRecorder probe(*launch, *out.program, hw, first);
  emu::RunOptions ro;
  ro.threads = threads;
  ro.observer = &probe;
  ro.workgroups = first;
  out.stats = emu::run_launch(*launch, *out.program, ro).stats;
  LaunchTrace trace = probe.take();
  const uint64_t first_instructions = trace.instructions();
  out.sample = plan_sample(hw, grid_groups, occ.workgroups_per_cu, static_cast<double>(first_instructions), sampling);
  // Functional warming (timing/sampling.h): a one-round launch has as many of its other workgroups
  // emulated as the sample leaves of the total cost; the sample's are simulated, the others warm the MALL.
  const double sample_cost = static_cast<double>(out.sample.workgroups.size()) * std::max(1.0, static_cast<double>(first_instructions));
  const std::vector<uint64_t> warmers =
      warming_groups(hw, out.sample, occ.workgroups_per_cu, static_cast<double>(first_instructions),
                     (sampling.total_wave_instructions - sample_cost) * sampling.warming_budget_share);
  std::vector<uint64_t> rest;  // emulated after the first, in ascending id when warming
  if (out.sample.sampled && warmers.empty()) rest.assign(out.sample.workgroups.begin() + 1, out.sample.workgroups.end());
  else if (!out.sample.sampled)
    for (uint64_t g = 1; g < grid_groups; ++g) rest.push_back(g);
  else {
    rest.assign(out.sample.workgroups.begin() + 1, out.sample.workgroups.end());
    rest.insert(rest.end(), warmers.begin(), warmers.end());
    std::sort(rest.begin(), rest.end());
  }
  if (!rest.empty()) {
    TraceRecorder recorder(*launch, *out.program, hw, rest);
    ro.observer = &recorder;
    ro.workgroups = rest;
    out.stats.add(emu::run_launch(*launch, *out.program, ro).stats);
    LaunchTrace more = recorder.take();
    for (auto& g : more.groups) trace.groups.push_back(std::move(g));
  }
  // The reuse probe (timing/reuse_probe.h): co-residents of workgroup 0 that the slice leaves out, emulated
  // after the sample (so the sample's traces are those it had without the probe) unless warming already did.
  const ReuseProbe reuse_probe =
      plan_reuse_probe(hw, out.sample, occ.workgroups_per_cu, static_cast<double>(first_instructions),
                       sampling.reuse_probe_wave_instructions, sampling.reuse_probe_peers);
  if (!reuse_probe.empty()) {
    std::unordered_map<uint64_t, size_t> index{{0, 0}};
    for (size_t i = 0; i < rest.size(); ++i) index.emplace(rest[i], i + 1);
    std::vector<uint64_t> missing;
    for (uint64_t g : reuse_probe.ids())
      if (!index.count(g)) missing.push_back(g);
    LaunchTrace probed;
    if (!missing.empty()) {
      TraceRecorder recorder(*launch, *out.program, hw, missing);
      ro.observer = &recorder;
      ro.workgroups = missing;
      out.stats.add(emu::run_launch(*launch, *out.program, ro).stats);
      probed = recorder.take();
    }
    for (size_t i = 0; i < missing.size(); ++i) index.emplace(missing[i], trace.groups.size() + i);
    auto peer = [&](uint64_t g) -> const std::vector<WaveTrace>& {
      const size_t i = index.at(g);
      return i < trace.groups.size() ? trace.groups[i] : probed.groups[i - trace.groups.size()];
    };
    out.sample.slice.read_shares = measure_read_shares(hw, *out.program, *launch, reuse_probe, trace.groups[0], peer);
    out.sample.probe_groups = reuse_probe.ids().size();
  }
  LaunchTrace warming_trace;
  Warming warming;
  if (!warmers.empty()) {  // `trace` holds workgroup 0, then `rest`'s
    std::unordered_map<uint64_t, size_t> index{{0, 0}};
    for (size_t i = 0; i < rest.size(); ++i) index.emplace(rest[i], i + 1);
    LaunchTrace simulated;
    simulated.num_groups = trace.num_groups;
    for (uint64_t g : out.sample.workgroups) simulated.groups.push_back(std::move(trace.groups[index.at(g)]));
    for (uint64_t g : warmers)
      warming_trace.groups.push_back(std::move(trace.groups[index.at(g)])), warming_trace.group_ids.push_back(g);
    trace = std::move(simulated);
    warming = plan_warming(hw, out.sample, warming_trace);
  }
  trace.group_ids = out.sample.sampled ? out.sample.workgroups : std::vector<uint64_t>{};
  auto t1 = std::chrono::steady_clock::now();
  auto traces = std::make_shared<LaunchTraces>();
  for (const auto& b : launch->buffers) {
    traces->buffer_bytes += b.bytes;
    // once_bytes: each buffer's lines read once and written once (+ a line: unaligned ends)
    traces->once_bytes += 2 * ((b.bytes + hw.l2_line - 1) / hw.l2_line + 1) * hw.l2_line;
  }
  traces->program = out.program;
  traces->trace = std::move(trace);
  traces->warming_trace = std::move(warming_trace);  // a move keeps the groups `warming` points to in place
  traces->warming = std::move(warming);
  traces->warmed = !warmers.empty();
  traces->occupancy = occ;
  traces->sample = out.sample;
  traces->arch = hw.arch;
  out.model = replay(*traces, hw);
  for (const HwParams& row : variants) {
    const ModelResult m = replay(*traces, row);
    out.variant_cycles.push_back(m.cycles);
    out.variant_microseconds.push_back(m.microseconds);
  }
  if (keep_traces) out.traces = std::move(traces);
  auto t2 = std::chrono::steady_clock::now();
  out.prepare_seconds = std::chrono::duration<double>(t0 - t_prepare).count();
  out.emulate_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.model_seconds = std::chrono::duration<double>(t2 - t1).count();
  return out;
}

}  // namespace asmevo::timing
