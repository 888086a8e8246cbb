#include "campaign/slurm.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "campaign/process.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

namespace {

std::string slurm_dir(const Manifest& m) { return m.dir + "/slurm"; }
std::string submissions_file(const Manifest& m) { return slurm_dir(m) + "/submissions.json"; }

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string first_line(const std::string& s) {
  auto l = lines_of(s);
  return l.empty() ? "" : l.front();
}

}  // namespace

std::vector<Submission> read_submissions(const Manifest& m) {
  std::vector<Submission> out;
  const std::string path = submissions_file(m);
  if (!fs::exists(path)) return out;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("not valid JSON: ") + e.what(), path, "it is written atomically by campaign run; restore it or remove it");
  }
  for (const auto& s : j.value("submissions", nlohmann::json::array())) {
    Submission x;
    x.job = s.value("job", "");
    x.script = s.value("script", "");
    x.tasks_file = s.value("tasks_file", "");
    x.submitted = s.value("submitted", "");
    x.tasks = s.value("tasks", std::vector<std::string>{});
    out.push_back(std::move(x));
  }
  return out;
}

std::string array_script(const Manifest& m, const SlurmOptions& o, const std::string& tasks_file, size_t count, unsigned cpus) {
  std::string s = "#!/bin/bash\n";
  s += "# AsmEvo campaign " + m.dir + ": one array task per line of " + tasks_file + " (docs/campaign.md).\n";
  s += "#SBATCH --job-name=asmevo-" + fs::path(m.dir).filename().string() + "\n";
  s += fmt::format("#SBATCH --array=0-{}{}\n", count - 1, o.array_max ? fmt::format("%{}", o.array_max) : "");
  s += "#SBATCH --ntasks=1\n";
  s += fmt::format("#SBATCH --cpus-per-task={}\n", cpus);
  s += "#SBATCH --output=" + slurm_dir(m) + "/%A_%a.out\n";
  s += "#SBATCH --open-mode=append\n";
  s += "#SBATCH --requeue\n";  // after a node failure or preemption the array task runs again and resumes from its store
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  if (!o.gres.empty()) s += "#SBATCH --gres=" + o.gres + "\n";
  if (!o.account.empty()) s += "#SBATCH --account=" + o.account + "\n";
  if (!o.qos.empty()) s += "#SBATCH --qos=" + o.qos + "\n";
  s += "exec " + sh_quote(self_exe()) + " campaign task " + sh_quote(m.dir) + " --list " + sh_quote(tasks_file) +
       " --index \"$SLURM_ARRAY_TASK_ID\" --engine slurm\n";
  return s;
}

int submit_slurm(const std::string& campaign, const SlurmOptions& o) {
  const Manifest m = load_manifest(campaign);
  fs::create_directories(slurm_dir(m));
  const std::string lock = slurm_dir(m) + "/.submit.lock";
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) throw Error("cannot lock " + lock, lock, "the campaign folder must be writable");

  SlurmView view = query_slurm(m);
  for (const auto& n : view.notes) std::cerr << "note: " << n << "\n";
  std::vector<TaskStatus> status = derive_status(m, view.tasks);
  std::vector<const TaskStatus*> todo;
  size_t done = 0, active = 0, skipped = 0;
  for (const auto& s : status) {
    if (s.runnable()) todo.push_back(&s);
    done += s.state == "done";
    active += s.state == "running" || s.state == "queued";
    skipped += s.state == "skipped";
  }
  std::sort(todo.begin(), todo.end(), [](const TaskStatus* a, const TaskStatus* b) { return a->task->priority != b->task->priority ? a->task->priority > b->task->priority : a < b; });
  if (todo.empty()) {
    std::cout << fmt::format("campaign {}: nothing to submit ({} done, {} queued or running, {} skipped)\n", m.dir, done, active, skipped);
    return kExitOk;
  }
  std::vector<Submission> subs = read_submissions(m);
  const size_t n = subs.size() + 1;
  const std::string tasks_file = fmt::format("{}/array-{}.tasks", slurm_dir(m), n);
  const std::string script = fmt::format("{}/array-{}.sh", slurm_dir(m), n);
  std::string list;
  unsigned cpus = 1;
  size_t resumed = 0;
  for (const auto* s : todo) {
    list += s->task->id + "\n";
    cpus = std::max(cpus, m.effective(*s->task).threads);
    resumed += s->store.exists;
  }
  write_file_atomic(tasks_file, list);
  write_file_atomic(script, array_script(m, o, tasks_file, todo.size(), cpus));
  if (o.dry_run) {
    std::cout << "wrote " << script << " (" << todo.size() << " array tasks); not submitted (--dry-run)\n";
    return kExitOk;
  }
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  argv.push_back(script);
  Captured c = capture(argv);
  if (c.status == 127 || c.status == -1)
    throw Error("cannot run sbatch: " + first_line(c.output), "--engine slurm", "run on a Slurm login node (sbatch in PATH), or use --engine local");
  if (c.status != 0)
    throw Error("sbatch refused the array: " + c.output, script, "check --partition/--time/--gres against `sinfo`; the script is kept for inspection");
  std::string job;
  for (const auto& l : lines_of(c.output))
    if (!l.empty() && isdigit(static_cast<unsigned char>(l[0]))) job = split(l, ';')[0];
  if (job.empty()) throw Error("sbatch printed no job id: " + c.output, script, "", kExitInternal);

  nlohmann::json j = {{"schema", "asmevo.campaign-slurm/1"}, {"submissions", nlohmann::json::array()}};
  subs.push_back({job, script, tasks_file, now_utc(), {}});
  for (const auto* s : todo) subs.back().tasks.push_back(s->task->id);
  for (const auto& s : subs)
    j["submissions"].push_back({{"job", s.job}, {"script", s.script}, {"tasks_file", s.tasks_file}, {"submitted", s.submitted}, {"tasks", s.tasks}});
  write_file_atomic(submissions_file(m), j.dump(2) + "\n");
  std::cout << fmt::format("submitted job array {} ({} task(s), {} resuming from their stores; {} done, {} queued or running, {} skipped)\n",
                           job, todo.size(), resumed, done, active, skipped);
  std::cout << "script: " << script << "\nfollow it with: asmevo campaign status " << m.dir << "\n";
  return kExitOk;
}

SlurmView query_slurm(const Manifest& m) {
  SlurmView v;
  std::vector<Submission> subs = read_submissions(m);
  if (subs.empty()) return v;
  std::map<std::string, std::string> job_of;  // task -> "JOB_INDEX" of its latest submission
  std::set<std::string> jobs;
  for (const auto& s : subs) {
    for (size_t i = 0; i < s.tasks.size(); ++i) job_of[s.tasks[i]] = fmt::format("{}_{}", s.job, i);
    jobs.insert(s.job);
  }
  std::string job_list;
  for (const auto& j : jobs) job_list += (job_list.empty() ? "" : ",") + j;

  std::map<std::string, std::pair<std::string, std::string>> queue;  // JOB_INDEX -> (state, reason)
  Captured q = capture({"squeue", "-h", "-r", "-j", job_list, "-o", "%i|%T|%r"});
  if (q.status == 0 || q.output.find("Invalid job id") != std::string::npos) {
    for (const auto& l : lines_of(q.output)) {
      auto f = split(l, '|');
      if (f.size() >= 3) queue[f[0]] = {f[1], f[2]};
    }
  } else {
    v.notes.push_back("squeue failed (" + first_line(q.output) + "): queued and running tasks of the array are not known");
  }
  std::map<std::string, std::string> account;  // JOB_INDEX -> State
  Captured a = capture({"sacct", "-n", "-P", "-X", "-j", job_list, "-o", "JobID,State,ExitCode"});
  if (a.status == 0) {
    for (const auto& l : lines_of(a.output)) {
      auto f = split(l, '|');
      if (f.size() >= 3) account[f[0]] = f[1] + (f[2] == "0:0" ? "" : " (exit " + f[2] + ")");
    }
  } else {
    v.notes.push_back("sacct unavailable (" + first_line(a.output) + "): how killed tasks ended comes from their records and Slurm's output files");
  }
  for (const auto& [task, job] : job_of) {
    SlurmTask t;
    t.job = job;
    if (auto it = queue.find(job); it != queue.end()) std::tie(t.queue, t.queue_reason) = it->second;
    if (auto it = account.find(job); it != account.end()) t.account = it->second;
    std::ifstream out(slurm_dir(m) + "/" + job + ".out");
    for (std::string l; std::getline(out, l);)
      if (auto p = l.find("*** JOB"); p != std::string::npos) t.message = l.substr(p);
    v.tasks[task] = t;
  }
  return v;
}

}  // namespace asmevo::campaign
