// A task's state, derived — never stored centrally: from the runner's record of its last attempt
// (tasks/<id>/state.json, written atomically), whether its lock is held (an attempt is running
// somewhere), its SQLite store (candidates, accepts, the final verdict, time spent) and, for Slurm
// campaigns, the queue and accounting (campaign/slurm.h).
//
// States: new (never ran), queued (waiting in Slurm), running, done (finished with the budget the
// manifest asks for), incomplete (done with a smaller budget than the manifest now asks: resumes),
// failed (with the reason: exit status and error, killed by a signal, Slurm's verdict), skipped.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/manifest.h"

namespace asmevo::campaign {

// tasks/<id>/state.json (schema asmevo.campaign-task/1).
struct TaskRecord {
  std::string state;        // running | done | failed
  int attempts = 0;
  std::string engine;       // local | slurm | manual
  std::string host, slurm_job, started, finished, reason;
  int64_t pid = 0;
  int exit_code = 0;
  uint64_t budget = 0;      // the budget the attempt ran with
};
std::optional<TaskRecord> read_record(const std::string& path);
void write_record(const std::string& path, const TaskRecord& r);

// True when some process (on any host sharing the file system) holds the task's lock.
bool lock_held(const std::string& lock_path);

// What the task's store says (all figures as the store labels them: modeled or measured).
struct StoreSummary {
  bool exists = false;
  std::string error;            // the store could not be read (why)
  std::string figure_kind = "modeled";
  double baseline_cycles = 0, baseline_us = 0;
  double best_cycles = 0;       // final (re-verified) when there is one, else the fastest accept so far
  size_t candidates = 0, accepted = 0;
  bool final = false;           // the optimizer's final gate ran
  std::string final_verdict;    // "EQUIVALENT" or why K0 was kept
  double seconds = 0;           // wall time of every run of the store, killed ones up to their last candidate
  double speedup() const { return best_cycles > 0 && baseline_cycles > 0 ? baseline_cycles / best_cycles : 1.0; }
};
StoreSummary summarize_store(const std::string& path);

// While an attempt runs, its runner (on the node that writes the store) copies the summary to
// tasks/<id>/progress.json every quarter second, atomically; `campaign status` reads that instead of the
// store: SQLite's WAL index is shared memory, which other hosts of a network file system do not
// see, so a store being written is only read on its writer's host.
void write_progress(const std::string& path, const StoreSummary& s);
std::optional<StoreSummary> read_progress(const std::string& path);

// One array task as Slurm reports it.
struct SlurmTask {
  std::string job;      // "JOBID_INDEX"
  std::string queue;    // squeue state (PENDING, RUNNING, ...); empty when it left the queue
  std::string queue_reason;
  std::string account;  // sacct State (COMPLETED, CANCELLED by 0, TIMEOUT, ...); empty when unavailable
  std::string message;  // slurmstepd's "*** JOB ... CANCELLED AT ... DUE TO TIME LIMIT ***" line, if any
};

struct TaskStatus {
  const Task* task = nullptr;
  std::string state, reason;
  std::optional<TaskRecord> record;
  StoreSummary store;         // from the store, or from progress.json while the task runs
  bool live = false;          // `store` is the running attempt's last progress snapshot
  std::optional<SlurmTask> slurm;
  bool runnable() const { return state == "new" || state == "incomplete" || state == "failed"; }
};

std::vector<TaskStatus> derive_status(const Manifest& m, const std::map<std::string, SlurmTask>& slurm = {});

std::string now_utc();  // "2026-12-01T09:30:00Z"

}  // namespace asmevo::campaign
