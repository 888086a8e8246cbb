// asmevo: makes compiled AMD GPU kernels faster at the assembly level.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/deploy.h"
#include "cli/disasm.h"
#include "cli/exec.h"
#include "cli/inspect.h"
#include "cli/run.h"
#include "cli/abi_diff.h"
#include "cli/campaign.h"
#include "cli/check.h"
#include "cli/mcp.h"
#include "cli/optimize.h"
#include "cli/patch.h"
#include "cli/rebuild.h"
#include "cli/report.h"
#include "cli/spec.h"
#include "cli/timing.h"
#include "cli/verify.h"
#include "support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"AsmEvo: recover, verify and optimize compiled AMD GPU kernels (gfx90a, gfx942, gfx950)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "asmevo 0.1");

  asmevo::cli::InspectOptions inspect;
  auto* cmd_inspect = app.add_subcommand("inspect", "Describe every code object and kernel in a file");
  cmd_inspect->add_option("file", inspect.file, "code object, offload bundle, or host ELF with .hip_fatbin")
      ->required();
  cmd_inspect->add_option("--kernel", inspect.kernel, "only this kernel");
  cmd_inspect->add_flag("--json", inspect.json, "machine-readable report (schema asmevo.inspect/1, docs/inspect-json.md)");

  asmevo::cli::DisasmOptions disasm;
  auto* cmd_disasm = app.add_subcommand("disasm", "Recover reassemblable assembly (labels, symbols, KD, metadata)");
  cmd_disasm->add_option("file", disasm.file, "code object (or a container holding exactly one)")->required();
  cmd_disasm->add_option("-o,--output", disasm.output, "write the assembly here (atomically) instead of stdout");
  cmd_disasm->add_flag("--no-comments", disasm.no_comments, "omit the address/bytes comments");

  asmevo::cli::RebuildOptions rebuild;
  auto* cmd_rebuild = asmevo::cli::add_rebuild_command(app, rebuild);
  asmevo::cli::RoundtripOptions roundtrip;
  auto* cmd_roundtrip = asmevo::cli::add_roundtrip_command(app, roundtrip);

  asmevo::cli::PatchOptions patch;
  auto* cmd_patch = asmevo::cli::add_patch_command(app, patch);
  asmevo::cli::AbiDiffOptions abi_diff;
  auto* cmd_abi_diff = asmevo::cli::add_abi_diff_command(app, abi_diff);
  asmevo::cli::CheckOptions check;
  auto* cmd_check = asmevo::cli::add_check_command(app, check);

  asmevo::cli::RunOptions run;
  auto* cmd_run = app.add_subcommand("run", "Run one kernel launch on the gfx9 emulator (docs/emulator.md)");
  cmd_run->add_option("file", run.file, "code object")->required();
  cmd_run->add_option("--kernel", run.kernel, "kernel to launch (default: the launch spec's)");
  cmd_run->add_option("--launch", run.launch, "launch spec (YAML, docs/emulator.md)")->required();
  cmd_run->add_option("--out", run.out, "folder for the output buffers (.npy); default: current folder");
  cmd_run->add_option("--inputs-out", run.inputs_out, "also write the buffers as they are before the run (.npy) into this folder");
  cmd_run->add_option("--threads", run.threads, "worker threads (0: all cores); results do not depend on it");
  cmd_run->add_option("--schedule", run.schedule,
                      "how a workgroup's waves take turns: in-order (each until s_barrier; default), reverse, interleaved (one "
                      "instruction each); a result that depends on it is a race between waves")
      ->check(CLI::IsMember({"in-order", "reverse", "interleaved"}));
  cmd_run->add_flag("--lds-races", run.lds_races,
                    "stop at the first LDS byte that two waves access with no s_barrier between them, one access a write");
  cmd_run->add_flag("--json", run.json, "machine-readable summary (schema asmevo.run/1)");

  asmevo::cli::SpecOptions spec;
  auto* cmd_spec = asmevo::cli::add_spec_command(app, spec);

  asmevo::cli::VerifyCommandOptions verify;
  auto* cmd_verify = asmevo::cli::add_verify_command(app, verify);

  asmevo::cli::TimingOptions time_opts, profile_opts;
  auto* cmd_time = asmevo::cli::add_time_command(app, time_opts);
  auto* cmd_profile = asmevo::cli::add_profile_command(app, profile_opts);

  asmevo::cli::OptimizeCommandOptions optimize;
  auto* cmd_optimize = asmevo::cli::add_optimize_command(app, optimize);

  asmevo::cli::McpCommandOptions mcp;
  auto* cmd_mcp = asmevo::cli::add_mcp_command(app, mcp);

  asmevo::cli::ReportOptions report;
  auto* cmd_report = asmevo::cli::add_report_command(app, report);

  asmevo::cli::ExecOptions exec;
  auto* cmd_exec = asmevo::cli::add_exec_command(app, exec);
  asmevo::cli::CaptureOptions capture;
  auto* cmd_capture = asmevo::cli::add_capture_command(app, capture);

  asmevo::cli::DeployOptions deploy;
  auto cmd_deploy = asmevo::cli::add_deploy_command(app, deploy);
  asmevo::cli::CampaignOptions campaign;
  auto* cmd_campaign = asmevo::cli::add_campaign_command(app, campaign);

  asmevo::cli::CoverageOptions coverage;
  auto* cmd_cov = app.add_subcommand("coverage", "List the mnemonics in code objects that the emulator does not implement");
  cmd_cov->add_option("files", coverage.files, "code objects");
  cmd_cov->add_option("--isa", coverage.isa, "instead: coverage of every mnemonic LLVM decodes for this processor (gfx942, ...)");
  cmd_cov->add_flag("--json", coverage.json, "machine-readable report (schema asmevo.coverage/1)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : asmevo::kExitBadInput;
  }
  try {
    if (*cmd_inspect) return asmevo::cli::run_inspect(inspect);
    if (*cmd_run) return asmevo::cli::run_run(run);
    if (*cmd_cov) return asmevo::cli::run_coverage(coverage);
    if (*cmd_time) return asmevo::cli::run_time(time_opts);
    if (*cmd_profile) return asmevo::cli::run_profile(profile_opts);
    if (*cmd_patch) return asmevo::cli::run_patch(patch);
    if (*cmd_abi_diff) return asmevo::cli::run_abi_diff(abi_diff);
    if (*cmd_check) return asmevo::cli::run_check(check);
    if (*cmd_disasm) return asmevo::cli::run_disasm(disasm);
    if (*cmd_rebuild) return asmevo::cli::run_rebuild(rebuild);
    if (*cmd_roundtrip) return asmevo::cli::run_roundtrip(roundtrip);
    if (*cmd_verify) return asmevo::cli::run_verify(verify);
    if (*cmd_spec) return asmevo::cli::run_spec(spec);
    if (*cmd_exec) return asmevo::cli::run_exec(exec);
    if (*cmd_deploy.deploy) return asmevo::cli::run_deploy(cmd_deploy, deploy);
    if (*cmd_capture) return asmevo::cli::run_capture(capture);
    if (*cmd_optimize) {
      std::string command_line = "asmevo";
      for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
      return asmevo::cli::run_optimize(optimize, command_line);
    }
    if (*cmd_report) return asmevo::cli::run_report(report);
    if (*cmd_mcp) {
      std::string command_line = "asmevo";
      for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
      return asmevo::cli::run_mcp(mcp, command_line);
    }
    if (*cmd_campaign) return asmevo::cli::run_campaign(campaign);
  } catch (const asmevo::Error& e) {
    std::cerr << e.format() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n  please report this with the input file\n";
    return asmevo::kExitInternal;
  }
  return 0;
}
