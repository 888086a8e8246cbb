#include "cli/check.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "check/check.h"
#include "check/hazards.h"
#include "codeobj/container.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

CLI::App* add_check_command(CLI::App& app, CheckOptions& opts) {
  auto* cmd = app.add_subcommand(
      "check", "Static safety checks: waitcnt, manually inserted wait states (hazards), resources (exit 1 on a violation)");
  cmd->add_option("file", opts.file, "code object, offload bundle, or host ELF with .hip_fatbin");
  cmd->add_option("--kernel", opts.kernel, "only this kernel (and the device functions it may call)");
  cmd->add_flag("--json", opts.json, "machine-readable report (schema asmevo.check/1, docs/checks.md)");
  cmd->add_option("--dynamic-lds", opts.dynamic_lds,
                  "bytes of dynamic LDS the launch adds; enables the LDS offset check against the allocation");
  cmd->add_option("--launch", opts.launch,
                  "launch spec: check its kernel with its dynamic LDS (the smallest over its launch shapes)");
  cmd->add_flag("--rules", opts.rules, "print the hazard rule table with sources and exit");
  return cmd;
}

namespace {

int print_rules(bool json) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : check::hazard_rules()) {
    std::string archs;
    if (r.archs & check::kGfx90a) archs += "gfx90a ";
    if (r.archs & check::kGfx942) archs += "gfx942 ";
    if (r.archs & check::kGfx950) archs += "gfx950 ";
    if (!archs.empty()) archs.pop_back();
    if (json)
      rows.push_back({{"id", r.id}, {"description", r.description}, {"archs", archs},
                      {"wait_states", r.wait_states}, {"source", r.source}});
    else
      std::cout << fmt::format("{}\n  {}\n  archs: {}; wait states: {}\n  source: {}\n", r.id, r.description, archs,
                               r.wait_states, r.source);
  }
  if (json) std::cout << nlohmann::json{{"schema", "asmevo.check-rules/1"}, {"rules", rows}}.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

int run_check(const CheckOptions& opts) {
  if (opts.rules) return print_rules(opts.json);
  if (opts.file.empty()) throw Error("no input file", "asmevo check", "give a code object: asmevo check FILE");
  auto bytes = read_file_bytes(opts.file);
  auto objs = codeobj::extract_code_objects(bytes, opts.file);
  check::CheckOptions copts;
  if (!opts.kernel.empty()) copts.kernel = opts.kernel;
  if (opts.dynamic_lds >= 0) copts.dynamic_lds = static_cast<uint32_t>(opts.dynamic_lds);
  if (!opts.launch.empty()) {
    emu::LaunchSpec spec = emu::load_launch_spec(opts.launch);
    if (!opts.kernel.empty() && opts.kernel != spec.kernel)
      throw Error("--kernel " + opts.kernel + " but the launch spec is for " + spec.kernel, opts.launch);
    copts.kernel = spec.kernel;
    if (opts.dynamic_lds < 0)
      for (const auto& run : emu::expand_runs(spec))
        copts.dynamic_lds = std::min(copts.dynamic_lds.value_or(run.dynamic_lds), run.dynamic_lds);
  }
  bool clean = true;
  nlohmann::json reports = nlohmann::json::array();
  size_t matched = 0;
  for (auto& o : objs) {
    auto co = codeobj::CodeObject::parse(std::move(o.bytes), o.origin);
    if (copts.kernel && !co.kernel(*copts.kernel) && objs.size() > 1) continue;  // other bundle entries
    ++matched;
    auto rep = check::check_code_object(co, copts);
    clean &= rep.clean();
    if (opts.json)
      reports.push_back(rep.to_json());
    else
      std::cout << rep.to_text();
  }
  if (copts.kernel && matched == 0)
    throw Error("no code object in the file has a kernel named '" + *copts.kernel + "'", opts.file,
                "list kernels with `asmevo inspect`");
  if (opts.json)
    std::cout << nlohmann::json{{"schema", "asmevo.check/1"}, {"file", opts.file}, {"clean", clean}, {"code_objects", reports}}
                     .dump(2)
              << "\n";
  return clean ? kExitOk : kExitFailure;
}

}  // namespace asmevo::cli
