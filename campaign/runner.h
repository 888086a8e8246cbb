// One attempt of one task (`asmevo campaign task CAMPAIGN ID`, what the local engine's workers and
// every Slurm array task run): takes the task's lock, records the attempt (state.json), runs
// `asmevo optimize` on the task's object and specs with its own store — with --resume when the store
// exists, so a task killed by anything (Slurm's time limit, preemption, a node failure, SIGKILL)
// continues from its last committed candidate — then records how it ended: done, or failed with the
// exit status and the error's first line, or the signal that killed it. A task already done is never
// redone; a task whose lock is held elsewhere is left alone.
#pragma once
#include <string>

namespace asmevo::campaign {

struct RunnerOptions {
  std::string campaign, task;
  std::string list_file;   // Slurm: the array's task list; `task` comes from line `index`
  int index = -1;
  std::string engine = "manual";
};

// The exit code: 0 done (or already done / running elsewhere), optimize's code when it failed,
// 128 + signal when it was killed.
int run_task(const RunnerOptions& o);

}  // namespace asmevo::campaign
