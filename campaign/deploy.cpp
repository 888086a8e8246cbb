#include "campaign/deploy.h"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "campaign/process.h"
#include "campaign/slurm.h"
#include "campaign/state.h"
#include "support/error.h"

namespace asmevo::campaign {

namespace {

// Whether `exe --help` lists a `deploy` subcommand (`exe deploy --help` alone cannot tell: the
// top-level --help answers it even when deploy does not exist).
bool has_deploy_command(const std::string& exe) {
  Captured help = capture({exe, "--help"});
  std::istringstream in(help.output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  deploy ", 0) == 0) return true;
  return false;
}

}  // namespace

int deploy(const DeployOptions& o) {
  if (o.to != "triton" && o.to != "aiter") throw Error("unknown deploy target '" + o.to + "'", "--to", "use --to triton or --to aiter");
  const Manifest m = load_manifest(o.campaign);
  std::vector<const TaskStatus*> winners;
  const std::vector<TaskStatus> status = derive_status(m, read_submissions(m).empty() ? std::map<std::string, SlurmTask>{} : query_slurm(m).tasks);
  for (const auto& s : status)
    if (s.state == "done" && s.store.final_verdict == "EQUIVALENT" && s.store.speedup() > 1.0) winners.push_back(&s);
  if (winners.empty()) {
    std::cout << "no winners to deploy: no done task has a re-verified speedup above 1x\n";
    return kExitOk;
  }
  const std::string exe = self_exe();
  std::vector<std::vector<std::string>> commands;
  for (const auto* w : winners) commands.push_back({exe, "deploy", o.to, o.source, "--from", task_store(m, w->task->id), "-o", o.output});
  if (o.dry_run) {
    for (const auto& c : commands) {
      std::string line;
      for (const auto& a : c) line += (line.empty() ? "" : " ") + a;
      std::cout << line << "\n";
    }
    return kExitOk;
  }
  if (!has_deploy_command(exe)) {
    std::string list;
    for (const auto* w : winners) list += fmt::format("\n  {} {:.3f}x {}", w->task->id, w->store.speedup(), task_output(m, w->task->id));
    throw Error("this asmevo has no `deploy` command (asmevo deploy triton|aiter, issue 18, is not in this build), so the " +
                    std::to_string(winners.size()) + " winner(s) cannot be handed over:" + list,
                "campaign deploy", "use an asmevo built with `deploy`, or copy the optimized objects above by hand");
  }
  size_t ok = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    Captured c = capture(commands[i]);
    std::cout << c.output;
    if (c.status == 0) ++ok;
    else std::cerr << fmt::format("deploy of {} failed ({})\n", winners[i]->task->id, c.status);
  }
  std::cout << fmt::format("deployed {} of {} winner(s) to {}\n", ok, winners.size(), o.output);
  return ok == commands.size() ? kExitOk : kExitFailure;
}

}  // namespace asmevo::campaign
