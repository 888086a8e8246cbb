#include "campaign/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "campaign/manifest.h"
#include "campaign/process.h"
#include "campaign/state.h"
#include "search/optimizer.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

namespace {

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signal = 0;

void forward(int sig) {
  g_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string task_from_list(const std::string& list, int index) {
  std::istringstream in(read_file_text(list));
  std::string line;
  for (int i = 0; std::getline(in, line); ++i)
    if (i == index) return line;
  throw Error(fmt::format("the array task list has no line {}", index), list, "resubmit with asmevo campaign run --engine slurm");
}

// The first error line this attempt wrote to the log (optimize prints "error: ..." on bad input).
std::string first_error(const std::string& log, std::streamoff from) {
  std::ifstream in(log);
  in.seekg(from);
  std::string line, fallback;
  while (std::getline(in, line)) {
    if (line.rfind("error:", 0) == 0 || line.rfind("internal error:", 0) == 0) return line;
    if (!line.empty() && line.find_first_not_of(" \t\r") != std::string::npos) fallback = line;
  }
  return fallback;
}

// An fcntl write lock on the task's lock file, kept until the process ends.
bool take_lock(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(std::string("cannot open the task lock: ") + strerror(errno), path, "the campaign folder must be writable");
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  for (int attempt = 0; attempt < 20; ++attempt) {  // a `campaign status` probing it holds nothing; retry briefly anyway
    if (fcntl(fd, F_SETLK, &fl) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  close(fd);
  return false;
}

}  // namespace

int run_task(const RunnerOptions& o) {
  const Manifest m = load_manifest(o.campaign);
  const std::string id = o.list_file.empty() ? o.task : task_from_list(o.list_file, o.index);
  const Task* t = m.find(id);
  if (!t) throw Error("no task '" + id + "' in the manifest", fs::path(m.dir) / kManifestFile, "asmevo campaign status lists the tasks");
  const Effective e = m.effective(*t);
  fs::create_directories(task_dir(m, id));
  const std::string log = task_log(m, id);
  {  // From here on everything this attempt says goes to the task's log.
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(std::string("cannot open the task log: ") + strerror(errno), log);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
  }
  const std::string slurm_job =
      std::getenv("SLURM_ARRAY_JOB_ID") ? fmt::format("{}_{}", std::getenv("SLURM_ARRAY_JOB_ID"), std::getenv("SLURM_ARRAY_TASK_ID") ? std::getenv("SLURM_ARRAY_TASK_ID") : "")
      : std::getenv("SLURM_JOB_ID") ? std::getenv("SLURM_JOB_ID") : "";
  if (!take_lock(task_lock(m, id))) {
    std::cout << fmt::format("[{}] {}: another attempt holds {} (running elsewhere); this one ({}) does nothing\n", now_utc(), id,
                             task_lock(m, id), slurm_job.empty() ? "pid " + std::to_string(getpid()) : "Slurm " + slurm_job);
    return kExitOk;
  }
  std::optional<TaskRecord> prev = read_record(task_state_file(m, id));
  const bool store_exists = fs::exists(task_store(m, id));
  if (prev && prev->state == "done" && (prev->budget >= e.budget || e.budget == 0) && fs::exists(task_output(m, id)) && store_exists) {
    std::cout << fmt::format("[{}] {}: already done (budget {}); not redone\n", now_utc(), id, prev->budget);
    return kExitOk;
  }

  TaskRecord r;
  r.attempts = (prev ? prev->attempts : 0) + 1;
  r.engine = o.engine;
  r.host = hostname();
  r.pid = getpid();
  r.slurm_job = slurm_job;
  r.started = now_utc();
  r.budget = e.budget;
  const std::string state_file = task_state_file(m, id);
  auto fail = [&](int code, const std::string& reason) {
    r.state = "failed";
    r.exit_code = code;
    r.reason = reason;
    r.finished = now_utc();
    write_record(state_file, r);
    std::cout << fmt::format("[{}] {}: attempt {} failed: {}\n", r.finished, id, r.attempts, reason);
    return code;
  };
  if (!fs::exists(t->object)) return fail(kExitBadInput, "the object " + t->object + " is missing");
  if (search::content_hash(read_file_bytes(t->object)) != t->object_hash)
    return fail(kExitBadInput, "the object " + t->object + " changed since campaign init (hash " + t->object_hash +
                                   "): its store belongs to the old bytes; init a new campaign for it");

  std::vector<std::string> argv = {self_exe(), "optimize", t->object, "--kernel", t->kernel};
  for (const auto& s : t->specs) argv.insert(argv.end(), {"--launch", s});
  argv.insert(argv.end(), {"-o", task_output(m, id), "--db", task_store(m, id), "--budget", std::to_string(e.budget), "--seed",
                           std::to_string(e.seed), "--proposers", e.proposers, "--min-gain", fmt::format("{}", e.min_gain), "--jobs",
                           std::to_string(e.threads)});
  if (e.time_s > 0) argv.insert(argv.end(), {"--time", fmt::format("{}", e.time_s)});
  argv.insert(argv.end(), e.optimize_args.begin(), e.optimize_args.end());
  if (store_exists) argv.push_back("--resume");
  std::string command;
  for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;

  r.state = "running";
  write_record(state_file, r);
  const std::streamoff log_start = static_cast<std::streamoff>(fs::file_size(log));
  std::cout << fmt::format("=== [{}] {}: attempt {} ({}) on {}{}{}\n{}\n", r.started, id, r.attempts, o.engine, r.host,
                           slurm_job.empty() ? "" : ", Slurm " + slurm_job, store_exists ? ", resuming from its store" : "", command)
            << std::flush;

  struct sigaction sa {};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
  const pid_t child = spawn(argv);
  g_child = child;
  if (g_signal) kill(child, g_signal);
  int status = 0;
  const std::string progress = task_progress(m, id);
  // Every quarter second: has it ended? Else copy the store's summary to progress.json (this host writes the store).
  for (bool ended = false; !ended;) {
    for (int i = 0; i < 5 && !ended; ++i) {
      const pid_t w = waitpid(child, &status, WNOHANG);
      if (w == child || (w < 0 && errno != EINTR)) ended = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    StoreSummary now = summarize_store(task_store(m, id));
    if (now.exists && now.error.empty()) write_progress(progress, now);
  }
  g_child = 0;

  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    StoreSummary s = summarize_store(task_store(m, id));
    if (!s.final) return fail(kExitInternal, "asmevo optimize exited 0 but the store has no final result");
    r.state = "done";
    r.exit_code = 0;
    r.finished = now_utc();
    r.reason = s.final_verdict;
    write_record(state_file, r);
    std::cout << fmt::format("[{}] {}: done, {:.3f}x ({}), {} candidates, {}\n", r.finished, id, s.speedup(), s.figure_kind,
                             s.candidates, s.final_verdict);
    return kExitOk;
  }
  std::string reason = "asmevo optimize " + describe_wait_status(status);
  if (WIFSIGNALED(status) || g_signal) {
    if (g_signal) reason += fmt::format(" (the runner received SIG{}: scancel, a time limit or preemption when under Slurm)", sigabbrev_np(g_signal));
  } else if (std::string err = first_error(log, log_start); !err.empty()) {
    reason += ": " + err;
  }
  return fail(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), reason);
}

}  // namespace asmevo::campaign
