// Element-wise comparison of a candidate's buffer with the reference's, by dtype and the buffer's
// compare rule (emu::CompareSpec), and the text form of an element for reports.
#pragma once
#include <cstdint>
#include <string>

#include "emu/launch_spec.h"

namespace asmevo::verify {

// Whether candidate element `cand` matches reference element `ref` (both `dtype`, little-endian).
// Exact: the same bits. Ulp / tolerance (floating-point only): NaN matches any NaN, an infinity
// only the same infinity, finite values by distance in units in the last place or by
// |cand - ref| <= atol + rtol * |ref|.
bool elements_match(const std::string& dtype, const emu::CompareSpec& rule, const uint8_t* ref, const uint8_t* cand);

// "0.25 (0x3e800000)" for floats, "-7 (0xfffffff9)" for integers.
std::string format_element(const std::string& dtype, const uint8_t* p);

// Distance in units in the last place between two finite or infinite values of a float dtype
// (f16, bf16, f32, f64); signed zeros are 0 apart.
uint64_t ulp_distance(const std::string& dtype, uint64_t a_bits, uint64_t b_bits);

}  // namespace asmevo::verify
