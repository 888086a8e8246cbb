#include "campaign/local_engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "campaign/manifest.h"
#include "campaign/process.h"
#include "campaign/state.h"
#include "support/error.h"

namespace asmevo::campaign {

namespace {

volatile sig_atomic_t g_stop = 0;
void on_stop(int sig) { g_stop = sig; }

}  // namespace

int run_local(const std::string& campaign, unsigned jobs) {
  if (jobs == 0) throw Error("--jobs must be at least 1", "--jobs");
  const Manifest m = load_manifest(campaign);
  const std::string lock = m.dir + "/.engine.lock";
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0)
    throw Error("another `campaign run` is using this campaign on this machine", lock, "wait for it, or stop it (running again resumes)");

  std::vector<TaskStatus> status = derive_status(m);
  std::vector<const Task*> todo;
  size_t done = 0, running = 0, skipped = 0;
  for (const auto& s : status) {
    if (s.runnable()) todo.push_back(s.task);
    done += s.state == "done";
    running += s.state == "running" || s.state == "queued";
    skipped += s.state == "skipped";
  }
  std::sort(todo.begin(), todo.end(), [](const Task* a, const Task* b) { return a->priority != b->priority ? a->priority > b->priority : a < b; });
  std::cout << fmt::format("campaign {}: {} task(s) to run, {} done, {} running elsewhere, {} skipped; {} at a time\n", m.dir, todo.size(),
                           done, running, skipped, jobs)
            << std::flush;

  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);

  const std::string exe = self_exe();
  std::map<pid_t, const Task*> live;
  size_t next = 0, finished = 0;
  while ((next < todo.size() && !g_stop) || !live.empty()) {
    while (!g_stop && next < todo.size() && live.size() < jobs) {
      const Task* t = todo[next++];
      pid_t pid = spawn({exe, "campaign", "task", m.dir, t->id, "--engine", "local"});
      live[pid] = t;
      std::cout << fmt::format("[{}] started {} (pid {})\n", now_utc(), t->id, pid) << std::flush;
    }
    int st = 0;
    pid_t pid = waitpid(-1, &st, 0);
    if (pid < 0) {
      if (errno == EINTR) {
        if (g_stop)
          for (const auto& [p, t] : live) kill(p, g_stop);
        continue;
      }
      break;
    }
    auto it = live.find(pid);
    if (it == live.end()) continue;
    const Task* t = it->second;
    live.erase(it);
    ++finished;
    StoreSummary s = summarize_store(task_store(m, t->id));
    auto rec = read_record(task_state_file(m, t->id));
    std::cout << fmt::format("[{}] {} {} ({}/{}): {}\n", now_utc(), t->id, rec ? rec->state : describe_wait_status(st), finished,
                             todo.size(),
                             rec && rec->state == "done" ? fmt::format("{:.3f}x {}, {} candidates", s.speedup(), s.figure_kind, s.candidates)
                                                         : rec ? rec->reason : "no record")
              << std::flush;
  }
  if (g_stop) {
    std::cout << fmt::format("stopped by SIG{}: unfinished tasks resume on the next campaign run\n", sigabbrev_np(g_stop));
    return 128 + g_stop;
  }
  size_t failed = 0;
  for (const auto& s : derive_status(m)) failed += s.state != "done" && s.state != "skipped";
  return failed ? kExitFailure : kExitOk;
}

}  // namespace asmevo::campaign
