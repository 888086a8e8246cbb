// A scripted MCP client for the tests: starts `asmevo mcp ...` with pipes for stdin and stdout
// (stderr goes to a log file), writes JSON-RPC lines and reads the server's lines back. Every
// line the server writes on stdout must be a JSON-RPC message (the tests check it).
#pragma once
#include <nlohmann/json.hpp>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace asmevo::testing {

class McpProcess {
 public:
  // `args` follow `asmevo`; stderr is appended to `log_path`.
  McpProcess(const std::string& asmevo, const std::vector<std::string>& args, const std::string& log_path);
  ~McpProcess();  // kills the server if it is still running

  void send_line(const std::string& line);  // raw text (a newline is appended)
  void send(const nlohmann::json& message) { send_line(message.dump()); }
  // The next message on stdout (nullopt at end of output or after `timeout_s`). A line that is not
  // JSON fails the test.
  std::optional<nlohmann::json> next(double timeout_s = 120);
  // Sends a request and waits for the response with its id (other messages are kept in `other`).
  nlohmann::json request(const std::string& method, const nlohmann::json& params = nlohmann::json::object(), double timeout_s = 120);
  nlohmann::json call_tool(const std::string& name, const nlohmann::json& arguments = nlohmann::json::object());
  // initialize + notifications/initialized; returns the initialize result.
  nlohmann::json initialize(const std::string& version = "2025-11-25");

  void close_stdin();
  void signal(int sig);
  // Waits for the process to end; its exit status (-signal when killed); -1000 after the timeout.
  int wait(double timeout_s = 60);
  std::string log() const;

  std::vector<nlohmann::json> other;  // messages that answered nothing asked for through request()
  int64_t next_id = 1;

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffer_, log_path_;
  std::optional<int> status_;
};

// The text of a tools/call result (its first text content) and its structured twin.
std::string result_text(const nlohmann::json& response);

}  // namespace asmevo::testing
