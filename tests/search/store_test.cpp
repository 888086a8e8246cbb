// The experiment store (search/store.h): round trips, resume lookups, transactions, durability under
// SIGKILL, and clear errors for files that are not stores.
#include "search/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <random>

#include "support/error.h"
#include "support/file_io.h"

namespace fs = std::filesystem;
using asmevo::search::AcceptedRecord;
using asmevo::search::CandidateRecord;
using asmevo::search::KernelRecord;
using asmevo::search::StageResult;
using asmevo::search::Store;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "asmevo-store-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

KernelRecord sample_kernel(const std::string& name = "vadd", const std::string& sha = "aa11") {
  KernelRecord k;
  k.file = "corpus/hip/gfx942/vadd.co";
  k.kernel = name;
  k.spec_path = "corpus/hip/launch/vadd.yaml";
  k.spec_text = "kernel: vadd\ngrid: [4,1,1]\n";
  k.k0 = {0x7f, 'E', 'L', 'F', 0x00, 0x01, 0xff, 0x00};
  k.k0_sha = sha;
  k.baseline_cycles = 12345.5;
  k.baseline_us = 6.17;
  k.figure_kind = "modeled";
  k.listing = "s_load_dwordx2 s[0:1], s[4:5], 0x0\ns_endpgm\n";
  k.per_line_json = R"([{"address":0,"text":"s_load_dwordx2 s[0:1], s[4:5], 0x0","cycles":200}])";
  return k;
}

CandidateRecord sample_candidate(int64_t kernel, int64_t run, std::optional<int64_t> parent, const std::string& edit) {
  CandidateRecord c;
  c.kernel = kernel;
  c.run = run;
  c.parent = parent;
  c.proposer = "rules";
  c.move = "waitcnt-refine";
  c.window = "vadd@0x100";
  c.edit_json = edit;
  c.stage = "verify";
  c.verdict = "rejected";
  c.reason = "output differs at out[3]";
  c.stages = {{"edit", true, 0.001, ""}, {"rebuild", true, 0.25, "4 KiB"}, {"verify", false, 1.5, "out[3] differs"}};
  c.cycles = 1000;
  c.parent_cycles = 1100;
  c.speedup = 1.1;
  c.seconds = 1.751;
  return c;
}

int64_t scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

std::string text_of(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string v;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return v;
}

// The message of the asmevo::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const asmevo::Error& e) {
    return e.format();
  }
  return "";
}

}  // namespace

TEST(Store, NewFileGetsSchemaVersionAndWal) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  EXPECT_EQ(text_of(s.handle(), "SELECT value FROM meta WHERE key = 'schema'"), "asmevo.store/1");
  EXPECT_EQ(text_of(s.handle(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(scalar(s.handle(), "PRAGMA synchronous"), 2);  // FULL
  for (const char* t : {"runs", "kernels", "windows", "candidates", "accepted", "counterexamples", "final", "notes"})
    EXPECT_EQ(scalar(s.handle(), std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") + t + "'"), 1) << t;
}

TEST(Store, RunRoundTrip) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  const uint64_t seed = 0xfedcba9876543210ull;  // above INT64_MAX: stored as its bit pattern
  int64_t r1 = s.begin_run("asmevo optimize a.co --db run.sqlite", seed, R"({"budget":100})");
  int64_t r2 = s.begin_run("asmevo optimize --resume", 7, "{}");
  s.finish_run(r1, "interrupted");
  auto runs = s.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, r1);
  EXPECT_EQ(runs[0].command, "asmevo optimize a.co --db run.sqlite");
  EXPECT_EQ(runs[0].seed, seed);
  EXPECT_EQ(runs[0].options_json, R"({"budget":100})");
  EXPECT_EQ(runs[0].status, "interrupted");
  EXPECT_FALSE(runs[0].started.empty());
  EXPECT_FALSE(runs[0].finished.empty());
  EXPECT_EQ(runs[1].id, r2);
  EXPECT_EQ(runs[1].status, "running");
  EXPECT_TRUE(runs[1].finished.empty());
  EXPECT_NE(error_of([&] { s.finish_run(r2, "done"); }).find("unknown run status"), std::string::npos);
  EXPECT_NE(error_of([&] { s.finish_run(999, "finished"); }).find("no run 999"), std::string::npos);
}

TEST(Store, KernelIsFoundAgainByFileKernelAndSha) {
  TempDir d;
  const std::string path = d.file("run.sqlite");
  KernelRecord first;
  {
    Store s(path);
    KernelRecord want = sample_kernel();
    want.run = s.begin_run("x", 1, "{}");
    first = s.kernel(want);
    EXPECT_GT(first.id, 0);
    EXPECT_EQ(first.k0, want.k0);
  }
  Store s(path);  // a resumed process
  KernelRecord again = sample_kernel();
  again.baseline_cycles = 1;  // a resume does not overwrite what the first run measured
  KernelRecord k = s.kernel(again);
  EXPECT_EQ(k.id, first.id);
  EXPECT_EQ(k.run, first.run);
  EXPECT_EQ(k.file, "corpus/hip/gfx942/vadd.co");
  EXPECT_EQ(k.kernel, "vadd");
  EXPECT_EQ(k.spec_path, "corpus/hip/launch/vadd.yaml");
  EXPECT_EQ(k.spec_text, sample_kernel().spec_text);
  EXPECT_EQ(k.k0, sample_kernel().k0);  // bytes with NULs survive
  EXPECT_EQ(k.k0_sha, "aa11");
  EXPECT_DOUBLE_EQ(k.baseline_cycles, 12345.5);
  EXPECT_DOUBLE_EQ(k.baseline_us, 6.17);
  EXPECT_EQ(k.figure_kind, "modeled");
  EXPECT_EQ(k.listing, sample_kernel().listing);
  EXPECT_EQ(k.per_line_json, sample_kernel().per_line_json);

  // Another code object (sha) or another kernel of the file is another row.
  EXPECT_NE(s.kernel(sample_kernel("vadd", "bb22")).id, first.id);
  EXPECT_NE(s.kernel(sample_kernel("vmul", "aa11")).id, first.id);
  EXPECT_EQ(s.kernels().size(), 3u);
  EXPECT_TRUE(s.kernels()[0].k0.empty());  // the listing reader leaves the bytes out

  KernelRecord no_sha = sample_kernel();
  no_sha.k0_sha.clear();
  EXPECT_NE(error_of([&] { s.kernel(no_sha); }).find("without k0_sha"), std::string::npos);
  KernelRecord bad_kind = sample_kernel("x", "cc");
  bad_kind.figure_kind = "guessed";
  EXPECT_NE(error_of([&] { s.kernel(bad_kind); }).find("figure_kind"), std::string::npos);
}

TEST(Store, CandidateAndAcceptedRoundTrip) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  int64_t run = s.begin_run("x", 1, "{}");
  int64_t k = s.kernel(sample_kernel()).id;

  CandidateRecord rejected = sample_candidate(k, run, std::nullopt, R"({"hunks":[1]})");
  rejected.transcript = "";  // NULL in the table
  int64_t c1 = s.add_candidate(rejected);

  CandidateRecord acc = sample_candidate(k, run, std::nullopt, R"({"hunks":[2]})");
  acc.verdict = "";  // filled in by an accept
  acc.stage = "accept";
  acc.transcript = "LLM: I removed the s_waitcnt because <reasons> & more";
  AcceptedRecord a;
  a.code = {0, 1, 2, 0, 255, 0};
  a.cycles = 900.25;
  a.listing = "v_add_f32 v0, v1, v2\ns_endpgm\n";
  a.per_line_json = R"([{"address":256,"text":"v_add_f32 v0, v1, v2","cycles":4}])";
  int64_t c2 = s.add_candidate(acc, &a);
  EXPECT_GT(c2, c1);

  CandidateRecord child = sample_candidate(k, run, c2, R"({"hunks":[3]})");
  child.verdict = "error";
  child.stages.clear();
  int64_t c3 = s.add_candidate(child);

  auto cs = s.candidates(k);
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(s.candidate_count(k), 3u);
  const CandidateRecord& r = cs[0];
  EXPECT_EQ(r.id, c1);
  EXPECT_EQ(r.kernel, k);
  EXPECT_EQ(r.run, run);
  EXPECT_FALSE(r.parent.has_value());
  EXPECT_EQ(r.proposer, "rules");
  EXPECT_EQ(r.move, "waitcnt-refine");
  EXPECT_EQ(r.window, "vadd@0x100");
  EXPECT_EQ(r.edit_json, R"({"hunks":[1]})");
  EXPECT_EQ(r.stage, "verify");
  EXPECT_EQ(r.verdict, "rejected");
  EXPECT_EQ(r.reason, "output differs at out[3]");
  ASSERT_EQ(r.stages.size(), 3u);
  EXPECT_EQ(r.stages[1].stage, "rebuild");
  EXPECT_TRUE(r.stages[1].ok);
  EXPECT_DOUBLE_EQ(r.stages[1].seconds, 0.25);
  EXPECT_EQ(r.stages[1].detail, "4 KiB");
  EXPECT_FALSE(r.stages[2].ok);
  EXPECT_DOUBLE_EQ(r.cycles, 1000);
  EXPECT_DOUBLE_EQ(r.parent_cycles, 1100);
  EXPECT_DOUBLE_EQ(r.speedup, 1.1);
  EXPECT_DOUBLE_EQ(r.seconds, 1.751);
  EXPECT_TRUE(r.transcript.empty());
  EXPECT_EQ(scalar(s.handle(), "SELECT transcript IS NULL FROM candidates WHERE id = " + std::to_string(c1)), 1);

  EXPECT_EQ(cs[1].verdict, "accepted");
  EXPECT_EQ(cs[1].transcript, acc.transcript);
  EXPECT_EQ(cs[2].parent, c2);
  EXPECT_EQ(cs[2].id, c3);
  EXPECT_EQ(cs[2].verdict, "error");
  EXPECT_TRUE(cs[2].stages.empty());

  auto as = s.accepted(k);
  ASSERT_EQ(as.size(), 1u);
  EXPECT_EQ(as[0].candidate, c2);
  EXPECT_EQ(as[0].kernel, k);
  EXPECT_EQ(as[0].code, a.code);
  EXPECT_DOUBLE_EQ(as[0].cycles, 900.25);
  EXPECT_EQ(as[0].listing, a.listing);
  EXPECT_EQ(as[0].per_line_json, a.per_line_json);
}

TEST(Store, AcceptedIsOldestFirstAndPerKernel) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  int64_t run = s.begin_run("x", 1, "{}");
  int64_t ka = s.kernel(sample_kernel("a", "1")).id;
  int64_t kb = s.kernel(sample_kernel("b", "2")).id;
  std::vector<int64_t> want_a, want_b;
  std::optional<int64_t> pa, pb;
  for (int i = 0; i < 4; ++i) {
    AcceptedRecord acc;
    acc.code = {static_cast<uint8_t>(i)};
    acc.cycles = 100 - i;
    CandidateRecord ca = sample_candidate(ka, run, pa, "a" + std::to_string(i));
    ca.verdict = "accepted";
    pa = s.add_candidate(ca, &acc);
    want_a.push_back(*pa);
    s.add_candidate(sample_candidate(ka, run, pa, "rejected" + std::to_string(i)));
    CandidateRecord cb = sample_candidate(kb, run, pb, "b" + std::to_string(i));
    cb.verdict = "accepted";
    pb = s.add_candidate(cb, &acc);
    want_b.push_back(*pb);
  }
  std::vector<int64_t> got_a, got_b;
  for (const auto& r : s.accepted(ka)) got_a.push_back(r.candidate);
  for (const auto& r : s.accepted(kb)) got_b.push_back(r.candidate);
  EXPECT_EQ(got_a, want_a);
  EXPECT_EQ(got_b, want_b);
  EXPECT_EQ(s.accepted(ka)[2].code, std::vector<uint8_t>{2});
  EXPECT_EQ(s.candidate_count(ka), 8u);
  EXPECT_EQ(s.candidate_count(kb), 4u);
}

TEST(Store, TriedEditsByParent) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  int64_t run = s.begin_run("x", 1, "{}");
  int64_t k = s.kernel(sample_kernel()).id;
  int64_t other = s.kernel(sample_kernel("other", "9")).id;
  s.add_candidate(sample_candidate(k, run, std::nullopt, "e1"));
  s.add_candidate(sample_candidate(k, run, std::nullopt, "e2"));
  s.add_candidate(sample_candidate(k, run, std::nullopt, "e1"));  // tried twice: listed once
  s.add_candidate(sample_candidate(other, run, std::nullopt, "e9"));
  CandidateRecord acc = sample_candidate(k, run, std::nullopt, "e3");
  acc.verdict = "accepted";
  AcceptedRecord a;
  a.code = {1};
  int64_t p = s.add_candidate(acc, &a);
  s.add_candidate(sample_candidate(k, run, p, "f1"));
  s.add_candidate(sample_candidate(k, run, p, "e1"));

  EXPECT_EQ(s.tried_edits(k, std::nullopt), (std::vector<std::string>{"e1", "e2", "e3"}));
  EXPECT_EQ(s.tried_edits(k, p), (std::vector<std::string>{"f1", "e1"}));
  EXPECT_EQ(s.tried_edits(other, std::nullopt), (std::vector<std::string>{"e9"}));
  EXPECT_TRUE(s.tried_edits(k, 12345).empty());
}

TEST(Store, WindowsFinalCounterexamplesNotesRoundTrip) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  int64_t run = s.begin_run("x", 1, "{}");
  int64_t k = s.kernel(sample_kernel()).id;
  s.add_windows(k, std::nullopt, {"vadd@0x100", "vadd@0x200"}, {{3, 10}, {20, 30}}, {0.6, 0.3}, {600, 300},
                {"s_waitcnt vmcnt(0)\n", "v_add_f32 v0, v1, v2\n"});
  CandidateRecord acc = sample_candidate(k, run, std::nullopt, "e");
  acc.verdict = "accepted";
  AcceptedRecord a;
  a.code = {1};
  int64_t c = s.add_candidate(acc, &a);
  s.add_windows(k, c, {"vadd@0x100"}, {{3, 9}}, {0.5}, {400}, {});
  auto ws = s.windows(k);
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_FALSE(ws[0].candidate.has_value());
  EXPECT_EQ(ws[0].window, "vadd@0x100");
  EXPECT_EQ(ws[0].first_line, 3u);
  EXPECT_EQ(ws[0].last_line, 10u);
  EXPECT_DOUBLE_EQ(ws[0].share, 0.6);
  EXPECT_DOUBLE_EQ(ws[0].cycles, 600);
  EXPECT_EQ(ws[0].rank, 0);
  EXPECT_EQ(ws[0].listing, "s_waitcnt vmcnt(0)\n");
  EXPECT_EQ(ws[1].rank, 1);
  EXPECT_EQ(ws[2].candidate, c);
  EXPECT_EQ(ws[2].last_line, 9u);
  EXPECT_TRUE(ws[2].listing.empty());
  EXPECT_NE(error_of([&] { s.add_windows(k, c, {"w"}, {}, {0.1}, {1}, {}); }).find("differ in length"),
            std::string::npos);

  EXPECT_FALSE(s.final_result(k).has_value());
  s.set_final(k, std::nullopt, "EQUIVALENT", 1000, 1.0, R"({"verdict":"EQUIVALENT"})");
  s.set_final(k, c, "EQUIVALENT", 900, 1.11, R"({"verdict":"EQUIVALENT","runs":12})");  // replaces
  auto f = s.final_result(k);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->candidate, c);
  EXPECT_EQ(f->verdict, "EQUIVALENT");
  EXPECT_DOUBLE_EQ(f->cycles, 900);
  EXPECT_DOUBLE_EQ(f->speedup, 1.11);
  EXPECT_EQ(f->report_json, R"({"verdict":"EQUIVALENT","runs":12})");
  EXPECT_EQ(scalar(s.handle(), "SELECT count(*) FROM final"), 1);

  s.add_counterexample(k, c, "/tmp/cex/1", "kernel: vadd\n");
  auto cx = s.counterexamples(k);
  ASSERT_EQ(cx.size(), 1u);
  EXPECT_EQ(cx[0].candidate, c);
  EXPECT_EQ(cx[0].folder, "/tmp/cex/1");
  EXPECT_EQ(cx[0].spec_text, "kernel: vadd\n");
  EXPECT_FALSE(cx[0].created.empty());

  s.add_note(k, "vadd@0x100", "llm", "the loads are not coalesced");
  auto ns = s.notes(k);
  ASSERT_EQ(ns.size(), 1u);
  EXPECT_EQ(ns[0].window, "vadd@0x100");
  EXPECT_EQ(ns[0].author, "llm");
  EXPECT_EQ(ns[0].text, "the loads are not coalesced");
}

TEST(Store, AFailedWriteLeavesNothingBehind) {
  TempDir d;
  Store s(d.file("run.sqlite"));
  int64_t run = s.begin_run("x", 1, "{}");
  int64_t k = s.kernel(sample_kernel()).id;
  // Make the second statement of an accept fail: the candidate row inserted before it must go too.
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(s.handle(),
                         "CREATE TRIGGER no_accepts BEFORE INSERT ON accepted BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
                         nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  CandidateRecord c = sample_candidate(k, run, std::nullopt, "e");
  c.verdict = "accepted";
  AcceptedRecord a;
  a.code = {1, 2, 3};
  std::string msg = error_of([&] { s.add_candidate(c, &a); });
  EXPECT_NE(msg.find("disk on fire"), std::string::npos) << msg;
  EXPECT_NE(msg.find(d.file("run.sqlite")), std::string::npos) << msg;  // names the DB file
  EXPECT_EQ(s.candidate_count(k), 0u);
  EXPECT_TRUE(s.accepted(k).empty());
  ASSERT_EQ(sqlite3_exec(s.handle(), "DROP TRIGGER no_accepts", nullptr, nullptr, nullptr), SQLITE_OK);
  // The connection is usable afterwards (the transaction was rolled back, not left open).
  EXPECT_GT(s.add_candidate(c, &a), 0);
  EXPECT_EQ(s.accepted(k).size(), 1u);

  // Inconsistent accepts are refused before anything is written.
  CandidateRecord bad = sample_candidate(k, run, std::nullopt, "e2");
  bad.verdict = "rejected";
  EXPECT_NE(error_of([&] { s.add_candidate(bad, &a); }).find("verdict 'rejected'"), std::string::npos);
  AcceptedRecord empty;
  bad.verdict = "accepted";
  EXPECT_NE(error_of([&] { s.add_candidate(bad, &empty); }).find("without code"), std::string::npos);
  bad.verdict = "maybe";
  EXPECT_NE(error_of([&] { s.add_candidate(bad); }).find("verdict must be"), std::string::npos);
  EXPECT_EQ(s.candidate_count(k), 1u);
}

TEST(Store, NonStoreFilesGiveClearErrors) {
  TempDir d;
  // An SQLite database of something else: refused, and left exactly as it was.
  const std::string other = d.file("other.sqlite");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES (1)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto before = asmevo::read_file_bytes(other);
  std::string msg = error_of([&] { Store s(other); });
  EXPECT_NE(msg.find("not an AsmEvo store"), std::string::npos) << msg;
  EXPECT_NE(msg.find("photos"), std::string::npos) << msg;
  EXPECT_NE(msg.find(other), std::string::npos) << msg;
  EXPECT_EQ(asmevo::read_file_bytes(other), before);
  EXPECT_FALSE(fs::exists(other + "-wal"));

  // Garbage bytes.
  const std::string garbage = d.file("garbage.sqlite");
  {
    std::mt19937 rng(42);
    std::vector<uint8_t> bytes(8192);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    asmevo::write_file_atomic(garbage, bytes);
  }
  msg = error_of([&] { Store s(garbage); });
  EXPECT_NE(msg.find("not an SQLite database"), std::string::npos) << msg;
  EXPECT_NE(msg.find(garbage), std::string::npos) << msg;
  msg = error_of([&] { Store s(garbage, Store::Access::kReadOnly); });
  EXPECT_NE(msg.find("not an SQLite database"), std::string::npos) << msg;

  // A store of another schema version.
  const std::string v2 = d.file("v2.sqlite");
  { Store s(v2); ASSERT_EQ(sqlite3_exec(s.handle(), "UPDATE meta SET value = 'asmevo.store/2' WHERE key = 'schema'", nullptr, nullptr, nullptr), SQLITE_OK); }
  msg = error_of([&] { Store s(v2); });
  EXPECT_NE(msg.find("meta.schema is 'asmevo.store/2'"), std::string::npos) << msg;

  // A directory, and a missing file opened read-only (a report of a run that never happened).
  msg = error_of([&] { Store s(d.path.string()); });
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  msg = error_of([&] { Store s(d.file("missing.sqlite"), Store::Access::kReadOnly); });
  EXPECT_NE(msg.find("no such experiment store"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(d.file("missing.sqlite")));
}

TEST(Store, ReadOnlyStoreReadsAndRefusesWrites) {
  TempDir d;
  const std::string path = d.file("run.sqlite");
  int64_t k;
  {
    Store s(path);
    k = s.kernel(sample_kernel()).id;
    s.add_candidate(sample_candidate(k, s.begin_run("x", 1, "{}"), std::nullopt, "e"));
  }
  auto before = asmevo::read_file_bytes(path);
  {
    Store ro(path, Store::Access::kReadOnly);
    EXPECT_EQ(ro.candidate_count(k), 1u);
    EXPECT_NE(error_of([&] { ro.begin_run("y", 2, "{}"); }).find("read-only"), std::string::npos);
    EXPECT_NE(error_of([&] { ro.add_note(k, "w", "me", "hi"); }).find("read-only"), std::string::npos);
  }
  EXPECT_EQ(asmevo::read_file_bytes(path), before);
}

namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The code object bytes the crash test's writer stores for (round, i): large enough that a commit
// takes a while, and checkable byte for byte afterwards.
std::vector<uint8_t> crash_code(uint64_t round, uint64_t i) {
  uint64_t h = splitmix(round << 32 | i);
  std::vector<uint8_t> code(4096 + h % 196608);
  for (size_t j = 0; j < code.size(); j += 8) {
    h = splitmix(h);
    for (size_t b = 0; b < 8 && j + b < code.size(); ++b) code[j + b] = static_cast<uint8_t>(h >> (8 * b));
  }
  return code;
}

// Child: opens the store, resumes from the last accepted candidate and writes candidates (every
// third one accepted) until killed, reporting each committed id on `fd`.
[[noreturn]] void crash_writer(const std::string& path, int64_t kernel, uint64_t round, int fd) {
  try {
    Store s(path);
    int64_t run = s.begin_run("crash-writer", round, "{}");
    auto prior = s.accepted(kernel);
    std::optional<int64_t> parent;
    if (!prior.empty()) parent = prior.back().candidate;
    for (uint64_t i = 0;; ++i) {
      CandidateRecord c = sample_candidate(kernel, run, parent, nlohmann::json{{"round", round}, {"i", i}}.dump());
      int64_t id;
      if (i % 3 == 0) {
        c.verdict = "accepted";
        AcceptedRecord a;
        a.code = crash_code(round, i);
        a.cycles = 1000.0 / (i + 1);
        a.listing = std::string(a.code.size() / 4, 'x');
        id = s.add_candidate(c, &a);
        parent = id;
      } else {
        id = s.add_candidate(c);
      }
      if (::write(fd, &id, sizeof id) != sizeof id) ::_exit(4);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash writer: %s\n", e.what());
    ::_exit(3);
  }
}

}  // namespace

TEST(StoreCrash, SigkillAtARandomMomentLeavesNoHalfWrites) {
  TempDir d;
  const std::string path = d.file("run.sqlite");
  int64_t kernel;
  {
    Store s(path);
    kernel = s.kernel(sample_kernel()).id;
  }  // closed before fork: an SQLite connection must not cross a fork
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<int64_t> committed;
  for (uint64_t round = 0; round < 12; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      crash_writer(path, kernel, round, fds[1]);
    }
    ::close(fds[1]);
    // Let it commit a few candidates first (so there is something to lose), then kill it at a
    // random moment: usually inside a transaction, as commits dominate its time.
    size_t got = 0;
    int64_t id;
    while (got < 4 && ::read(fds[0], &id, sizeof id) == sizeof id) committed.push_back(id), ++got;
    ASSERT_EQ(got, 4u) << "the writer died early (see stderr)";
    ::usleep(rng() % 150000);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    while (::read(fds[0], &id, sizeof id) == sizeof id) committed.push_back(id);
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;

    Store s(path);
    sqlite3* db = s.handle();
    EXPECT_EQ(text_of(db, "PRAGMA integrity_check"), "ok");
    // Everything the writer saw committed is there (durability).
    for (int64_t c : committed)
      ASSERT_EQ(scalar(db, "SELECT count(*) FROM candidates WHERE id = " + std::to_string(c)), 1) << c;
    // No half accepts: each accepted row has its candidate and complete code, and each accepted
    // candidate has its accepted row.
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM accepted a LEFT JOIN candidates c ON c.id = a.candidate WHERE c.id IS NULL"), 0);
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM candidates c LEFT JOIN accepted a ON a.candidate = c.id "
                         "WHERE c.verdict = 'accepted' AND a.candidate IS NULL"), 0);
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM accepted WHERE code IS NULL OR length(code) = 0"), 0);
    auto cands = s.candidates(kernel);
    std::map<int64_t, const CandidateRecord*> by_id;
    for (const auto& c : cands) by_id[c.id] = &c;
    auto acc = s.accepted(kernel);
    ASSERT_FALSE(acc.empty());
    for (const auto& a : acc) {
      ASSERT_TRUE(by_id.count(a.candidate));
      auto e = nlohmann::json::parse(by_id[a.candidate]->edit_json);
      EXPECT_EQ(a.code, crash_code(e["round"].get<uint64_t>(), e["i"].get<uint64_t>())) << "candidate " << a.candidate;
      EXPECT_EQ(a.listing.size(), a.code.size() / 4);
      // The lineage is intact: each accept's parent is an earlier accept.
      if (by_id[a.candidate]->parent) EXPECT_TRUE(by_id.count(*by_id[a.candidate]->parent));
    }
  }
  EXPECT_GE(committed.size(), 48u);
}

TEST(StoreConcurrency, TwoWriterProcessesBothGetEveryWriteIn) {
  TempDir d;
  const std::string path = d.file("run.sqlite");  // created by whichever writer comes first
  constexpr int kEach = 60;
  std::vector<pid_t> kids;
  for (int w = 0; w < 2; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        Store s(path);  // both may find an empty file: one creates the schema, the other waits and sees it
        int64_t run = s.begin_run("writer", w, "{}");
        const int64_t kernel = s.kernel(sample_kernel()).id;  // both resume the same kernel row
        for (int i = 0; i < kEach; ++i) {
          CandidateRecord c = sample_candidate(kernel, run, std::nullopt, fmt::format("w{}-{}", w, i));
          if (i % 4 == 0) {
            c.verdict = "accepted";
            AcceptedRecord a;
            a.code = crash_code(w, i);
            s.add_candidate(c, &a);
          } else {
            s.add_candidate(c);
          }
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        ::_exit(3);
      }
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  Store s(path);
  ASSERT_EQ(s.kernels().size(), 1u);
  const int64_t kernel = s.kernels()[0].id;
  EXPECT_EQ(s.candidate_count(kernel), 2u * kEach);
  EXPECT_EQ(s.accepted(kernel).size(), 2u * kEach / 4);
  EXPECT_EQ(s.runs().size(), 2u);
  EXPECT_EQ(text_of(s.handle(), "PRAGMA integrity_check"), "ok");
}

// Perf launches (issue 14) added columns under the same schema version: a store written before them
// still opens, read-only (the columns read as empty) and for writing (the columns are added).
TEST(Store, PerfLaunchColumnsRoundTripAndOlderStoresStillOpen) {
  TempDir d;
  const std::string path = d.file("old.sqlite");
  int64_t kid = 0;
  {
    Store s(path);
    KernelRecord k = sample_kernel();
    k.fitness = "geomean of modeled cycles on perf launches 'decode' (k.yaml:10), 'prefill' (k.yaml:11)";
    k.perf_launches_json = asmevo::search::launches_json({{"decode", 100, 0.05}, {"prefill", 400, 0.2}});
    kid = s.kernel(k).id;
    CandidateRecord c = sample_candidate(kid, s.begin_run("test", 1, "{}"), std::nullopt, "{}");
    c.launches_json = asmevo::search::launches_json({{"decode", 90, 0.045}, {"prefill", 390, 0.195}});
    s.add_candidate(c);
    s.set_final(kid, std::nullopt, "K0 kept", 200, 1.0, "{}", asmevo::search::launches_json({{"decode", 100, 0.05}}));
    auto back = s.kernels().at(0);
    EXPECT_EQ(back.fitness, k.fitness);
    auto per = asmevo::search::parse_launches_json(back.perf_launches_json);
    ASSERT_EQ(per.size(), 2u);
    EXPECT_EQ(per[1].name, "prefill");
    EXPECT_EQ(per[1].cycles, 400);
    EXPECT_EQ(asmevo::search::parse_launches_json(s.candidates(kid).at(0).launches_json).at(0).cycles, 90);
    EXPECT_EQ(asmevo::search::parse_launches_json(s.final_result(kid)->launches_json).size(), 1u);
    // Make it a store of before perf launches.
    for (const char* sql : {"ALTER TABLE kernels DROP COLUMN fitness", "ALTER TABLE kernels DROP COLUMN perf_launches",
                            "ALTER TABLE candidates DROP COLUMN launches", "ALTER TABLE final DROP COLUMN launches"})
      ASSERT_EQ(sqlite3_exec(s.handle(), sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(s.handle());
  }
  {
    Store ro(path, Store::Access::kReadOnly);
    ASSERT_EQ(ro.kernels().size(), 1u);
    EXPECT_TRUE(ro.kernels()[0].fitness.empty());
    EXPECT_TRUE(ro.candidates(kid).at(0).launches_json.empty());
    EXPECT_TRUE(ro.final_result(kid)->launches_json.empty());
  }
  {
    Store rw(path);
    EXPECT_TRUE(rw.kernels().at(0).fitness.empty());
    KernelRecord k2 = sample_kernel("other", "bb22");
    k2.fitness = "modeled cycles on perf launch 'x' (k.yaml:9)";
    rw.kernel(k2);
    EXPECT_EQ(rw.kernels().at(1).fitness, k2.fitness);
  }
  EXPECT_TRUE(asmevo::search::parse_launches_json("not json").empty());
}
