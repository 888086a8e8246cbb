// The Slurm engine: `campaign run --engine slurm` submits ONE job array (sbatch --array) holding
// every runnable task (new, incomplete, failed; not the ones done, queued or running), higher
// priority first; each array task runs `asmevo campaign task CAMPAIGN --list L --index
// $SLURM_ARRAY_TASK_ID` (campaign/runner.h) with its own store under the campaign folder, which
// must be on a file system every node shares (docs/campaign.md).
//
//   CAMPAIGN/slurm/array-<n>.sh      the batch script (inspectable; sbatch it by hand if you like)
//   CAMPAIGN/slurm/array-<n>.tasks   task ids, line i = array index i
//   CAMPAIGN/slurm/submissions.json  every submission: job id, script, tasks (written atomically)
//   CAMPAIGN/slurm/<job>_<index>.out Slurm's own output for the array task (the task log is elsewhere)
//
// The view of a task's Slurm state comes from squeue (queued/running), sacct (how it ended, where
// accounting is enabled) and slurmstepd's "*** JOB ... CANCELLED ... ***" line in the output file.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "campaign/manifest.h"
#include "campaign/state.h"

namespace asmevo::campaign {

struct SlurmOptions {
  std::string partition, time, gres, account, qos;
  unsigned array_max = 0;                 // %M: at most M array tasks at once (0: no limit)
  std::vector<std::string> sbatch_args;   // passed through to sbatch
  bool dry_run = false;                   // write the script, do not submit
};

struct Submission {
  std::string job, script, tasks_file, submitted;
  std::vector<std::string> tasks;
};
std::vector<Submission> read_submissions(const Manifest& m);

// The array script for `tasks` (what submit writes).
std::string array_script(const Manifest& m, const SlurmOptions& o, const std::string& tasks_file, size_t count, unsigned cpus);

// Submits the runnable tasks; 0 when submitted (or nothing to submit). Throws Error naming what is
// wrong when sbatch is missing or refuses.
int submit_slurm(const std::string& campaign, const SlurmOptions& o);

// Each submitted task's latest array task as Slurm sees it. `note` says what was unavailable
// (squeue missing, accounting disabled).
struct SlurmView {
  std::map<std::string, SlurmTask> tasks;
  std::vector<std::string> notes;
};
SlurmView query_slurm(const Manifest& m);

}  // namespace asmevo::campaign
