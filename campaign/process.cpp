#include "campaign/process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "support/error.h"

namespace asmevo::campaign {

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the asmevo executable (/proc/self/exe): " + ec.message(), "campaign", "", kExitInternal);
  return p.string();
}

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

Captured capture(const std::vector<std::string>& argv) {
  Captured r;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return r;
  std::vector<char*> args = c_argv(argv);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execvp(args[0], args.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    r.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args = c_argv(argv);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw Error(std::string("cannot start a process: ") + strerror(errno), argv[0], "", kExitInternal);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // the parent died before prctl took effect
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    if (!log.empty()) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
      }
    }
    execvp(args[0], args.data());
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  return pid;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by SIG") + (name ? name : std::to_string(WTERMSIG(status)).c_str());
  }
  return "stopped";
}

}  // namespace asmevo::campaign
