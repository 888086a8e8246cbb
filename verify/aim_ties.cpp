#include "verify/aim_ties.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {

std::vector<AimedSet> tie_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                               const std::map<uint64_t, LaneComparisons>& per_decision) {
  std::vector<AimedSet> out;
  for (const auto& [pc, lc] : per_decision) {
    if (out.size() >= kTieSets) break;
    if (lc.elements.size() < 2 || lc.arg >= base.args.size() || lc.arg >= inputs.size() || !inputs[lc.arg]) continue;
    const emu::ArgSpec& arg = base.args[lc.arg];
    if (arg.dtype != "f32" && arg.dtype != "f16" && arg.dtype != "bf16") continue;
    std::vector<uint8_t> bytes = *inputs[lc.arg];
    const uint64_t n = bytes.size() / element_bytes(arg.dtype);
    if (lc.elements[0] >= n || lc.elements[1] >= n) continue;
    double lo = INFINITY, hi = -INFINITY;
    for (uint64_t e = 0; e < n; ++e) {
      const double v = element_number(arg.dtype, element_bits(bytes, arg.dtype, e));
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (!std::isfinite(lo)) lo = hi = 0;
    // Beyond every finite element by a margin the dtype keeps (2|x| + 1 rounds to a larger value).
    const double winner = lc.keeps_greater ? 2 * std::fabs(hi) + 1 : -(2 * std::fabs(lo) + 1);
    auto bits = element_from_number(arg.dtype, winner);
    if (!bits) continue;
    for (uint64_t e : {lc.elements[0], lc.elements[1]}) set_element_bits(bytes, arg.dtype, e, *bits);
    AimedSet set;
    set.run = base;
    set.side = "tie";
    set.run.special_variant = -1;
    set.run.poison = out.size() % 2 ? 0xA5 : 0xFF;
    set.run.label = derived_label(base.label, fmt::format("tie set {}", out.size()));
    set_input_bytes(set.run.args[lc.arg], std::move(bytes));
    set.thresholds = 2;
    set.decisions = 1;
    const std::string name = arg_label(arg, lc.arg);
    set.decision_texts.push_back(fmt::format("{}[{}] = {}[{}] = {:g}, {} every other element, at {} at 0x{:x}", name, lc.elements[0], name,
                                             lc.elements[1], element_number(arg.dtype, *bits), lc.keeps_greater ? "above" : "below", lc.inst, pc));
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace asmevo::verify
