// The evaluation cascade: what every candidate edit goes through, cheapest stage first, stopping at
// the first failure (issue 7):
//   edit      the hunks apply to the parent Program (resources recomputed)
//   rebuild   the edited listing assembles and links into a code object
//   abi       K1 can replace K0 (rebuild::abi_diff)                     } one quick verify_candidate
//   static    waitcnt, wait-state hazards, resources (check/)         } against a reference of one
//   prove     the changed window vs the old one, for all inputs (prove/) } input set
//   emulate   one small input set (plus every counterexample so far)  } input set
//   timing    modeled cycles on the perf launches (geomean when several; emu::perf_runs) at least
//             `min_gain` below the parent's
//   verify    every run of every launch spec (verify_candidate, all input sets, varied conditions)
//   accept
// Slow candidates never reach full verification; wrong ones are usually stopped by the single-run
// emulation. A DIFFERENT verdict in full verification saves a counterexample, which is added to
// both references, so later candidates meet it at the cheap stage.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "program/program.h"
#include "prove/launch_facts.h"
#include "search/edit.h"
#include "search/store.h"
#include "timing/backend.h"
#include "verify/verify.h"

namespace asmevo::prove {
struct ProofResult;  // prove/prove.h
}

namespace asmevo::search {

struct CascadeOptions {
  double min_gain = 0.01;          // accept only if cycles <= parent * (1 - min_gain)
  unsigned threads = 1;            // emulator threads per run
  std::string counterexample_dir;  // empty: counterexamples are not saved to disk
  bool patch_mode = false;         // K0 cannot be rebuilt: edits become in-place patches of K0
  // The proof stage (prove/, docs/prove.md), between the static checks and the first emulation:
  // Gate stops DISPROVEN candidates there; Measure proves and records (also the window-level
  // verdict, without liveness) but lets every candidate go on, to count refusals of good ones.
  enum class Proof { Off, Gate, Measure } proof = Proof::Gate;
  // The proof stage's limit per candidate: solver work (prove::ProofOptions::budget_ms, every query and
  // step together) and wall-clock time (ProofOptions::deadline), whichever ends first; then UNKNOWN.
  unsigned proof_timeout_ms = 2000;
  // --backend hip (docs/hip.md): candidates run on a HIP runtime (dlopen) instead of the emulator,
  // and the fitness is the median of HIP-event times on the perf launches, MEASURED, instead of
  // the model. Aimed inputs are still made on the emulator (only it observes K0), hot windows still
  // come from the model's profile (hardware counters are not read), and the final re-verification
  // runs on the runtime too.
  struct HipRuntime {
    std::string library;  // "" = $ASMEVO_HIP_LIBRARY, else libamdhip64.so.5
    unsigned warmup = 3, repetitions = 20;
  };
  std::optional<HipRuntime> hip;
  // Gate mode: prove only the candidates that won (after the timing and robust stages) instead of
  // every candidate before its first emulation. A proof costs seconds to a minute per candidate, the
  // quick run milliseconds (the cascade profile, docs/search.md); the gate still stands before
  // full verification, so no accepted candidate skips it.
  bool prove_winners_only = false;
  // Robust fitness: a candidate faster than its parent under the nominal hardware row must also be
  // faster under `robust_draws` perturbed rows (timing/hw_perturb.h: every [U] or fitted parameter
  // moved by +/- robust_fraction, signs drawn from robust_seed + draw), so that no win rests on one
  // guessed latency. 0: the nominal row only.
  unsigned robust_draws = 4;
  double robust_fraction = 0.25;
  uint64_t robust_seed = 17;
};

// The fitness of a code object: modeled time on every perf launch, and their geomean, counted in
// cycles of the peak clock (the model's own cycles wherever its clock stays at the peak; under
// matrix-unit load it runs slower: timing::set_clock). With a HIP runtime: measured µs, and "cycles"
// are those µs at the clock the device reports.
struct Fitness {
  double cycles = 0, microseconds = 0;  // geomean over `launches`
  std::vector<LaunchFigure> launches;
  std::shared_ptr<const timing::ModeledRun> profile;  // the first perf launch's model (hot windows)
  std::vector<double> robust_cycles;  // per perturbed row (geomean over `launches`); empty unless asked for
  // Per perf launch, the traces the model replayed (Cascade::fitness's `keep_traces`): the robust
  // stage replays the perturbed rows on them one at a time (Cascade::robust_row).
  std::vector<std::shared_ptr<const timing::LaunchTraces>> traces;
};

// "a 1000 -> 900, b 2000 -> 1900" (modeled cycles per launch).
std::string launch_changes(const std::vector<LaunchFigure>& before, const std::vector<LaunchFigure>& after);

// A code object on the search path: K0 or an accepted candidate.
struct Individual {
  int64_t id = 0;                  // candidate id in the store; 0 = K0
  std::vector<uint8_t> bytes;
  std::shared_ptr<const codeobj::CodeObject> co;
  std::shared_ptr<const program::Program> program;  // recovered from `bytes`
  double cycles = 0;               // the fitness (Fitness::cycles): modeled time as peak-clock cycles, geomean
  double microseconds = 0;         // the same in modeled µs (geomean)
  std::vector<LaunchFigure> launches;  // per perf launch
  std::shared_ptr<const timing::ModeledRun> timed;  // the first perf launch's model (profile, hot windows)
  std::vector<double> robust_cycles;  // the fitness under each perturbed row (CascadeOptions::robust_draws)
  std::string move, window;        // what made it (empty for K0)
};

struct Evaluation {
  std::vector<StageResult> stages;
  bool accepted = false;
  std::string stage, reason;       // the last stage reached; why it stopped
  double cycles = 0;               // the fitness as Fitness::cycles (0 when timing was not reached)
  std::vector<LaunchFigure> launches;  // per perf launch (empty when timing was not reached)
  std::optional<Individual> child; // when accepted
  std::vector<std::string> counterexamples;  // folders written
  double seconds = 0;
};

class Cascade {
 public:
  // Runs K0 once on the quick run (the first concrete run of the first spec) and on every run of
  // the specs (the full reference, with the perf launches on sampled workgroups). The fitness is
  // timed on the perf launches of every spec that has a `perf:` list, else on the first spec's
  // first verification run (v2). Throws asmevo::Error when the specs are not valid launches of K0.
  Cascade(const codeobj::CodeObject& k0, const std::string& kernel, const std::vector<emu::LaunchSpec>& specs,
          const CascadeOptions& options);
  ~Cascade();

  // K0 (or any object) as an Individual: recovered, timed on the perf launches.
  Individual individual(const std::vector<uint8_t>& bytes, int64_t id, const std::string& name) const;
  // The first perf launch: the one profiled for hot windows.
  const emu::LaunchSpec& timing_run() const { return perf_runs_.at(0); }
  const std::vector<emu::LaunchSpec>& perf_runs() const { return perf_runs_; }
  // What the fitness is, naming its launches: "modeled time (as cycles at the peak clock) on perf launch
  // 'decode' (k.yaml:21)", "geomean of modeled time (as cycles at the peak clock) on perf launches 'decode' (..), ..".
  std::string fitness_description() const;
  // "modeled" (AsmEvo's model) or "measured" (HIP events on the runtime).
  const char* figure_kind() const { return options_.hip ? "measured" : "modeled"; }
  // The model of the first perf launch.
  timing::ModeledRun model(const codeobj::CodeObject& co) const;
  // `robust`: also under every perturbed row (Fitness::robust_cycles). `keep_traces`: Fitness::traces
  // holds each perf launch's traces for robust_row.
  Fitness fitness(const codeobj::CodeObject& co, bool robust = false, bool keep_traces = false) const;
  // The fitness under perturbed row `row` (robust_rows()), replayed on the traces a fitness kept:
  // the figure fitness(co, true).robust_cycles[row] is, without emulating again.
  double robust_row(const Fitness& timed, size_t row) const;
  // Perturbed-row replays the robust stage made (robust_row calls), over this cascade's life.
  uint64_t robust_replays() const { return robust_replays_; }
  // The perturbed rows robust fitness uses (empty when it is off) and what they perturb.
  const std::vector<timing::HwParams>& robust_rows() const { return robust_rows_; }
  std::string robust_description() const;

  Evaluation evaluate(const Individual& parent, const Edit& edit);
  // Adds a saved counterexample's spec to both references.
  void add_counterexample(const emu::LaunchSpec& spec);

  // From scratch: a new reference with fresh seeds (every spec's seed offset by `seed_offset`),
  // every run, every variation. The final gate before an optimized object is written.
  verify::VerifyReport reverify(const codeobj::CodeObject& k1, uint64_t seed_offset) const;

  const std::string& kernel() const { return kernel_; }
  const codeobj::CodeObject& k0() const { return *k0_; }

 private:
  std::vector<timing::HwParams> robust_rows_for(codeobj::Arch arch) const;
  std::vector<uint8_t> build_candidate(const Individual& parent, const Edit& edit, std::vector<StageResult>& stages,
                                       std::string& reason, std::string& key) const;
  std::shared_ptr<const codeobj::CodeObject> k0_;
  std::string kernel_;
  std::vector<emu::LaunchSpec> specs_;
  std::vector<emu::LaunchSpec> perf_runs_;
  CascadeOptions options_;
  std::unique_ptr<verify::Backend> make_backend() const;
  std::unique_ptr<verify::Backend> backend_;
  std::unique_ptr<verify::Backend> aim_backend_;  // the emulator that makes aimed inputs for a HIP runtime
  std::unique_ptr<verify::Reference> quick_, full_;
  // The launch facts of the admitted launches (the full reference's runs and the perf launches),
  // made on the first proof; a parent whose entry layout differs from K0's gets none.
  std::optional<prove::LaunchBounds> launch_bounds_;
  const prove::LaunchBounds* launch_bounds_for(const program::Program& parent);
  // The window proof of `edit` on `parent` as the proof stages make it: the cascade's timeout, the
  // parent's float mode, the admitted launches' facts where the parent has K0's entry layout.
  prove::ProofResult prove_window(const program::Program& parent, const Edit& edit, bool use_liveness = true);
  std::vector<timing::HwParams> robust_rows_;
  // The perf launches' input chunks, generated when K0 is timed and copied for every candidate (the
  // inputs are the same bytes each time).
  std::shared_ptr<emu::InputChunks> inputs_ = std::make_shared<emu::InputChunks>();
  // Candidates by the hash of their edited text (or patched bytes): what an earlier candidate with
  // the same code reached, so a repeat costs neither a rebuild nor an emulation.
  struct Seen {
    std::string stage, reason;      // where it was rejected ("" while it passed everything it met)
    int64_t ordinal = 0;            // which evaluation first met this text
    std::vector<uint8_t> bytes;     // when it passed the quick run
    std::shared_ptr<const codeobj::CodeObject> co;
    std::vector<LaunchFigure> launches;
    double cycles = 0, microseconds = 0;
    std::vector<double> robust_cycles;
  };
  std::map<std::string, Seen> seen_;
  int64_t evaluations_ = 0;
  mutable uint64_t robust_replays_ = 0;
};

// Text of the kernel's instructions with modeled cycles: JSON [{address, text, cycles}].
std::string per_line_json(const Individual& ind, const std::string& kernel);
// The kernel's lines as text (for diffs in the report).
std::string kernel_listing(const program::Program& p, const std::string& kernel);

}  // namespace asmevo::search
