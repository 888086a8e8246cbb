#include "mcp/stdio.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <set>

#include "support/error.h"

namespace asmevo::mcp {
using nlohmann::json;

namespace {

// SIGUSR1 only wakes the signal thread when the transport is destroyed.
sigset_t handled_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&s, sig);
  return s;
}

}  // namespace

StdioTransport::StdioTransport() {
  std::cout.flush();
  protocol_fd_ = ::dup(STDOUT_FILENO);
  if (protocol_fd_ < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw Error("cannot take stdout for the MCP protocol", "stdout", "", kExitInternal);
  ::fcntl(protocol_fd_, F_SETFD, FD_CLOEXEC);  // child processes (the assembler's, if any) never see it
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout is an error from write(), not a death
  sigset_t s = handled_signals();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  signal_thread_ = std::thread([this, s] {
    for (;;) {
      int sig = 0;
      if (sigwait(&s, &sig) != 0) continue;
      if (sig == SIGUSR1 && closing_.load()) return;
      if (sig != SIGUSR1) {
        int expected = 0;
        signal_.compare_exchange_strong(expected, sig);
      }
    }
  });
}

StdioTransport::~StdioTransport() {
  closing_ = true;
  pthread_kill(signal_thread_.native_handle(), SIGUSR1);
  signal_thread_.join();
  if (protocol_fd_ >= 0) ::close(protocol_fd_);
}

bool StdioTransport::write_message(const json& message) {
  const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(write_mu_);  // the reader (ping, parse errors) and the main thread both write
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(protocol_fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

StdioTransport::End StdioTransport::serve(Server& server) {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<json> queue;
  std::set<std::string> cancelled;  // request ids (dumped) the client cancelled
  bool eof = false, output_closed = false;
  auto key = [](const json& id) { return id.dump(); };

  std::thread reader([&] {
    std::string buffer;
    char chunk[65536];
    for (;;) {
      if (stop_requested()) break;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (output_closed) break;
      }
      pollfd p{STDIN_FILENO, POLLIN, 0};
      int r = ::poll(&p, 1, 100);  // wake up now and then to see a signal
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) continue;
      ssize_t n = r > 0 ? ::read(STDIN_FILENO, chunk, sizeof chunk) : -1;
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) buffer.append(chunk, static_cast<size_t>(n));
      const bool at_end = n <= 0;
      size_t start = 0;
      for (size_t nl; (nl = buffer.find('\n', start)) != std::string::npos || (at_end && start < buffer.size()); ) {
        if (nl == std::string::npos) nl = buffer.size();
        std::string line = buffer.substr(start, nl - start);
        start = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        json m;
        try {
          m = json::parse(line);
        } catch (const json::exception& e) {
          std::cerr << "mcp: unparseable message: " << e.what() << "\n";
          if (!write_message(make_error(nullptr, kParseError, std::string("Parse error: ") + e.what()))) {
            std::lock_guard<std::mutex> lock(mu);
            output_closed = true;
          }
          continue;
        }
        const Message c = classify(m);
        if (c.kind == Message::Request && c.method == "ping") {  // answered at once, even during an evaluate
          if (!write_message(make_result(c.id, json::object()))) {
            std::lock_guard<std::mutex> lock(mu);
            output_closed = true;
          }
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        if (c.kind == Message::Notification && c.method == "notifications/cancelled" && c.params.contains("requestId")) {
          cancelled.insert(key(c.params["requestId"]));
          std::cerr << "mcp: request " << c.params["requestId"].dump() << " cancelled by the client"
                    << (c.params.contains("reason") ? ": " + c.params["reason"].dump() : std::string()) << "\n";
        }
        queue.push_back(std::move(m));
        cv.notify_all();
      }
      buffer.erase(0, std::min(start, buffer.size()));
      if (at_end) {
        std::lock_guard<std::mutex> lock(mu);
        eof = true;
        cv.notify_all();
        break;
      }
    }
  });

  End end = End::EndOfInput;
  for (;;) {
    json m;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return !queue.empty() || eof || output_closed || stop_requested(); });
      if (stop_requested()) {
        end = End::Signal;
        break;
      }
      if (output_closed) {
        end = End::OutputClosed;
        break;
      }
      if (queue.empty()) {
        if (eof) break;
        continue;
      }
      m = std::move(queue.front());
      queue.pop_front();
    }
    const Message c = classify(m);
    auto is_cancelled = [&] {
      std::lock_guard<std::mutex> lock(mu);
      return c.kind == Message::Request && c.method != "initialize" && cancelled.count(key(c.id));
    };
    if (is_cancelled()) continue;  // cancelled before it started: not run
    std::optional<json> response = server.handle(m);
    if (response && !is_cancelled() && !write_message(*response)) {
      end = End::OutputClosed;
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    output_closed = true;  // tells the reader to go when it is idle
  }
  reader.join();  // it stops at end of input, at a signal, or within 100 ms of output_closed
  return end;
}

}  // namespace asmevo::mcp
