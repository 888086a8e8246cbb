// `asmevo mcp [--db RUN.sqlite] [--resume] FILE --launch SPEC.yaml...`: serve the Model Context
// Protocol over stdio (mcp/, docs/mcp.md) so that a coding agent optimizes one kernel of FILE with
// AsmEvo's tools; every candidate it evaluates is stored (proposer "mcp") like optimize's.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct McpCommandOptions {
  std::string file, kernel, db, counterexamples;
  std::vector<std::string> launches;
  size_t budget = 200;
  double time_s = 0;
  unsigned jobs = 1;
  uint64_t seed = 1;
  double min_gain_percent = 1.0;
  unsigned windows = 5;
  bool resume = false;
};

CLI::App* add_mcp_command(CLI::App& app, McpCommandOptions& opts);
int run_mcp(const McpCommandOptions& opts, const std::string& command_line);

}  // namespace asmevo::cli
