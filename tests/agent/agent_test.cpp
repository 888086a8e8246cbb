// agent/: the LLM agent proposer against a scripted OpenAI-compatible server started by the test on
// 127.0.0.1 (tests/agent/mock_llm.py). The server checks every request it receives (tool results
// answering the right tool_call_id, their content, the offered tools) and logs it; the tests assert
// on the optimizer's outcome, the store, and those logs.
//
// The kernel is corpus vector_add (gfx942) padded with four needless `s_nop 7` before its v_add_f32:
// removing them is a real, verified speedup that a scripted model can find through the tools.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/agent.h"
#include "agent/prompts.h"
#include "rebuild/rebuild.h"
#include "cli/optimize.h"
#include "search/edit.h"
#include "search/optimizer.h"
#include "support/error.h"
#include "support/file_io.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;
using nlohmann::json;
namespace fs = std::filesystem;

extern char** environ;

namespace {

// A scratch folder for one test: the store, the script, the server's request log. Kept when the
// test failed or ASMEVO_AGENT_TEST_KEEP is set (to read the log and the store), removed otherwise. Declared first in a test, so it outlives the server.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("asmevo-agent-" + std::to_string(getpid()) + "-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    if (!::testing::Test::HasFailure() && !std::getenv("ASMEVO_AGENT_TEST_KEEP")) fs::remove_all(path);
  }
};

// The scripted server: a child process serving SCRIPT on a free loopback port.
class MockServer {
 public:
  MockServer(const fs::path& dir, const json& script) : dir_(dir) {
    std::ofstream(dir / "script.json") << script.dump(1);
    const std::string py = ASMEVO_PYTHON, server = std::string(ASMEVO_SOURCE_DIR) + "/tests/agent/mock_llm.py";
    const std::string s = (dir / "script.json").string(), port = (dir / "port").string(), log = (dir / "requests.jsonl").string();
    char* argv[] = {const_cast<char*>(py.c_str()), const_cast<char*>(server.c_str()), const_cast<char*>(s.c_str()),
                    const_cast<char*>(port.c_str()), const_cast<char*>(log.c_str()), nullptr};
    if (posix_spawn(&pid_, py.c_str(), nullptr, nullptr, argv, environ) != 0) throw Error("cannot start " + server);
    for (int i = 0; i < 200 && !fs::exists(port); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(port);
    in >> port_;
    if (!port_) throw Error("the mock server did not start", server);
  }
  ~MockServer() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(dir_ / "requests.jsonl");
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) out.push_back(json::parse(line));
    return out;
  }
  // Every expectation the server found unmet, one line each.
  std::string failures() const {
    std::string s;
    for (const json& r : requests())
      for (const auto& f : r["failures"]) s += "request " + std::to_string(r["index"].get<int>()) + ": " + f.get<std::string>() + "\n";
    return s;
  }

 private:
  fs::path dir_;
  pid_t pid_ = 0;
  int port_ = 0;
};

json reply(const std::string& content, json calls = json::array(), json usage = {100, 20}) {
  return {{"reply", {{"content", content}, {"tool_calls", calls}, {"usage", usage}}}};
}
json call(const std::string& id, const std::string& name, json args) { return json::array({id, name, args}); }

// vector_add padded with four s_nop 7 before v_add_f32, and where the padding and the kernel lie
// in the recovered listing (the lines the model sees).
struct Padded {
  std::vector<uint8_t> bytes;
  size_t nop_first = 0, kernel_first = 0, kernel_last = 0;
};

Padded padded_vector_add() {
  static Padded cached = [] {
    auto k0 = read_file_bytes(corpus::hip_object("gfx942", "vector_add.co"));
    auto co = codeobj::CodeObject::parse(k0, "vector_add.co");
    auto p = program::Program::recover(co);
    const program::Function* f = p.function("vector_add");
    size_t add = 0;
    for (size_t i = f->begin; i < f->end && !add; ++i)
      if (p.text_line(i).text.rfind("v_add_f32", 0) == 0) add = i;
    search::Edit pad;
    pad.kernel = "vector_add";
    pad.hunks = {search::make_insertion(add, {"s_nop 7", "s_nop 7", "s_nop 7", "s_nop 7"})};
    Padded out;
    out.bytes = rebuild::rebuild(search::apply_edit(p, pad).listing(), "vector_add_padded");
    auto pco = codeobj::CodeObject::parse(out.bytes, "vector_add_padded.co");
    auto pp = program::Program::recover(pco);
    const program::Function* pf = pp.function("vector_add");
    out.kernel_first = pf->begin;
    out.kernel_last = pf->end - 1;
    for (size_t i = pf->begin; i < pf->end && !out.nop_first; ++i)
      if (pp.text_line(i).text == "s_nop 7") out.nop_first = i;
    return out;
  }();
  return cached;
}

struct AgentRun {
  search::OptimizeResult result;
  std::vector<std::string> log;
};

agent::LlmOptions llm_options(const MockServer& server) {
  agent::LlmOptions o;
  o.url = server.url();
  o.model = "mock-model";
  o.timeout_s = 20;
  o.retries = 2;
  o.backoff_s = 0.05;
  return o;
}

AgentRun optimize_with_agent(const fs::path& db, const agent::LlmOptions& lo, const agent::LlmBudget& budget = {}, bool resume = false) {
  Padded k0 = padded_vector_add();
  search::KernelJob job;
  job.kernel = "vector_add";
  // Without the spec's perf: list: the agent's candidates are timed on the first verification
  // launch (the real-size perf launch is too slow to model per candidate in a test).
  job.spec_path = asmevo::testing::spec_without_perf(corpus::hip_spec("vector_add"));
  job.specs = {emu::load_launch_spec(job.spec_path)};
  search::OptimizeOptions o;
  o.budget = 20;
  o.proposers = {"llm"};
  o.resume = resume;
  o.counterexample_dir = (db.parent_path() / "cex").string();
  AgentRun run;
  auto session = std::make_shared<agent::LlmSession>(lo, budget, [&run](const std::string& l) { run.log.push_back(l); });
  o.make_llm = [session](const std::string& k) { return agent::make_llm_proposer(session, k); };
  search::Store store(db.string());
  search::Progress progress;
  progress.log = [&run](const std::string& l) { run.log.push_back(l); };
  run.result = search::optimize(k0.bytes, "vector_add_padded.co", {job}, store, o, "agent_test", progress);
  return run;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST(AgentPrompts, AreEmbeddedVersionedFiles) {
  EXPECT_NE(agent::prompt("system-v1.md").find("AsmEvo"), std::string::npos);
  json tools = json::parse(agent::prompt("tools-v1.json"));
  std::set<std::string> names;
  for (const auto& t : tools) names.insert(t["function"]["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"list_windows", "show_window", "show_kernel_info", "isa_help", "propose_edit", "evaluate",
                                          "history", "note"}));
  EXPECT_THROW(agent::prompt("system-v0.md"), Error);
}

TEST(AgentBudget, ParsesCapsAndRefusesBadItems) {
  auto b = agent::LlmBudget::parse("calls=20, tokens=50000,seconds=90.5");
  EXPECT_EQ(b.calls, 20u);
  EXPECT_EQ(b.tokens, 50000u);
  EXPECT_DOUBLE_EQ(b.seconds, 90.5);
  EXPECT_THROW(agent::LlmBudget::parse("calls"), Error);
  EXPECT_THROW(agent::LlmBudget::parse("dollars=5"), Error);
  EXPECT_THROW(agent::LlmBudget::parse("calls=-1"), Error);
  agent::LlmOptions o;
  o.url = "http://127.0.0.1:1/v1";
  o.model = "m";
  o.key_env = "ASMEVO_AGENT_TEST_UNSET_KEY";
  unsetenv(o.key_env.c_str());
  EXPECT_THROW(agent::ChatClient{o}, Error) << "a named but unset key variable is an error, not an anonymous request";
}

TEST(AgentSession, FindsAVerifiedSpeedupThroughToolCalls) {
  const Padded k0 = padded_vector_add();
  ASSERT_GT(k0.nop_first, 0u);
  TempDir scratch("success");
  const fs::path dir = scratch.path;
  const int F = static_cast<int>(k0.nop_first);
  json script = {{"model", "mock-model"}, {"auth", "Bearer sk-test-123"}, {"responses", json::array()}};
  auto& r = script["responses"];
  json r0 = reply("Let me see where the modeled cycles go.", {call("c1", "list_windows", json::object())});
  r0["expect"] = {{"any_contains", {"Kernel vector_add", "Hot windows of the current best", "No earlier attempts"}}, {"last_role", "user"}};
  r.push_back(r0);
  json r1 = reply("Look at the code around the v_add_f32.", {call("c2", "show_window", {{"first", F - 3}, {"last", F + 6}})});
  r1["expect"] = {{"tool_results", {{{"id", "c1"}, {"contains", {"lines L", "% of cycles"}}}}}, {"last_role", "tool"}};
  r.push_back(r1);
  json r2 = reply("Four s_nop 7 sit before v_add_f32; no hazard rule needs wait states there. Remove them.",
                  {call("c3", "propose_edit", {{"first", F}, {"last", F + 3}, {"code", ""}, {"description", "remove four needless s_nop 7"}}),
                   call("c3b", "propose_edit", {{"first", F}, {"last", F + 1}, {"code", ""}, {"description", "remove two of them"}})});
  r2["expect"] = {{"tool_results", {{{"id", "c2"}, {"contains", {"L" + std::to_string(F) + " ", "s_nop 7", "live "}}}}}};
  r.push_back(r2);
  json r3 = reply("Evaluate it.", {call("c4", "evaluate", {{"edit_id", 1}})});
  r3["expect"] = {{"tool_results", {{{"id", "c3"}, {"contains", {"edit_id 1 ready", "-s_nop 7"}}}, {{"id", "c3b"}, {"contains", {"edit_id 2 ready"}}}}}};
  r.push_back(r3);
  json r4 = reply("Accepted. Record the lesson; the other edit was for the old code.",
                  {call("c5", "note", {{"text", "s_nop padding before v_add_f32 was needless"}}), call("c6", "evaluate", {{"edit_id", 2}})});
  r4["expect"] = {{"tool_results", {{{"id", "c4"}, {"contains", {"ACCEPTED", "verify", "Line numbers have changed"}}}}}};
  r.push_back(r4);
  json r5 = reply("Nothing else worth trying in this kernel.");
  r5["expect"] = {{"tool_results",
                   {{{"id", "c5"}, {"contains", {"noted"}}}, {{"id", "c6"}, {"contains", {"was made for an older best", "the best is now candidate #1"}}}}}};
  r.push_back(r5);

  MockServer server(dir, script);
  setenv("ASMEVO_AGENT_TEST_KEY", "sk-test-123", 1);
  agent::LlmOptions lo = llm_options(server);
  lo.key_env = "ASMEVO_AGENT_TEST_KEY";
  AgentRun run = optimize_with_agent(dir / "db.sqlite", lo);
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 6u);

  ASSERT_EQ(run.result.kernels.size(), 1u);
  const auto& k = run.result.kernels[0];
  EXPECT_EQ(k.final_verdict, "EQUIVALENT") << joined(run.log);
  EXPECT_LT(k.best_cycles, k.baseline_cycles);
  EXPECT_EQ(k.accepted_moves.at("llm-edit"), 1u);

  search::Store store((dir / "db.sqlite").string(), search::Store::Access::kReadOnly);
  const int64_t kid = store.kernels().at(0).id;
  auto cands = store.candidates(kid);
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(cands[0].proposer, "llm");
  EXPECT_EQ(cands[0].verdict, "accepted");
  json t = json::parse(cands[0].transcript);
  EXPECT_EQ(t["schema"], "asmevo.transcript/1");
  std::string all = t.dump();
  EXPECT_NE(all.find("no hazard rule needs wait states there"), std::string::npos) << "the rationale is stored";
  EXPECT_NE(all.find("propose_edit"), std::string::npos);
  EXPECT_NE(all.find("edit_id 1 ready"), std::string::npos) << "tool results are stored";
  EXPECT_EQ(store.accepted(kid).size(), 1u);
  auto final = store.final_result(kid);
  ASSERT_TRUE(final);
  EXPECT_EQ(final->candidate, cands[0].id);
  auto notes = store.notes(kid);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].author, "llm");
  auto calls = store.llm_calls();
  ASSERT_EQ(calls.size(), 6u);
  for (const auto& c : calls) {
    EXPECT_EQ(c.status, "ok");
    EXPECT_EQ(c.total_tokens, 120);
    EXPECT_EQ(c.model, "mock-model");
  }
  std::cout << "store: " << (dir / "db.sqlite").string() << "\n";
  std::cout << "outcome: " << k.baseline_cycles << " -> " << k.best_cycles << " modeled cycles (" << k.speedup() << "x), "
            << k.final_verdict << "\n";
}

TEST(AgentSession, MalformedCallsAndInvalidAssemblyComeBackAsToolErrors) {
  const Padded k0 = padded_vector_add();
  TempDir scratch("malformed");
  const fs::path dir = scratch.path;
  const int F = static_cast<int>(k0.nop_first);
  json script = {{"responses", json::array()}};
  auto& r = script["responses"];
  r.push_back(reply("Looking.", {call("b1", "show_window", "{\"first\": 12, "), call("b2", "optimize_everything", json::object())}));
  json r1 = reply("Try a replacement.", {call("b3", "propose_edit", {{"first", F}, {"last", F}, {"code", "v_bogus_op v1, v2"}, {"description", "x"}})});
  r1["expect"] = {{"tool_results",
                   {{{"id", "b1"}, {"contains", {"error: the arguments of show_window are not valid JSON"}}},
                    {{"id", "b2"}, {"contains", {"error: no tool named 'optimize_everything'"}}}}}};
  r.push_back(r1);
  json r2 = reply("Out of range, and an unknown id.",
                  {call("b4", "propose_edit", {{"first", 0}, {"last", 100000}, {"code", ""}, {"description", "x"}}),
                   call("b5", "evaluate", {{"edit_id", 99}})});
  r2["expect"] = {{"tool_results", {{{"id", "b3"}, {"contains", {"error: the edit does not apply or assemble"}}}}}};
  r.push_back(r2);
  json r3 = reply("Learn about the add and the kernel.",
                  {call("b6", "isa_help", {{"mnemonic", "v_add_f32_e32"}}), call("b7", "show_kernel_info", json::object()),
                   call("b8", "history", json::object()), call("b9", "isa_help", {{"mnemonic", "v_not_an_instruction"}})});
  r3["expect"] = {{"tool_results",
                   {{{"id", "b4"}, {"contains", {"are not inside the kernel"}}}, {{"id", "b5"}, {"contains", {"no pending edit 99"}}}}}};
  r.push_back(r3);
  // Failed proposals take no edit id: the v_sub edit is edit 1.
  json r4 = reply("A subtraction is cheaper? (It is wrong: the cascade must say why.)",
                  {call("b10", "show_window", {{"window", "0"}}), call("b11", "show_window", {{"window", "7"}}),
                   call("b12", "propose_edit", {{"first", F + 4}, {"last", F + 4}, {"code", "v_sub_f32_e32 v2, v6, v7"}, {"description", "sub"}}),
                   call("b13", "evaluate", {{"edit_id", 1}})});
  r4["expect"] = {{"tool_results",
                   {{{"id", "b6"}, {"contains", {"vector ALU", "VALU wave64", "f32"}}},
                    {{"id", "b7"}, {"contains", {"waves/SIMD", "vgprs allocated", "kernel descriptor"}}},
                    {{"id", "b8"}, {"contains", {"best so far: K0"}}},
                    {{"id", "b9"}, {"contains", {"no semantics"}}}}}};
  r.push_back(r4);
  json r5 = reply("Was it tried?", {call("b14", "history", json::object())});
  r5["expect"] = {{"tool_results",
                   {{{"id", "b10"}, {"contains", {"of the starting object (K0)", "| live "}}},
                    {{"id", "b11"}, {"contains", {"error: no window '7'"}}},
                    {{"id", "b12"}, {"contains", {"edit_id 1 ready", "+v_sub_f32_e32 v2, v6, v7"}}},
                    {{"id", "b13"}, {"contains", {"REJECTED at stage prove", "DISPROVEN", "prove    FAIL"}}, {"not_contains", {"ACCEPTED"}}}}}};
  r.push_back(r5);
  json r6 = reply("That is all I can do.");
  r6["expect"] = {{"tool_results", {{{"id", "b14"}, {"contains", {"rejected, grouped by cause", "x1 prove: DISPROVEN", "llm llm-edit: sub"}}}}}};
  r.push_back(r6);
  MockServer server(dir, script);
  AgentRun run = optimize_with_agent(dir / "db.sqlite", llm_options(server));
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 7u) << "the agent went on after every error";
  EXPECT_EQ(run.result.kernels.at(0).candidates_this_run, 1u) << "only the well-formed edit reached the cascade";
  EXPECT_NE(run.result.kernels.at(0).final_verdict.find("K0 kept"), std::string::npos);
  EXPECT_NE(joined(run.log).find("the model ended its session: That is all I can do."), std::string::npos) << joined(run.log);
}

TEST(AgentSession, RetriesHonourRetryAfterThenSucceed) {
  TempDir scratch("retry-ok");
  const fs::path dir = scratch.path;
  json script = {{"responses", json::array()}};
  auto& r = script["responses"];
  r.push_back({{"status", 429}, {"headers", {{"Retry-After", "1"}}}, {"body", {{"error", "rate limited"}}}});
  r.push_back({{"status", 500}, {"body", {{"error", "overloaded"}}}});
  r.push_back(reply("Nothing to do."));
  MockServer server(dir, script);
  const auto t0 = std::chrono::steady_clock::now();
  AgentRun run = optimize_with_agent(dir / "db.sqlite", llm_options(server));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_GE(s, 1.0) << "Retry-After: 1 was honoured";
  search::Store store((dir / "db.sqlite").string(), search::Store::Access::kReadOnly);
  auto calls = store.llm_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].status, "ok");
  EXPECT_EQ(calls[0].attempts, 3);
}

TEST(AgentSession, RetriesThenStopsGracefullyOnTimeouts) {
  TempDir scratch("retry-stop");
  const fs::path dir = scratch.path;
  json script = {{"responses", json::array()}};
  auto& r = script["responses"];
  r.push_back({{"status", 429}, {"headers", {{"Retry-After", "0"}}}, {"body", {{"error", "rate limited"}}}});
  r.push_back({{"status", 503}, {"body", {{"error", "unavailable"}}}});
  json slow = reply("too late");
  slow["delay"] = 4;
  r.push_back(slow);
  MockServer server(dir, script);
  agent::LlmOptions lo = llm_options(server);
  lo.timeout_s = 1;
  AgentRun run = optimize_with_agent(dir / "db.sqlite", lo);
  EXPECT_EQ(server.requests().size(), 3u) << "the first attempt and two retries";
  EXPECT_NE(joined(run.log).find("the endpoint gave up"), std::string::npos) << joined(run.log);
  EXPECT_NE(run.result.kernels.at(0).final_verdict.find("K0 kept"), std::string::npos);
  search::Store store((dir / "db.sqlite").string(), search::Store::Access::kReadOnly);
  auto calls = store.llm_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].status, "timeout");
  EXPECT_EQ(calls[0].attempts, 3);
}

TEST(AgentSession, BudgetOfCallsAndTokensStopsTheSession) {
  for (const char* cap : {"calls=2", "tokens=1000"}) {
    SCOPED_TRACE(cap);
    TempDir scratch(std::string("budget-") + cap[0]);
    const fs::path dir = scratch.path;
    json script = {{"responses", json::array()}};
    for (int i = 0; i < 5; ++i)
      script["responses"].push_back(reply("Looking again.", {call("w" + std::to_string(i), "list_windows", json::object())}, {500, 100}));
    MockServer server(dir, script);
    AgentRun run = optimize_with_agent(dir / "db.sqlite", llm_options(server), agent::LlmBudget::parse(cap));
    EXPECT_EQ(server.failures(), "");
    // calls=2: two calls. tokens=1000: 600 after the first call, 1200 after the second: no third.
    EXPECT_EQ(server.requests().size(), 2u);
    EXPECT_NE(joined(run.log).find("the LLM budget is spent"), std::string::npos) << joined(run.log);
    search::Store store((dir / "db.sqlite").string(), search::Store::Access::kReadOnly);
    EXPECT_EQ(store.llm_calls().size(), 2u);
  }
}

TEST(AgentSession, CompactsOlderTurnsIntoASummary) {
  const Padded k0 = padded_vector_add();
  TempDir scratch("compact");
  const fs::path dir = scratch.path;
  json script = {{"responses", json::array()}};
  auto& r = script["responses"];
  for (int i = 0; i < 6; ++i)
    r.push_back(reply("Reading the whole kernel again.",
                      {call("s" + std::to_string(i), "show_window",
                            {{"first", static_cast<int>(k0.kernel_first)}, {"last", static_cast<int>(k0.kernel_last)}})}));
  json last = reply("Done.");
  last["expect"] = {{"any_contains", {"were compacted to keep the context bounded", "Hot windows now"}}, {"max_messages", 8}};
  r.push_back(last);
  MockServer server(dir, script);
  agent::LlmOptions lo = llm_options(server);
  lo.context_tokens = 3000;
  AgentRun run = optimize_with_agent(dir / "db.sqlite", lo);
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 7u);
  EXPECT_NE(joined(run.log).find("compacted"), std::string::npos) << joined(run.log);
}

TEST(AgentSession, ResumesAfterSigkillKeepingTheAcceptedResultAndMemory) {
  const Padded k0 = padded_vector_add();
  TempDir scratch("resume");
  const fs::path dir = scratch.path;
  const fs::path db = dir / "db.sqlite";
  const int F = static_cast<int>(k0.nop_first);
  {
    json script = {{"responses", json::array()}};
    auto& r = script["responses"];
    r.push_back(reply("The s_nop 7 padding is needless; remove and evaluate.",
                      {call("k1", "propose_edit", {{"first", F}, {"last", F + 3}, {"code", ""}, {"description", "remove s_nop padding"}}),
                       call("k2", "evaluate", {{"edit_id", 1}})}));
    json r1 = reply("Remember it.", {call("k3", "note", {{"text", "padding removal accepted; try waitcnt next"}})});
    r1["expect"] = {{"tool_results", {{{"id", "k2"}, {"contains", {"ACCEPTED"}}}}}};
    r.push_back(r1);
    json hang = reply("never seen");
    hang["delay"] = 120;  // the child waits here until it is killed
    r.push_back(hang);
    fs::create_directories(dir / "s1");
    MockServer server(dir / "s1", script);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        agent::LlmOptions lo = llm_options(server);
        lo.timeout_s = 300;
        optimize_with_agent(db, lo);
      } catch (...) {
      }
      _exit(3);
    }
    // Wait until the child is blocked in its third request: the accept and the note are committed.
    bool ready = false;
    for (int i = 0; i < 1200 && !ready; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ready = server.requests().size() >= 3;
    }
    ASSERT_TRUE(ready) << server.failures();
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(server.failures(), "");
  }
  json script = {{"responses", json::array()}};
  json r0 = reply("The padding is gone already; nothing more to try.");
  r0["expect"] = {{"any_contains",
                   {"padding removal accepted; try waitcnt next", "Attempts so far", "remove s_nop padding", "Current best: candidate #1"}}};
  script["responses"].push_back(r0);
  fs::create_directories(dir / "s2");
  MockServer server(dir / "s2", script);
  AgentRun run = optimize_with_agent(db, llm_options(server), {}, /*resume=*/true);
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 1u);
  const auto& k = run.result.kernels.at(0);
  EXPECT_EQ(k.final_verdict, "EQUIVALENT") << joined(run.log);
  EXPECT_LT(k.best_cycles, k.baseline_cycles) << "the accepted result of the killed run is kept";
  EXPECT_EQ(k.accepted, 1u);
  search::Store store(db.string(), search::Store::Access::kReadOnly);
  auto runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, "running") << "the killed run never finished";
  EXPECT_EQ(runs[1].status, "finished");
}

TEST(AgentStore, LlmCallsTableIsAddedToStoresWrittenBeforeIt) {
  TempDir scratch("store");
  const fs::path dir = scratch.path;
  const std::string db = (dir / "old.sqlite").string();
  {
    search::Store s(db);
    s.begin_run("old", 1, "{}");
    // A store as asmevo wrote it before the agent: no llm_calls table.
    ASSERT_EQ(sqlite3_exec(s.handle(), "DROP TABLE llm_calls", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  {
    search::Store ro(db, search::Store::Access::kReadOnly);
    EXPECT_TRUE(ro.llm_calls().empty()) << "a read-only store without the table reads as no calls";
  }
  search::Store s(db);
  search::LlmCallRecord c;
  c.run = 1;
  c.model = "m";
  c.status = "ok";
  c.attempts = 2;
  c.prompt_tokens = 10;
  c.completion_tokens = 5;
  c.total_tokens = 15;
  s.add_llm_call(c);
  auto calls = s.llm_calls(1);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].total_tokens, 15);
  EXPECT_EQ(calls[0].attempts, 2);
  EXPECT_TRUE(s.llm_calls(2).empty());
}

TEST(AgentSession, WallTimeBudgetCutsAWaitingRequest) {
  TempDir scratch("budget-seconds");
  const fs::path dir = scratch.path;
  json script = {{"responses", json::array()}};
  json slow = reply("late", {call("x1", "list_windows", json::object())});
  // The reply would come after 60 s and the request would time out after 20 s (llm_options); the
  // 1 s budget must cut the wait before either. The 15 s bound leaves room for K0's setup
  // (references, timing), which takes seconds on a loaded machine.
  slow["delay"] = 60;
  script["responses"].push_back(slow);
  MockServer server(dir, script);
  const auto t0 = std::chrono::steady_clock::now();
  AgentRun run = optimize_with_agent(dir / "db.sqlite", llm_options(server), agent::LlmBudget::parse("seconds=1"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 15) << "the request was not allowed to outlast the budget";
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_NE(joined(run.log).find("wall-time budget ran out"), std::string::npos) << joined(run.log);
  search::Store store((dir / "db.sqlite").string(), search::Store::Access::kReadOnly);
  ASSERT_EQ(store.llm_calls().size(), 1u);
  EXPECT_EQ(store.llm_calls()[0].status, "timeout");
}

// `asmevo optimize` itself: the --llm-* options make the agent proposer; llm without an endpoint is
// an error before anything is written.
TEST(AgentCli, LlmOptionsReachTheOptimizerAndLlmWithoutEndpointIsAnError) {
  TempDir scratch("cli");
  const fs::path dir = scratch.path;
  const Padded k0 = padded_vector_add();
  write_file_atomic((dir / "padded.co").string(), k0.bytes);
  cli::OptimizeCommandOptions o;
  o.file = (dir / "padded.co").string();
  // Without the perf: list: at its 4M-element perf launch the padding is worth 0.6 % (below --min-gain).
  o.launches = {asmevo::testing::spec_without_perf(corpus::hip_spec("vector_add"))};
  o.output = (dir / "out.co").string();
  o.budget = 10;
  o.proposers = "llm";
  try {
    cli::run_optimize(o, "asmevo optimize");
    ADD_FAILURE() << "llm without --llm-url was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.what_text().find("the llm proposer needs an endpoint"), std::string::npos) << e.format();
  }
  EXPECT_FALSE(fs::exists(dir / "out.sqlite")) << "nothing is created before the options are checked";
  o.llm_model = "m";
  EXPECT_THROW(cli::run_optimize(o, "asmevo optimize"), Error) << "--llm-model without --llm-url";

  const int F = static_cast<int>(k0.nop_first);
  json script = {{"model", "cli-model"}, {"auth", "Bearer cli-key"}, {"responses", json::array()}};
  script["responses"].push_back(reply("Remove the padding.", {call("p1", "propose_edit", {{"first", F}, {"last", F + 3}, {"code", ""}, {"description", "remove s_nop padding"}}),
                                                              call("p2", "evaluate", {{"edit_id", 1}})}));
  json r1 = reply("Done.");
  r1["expect"] = {{"tool_results", {{{"id", "p2"}, {"contains", {"ACCEPTED"}}}}}};
  script["responses"].push_back(r1);
  MockServer server(dir, script);
  setenv("ASMEVO_AGENT_CLI_KEY", "cli-key", 1);
  o.llm_url = server.url();
  o.llm_model = "cli-model";
  o.llm_key_env = "ASMEVO_AGENT_CLI_KEY";
  o.llm_budget = "calls=10";
  o.llm_timeout_s = 30;
  o.llm_context = 8000;
  o.json = true;
  EXPECT_EQ(cli::run_optimize(o, "asmevo optimize"), kExitOk);
  EXPECT_EQ(server.failures(), "");
  EXPECT_EQ(server.requests().size(), 2u);
  ASSERT_TRUE(fs::exists(dir / "out.co"));
  auto out = codeobj::CodeObject::parse(read_file_bytes((dir / "out.co").string()), "out.co");
  EXPECT_LT(out.kernel("vector_add")->code_size, codeobj::CodeObject::parse(k0.bytes, "padded.co").kernel("vector_add")->code_size)
      << "the written object lost the padding";
  search::Store store((dir / "out.sqlite").string(), search::Store::Access::kReadOnly);
  auto cands = store.candidates(store.kernels().at(0).id);
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(cands[0].proposer, "llm");
  EXPECT_EQ(cands[0].verdict, "accepted");
  EXPECT_EQ(store.llm_calls().size(), 2u);
}
