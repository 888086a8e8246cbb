// search/optimizer.h and `asmevo optimize`: end to end on corpus kernels — a real speedup found,
// verified and written; the same seed gives the same search; a run killed with SIGKILL resumes
// without losing an accepted result; every misuse is a clear error that creates nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "rebuild/rebuild.h"
#include "search/optimizer.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
std::string spec_path(const std::string& kernel) { return corpus::hip_spec(kernel); }
// The spec the searches here run on: the corpus spec without its perf: list, so the fitness is the
// first verification launch (modeling the real-size perf launch for every candidate is too slow for
// a test; tests/search/perf_fitness_test.cpp covers fitness on perf launches). The final objects are
// still verified against the full corpus spec, perf launches included.
std::string search_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(spec_path(kernel)); }

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("asmevo-optimize-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// vector_add with needless padding before its add: `s_nop 7` x4 (slower, equivalent). The
// optimizer has to find and remove them through its moves and the cascade.
std::vector<uint8_t> padded_vector_add() {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).text.rfind("v_add_f32", 0) == 0) {
      p.insert_before(i, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"});
      break;
    }
  p.update_resources();
  return rebuild::rebuild(p.listing(), "padded");
}

search::KernelJob job(const std::string& kernel) { return {kernel, search_spec(kernel), {emu::load_launch_spec(search_spec(kernel))}}; }

int64_t count(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

// For polling a store another process is creating: 0 until the table exists.
int64_t poll_count(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  int64_t n = 0;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 1000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

int cli(const std::string& args, std::string* out = nullptr) {
  return asmevo::testing::run_shell(std::string(ASMEVO_CLI) + " " + args + " 2>&1", out);
}

}  // namespace

TEST(OptimizeTest, FindsVerifiesAndWritesARealSpeedup) {
  TempDir dir;
  const std::vector<uint8_t> k0 = padded_vector_add();
  search::Store store(dir / "run.sqlite");
  search::OptimizeOptions o;
  o.budget = 60;
  o.seed = 7;
  auto r = search::optimize(k0, "padded.co", {job("vector_add")}, store, o, "test");
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  EXPECT_EQ(k.final_verdict, "EQUIVALENT");
  EXPECT_GT(k.speedup(), 1.01);
  EXPECT_GE(k.accepted, 1u);
  EXPECT_LE(k.candidates, 60u);
  // The written object is what was re-verified: check it independently against the padded K0 with
  // the corpus spec (fresh reference) and re-time it.
  auto k0_co = codeobj::CodeObject::parse(k0, "padded.co");
  auto k1_co = codeobj::CodeObject::parse(r.bytes, "optimized.co");
  auto backend = verify::make_emulator_backend(1);
  verify::Reference ref(*backend, k0_co, {emu::load_launch_spec(spec_path("vector_add"))});
  EXPECT_EQ(verify::verify_candidate(ref, k1_co).verdict, verify::Verdict::Equivalent);
  // The store holds every candidate with its stages, the accepted lineage and the final verdict.
  const std::string db = dir / "run.sqlite";
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM candidates"), static_cast<int64_t>(k.candidates));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM accepted"), static_cast<int64_t>(k.accepted));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM final WHERE verdict = 'EQUIVALENT' AND candidate IS NOT NULL"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM candidates WHERE verdict = 'accepted' AND speedup < 1.01"), 0);
  EXPECT_GT(count(db, "SELECT COUNT(*) FROM windows"), 0);
}

TEST(OptimizeTest, PatchModeImprovesWithInPlacePatchesOnly) {
  // The fallback for objects that cannot be rebuilt exactly: every candidate is an in-place patch
  // of the original bytes, so the layout never changes; deleting a padding `s_nop 7` becomes
  // `s_nop 0` in place, which is faster.
  TempDir dir;
  const std::vector<uint8_t> k0 = padded_vector_add();
  search::Store store(dir / "run.sqlite");
  search::OptimizeOptions o;
  o.budget = 60;
  o.seed = 5;
  o.patch_only = true;
  auto r = search::optimize(k0, "padded.co", {job("vector_add")}, store, o, "test");
  const auto& k = r.kernels.at(0);
  EXPECT_TRUE(k.patch_mode);
  EXPECT_EQ(k.final_verdict, "EQUIVALENT");
  EXPECT_GT(k.speedup(), 1.0);
  ASSERT_EQ(r.bytes.size(), k0.size()) << "a patch never changes the file's size";
  size_t differing = 0;
  for (size_t i = 0; i < k0.size(); ++i) differing += k0[i] != r.bytes[i];
  EXPECT_GT(differing, 0u);
  EXPECT_LE(differing, 4u * 4) << "only the padding instructions' bytes change";
  // Insertions cannot be patches: every rejected insertion failed at the edit stage.
  const std::string db = dir / "run.sqlite";
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM candidates WHERE stage = 'rebuild' AND verdict = 'rejected'"), 0);
}

TEST(OptimizeTest, TheSameSeedGivesTheSameSearch) {
  TempDir dir;
  const std::vector<uint8_t> k0 = padded_vector_add();
  search::OptimizeOptions o;
  o.budget = 25;
  o.seed = 11;
  std::vector<std::string> edits[2];
  for (int i = 0; i < 2; ++i) {
    const std::string db = dir / ("run" + std::to_string(i) + ".sqlite");
    {
      search::Store store(db);
      search::optimize(k0, "padded.co", {job("vector_add")}, store, o, "test");
    }
    search::Store store(db);
    for (const auto& c : store.candidates(1)) edits[i].push_back(c.edit_json + c.verdict);
  }
  EXPECT_EQ(edits[0].size(), 25u);
  EXPECT_EQ(edits[0], edits[1]);
}

TEST(OptimizeTest, AKilledRunResumesWithEveryAcceptedResult) {
  TempDir dir;
  const std::string input = dir / "padded.co", output = dir / "out.co", db = dir / "out.sqlite";
  write_file_atomic(input, padded_vector_add());
  const std::string args = input + " --launch " + search_spec("vector_add") + " -o " + output + " --budget 100000 --seed 3";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", (std::string(ASMEVO_CLI) + " optimize " + args + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  // Kill it as soon as something has been accepted (or after 60 s).
  int64_t accepted = 0;
  for (int i = 0; i < 600 && accepted == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (fs::exists(db)) accepted = poll_count(db, "SELECT COUNT(*) FROM accepted");
  }
  // The shell's child is the optimizer: kill the whole process group of the shell's children.
  std::string pids;
  asmevo::testing::run_shell("pgrep -f 'optimize " + input + "'", &pids);
  for (size_t pos = 0; pos < pids.size();) {
    size_t nl = pids.find('\n', pos);
    std::string p = pids.substr(pos, nl - pos);
    if (!p.empty()) kill(std::stoi(p), SIGKILL);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_GT(accepted, 0) << "nothing was accepted within 60 s";
  EXPECT_FALSE(fs::exists(output)) << "a killed run writes no output";
  const int64_t before = count(db, "SELECT COUNT(*) FROM accepted");
  const int64_t tried = count(db, "SELECT COUNT(*) FROM candidates");
  EXPECT_GE(before, accepted);
  // Without --resume the store is not touched.
  std::string out;
  EXPECT_EQ(cli("optimize " + args, &out), 2) << out;
  EXPECT_NE(out.find("--resume"), std::string::npos) << out;
  // Resumed with a budget just above what was tried: it continues from the accepted candidates.
  const std::string resume = input + " --launch " + search_spec("vector_add") + " -o " + output + " --seed 3 --resume --budget " +
                             std::to_string(tried + 5);
  ASSERT_EQ(cli("optimize " + resume, &out), 0) << out;
  EXPECT_NE(out.find("resumed"), std::string::npos) << out;
  EXPECT_GE(count(db, "SELECT COUNT(*) FROM accepted"), before);
  EXPECT_LE(count(db, "SELECT COUNT(*) FROM candidates"), tried + 5);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM final WHERE verdict = 'EQUIVALENT'"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 2);
  // The written object verifies against the input; the report was written next to it.
  EXPECT_EQ(cli("verify " + input + " " + output + " --launch " + spec_path("vector_add"), &out), 0) << out;
  EXPECT_TRUE(fs::exists(dir / "out.html"));
  EXPECT_NE(read_file_text(dir / "out.html").find("vector_add"), std::string::npos);
}

TEST(OptimizeTest, OptimizesEveryKernelOfAFileWithASpec) {
  // axpy.co holds axpy_f32 and axpy_f64; both specs given, no --kernel: both are searched, the
  // output keeps both kernels and verifies EQUIVALENT for each.
  TempDir dir;
  std::string out;
  ASSERT_EQ(cli("optimize " + hip("axpy.co") + " --launch " + search_spec("axpy_f32") + " --launch " + search_spec("axpy_f64") + " -o " +
                    (dir / "axpy.co") + " --budget 8 --proposers stochastic",
                &out),
            0)
      << out;
  EXPECT_NE(out.find("axpy_f32"), std::string::npos) << out;
  EXPECT_NE(out.find("axpy_f64"), std::string::npos) << out;
  for (const char* k : {"axpy_f32", "axpy_f64"})
    EXPECT_EQ(cli("verify " + hip("axpy.co") + " " + (dir / "axpy.co") + " --launch " + spec_path(k), &out), 0) << out;
}

TEST(OptimizeTest, MisuseIsAClearErrorThatCreatesNothing) {
  TempDir dir;
  const std::string spec = " --launch " + search_spec("vector_add");
  struct Case {
    std::string args, expect;
  } cases[] = {
      {hip("vector_add.co") + spec + " -o " + hip("vector_add.co"), "overwrite the input"},
      {hip("vector_add.co") + spec + " --kernel nope -o " + (dir / "o.co"), "no kernel named nope"},
      {hip("vector_add.co") + " --launch " + search_spec("relu_f32") + " -o " + (dir / "o.co"), "relu_f32"},
      {hip("vector_add.co") + spec + " --budget 0 -o " + (dir / "o.co"), "--time"},
      {hip("vector_add.co") + spec + " --proposers rules,llm -o " + (dir / "o.co"), "endpoint"},
      {hip("vector_add.co") + spec + " --min-gain 100 -o " + (dir / "o.co"), "--min-gain"},
      {(dir / "missing.co") + spec + " -o " + (dir / "o.co"), "missing.co"},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(cli("optimize " + c.args, &out), 2) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.expect), std::string::npos) << c.args << "\n" << out;
    EXPECT_NE(out.find("fix:"), std::string::npos) << out;
  }
  EXPECT_TRUE(fs::is_empty(dir.path)) << "a refused command leaves no file behind";
}
