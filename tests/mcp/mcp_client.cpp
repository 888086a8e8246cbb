#include "tests/mcp/mcp_client.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace asmevo::testing {
using nlohmann::json;

McpProcess::McpProcess(const std::string& asmevo, const std::vector<std::string>& args, const std::string& log_path) : log_path_(log_path) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe");
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    int err = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (err >= 0) ::dup2(err, 2);
    ::close(in[1]);
    ::close(out[0]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(asmevo.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(asmevo.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  in_ = in[1];
  out_ = out[0];
  ::signal(SIGPIPE, SIG_IGN);
}

McpProcess::~McpProcess() {
  if (in_ >= 0) ::close(in_);
  if (!status_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st;
    ::waitpid(pid_, &st, 0);
  }
  if (out_ >= 0) ::close(out_);
}

void McpProcess::send_line(const std::string& line) {
  std::string s = line + "\n";
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(in_, s.data() + done, s.size() - done);
    if (n <= 0) {
      ADD_FAILURE() << "cannot write to asmevo mcp";
      return;
    }
    done += static_cast<size_t>(n);
  }
}

std::optional<json> McpProcess::next(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      try {
        return json::parse(line);
      } catch (const json::exception& e) {
        ADD_FAILURE() << "asmevo mcp wrote a line on stdout that is not JSON: " << line;
        continue;
      }
    }
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char chunk[65536];
    ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n <= 0) {
      if (!buffer_.empty()) ADD_FAILURE() << "asmevo mcp ended stdout with an unterminated line: " << buffer_;
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

json McpProcess::request(const std::string& method, const json& params, double timeout_s) {
  const int64_t id = next_id++;
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  for (;;) {
    std::optional<json> m = next(timeout_s);
    if (!m) {
      ADD_FAILURE() << "no response to " << method << " (id " << id << "); server log:\n" << log();
      return json::object();
    }
    if (m->value("id", json()) == id) return *m;
    other.push_back(*m);
  }
}

json McpProcess::call_tool(const std::string& name, const json& arguments) {
  return request("tools/call", {{"name", name}, {"arguments", arguments}});
}

json McpProcess::initialize(const std::string& version) {
  json r = request("initialize", {{"protocolVersion", version},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", "asmevo-test-client"}, {"version", "1"}}}});
  send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  return r;
}

void McpProcess::close_stdin() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

void McpProcess::signal(int sig) { ::kill(pid_, sig); }

int McpProcess::wait(double timeout_s) {
  if (status_) return *status_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
      return *status_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1000;
}

std::string McpProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string result_text(const json& response) {
  const json& r = response.value("result", json::object());
  for (const json& c : r.value("content", json::array()))
    if (c.value("type", "") == "text") return c.value("text", "");
  return "";
}

}  // namespace asmevo::testing
