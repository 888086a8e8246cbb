// `asmevo optimize FILE [--kernel K] --launch SPEC.yaml... -o OUT.co`: the optimizer
// (search/optimizer.h, docs/search.md). Exit 0 when OUT was written (possibly with no speedup).
#pragma once
#include <string>
#include <vector>

#include "search/optimizer.h"

namespace CLI {
class App;
}

namespace asmevo::cli {

struct OptimizeCommandOptions {
  std::string file, kernel, output, db, counterexamples;
  std::vector<std::string> launches;
  size_t budget = 200;
  double time_s = 0;
  unsigned jobs = 1;
  uint64_t seed = 1;
  std::string proposers = "rules,stochastic";
  double min_gain_percent = 1.0;
  unsigned windows = 5;
  std::string moves;          // the move filter (search::MoveFilter), e.g. "-widen,-stochastic"
  unsigned robust_draws = 4;  // perturbed hardware rows a win must also hold on (0: nominal only)
  bool prove_winners_only = false;  // the proof gate after timing (search::CascadeOptions)
  bool resume = false, json = false, no_report = false, patch_only = false;
  // The LLM agent (issue 8; agent/agent.h): used when --proposers holds llm and --llm-url is given.
  std::string llm_url, llm_model, llm_key_env, llm_budget;
  double llm_temperature = 0.2, llm_timeout_s = 120;
  int llm_max_tokens = 2048, llm_retries = 4;
  size_t llm_context = 24000;
  // --backend hip (docs/hip.md): verify and time candidates on a HIP runtime.
  std::string backend = "emulator", hip_library;
  unsigned warmup = 3, repetitions = 20;
};

CLI::App* add_optimize_command(CLI::App& app, OptimizeCommandOptions& opts);
int run_optimize(const OptimizeCommandOptions& opts, const std::string& command_line);

// The kernels to work on: the launch specs grouped by the kernel they name, in the file's kernel
// order, only `kernel` when it is not empty. Throws asmevo::Error for a spec of a kernel the file
// lacks, an unknown `kernel`, or no spec for any kernel (optimize, mcp).
std::vector<search::KernelJob> kernel_jobs(const codeobj::CodeObject& k0, const std::string& file, const std::vector<std::string>& launches,
                                           const std::string& kernel);

}  // namespace asmevo::cli
