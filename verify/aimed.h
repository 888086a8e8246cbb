// Inputs aimed at the original kernel's data-dependent decisions (docs/verify.md "Aimed inputs").
// Random inputs rarely put a value next to a threshold: a compare flipped from gt to ge, or a range
// check whose operand a mutation changed (x * log2e < -126 computed as x + log2e), only shows
// for inputs at or across the threshold. From one run of K0 under an emulator observer:
//   - every vector compare (v_cmp*, v_cmpx*: f32/i32/u32) and every select (v_max*/v_min*: ties)
//     whose operand, in some lane, is an affine function of one buffer element loaded by that lane
//     (the chain of moves, selects, add/sub/mul/fma with other values, shifts by constants and
//     int-to-float conversions from the load to the decision, at most kMaxChain steps) is a
//     decision; the other operand's value in that lane is its threshold;
//   - the chain is inverted directly: the element value that puts the operand on the threshold;
//   - a decision whose operand depends on one element by a chain the affine steps do not cover
//     (x*x, a transcendental, a 16-bit element, a cross-lane move) is searched: K0 runs again
//     with those elements moved by secant steps and bisection in the element's own dtype, the
//     observer reading the operand each time, until it sits between two adjacent element values
//     on either side of the threshold (or exactly on it);
//   - input sets are made from the base run's inputs with those elements set to the threshold
//     value, one value below it, one above it (1 ulp / 1), and a little further below and above
//     (relative 1e-3), so that both sides of each decision and its tie are run.
// Decisions whose operand is not such a chain (longer chains, transcendentals, cross-lane data) are
// counted as unresolved: a solver (issue 16 part 3) may take them through DecisionSolver.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "verify/backend.h"
#include "verify/aim_literals.h"
#include "verify/magnitude_sets.h"

namespace asmevo::verify {

// One decision reached by one lane: buffer element `element` of argument `arg` equals `value`
// exactly when the decision's operand equals its threshold.
struct Threshold {
  uint64_t pc = 0;
  std::string inst;  // the deciding instruction's text
  size_t arg = 0;
  uint64_t element = 0;
  double value = 0;
  unsigned chain = 0;  // instructions from the load to the decision
  bool searched = false;  // found by the threshold search (emulator runs), not inverted directly
};

// A decision the direct inversion could not resolve (no affine chain from one element).
struct UnresolvedDecision {
  uint64_t pc = 0;
  std::string inst;
  uint64_t lanes = 0;  // lane executions seen
};

struct AimedSet {
  emu::LaunchSpec run;  // a concrete run: the base run with explicit input bytes
  std::string side;     // "at", "below", "above", "further below", "further above"
  size_t thresholds = 0, decisions = 0;  // elements placed, distinct deciding instructions
  std::string describe() const;          // "at 812 thresholds of 9 decisions (v_cmp_gt_f32 ... at 0x1a2c, ...)"
  std::vector<std::string> decision_texts;  // up to a few, for the report
};

struct AimedInputs {
  std::vector<AimedSet> sets;
  std::vector<Threshold> thresholds;
  std::vector<UnresolvedDecision> unresolved;
  std::vector<std::string> notes;
  std::vector<MagnitudeSet> magnitude;  // the base run's float inputs at the ends of their range (magnitude_sets.h)
  std::vector<LiteralSet> literal;      // float inputs drawn from the original's own constants (aim_literals.h)
  std::vector<MagnitudeSet> tie_counts; // shares of k ties at their maximum, 1 / k hard to round (exact_sums.h)
  bool float_division = false;          // the original ran a float reciprocal estimate (v_rcp_f*, v_div_scale_f*)
  // Decisions (v_cmp, v_max/min, s_cmp; by address) none of whose operands derived from an input
  // element in any observed lane: as far as the observer's dataflow goes (VGPRs, SGPRs, LDS; not
  // control dependence), their outcome is fixed by the launch (scalar arguments, work-item ids).
  std::set<uint64_t> launch_determined;
  size_t search_runs = 0;     // observed runs of K0 the threshold search made
  size_t search_walks = 0;    // elements it searched
  size_t search_found = 0;    // of those: placed on their threshold
};

// Extension point for a solver of longer chains: given the unresolved decisions of a run, extra
// thresholds (element values) to place. Empty by default.
using DecisionSolver = std::function<std::vector<Threshold>(const emu::LaunchSpec& base, const std::vector<UnresolvedDecision>&)>;

constexpr unsigned kMaxChain = 8;
// Non-affine dependence (the threshold search's) is followed at most this many instructions.
constexpr unsigned kMaxTaintChain = 64;
// The threshold search: at most this many observed runs of K0 per launch shape, and at most this
// many elements searched per decision.
constexpr unsigned kSearchRuns = 24, kSearchPerDecision = 32;

// K0's state when a wave first reaches one instruction (the first of the observed workgroups that
// gets there): its registers, and for every VGPR lane that is an affine function of one buffer
// element (the chains above), that function. The prover's counterexamples are states of a window;
// this is how one maps back to inputs (prove/inputs.h).
struct ElementOrigin {
  size_t arg = 0;
  uint64_t element = 0;
  double a = 1, b = 0;  // register value = a * element + b
  bool is_float = false, is_signed = false;
};
struct ObservedState {
  bool reached = false;
  std::array<uint32_t, 128> s{};
  bool scc = false;
  std::vector<std::array<uint32_t, 64>> v;
  std::map<std::pair<unsigned, unsigned>, ElementOrigin> origins;  // (VGPR, lane)
  std::vector<std::shared_ptr<std::vector<uint8_t>>> inputs;       // the run's input bytes per argument
  // The element value that gives register `reg` the bits `bits` in `lane` (none: not derived).
  std::optional<double> element_value(unsigned reg, unsigned lane, uint32_t bits) const;
};
ObservedState observe_at(Backend& backend, const LoadedKernel& k0, const emu::LaunchSpec& base, uint64_t pc);

// The buffer element of `spec` that a memory access at `address` meets: (argument, element), none
// outside the buffers' data (guard zones, kernarg, scratch) or for dtypes the search does not handle
// (verify/element_value.h).
struct ElementAt {
  size_t arg = 0;
  uint64_t element = 0;
  bool aligned = true;  // the address is the element's first byte
};
std::optional<ElementAt> element_at(const emu::DeviceMemory& mem, const emu::LaunchSpec& spec, uint64_t address);

// A concrete run: `base` (observed in `st`) with elements (argument, element, value) set, the value
// written in the buffer's dtype (f32, or i32/u32 rounded). None when no element could be placed.
std::optional<emu::LaunchSpec> with_elements(const emu::LaunchSpec& base, const ObservedState& st,
                                             const std::vector<std::tuple<size_t, uint64_t, double>>& elements, const std::string& label);

// Runs K0 once on `base` (a concrete run) under the decision observer and makes the aimed sets.
// Workgroups observed: the first two and the last two (the partial edge workgroup).
AimedInputs aim_inputs(Backend& backend, const LoadedKernel& k0, const emu::LaunchSpec& base, const DecisionSolver& solver = {});

}  // namespace asmevo::verify
