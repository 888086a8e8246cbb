// asmevo mcp (issue 19) end to end, through a scripted client that runs the server as a child
// process on pipes (mcp_client.h): a full session that finds, verifies and writes a speedup on the
// corpus kernel Triton vector_add_kernel (gfx942); malformed and unknown messages; revision
// negotiation; cancellation; SIGTERM and resume; and the official MCP TypeScript SDK client.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "corpus/index/corpus.h"
#include "search/store.h"
#include "support/file_io.h"
#include "tests/mcp/mcp_client.h"
#include "tests/support/corpus_files.h"

namespace fs = std::filesystem;
using asmevo::testing::McpProcess;
using asmevo::testing::result_text;
using nlohmann::json;

namespace {

const std::string kKernel = "vector_add_kernel";
std::string k0_path() { return asmevo::corpus::triton_object("gfx942", kKernel); }
// The spec's small launches only: the swap below is a win there (1.034x), but on the spec's perf
// launch (4M elements) it is worth 1.002x, under --min-gain, as issue 14 expects of such edits.
std::string spec_path() { return asmevo::testing::spec_without_perf(asmevo::corpus::triton_spec(kKernel)); }

// The first of two adjacent loads whose swap the optimizer's stochastic-swap move finds to be a
// verified modeled speedup (1938 -> 1874 cycles when this was written): the client proposes it.
const std::string kLoadA = "buffer_load_dword v7, v3, s[12:15], 0 offen";
const std::string kLoadB = "buffer_load_dword v8, v0, s[4:7], 0 offen";

struct Session {
  fs::path dir;
  explicit Session(const std::string& name) : dir(asmevo::testing::scratch_dir("mcp", name)) {}
  std::string path(const std::string& f) const { return (dir / f).string(); }
  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"mcp", "--db", path("run.sqlite"), k0_path(), "--launch", spec_path()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::unique_ptr<McpProcess> start(std::vector<std::string> extra = {}) const {
    return std::make_unique<McpProcess>(ASMEVO_CLI, args(std::move(extra)), path("server.log"));
  }
};

const json& structured(const json& response) {
  static const json none = json::object();
  return response.contains("result") && response["result"].contains("structuredContent") ? response["result"]["structuredContent"] : none;
}
bool is_error_result(const json& response) { return response.value("result", json::object()).value("isError", false); }
int error_code(const json& response) { return response.value("error", json::object()).value("code", 0); }

// Proposes the swap of the two loads on the current best; returns the edit_id (0 on failure).
int64_t propose_swap(McpProcess& mcp) {
  json shown = mcp.call_tool("show_window", {{"window", "0"}});
  const json& lines = structured(shown).value("lines", json::array());
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i]["text"] == kLoadA && lines[i + 1]["text"] == kLoadB) {
      const int64_t first = lines[i]["line"];
      json r = mcp.call_tool("propose_edit", {{"first", first}, {"last", first + 1}, {"code", kLoadB + "\n" + kLoadA},
                                              {"description", "issue the load of the other operand first"}});
      EXPECT_FALSE(is_error_result(r)) << result_text(r);
      return structured(r).value("edit_id", int64_t{0});
    }
  ADD_FAILURE() << "the window does not show the two loads:\n" << result_text(shown);
  return 0;
}

}  // namespace

TEST(McpSession, FindsVerifiesAndWritesASpeedupThroughTheTools) {
  Session s("full");
  auto mcp = s.start();
  json init = mcp->initialize();
  ASSERT_TRUE(init.contains("result")) << init.dump() << mcp->log();
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "asmevo");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  EXPECT_NE(init["result"]["instructions"].get<std::string>().find("write_best"), std::string::npos);

  json tools = mcp->request("tools/list");
  std::vector<std::string> names;
  for (const json& t : tools["result"]["tools"]) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t.dump();
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"list_windows", "show_window", "show_kernel_info", "isa_help", "propose_edit", "evaluate",
                                             "history", "note", "status", "write_best"}));

  json windows = mcp->call_tool("list_windows");
  ASSERT_FALSE(is_error_result(windows)) << result_text(windows);
  EXPECT_FALSE(structured(windows)["windows"].empty());
  const double k0_cycles = structured(windows)["best"]["cycles"];
  EXPECT_GT(k0_cycles, 0);
  json info = mcp->call_tool("show_kernel_info");
  EXPECT_EQ(structured(info)["modeled"]["cycles"], k0_cycles) << result_text(info);
  json isa = mcp->call_tool("isa_help", {{"mnemonic", "buffer_load_dword"}});
  EXPECT_EQ(structured(isa)["counters"], json::array({"vmcnt"})) << result_text(isa);

  const int64_t edit = propose_swap(*mcp);
  ASSERT_GT(edit, 0);
  json ev = mcp->call_tool("evaluate", {{"edit_id", edit}});
  ASSERT_FALSE(is_error_result(ev)) << result_text(ev);
  EXPECT_EQ(structured(ev)["verdict"], "accepted") << result_text(ev);
  EXPECT_GT(structured(ev).value("speedup_vs_k0", 0.0), 1.01) << result_text(ev);
  std::set<std::string> passed;
  for (const json& st : structured(ev)["stages"])
    if (st["ok"] == true) passed.insert(st["stage"].get<std::string>());
  EXPECT_TRUE(passed.count("verify") && passed.count("static") && passed.count("rebuild")) << result_text(ev);
  EXPECT_NE(result_text(ev).find("Line numbers have changed"), std::string::npos);
  // The same edit id is now void (its parent is no longer the best).
  EXPECT_TRUE(is_error_result(mcp->call_tool("evaluate", {{"edit_id", edit}})));

  json st = mcp->call_tool("status");
  EXPECT_EQ(structured(st)["accepted"], 1);
  EXPECT_EQ(structured(st)["candidates_this_session"], 1);
  EXPECT_EQ(structured(st)["best"]["candidate"], structured(ev)["candidate"]);
  EXPECT_NE(mcp->call_tool("history").dump().find("mcp-edit"), std::string::npos);
  EXPECT_FALSE(is_error_result(mcp->call_tool("note", {{"text", "loads of y first helps"}})));

  // Resources: the best listing now issues B before A.
  json res = mcp->request("resources/list");
  ASSERT_EQ(res["result"]["resources"].size(), 2u) << res.dump();
  json listing = mcp->request("resources/read", {{"uri", "asmevo://best/listing"}});
  const std::string text = listing["result"]["contents"][0]["text"];
  ASSERT_NE(text.find(kLoadA), std::string::npos);
  EXPECT_LT(text.find(kLoadB), text.find(kLoadA));
  json profile = mcp->request("resources/read", {{"uri", "asmevo://best/profile"}});
  json prof = json::parse(profile["result"]["contents"][0]["text"].get<std::string>());
  EXPECT_EQ(prof["figures"], "modeled");
  EXPECT_LT(prof["cycles"].get<double>(), k0_cycles);

  json written = mcp->call_tool("write_best", {{"path", s.path("best.co")}});
  ASSERT_FALSE(is_error_result(written)) << result_text(written);
  EXPECT_EQ(structured(written)["verdict"], "EQUIVALENT");
  EXPECT_EQ(structured(written)["candidate"], structured(ev)["candidate"]);
  EXPECT_TRUE(is_error_result(mcp->call_tool("write_best", {{"path", k0_path()}}))) << "the input is never overwritten";
  ASSERT_TRUE(fs::exists(s.path("best.co")));
  EXPECT_TRUE(fs::exists(s.path("best.html")));
  EXPECT_NE(asmevo::read_file_bytes(s.path("best.co")), asmevo::read_file_bytes(k0_path()));

  mcp->close_stdin();
  EXPECT_EQ(mcp->wait(), 0) << mcp->log();
  EXPECT_FALSE(mcp->next(1)) << "nothing after the last response";
  EXPECT_TRUE(mcp->other.empty()) << mcp->other.front().dump();

  // The store holds the session like an optimize run: proposer mcp, the transcript, the final result.
  asmevo::search::Store store(s.path("run.sqlite"), asmevo::search::Store::Access::kReadOnly);
  ASSERT_EQ(store.kernels().size(), 1u);
  const auto cands = store.candidates(store.kernels()[0].id);
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(cands[0].proposer, "mcp");
  EXPECT_EQ(cands[0].move, "mcp-edit");
  EXPECT_EQ(cands[0].verdict, "accepted");
  json transcript = json::parse(cands[0].transcript);
  EXPECT_EQ(transcript["schema"], "asmevo.transcript/1");
  EXPECT_NE(transcript.dump().find("propose_edit"), std::string::npos);
  EXPECT_EQ(store.runs().back().status, "finished");
  ASSERT_TRUE(store.final_result(store.kernels()[0].id));
  EXPECT_EQ(store.final_result(store.kernels()[0].id)->verdict, "EQUIVALENT");
  std::string out;
  EXPECT_EQ(asmevo::testing::run_shell(std::string(ASMEVO_CLI) + " verify " + k0_path() + " " + s.path("best.co") + " --launch " + spec_path(), &out), 0)
      << out;
}

TEST(McpSession, BadMessagesGetJsonRpcErrorsAndTheServerGoesOn) {
  Session s("errors");
  auto mcp = s.start();
  EXPECT_EQ(error_code(mcp->request("tools/list")), -32600) << "before initialize";
  mcp->send_line("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ");  // cut short
  auto parse = mcp->next();
  ASSERT_TRUE(parse);
  EXPECT_EQ(error_code(*parse), -32700);
  EXPECT_TRUE((*parse)["id"].is_null());
  mcp->send_line("[{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"ping\"}]");
  EXPECT_EQ(error_code(*mcp->next()), -32600) << "batches are not MCP";
  mcp->send({{"jsonrpc", "1.0"}, {"id", 9}, {"method", "ping"}});
  auto old = mcp->next();
  EXPECT_EQ(error_code(*old), -32600);
  EXPECT_EQ((*old)["id"], 9);
  mcp->send({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}});
  EXPECT_EQ(error_code(*mcp->next()), -32600) << "a null id";
  EXPECT_EQ(error_code(mcp->request("initialize", {{"capabilities", json::object()}})), -32602) << "no protocolVersion";

  ASSERT_TRUE(mcp->initialize().contains("result"));
  EXPECT_EQ(error_code(mcp->request("initialize", {{"protocolVersion", "2025-11-25"}})), -32600) << "twice";
  EXPECT_EQ(error_code(mcp->request("prompts/list")), -32601);
  EXPECT_EQ(error_code(mcp->request("tools/call", {{"arguments", json::object()}})), -32602);
  json unknown = mcp->request("tools/call", {{"name", "optimize_everything"}, {"arguments", json::object()}});
  EXPECT_EQ(error_code(unknown), -32602);
  EXPECT_NE(unknown.dump().find("list_windows"), std::string::npos) << "the error names the tools";
  EXPECT_EQ(error_code(mcp->request("tools/call", {{"name", "status"}, {"arguments", 3}})), 0) << "2025-11-25: a tool error";
  EXPECT_EQ(error_code(mcp->request("resources/read", {{"uri", "asmevo://nothing"}})), -32002);
  mcp->send({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}});  // ignored, no answer
  EXPECT_TRUE(mcp->request("ping").contains("result"));

  // Arguments that do not match the schema: tool errors the model can read (SEP-1303).
  json wrong_type = mcp->call_tool("show_window", {{"window", 0}});
  EXPECT_TRUE(is_error_result(wrong_type));
  EXPECT_NE(result_text(wrong_type).find("must be of type string"), std::string::npos) << result_text(wrong_type);
  json missing = mcp->call_tool("propose_edit", {{"first", 40}, {"last", 41}, {"description", "x"}});
  EXPECT_NE(result_text(missing).find("missing required argument 'code'"), std::string::npos) << result_text(missing);
  EXPECT_TRUE(is_error_result(mcp->call_tool("list_windows", {{"verbose", true}}))) << "additionalProperties: false";
  // Arguments that match but make no sense: the tool's own error.
  json bogus = mcp->call_tool("propose_edit", {{"first", 40}, {"last", 40}, {"code", "v_bogus_op v1, v2"}, {"description", "x"}});
  EXPECT_TRUE(is_error_result(bogus));
  EXPECT_NE(result_text(bogus).find("does not apply or assemble"), std::string::npos) << result_text(bogus);
  EXPECT_TRUE(is_error_result(mcp->call_tool("evaluate", {{"edit_id", 999}})));
  EXPECT_TRUE(is_error_result(mcp->call_tool("show_window", {{"first", 0}, {"last", 100000}})));
  // Still serving.
  json windows = mcp->call_tool("list_windows");
  EXPECT_FALSE(is_error_result(windows)) << windows.dump();
  EXPECT_FALSE(structured(windows)["windows"].empty());

  mcp->signal(SIGTERM);
  EXPECT_EQ(mcp->wait(), 0) << mcp->log();
  EXPECT_NE(mcp->log().find("interrupted"), std::string::npos) << mcp->log();
}

TEST(McpSession, NegotiatesTheRevisionTheClientAsksFor) {
  Session s("versions");
  {
    auto mcp = s.start({"--resume"});
    EXPECT_EQ(mcp->initialize("2025-06-18")["result"]["protocolVersion"], "2025-06-18");
    json r = mcp->call_tool("list_windows");
    EXPECT_TRUE(r["result"].contains("structuredContent"));
    EXPECT_EQ(error_code(mcp->call_tool("show_window", {{"window", 0}})), -32602) << "before 2025-11-25: a protocol error";
  }
  {
    auto mcp = s.start({"--resume"});
    EXPECT_EQ(mcp->initialize("2024-11-05")["result"]["protocolVersion"], "2024-11-05");
    json r = mcp->call_tool("list_windows");
    EXPECT_FALSE(result_text(r).empty());
    EXPECT_FALSE(r["result"].contains("structuredContent")) << "2024-11-05 has no structured results";
  }
  {
    auto mcp = s.start({"--resume"});
    EXPECT_EQ(mcp->initialize("1999-01-01")["result"]["protocolVersion"], "2025-11-25") << "unknown: the latest";
  }
}

TEST(McpSession, ACancelledRequestIsNotRunAndNotAnswered) {
  Session s("cancel");
  auto mcp = s.start();
  ASSERT_TRUE(mcp->initialize().contains("result"));
  const int64_t edit = propose_swap(*mcp);
  ASSERT_GT(edit, 0);
  // evaluate (100) runs for a while; note (101) waits behind it and is cancelled before it starts.
  mcp->send_line(json{{"jsonrpc", "2.0"}, {"id", 100}, {"method", "tools/call"}, {"params", {{"name", "evaluate"}, {"arguments", {{"edit_id", edit}}}}}}.dump() + "\n" +
                 json{{"jsonrpc", "2.0"}, {"id", 101}, {"method", "tools/call"}, {"params", {{"name", "note"}, {"arguments", {{"text", "cancelled note"}}}}}}.dump() + "\n" +
                 json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 101}, {"reason", "test"}}}}.dump());
  json after = mcp->call_tool("status");
  EXPECT_FALSE(is_error_result(after));
  std::set<int64_t> answered;
  for (const json& m : mcp->other) answered.insert(m.value("id", int64_t{-1}));
  EXPECT_TRUE(answered.count(100)) << "the evaluate was answered";
  EXPECT_FALSE(answered.count(101)) << "the cancelled request got an answer";
  EXPECT_EQ(structured(after)["accepted"], 1);
  mcp->close_stdin();
  EXPECT_EQ(mcp->wait(), 0);
  asmevo::search::Store store(s.path("run.sqlite"), asmevo::search::Store::Access::kReadOnly);
  EXPECT_TRUE(store.notes(store.kernels()[0].id).empty()) << "the cancelled note was not run";
}

TEST(McpSession, SigtermEndsTheSessionAndResumeContinuesTheStore) {
  Session s("resume");
  {
    auto mcp = s.start({"--budget", "2"});
    ASSERT_TRUE(mcp->initialize().contains("result"));
    const int64_t edit = propose_swap(*mcp);
    EXPECT_EQ(structured(mcp->call_tool("evaluate", {{"edit_id", edit}}))["verdict"], "accepted");
    mcp->signal(SIGTERM);
    EXPECT_EQ(mcp->wait(), 0) << mcp->log();
  }
  {
    asmevo::search::Store store(s.path("run.sqlite"), asmevo::search::Store::Access::kReadOnly);
    EXPECT_EQ(store.runs().back().status, "interrupted");
  }
  std::string out;
  EXPECT_EQ(asmevo::testing::run_shell(std::string(ASMEVO_CLI) + " mcp --db " + s.path("run.sqlite") + " " + k0_path() + " --launch " +
                                          spec_path() + " < /dev/null",
                                      &out),
            2)
      << out;
  EXPECT_NE(out.find("--resume"), std::string::npos) << out;
  {
    auto mcp = s.start({"--resume", "--budget", "2"});
    ASSERT_TRUE(mcp->initialize().contains("result"));
    json st = mcp->call_tool("status");
    EXPECT_EQ(structured(st)["accepted"], 1) << result_text(st);
    EXPECT_EQ(structured(st)["candidates"], 1);
    EXPECT_EQ(structured(st)["budget_left"], 1);
    EXPECT_NE(structured(st)["best"]["candidate"], 0) << "the accepted candidate is the best again";
    // One candidate left: a deletion of the first load (wrong) is evaluated and rejected, then the budget is spent.
    json shown = mcp->call_tool("show_window", {{"window", "0"}});
    int64_t line = 0;
    for (const json& l : structured(shown)["lines"])
      if (l["text"] == kLoadA) line = l["line"];
    ASSERT_GT(line, 0);
    json p1 = mcp->call_tool("propose_edit", {{"first", line}, {"last", line}, {"code", ""}, {"description", "drop a load"}});
    json p2 = mcp->call_tool("propose_edit", {{"first", line}, {"last", line}, {"code", "s_nop 0\n" + kLoadA}, {"description", "pad"}});
    EXPECT_EQ(structured(mcp->call_tool("evaluate", {{"edit_id", structured(p1)["edit_id"]}}))["verdict"], "rejected");
    json spent = mcp->call_tool("evaluate", {{"edit_id", structured(p2)["edit_id"]}});
    EXPECT_TRUE(is_error_result(spent));
    EXPECT_NE(result_text(spent).find("budget"), std::string::npos) << result_text(spent);
    mcp->close_stdin();
    EXPECT_EQ(mcp->wait(), 0);
  }
}

TEST(McpSdk, OfficialTypeScriptClientListsToolsAndCallsOne) {
  const std::string client_dir = std::string(ASMEVO_SOURCE_DIR) + "/tools/mcp-client";
  std::string node = ASMEVO_NODE;
  ASSERT_FALSE(node.empty()) << "Node.js is missing: install it with `sudo apt-get install -y nodejs npm` (or run scripts/setup.sh), then "
                                "`cd tools/mcp-client && npm ci` and re-run cmake";
  ASSERT_TRUE(fs::exists(client_dir + "/node_modules/@modelcontextprotocol/sdk/package.json"))
      << "the MCP TypeScript SDK is missing: run scripts/setup.sh (it runs `npm ci` in tools/mcp-client)";
  Session s("sdk");
  std::string cmd = node + " " + client_dir + "/sdk_session.mjs " + s.path("seen.json") + " " + ASMEVO_CLI;
  for (const std::string& a : s.args()) cmd += " '" + a + "'";
  std::string log;  // the client's and the server's stderr
  ASSERT_EQ(asmevo::testing::run_shell(cmd, &log), 0) << log;
  std::ifstream in(s.path("seen.json"));
  json seen = json::parse(in);
  std::set<std::string> names;
  for (const json& t : seen["tools"]) names.insert(t["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"list_windows", "show_window", "show_kernel_info", "isa_help", "propose_edit", "evaluate", "history",
                                          "note", "status", "write_best"}));
  EXPECT_EQ(seen["server"]["name"], "asmevo");
  EXPECT_FALSE(seen["list_windows"]["isError"].get<bool>());
  EXPECT_NE(seen["list_windows"]["text"].get<std::string>().find("Hot windows"), std::string::npos);
  EXPECT_FALSE(seen["list_windows"]["structured"]["windows"].empty());
  EXPECT_EQ(seen["status"]["structured"]["kernel"], kKernel);
  EXPECT_EQ(seen["resources"], json::array({"asmevo://best/listing", "asmevo://best/profile"}));
  EXPECT_GT(seen["listing_chars"].get<int>(), 100);
}
