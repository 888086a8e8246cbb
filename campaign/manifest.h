// A campaign (issue 20): many `asmevo optimize` tasks, one per kernel, run on this machine or as one
// Slurm job array. Its folder holds the manifest the user edits (campaign.yaml) and one folder per
// task with its own SQLite store; everything `campaign status`/`report` shows is derived from those.
//
//   CAMPAIGN/campaign.yaml          the manifest (this file's Manifest), written by `campaign init`
//   CAMPAIGN/tasks/<id>/store.sqlite the task's experiment store (asmevo optimize --db)
//   CAMPAIGN/tasks/<id>/out.co       the optimized object; out.html its report
//   CAMPAIGN/tasks/<id>/state.json   the runner's record of the last attempt (campaign/state.h)
//   CAMPAIGN/tasks/<id>/log.txt      every attempt's output, appended
//   CAMPAIGN/tasks/<id>/lock         held (fcntl write lock) while an attempt runs
//   CAMPAIGN/tasks/<id>/progress.json the running attempt's summary, refreshed every quarter second
//   CAMPAIGN/slurm/                  array scripts, their task lists, submissions.json, Slurm output
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::campaign {

// What `asmevo optimize` gets; every field may be set in `defaults:` and overridden per task.
struct Settings {
  std::optional<uint64_t> budget;         // candidates (--budget)
  std::optional<double> time_s;           // seconds per attempt, 0 = none (--time)
  std::optional<uint64_t> seed;           // --seed
  std::optional<std::string> proposers;   // --proposers
  std::optional<double> min_gain;         // percent (--min-gain)
  std::optional<unsigned> threads;        // emulator threads (--jobs of optimize; Slurm --cpus-per-task)
  std::optional<std::vector<std::string>> optimize_args;  // more arguments for asmevo optimize, verbatim
};

// Settings with every field set: the task's over the campaign's defaults over the built-in ones.
struct Effective {
  uint64_t budget = 200;
  double time_s = 0;
  uint64_t seed = 1;
  std::string proposers = "rules,stochastic";
  double min_gain = 1;
  unsigned threads = 1;
  std::vector<std::string> optimize_args;
};

struct Task {
  std::string id;             // unique, a file name: tasks/<id>/
  std::string kernel;
  std::string object;         // absolute path of the code object (never modified)
  std::string object_hash;    // search::content_hash of it at init: a changed object is refused
  std::vector<std::string> specs;  // absolute paths of its launch specs
  int priority = 0;           // higher first
  bool skip = false;
  Settings settings;
  std::string origin;         // which input found it (informational)
};

struct Manifest {
  std::string dir;            // the campaign folder (absolute)
  Settings defaults;
  std::vector<Task> tasks;
  Effective effective(const Task& t) const;
  const Task* find(const std::string& id) const;
};

inline constexpr const char* kManifestFile = "campaign.yaml";
inline constexpr const char* kSchema = "asmevo.campaign/1";

// Reads CAMPAIGN/campaign.yaml. Every error names the file and line and says how to fix it:
// unknown keys, duplicate or unsafe ids, missing fields, wrong types.
Manifest load_manifest(const std::string& campaign_dir);
// The manifest as commented YAML (what `campaign init` writes, atomically).
std::string manifest_yaml(const Manifest& m);
void write_manifest(const Manifest& m);

// Paths of a task's files.
std::string task_dir(const Manifest& m, const std::string& id);
std::string task_store(const Manifest& m, const std::string& id);
std::string task_output(const Manifest& m, const std::string& id);
std::string task_report(const Manifest& m, const std::string& id);
std::string task_state_file(const Manifest& m, const std::string& id);
std::string task_log(const Manifest& m, const std::string& id);
std::string task_lock(const Manifest& m, const std::string& id);
std::string task_progress(const Manifest& m, const std::string& id);

}  // namespace asmevo::campaign
