// The search loop of `asmevo optimize` (issue 7), per kernel:
//   1. K0 is recovered, modeled and profiled; its hot windows are ranked by modeled cycles.
//   2. Proposers (built-in rule moves, stochastic moves; later the LLM agent) make candidate
//      edits restricted to a window of a parent.
//   3. Every candidate goes through the cascade (search/cascade.h); every outcome is stored.
//   4. A population keeps the best accepted candidate per (window, move) next to the overall best,
//      so the search does not collapse onto one idea: parents are the best most of the time and a
//      random elite otherwise. Accepted edits compose (a child is the parent for later edits) and
//      a child's windows are ranked afresh from its own profile.
//   5. When K0 cannot be rebuilt exactly (rebuild::roundtrip differs), the same loop runs with
//      in-place patches of the original bytes only.
//   6. The winner is re-verified from scratch with fresh seeds and re-timed before it is written;
//      if that fails, K0's code is kept for the kernel.
// Kernels of one file are optimized one after the other, each starting from the object the
// previous one left, each verified against the original K0.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "support/content_hash.h"
#include "search/cascade.h"
#include "search/move.h"
#include "search/store.h"

namespace asmevo::search {

// What an interactive proposer (the LLM agent, issue 8) sees and may do on its turn.
struct AgentTurn {
  std::string kernel;
  int64_t kernel_id = 0, run = 0;
  double baseline_cycles = 0;       // K0's modeled cycles
  size_t budget_left = 0;           // candidates this kernel may still evaluate (SIZE_MAX: no limit)
  Cascade* cascade = nullptr;       // for modeling and inspecting objects; evaluate through `evaluate`
  Store* store = nullptr;           // history, notes, token usage
  // The current best individual and its hot windows (they change when an edit is accepted).
  std::function<const Individual&()> best;
  std::function<const std::vector<Window>&()> windows;
  // Runs the cascade on `edit` (line numbers of best().program), stores the candidate like any
  // other (proposer "llm", with `transcript`), and on acceptance adds the child to the population
  // and makes it the best when it is the fastest. Counts against the budget.
  std::function<Evaluation(const Edit& edit, const std::string& window, const std::string& transcript)> evaluate;
};

class InteractiveProposer {
 public:
  virtual ~InteractiveProposer() = default;
  virtual std::string name() const = 0;  // "llm"
  // One turn: evaluates a few edits through turn.evaluate. Returns false when it has nothing more
  // to do for this kernel (its own budget is spent, the endpoint gave up, it chose to stop).
  virtual bool turn(AgentTurn& turn) = 0;
};

struct OptimizeOptions {
  size_t budget = 200;            // candidates per kernel, counted over resumed runs too (0: no limit)
  double time_limit_s = 0;        // wall-clock limit for the whole run (0: none)
  unsigned jobs = 1;              // emulator threads per run
  uint64_t seed = 1;
  std::vector<std::string> proposers = {"rules", "stochastic"};
  double min_gain = 0.01;
  unsigned windows = 5, window_length = 64;
  std::string counterexample_dir; // empty: none written
  bool resume = false;
  bool patch_only = false;        // in-place patches only, even when K0 could be rebuilt
  // Makes the interactive proposer for a kernel when `proposers` holds "llm" (issue 8); without it
  // asking for llm is an error.
  std::function<std::unique_ptr<InteractiveProposer>(const std::string& kernel)> make_llm;
  unsigned llm_share = 2;  // the agent gets a turn every llm_share-th round
};

struct KernelJob {
  std::string kernel;
  std::string spec_path;
  std::vector<emu::LaunchSpec> specs;
};

struct KernelOutcome {
  std::string kernel;
  double baseline_cycles = 0, best_cycles = 0, baseline_us = 0, best_us = 0;
  size_t candidates = 0, accepted = 0;        // over all runs of this DB
  size_t candidates_this_run = 0;
  std::string final_verdict;                  // "EQUIVALENT", or why K0 was kept
  std::map<std::string, size_t> accepted_moves;
  std::map<std::string, size_t> rejected_at;  // stage -> count (this run)
  bool patch_mode = false;
  double seconds = 0;
  double speedup() const { return best_cycles > 0 ? baseline_cycles / best_cycles : 1.0; }
};

struct OptimizeResult {
  std::vector<uint8_t> bytes;  // the optimized code object
  std::vector<KernelOutcome> kernels;
  int64_t run = 0;
  double seconds = 0;
  size_t candidates = 0;       // this run
};

struct ProgressStatus {
  std::string kernel, window, move;
  size_t tried = 0, verified = 0, accepted = 0, budget = 0;
  double best_speedup = 1, rate = 0, eta_s = -1;
};

struct Progress {
  std::function<void(const std::string&)> log;             // one line
  std::function<void(const ProgressStatus&)> status;       // after every candidate
};

// Throws asmevo::Error for a kernel the file lacks, specs that are not valid launches of K0, or an
// unknown proposer.
OptimizeResult optimize(const std::vector<uint8_t>& k0_bytes, const std::string& file_name,
                        const std::vector<KernelJob>& jobs, Store& store, const OptimizeOptions& options,
                        const std::string& command, const Progress& progress = {});

// 16 hex digits identifying bytes (support/content_hash.h): the key that finds a kernel's rows on resume.
using asmevo::content_hash;

}  // namespace asmevo::search
