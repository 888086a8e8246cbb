// `asmevo exec [--replace DIR] [--device D] [--log FILE] -- PROGRAM ARGS...`: runs an unmodified HIP
// program on libasmevo_hip (the emulator), optionally with optimized code objects substituted;
// `asmevo capture -o DIR [--kernel REGEX] [--max N] [--runtime emulator|system] -- PROGRAM ARGS...`:
// runs it under the launch-capture interposer (docs/hip.md). Both exec the program (its exit status
// is theirs) after setting the environment.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct ExecOptions {
  std::string replace, device, log;
  bool no_summary = false;
  std::vector<std::string> command;
};
struct CaptureOptions {
  std::string output, kernel, runtime = "emulator", device, log;
  unsigned max = 0;
  std::vector<std::string> command;
};

CLI::App* add_exec_command(CLI::App& app, ExecOptions& opts);
CLI::App* add_capture_command(CLI::App& app, CaptureOptions& opts);
int run_exec(const ExecOptions& opts);
int run_capture(const CaptureOptions& opts);

}  // namespace asmevo::cli
