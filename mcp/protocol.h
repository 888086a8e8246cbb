// The Model Context Protocol as `asmevo mcp` speaks it: JSON-RPC 2.0 messages (one JSON object a
// message; batches are not part of MCP since 2025-06-18) and the protocol revisions it negotiates.
// Revision implemented: 2025-11-25 (the current one at modelcontextprotocol.io/specification);
// older clients get the revision they ask for when it is one of kSupportedVersions, with what that
// revision lacks left out (structuredContent before 2025-06-18; bad tool arguments are protocol
// errors before 2025-11-25, tool errors from it on, SEP-1303).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo::mcp {

inline constexpr const char* kLatestVersion = "2025-11-25";
// Newest first.
inline const std::vector<std::string> kSupportedVersions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
// The revision to use when a client asks for `requested`: the same when supported, else the latest
// (the client then decides whether it can go on).
std::string negotiate_version(const std::string& requested);

// JSON-RPC 2.0 error codes (jsonrpc.org/specification §5.1) and MCP's "resource not found".
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,
};

nlohmann::json make_result(const nlohmann::json& id, nlohmann::json result);
nlohmann::json make_error(const nlohmann::json& id, int code, const std::string& message, const nlohmann::json& data = nullptr);

// A message as received: a request (id and method), a notification (method, no id), a response
// to a request of ours (id, result or error), or invalid (`problem` says why).
struct Message {
  enum Kind { Request, Notification, Response, Invalid } kind = Invalid;
  nlohmann::json id;      // null when absent or unusable
  std::string method;
  nlohmann::json params;  // an object (empty when absent)
  std::string problem;
};
Message classify(const nlohmann::json& message);

}  // namespace asmevo::mcp
