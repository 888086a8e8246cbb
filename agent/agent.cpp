#include "agent/agent.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "agent/prompts.h"
#include "agent/tools.h"
#include "support/error.h"

namespace asmevo::agent {
using nlohmann::json;
using search::AgentTurn;

namespace {

using Clock = std::chrono::steady_clock;

// "{name}" placeholders of the message templates (agent/prompts/messages-v1.json).
std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [k, v] : values) {
    const std::string key = "{" + k + "}";
    for (size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + v.size())) text.replace(p, key.size(), v);
  }
  return text;
}

const json& messages_template() {
  static const json j = json::parse(prompt(std::string("messages-") + kPromptVersion + ".json"));
  return j;
}
std::string templ(const char* key) { return messages_template().at(key).get<std::string>(); }

std::string clip(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n) + " ...[clipped]" : s; }

class LlmProposer final : public search::InteractiveProposer {
 public:
  LlmProposer(std::shared_ptr<LlmSession> session, std::string kernel) : session_(std::move(session)), kernel_(std::move(kernel)) {
    tools_ = json::parse(prompt(std::string("tools-") + kPromptVersion + ".json"));
    toolbox_.transcript = [this] { return transcript(); };
  }
  std::string name() const override { return "llm"; }

  bool turn(AgentTurn& t) override {
    if (stopped_) return false;
    if (messages_.empty()) start(t);
    toolbox_.evaluations_this_turn = 0;
    const size_t steps = std::max<size_t>(1, session_->client().options().steps_per_turn);
    for (size_t step = 0; step < steps; ++step) {
      compact_if_needed(t);
      if (std::string why = session_->exhausted(); !why.empty()) return stop(t, "the LLM budget is spent (" + why + ")");
      ChatReply r;
      try {
        r = session_->client().complete(messages_, tools_, session_->seconds_left());
      } catch (const LlmUnavailable& e) {
        record(t, e.status(), e.attempts(), 0, 0, 0, e.seconds());
        return stop(t, "the endpoint gave up: " + e.what_text());
      }
      session_->count(r.total_tokens);
      record(t, "ok", r.attempts, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.seconds);

      // The assistant message as the conversation keeps it: tool calls with ids (some servers
      // omit them; the tool results must name them).
      json msg = {{"role", "assistant"}, {"content", r.content.empty() ? json() : json(r.content)}};
      json calls = json::array();
      for (ToolCall& c : r.tool_calls) {
        if (c.id.empty()) c.id = fmt::format("call_{}", ++call_counter_);
        calls.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
      }
      if (!calls.empty()) msg["tool_calls"] = calls;
      messages_.push_back(msg);
      json entry = {{"role", "assistant"}, {"content", r.content}};
      if (!calls.empty()) {
        entry["tool_calls"] = json::array();
        for (const ToolCall& c : r.tool_calls) entry["tool_calls"].push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
      }
      entries_.push_back(entry);

      if (r.tool_calls.empty()) {
        if (r.finish_reason == "length") {  // cut off mid-thought: ask it to go on
          messages_.push_back({{"role", "user"}, {"content", templ("nudge")}});
          continue;
        }
        return stop(t, "the model ended its session: " + clip(r.content, 200));
      }
      bool evaluated_any = false;
      for (const ToolCall& c : r.tool_calls) {
        bool evaluated = false;
        std::string result = toolbox_.call(c.name, c.arguments, t, evaluated);
        messages_.push_back({{"role", "tool"}, {"tool_call_id", c.id}, {"content", result}});
        if (evaluated) {
          // The candidate was stored with the transcript up to its evaluate call; the next one starts afresh.
          entries_.clear();
          evaluated_any = true;
        } else {
          entries_.push_back({{"role", "tool"}, {"tool_call_id", c.id}, {"name", c.name}, {"content", clip(result, 4000)}});
        }
      }
      if (toolbox_.budget_spent()) return stop(t, "the candidate budget of this kernel is spent");
      if (evaluated_any) {
        calls_since_evaluate_ = 0;
        return true;
      }
      // A model that keeps reading but never evaluates would hold an llm-only search forever (the
      // candidate budget only counts evaluations).
      if (++calls_since_evaluate_ >= kMaxCallsWithoutEvaluate)
        return stop(t, fmt::format("{} model calls in a row without evaluating an edit", kMaxCallsWithoutEvaluate));
    }
    return true;
  }

 private:
  bool stop(AgentTurn& t, const std::string& why) {
    stopped_ = true;
    session_->log(fmt::format("{}: llm: {}", t.kernel, why));
    return false;
  }

  void record(AgentTurn& t, const std::string& status, int attempts, int64_t pt, int64_t ct, int64_t tt, double seconds) {
    search::LlmCallRecord c;
    c.run = t.run;
    c.kernel = t.kernel_id;
    c.model = session_->client().options().model;
    c.status = status;
    c.attempts = attempts;
    c.prompt_tokens = pt;
    c.completion_tokens = ct;
    c.total_tokens = tt;
    c.seconds = seconds;
    t.store->add_llm_call(c);
  }

  std::string best_name(AgentTurn& t) const {
    return t.best().id ? fmt::format("candidate #{}", t.best().id) : std::string("the starting object (K0)");
  }

  void start(AgentTurn& t) {
    messages_.push_back({{"role", "system"}, {"content", prompt(std::string("system-") + kPromptVersion + ".md")}});
    std::string memory;
    const std::string notes = notes_text(*t.store, t.kernel_id);
    const bool has_history = t.store->candidate_count(t.kernel_id) > 0;
    if (!notes.empty() || has_history) {
      memory = templ("memory_header");
      if (!notes.empty()) memory += "Notes:\n" + notes;
      if (has_history) memory += "Attempts so far:\n" + history_text(*t.store, t.kernel_id, "", t.baseline_cycles);
    } else {
      memory = templ("no_memory");
    }
    const auto& target = t.best().co->target();
    messages_.push_back({{"role", "user"},
                         {"content", fill(templ("start"), {{"kernel", t.kernel},
                                                           {"arch", codeobj::to_string(target.arch)},
                                                           {"processor", target.str()},
                                                           {"baseline_cycles", fmt::format("{:.0f}", t.baseline_cycles)},
                                                           {"best", best_name(t)},
                                                           {"best_cycles", fmt::format("{:.0f}", t.best().cycles)},
                                                           {"speedup", fmt::format("{:.3f}", t.baseline_cycles / t.best().cycles)},
                                                           {"budget", t.budget_left == SIZE_MAX ? std::string("no limit") : std::to_string(t.budget_left)},
                                                           {"windows", Toolbox::windows_text(t)},
                                                           {"memory", memory}})}});
  }

  size_t estimate_tokens() const {
    size_t chars = 0;
    for (const json& m : messages_) chars += m.dump().size();
    return chars / 4;
  }

  // Replaces the older turns by one summary message when the conversation outgrows its budget.
  void compact_if_needed(AgentTurn& t) {
    const size_t limit = session_->client().options().context_tokens;
    if (limit == 0 || estimate_tokens() <= limit || messages_.size() <= 4) return;
    // Keep the system prompt, the start message and the most recent exchanges that fit in half the
    // budget; the cut lands on an assistant message so that no tool result loses its call.
    size_t keep_chars = limit * 4 / 2, acc = 0, cut = messages_.size();
    while (cut > 2) {
      size_t sz = messages_[cut - 1].dump().size();
      if (acc + sz > keep_chars) break;
      acc += sz;
      --cut;
    }
    while (cut < messages_.size() && messages_[cut].value("role", "") != "assistant") ++cut;
    if (cut <= 2) return;
    std::string summary;
    std::map<std::string, std::vector<const Attempt*>> rejected;
    for (const Attempt& a : toolbox_.attempts()) {
      if (a.verdict == "accepted") {
        summary += fmt::format("- helped (accepted): {} [{}] {:.0f} -> {:.0f} cycles\n", a.description, a.window, a.parent_cycles, a.cycles);
      } else {
        rejected[failure_cause(a.stage, a.reason)].push_back(&a);
      }
    }
    for (const auto& [cause, v] : rejected) {
      summary += fmt::format("- failed x{} ({}):", v.size(), cause);
      for (size_t i = 0; i < v.size() && i < 4; ++i) summary += fmt::format(" \"{}\"", clip(v[i]->description, 100));
      summary += "\n";
    }
    if (toolbox_.attempts().empty()) summary += "- no edit was evaluated yet in the compacted turns\n";
    const std::string notes = notes_text(*t.store, t.kernel_id);
    if (!notes.empty()) summary += "Notes:\n" + notes;
    json msg = {{"role", "user"},
                {"content", fill(templ("compacted"), {{"summary", summary},
                                                      {"best", best_name(t)},
                                                      {"best_cycles", fmt::format("{:.0f}", t.best().cycles)},
                                                      {"speedup", fmt::format("{:.3f}", t.baseline_cycles / t.best().cycles)},
                                                      {"windows", Toolbox::windows_text(t)}})}};
    std::vector<json> kept(messages_.begin(), messages_.begin() + 2);
    kept.push_back(std::move(msg));
    kept.insert(kept.end(), messages_.begin() + static_cast<std::ptrdiff_t>(cut), messages_.end());
    session_->log(fmt::format("{}: llm: compacted {} older messages into a summary", t.kernel, cut - 2));
    messages_ = std::move(kept);
    ++compactions_;
  }

  std::string transcript() const {
    json j = {{"schema", "asmevo.transcript/1"},
              {"prompts", kPromptVersion},
              {"model", session_->client().options().model},
              {"compactions", compactions_},
              {"entries", entries_}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  }

  std::shared_ptr<LlmSession> session_;
  std::string kernel_;
  json tools_;
  std::vector<json> messages_;
  json entries_ = json::array();  // the transcript since the last evaluated candidate
  Toolbox toolbox_;
  bool stopped_ = false;
  size_t call_counter_ = 0, compactions_ = 0, calls_since_evaluate_ = 0;
  static constexpr size_t kMaxCallsWithoutEvaluate = 40;
};

}  // namespace

LlmSession::LlmSession(LlmOptions options, LlmBudget budget, std::function<void(const std::string&)> log)
    : client_(std::move(options)), budget_(budget), log_(std::move(log)), start_(Clock::now()) {}

std::string LlmSession::exhausted() const {
  if (budget_.calls && calls_ >= budget_.calls) return fmt::format("calls: {} of {}", calls_, budget_.calls);
  if (budget_.tokens && tokens_ >= budget_.tokens) return fmt::format("tokens: {} of {}", tokens_, budget_.tokens);
  if (budget_.seconds > 0 && std::chrono::duration<double>(Clock::now() - start_).count() >= budget_.seconds)
    return fmt::format("seconds: {:.0f}", budget_.seconds);
  return "";
}

double LlmSession::seconds_left() const {
  if (budget_.seconds <= 0) return 0;
  return std::max(0.001, budget_.seconds - std::chrono::duration<double>(Clock::now() - start_).count());
}

void LlmSession::count(int64_t tokens) {
  ++calls_;
  tokens_ += static_cast<uint64_t>(std::max<int64_t>(0, tokens));
}

std::unique_ptr<search::InteractiveProposer> make_llm_proposer(std::shared_ptr<LlmSession> session, const std::string& kernel) {
  if (!session) throw Error("no LLM session", "--llm-url");
  return std::make_unique<LlmProposer>(std::move(session), kernel);
}

}  // namespace asmevo::agent
