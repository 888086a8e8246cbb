#include "mcp/arguments.h"

#include <fmt/format.h>

#include <set>

#include "support/error.h"

namespace asmevo::mcp {
using nlohmann::json;

namespace {

bool has_type(const json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();  // 3, not 3.0: the tools read integers
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return false;
}

std::string names(const json& properties) {
  std::string s;
  for (const auto& [k, v] : properties.items()) s += (s.empty() ? "" : ", ") + k;
  return s.empty() ? "none" : s;
}

}  // namespace

std::string check_arguments(const json& schema, const json& args) {
  if (!args.is_object()) return fmt::format("the arguments must be a JSON object, not {}", args.type_name());
  const json properties = schema.value("properties", json::object());
  for (const auto& [name, value] : args.items()) {
    auto p = properties.find(name);
    if (p == properties.end()) {
      if (schema.value("additionalProperties", true) == false)
        return fmt::format("unknown argument '{}' (the arguments are: {})", name, names(properties));
      continue;
    }
    const std::string type = p->value("type", "");
    if (!type.empty() && !has_type(value, type))
      return fmt::format("argument '{}' must be of type {}, not {} (got {})", name, type, value.type_name(), value.dump().substr(0, 80));
  }
  for (const json& r : schema.value("required", json::array()))
    if (!args.contains(r.get<std::string>()))
      return fmt::format("missing required argument '{}' (the arguments are: {})", r.get<std::string>(), names(properties));
  return "";
}

void require_supported_schema(const std::string& tool, const json& schema) {
  static const std::set<std::string> top = {"type", "properties", "required", "additionalProperties"};
  static const std::set<std::string> prop = {"type", "description"};
  static const std::set<std::string> types = {"string", "integer", "number", "boolean", "object", "array"};
  auto refuse = [&](const std::string& what) {
    throw Error(fmt::format("the input schema of tool {} uses {}, which the MCP server does not check", tool, what), "agent/prompts",
                "keep tool schemas to typed properties, required and additionalProperties", kExitInternal);
  };
  if (!schema.is_object() || schema.value("type", "") != "object") refuse("a non-object type");
  for (const auto& [k, v] : schema.items())
    if (!top.count(k)) refuse("'" + k + "'");
  for (const auto& [name, p] : schema.value("properties", json::object()).items()) {
    for (const auto& [k, v] : p.items())
      if (!prop.count(k)) refuse("'" + k + "' in property " + name);
    if (!p.contains("type") || !p["type"].is_string() || !types.count(p["type"].get<std::string>())) refuse("an untyped property " + name);
  }
}

}  // namespace asmevo::mcp
