// The agent's tools (their JSON schemas and descriptions: agent/prompts/tools-v1.json), one
// implementation with two front ends: the LLM agent (agent/agent.h, `call`) and the MCP server
// (mcp/, `run`). Every result is compact text for the model with a JSON twin for clients that read
// structure; errors are results too ("error: ..."), so a malformed call costs the model one step,
// never the run.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "search/optimizer.h"

namespace asmevo::agent {

// One evaluated edit of this session (for compaction summaries).
struct Attempt {
  int64_t parent = 0;             // candidate id of the parent (0 = the starting object)
  std::string window, description, diff;
  std::string verdict, stage, reason;  // verdict: "accepted" / "rejected"
  double parent_cycles = 0, cycles = 0;
};

// A tool's answer: the text the model reads and the same facts as JSON (figures are modeled).
struct ToolResult {
  ToolResult(std::string t) : text(std::move(t)), error(text.rfind("error: ", 0) == 0) {}  // NOLINT: a text is a result
  ToolResult(const char* t) : ToolResult(std::string(t)) {}  // NOLINT
  ToolResult(std::string t, nlohmann::json d) : ToolResult(std::move(t)) { data = std::move(d); }
  std::string text;
  nlohmann::json data = nlohmann::json::object();
  bool error = false;      // the call was refused (bad arguments, an edit that does not assemble, ...)
  bool evaluated = false;  // the call ran the cascade (one candidate stored)
};

class Toolbox {
 public:
  // `proposer`: the name candidates and notes are stored under ("llm", "mcp"); the move is
  // "<proposer>-edit".
  explicit Toolbox(std::string proposer = "llm") : proposer_(std::move(proposer)) {}

  // Runs tool `name` with the JSON text `arguments`. Never throws for bad input from the model: the
  // error is the result. Sets `evaluated` when the call ran the cascade.
  std::string call(const std::string& name, const std::string& arguments, search::AgentTurn& turn, bool& evaluated);
  // The same with parsed arguments (an object), text and JSON.
  ToolResult run(const std::string& name, const nlohmann::json& args, search::AgentTurn& turn);
  // The names of the shared tools, in the order of tools-v1.json.
  static const std::vector<std::string>& names();

  // The transcript stored with an evaluated candidate (set by the session).
  std::function<std::string()> transcript;
  const std::vector<Attempt>& attempts() const { return attempts_; }
  bool budget_spent() const { return budget_spent_; }
  size_t evaluations_this_turn = 0;  // reset by the session at each turn

  // Texts shared with the session's messages.
  static std::string windows_text(search::AgentTurn& turn);
  static nlohmann::json windows_json(search::AgentTurn& turn);
  ToolResult list_windows(search::AgentTurn& turn);
  ToolResult show_window(search::AgentTurn& turn, const nlohmann::json& args);
  ToolResult show_kernel_info(search::AgentTurn& turn);
  ToolResult isa_help(search::AgentTurn& turn, const nlohmann::json& args);
  ToolResult propose_edit(search::AgentTurn& turn, const nlohmann::json& args);
  ToolResult evaluate(search::AgentTurn& turn, const nlohmann::json& args);
  ToolResult history(search::AgentTurn& turn, const nlohmann::json& args);
  ToolResult note(search::AgentTurn& turn, const nlohmann::json& args);

 private:
  struct Pending {
    search::Edit edit;
    int64_t parent = 0;
    std::string window;
  };
  const search::Window* find_window(search::AgentTurn& turn, const nlohmann::json& args, std::string& error) const;
  std::string proposer_;
  std::map<int64_t, Pending> pending_;
  int64_t next_edit_ = 1;
  std::vector<Attempt> attempts_;
  bool budget_spent_ = false;
};

// Past attempts of a kernel from the store (every proposer, every run), grouped by outcome and
// cause; `window` (an id) restricts them. The `history` tool and the memory a resumed session starts
// with.
std::string history_text(search::Store& store, int64_t kernel_id, const std::string& window, double baseline_cycles,
                         nlohmann::json* data = nullptr);
// Notes of a kernel from the store, oldest first ("" when none).
std::string notes_text(search::Store& store, int64_t kernel_id);

// A short, stable cause for grouping failures: the stage and the reason's first clause with
// numbers and registers blurred ("static: waitcnt: vN read before vmcnt covers it").
std::string failure_cause(const std::string& stage, const std::string& reason);

}  // namespace asmevo::agent
