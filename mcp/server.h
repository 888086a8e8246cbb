// The MCP server of `asmevo mcp` without its transport: one incoming JSON-RPC message in, at most
// one message out. It offers the agent's tools (agent/tools.h, the same implementation the LLM
// agent calls; stored as proposer "mcp") plus status and write_best, and two resources (the
// current best listing and its modeled profile). Every evaluate goes through the kernel session's
// cascade, store and budget (search::KernelSession), like the built-in proposers'.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "agent/tools.h"
#include "mcp/protocol.h"
#include "search/optimizer.h"
#include "search/store.h"

namespace asmevo::mcp {

struct ServerContext {
  search::KernelSession* kernel = nullptr;
  search::Store* store = nullptr;
  std::string input_path;  // the starting object (never written)
  std::string db_path;
  int64_t run = 0;
  size_t budget = 0;       // candidates of the kernel over resumed runs (0: none)
  std::function<void(const std::string&)> log;  // stderr
};

class Server {
 public:
  explicit Server(ServerContext context);
  // Requests get a response (a result or a JSON-RPC error); notifications and responses get none.
  // Never throws for anything a client sends.
  std::optional<nlohmann::json> handle(const nlohmann::json& message);

  bool initialized() const { return initialized_; }
  const std::string& protocol_version() const { return version_; }
  // The tool names and input schemas offered (tools/list), in order.
  const nlohmann::json& tools() const { return tools_; }

 private:
  nlohmann::json dispatch(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
  nlohmann::json initialize(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json list_tools() const;
  nlohmann::json call_tool(const nlohmann::json& id, const nlohmann::json& params);
  nlohmann::json list_resources() const;
  nlohmann::json read_resource(const nlohmann::json& id, const nlohmann::json& params);
  agent::ToolResult status();
  agent::ToolResult write_best(const nlohmann::json& args);
  nlohmann::json tool_result(const agent::ToolResult& r) const;
  std::string transcript() const;
  void log(const std::string& line) const {
    if (ctx_.log) ctx_.log(line);
  }

  ServerContext ctx_;
  agent::Toolbox toolbox_{"mcp"};
  nlohmann::json tools_ = nlohmann::json::array();  // [{name, description, inputSchema, annotations}]
  bool initialized_ = false;
  std::string version_ = kLatestVersion;
  std::string client_ = "unknown client";
  nlohmann::json entries_ = nlohmann::json::array();  // tool calls since the last evaluate (the transcript)
  nlohmann::json last_written_;                       // what write_best wrote last (null before)
};

}  // namespace asmevo::mcp
