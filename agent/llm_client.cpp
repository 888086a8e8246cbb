#include "agent/llm_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

namespace asmevo::agent {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

struct Response {
  long status = 0;
  std::string body;
  double retry_after = -1;  // seconds, from the Retry-After header (delta-seconds form)
};

size_t on_body(char* p, size_t size, size_t n, void* user) {
  static_cast<Response*>(user)->body.append(p, size * n);
  return size * n;
}

size_t on_header(char* p, size_t size, size_t n, void* user) {
  std::string line(p, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name == "retry-after") {
      // Only the delta-seconds form; an HTTP-date falls back to the exponential backoff.
      std::string v = trim(line.substr(colon + 1));
      char* end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (end && end != v.c_str() && *end == '\0' && s >= 0) static_cast<Response*>(user)->retry_after = s;
    }
  }
  return size * n;
}

std::once_flag curl_once;

}  // namespace

LlmBudget LlmBudget::parse(const std::string& text) {
  LlmBudget b;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw Error("--llm-budget item '" + item + "' is not KEY=VALUE", "--llm-budget", "e.g. calls=200,tokens=2000000,seconds=3600");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || v < 0 || !std::isfinite(v))
      throw Error("--llm-budget " + key + " needs a non-negative number, got '" + value + "'", "--llm-budget");
    if (key == "calls") b.calls = static_cast<uint64_t>(v);
    else if (key == "tokens") b.tokens = static_cast<uint64_t>(v);
    else if (key == "seconds") b.seconds = v;
    else throw Error("--llm-budget has no item '" + key + "'", "--llm-budget", "items: calls, tokens, seconds");
  }
  return b;
}

ChatClient::ChatClient(LlmOptions options) : options_(std::move(options)) {
  if (options_.url.empty()) throw Error("no endpoint URL", "--llm-url", "e.g. --llm-url http://127.0.0.1:8000/v1");
  if (options_.model.empty()) throw Error("no model name", "--llm-model", "the model the endpoint serves, e.g. --llm-model qwen2.5-coder-32b");
  while (!options_.url.empty() && options_.url.back() == '/') options_.url.pop_back();
  if (!options_.key_env.empty()) {
    const char* k = std::getenv(options_.key_env.c_str());
    if (!k || !*k)
      throw Error("the environment variable " + options_.key_env + " (the API key) is not set", "--llm-key-env",
                  "export " + options_.key_env + "=... or leave --llm-key-env out for an endpoint without a key");
    key_ = k;
  }
  if (options_.retries < 0) throw Error("--llm-retries must be >= 0", "--llm-retries");
  if (options_.timeout_s <= 0) throw Error("--llm-timeout must be > 0 seconds", "--llm-timeout");
  std::call_once(curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

ChatReply ChatClient::complete(const nlohmann::json& messages, const nlohmann::json& tools, double deadline_s) {
  const auto start = Clock::now();
  nlohmann::json req = {{"model", options_.model},
                        {"messages", messages},
                        {"temperature", options_.temperature},
                        {"max_tokens", options_.max_tokens}};
  if (!tools.empty()) {
    req["tools"] = tools;
    req["tool_choice"] = "auto";
  }
  const std::string body = req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string url = options_.url + "/chat/completions";

  std::string last_status, last_error;
  int attempt = 0;
  for (;; ++attempt) {
    double timeout = options_.timeout_s;
    if (deadline_s > 0) {
      double left = deadline_s - since(start);
      if (left <= 0.05)
        throw LlmUnavailable("the LLM wall-time budget ran out while waiting for the endpoint (last: " + last_error + ")",
                             last_status.empty() ? "budget" : last_status, attempt, since(start));
      timeout = std::min(timeout, left);
    }
    Response r;
    CURL* c = curl_easy_init();
    if (!c) throw LlmUnavailable("libcurl could not start a request", "connection", attempt, since(start));
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    if (!key_.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + key_).c_str());
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max(1.0, timeout * 1000)));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::max(1.0, std::min(timeout, 30.0) * 1000)));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM (threads)
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);

    bool retry = false;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      last_status = "timeout";
      last_error = fmt::format("no reply within {:.1f} s", timeout);
      retry = true;
    } else if (rc != CURLE_OK) {
      last_status = "connection";
      last_error = curl_easy_strerror(rc);
      retry = true;
    } else if (r.status == 429 || r.status >= 500) {
      last_status = fmt::format("http {}", r.status);
      last_error = fmt::format("HTTP {}: {}", r.status, r.body.substr(0, 200));
      retry = true;
    } else if (r.status != 200) {
      // 400 (bad request: e.g. the model does not support tools), 401/403 (key), 404 (URL/model):
      // retrying cannot help.
      throw LlmUnavailable(fmt::format("the endpoint refused the request: HTTP {}: {}", r.status, r.body.substr(0, 300)),
                           fmt::format("http {}", r.status), attempt + 1, since(start));
    } else {
      try {
        nlohmann::json j = nlohmann::json::parse(r.body);
        ChatReply out;
        const nlohmann::json& choice = j.at("choices").at(0);
        out.message = choice.at("message");
        out.finish_reason = choice.value("finish_reason", nlohmann::json()).is_string() ? choice["finish_reason"].get<std::string>() : "";
        if (out.message.contains("content") && out.message["content"].is_string()) out.content = out.message["content"];
        if (out.message.contains("tool_calls") && out.message["tool_calls"].is_array()) {
          for (const auto& tc : out.message["tool_calls"]) {
            ToolCall t;
            t.id = tc.value("id", "");
            const auto& fn = tc.at("function");
            t.name = fn.value("name", "");
            const auto& args = fn.contains("arguments") ? fn["arguments"] : nlohmann::json();
            // Some servers send the arguments as an object instead of the JSON text.
            t.arguments = args.is_string() ? args.get<std::string>() : (args.is_null() ? "{}" : args.dump());
            out.tool_calls.push_back(std::move(t));
          }
        }
        if (j.contains("usage") && j["usage"].is_object()) {
          const auto& u = j["usage"];
          auto num = [&](const char* k) { return u.contains(k) && u[k].is_number() ? u[k].get<int64_t>() : int64_t{0}; };
          out.prompt_tokens = num("prompt_tokens");
          out.completion_tokens = num("completion_tokens");
          out.total_tokens = num("total_tokens");
          if (!out.total_tokens) out.total_tokens = out.prompt_tokens + out.completion_tokens;
        }
        out.attempts = attempt + 1;
        out.seconds = since(start);
        return out;
      } catch (const std::exception& e) {
        last_status = "bad reply";
        last_error = std::string("unreadable reply: ") + e.what() + ": " + r.body.substr(0, 200);
        retry = true;
      }
    }
    if (!retry || attempt >= options_.retries)
      throw LlmUnavailable(fmt::format("the endpoint gave no usable reply after {} attempt(s): {}", attempt + 1, last_error),
                           last_status, attempt + 1, since(start));
    double delay = options_.backoff_s * std::pow(2.0, attempt);
    if (r.retry_after >= 0) delay = r.retry_after;
    delay = std::min(delay, options_.max_backoff_s);
    if (deadline_s > 0) delay = std::min(delay, std::max(0.0, deadline_s - since(start)));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
}

}  // namespace asmevo::agent
