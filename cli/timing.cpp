// asmevo time FILE --kernel K --launch SPEC.yaml [--json]
// asmevo profile FILE --kernel K --launch SPEC.yaml [--windows N] [--window-length L] [--json]
#include "cli/timing.h"

#include <fmt/format.h>
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
  cmd->add_flag("--exact", o.exact, "simulate every workgroup instead of a sample of large launches (slow)");
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

timing::SampleOptions sample_options(const TimingOptions& o) {
  timing::SampleOptions s;
  s.exact = o.exact;
  return s;
}

}  // namespace

CLI::App* add_time_command(CLI::App& app, TimingOptions& o) {
  auto* cmd = app.add_subcommand("time", "Modeled time of one kernel launch (cycle-approximate model, docs/timing.md)");
  add_common(cmd, o);
  cmd->add_flag("--json", o.json, "machine-readable summary (schema asmevo.time/1)");
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
  timing::ModeledRun r = timing::model_kernel({&l.co, l.kernel, &l.spec}, o.threads, sample_options(o));
  const auto& m = r.model;
  if (o.json) {
    nlohmann::json j = timing::time_json(m);
    j["kernel"] = l.kernel->name;
    j["file"] = o.file;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  const double secs = m.microseconds * 1e-6;
  std::cout << fmt::format("{} on {} ({}, {} CUs at {} GHz) -- all figures MODELED, not measured\n", l.kernel->name,
                           codeobj::to_string(m.hw->arch), m.hw->device, m.hw->cus, m.hw->clock_ghz);
  std::cout << fmt::format("  modeled time      {:.3f} us ({} cycles){}\n", m.microseconds, m.cycles,
                           m.sample.sampled ? fmt::format(", sampled: within +-{:.1f} %", 100 * m.sample.error_bound) : "");
  std::cout << fmt::format("  clock             {:.3f} GHz under this load (peak {} GHz); launch overhead {:.1f} us more, not included\n",
                           m.clock_ghz, m.hw->clock_ghz, m.hw->launch_overhead_us);
  std::cout << fmt::format("  sample            {}\n", m.sample.sampled ? m.sample.description
                                                                          : "every workgroup simulated (exact)");
  std::cout << fmt::format("  roofline bound    {:.3f} us ({}), modeled/roofline {:.2f}\n",
                           m.roofline_cycles / (m.hw->clock_ghz * 1e3), m.roofline_bound,
                           m.roofline_cycles > 0 ? m.cycles / m.roofline_cycles : 0.0);
  std::cout << fmt::format("  occupancy         {} waves/SIMD, {} workgroups/CU (limited by {}); {} workgroups, {} waves on {} CUs\n",
                           m.occupancy.waves_per_simd, m.occupancy.workgroups_per_cu, m.occupancy.limiter, m.workgroups,
                           m.waves, m.cus_used);
  std::cout << fmt::format("  memory            {} B unique, {} B from HBM, {} B from MALL, {} B L2, {} B L1; {:.1f} GB/s HBM achieved\n",
                           m.unique_bytes, m.hbm_bytes, m.mall_bytes, m.l2_bytes, m.l1_bytes,
                           secs > 0 ? m.hbm_bytes / secs / 1e9 : 0.0);
  std::cout << fmt::format("  compute           {:.4g} FLOP, {:.1f} GFLOP/s achieved\n", m.flops, secs > 0 ? m.flops / secs / 1e9 : 0.0);
  std::cout << fmt::format("  top stall         {}\n", timing::stall_name(m.top_stall()));
  return kExitOk;
}

int run_profile(const TimingOptions& o) {
  Loaded l = load(o);
  timing::ModeledRun r = timing::model_kernel({&l.co, l.kernel, &l.spec}, o.threads, sample_options(o));
  auto windows = timing::hot_windows(*r.program, r.model, o.window_length, o.windows);
  if (o.json) {
    nlohmann::json j = timing::profile_json(*r.program, r.model, windows);
    j["file"] = o.file;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << timing::profile_text(*r.program, r.model, windows);
  }
  return kExitOk;
}

}  // namespace asmevo::cli
