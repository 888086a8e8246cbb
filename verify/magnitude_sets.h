// Input sets at the ends of each float dtype's range (docs/verify.md "Aimed inputs"). Random and
// special inputs keep a row's values at one ordinary magnitude or mix in isolated edge values,
// which turn the whole row into Inf/NaN; neither reaches the scaling paths of the math library's
// division and rsqrt sequences (v_div_scale / v_div_fixup, the 2^24 denormal range checks), where
// a Newton step stops absorbing a wrong estimate. These sets scale every float input buffer of the
// base run by one power of two (exact except where values go denormal), so that its largest
// magnitude sits at a chosen exponent: the top of the dtype's range, where squares overflow, where
// squares underflow, the smallest normal exponent, and inside the denormals.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emu/launch_spec.h"

namespace asmevo::verify {

struct MagnitudeSet {
  emu::LaunchSpec run;      // the base run with explicit input bytes
  std::string description;  // "inputs scaled: x by 2^125 (largest |x| = 2^127, f32: the top of the range), w by 2^..."
};

// The exponents the largest magnitude of a buffer of `dtype` is moved to, with what each aims at
// (empty for dtypes without a float range: integers, fp8, f64).
struct MagnitudeTarget {
  int exponent;
  const char* aim;
};
std::vector<MagnitudeTarget> magnitude_targets(const std::string& dtype);

// The exponent range of a float dtype with a range (f32, f16, bf16; none for the others): largest
// finite exponent, smallest normal exponent, stored mantissa bits.
struct FloatRange {
  int emax, emin, mantissa;
};
std::optional<FloatRange> float_range(const std::string& dtype);

// Every finite element (of `only`, when given) multiplied by 2^shift, rounded to the dtype where it
// goes denormal; one the dtype cannot hold (overflow) keeps its value. Inf and NaN stay.
void scale_elements(std::vector<uint8_t>& bytes, const std::string& dtype, int shift, const std::vector<uint64_t>* only = nullptr);

// One set per target (targets are per dtype; set i uses target i of each buffer), every float
// buffer scaled. `inputs` are
// the base run's input bytes per argument (null for outputs and scalars). Buffers with
// `special: false` and all-zero buffers are left as they are; no set when no buffer changes.
std::vector<MagnitudeSet> magnitude_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs);

// The "signed tiny" sets: every float input buffer scaled like a magnitude set (`special: false` and
// all-zero buffers left alone) is replaced by tiny values, about 1 in 4 of them +0 or -0 (chosen by a
// hash of the element, not its index, so a lane's fixed stride does not meet only zeros). Products
// of such values underflow to a zero that keeps the product's sign, so a sum or a dot product can
// end as -0, and equal magnitudes of opposite sign cancel to +0: a candidate that adds one more +0
// term (an extra zero-filled tile when a loop exit is off by one) turns -0 into +0, which ordinary
// magnitudes never show. Signs:
//   Mixed     each element's sign random (cancellations; a sum is -0 only by the sign of its last terms)
//   ByBuffer  one sign per buffer, alternating over the float input buffers (first negative), zeros
//             with their buffer's sign: every product of two adjacent buffers is -0, so a whole dot
//             product (products rounded one by one and added) stays -0, and an added buffer's zeros are -0.
// `salt` varies the draw between sets of one launch. None when no buffer can take it.
enum class TinySigns { Mixed, ByBuffer };
std::optional<MagnitudeSet> signed_tiny_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                            TinySigns signs = TinySigns::Mixed, uint64_t salt = 0);
// The largest magnitude exponent of the signed tiny set for `dtype` (values are 2^e * {1, 1.25, 1.5,
// 1.75} for e in [top - 2, top]): -100 where the dtype reaches it (f32, bf16: products near 2^-200
// underflow f32), else 3 above the dtype's smallest denormal exponent (f16: -21).
std::optional<int> signed_tiny_exponent(const std::string& dtype);

}  // namespace asmevo::verify
