#include "cli/campaign.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "campaign/collect.h"
#include "campaign/local_engine.h"
#include "campaign/report.h"
#include "campaign/state.h"
#include "support/error.h"

namespace asmevo::cli {
namespace fs = std::filesystem;

CLI::App* add_campaign_command(CLI::App& app, CampaignOptions& o) {
  auto* cmd = app.add_subcommand("campaign", "Optimize many kernels: on this machine or as one Slurm job array (docs/campaign.md)");
  cmd->require_subcommand(1);

  o.init = cmd->add_subcommand("init", "Collect every code object with a launch spec into a campaign manifest, one task per kernel");
  o.init->add_option("inputs", o.inputs, "folders (plain X.co + X.yaml, Triton cache/dump, capture) or list files (OBJECT SPEC... per line)")->required();
  o.init->add_option("-o,--output", o.output, "the campaign folder to create (holds campaign.yaml and every task's store)")->required();
  o.init->add_option("--specs", o.spec_dirs, "a folder of launch specs for every input object defining their kernel (repeatable)");
  o.init->add_option("--budget", o.defaults.budget, "candidates per kernel (default 200)");
  o.init->add_option("--time", o.defaults.time_s, "seconds per task attempt (default: none)");
  o.init->add_option("--seed", o.defaults.seed, "random seed (default 1)");
  o.init->add_option("--proposers", o.defaults.proposers, "rules, stochastic, llm (default rules,stochastic)");
  o.init->add_option("--min-gain", o.defaults.min_gain, "percent (default 1)");
  o.init->add_option("--threads", o.defaults.threads, "emulator threads per task (default 1; the Slurm array asks this many CPUs per task)");
  o.init->add_flag("--force", o.force, "replace an existing manifest (task folders are kept)");

  o.run = cmd->add_subcommand("run", "Run the tasks that are not done: here (--engine local) or as one Slurm job array (--engine slurm)");
  o.run->add_option("campaign", o.campaign, "the campaign folder")->required();
  o.run->add_option("--engine", o.engine, "local (default) or slurm")->check(CLI::IsMember({"local", "slurm"}));
  o.run->add_option("--jobs", o.jobs, "local: tasks at once (default 1)");
  o.run->add_option("--partition", o.slurm.partition, "slurm: partition");
  o.run->add_option("--time", o.slurm.time, "slurm: time limit per array task (sbatch --time, e.g. 2:00:00); a task it kills resumes on resubmission");
  o.run->add_option("--gres", o.slurm.gres, "slurm: generic resources per task, e.g. gpu:1 for the hip backend");
  o.run->add_option("--array-max", o.slurm.array_max, "slurm: at most this many array tasks at once (--array=...%M)");
  o.run->add_option("--account", o.slurm.account, "slurm: account");
  o.run->add_option("--qos", o.slurm.qos, "slurm: QOS");
  o.run->add_option("--sbatch-arg", o.slurm.sbatch_args, "slurm: one more sbatch argument (repeatable), e.g. --sbatch-arg=--constraint=mi300x");
  o.run->add_flag("--dry-run", o.slurm.dry_run, "slurm: write the array script, do not submit");

  o.status = cmd->add_subcommand("status", "Each task's state (new/queued/running/done/incomplete/failed/skipped), best speedup so far, candidates");
  o.status->add_option("campaign", o.campaign, "the campaign folder")->required();
  o.status->add_flag("--json", o.json, "machine-readable (schema asmevo.campaign-status/1)");

  o.report = cmd->add_subcommand("report", "One HTML page over all tasks: speedups, geomean, time, links to each task's report");
  o.report->add_option("campaign", o.campaign, "the campaign folder")->required();
  o.report->add_option("-o,--output", o.report_output, "the HTML file (written atomically)")->required();

  o.deploy = cmd->add_subcommand("deploy", "Hand every winner to `asmevo deploy triton|aiter` (issue 18)");
  o.deploy->add_option("campaign", o.deploy_opts.campaign, "the campaign folder")->required();
  o.deploy->add_option("--to", o.deploy_opts.to, "triton or aiter")->required();
  o.deploy->add_option("source", o.deploy_opts.source, "the Triton cache/dump folder or AITer hsa folder the kernels came from")->required();
  o.deploy->add_option("-o,--output", o.deploy_opts.output, "the override folder to write")->required();
  o.deploy->add_flag("--dry-run", o.deploy_opts.dry_run, "print the deploy commands only");

  o.task = cmd->add_subcommand("task", "Run one attempt of one task (what the engines run; see docs/campaign.md)");
  o.task->group("");  // internal: not listed in --help
  o.task->add_option("campaign", o.runner.campaign, "the campaign folder")->required();
  o.task->add_option("id", o.runner.task, "task id");
  o.task->add_option("--list", o.runner.list_file, "a Slurm array's task list (with --index)");
  o.task->add_option("--index", o.runner.index, "line of --list (SLURM_ARRAY_TASK_ID)");
  o.task->add_option("--engine", o.runner.engine, "who started it: local, slurm or manual");
  return cmd;
}

namespace {

int run_init(const CampaignOptions& o) {
  const fs::path dir = fs::absolute(o.output).lexically_normal();
  if (fs::exists(dir / campaign::kManifestFile) && !o.force)
    throw Error("a campaign already exists here", (dir / campaign::kManifestFile).string(),
                "edit its campaign.yaml, pass --force to replace the manifest (task folders are kept), or choose another -o");
  campaign::Collected c = campaign::collect(o.inputs, o.spec_dirs);
  if (c.tasks.empty()) {
    std::string why;
    for (const auto& w : c.without_spec) why += "\n  no launch spec: " + w;
    throw Error("found no code object with a launch spec" + why, "campaign init",
                "put X.yaml beside X.co (draft one with `asmevo spec X.co --kernel K -o X.yaml`), or pass --specs DIR");
  }
  campaign::Manifest m;
  m.dir = dir.string();
  m.defaults = o.defaults;
  if (!m.defaults.budget) m.defaults.budget = 200;
  if (!m.defaults.seed) m.defaults.seed = 1;
  m.tasks = c.tasks;
  campaign::write_manifest(m);
  campaign::load_manifest(m.dir);  // what we wrote reads back
  std::cout << fmt::format("campaign {}: {} task(s)\n", m.dir, m.tasks.size());
  for (const auto& t : m.tasks) std::cout << fmt::format("  {:<36} {} ({} spec(s))\n", t.id, t.object, t.specs.size());
  for (const auto& w : c.without_spec) std::cout << "  no launch spec, not a task: " << w << "\n";
  for (const auto& s : c.unused_specs) std::cout << "  spec matched no object: " << s << "\n";
  std::cout << "manifest: " << (dir / campaign::kManifestFile).string() << " (edit budget, priority, skip)\n";
  return kExitOk;
}

int run_status(const CampaignOptions& o) {
  const campaign::Manifest m = campaign::load_manifest(o.campaign);
  std::vector<std::string> notes;
  std::map<std::string, campaign::SlurmTask> slurm;
  if (!campaign::read_submissions(m).empty()) {
    campaign::SlurmView v = campaign::query_slurm(m);
    slurm = v.tasks;
    notes = v.notes;
  }
  const auto status = campaign::derive_status(m, slurm);
  std::map<std::string, size_t> counts;
  for (const auto& s : status) counts[s.state]++;
  if (o.json) {
    nlohmann::json j = {{"schema", "asmevo.campaign-status/1"}, {"campaign", m.dir}, {"notes", notes}, {"counts", counts},
                        {"geomean_done", campaign::geomean_done(status)}, {"tasks", nlohmann::json::array()}};
    for (const auto& s : status) {
      const auto& st = s.store;
      nlohmann::json t = {{"id", s.task->id}, {"kernel", s.task->kernel}, {"object", s.task->object}, {"specs", s.task->specs},
                          {"state", s.state}, {"reason", s.reason}, {"budget", m.effective(*s.task).budget},
                          {"store", campaign::task_store(m, s.task->id)}, {"output", campaign::task_output(m, s.task->id)},
                          {"figures", st.figure_kind}, {"baseline_us", st.baseline_us}, {"speedup", st.speedup()},
                          {"verified", st.final && st.final_verdict == "EQUIVALENT"}, {"final_verdict", st.final_verdict},
                          {"candidates", st.candidates}, {"accepted", st.accepted}, {"seconds", st.seconds},
                          {"attempts", s.record ? s.record->attempts : 0}, {"live", s.live}};
      if (s.slurm) t["slurm"] = {{"job", s.slurm->job}, {"queue", s.slurm->queue}, {"account", s.slurm->account}, {"message", s.slurm->message}};
      j["tasks"].push_back(t);
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "campaign " << m.dir << " -- speedups are " << (status.empty() ? "modeled" : status.front().store.figure_kind)
            << " (asmevo timing model), not measured\n";
  std::cout << fmt::format("{:<32} {:<10} {:>8} {:>12} {:>8} {:>8} {:>8}  {}\n", "task", "state", "speedup", "candidates", "accepted",
                           "attempts", "time", "reason / verdict");
  for (const auto& s : status) {
    const auto& st = s.store;
    std::string note = s.state == "done" ? st.final_verdict : s.reason;
    if (s.state != "done" && st.accepted) note += (note.empty() ? "" : "; ") + std::string("speedup so far, not re-verified yet");
    std::cout << fmt::format("{:<32} {:<10} {:>7.3f}x {:>12} {:>8} {:>8} {:>7.0f}s  {}\n", s.task->id, s.state, st.speedup(),
                             fmt::format("{}/{}", st.candidates, m.effective(*s.task).budget), st.accepted,
                             s.record ? s.record->attempts : 0, st.seconds, note);
  }
  std::string line;
  for (const auto& [state, n] : counts) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", n, state);
  std::cout << line << fmt::format("; geomean speedup of the done tasks {:.3f}x\n", campaign::geomean_done(status));
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  return kExitOk;
}

}  // namespace

int run_campaign(CampaignOptions& o) {
  if (*o.init) return run_init(o);
  if (*o.run) {
    const bool slurm = o.engine == "slurm";
    for (const char* opt : {"--partition", "--time", "--gres", "--array-max", "--account", "--qos", "--sbatch-arg", "--dry-run"})
      if (!slurm && o.run->count(opt))
        throw Error(std::string(opt) + " is an option of the Slurm engine", opt, "add --engine slurm, or leave it out for the local engine");
    if (slurm && o.run->count("--jobs"))
      throw Error("--jobs is an option of the local engine", "--jobs",
                  "with Slurm, --array-max M limits the array tasks running at once; the manifest's threads sets the cores per task");
    return slurm ? campaign::submit_slurm(o.campaign, o.slurm) : campaign::run_local(o.campaign, o.jobs);
  }
  if (*o.status) return run_status(o);
  if (*o.report) {
    campaign::write_campaign_report(o.campaign, o.report_output);
    std::cout << "wrote " << o.report_output << "\n";
    return kExitOk;
  }
  if (*o.deploy) return campaign::deploy(o.deploy_opts);
  if (*o.task) {
    if (o.runner.task.empty() == o.runner.list_file.empty())
      throw Error("give a task id or --list with --index", "campaign task", "e.g. asmevo campaign task CAMPAIGN TASK_ID");
    return campaign::run_task(o.runner);
  }
  return kExitBadInput;
}

}  // namespace asmevo::cli
