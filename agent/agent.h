// The long-horizon LLM agent as a proposer (issue 8). One LlmSession per optimize run holds the
// endpoint client and the run's budget (calls, tokens, wall time); one LlmProposer per kernel holds
// the conversation. On each optimizer turn the proposer lets the model call tools
// (agent/tools.h) until it has evaluated a candidate (or `steps_per_turn` calls were made), so the
// built-in proposers get their turns too. Every candidate the model evaluates goes through the
// same cascade and store as any other (proposer "llm") with its transcript: the model's rationale
// and the tool calls and results of the turn that produced it (JSON, schema asmevo.transcript/1).
//
// Long horizon:
//   - the conversation is bounded: above `context_tokens` (estimated at 4 characters a token) the
//     older turns are replaced by one summary message (attempts grouped by outcome and cause, what
//     was accepted, the current best and its hot windows), so the model never works from stale text;
//   - after an accept the evaluate result says that line numbers changed and lists the new windows;
//   - memory across runs: a session starts with the kernel's notes and grouped history from the store.
// The session ends (turn returns false) when the model replies without a tool call, the endpoint gives
// up after its retries, the budget is spent, or the kernel's candidate budget is.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "agent/llm_client.h"
#include "search/optimizer.h"

namespace asmevo::agent {

class LlmSession {
 public:
  LlmSession(LlmOptions options, LlmBudget budget, std::function<void(const std::string&)> log = {});
  ChatClient& client() { return client_; }
  const LlmBudget& budget() const { return budget_; }
  // Empty while another call is allowed, else why not ("calls: 20 of 20").
  std::string exhausted() const;
  // Seconds left of the wall-time budget (0: no cap).
  double seconds_left() const;
  void count(int64_t tokens);
  uint64_t calls() const { return calls_; }
  uint64_t tokens() const { return tokens_; }
  void log(const std::string& line) const {
    if (log_) log_(line);
  }

 private:
  ChatClient client_;
  LlmBudget budget_;
  std::function<void(const std::string&)> log_;
  std::chrono::steady_clock::time_point start_;
  uint64_t calls_ = 0, tokens_ = 0;
};

std::unique_ptr<search::InteractiveProposer> make_llm_proposer(std::shared_ptr<LlmSession> session, const std::string& kernel);

}  // namespace asmevo::agent
