// asmevo time FILE --kernel K --launch SPEC.yaml [--perf NAME] [--json]
// asmevo profile FILE --kernel K --launch SPEC.yaml [--perf NAME] [--windows N] [--window-length L] [--json]
// Both model the spec's perf launches (docs/emulator.md "Launch spec"): `time` every one of them
// (or --perf NAME), `profile` the first (or --perf NAME); every figure names its launch.
#include "cli/timing.h"
#include "verify/hip_backend.h"

#include <fmt/format.h>
#include <cmath>
#include <iostream>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "timing/profile.h"

namespace asmevo::cli {

namespace {

void add_common(CLI::App* cmd, TimingOptions& o) {
  cmd->add_option("file", o.file, "code object")->required();
  cmd->add_option("--kernel", o.kernel, "kernel to launch (default: the launch spec's)");
  cmd->add_option("--launch", o.launch, "launch spec (YAML)")->required();
  cmd->add_option("--threads", o.threads, "emulator threads (0: all cores); the modeled figures do not depend on it");
  cmd->add_option("--perf", o.perf, "the spec's perf launch to model, by name (default: time every perf launch, profile the first)");
  cmd->add_flag("--exact", o.exact, "simulate every workgroup instead of a sample of large launches (slow)");
  cmd->add_option("--slice", o.slice,
                  "a sample's workgroups: own-cus (those the slice's CUs run) or xcd-window (a window of each XCD's stream; "
                  "docs/timing.md \"Sampling\")")
      ->check(CLI::IsMember({"own-cus", "xcd-window"}));
}

struct Loaded {
  codeobj::CodeObject co;
  const codeobj::Kernel* kernel = nullptr;
  emu::LaunchSpec spec;
};

Loaded load(const TimingOptions& o) {
  emu::LaunchSpec spec = emu::load_launch_spec(o.launch);
  std::string kname = o.kernel.empty() ? spec.kernel : o.kernel;
  if (!o.kernel.empty() && o.kernel != spec.kernel)
    throw Error("--kernel " + o.kernel + " but the launch spec is for " + spec.kernel, o.launch,
                "pass the launch spec written for this kernel");
  Loaded l{codeobj::CodeObject::parse(read_file_bytes(o.file), o.file), nullptr, std::move(spec)};
  l.kernel = l.co.kernel(kname);
  if (!l.kernel) {
    std::string names;
    for (const auto& k : l.co.kernels()) names += (names.empty() ? "" : ", ") + k.name;
    throw Error("no kernel named " + kname, o.file, "kernels in this file: " + names);
  }
  return l;
}

// The launches to model: --perf NAME, else every perf launch (time) or the first (profile).
std::vector<emu::LaunchSpec> chosen_launches(const TimingOptions& o, const emu::LaunchSpec& spec, bool all) {
  if (!o.perf.empty()) return {emu::perf_run(spec, o.perf)};
  std::vector<emu::LaunchSpec> runs = emu::perf_runs(spec);
  if (!all) runs.resize(1);
  return runs;
}

nlohmann::json launch_json(const emu::LaunchSpec& r) {
  return {{"name", r.perf_name},
          {"source", r.perf_fallback ? "first verification launch (no perf: list in the spec)" : "perf"},
          {"description", emu::perf_description(r)},
          {"grid", r.grid},
          {"block", r.block},
          {"dynamic_lds", r.dynamic_lds}};
}

std::string launch_line(const emu::LaunchSpec& r) {
  return fmt::format("  launch            {}: {}\n", emu::perf_description(r), emu::shape_text(r));
}

timing::SampleOptions sample_options(const TimingOptions& o) {
  timing::SampleOptions s;
  s.exact = o.exact;
  if (o.slice == "own-cus") s.slice_workgroups = timing::SliceWorkgroups::OwnCus;
  if (o.slice == "xcd-window") s.slice_workgroups = timing::SliceWorkgroups::XcdWindow;
  return s;
}

}  // namespace

CLI::App* add_time_command(CLI::App& app, TimingOptions& o) {
  auto* cmd = app.add_subcommand("time", "Modeled time of one kernel launch (cycle-approximate model, docs/timing.md)");
  add_common(cmd, o);
  cmd->add_flag("--json", o.json, "machine-readable summary (schema asmevo.time/1 for one launch, asmevo.time.launches/1 for several)");
  cmd->add_option("--backend", o.backend, "model (default) or hip: time with HIP events on a HIP runtime (docs/hip.md)")
      ->check(CLI::IsMember({"model", "hip"}));
  cmd->add_option("--hip-library", o.hip_library, "with --backend hip: the runtime to dlopen (default $ASMEVO_HIP_LIBRARY or libamdhip64.so.5)");
  cmd->add_option("--warmup", o.warmup, "with --backend hip: untimed launches first (default 3)");
  cmd->add_option("--repetitions", o.repetitions, "with --backend hip: timed launches, median reported (default 20)");
  return cmd;
}

CLI::App* add_profile_command(CLI::App& app, TimingOptions& o) {
  auto* cmd = app.add_subcommand("profile", "Modeled per-instruction cycles, stall reasons and hot windows (docs/timing.md)");
  add_common(cmd, o);
  cmd->add_option("--windows", o.windows, "hot windows to show (default 5)");
  cmd->add_option("--window-length", o.window_length, "longest window, in instructions (default 64)");
  cmd->add_flag("--json", o.json, "machine-readable profile (schema asmevo.profile/1)");
  return cmd;
}

int run_time(const TimingOptions& o) {
  Loaded l = load(o);
  std::vector<emu::LaunchSpec> runs = chosen_launches(o, l.spec, true);
  if (o.backend == "hip") {  // the first chosen launch (the perf launch, or the one --perf names)
    verify::HipTiming t = verify::time_with_hip(l.co, l.kernel->name, runs.front(), o.warmup, o.repetitions, o.hip_library);
    std::cout << fmt::format(
        "{} on {} [{}] -- MEASURED with HIP events by the runtime {}\n  median {:.3f} us (min {:.3f}, max {:.3f}) over {} runs after {} "
        "warm-up, L2/MALL flushed before each\n  device clock {} MHz (peak, hipDeviceAttributeClockRate); power mode {}\n"
        "  (on libasmevo_hip these are that runtime's MODELED times, measured through the same API)\n",
        l.kernel->name, t.device_arch, o.file, t.runtime, t.median_us, t.min_us, t.max_us, t.repetitions, t.warmup, t.clock_khz / 1000,
        t.power_mode);
    return kExitOk;
  }
  std::vector<nlohmann::json> jsons;
  double log_cycles = 0, log_us = 0;
  std::string text;
  for (const emu::LaunchSpec& run : runs) {
    timing::ModeledRun r = timing::model_kernel({&l.co, l.kernel, &run}, o.threads, sample_options(o));
    const auto& m = r.model;
    log_cycles += std::log(std::max<double>(1, static_cast<double>(m.cycles)));
    log_us += std::log(std::max(1e-9, m.microseconds));
    nlohmann::json j = timing::time_json(m);
    j["kernel"] = l.kernel->name;
    j["file"] = o.file;
    j["launch"] = launch_json(run);
    jsons.push_back(std::move(j));
    const double secs = m.microseconds * 1e-6;
    if (text.empty())
      text += fmt::format("{} on {} ({}, {} CUs at {} GHz) -- all figures MODELED, not measured\n", l.kernel->name,
                          codeobj::to_string(m.hw->arch), m.hw->device, m.hw->cus, m.hw->clock_ghz);
    text += launch_line(run);
    text += fmt::format("  modeled time      {:.3f} us ({} cycles){}\n", m.microseconds, m.cycles,
                        m.sample.sampled ? fmt::format(", sampled: within +-{:.1f} %", 100 * m.sample.error_bound) : "");
    text += fmt::format("  clock             {:.3f} GHz under this load (peak {} GHz); launch overhead {:.1f} us more, not included\n",
                        m.clock_ghz, m.hw->clock_ghz, m.hw->launch_overhead_us);
    text += fmt::format("  kernel start/end  {:.1f} us more in a measured kernel duration (profiler, graph replay), not included\n",
                        m.hw->kernel_boundary_us);
    text += fmt::format("  sample            {}\n", m.sample.sampled ? m.sample.description : "every workgroup simulated (exact)");
    text += fmt::format("  roofline bound    {:.3f} us ({}), modeled/roofline {:.2f}\n", m.roofline_cycles / (m.hw->clock_ghz * 1e3),
                        m.roofline_bound, m.roofline_cycles > 0 ? m.cycles / m.roofline_cycles : 0.0);
    text += fmt::format("  occupancy         {} waves/SIMD, {} workgroups/CU (limited by {}); {} workgroups, {} waves on {} CUs\n",
                        m.occupancy.waves_per_simd, m.occupancy.workgroups_per_cu, m.occupancy.limiter, m.workgroups, m.waves,
                        m.cus_used);
    text += fmt::format("  memory            {} B unique, {} B from HBM, {} B from MALL, {} B L2, {} B L1; {:.1f} GB/s HBM achieved\n",
                        m.unique_bytes, m.hbm_bytes, m.mall_bytes, m.l2_bytes, m.l1_bytes, secs > 0 ? m.hbm_bytes / secs / 1e9 : 0.0);
    text += fmt::format("  compute           {:.4g} FLOP, {:.1f} GFLOP/s achieved\n", m.flops, secs > 0 ? m.flops / secs / 1e9 : 0.0);
    text += fmt::format("  top stall         {}\n", timing::stall_name(m.top_stall()));
  }
  const double n = static_cast<double>(runs.size());
  if (runs.size() > 1)
    text += fmt::format("  geomean           {:.3f} us, {:.0f} cycles over the {} perf launches (the optimizer's fitness)\n",
                        std::exp(log_us / n), std::exp(log_cycles / n), runs.size());
  if (!o.json) {
    std::cout << text;
    return kExitOk;
  }
  if (jsons.size() == 1) {
    std::cout << jsons[0].dump(2) << "\n";
    return kExitOk;
  }
  nlohmann::json j = {{"schema", "asmevo.time.launches/1"},
                      {"figure", "modeled"},
                      {"kernel", l.kernel->name},
                      {"file", o.file},
                      {"launches", jsons},
                      {"geomean_cycles", std::exp(log_cycles / n)},
                      {"geomean_microseconds", std::exp(log_us / n)}};
  std::cout << j.dump(2) << "\n";
  return kExitOk;
}

int run_profile(const TimingOptions& o) {
  Loaded l = load(o);
  const emu::LaunchSpec run = chosen_launches(o, l.spec, false).at(0);
  timing::ModeledRun r = timing::model_kernel({&l.co, l.kernel, &run}, o.threads, sample_options(o));
  auto windows = timing::hot_windows(*r.program, r.model, o.window_length, o.windows);
  if (o.json) {
    nlohmann::json j = timing::profile_json(*r.program, r.model, windows);
    j["file"] = o.file;
    j["launch"] = launch_json(run);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "profile of " << emu::perf_description(run) << ": " << emu::shape_text(run) << "\n";
    std::cout << timing::profile_text(*r.program, r.model, windows);
  }
  return kExitOk;
}

}  // namespace asmevo::cli
