#include "verify/exact_sums.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <queue>

#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {

namespace {

// A float input buffer that splits evenly over the workgroups: argument index, elements per share.
struct SplitBuffer {
  size_t arg;
  uint64_t share;
};

// The buffers both sets fill: float dtype, not `special: false`, not all zeros, a whole number of at
// least 2 elements per workgroup.
std::vector<SplitBuffer> split_buffers(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                       uint64_t workgroups) {
  std::vector<SplitBuffer> out;
  if (workgroups == 0) return out;
  for (size_t a = 0; a < base.args.size() && a < inputs.size(); ++a) {
    const emu::ArgSpec& arg = base.args[a];
    if (!inputs[a] || !arg.special || !float_range(arg.dtype)) continue;
    const uint64_t n = inputs[a]->size() / element_bytes(arg.dtype);
    if (n < 2 * workgroups || n % workgroups) continue;
    if (std::all_of(inputs[a]->begin(), inputs[a]->end(), [](uint8_t b) { return b == 0; })) continue;
    out.push_back({a, n / workgroups});
  }
  return out;
}

}  // namespace

std::optional<MagnitudeSet> exact_sum_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs) {
  const uint64_t workgroups = workgroup_count(base);
  MagnitudeSet set;
  set.run = base;
  set.run.special_variant = -1;
  set.run.poison = 0xFF;
  std::string filled;
  for (const auto& [a, share] : split_buffers(base, inputs, workgroups)) {
    const emu::ArgSpec& arg = base.args[a];
    const auto range = float_range(arg.dtype);
    const int step_exponent = range->emin - range->mantissa;  // the smallest positive denormal
    std::vector<uint8_t> bytes(inputs[a]->size(), 0);
    for (uint64_t g = 0; g < workgroups; ++g) {
      const auto b = element_from_number(arg.dtype, std::ldexp(static_cast<double>(g % kExactSumSteps + 1), step_exponent));
      if (b) set_element_bits(bytes, arg.dtype, g * share, *b);
    }
    set_input_bytes(set.run.args[a], std::move(bytes));
    filled += fmt::format("{}{} zero but element {} * g = (g + 1) * 2^{} for workgroup g", filled.empty() ? "" : ", ", arg_label(arg, a),
                          share, step_exponent);
  }
  if (filled.empty()) return std::nullopt;
  set.run.label = derived_label(base.label, "exact-sum set");
  set.description = "exact small sums: " + filled;
  return set;
}

double reciprocal_midpoint_distance(uint64_t k) {
  // 1 / k in double is within 2^-53 of the true quotient, far finer than the 2^-24-ulp distances the
  // ranking below separates (k <= 2^24).
  const double q = 1.0 / static_cast<double>(k);
  int e = 0;
  std::frexp(q, &e);                          // q in [2^(e-1), 2^e)
  const double in_ulps = std::ldexp(q, 24 - e);  // f32 ulp there: 2^(e-24)
  return std::fabs(in_ulps - std::floor(in_ulps) - 0.5);
}

std::vector<uint64_t> hard_reciprocal_counts(uint64_t limit, size_t how_many) {
  limit = std::min(limit, kMaxTieCount);
  how_many = static_cast<size_t>(std::min<uint64_t>(how_many, limit));
  if (how_many == 0) return {};
  // The how_many smallest (distance, count) pairs, by a max-heap: O(limit log how_many).
  std::priority_queue<std::pair<double, uint64_t>> keep;
  for (uint64_t k = 1; k <= limit; ++k) {
    const std::pair<double, uint64_t> p{reciprocal_midpoint_distance(k), k};
    if (keep.size() < how_many) keep.push(p);
    else if (p < keep.top()) keep.pop(), keep.push(p);
  }
  std::vector<uint64_t> out(keep.size());
  for (size_t i = out.size(); i-- > 0; keep.pop()) out[i] = keep.top().second;
  return out;
}

std::optional<MagnitudeSet> tie_count_set(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs) {
  const uint64_t workgroups = workgroup_count(base);
  MagnitudeSet set;
  set.run = base;
  set.run.special_variant = -1;
  set.run.poison = 0xA5;
  // The hardest counts go to the workgroups that run: a sampled run's (perf launches) first, in
  // sample order, then the others by index; otherwise every workgroup by index.
  std::vector<uint64_t> rank(workgroups, workgroups);
  uint64_t next = 0;
  for (uint64_t g : base.workgroup_sample)
    if (g < workgroups && rank[g] == workgroups) rank[g] = next++;
  for (uint64_t g = 0; g < workgroups; ++g)
    if (rank[g] == workgroups) rank[g] = next++;
  std::string filled;
  for (const auto& [a, share] : split_buffers(base, inputs, workgroups)) {
    const emu::ArgSpec& arg = base.args[a];
    const auto range = float_range(arg.dtype);
    const double lowest = -std::ldexp(2.0 - std::ldexp(1.0, -range->mantissa), range->emax);
    const auto tie = element_from_number(arg.dtype, 1.0), rest = element_from_number(arg.dtype, lowest);
    const std::vector<uint64_t> counts = hard_reciprocal_counts(share, static_cast<size_t>(workgroups));
    if (!tie || !rest || counts.empty()) continue;
    std::vector<uint8_t> bytes(inputs[a]->size());
    for (uint64_t g = 0; g < workgroups; ++g) {
      const uint64_t k = counts[rank[g] % counts.size()];
      // Element i of the share is a tie where floor(i k / share) steps: k of them, evenly spread, so
      // every lane's stride and a row's tail meet some.
      for (uint64_t i = 0; i < share; ++i)
        set_element_bits(bytes, arg.dtype, g * share + i, (i + 1) * k / share != i * k / share ? *tie : *rest);
    }
    set_input_bytes(set.run.args[a], std::move(bytes));
    std::string first;
    for (size_t i = 0; i < std::min<size_t>(counts.size(), 3); ++i) first += fmt::format("{}{}", i ? ", " : "", counts[i]);
    filled += fmt::format("{}{}: k ties at 1 per share of {}, the rest at {:g}, k the {} count(s) of [1, {}] whose 1 / k lies nearest an "
                          "f32 rounding midpoint ({}{})",
                          filled.empty() ? "" : "; ", arg_label(arg, a), share, lowest, counts.size(), std::min(share, kMaxTieCount), first,
                          counts.size() > 3 ? ", ..." : "");
  }
  if (filled.empty()) return std::nullopt;
  set.run.label = derived_label(base.label, "tie-count set");
  set.description = "tie counts: " + filled;
  return set;
}

}  // namespace asmevo::verify
