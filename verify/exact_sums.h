// Input sets whose reductions are small exact sums (docs/verify.md "Exact-sum sets"). A kernel that
// divides a reduction by a count (a mean: sum / n) computes the quotient with a reciprocal estimate
// and Newton steps (v_rcp_f32, v_div_scale / v_div_fmas / v_div_fixup); how far a wrong estimate
// survives those steps depends on the numerator's size next to 1 / n and on its low bits, and
// random rows (sums near n times their mean) never make a numerator that is tiny and short.
// Here the float input buffers that split evenly over the workgroups are zero except for one
// element at the start of each workgroup's share, which holds (g + 1) times the dtype's smallest
// positive value for workgroup g: every sum over a share is exact and a different small integer
// multiple of that step, so the quotients k / n are exercised for many numerators k at once.
// The smallest step makes the numerator as tiny as the dtype allows and exact in any summation order.
// Made (verify/aimed.cpp) for launch shapes in which the original ran a float reciprocal estimate
// (v_rcp_f*, v_div_scale_f*): without a division the set aims at nothing.
#pragma once
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

}  // namespace asmevo::verify
