// Child processes for the campaign engines: the asmevo binary itself, Slurm's commands.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace asmevo::campaign {

// The running asmevo executable (/proc/self/exe, resolved): what tasks and array scripts run.
std::string self_exe();

struct Captured {
  int status = -1;       // exit code; 128 + signal when killed; -1 when it could not start
  std::string output;    // stdout and stderr together
};
// Runs argv[0] (searched in PATH) to completion and returns its output. Never throws.
Captured capture(const std::vector<std::string>& argv);

// Starts argv[0] with stdout/stderr appended to `log` ("" : inherited). The child gets SIGTERM
// when this process dies (PR_SET_PDEATHSIG), so a killed engine leaves no orphan behind.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log = "");

// "exit N", "killed by SIGTERM", ... for a waitpid status.
std::string describe_wait_status(int status);

}  // namespace asmevo::campaign
