// The experiment store on SQLite (schema and guarantees: search/store.h).
#include "search/store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <thread>
#include <cstring>

#include "support/error.h"

namespace asmevo::search {

namespace {

constexpr const char* kSchema = "asmevo.store/1";
constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";
// How long a write waits for another process's transaction before giving up. Generous: an optimize
// run and a resumed one (or a report) may overlap, and a wait is always better than a lost result.
constexpr int kBusyTimeoutMs = 60000;

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT, finished TEXT, command TEXT, seed INTEGER,
  options TEXT, status TEXT);
CREATE TABLE kernels(id INTEGER PRIMARY KEY, run INTEGER, file TEXT, kernel TEXT, spec TEXT, spec_text TEXT,
  k0 BLOB, k0_sha TEXT, baseline_cycles REAL, baseline_us REAL, figure_kind TEXT, k0_listing TEXT,
  k0_per_line TEXT, UNIQUE(file, kernel, k0_sha));
CREATE TABLE windows(id INTEGER PRIMARY KEY, kernel INTEGER, candidate INTEGER, window TEXT,
  first_line INTEGER, last_line INTEGER, share REAL, cycles REAL, rank INTEGER, listing TEXT);
CREATE TABLE candidates(id INTEGER PRIMARY KEY, kernel INTEGER, run INTEGER, parent INTEGER, proposer TEXT,
  move TEXT, window TEXT, edit TEXT, stage TEXT, verdict TEXT, reason TEXT, stages TEXT, cycles REAL,
  parent_cycles REAL, speedup REAL, seconds REAL, created TEXT, transcript TEXT);
CREATE TABLE accepted(candidate INTEGER PRIMARY KEY, kernel INTEGER, code BLOB, cycles REAL, listing TEXT,
  per_line TEXT);
CREATE TABLE counterexamples(id INTEGER PRIMARY KEY, kernel INTEGER, candidate INTEGER, folder TEXT,
  spec_text TEXT, created TEXT);
CREATE TABLE final(kernel INTEGER PRIMARY KEY, candidate INTEGER, verdict TEXT, cycles REAL, speedup REAL,
  report TEXT, created TEXT);
CREATE TABLE notes(id INTEGER PRIMARY KEY, kernel INTEGER, window TEXT, author TEXT, text TEXT, created TEXT);
CREATE INDEX candidates_by_parent ON candidates(kernel, parent);
CREATE INDEX windows_by_kernel ON windows(kernel, candidate);
CREATE INDEX accepted_by_kernel ON accepted(kernel);
CREATE INDEX counterexamples_by_kernel ON counterexamples(kernel);
CREATE INDEX notes_by_kernel ON notes(kernel);
)sql";

// Added after asmevo.store/1 was first written (issue 8): created when missing, so stores written
// before it stay readable and writable under the same schema version.
constexpr const char* kCreateLlmCalls = R"sql(
CREATE TABLE IF NOT EXISTS llm_calls(id INTEGER PRIMARY KEY, run INTEGER, kernel INTEGER, model TEXT,
  status TEXT, attempts INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, total_tokens INTEGER,
  seconds REAL, created TEXT);
CREATE INDEX IF NOT EXISTS llm_calls_by_run ON llm_calls(run);
)sql";

// Added after asmevo.store/1 was first written (issue 14): table, column.
constexpr std::pair<const char*, const char*> kPerfColumns[] = {
    {"kernels", "fitness"}, {"kernels", "perf_launches"}, {"candidates", "launches"}, {"final", "launches"}};

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& op) {
  std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
  throw Error("SQLite: " + op + ": " + msg, path,
              "check that the file is an AsmEvo store (--db) on a writable, non-full disk");
}

// One prepared statement with bound parameters (1-based, in the order of the '?'s).
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& path, const std::string& sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &s_, nullptr) != SQLITE_OK)
      fail(db, path, "prepare");
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
  Stmt& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  Stmt& bind(int i, const std::optional<int64_t>& v) { return v ? bind(i, *v) : bind_null(i); }
  Stmt& bind_null(int i) { return check(sqlite3_bind_null(s_, i)); }
  Stmt& bind_blob(int i, const std::vector<uint8_t>& v) {
    // A zero-length blob bound from nullptr would become NULL; keep it an (empty) blob.
    if (v.empty()) return check(sqlite3_bind_zeroblob(s_, i, 0));
    return check(sqlite3_bind_blob64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT));
  }

  // True while there is a row.
  bool step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, path_, "step");
  }
  void run() {
    while (step()) {
    }
  }
  // Ready for the next set of bindings (the statement is prepared once per batch).
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double f64(int c) const { return sqlite3_column_double(s_, c); }
  std::optional<int64_t> opt(int c) const { return null(c) ? std::nullopt : std::optional<int64_t>(i64(c)); }
  std::string text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string();
  }
  std::vector<uint8_t> blob(int c) const {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(s_, c));
    return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(s_, c)) : std::vector<uint8_t>();
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) fail(db_, path_, "bind");
    return *this;
  }
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const char* sql, const char* op) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, path, op);
}

// Switching a file to WAL needs it to itself: while another process holds it (creating the schema, or
// switching too), SQLite answers SQLITE_BUSY at once, without calling the busy handler; so the switch is
// retried until the busy timeout. A file another process already switched answers "wal" at once.
std::string switch_to_wal(sqlite3* db, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &s, nullptr) != SQLITE_OK) fail(db, path, "prepare");
    const int rc = sqlite3_step(s);
    const auto* text = rc == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : nullptr;
    const std::string mode = text ? text : "";
    sqlite3_finalize(s);
    if (rc == SQLITE_ROW) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) fail(db, path, "switching to WAL journal mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails half way for
// another writer (it waits for the busy timeout instead). Rolled back unless committed.
class Txn {
 public:
  Txn(sqlite3* db, const std::string& path) : db_(db), path_(path) { exec(db, path, "BEGIN IMMEDIATE", "begin"); }
  ~Txn() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, path_, "COMMIT", "commit");
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

std::string stages_json(const std::vector<StageResult>& stages) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : stages)
    j.push_back({{"stage", s.stage}, {"ok", s.ok}, {"seconds", s.seconds}, {"detail", s.detail}});
  return j.dump();
}

std::vector<StageResult> parse_stages(const std::string& text, const std::string& path) {
  std::vector<StageResult> out;
  if (text.empty()) return out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) throw Error("candidates.stages is not a JSON array", path, "the store is damaged");
  for (const auto& e : j) {
    StageResult s;
    s.stage = e.value("stage", "");
    s.ok = e.value("ok", false);
    s.seconds = e.value("seconds", 0.0);
    s.detail = e.value("detail", "");
    out.push_back(std::move(s));
  }
  return out;
}

constexpr const char* kCandidateColumns =
    "id, kernel, run, parent, proposer, move, window, edit, stage, verdict, reason, stages, cycles, parent_cycles, "
    "speedup, seconds, transcript, launches";

CandidateRecord read_candidate(const Stmt& s, const std::string& path) {
  CandidateRecord c;
  c.id = s.i64(0);
  c.kernel = s.i64(1);
  c.run = s.i64(2);
  c.parent = s.opt(3);
  c.proposer = s.text(4);
  c.move = s.text(5);
  c.window = s.text(6);
  c.edit_json = s.text(7);
  c.stage = s.text(8);
  c.verdict = s.text(9);
  c.reason = s.text(10);
  c.stages = parse_stages(s.text(11), path);
  c.cycles = s.f64(12);
  c.parent_cycles = s.f64(13);
  c.speedup = s.f64(14);
  c.seconds = s.f64(15);
  c.transcript = s.text(16);
  c.launches_json = s.text(17);
  return c;
}

constexpr const char* kKernelColumns =
    "id, run, file, kernel, spec, spec_text, k0_sha, baseline_cycles, baseline_us, figure_kind, k0_listing, "
    "k0_per_line, fitness, perf_launches";

// A column list for this store: the perf columns read as NULL in a store that lacks them.
std::string columns(const char* list, bool has_perf) {
  std::string s = list;
  if (has_perf) return s;
  for (const char* c : {", fitness, perf_launches", ", launches"})
    if (auto at = s.find(c); at != std::string::npos && at + std::strlen(c) == s.size())
      s = s.substr(0, at) + (std::string(c) == ", launches" ? ", NULL" : ", NULL, NULL");
  return s;
}

KernelRecord read_kernel(const Stmt& s) {
  KernelRecord k;
  k.id = s.i64(0);
  k.run = s.i64(1);
  k.file = s.text(2);
  k.kernel = s.text(3);
  k.spec_path = s.text(4);
  k.spec_text = s.text(5);
  k.k0_sha = s.text(6);
  k.baseline_cycles = s.f64(7);
  k.baseline_us = s.f64(8);
  k.figure_kind = s.text(9);
  k.listing = s.text(10);
  k.per_line_json = s.text(11);
  k.fitness = s.text(12);
  k.perf_launches_json = s.text(13);
  return k;
}

// `path` for a file: URI: everything but unreserved characters and '/' percent-encoded.
std::string uri_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

void require_writable(bool read_only, const std::string& path) {
  if (read_only) throw Error("the experiment store was opened read-only", path, "open it for writing");
}

}  // namespace

std::string launches_json(const std::vector<LaunchFigure>& launches) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& l : launches) j.push_back({{"name", l.name}, {"cycles", l.cycles}, {"microseconds", l.microseconds}});
  return j.dump();
}

std::vector<LaunchFigure> parse_launches_json(const std::string& text) {
  std::vector<LaunchFigure> out;
  if (text.empty()) return out;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& l : j)
    if (l.is_object()) out.push_back({l.value("name", std::string()), l.value("cycles", 0.0), l.value("microseconds", 0.0)});
  return out;
}

Store::Store(const std::string& path) : path_(path) { open(false); }
Store::Store(const std::string& path, Access access) : path_(path) { open(access == Access::kReadOnly); }

Store::~Store() {
  // Closing the last connection checkpoints the WAL into the main file; nothing to do on failure.
  if (db_) sqlite3_close_v2(db_);
}

void Store::open(bool read_only) {
  read_only_ = read_only;
  struct stat st{};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (read_only && !exists)
    throw Error("no such experiment store", path_, "pass the --db file of an `asmevo optimize` run");
  if (exists && !S_ISREG(st.st_mode))
    throw Error("not an AsmEvo store: not a regular file", path_, "pass the --db file of an `asmevo optimize` run");

  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  std::string name = path_;
  // A read-only connection to a WAL database creates the -wal and -shm files beside it (with the
  // database's mode): for a write-protected store that nobody has open (no -wal), they would be
  // read-only leftovers that later stop a writer. Such a file cannot change under us, so it is
  // opened as immutable instead: no locks, no companion files.
  struct stat wal{};
  if (read_only && (st.st_mode & 0222) == 0 && ::stat((path_ + "-wal").c_str(), &wal) != 0) {
    name = "file:" + uri_path(path_) + "?immutable=1";
    flags |= SQLITE_OPEN_URI;
  }
  if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw Error("cannot open the experiment store: " + msg, path_, "check the path and its permissions");
  }
  try {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);

    // The first read of the schema is where SQLite notices a file that is not a database at all.
    auto user_tables = [&] {
      std::vector<std::string> names;
      Stmt s(db_, path_, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      while (s.step()) names.push_back(s.text(0));
      return names;
    };
    std::vector<std::string> tables;
    {
      int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
      if (rc == SQLITE_NOTADB)
        throw Error("not an AsmEvo store: the file is not an SQLite database", path_,
                    "pass the --db file of an `asmevo optimize` run, or a new path to start a store");
      if (rc != SQLITE_OK) fail(db_, path_, "reading the schema");
      tables = user_tables();
    }

    auto validate = [&](const std::vector<std::string>& names) {
      bool has_meta = false;
      for (const auto& n : names) has_meta |= n == "meta";
      if (!has_meta) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw Error("not an AsmEvo store: an SQLite database without a meta table (tables: " + list + ")", path_,
                    "pass the --db file of an `asmevo optimize` run, or a new path to start a store");
      }
      Stmt s(db_, path_, "SELECT value FROM meta WHERE key = 'schema'");
      std::string schema = s.step() ? s.text(0) : std::string();
      if (schema != kSchema)
        throw Error("not an AsmEvo store of schema " + std::string(kSchema) + ": meta.schema is '" + schema + "'",
                    path_, "use the asmevo version that wrote it, or start a new store");
    };

    auto has_column = [&](const char* table, const char* column) {
      Stmt s(db_, path_, std::string("SELECT count(*) FROM pragma_table_info('") + table + "') WHERE name = ?");
      s.bind(1, std::string(column));
      return s.step() && s.i64(0) > 0;
    };
    auto has_perf_columns = [&] {
      for (const auto& [table, column] : kPerfColumns)
        if (!has_column(table, column)) return false;
      return true;
    };
    if (read_only) {
      if (tables.empty())
        throw Error("not an AsmEvo store: an empty SQLite database", path_,
                    "pass the --db file of an `asmevo optimize` run");
      validate(tables);
      has_perf_columns_ = has_perf_columns();
      return;
    }
    // A foreign database is refused before anything (even the journal mode) is changed in it.
    if (!tables.empty()) validate(tables);

    // WAL: readers (reports) never block the writer, and a commit is one append to the log.
    // synchronous=FULL: the log is synced at every commit, so a committed accept survives a crash.
    {
      const std::string mode = switch_to_wal(db_, path_);
      if (mode != "wal")
        throw Error("SQLite: could not switch to WAL journal mode (got '" + mode + "')", path_,
                    "put the store on a local file system that supports shared memory");
    }
    exec(db_, path_, "PRAGMA synchronous=FULL", "setting synchronous=FULL");

    if (tables.empty()) {
      Txn t(db_, path_);
      // Another process may have created the schema while we waited for the write lock.
      auto again = user_tables();
      if (again.empty()) {
        exec(db_, path_, kCreateSchema, "creating the schema");
        Stmt s(db_, path_, "INSERT INTO meta(key, value) VALUES ('schema', ?), ('created', " + std::string(kNow) + ")");
        s.bind(1, std::string(kSchema)).run();
      } else {
        validate(again);
      }
      t.commit();
    }
    {
      Txn t(db_, path_);
      exec(db_, path_, kCreateLlmCalls, "creating the llm_calls table");
      for (const auto& [table, column] : kPerfColumns)
        if (!has_column(table, column))
          exec(db_, path_, (std::string("ALTER TABLE ") + table + " ADD COLUMN " + column + " TEXT").c_str(), "adding the perf launch columns");
      t.commit();
      has_perf_columns_ = true;
    }
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

int64_t Store::begin_run(const std::string& command, uint64_t seed, const std::string& options_json) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO runs(started, command, seed, options, status) VALUES (" + std::string(kNow) + ", ?, ?, ?, 'running')");
  // SQLite integers are signed 64-bit: the seed is stored as its two's-complement bit pattern.
  s.bind(1, command).bind(2, static_cast<int64_t>(seed)).bind(3, options_json).run();
  int64_t id = sqlite3_last_insert_rowid(db_);
  t.commit();
  return id;
}

void Store::finish_run(int64_t run, const std::string& status) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  require(status == "running" || status == "finished" || status == "interrupted",
          "unknown run status '" + status + "'", path_, "use running, finished or interrupted");
  Txn t(db_, path_);
  Stmt s(db_, path_, "UPDATE runs SET finished = " + std::string(kNow) + ", status = ? WHERE id = ?");
  s.bind(1, status).bind(2, run).run();
  require(sqlite3_changes(db_) == 1, "no run " + std::to_string(run), path_);
  t.commit();
}

KernelRecord Store::kernel(const KernelRecord& wanted) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  require(!wanted.k0_sha.empty(), "kernel record for " + wanted.kernel + " without k0_sha", path_,
          "pass the SHA-256 of the original code object (it identifies the kernel on resume)");
  require(wanted.figure_kind == "modeled" || wanted.figure_kind == "measured",
          "figure_kind must be modeled or measured, not '" + wanted.figure_kind + "'", path_);
  Txn t(db_, path_);
  const std::string find = "SELECT " + columns(kKernelColumns, has_perf_columns_) + " FROM kernels WHERE file = ? AND kernel = ? AND k0_sha = ?";
  {
    Stmt s(db_, path_, find);
    s.bind(1, wanted.file).bind(2, wanted.kernel).bind(3, wanted.k0_sha);
    if (s.step()) {
      KernelRecord k = read_kernel(s);
      Stmt b(db_, path_, "SELECT k0 FROM kernels WHERE id = ?");
      b.bind(1, k.id);
      if (b.step()) k.k0 = b.blob(0);
      t.commit();
      return k;
    }
  }
  Stmt s(db_, path_,
         "INSERT INTO kernels(run, file, kernel, spec, spec_text, k0, k0_sha, baseline_cycles, baseline_us, figure_kind, "
         "k0_listing, k0_per_line, fitness, perf_launches) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, wanted.run).bind(2, wanted.file).bind(3, wanted.kernel).bind(4, wanted.spec_path).bind(5, wanted.spec_text);
  s.bind_blob(6, wanted.k0).bind(7, wanted.k0_sha).bind(8, wanted.baseline_cycles).bind(9, wanted.baseline_us);
  s.bind(10, wanted.figure_kind).bind(11, wanted.listing).bind(12, wanted.per_line_json);
  s.bind(13, wanted.fitness).bind(14, wanted.perf_launches_json).run();
  KernelRecord k = wanted;
  k.id = sqlite3_last_insert_rowid(db_);
  t.commit();
  return k;
}

void Store::add_windows(int64_t kernel, std::optional<int64_t> candidate, const std::vector<std::string>& ids,
                        const std::vector<std::pair<size_t, size_t>>& lines, const std::vector<double>& shares,
                        const std::vector<double>& cycles, const std::vector<std::string>& listings) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  const size_t n = ids.size();
  require(lines.size() == n && shares.size() == n && cycles.size() == n && (listings.empty() || listings.size() == n),
          "add_windows: ids, lines, shares, cycles and listings differ in length", path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO windows(kernel, candidate, window, first_line, last_line, share, cycles, rank, listing) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < n; ++i) {
    s.reset();
    s.bind(1, kernel).bind(2, candidate).bind(3, ids[i]);
    s.bind(4, static_cast<int64_t>(lines[i].first)).bind(5, static_cast<int64_t>(lines[i].second));
    s.bind(6, shares[i]).bind(7, cycles[i]).bind(8, static_cast<int64_t>(i));
    s.bind(9, listings.empty() ? std::string() : listings[i]).run();
  }
  t.commit();
}

int64_t Store::add_candidate(CandidateRecord c, const AcceptedRecord* accepted) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  if (accepted) {
    if (c.verdict.empty()) c.verdict = "accepted";
    require(c.verdict == "accepted", "candidate with an accepted row but verdict '" + c.verdict + "'", path_);
    require(accepted->kernel == 0 || accepted->kernel == c.kernel,
            "accepted row for kernel " + std::to_string(accepted->kernel) + " but candidate of kernel " +
                std::to_string(c.kernel), path_);
    require(!accepted->code.empty(), "accepted candidate without code object bytes", path_);
  }
  require(c.verdict == "accepted" || c.verdict == "rejected" || c.verdict == "error",
          "candidate verdict must be accepted, rejected or error, not '" + c.verdict + "'", path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO candidates(kernel, run, parent, proposer, move, window, edit, stage, verdict, reason, stages, "
         "cycles, parent_cycles, speedup, seconds, created, transcript, launches) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, " + std::string(kNow) + ", ?, ?)");
  s.bind(1, c.kernel).bind(2, c.run).bind(3, c.parent).bind(4, c.proposer).bind(5, c.move).bind(6, c.window);
  s.bind(7, c.edit_json).bind(8, c.stage).bind(9, c.verdict).bind(10, c.reason).bind(11, stages_json(c.stages));
  s.bind(12, c.cycles).bind(13, c.parent_cycles).bind(14, c.speedup).bind(15, c.seconds);
  // No transcript is NULL (rule and stochastic proposers), not an empty text.
  if (c.transcript.empty())
    s.bind_null(16);
  else
    s.bind(16, c.transcript);
  if (c.launches_json.empty())
    s.bind_null(17);
  else
    s.bind(17, c.launches_json);
  s.run();
  const int64_t id = sqlite3_last_insert_rowid(db_);
  if (accepted) {
    Stmt a(db_, path_, "INSERT INTO accepted(candidate, kernel, code, cycles, listing, per_line) VALUES (?, ?, ?, ?, ?, ?)");
    a.bind(1, id).bind(2, c.kernel).bind_blob(3, accepted->code).bind(4, accepted->cycles);
    a.bind(5, accepted->listing).bind(6, accepted->per_line_json).run();
  }
  t.commit();
  return id;
}

void Store::add_counterexample(int64_t kernel, int64_t candidate, const std::string& folder, const std::string& spec_text) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO counterexamples(kernel, candidate, folder, spec_text, created) VALUES (?, ?, ?, ?, " +
             std::string(kNow) + ")");
  s.bind(1, kernel).bind(2, candidate).bind(3, folder).bind(4, spec_text).run();
  t.commit();
}

void Store::set_final(int64_t kernel, std::optional<int64_t> candidate, const std::string& verdict, double cycles,
                      double speedup, const std::string& report_json, const std::string& launches_json) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT OR REPLACE INTO final(kernel, candidate, verdict, cycles, speedup, report, created, launches) "
         "VALUES (?, ?, ?, ?, ?, ?, " + std::string(kNow) + ", ?)");
  s.bind(1, kernel).bind(2, candidate).bind(3, verdict).bind(4, cycles).bind(5, speedup).bind(6, report_json);
  s.bind(7, launches_json).run();
  t.commit();
}

void Store::add_note(int64_t kernel, const std::string& window, const std::string& author, const std::string& text) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO notes(kernel, window, author, text, created) VALUES (?, ?, ?, ?, " + std::string(kNow) + ")");
  s.bind(1, kernel).bind(2, window).bind(3, author).bind(4, text).run();
  t.commit();
}

void Store::add_llm_call(const LlmCallRecord& c) {
  std::lock_guard lock(mu_);
  require_writable(read_only_, path_);
  Txn t(db_, path_);
  Stmt s(db_, path_,
         "INSERT INTO llm_calls(run, kernel, model, status, attempts, prompt_tokens, completion_tokens, total_tokens, seconds, "
         "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, " + std::string(kNow) + ")");
  s.bind(1, c.run).bind(2, c.kernel).bind(3, c.model).bind(4, c.status).bind(5, c.attempts).bind(6, c.prompt_tokens);
  s.bind(7, c.completion_tokens).bind(8, c.total_tokens).bind(9, c.seconds).run();
  t.commit();
}

std::vector<LlmCallRecord> Store::llm_calls(std::optional<int64_t> run) const {
  std::lock_guard lock(mu_);
  std::vector<LlmCallRecord> out;
  {
    // A read-only store written before the table existed has none.
    Stmt e(db_, path_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'llm_calls'");
    if (!e.step() || e.i64(0) == 0) return out;
  }
  Stmt s(db_, path_,
         "SELECT id, run, kernel, model, status, attempts, prompt_tokens, completion_tokens, total_tokens, seconds, created "
         "FROM llm_calls WHERE ? IS NULL OR run = ? ORDER BY id");
  s.bind(1, run).bind(2, run);
  while (s.step()) {
    LlmCallRecord c;
    c.id = s.i64(0);
    c.run = s.i64(1);
    c.kernel = s.i64(2);
    c.model = s.text(3);
    c.status = s.text(4);
    c.attempts = s.i64(5);
    c.prompt_tokens = s.i64(6);
    c.completion_tokens = s.i64(7);
    c.total_tokens = s.i64(8);
    c.seconds = s.f64(9);
    c.created = s.text(10);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<AcceptedRecord> Store::accepted(int64_t kernel) const {
  std::lock_guard lock(mu_);
  // Candidate ids grow with insertion (rows are never deleted), so id order is age order.
  Stmt s(db_, path_, "SELECT candidate, kernel, code, cycles, listing, per_line FROM accepted WHERE kernel = ? ORDER BY candidate");
  s.bind(1, kernel);
  std::vector<AcceptedRecord> out;
  while (s.step()) {
    AcceptedRecord a;
    a.candidate = s.i64(0);
    a.kernel = s.i64(1);
    a.code = s.blob(2);
    a.cycles = s.f64(3);
    a.listing = s.text(4);
    a.per_line_json = s.text(5);
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<CandidateRecord> Store::candidates(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, "SELECT " + columns(kCandidateColumns, has_perf_columns_) + " FROM candidates WHERE kernel = ? ORDER BY id");
  s.bind(1, kernel);
  std::vector<CandidateRecord> out;
  while (s.step()) out.push_back(read_candidate(s, path_));
  return out;
}

size_t Store::candidate_count(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, "SELECT count(*) FROM candidates WHERE kernel = ?");
  s.bind(1, kernel);
  return s.step() ? static_cast<size_t>(s.i64(0)) : 0;
}

std::vector<std::string> Store::tried_edits(int64_t kernel, std::optional<int64_t> parent) const {
  std::lock_guard lock(mu_);
  // `parent IS ?` matches NULL (K0) as well as ids.
  Stmt s(db_, path_,
         "SELECT edit FROM candidates WHERE kernel = ? AND parent IS ? GROUP BY edit ORDER BY min(id)");
  s.bind(1, kernel).bind(2, parent);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::vector<RunRecord> Store::runs() const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, "SELECT id, started, finished, command, seed, options, status FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (s.step()) {
    RunRecord r;
    r.id = s.i64(0);
    r.started = s.text(1);
    r.finished = s.text(2);
    r.command = s.text(3);
    r.seed = static_cast<uint64_t>(s.i64(4));
    r.options_json = s.text(5);
    r.status = s.text(6);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<KernelRecord> Store::kernels() const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, "SELECT " + columns(kKernelColumns, has_perf_columns_) + " FROM kernels ORDER BY id");
  std::vector<KernelRecord> out;
  while (s.step()) out.push_back(read_kernel(s));
  return out;
}

std::vector<WindowRecord> Store::windows(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_,
         "SELECT id, kernel, candidate, window, first_line, last_line, share, cycles, rank, listing FROM windows "
         "WHERE kernel = ? ORDER BY candidate IS NOT NULL, candidate, rank, id");
  s.bind(1, kernel);
  std::vector<WindowRecord> out;
  while (s.step()) {
    WindowRecord w;
    w.id = s.i64(0);
    w.kernel = s.i64(1);
    w.candidate = s.opt(2);
    w.window = s.text(3);
    w.first_line = static_cast<size_t>(s.i64(4));
    w.last_line = static_cast<size_t>(s.i64(5));
    w.share = s.f64(6);
    w.cycles = s.f64(7);
    w.rank = static_cast<int>(s.i64(8));
    w.listing = s.text(9);
    out.push_back(std::move(w));
  }
  return out;
}

std::optional<FinalRecord> Store::final_result(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, std::string("SELECT kernel, candidate, verdict, cycles, speedup, report, created, ") +
                         (has_perf_columns_ ? "launches" : "NULL") + " FROM final WHERE kernel = ?");
  s.bind(1, kernel);
  if (!s.step()) return std::nullopt;
  FinalRecord f;
  f.kernel = s.i64(0);
  f.candidate = s.opt(1);
  f.verdict = s.text(2);
  f.cycles = s.f64(3);
  f.speedup = s.f64(4);
  f.report_json = s.text(5);
  f.created = s.text(6);
  f.launches_json = s.text(7);
  return f;
}

std::vector<CounterexampleRecord> Store::counterexamples(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_,
         "SELECT id, kernel, candidate, folder, spec_text, created FROM counterexamples WHERE kernel = ? ORDER BY id");
  s.bind(1, kernel);
  std::vector<CounterexampleRecord> out;
  while (s.step()) {
    CounterexampleRecord c;
    c.id = s.i64(0);
    c.kernel = s.i64(1);
    c.candidate = s.i64(2);
    c.folder = s.text(3);
    c.spec_text = s.text(4);
    c.created = s.text(5);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<NoteRecord> Store::notes(int64_t kernel) const {
  std::lock_guard lock(mu_);
  Stmt s(db_, path_, "SELECT id, kernel, window, author, text, created FROM notes WHERE kernel = ? ORDER BY id");
  s.bind(1, kernel);
  std::vector<NoteRecord> out;
  while (s.step()) {
    NoteRecord n;
    n.id = s.i64(0);
    n.kernel = s.i64(1);
    n.window = s.text(2);
    n.author = s.text(3);
    n.text = s.text(4);
    n.created = s.text(5);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace asmevo::search
