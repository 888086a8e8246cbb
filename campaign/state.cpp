#include "campaign/state.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "search/store.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<TaskRecord> read_record(const std::string& path) {
  if (!fs::exists(path)) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("the task record is not valid JSON: ") + e.what(), path,
                "it is written atomically by the runner; delete it to let the task start afresh");
  }
  TaskRecord r;
  r.state = j.value("state", "");
  r.attempts = j.value("attempts", 0);
  r.engine = j.value("engine", "");
  r.host = j.value("host", "");
  r.slurm_job = j.value("slurm_job", "");
  r.started = j.value("started", "");
  r.finished = j.value("finished", "");
  r.reason = j.value("reason", "");
  r.pid = j.value("pid", int64_t{0});
  r.exit_code = j.value("exit_code", 0);
  r.budget = j.value("budget", uint64_t{0});
  return r;
}

void write_record(const std::string& path, const TaskRecord& r) {
  nlohmann::json j = {{"schema", "asmevo.campaign-task/1"}, {"state", r.state}, {"attempts", r.attempts}, {"engine", r.engine},
                      {"host", r.host}, {"slurm_job", r.slurm_job}, {"started", r.started}, {"finished", r.finished},
                      {"reason", r.reason}, {"pid", r.pid}, {"exit_code", r.exit_code}, {"budget", r.budget}};
  write_file_atomic(path, j.dump(2) + "\n");
}

bool lock_held(const std::string& lock_path) {
  int fd = open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock fl {};
  fl.l_type = F_WRLCK;  // would a write lock conflict? (F_GETLK takes nothing)
  fl.l_whence = SEEK_SET;
  const bool held = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  close(fd);
  return held;
}

namespace {

double query_double(sqlite3* db, const std::string& sql, int64_t kernel, int column = 0) {
  sqlite3_stmt* st = nullptr;
  double v = 0;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    if (sql.find('?') != std::string::npos) sqlite3_bind_int64(st, 1, kernel);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_double(st, column);
  }
  sqlite3_finalize(st);
  return v;
}

}  // namespace

StoreSummary summarize_store(const std::string& path) {
  StoreSummary s;
  if (!fs::exists(path)) return s;
  s.exists = true;
  try {
    search::Store store(path, search::Store::Access::kReadOnly);
    auto kernels = store.kernels();
    if (kernels.empty()) return s;
    const search::KernelRecord& k = kernels.front();
    s.figure_kind = k.figure_kind;
    s.baseline_cycles = k.baseline_cycles;
    s.baseline_us = k.baseline_us;
    sqlite3* db = store.handle();
    s.candidates = static_cast<size_t>(query_double(db, "SELECT COUNT(*) FROM candidates WHERE kernel = ?", k.id));
    s.accepted = static_cast<size_t>(query_double(db, "SELECT COUNT(*) FROM accepted WHERE kernel = ?", k.id));
    const double fastest = query_double(db, "SELECT MIN(cycles) FROM accepted WHERE kernel = ?", k.id);
    s.best_cycles = fastest > 0 && fastest < s.baseline_cycles ? fastest : s.baseline_cycles;
    if (auto f = store.final_result(k.id)) {
      s.final = true;
      s.final_verdict = f->verdict;
      s.best_cycles = f->cycles > 0 ? f->cycles : s.baseline_cycles;
    }
    s.seconds = query_double(db,
                             "SELECT SUM((julianday(COALESCE(finished, (SELECT MAX(created) FROM candidates c WHERE c.run = r.id), started))"
                             " - julianday(started)) * 86400.0) FROM runs r",
                             0);
  } catch (const Error& e) {
    s.error = e.what_text();
  }
  return s;
}

void write_progress(const std::string& path, const StoreSummary& s) {
  nlohmann::json j = {{"schema", "asmevo.campaign-progress/1"}, {"updated", now_utc()}, {"figure_kind", s.figure_kind},
                      {"baseline_cycles", s.baseline_cycles}, {"baseline_us", s.baseline_us}, {"best_cycles", s.best_cycles},
                      {"candidates", s.candidates}, {"accepted", s.accepted}, {"final", s.final}, {"final_verdict", s.final_verdict},
                      {"seconds", s.seconds}, {"error", s.error}};
  write_file_atomic(path, j.dump() + "\n");
}

std::optional<StoreSummary> read_progress(const std::string& path) {
  if (!fs::exists(path)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_file_text(path));
    StoreSummary s;
    s.exists = true;
    s.figure_kind = j.value("figure_kind", "modeled");
    s.baseline_cycles = j.value("baseline_cycles", 0.0);
    s.baseline_us = j.value("baseline_us", 0.0);
    s.best_cycles = j.value("best_cycles", 0.0);
    s.candidates = j.value("candidates", size_t{0});
    s.accepted = j.value("accepted", size_t{0});
    s.final = j.value("final", false);
    s.final_verdict = j.value("final_verdict", "");
    s.seconds = j.value("seconds", 0.0);
    s.error = j.value("error", "");
    return s;
  } catch (const std::exception&) {
    return std::nullopt;  // written atomically: only a foreign file gets here; the store is read instead
  }
}

std::vector<TaskStatus> derive_status(const Manifest& m, const std::map<std::string, SlurmTask>& slurm) {
  std::vector<TaskStatus> out;
  for (const Task& t : m.tasks) {
    TaskStatus s;
    s.task = &t;
    s.record = read_record(task_state_file(m, t.id));
    if (auto it = slurm.find(t.id); it != slurm.end()) s.slurm = it->second;
    const bool held = lock_held(task_lock(m, t.id));
    const bool slurm_running = s.slurm && !s.slurm->queue.empty() && s.slurm->queue != "PENDING";
    std::optional<StoreSummary> progress = read_progress(task_progress(m, t.id));
    if (held || slurm_running) {  // the store is being written, maybe on another host: never read it here
      if (progress) s.store = *progress;
      s.live = true;
    } else {
      s.store = summarize_store(task_store(m, t.id));
      if (!s.store.error.empty() && progress) {
        s.store = *progress;
        s.store.error.clear();
      }
    }
    const uint64_t budget = m.effective(t).budget;
    const bool in_queue = s.slurm && !s.slurm->queue.empty();
    const std::string slurm_verdict = !s.slurm ? "" : !s.slurm->account.empty() ? s.slurm->account : s.slurm->message;
    const bool finished = s.record && s.record->state == "done" && s.store.final && fs::exists(task_output(m, t.id));
    if (finished && (s.record->budget >= budget || budget == 0)) {
      s.state = "done";
    } else if (held) {
      s.state = "running";
      if (s.record) s.reason = fmt::format("attempt {} on {} since {}", s.record->attempts, s.record->host, s.record->started);
    } else if (in_queue) {
      const std::string& q = s.slurm->queue;
      s.state = q == "PENDING" || q == "REQUEUED" || q == "REQUEUE_HOLD" || q == "SUSPENDED" ? "queued" : "running";
      s.reason = "Slurm " + s.slurm->job + " " + q + (s.slurm->queue_reason.empty() || s.slurm->queue_reason == "None" ? "" : " (" + s.slurm->queue_reason + ")");
    } else if (finished) {
      s.state = "incomplete";
      s.reason = fmt::format("finished with budget {}, the manifest now asks {}: resumes from its store", s.record->budget, budget);
    } else if (s.record && s.record->state == "running") {
      s.state = "failed";
      s.reason = "killed: attempt " + std::to_string(s.record->attempts) + " on " + s.record->host +
                 " ended without recording an exit (SIGKILL, node failure or a lost engine)";
      if (!slurm_verdict.empty()) s.reason += "; Slurm: " + slurm_verdict;
    } else if (s.record && s.record->state == "failed") {
      s.state = "failed";
      s.reason = s.record->reason;
      if (!slurm_verdict.empty()) s.reason += "; Slurm: " + slurm_verdict;
    } else if (s.record && s.record->state == "done") {
      s.state = "failed";
      s.reason = s.store.final ? "the optimized object " + task_output(m, t.id) + " is missing" : "the store has no final result";
    } else if (s.slurm) {
      s.state = "failed";
      s.reason = "left the Slurm queue without starting" + (slurm_verdict.empty() ? std::string(" (cancelled while pending?)") : ": " + slurm_verdict);
    } else {
      s.state = "new";
    }
    if (t.skip && s.state != "done" && s.state != "running") {
      s.state = "skipped";
      s.reason = "skip: true in the manifest";
    }
    if (!s.store.error.empty()) s.reason += (s.reason.empty() ? "" : "; ") + ("store unreadable: " + s.store.error);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace asmevo::campaign
