// Input sets whose reductions are exact sums (docs/verify.md "Exact-sum sets", "Tie-count sets"). A
// kernel that divides a reduction by a count (a mean: sum / n) or takes the reciprocal of one (softmax's
// 1 / sum of exp(x - max)) computes the quotient with a reciprocal estimate and Newton steps
// (v_rcp_f32, v_div_scale / v_div_fmas / v_div_fixup); how far a wrong estimate survives those steps
// depends on the numerator's size next to 1 / n, on the divisor's size and on how near the quotient
// lies to a rounding midpoint, and random rows (sums near n times their mean) reach none of these.
// Both sets are made (verify/aimed.cpp, verify/verify.cpp) for launch shapes in which the original ran
// a float reciprocal estimate (v_rcp_f*, v_div_scale_f*): without a division they aim at nothing.
//
// Exact-sum set: the float input buffers that split evenly over the workgroups are zero except for
// one element at the start of each workgroup's share, which holds (g + 1) times the dtype's smallest
// positive value for workgroup g: every sum over a share is exact and a different small integer
// multiple of that step, so the quotients k / n are exercised for many numerators k at once.
// The smallest step makes the numerator as tiny as the dtype allows and exact in any summation order.
//
// Tie-count set: each workgroup's share holds k elements tied at 1 and the rest at the dtype's lowest
// finite value, so a maximum is 1 (reached k times), exp(x - max) is exactly 1 or 0, and a sum of
// them or of the ties is exactly k in any order (k <= 2^24). The counts are those of [1, share]
// whose reciprocal 1 / k lies nearest a rounding midpoint of f32, the hardest quotients to round
// correctly (the classic worst cases by which division is tested), hardest first by workgroup:
// a wrong estimate that the Newton steps leave a small fraction of an ulp off shows first there.
// Only long shares hold large counts, where such an error is largest, so the verifier also makes
// this set on the perf launches (full-size rows, sampled workgroups).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "emu/launch_spec.h"
#include "verify/magnitude_sets.h"

namespace asmevo::verify {

// Numerators 1 .. kExactSumSteps (then again from 1): all exact in every float dtype (f16 holds
// every integer multiple of 2^-24 up to 2^11 of them).
constexpr uint64_t kExactSumSteps = 1024;

// The set, or none when no float input buffer (`special: false` and all-zero ones excepted) has a
// whole number, at least 2, of elements per workgroup of `base`'s grid. Other buffers keep `inputs`.
std::optional<MagnitudeSet> exact_sum_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs);

// Counts above this are not summed exactly in f32 (2^24: its integers end there).
constexpr uint64_t kMaxTieCount = uint64_t{1} << 24;

// The distance, in f32 ulps, of 1 / k from the nearest rounding midpoint of f32 (0: on a midpoint;
// 0.5: 1 / k is a float, a power of two).
double reciprocal_midpoint_distance(uint64_t k);

// The `how_many` counts of [1, min(limit, kMaxTieCount)] with the smallest
// reciprocal_midpoint_distance, smallest first (ties by count).
std::vector<uint64_t> hard_reciprocal_counts(uint64_t limit, size_t how_many);

// The tie-count set; none when `exact_sum_set` would have no buffer to fill. The workgroups of
// `base.workgroup_sample` (a perf launch's sample) take the hardest counts in sample order, then the
// others by index (every workgroup by index when none is sampled); a count is the (r mod m)-th
// hardest for the r-th workgroup, m = min(workgroups, share), its ties spread evenly over the share.
std::optional<MagnitudeSet> tie_count_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs);

}  // namespace asmevo::verify
