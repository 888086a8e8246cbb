#include "verify/exact_sums.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {

std::optional<MagnitudeSet> exact_sum_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs) {
  const uint64_t workgroups = static_cast<uint64_t>(base.grid[0]) * base.grid[1] * base.grid[2];
  if (workgroups == 0) return std::nullopt;
  MagnitudeSet set;
  set.run = base;
  set.run.special_variant = -1;
  set.run.poison = 0xFF;
  std::string filled;
  for (size_t a = 0; a < base.args.size() && a < inputs.size(); ++a) {
    const emu::ArgSpec& arg = base.args[a];
    const auto range = float_range(arg.dtype);
    if (!inputs[a] || !arg.special || !range) continue;
    const uint64_t n = inputs[a]->size() / element_bytes(arg.dtype);
    if (n < 2 * workgroups || n % workgroups) continue;
    if (std::all_of(inputs[a]->begin(), inputs[a]->end(), [](uint8_t b) { return b == 0; })) continue;
    const uint64_t share = n / workgroups;
    const int step_exponent = range->emin - range->mantissa;  // the smallest positive denormal
    std::vector<uint8_t> bytes(inputs[a]->size(), 0);
    for (uint64_t g = 0; g < workgroups; ++g) {
      const auto b = element_from_number(arg.dtype, std::ldexp(static_cast<double>(g % kExactSumSteps + 1), step_exponent));
      if (b) set_element_bits(bytes, arg.dtype, g * share, *b);
    }
    set_input_bytes(set.run.args[a], std::move(bytes));
    filled += fmt::format("{}{} zero but element {} * g = (g + 1) * 2^{} for workgroup g", filled.empty() ? "" : ", ",
                          arg.name.empty() ? "arg" + std::to_string(a) : arg.name, share, step_exponent);
  }
  if (filled.empty()) return std::nullopt;
  set.run.label = derived_label(base.label, "exact-sum set");
  set.description = "exact small sums: " + filled;
  return set;
}

}  // namespace asmevo::verify
