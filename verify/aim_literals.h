// Input sets made of the original kernel's own float constants (docs/verify.md "Literal sets").
// A decision that compares a normalized value against a constant (fp8 quantization: |x| / (amax /
// 448) against the rounding midpoint 2.5 * 2^-9) is met exactly only when the normalizer is exact
// too: random inputs and the threshold search (one element moved, the row maximum kept) place the
// element on adjacent values either side of the threshold, never on it. Filling a buffer with the
// constants the kernel computes with does: a row whose largest magnitude is the literal 448 has
// scale 1, and its elements equal to the literal 2.5 * 2^-9 sit on the midpoint. Like a fuzzer's
// dictionary of the constants a binary compares against.
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "emu/launch_spec.h"

namespace asmevo::verify {

struct LiteralSet {
  emu::LaunchSpec run;      // the base run with explicit input bytes
  std::string description;  // "kernel constants up to 448 (11 values): x"
};

// Sets made per ceiling: one set per the kLiteralCeilings largest magnitudes that some float buffer
// can hold exactly.
constexpr unsigned kLiteralCeilings = 3;

// `literal_bits`: the 32-bit constants (inline and literal operands) of the instructions the
// original ran, read as f32. Every float input buffer (f32, f16, bf16; not `special: false` ones)
// gets, per set, elements drawn (by a hash of the element) from the constants it holds exactly whose
// magnitude is at most the set's ceiling, with either sign; the ceiling itself always among them.
// `inputs`: the base run's input bytes per argument (null for outputs and scalars).
std::vector<LiteralSet> literal_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                     const std::set<uint32_t>& literal_bits);

}  // namespace asmevo::verify
