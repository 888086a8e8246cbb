// The agent's prompts: versioned files under agent/prompts/ (system-v1.md, tools-v1.json,
// messages-v1.json), embedded at build time (agent/CMakeLists.txt). Bump the version in the file
// name when a prompt changes meaning, so stored transcripts name the prompts that produced them.
#pragma once
#include <string>

namespace asmevo::agent {

inline constexpr const char* kPromptVersion = "v1";
// The text of an embedded prompt file ("system-v1.md"); throws asmevo::Error for an unknown name.
const std::string& prompt(const std::string& name);

}  // namespace asmevo::agent
