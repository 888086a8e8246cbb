// A search for an input on which the candidate's outputs differ from the original's (docs/verify.md
// "Difference search"). The fixed input sets (random, special, aimed, magnitude, literal) are made
// from K0 alone, before any candidate is seen; a wrong estimate that later Newton steps almost
// absorb (a division's quotient estimate n * rcp computed as n + rcp) changes the result only for
// some numerators, or only where an intermediate value of the candidate overflows before the
// original's does, and those sets seldom hold one. This search runs K0 and K1 side by side on the
// sampled workgroups of one launch, moving input values, until their outputs differ:
//   - guided by K0's own range edges: the shift (a power of two applied to every float element the
//     sampled workgroups read, exact while values stay normal) at which K0's first f32 operand of a
//     vector instruction becomes Inf or NaN, and the shift at which its first one goes denormal,
//     each found by bisection over observed runs of K0; the search then runs the shifts at and just
//     inside each edge (a candidate whose intermediate overflows first differs there);
//   - then random moves of the elements those workgroups read: one element set to a value of
//     random magnitude anywhere in its dtype's range, and a few elements nudged by 2^j ulps (a sum
//     they feed lands on other numerators, one of the few a wrong estimate rounds differently).
// Every move starts from the base run's inputs; buffers marked `special: false` (indices) are not
// touched. A difference found here is a hint: the caller runs the whole launch with that input and
// the verdict rests on that run.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "verify/backend.h"

namespace asmevo::verify {

struct DifferenceSearchOptions {
  unsigned steps = 32;  // candidate runs (each with one K0 run beside it) after the edge bisection
  uint64_t seed = 1;
};

struct DifferenceSearch {
  std::optional<emu::LaunchSpec> run;  // the whole launch with the input whose sampled outputs differed
  std::string description;             // how that input was made
  size_t k0_runs = 0, k1_runs = 0;     // observed K0 runs (edge bisection included), candidate runs
  std::optional<int> upper_edge, lower_edge;  // K0's range edges as shifts of the base inputs (none: no float input read)
  std::string note;                    // why nothing was searched
};

// `base`: a concrete run K0 completes (a reference run). Runs the first and the last workgroup.
DifferenceSearch search_difference(Backend& backend, const LoadedKernel& k0, const LoadedKernel& k1, const emu::LaunchSpec& base,
                                   uint64_t k1_step_limit, const DifferenceSearchOptions& options = {});

}  // namespace asmevo::verify
