// Ties at a running maximum or minimum (docs/verify.md "Tie sets"). A reduction that keeps a lane's
// best value over a loop (`better = x > best`, argmax's first index on ties) decides ties by the
// strictness of that compare, and only a tie on the value that wins the whole reduction shows: the
// aimed sets put elements on each lane's current best, which is seldom the row's. A tie set gives
// the two first elements one lane compared at one decision a value beyond every element of the
// buffer (above for a running maximum, below for a minimum), so that lane holds the winner and
// meets it twice.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emu/launch_spec.h"
#include "verify/aimed.h"

namespace asmevo::verify {

// What one lane compared at one decision (a v_cmp lt/le/gt/ge with an operand loaded from an
// element): the first elements, in order, and whether the element side wins when greater.
struct LaneComparisons {
  std::string inst;
  bool keeps_greater = true;  // x > c / x >= c (or c < x): a running maximum
  size_t arg = 0;
  std::vector<uint64_t> elements;  // distinct, in the order compared (at most 2 kept)
};

// At most this many tie sets per launch shape: one decision each, since two winners in one set
// would leave the reduction to pick between them by index and hide the tie.
constexpr unsigned kTieSets = 4;

// One set per decision (by address) whose lane compared two elements of a float buffer.
std::vector<AimedSet> tie_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                               const std::map<uint64_t, LaneComparisons>& per_decision);

}  // namespace asmevo::verify
