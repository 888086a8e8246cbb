// The stdio transport of MCP: newline-delimited JSON-RPC messages on stdin and stdout, logs on
// stderr. Construct it first thing: it takes stdout for the protocol (a private descriptor) and
// points file descriptor 1 at stderr, so nothing else in the process can write a stray byte
// into the protocol stream; it blocks SIGTERM/SIGINT/SIGHUP in every thread created afterwards and
// waits for them on a thread of its own.
//
// serve() reads messages on a reader thread (which answers ping at once and records
// notifications/cancelled, so both work while a long evaluate runs) and hands the rest to the
// server one at a time on the calling thread. A request cancelled before it starts is not run; one
// cancelled while it runs finishes (the store stays consistent) and its response is dropped, as
// the protocol asks. Unparseable lines get a JSON-RPC parse error and the server goes on.
// It returns on end of input (after the messages already read) or on a signal (after the request
// that is running).
#pragma once
#include <atomic>
#include <mutex>
#include <string>
#include <thread>

#include "mcp/server.h"

namespace asmevo::mcp {

class StdioTransport {
 public:
  StdioTransport();
  ~StdioTransport();
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  enum class End { EndOfInput, Signal, OutputClosed };
  End serve(Server& server);
  // The signal that ended serve() (0: none).
  int signal() const { return signal_.load(); }
  bool stop_requested() const { return signal_.load() != 0; }

 private:
  bool write_message(const nlohmann::json& message);
  int protocol_fd_ = -1;
  std::mutex write_mu_;
  std::atomic<int> signal_{0};
  std::atomic<bool> closing_{false};
  std::thread signal_thread_;
};

}  // namespace asmevo::mcp
