// Translation validation of window edits (docs/prove.md): the old window (K0's lines) and the new
// one (K1's) run on a symbolic wave whose live-in state — SGPRs, VGPRs per lane, VCC/EXEC/M0/SCC,
// global memory — is free; Z3 then decides whether some live-in state makes the live-out state
// differ: written registers (only those live after the window, when liveness is given) and the
// final memory (every store, its address and value symbolic; loads read the memory as the stores
// left it, so aliasing is the solver's to decide).
//   PROVEN     equal for every live-in state
//   DISPROVEN  a live-in state that makes them differ (re-run on the emulator's concrete units
//              whenever the window has no memory access, and then only kept if they differ there too)
//   UNKNOWN    timeout, control flow in the window, an unsupported instruction, or a difference that
//              exists only through uninterpreted functions and could not be confirmed concretely
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "program/program.h"
#include "prove/launch_facts.h"

namespace asmevo::prove {

enum class Verdict { Proven, Disproven, Unknown };
const char* verdict_name(Verdict v);  // "PROVEN", "DISPROVEN", "UNKNOWN"

// A concrete live-in state for the window (K0's registers as observed when it reached the window's
// first instruction): every register is fixed to its value except the VGPR lanes in `free`, which
// stay free variables (they derive from input elements, so an input can give them other values).
// The solver then looks for a difference the kernel's own context can reach.
struct LiveInState {
  std::array<uint32_t, 128> s{};          // SGPRs (VCC, EXEC, M0 included), emu::kNumScalarRegs
  bool scc = false;
  std::vector<std::array<uint32_t, 64>> v;  // VGPRs v0.. (lanes)
  std::set<std::pair<unsigned, unsigned>> free;  // (VGPR, lane)
  // SGPRs left free too (scalar arguments loaded from the kernarg segment): the launch facts on
  // them (ProofOptions::facts) bound them to the admitted values.
  std::set<unsigned> free_sgprs;
};

inline constexpr uint64_t kMaxMemoryLinks = 16384;

// Solver limits are counted in Z3's resource units ("rlimit"), not in wall-clock time, so that a
// verdict does not depend on how loaded the machine is: the same proof on a busy CI box and an idle
// laptop gives the same PROVEN/UNKNOWN. The options keep milliseconds as their unit of account,
// converted at kZ3WorkPerMs units per ms: measured on the shared 2-core Xeon with prove_test's
// queries of more than 20 ms of thread CPU time, 1.6-5.5 k units per CPU ms (median 2.6 k); the
// conversion is approximate by that spread. A wall-clock backstop of kWallBackstop times the same
// limit (at least 1 s) stops a query whose units grow slowly (then the verdict is load-dependent
// again; the reason says so).
inline constexpr uint64_t kZ3WorkPerMs = 2500;
inline constexpr unsigned kWallBackstop = 4;

struct ProofOptions {
  unsigned timeout_ms = 2000;  // solver work per query, in ms at kZ3WorkPerMs (see above)
  unsigned budget_ms = 10000;  // all queries of one proof together, prove_edit's earlier-start retry included (then UNKNOWN)
  uint64_t work_spent = 0;     // units a previous attempt at the same proof already spent (prove_edit's retry)
  double wall_spent_ms = 0;    // its wall-clock time (for the backstop)
  // A wall-clock deadline for the whole proof (every query, prove_edit's earlier-start retry; the
  // search's proof stage per candidate, search/cascade.cpp): a query still running at it is cut off
  // and none starts after it, so the proof ends UNKNOWN about then (building the terms of one query
  // and freeing them are not cut). Unlike the work limits it depends on the machine's speed and
  // load; a verdict it decides says so. max(): none.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Load-byte x store-byte links a window's memory chains may hold (Machine::reserve_load): past
  // it the proof is UNKNOWN before the terms are built, since building and freeing them is not
  // under the solver's timeout.
  uint64_t max_memory_links = kMaxMemoryLinks;
  uint32_t mode_bits = 0;      // the kernel's MODE register at entry (f32 denormal flush, rounding; concrete re-runs)
  const LiveInState* context = nullptr;  // fixed live-in registers (null: all free)
  // prove_edit: the window runs on past the edit to the end of its basic block (up to its branch or
  // the first instruction the prover does not model), so a difference that only shows in a later
  // compare of the same block (a range check) is found.
  bool extend_to_block_end = false;
  // Constraint-aware proofs (prove/launch_facts.h): prove_edit derives the facts the admitted
  // launches fix at the window's start from `launch` and proves under them; prove_window takes
  // `facts` as given. With `context`, only the facts on its free SGPRs are used (the rest are concrete).
  const LaunchBounds* launch = nullptr;
  std::vector<RegisterFact> facts;
};

// One live-in register value of a model (a counterexample's state).
struct LiveInValue {
  bool vector = false;
  unsigned reg = 0, lane = 0;
  uint32_t value = 0;
};

struct ProofResult {
  Verdict verdict = Verdict::Unknown;
  std::string reason;          // UNKNOWN: why; DISPROVEN: what differs; PROVEN: what was compared
  std::string counterexample;  // DISPROVEN: the live-in values that matter ("v1.l0=0x5 s4=0x0 ...")
  std::vector<LiveInValue> live_in;  // the solver's model, when it found one (also when the verdict stays UNKNOWN)
  bool confirmed = false;      // DISPROVEN re-run concretely and the results differ
  bool uninterpreted = false;  // some unit was an uninterpreted function
  size_t old_insts = 0, new_insts = 0;
  size_t paths = 0;            // paths through both windows' branches (2 for straight-line windows)
  size_t first_line = 0, last_line = 0;  // the window in the parent's .text lines (prove_edit)
  std::vector<std::string> facts;        // the launch facts the proof assumed (fact_text), if any
  double seconds = 0;
  uint64_t solver_work = 0;    // Z3 resource units the per-location queries spent (what budget_ms counts)
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Proves two instruction sequences (assembly text, one instruction or label "name:" per entry)
// equivalent. They may branch forward (s_branch, s_cbranch_scc0/scc1/vccz/vccnz/execz/execnz) to
// their own labels or leave to labels outside, and end at s_endpgm: every path is followed (an
// acyclic region; a backward branch is UNKNOWN) and both must take the same exit. `live_out`: the
// registers that matter at the window's end (null: every register either side writes — window-level
// equivalence); `live_at_labels`: those at each exit label (an exit not listed: every register).
ProofResult prove_window(const std::vector<std::string>& old_lines, const std::vector<std::string>& new_lines,
                         const program::RegSet* live_out, const ProofOptions& options,
                         const std::map<std::string, program::RegSet>* live_at_labels = nullptr);

// One replaced range of a parent's .text lines (search::Hunk without its dependency).
struct Change {
  size_t first = 0, count = 0;
  std::vector<std::string> lines;
};

// The window an edit changes: the span of its hunks in `parent`, which must lie inside one basic
// block (the acyclic region this prover handles); registers live after the window come from the
// parent's liveness (`use_liveness`), so a dead-code removal can be proven.
ProofResult prove_edit(const program::Program& parent, const std::string& kernel, const std::vector<Change>& changes,
                       const ProofOptions& options, bool use_liveness = true);

// For tests: runs one instruction on random live-in states (seeded) both with the emulator's
// concrete unit and as the prover's terms, and returns the first disagreement ("" when they agree
// on every trial). Throws asmevo::Error when the prover cannot model the instruction.
std::string disagreement(const std::string& line, uint64_t seed, unsigned trials);

// Whether the prover models this instruction (text) at all: false for control flow and for what
// would make a window UNKNOWN as unsupported.
bool models_line(const std::string& line);

// Units the prover reads from their generic definition (emu/semantics/int_units.h).
bool has_generic_unit(std::string_view stem);
std::vector<std::string> generic_unit_stems();

}  // namespace asmevo::prove
