// The experiment store: one SQLite file per optimize run family (`--db`). Everything the optimizer
// learns goes here so that a run killed at any point (SIGKILL included) resumes with `--resume`
// without losing an accepted result, and so that `asmevo report` can draw the run afterwards.
//
// Every write is one transaction (WAL journal, synchronous=FULL): a candidate's row with all its
// stage verdicts, an accept (candidate row + code object bytes + lineage) — never half of one.
//
// Schema (asmevo.store/1; the `meta` table records the version):
//   meta(key TEXT PRIMARY KEY, value TEXT)
//   runs(id INTEGER PRIMARY KEY, started TEXT, finished TEXT, command TEXT, seed INTEGER,
//        options TEXT /* JSON */, status TEXT /* running | finished | interrupted */)
//   kernels(id INTEGER PRIMARY KEY, run INTEGER, file TEXT, kernel TEXT, spec TEXT /* path */,
//           spec_text TEXT, k0 BLOB /* original code object bytes */, k0_sha TEXT,
//           baseline_cycles REAL, baseline_us REAL, figure_kind TEXT /* modeled | measured */,
//           k0_listing TEXT /* K0's full disassembly, for the first diff */, k0_per_line TEXT /* JSON
//           as accepted.per_line */, UNIQUE(file, kernel, k0_sha))
//   windows(id INTEGER PRIMARY KEY, kernel INTEGER, candidate INTEGER /* the code object ranked */,
//           window TEXT /* id */, first_line INTEGER, last_line INTEGER, share REAL, cycles REAL,
//           rank INTEGER, listing TEXT /* annotated disassembly of the window */)
//   candidates(id INTEGER PRIMARY KEY, kernel INTEGER, run INTEGER, parent INTEGER /* NULL = K0 */,
//           proposer TEXT, move TEXT, window TEXT, edit TEXT /* Edit JSON */, stage TEXT /* last stage
//           reached */, verdict TEXT /* accepted | rejected | error */, reason TEXT,
//           stages TEXT /* JSON [{stage, ok, seconds, detail}] */, cycles REAL, parent_cycles REAL,
//           speedup REAL /* parent_cycles / cycles */, seconds REAL, created TEXT,
//           transcript TEXT /* proposer's rationale / tool log (LLM), may be NULL */)
//   accepted(candidate INTEGER PRIMARY KEY, kernel INTEGER, code BLOB /* code object bytes */,
//           cycles REAL, listing TEXT /* full disassembly, for diffs */, per_line TEXT /* JSON
//           [{address, text, cycles}] modeled cycles per instruction */)
//   counterexamples(id INTEGER PRIMARY KEY, kernel INTEGER, candidate INTEGER, folder TEXT,
//           spec_text TEXT, created TEXT)
//   final(kernel INTEGER PRIMARY KEY, candidate INTEGER /* NULL: K0 kept */, verdict TEXT,
//           cycles REAL, speedup REAL, report TEXT /* verification report JSON */, created TEXT)
//   notes(id INTEGER PRIMARY KEY, kernel INTEGER, window TEXT, author TEXT, text TEXT, created TEXT)
//   llm_calls(id INTEGER PRIMARY KEY, run INTEGER, kernel INTEGER, model TEXT, status TEXT /* ok |
//           http NNN | timeout | connection | budget */, attempts INTEGER /* HTTP requests incl. retries */,
//           prompt_tokens INTEGER, completion_tokens INTEGER, total_tokens INTEGER /* as the endpoint's
//           `usage` reports them; 0 when it reports none */, seconds REAL, created TEXT)
//     (the LLM agent's chat-completion calls, issue 8; added later under the same schema version:
//      opening a store creates the table when it is missing, CREATE TABLE IF NOT EXISTS)
//   Perf launches (issue 14; added later under the same schema version: opening a store for writing
//   adds the columns when missing, and reading an older store gives them empty):
//     kernels.fitness TEXT /* what every cycle figure of this kernel is: "modeled cycles on perf
//       launch 'decode' (k.yaml:21)" or a geomean over named launches */,
//     kernels.perf_launches TEXT /* JSON [{name, cycles, microseconds}]: K0 per perf launch */,
//     candidates.launches TEXT /* the same per perf launch for this candidate; NULL when not timed */,
//     final.launches TEXT /* the same for the final object */
// Indexes: candidates(kernel, parent), windows(kernel, candidate), accepted(kernel),
// counterexamples(kernel), notes(kernel), llm_calls(run). Times are UTC ISO 8601 ("2026-11-29T20:33:55.123Z").
//
// One Store (one connection) may be shared by threads: every public call holds the Store's mutex.
// Several processes may open the same file; writers wait for each other (busy timeout).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace asmevo::search {

// One perf launch's figure (the per-launch columns hold a JSON list of them).
struct LaunchFigure {
  std::string name;  // the perf launch's name (emu::LaunchSpec::perf_name)
  double cycles = 0, microseconds = 0;  // cycles: the time in cycles of the peak clock (see search::Fitness)
};
// [{name, cycles, microseconds}] and back (an empty or malformed text gives no figures).
std::string launches_json(const std::vector<LaunchFigure>& launches);
std::vector<LaunchFigure> parse_launches_json(const std::string& json);

struct StageResult {
  std::string stage;   // "edit", "rebuild", "abi", "static", "emulate", "timing", "verify", "accept"
  bool ok = false;
  double seconds = 0;
  std::string detail;  // why it failed, or the figure it produced
};

struct CandidateRecord {
  int64_t id = 0;                    // set by the store
  int64_t kernel = 0, run = 0;
  std::optional<int64_t> parent;     // candidate id; none = K0
  std::string proposer, move, window, edit_json;
  std::string stage, verdict, reason;  // verdict: "accepted", "rejected", "error"
  std::vector<StageResult> stages;
  double cycles = 0, parent_cycles = 0, speedup = 0, seconds = 0;  // cycles: the fitness (kernels.fitness)
  std::string transcript;
  std::string launches_json;         // [{name, cycles, microseconds}] per perf launch; empty: not timed
};

struct AcceptedRecord {
  int64_t candidate = 0, kernel = 0;
  std::vector<uint8_t> code;
  double cycles = 0;
  std::string listing, per_line_json;
};

struct KernelRecord {
  int64_t id = 0;
  int64_t run = 0;                   // the run that first saw it (0: none)
  std::string file, kernel, spec_path, spec_text, k0_sha;
  std::vector<uint8_t> k0;
  double baseline_cycles = 0, baseline_us = 0;
  std::string figure_kind = "modeled";
  std::string listing, per_line_json;  // K0's full disassembly and modeled cycles per line (optional)
  std::string fitness;                 // what baseline_cycles (and every candidate's cycles) is, naming the launches
  std::string perf_launches_json;      // [{name, cycles, microseconds}]: K0 per perf launch
};

struct RunRecord {
  int64_t id = 0;
  std::string started, finished, command, options_json, status;
  uint64_t seed = 0;
};

struct WindowRecord {
  int64_t id = 0, kernel = 0;
  std::optional<int64_t> candidate;  // none = K0
  std::string window;
  size_t first_line = 0, last_line = 0;
  double share = 0, cycles = 0;
  int rank = 0;                       // 0 = hottest
  std::string listing;
};

struct FinalRecord {
  int64_t kernel = 0;
  std::optional<int64_t> candidate;  // none = K0 kept
  std::string verdict, report_json, created;
  double cycles = 0, speedup = 0;
  std::string launches_json;  // [{name, cycles, microseconds}] per perf launch
};

struct CounterexampleRecord {
  int64_t id = 0, kernel = 0, candidate = 0;
  std::string folder, spec_text, created;
};

struct NoteRecord {
  int64_t id = 0, kernel = 0;
  std::string window, author, text, created;
};

struct LlmCallRecord {
  int64_t id = 0, run = 0, kernel = 0;
  std::string model, status, created;
  int64_t attempts = 0, prompt_tokens = 0, completion_tokens = 0, total_tokens = 0;
  double seconds = 0;
};

class Store {
 public:
  // Opens or creates `path` (schema created when new). Throws asmevo::Error naming the file when
  // it is not an AsmEvo store, has another schema version, or cannot be opened.
  explicit Store(const std::string& path);
  // Read-only: opens an existing store with SQLITE_OPEN_READONLY (never creates or changes the
  // file; `asmevo report`). Every write then throws asmevo::Error.
  enum class Access { kReadWrite, kReadOnly };
  Store(const std::string& path, Access access);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  const std::string& path() const { return path_; }

  int64_t begin_run(const std::string& command, uint64_t seed, const std::string& options_json);
  void finish_run(int64_t run, const std::string& status);

  // The kernel's row: found by (file, kernel, k0_sha) when it exists (resume), else inserted.
  KernelRecord kernel(const KernelRecord& wanted);

  void add_windows(int64_t kernel, std::optional<int64_t> candidate, const std::vector<std::string>& ids,
                   const std::vector<std::pair<size_t, size_t>>& lines, const std::vector<double>& shares,
                   const std::vector<double>& cycles, const std::vector<std::string>& listings);
  // Inserts a candidate (one transaction); with `accepted` also its accepted row. Returns its id.
  int64_t add_candidate(CandidateRecord c, const AcceptedRecord* accepted = nullptr);
  void add_counterexample(int64_t kernel, int64_t candidate, const std::string& folder, const std::string& spec_text);
  void set_final(int64_t kernel, std::optional<int64_t> candidate, const std::string& verdict, double cycles,
                 double speedup, const std::string& report_json, const std::string& launches_json = "");
  void add_note(int64_t kernel, const std::string& window, const std::string& author, const std::string& text);
  // One chat-completion call of the LLM agent (its token usage); `llm_calls` reads them back (every
  // run when `run` is none).
  void add_llm_call(const LlmCallRecord& call);
  std::vector<LlmCallRecord> llm_calls(std::optional<int64_t> run = std::nullopt) const;

  // Resume: everything accepted so far for a kernel (oldest first), and how many candidates were
  // tried (all runs).
  std::vector<AcceptedRecord> accepted(int64_t kernel) const;
  std::vector<CandidateRecord> candidates(int64_t kernel) const;
  size_t candidate_count(int64_t kernel) const;
  // Edits (JSON) already tried from a parent (resume skips them; the agent sees them), each once,
  // oldest first.
  std::vector<std::string> tried_edits(int64_t kernel, std::optional<int64_t> parent) const;

  // For the report (and tools): everything else the store holds, oldest first.
  std::vector<RunRecord> runs() const;
  std::vector<KernelRecord> kernels() const;  // without the k0 bytes (k0 stays empty)
  std::vector<WindowRecord> windows(int64_t kernel) const;  // ordered by candidate (K0 first), rank
  std::optional<FinalRecord> final_result(int64_t kernel) const;
  std::vector<CounterexampleRecord> counterexamples(int64_t kernel) const;
  std::vector<NoteRecord> notes(int64_t kernel) const;

  sqlite3* handle() const { return db_; }

 private:
  void open(bool read_only);
  std::string path_;
  sqlite3* db_ = nullptr;
  bool read_only_ = false;
  bool has_perf_columns_ = false;  // a store written before perf launches, opened read-only, lacks them
  mutable std::mutex mu_;
};

}  // namespace asmevo::search
