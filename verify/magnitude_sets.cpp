#include "verify/magnitude_sets.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {

std::optional<FloatRange> float_range(const std::string& dtype) {
  // IEEE 754 binary32 / binary16 and bfloat16 (8-bit exponent like binary32): largest finite
  // exponent emax, smallest normal exponent emin, mantissa bits p - 1.
  if (dtype == "f32" || dtype == "bf16") return FloatRange{127, -126, dtype == "f32" ? 23 : 7};
  if (dtype == "f16") return FloatRange{15, -14, 10};
  return std::nullopt;
}

void scale_elements(std::vector<uint8_t>& bytes, const std::string& dtype, int shift, const std::vector<uint64_t>* only) {
  auto scale = [&](uint64_t e) {
    const double x = element_number(dtype, element_bits(bytes, dtype, e));
    if (!std::isfinite(x)) return;  // Inf/NaN from a file stay as they are
    if (auto b = element_from_number(dtype, std::ldexp(x, shift))) set_element_bits(bytes, dtype, e, *b);
  };
  if (only)
    for (uint64_t e : *only) scale(e);
  else
    for (uint64_t e = 0, n = bytes.size() / element_bytes(dtype); e < n; ++e) scale(e);
}

std::vector<MagnitudeTarget> magnitude_targets(const std::string& dtype) {
  const auto r = float_range(dtype);
  if (!r) return {};
  const int emax = r->emax, emin = r->emin, mantissa = r->mantissa;
  return {{emax, "the top of the range"},
          {emax / 2, "squares overflow"},
          {emin / 2, "squares underflow"},
          {emin, "the smallest normal exponent"},
          {emin - (mantissa + 1) / 2, "inside the denormals"}};
}

std::vector<MagnitudeSet> magnitude_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs) {
  // The buffers that can be scaled, with their largest finite magnitude.
  struct Scalable {
    size_t arg;
    double largest;
  };
  std::vector<Scalable> scalable;
  size_t most = 0;
  for (size_t a = 0; a < base.args.size() && a < inputs.size(); ++a) {
    const emu::ArgSpec& arg = base.args[a];
    if (!inputs[a] || !arg.special || magnitude_targets(arg.dtype).empty()) continue;
    const uint64_t n = inputs[a]->size() / element_bytes(arg.dtype);
    double largest = 0;
    for (uint64_t e = 0; e < n; ++e) {
      const double v = element_number(arg.dtype, element_bits(*inputs[a], arg.dtype, e));
      if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
    }
    if (largest == 0) continue;
    scalable.push_back({a, largest});
    most = std::max(most, magnitude_targets(arg.dtype).size());
  }
  // Per target: every buffer scaled. Sets with all buffers but one scaled (an output like
  // (x - mean) * rstd * gamma + beta shows a wrong low-order bit of x - mean only when x and beta
  // are tiny and gamma is not) were measured on the mutant bench: they killed none of its 137
  // survivors and doubled the magnitude runs, so they are not made.
  std::vector<MagnitudeSet> out;
  for (size_t t = 0; t < most; ++t) {
    MagnitudeSet set;
    set.run = base;
    set.run.special_variant = -1;
    set.run.poison = out.size() % 2 ? 0xA5 : 0xFF;
    std::string scaled;
    for (const Scalable& sc : scalable) {
      const size_t a = sc.arg;
      const emu::ArgSpec& arg = base.args[a];
      const std::string name = arg_label(arg, a);
      const auto targets = magnitude_targets(arg.dtype);
      if (t >= targets.size()) continue;
      const int shift = targets[t].exponent - std::ilogb(sc.largest);
      std::vector<uint8_t> bytes = *inputs[a];
      scale_elements(bytes, arg.dtype, shift);
      set_input_bytes(set.run.args[a], std::move(bytes));
      scaled += fmt::format("{}{} by 2^{} (largest |x| = 2^{}, {}: {})", scaled.empty() ? "" : ", ", name, shift, targets[t].exponent,
                            arg.dtype, targets[t].aim);
    }
    if (scaled.empty()) continue;
    set.run.label = derived_label(base.label, fmt::format("magnitude set {}", out.size()));
    set.description = "inputs scaled: " + scaled;
    out.push_back(std::move(set));
  }
  return out;
}

std::optional<int> signed_tiny_exponent(const std::string& dtype) {
  const auto r = float_range(dtype);
  if (!r) return std::nullopt;
  return std::max(-100, r->emin - r->mantissa + 3);
}

std::optional<MagnitudeSet> signed_tiny_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                            TinySigns signs, uint64_t salt) {
  MagnitudeSet set;
  set.run = base;
  set.run.special_variant = -1;
  set.run.poison = salt % 2 ? 0xA5 : 0xFF;
  std::string filled;
  size_t filled_buffers = 0;
  for (size_t a = 0; a < base.args.size() && a < inputs.size(); ++a) {
    const emu::ArgSpec& arg = base.args[a];
    const auto top = signed_tiny_exponent(arg.dtype);
    if (!inputs[a] || !arg.special || !top) continue;
    std::vector<uint8_t> bytes = *inputs[a];
    const uint64_t n = bytes.size() / element_bytes(arg.dtype);
    if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; })) continue;
    const bool buffer_negative = filled_buffers++ % 2 == 0;
    for (uint64_t e = 0; e < n; ++e) {
      const uint64_t h = mix(e * 0x9E3779B97F4A7C15ull + a * 0x632BE59BD9B4E019ull + salt * 0xD6E8FEB86659FD93ull);
      const bool negative = signs == TinySigns::Mixed ? (h & 1) != 0 : buffer_negative, zero = (h >> 1) % 4 == 0;
      const double magnitude = zero ? 0.0 : std::ldexp(1.0 + static_cast<double>((h >> 3) % 4) / 4, *top - static_cast<int>((h >> 5) % 3));
      if (auto b = element_from_number(arg.dtype, negative ? -magnitude : magnitude)) set_element_bits(bytes, arg.dtype, e, *b);
    }
    set_input_bytes(set.run.args[a], std::move(bytes));
    filled += fmt::format("{}{} ({}2^{}..2^{}, 1 in 4 {}0)", filled.empty() ? "" : ", ", arg_label(arg, a),
                          signs == TinySigns::Mixed ? "+-" : buffer_negative ? "-" : "+", *top - 2, *top,
                          signs == TinySigns::Mixed ? "+-" : buffer_negative ? "-" : "+");
  }
  if (filled.empty()) return std::nullopt;
  set.run.label = derived_label(base.label, fmt::format("signed tiny set {}{}", salt, signs == TinySigns::Mixed ? "" : " (by buffer)"));
  set.description = std::string(signs == TinySigns::Mixed ? "signed tiny inputs (mixed signs): " : "signed tiny inputs (one sign per buffer): ") + filled;
  return set;
}

}  // namespace asmevo::verify
