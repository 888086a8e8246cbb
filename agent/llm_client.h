// An OpenAI-compatible chat-completions client with tool calling (POST {url}/chat/completions),
// over libcurl. Works with vLLM, SGLang, llama.cpp's server, Ollama and hosted APIs that speak the
// same protocol. Transient failures (HTTP 429, 5xx, timeouts, connection errors, unreadable replies)
// are retried with exponential backoff, honouring Retry-After; when the retries are spent, or the
// endpoint refuses the request (other 4xx), `complete` throws LlmUnavailable and the agent stops
// gracefully. A per-run budget caps calls, tokens and wall time.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"

namespace asmevo::agent {

struct LlmOptions {
  std::string url;                 // base URL, e.g. http://127.0.0.1:8000/v1
  std::string model;
  std::string key_env;             // environment variable holding the API key (empty: no key sent)
  double temperature = 0.2;
  int max_tokens = 2048;           // per reply
  double timeout_s = 120;          // per HTTP request
  int retries = 4;                 // extra attempts after the first
  double backoff_s = 1.0;          // first retry delay; doubles each retry
  double max_backoff_s = 60;       // no single delay (Retry-After included) is longer
  size_t context_tokens = 24000;   // the agent compacts its conversation above this estimate
  size_t steps_per_turn = 8;       // model calls per optimizer turn (the turn also ends at an evaluate)
};

// A hard cap per optimize run (0: no cap on that quantity). Parsed from "calls=N,tokens=N,seconds=N".
struct LlmBudget {
  uint64_t calls = 0, tokens = 0;
  double seconds = 0;
  static LlmBudget parse(const std::string& text);  // throws asmevo::Error naming the bad item
};

struct ToolCall {
  std::string id, name, arguments;  // arguments: the raw JSON text the model wrote
};

struct ChatReply {
  nlohmann::json message;           // the assistant message as received (appended to the conversation)
  std::string content;              // its text ("" when none)
  std::vector<ToolCall> tool_calls;
  std::string finish_reason;
  int64_t prompt_tokens = 0, completion_tokens = 0, total_tokens = 0;  // `usage` (0 when absent)
  int attempts = 0;                 // HTTP requests made, retries included
  double seconds = 0;
};

// The endpoint could not give a reply: `status` is "http NNN", "timeout", "connection", "bad reply".
class LlmUnavailable : public Error {
 public:
  LlmUnavailable(const std::string& what, std::string status, int attempts, double seconds)
      : Error(what, "--llm-url", "check the endpoint (--llm-url, --llm-model, the key in --llm-key-env) or run without llm"),
        status_(std::move(status)), attempts_(attempts), seconds_(seconds) {}
  const std::string& status() const { return status_; }
  int attempts() const { return attempts_; }
  double seconds() const { return seconds_; }

 private:
  std::string status_;
  int attempts_;
  double seconds_;
};

class ChatClient {
 public:
  // Throws asmevo::Error when the URL or model is empty, or the key variable is named but unset.
  explicit ChatClient(LlmOptions options);
  const LlmOptions& options() const { return options_; }
  // One completion. `deadline_s` (> 0) caps the whole call including retries (the budget's wall
  // time). Throws LlmUnavailable.
  ChatReply complete(const nlohmann::json& messages, const nlohmann::json& tools, double deadline_s = 0);

 private:
  LlmOptions options_;
  std::string key_;
};

}  // namespace asmevo::agent
