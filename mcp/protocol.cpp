#include "mcp/protocol.h"

#include <algorithm>

namespace asmevo::mcp {
using nlohmann::json;

std::string negotiate_version(const std::string& requested) {
  return std::find(kSupportedVersions.begin(), kSupportedVersions.end(), requested) != kSupportedVersions.end() ? requested : kLatestVersion;
}

json make_result(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json make_error(const json& id, int code, const std::string& message, const json& data) {
  json e = {{"code", code}, {"message", message}};
  if (!data.is_null()) e["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

Message classify(const json& m) {
  Message out;
  if (m.is_array()) {
    out.problem = "a JSON array (a JSON-RPC batch): MCP sends one message at a time since revision 2025-06-18";
    return out;
  }
  if (!m.is_object()) {
    out.problem = std::string("a JSON ") + m.type_name() + ", not a JSON-RPC message object";
    return out;
  }
  const bool has_id = m.contains("id");
  if (has_id) {
    const json& id = m["id"];
    // MCP: "the ID MUST NOT be null"; JSON-RPC allows strings and numbers (integers here).
    if (id.is_string() || id.is_number_integer()) out.id = id;
    else {
      out.problem = std::string("the id must be a string or an integer, not ") + id.type_name();
      return out;
    }
  }
  if (m.value("jsonrpc", json()) != "2.0") {
    out.problem = "\"jsonrpc\": \"2.0\" is missing";
    return out;
  }
  if (m.contains("method")) {
    if (!m["method"].is_string()) {
      out.problem = "the method must be a string";
      return out;
    }
    out.method = m["method"].get<std::string>();
    if (m.contains("params") && !m["params"].is_object()) {
      out.problem = "params must be an object (MCP names its parameters)";
      return out;
    }
    out.params = m.value("params", json::object());
    out.kind = has_id ? Message::Request : Message::Notification;
    return out;
  }
  if (has_id && (m.contains("result") || m.contains("error"))) {
    out.kind = Message::Response;
    return out;
  }
  out.problem = "neither a request, a notification nor a response (no method; no result or error)";
  return out;
}

}  // namespace asmevo::mcp
