// Checks a tool call's arguments against the tool's input schema (agent/prompts/tools-v1.json,
// mcp-tools-v1.json). The schemas use a small part of JSON Schema: an object with typed
// properties (string, integer, number, boolean, object, array), `required` and
// `additionalProperties: false`; a schema that uses more is refused when the server starts, so
// nothing is silently accepted unchecked.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace asmevo::mcp {

// Empty when `args` satisfies `schema`, else what is wrong and how to fix it, in one sentence.
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& args);

// Throws asmevo::Error when `schema` uses a keyword check_arguments does not enforce.
void require_supported_schema(const std::string& tool, const nlohmann::json& schema);

}  // namespace asmevo::mcp
