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
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  double kernel_time_s = 0;       // per kernel: wall-clock search time after its setup (K0 timed, references run; 0: none)
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
  CascadeOptions::Proof proof = CascadeOptions::Proof::Gate;  // the cascade's proof stage (docs/prove.md)
  unsigned proof_timeout_ms = 2000;
  std::optional<CascadeOptions::HipRuntime> hip;  // --backend hip: run and time on a HIP runtime
  bool prove_winners_only = false;  // CascadeOptions::prove_winners_only
  std::vector<std::string> moves;  // the move filter (MoveFilter::parse): "-widen" switches widen off
  unsigned robust_draws = 4;       // robust fitness (CascadeOptions::robust_draws; 0: nominal row only)
  double robust_fraction = 0.25;
};

// Where this run's candidates spent their time, per cascade stage (search/cascade.h): seconds
// summed over the candidates that reached the stage.
struct StageTime {
  double seconds = 0;
  size_t candidates = 0;
};

// One candidate's proof stage (this run): its verdict, the window-level verdict when measured, and
// whether the candidate then passed full verification (a "good" candidate).
struct ProofStat {
  std::string verdict, window_verdict;
  std::string move, detail;  // the candidate's move and the proof stage's detail
  double seconds = 0;
  bool passed_emulate = false;  // the quick run agreed (testing's first gate; Measure mode lets DISPROVEN ones run)
  bool passed_verify = false;
};

struct KernelJob {
  std::string kernel;
  std::string spec_path;
  std::vector<emu::LaunchSpec> specs;
};

struct KernelOutcome {
  std::string kernel;
  // The fitness (Cascade::fitness_description: modeled cycles on the perf launches, geomean when
  // several) of K0 and of the final object, and the same per perf launch.
  std::string fitness;
  double baseline_cycles = 0, best_cycles = 0, baseline_us = 0, best_us = 0;
  std::vector<LaunchFigure> baseline_launches, best_launches;
  size_t candidates = 0, accepted = 0;        // over all runs of this DB
  size_t candidates_this_run = 0;
  std::string final_verdict;                  // "EQUIVALENT", or why K0 was kept
  std::map<std::string, size_t> accepted_moves;
  std::map<std::string, size_t> rejected_at;  // stage -> count (this run)
  bool patch_mode = false;
  double seconds = 0;
  std::vector<ProofStat> proofs;              // this run's candidates that reached the proof stage
  std::map<std::string, StageTime> stage_time;  // this run, per stage (edit, cache, rebuild, static, prove, emulate, timing, robust, verify, accept)
  std::string robust;                         // Cascade::robust_description
  size_t robust_removed() const {             // wins under the nominal row that the perturbed rows rejected
    auto it = rejected_at.find("robust");
    return it == rejected_at.end() ? 0 : it->second;
  }
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

// One kernel's search as optimize() runs it, open to a driver outside the optimizer's loop (`asmevo
// mcp`): K0's cascade, the kernel's row in the store, the population resumed from it, the budget
// and the final gate. optimize() is made of it, so a driver's candidates are evaluated, stored and
// counted exactly like the built-in proposers'.
class KernelSession {
 public:
  // `start`: the object the search starts from (K0, or what the previous kernel left). Throws
  // asmevo::Error when the specs are not valid launches of K0.
  KernelSession(const codeobj::CodeObject& k0, const std::vector<uint8_t>& k0_bytes, const std::vector<uint8_t>& start,
                const std::string& file_name, const KernelJob& job, Store& store, int64_t run, bool rebuildable,
                const OptimizeOptions& options, const Progress& progress, std::chrono::steady_clock::time_point run_start);
  ~KernelSession();
  KernelSession(const KernelSession&) = delete;
  KernelSession& operator=(const KernelSession&) = delete;

  // The built-in loop (options.proposers) until the budget or the time is spent.
  void search();
  // The current best, its windows and `evaluate`, for an external driver. budget_left is 0 once
  // options.budget (counted over resumed runs) or options.time_limit_s is spent.
  AgentTurn turn();
  bool budget_left() const;

  // The final gate: the best candidate (then the next best) re-verified from scratch with fresh
  // seeds and re-timed, recorded with Store::set_final. May be called again after more candidates.
  struct Final {
    std::optional<int64_t> candidate;  // none: no candidate passed (bytes are the start object's)
    std::vector<uint8_t> bytes;
    std::string verdict;               // "EQUIVALENT", or why the start object was kept
    nlohmann::json report;             // the re-verification report (verify::VerifyReport::to_json)
    double cycles = 0, us = 0;         // modeled
  };
  Final finish();

  KernelOutcome outcome() const;  // figures so far (this run and the resumed ones)
  const KernelRecord& record() const;
  const Cascade& cascade() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where a kernel's candidates spent their time, per cascade stage: JSON {stage: {seconds, candidates}}
// and one line, the costliest stage first (optimize's summary, bench/speedups).
nlohmann::json stage_profile_json(const KernelOutcome& k);
std::string stage_profile_text(const KernelOutcome& k);

// Throws asmevo::Error for a kernel the file lacks, specs that are not valid launches of K0, or an
// unknown proposer.
OptimizeResult optimize(const std::vector<uint8_t>& k0_bytes, const std::string& file_name,
                        const std::vector<KernelJob>& jobs, Store& store, const OptimizeOptions& options,
                        const std::string& command, const Progress& progress = {});

// 16 hex digits identifying bytes (support/content_hash.h): the key that finds a kernel's rows on resume.
using asmevo::content_hash;

}  // namespace asmevo::search
