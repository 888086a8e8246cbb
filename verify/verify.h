// Differential verification (docs/verify.md): a candidate K1 is accepted only if it behaves like
// the original K0 under identical launches. Order of the gates, cheapest first:
//   1. ABI: K1 can replace K0 under every launch (rebuild::abi_diff).
//   2. Static safety of K1 (check/): waitcnt, manually inserted wait states, resources —
//      findings K0 itself has at the same instruction are not held against K1.
//   3. Every concrete run of the spec (launch shapes x input sets, emu::expand_runs) on the same
//      backend: output buffers poisoned, guard zones filled with a canary; afterwards outputs are
//      compared (per `compare`), inputs must be unchanged, guard zones intact, and K1 must neither
//      fault nor run past a step limit derived from K0's longest wave. K1's runs rotate through
//      the emulator's wave schedules, so a missing barrier shows up, and half of them enter
//      kernarg-preload kernels through their compatibility prologue.
//      Each perf launch of a v3 spec (`perf:`) is one more run: full-size buffers, input set 0, a
//      sample of its workgroups (emu::sample_workgroups: corners and a spread; the same for K0 and
//      K1), so what only large sizes expose (offset overflow, far workgroups, other grid
//      dimensions, partial tiles at real sizes) is seen without emulating the whole grid.
// K0's runs are done once (Reference) and reused for every candidate.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <functional>
#include <string>
#include <vector>

#include "rebuild/abi_diff.h"
#include "check/violation.h"
#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "verify/backend.h"

namespace asmevo::verify {

enum class Verdict { Equivalent, Different, Unsafe, Fault, Error };
const char* verdict_name(Verdict v);  // "EQUIVALENT", ...
// Exit status of `asmevo verify`: 0 EQUIVALENT, 10 DIFFERENT, 11 UNSAFE, 12 FAULT, 2 ERROR.
int verdict_exit_code(Verdict v);

struct Mismatch {
  size_t run = 0;          // index into Reference::runs()
  std::string run_label;   // "launch 0, input set 1"
  std::string buffer;      // label of the buffer argument
  std::string kind;        // "output", "input modified", "guard zone"
  int64_t index = 0;       // element index (output / input); byte offset from the buffer's start (guard)
  std::string k0, k1;      // the values (elements formatted by dtype, guard bytes in hex)
};

// What a verdict rests on (docs/verify.md "Evidence"): the gate that decided and, for runs, which
// input set. kind: "abi", "static", "fault" (K1 faulted or hung), "out-of-bounds" (K1 touched
// memory the launch does not allow), "random input", "special input", "aimed input",
// "magnitude input" (float inputs scaled to the ends of their range, magnitude_sets.h),
// "literal input" (float inputs drawn from the original's own constants, aim_literals.h),
// "saved input" (a counterexample or regression spec), "boundary launch" (a `vary:` value),
// "perf launch" (a perf launch at full size on sampled workgroups), or
// "all runs" for EQUIVALENT.
struct Evidence {
  std::string kind;
  std::string run_label;  // the run (launch shape, input set, variant) when a run decided
  std::string detail;     // e.g. the aimed thresholds of that set, the out-of-bounds access
};

// A perf launch verified on a sample of its workgroups (the report names it and the sample).
struct SampledRun {
  std::string label;          // "perf decode"
  std::string launch;         // emu::perf_description
  std::string shape;          // emu::shape_text
  uint64_t workgroups_total = 0;
  std::vector<std::string> workgroups;  // "(x,y,z)" of every sampled workgroup
  uint64_t buffer_bytes = 0;  // device bytes of its buffers (full size)
};

struct VerifyOptions {
  bool static_checks = true;
  // Add input sets aimed at K0's data-dependent decisions (verify/aimed.h) to every launch shape.
  bool aimed_inputs = true;
  // Where aimed inputs are made when `backend` cannot observe execution (a HIP runtime): an
  // emulator runs K0 under the observer, and the sets it makes run on `backend` like any other.
  // Null: `backend` itself.
  Backend* aim_with = nullptr;
  size_t max_mismatches = 10;       // mismatches listed (all are counted)
  bool stop_at_first_difference = false;  // the optimizer's fast path; the CLI runs every set
  std::string counterexample_dir;   // save exposing input sets here (empty: do not save)
  // Candidate runs take turns between the wave schedules (in order, reverse, interleaved) so a
  // missing barrier or LDS wait changes results, and every other run enters kernarg-preload
  // kernels at their compatibility prologue (firmware without preloading), and runs 2-3 of each 4
  // start workgroups with LDS filled with 0xA5 instead of zeros, and run 1 of every 4 places the
  // buffers across 4 GiB boundaries (a dropped carry in 64-bit address arithmetic then shows) and
  // run 3 fills undefined registers; a perf launch's run does both whatever its index
  // (Reference::candidate_conditions); each off when the reference's own results depend on it.
  bool vary_run_conditions = true;
  // Every candidate run stops at the first LDS race (two waves touch one LDS byte, one writing, with
  // no s_barrier between; emu/lds_races.h): a FAULT with evidence "lds race", unless the original
  // races in that run too (then the run is made again without the check).
  bool lds_race_check = true;
  // K1's per-wave step limit: factor x K0's longest wave in that run + slack.
  uint64_t step_limit_factor = 4, step_limit_slack = 100000;
  // After every run agreed: candidate runs of the difference search (verify/difference_search.h)
  // on the sampled workgroups of the first run, beside observed runs of K0; an input whose outputs
  // differ there is run as a whole launch, and a difference there is the verdict ("searched input").
  // 0: no search.
  unsigned difference_search_steps = 32;
  // The workgroups of K1 to start in a sampled run (a perf launch) instead of the original's sample:
  // for a candidate that renumbers its workgroups (search/moves/workgroup_remap.h), the ones that
  // compute what the original's sampled workgroups compute. The comparison is unchanged: K1's outputs
  // must equal K0's everywhere, poison where K0's sample wrote nothing. Null: the same sample.
  std::function<std::vector<uint64_t>(const emu::LaunchSpec& run)> candidate_sample;
  // A gate between the static checks and the runs (the optimizer's proof stage, search/cascade.cpp):
  // a non-empty reason stops verification with DIFFERENT before anything is emulated.
  std::function<std::string()> after_static;
};

struct VerifyReport {
  Verdict verdict = Verdict::Error;
  std::string summary;  // one line
  std::string kernel, target, k0_name, k1_name, figure_kind;
  size_t runs_total = 0, runs_done = 0;
  std::vector<Mismatch> mismatches;  // the first max_mismatches
  uint64_t mismatch_count = 0;
  std::vector<size_t> differing_runs;
  std::vector<rebuild::AbiFinding> abi_breaks;
  std::vector<check::Violation> violations;
  std::string fault, fault_run;
  std::optional<emu::DeviceMemory::OutOfBounds> out_of_bounds;  // FAULT: K1's access outside the launch
  Evidence evidence;
  std::map<std::string, size_t> runs_by_kind;  // runs done per input kind ("random input": 6, ...)
  std::vector<std::string> counterexamples;  // folders written
  std::vector<std::string> notes;            // things a person should know (e.g. K0 never writes a buffer)
  std::vector<SampledRun> sampled_runs;      // the perf launches among the runs
  double seconds = 0;
  nlohmann::json to_json() const;  // schema asmevo.verify/1 (sampled_runs added later, same version)
  std::string to_text() const;
  int exit_code() const { return verdict_exit_code(verdict); }
};

// K0 with the outcomes of every concrete run of its specs.
class Reference {
 public:
  // Loads K0 and runs every concrete run of `specs`. Throws asmevo::Error when the specs do not
  // describe a valid launch of K0: K0 faults or hangs, writes outside a buffer or into an input
  // buffer, no buffer is an output, or every input is all zeros.
  Reference(Backend& backend, const codeobj::CodeObject& k0, const std::vector<emu::LaunchSpec>& specs,
            const VerifyOptions& options = {});
  ~Reference();

  const codeobj::CodeObject& k0() const { return k0_; }
  const std::string& kernel() const { return kernel_; }
  const std::vector<emu::LaunchSpec>& runs() const { return runs_; }
  const std::vector<RunOutcome>& outcomes() const { return outcomes_; }
  const std::vector<check::Violation>& k0_violations() const { return k0_violations_; }
  const std::vector<std::string>& notes() const { return notes_; }
  // Per run: where its inputs came from ("random input", "special input", "aimed input",
  // "saved input") and, for aimed sets, which thresholds it puts values at.
  const std::vector<Evidence>& run_inputs() const { return run_inputs_; }
  const std::vector<SampledRun>& sampled_runs() const { return sampled_runs_; }
  // K0's outputs differ between wave schedules, or another schedule reorders its order-dependent
  // atomics (float adds, swaps: their result may then follow the schedule whatever this run's values
  // gave): candidates then run in K0's schedule only.
  bool schedule_sensitive() const { return schedule_sensitive_; }
  const LoadedKernel& loaded() const { return *loaded_; }  // K0 on backend()
  // K0's outputs differ when entered without kernarg preloading (should not happen).
  bool preload_sensitive() const { return preload_sensitive_; }
  // K0's outputs depend on what LDS holds before the kernel writes it (reads uninitialised LDS).
  bool lds_sensitive() const { return lds_sensitive_; }
  // K0's outputs change with where its buffers are (they should not).
  bool address_sensitive() const { return address_sensitive_; }
  // K0's outputs depend on registers the kernel descriptor leaves undefined (it reads one before writing it).
  bool register_sensitive() const { return register_sensitive_; }
  // Addresses of K0's instructions that ran in any of its runs (including the variant probes):
  // what the spec exercises. An edit elsewhere cannot change any run's result.
  const std::set<uint64_t>& executed() const { return executed_; }
  // K0's decisions as the aimed-inputs observer saw them (first input set of each launch shape,
  // verify/aimed.h): thresholds found per deciding instruction (by address; directly inverted or
  // searched), and the decisions no operand of which derives from an input element.
  const std::map<uint64_t, size_t>& aimed_decisions() const { return aimed_decisions_; }
  const std::set<uint64_t>& launch_determined_decisions() const { return launch_determined_; }
  Backend& backend() const { return backend_; }
  double seconds() const { return seconds_; }
  // Adds the runs of another spec for the same kernel (a saved counterexample); same checks.
  void add_spec(const emu::LaunchSpec& spec);
  // The conditions under which a candidate makes run `run` (with options.vary_run_conditions; the
  // default variant without): wave schedules, kernarg preloading, LDS fills, 4 GiB straddling and
  // register fills in turn by run index, each off where K0's results depend on it. A perf launch's
  // run straddles 4 GiB boundaries and fills undefined registers whatever its index, as K0 was
  // checked on that very run to allow (otherwise packed or zeroed, with a note).
  RunVariant candidate_conditions(size_t run, const VerifyOptions& options) const;

 private:
  void add_run(const emu::LaunchSpec& run, Evidence inputs);
  void check_perf_conditions(size_t run);
  Backend& backend_;
  const codeobj::CodeObject& k0_;
  std::string kernel_;
  std::unique_ptr<LoadedKernel> loaded_;
  std::vector<emu::LaunchSpec> runs_;
  std::vector<RunOutcome> outcomes_;
  std::vector<check::Violation> k0_violations_;
  std::vector<std::string> notes_;
  std::vector<Evidence> run_inputs_;
  bool aimed_ = true;
  Backend* aim_with_ = nullptr;
  std::unique_ptr<LoadedKernel> aim_loaded_;  // K0 on aim_with_
  std::vector<SampledRun> sampled_runs_;
  // Per perf-launch run (by run index): the placement and register fill K0 gives its own results under.
  struct PerfConditions {
    bool straddle_4g = false;
    uint32_t register_fill = 0;
  };
  std::map<size_t, PerfConditions> perf_conditions_;
  bool schedule_sensitive_ = false, preload_sensitive_ = false, lds_sensitive_ = false, address_sensitive_ = false,
       register_sensitive_ = false;
  std::set<uint64_t> executed_;
  std::map<uint64_t, size_t> aimed_decisions_;
  std::set<uint64_t> launch_determined_;
  double seconds_ = 0;
};

// Verifies candidate K1 against the reference. Never throws for a bad candidate: an unsupported
// instruction or a K1 that cannot be loaded gives verdict ERROR with the reason.
VerifyReport verify_candidate(const Reference& reference, const codeobj::CodeObject& k1, const VerifyOptions& options = {});

}  // namespace asmevo::verify
