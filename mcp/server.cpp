#include "mcp/server.h"

#include <fmt/format.h>

#include <filesystem>

#include "agent/prompts.h"
#include "mcp/arguments.h"
#include "search/cascade.h"
#include "search/report.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::mcp {
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Tools that only read: clients may call them without asking the user (MCP tool annotations).
bool read_only_tool(const std::string& name) {
  return name == "list_windows" || name == "show_window" || name == "show_kernel_info" || name == "isa_help" || name == "history" ||
         name == "status";
}

std::string clip(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n) + " ...[clipped]" : s; }

const char* kListingUri = "asmevo://best/listing";
constexpr size_t kMaxTranscriptEntries = 200;  // a client that never evaluates must not grow the next transcript without bound
const char* kProfileUri = "asmevo://best/profile";

}  // namespace

Server::Server(ServerContext context) : ctx_(std::move(context)) {
  // One source for the schemas: the agent's tool file, plus the two tools only MCP offers.
  for (const char* file : {"tools-", "mcp-tools-"})
    for (const json& t : json::parse(agent::prompt(std::string(file) + agent::kPromptVersion + ".json"))) {
      const json& f = t.at("function");
      const std::string name = f.at("name");
      require_supported_schema(name, f.at("parameters"));
      json annotations = {{"readOnlyHint", read_only_tool(name)}, {"destructiveHint", false}, {"openWorldHint", false}};
      if (!read_only_tool(name)) annotations["idempotentHint"] = false;
      tools_.push_back({{"name", name}, {"description", f.at("description")}, {"inputSchema", f.at("parameters")}, {"annotations", annotations}});
    }
  toolbox_.transcript = [this] { return transcript(); };
}

std::optional<json> Server::handle(const json& message) {
  const Message m = classify(message);
  switch (m.kind) {
    case Message::Invalid:
      log("mcp: invalid message: " + m.problem);
      return make_error(m.id, kInvalidRequest, "Invalid Request: " + m.problem);
    case Message::Response:
      return std::nullopt;  // this server sends no requests; a stray response is dropped
    case Message::Notification:
      if (m.method == "notifications/initialized") {
        if (!initialized_) log("mcp: notifications/initialized before initialize (ignored)");
      } else if (m.method != "notifications/cancelled") {  // cancellation: the transport (mcp/stdio.h)
        log("mcp: notification " + m.method + " ignored");
      }
      return std::nullopt;
    case Message::Request:
      break;
  }
  try {
    return dispatch(m.id, m.method, m.params);
  } catch (const Error& e) {
    return make_error(m.id, kInternalError, "Internal error: " + e.what_text(), e.fix().empty() ? json() : json(e.fix()));
  } catch (const std::exception& e) {
    return make_error(m.id, kInternalError, std::string("Internal error: ") + e.what());
  }
}

json Server::dispatch(const json& id, const std::string& method, const json& params) {
  if (method == "ping") return make_result(id, json::object());
  if (method == "initialize") return initialize(id, params);
  if (!initialized_)
    return make_error(id, kInvalidRequest, "Invalid Request: the session is not initialized; send initialize first");
  if (method == "tools/list") return make_result(id, list_tools());
  if (method == "tools/call") return call_tool(id, params);
  if (method == "resources/list") return make_result(id, list_resources());
  if (method == "resources/templates/list") return make_result(id, {{"resourceTemplates", json::array()}});
  if (method == "resources/read") return read_resource(id, params);
  return make_error(id, kMethodNotFound, "Method not found: " + method,
                    "asmevo mcp serves initialize, ping, tools/list, tools/call, resources/list, resources/templates/list, resources/read");
}

json Server::initialize(const json& id, const json& params) {
  if (initialized_) return make_error(id, kInvalidRequest, "Invalid Request: initialize was already received");
  if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string())
    return make_error(id, kInvalidParams, "Invalid params: initialize needs a string protocolVersion",
                      json{{"supported", kSupportedVersions}});
  version_ = negotiate_version(params["protocolVersion"].get<std::string>());
  if (params.contains("clientInfo") && params["clientInfo"].is_object())
    client_ = params["clientInfo"].value("name", std::string("unknown client")) + " " + params["clientInfo"].value("version", std::string());
  initialized_ = true;
  log(fmt::format("mcp: initialized by {} (asked for {}, speaking {})", client_, params["protocolVersion"].get<std::string>(), version_));
  return make_result(id, {{"protocolVersion", version_},
                          {"capabilities", {{"tools", {{"listChanged", false}}}, {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
                          {"serverInfo", {{"name", "asmevo"}, {"title", "AsmEvo"}, {"version", ASMEVO_VERSION}}},
                          {"instructions", agent::prompt(std::string("mcp-instructions-") + agent::kPromptVersion + ".md")}});
}

json Server::list_tools() const { return {{"tools", tools_}}; }

json Server::tool_result(const agent::ToolResult& r) const {
  json out = {{"content", json::array({{{"type", "text"}, {"text", r.text}}})}, {"isError", r.error}};
  // Revisions are dates (YYYY-MM-DD), so they compare as strings.
  if (version_ >= "2025-06-18") out["structuredContent"] = r.data.is_object() ? r.data : json{{"value", r.data}};
  return out;
}

json Server::call_tool(const json& id, const json& params) {
  if (!params.contains("name") || !params["name"].is_string()) return make_error(id, kInvalidParams, "Invalid params: tools/call needs a string name");
  const std::string name = params["name"];
  const json* schema = nullptr;
  for (const json& t : tools_)
    if (t["name"] == name) schema = &t["inputSchema"];
  if (!schema) {
    std::string all;
    for (const json& t : tools_) all += (all.empty() ? "" : ", ") + t["name"].get<std::string>();
    return make_error(id, kInvalidParams, "Unknown tool: " + name, "the tools are " + all);
  }
  const json args = params.contains("arguments") && !params["arguments"].is_null() ? params["arguments"] : json::object();
  if (std::string bad = check_arguments(*schema, args); !bad.empty()) {
    log(fmt::format("mcp: {} refused: {}", name, bad));
    // 2025-11-25 (SEP-1303): a model sees tool errors and can correct itself; earlier revisions
    // call bad arguments a protocol error.
    if (version_ >= "2025-11-25") return make_result(id, tool_result(agent::ToolResult("error: " + name + ": " + bad)));
    return make_error(id, kInvalidParams, "Invalid params: " + name + ": " + bad);
  }
  agent::ToolResult r("");
  const std::string call_id = id.is_string() ? id.get<std::string>() : id.dump();
  if (name == "status" || name == "write_best") {
    try {
      r = name == "status" ? status() : write_best(args);
    } catch (const Error& e) {
      r = agent::ToolResult("error: " + e.what_text() + (e.fix().empty() ? "" : " (" + e.fix() + ")"));
    }
  } else {
    search::AgentTurn turn = ctx_.kernel->turn();
    toolbox_.evaluations_this_turn = 0;  // the budget is counted by the session (turn.budget_left)
    // The transcript of a candidate: the calls since the previous evaluate, up to its own call.
    entries_.push_back({{"role", "assistant"}, {"content", ""}, {"tool_calls", json::array({{{"id", call_id}, {"name", name}, {"arguments", args.dump()}}})}});
    r = toolbox_.run(name, args, turn);
    if (r.evaluated) entries_ = json::array();
    else entries_.push_back({{"role", "tool"}, {"tool_call_id", call_id}, {"name", name}, {"content", clip(r.text, 4000)}});
    if (entries_.size() > kMaxTranscriptEntries) entries_.erase(entries_.begin(), entries_.begin() + 2);  // the oldest call and its result
  }
  log(fmt::format("mcp: {} {} -> {}", name, clip(args.dump(), 120), clip(r.text.substr(0, r.text.find('\n')), 160)));
  return make_result(id, tool_result(r));
}

std::string Server::transcript() const {
  json j = {{"schema", "asmevo.transcript/1"}, {"prompts", std::string("mcp-") + agent::kPromptVersion}, {"model", "mcp client: " + client_},
            {"compactions", 0}, {"entries", entries_}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

agent::ToolResult Server::status() {
  const search::KernelOutcome o = ctx_.kernel->outcome();
  search::AgentTurn turn = ctx_.kernel->turn();
  const search::Individual& best = turn.best();
  json d = {{"kernel", o.kernel}, {"input", ctx_.input_path}, {"db", ctx_.db_path}, {"run", ctx_.run}, {"protocol", version_},
            {"figures", "modeled"}, {"candidates", o.candidates}, {"candidates_this_session", o.candidates_this_run},
            {"budget", ctx_.budget}, {"accepted", o.accepted}, {"patch_mode", o.patch_mode},
            {"baseline_cycles", o.baseline_cycles}, {"best", {{"candidate", best.id}, {"cycles", best.cycles}, {"speedup", o.baseline_cycles / best.cycles}}},
            {"last_written", last_written_}};
  d["budget_left"] = turn.budget_left == SIZE_MAX ? json() : json(turn.budget_left);
  std::string s = fmt::format("kernel {} of {} (experiment store {}, run {}); figures are modeled\n", o.kernel, ctx_.input_path, ctx_.db_path, ctx_.run);
  s += fmt::format("candidates: {} this session, {} in all of {}{}; accepted {}\n", o.candidates_this_run, o.candidates,
                   ctx_.budget ? std::to_string(ctx_.budget) : std::string("no limit"),
                   turn.budget_left == SIZE_MAX ? "" : fmt::format(" ({} left)", turn.budget_left), o.accepted);
  s += fmt::format("best: {} at {:.0f} modeled cycles, {:.3f}x vs K0's {:.0f}{}\n",
                   best.id ? fmt::format("candidate #{}", best.id) : std::string("the starting object (K0)"), best.cycles,
                   o.baseline_cycles / best.cycles, o.baseline_cycles, o.patch_mode ? " (in-place patches only: K0 does not rebuild exactly)" : "");
  if (!last_written_.is_null())
    s += fmt::format("last written: {} ({})\n", last_written_["path"].get<std::string>(), last_written_["verdict"].get<std::string>());
  return {s, d};
}

agent::ToolResult Server::write_best(const json& args) {
  const std::string path = args["path"];
  if (path.empty()) return "error: write_best needs a non-empty path";
  const std::string report = args.contains("report") ? args["report"].get<std::string>() : fs::path(path).replace_extension(".html").string();
  std::error_code ec;
  for (const std::string& p : {path, report})
    if (fs::exists(p, ec) && (fs::equivalent(p, ctx_.input_path, ec) || fs::equivalent(p, ctx_.db_path, ec)))
      return "error: " + p + " is the input object or the experiment store; write elsewhere";
  if (path == report) return "error: path and report must differ";
  search::KernelSession::Final f = ctx_.kernel->finish();
  try {
    write_file_atomic(path, f.bytes);
    search::write_report(ctx_.db_path, report);
  } catch (const Error& e) {
    return "error: " + e.what_text() + (e.fix().empty() ? "" : " (" + e.fix() + ")");
  }
  const search::KernelOutcome o = ctx_.kernel->outcome();
  const double speedup = o.baseline_cycles / f.cycles;
  json d = {{"path", fs::absolute(path).string()}, {"report", fs::absolute(report).string()}, {"candidate", f.candidate ? json(*f.candidate) : json()},
            {"verdict", f.verdict}, {"cycles", f.cycles}, {"microseconds", f.us}, {"baseline_cycles", o.baseline_cycles},
            {"speedup", speedup}, {"figures", "modeled"}, {"verification", f.report}};
  last_written_ = {{"path", d["path"]}, {"candidate", d["candidate"]}, {"verdict", f.verdict}, {"speedup", speedup}};
  std::string s;
  if (f.candidate)
    s = fmt::format("wrote {}: candidate #{}, re-verified from scratch with fresh seeds: {}; {:.0f} modeled cycles, {:.3f}x vs K0 "
                    "(modeled, not measured)\n",
                    path, *f.candidate, f.verdict, f.cycles, speedup);
  else
    s = fmt::format("wrote {}: the starting object unchanged — {}\n", path, f.verdict);
  if (f.report.contains("summary")) s += "verification: " + f.report["summary"].get<std::string>() + "\n";
  s += "report: " + report + "\n";
  return {s, d};
}

json Server::list_resources() const {
  return {{"resources",
           {{{"uri", kListingUri}, {"name", "best-listing"}, {"title", "Listing of the current best kernel"}, {"mimeType", "text/plain"},
             {"description", "The kernel's assembly as AsmEvo recovered it from the current best candidate (K0 until an edit is accepted)"}},
            {{"uri", kProfileUri}, {"name", "best-profile"}, {"title", "Modeled profile of the current best kernel"}, {"mimeType", "application/json"},
             {"description", "Modeled cycles per instruction, hot windows and totals of the current best (AsmEvo's timing model, not a measurement)"}}}}};
}

json Server::read_resource(const json& id, const json& params) {
  if (!params.contains("uri") || !params["uri"].is_string()) return make_error(id, kInvalidParams, "Invalid params: resources/read needs a string uri");
  const std::string uri = params["uri"];
  search::AgentTurn turn = ctx_.kernel->turn();
  const search::Individual& best = turn.best();
  if (uri == kListingUri)
    return make_result(id, {{"contents", {{{"uri", uri}, {"mimeType", "text/plain"}, {"text", search::kernel_listing(*best.program, turn.kernel)}}}}});
  if (uri == kProfileUri) {
    json p = {{"schema", "asmevo.mcp-profile/1"}, {"figures", "modeled"}, {"kernel", turn.kernel}, {"candidate", best.id},
              {"cycles", best.cycles}, {"baseline_cycles", turn.baseline_cycles}, {"windows", agent::Toolbox::windows_json(turn)},
              {"lines", json::parse(search::per_line_json(best, turn.kernel))}};
    return make_result(id, {{"contents", {{{"uri", uri}, {"mimeType", "application/json"}, {"text", p.dump(-1, ' ', false, json::error_handler_t::replace)}}}}});
  }
  return make_error(id, kResourceNotFound, "Resource not found", json{{"uri", uri}});
}

}  // namespace asmevo::mcp
