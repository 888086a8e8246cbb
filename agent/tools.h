// The tools the LLM agent calls (their JSON schemas and descriptions: agent/prompts/tools-v1.json).
// Every result is compact text for the model; errors are results too ("error: ..."), so a malformed
// call costs the model one step, never the run.
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

class Toolbox {
 public:
  // Runs tool `name` with the JSON text `arguments`. Never throws for bad input from the model: the
  // error is the result. Sets `evaluated` when the call ran the cascade.
  std::string call(const std::string& name, const std::string& arguments, search::AgentTurn& turn, bool& evaluated);

  // The transcript stored with an evaluated candidate (set by the session).
  std::function<std::string()> transcript;
  const std::vector<Attempt>& attempts() const { return attempts_; }
  bool budget_spent() const { return budget_spent_; }
  size_t evaluations_this_turn = 0;  // reset by the session at each turn

  // Texts shared with the session's messages.
  static std::string windows_text(search::AgentTurn& turn);
  std::string list_windows(search::AgentTurn& turn);
  std::string show_window(search::AgentTurn& turn, const nlohmann::json& args);
  std::string show_kernel_info(search::AgentTurn& turn);
  std::string isa_help(search::AgentTurn& turn, const nlohmann::json& args);
  std::string propose_edit(search::AgentTurn& turn, const nlohmann::json& args);
  std::string evaluate(search::AgentTurn& turn, const nlohmann::json& args, bool& evaluated);
  std::string note(search::AgentTurn& turn, const nlohmann::json& args);

 private:
  struct Pending {
    search::Edit edit;
    int64_t parent = 0;
    std::string window;
  };
  const search::Window* find_window(search::AgentTurn& turn, const nlohmann::json& args, std::string& error) const;
  std::map<int64_t, Pending> pending_;
  int64_t next_edit_ = 1;
  std::vector<Attempt> attempts_;
  bool budget_spent_ = false;
};

// Past attempts of a kernel from the store (every proposer, every run), grouped by outcome and
// cause; `window` (an id) restricts them. The `history` tool and the memory a resumed session starts
// with.
std::string history_text(search::Store& store, int64_t kernel_id, const std::string& window, double baseline_cycles);
// Notes of a kernel from the store, oldest first ("" when none).
std::string notes_text(search::Store& store, int64_t kernel_id);

// A short, stable cause for grouping failures: the stage and the reason's first clause with
// numbers and registers blurred ("static: waitcnt: vN read before vmcnt covers it").
std::string failure_cause(const std::string& stage, const std::string& reason);

}  // namespace asmevo::agent
