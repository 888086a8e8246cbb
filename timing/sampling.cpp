#include "timing/sampling.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace asmevo::timing {

namespace {

// Workgroups with linear id below `n` that the hardware's round robin (XCD = id mod xcds, CU within
// the XCD = id / xcds mod CUs per XCD) sends to the slice's CUs (XCDs [0, x), CUs [0, c) of each).
uint64_t slice_count(const HwParams& hw, uint64_t n, unsigned x, unsigned c) {
  const uint64_t full = n / hw.cus, rem = n % hw.cus;
  uint64_t count = full * x * c;
  for (uint64_t j = 0; j < rem; ++j)
    if (j % hw.xcds < x && j / hw.xcds < c) ++count;
  return count;
}

bool in_slice(const HwParams& hw, uint64_t g, unsigned x, unsigned c) {
  const uint64_t j = g % hw.cus;
  return j % hw.xcds < x && j / hw.xcds < c;
}

}  // namespace

std::string SamplePlan::describe() const {
  if (!sampled) return fmt::format("all {} workgroups on the whole device (exact)", grid_groups);
  std::string s = fmt::format("{} of {} workgroups: {} CU{} on each of {} XCD{} ({} of the slice's {} workgroups", workgroups.size(),
                              grid_groups, slice.cus_per_xcd, slice.cus_per_xcd == 1 ? "" : "s", slice.xcds,
                              slice.xcds == 1 ? "" : "s", workgroups.size(), slice_groups);
  if (head_groups + tail_groups < slice_groups)
    s += fmt::format(": the first {} round{} of {} and the {}-workgroup tail simulated, {} extrapolated)", head_rounds,
                     head_rounds == 1 ? "" : "s", round_groups, tail_groups, slice_groups - head_groups - tail_groups);
  else
    s += ", all simulated)";
  if (xcd_window) s += "; a window of each XCD's dispatch stream, each workgroup with the L1 of the CU it stands for";
  if (warming_groups == grid_groups - workgroups.size()) s += fmt::format("; the other {} emulated to warm the MALL", warming_groups);
  else if (warming_groups)
    s += fmt::format("; {} of the other {} (spread over them) emulated to warm the MALL", warming_groups, grid_groups - workgroups.size());
  if (probe_groups && !slice.read_shares.empty())
    s += fmt::format("; reads shared with {} probed co-resident workgroup{} weigh the fetches below the L2", probe_groups,
                     probe_groups == 1 ? "" : "s");
  else if (probe_groups)
    s += fmt::format("; {} co-resident workgroup{} probed: no shared reads", probe_groups, probe_groups == 1 ? "" : "s");
  return s;
}

SamplePlan plan_sample(const HwParams& hw, uint64_t grid_groups, unsigned per_cu, double per_group, const SampleOptions& opt) {
  SamplePlan p;
  p.grid_groups = grid_groups;
  p.slice = DeviceSlice::whole_device(hw);
  per_group = std::max(1.0, per_group);
  const double budget = opt.budget_wave_instructions;
  if (opt.exact || grid_groups == 0 || per_cu == 0 || grid_groups * per_group <= budget) return p;
  const unsigned per_xcd = hw.cus / hw.xcds;
  // Candidate slices, largest first: all XCDs with fewer CUs each, then fewer XCDs with one CU.
  std::vector<std::pair<unsigned, unsigned>> slices;
  for (unsigned c = per_xcd; c >= 1; c /= 2) slices.push_back({hw.xcds, c});
  for (unsigned x = hw.xcds / 2; x >= 1; x /= 2) slices.push_back({x, 1});
  struct Choice {
    unsigned x = 1, c = 1, rounds = 1;
    uint64_t slice_groups = 0, round = 0, head = 0, tail = 0;
  };
  auto try_slice = [&](unsigned x, unsigned c, unsigned rounds) -> std::optional<Choice> {
    Choice ch{x, c, rounds};
    ch.slice_groups = slice_count(hw, grid_groups, x, c);
    ch.round = static_cast<uint64_t>(x) * c * per_cu;
    if (ch.slice_groups * per_group <= budget) {  // the slice's whole stream, nothing extrapolated
      ch.head = ch.slice_groups, ch.tail = 0, ch.rounds = static_cast<unsigned>((ch.slice_groups + ch.round - 1) / ch.round);
      return ch;
    }
    const uint64_t rem = ch.slice_groups % ch.round;
    ch.head = rounds * ch.round, ch.tail = rem;
    if (ch.head + ch.tail >= ch.slice_groups) return std::nullopt;  // would be the whole stream: over budget
    if ((ch.head + ch.tail) * per_group > budget) return std::nullopt;
    return ch;
  };
  std::optional<Choice> pick;
  for (unsigned rounds : {3u, 2u})
    for (auto [x, c] : slices) {
      if (pick) break;
      pick = try_slice(x, c, rounds);
    }
  if (!pick) {  // over budget even for two rounds of one CU: one round and the tail of one CU
    Choice ch{1, 1, 1};
    ch.slice_groups = slice_count(hw, grid_groups, 1, 1);
    ch.round = per_cu;
    ch.head = std::min<uint64_t>(ch.round, ch.slice_groups);
    ch.tail = ch.head < ch.slice_groups ? ch.slice_groups % ch.round : 0;
    if (ch.head + ch.tail > ch.slice_groups) ch.tail = ch.slice_groups - ch.head;
    pick = ch;
  }
  // The grid's last workgroup (the partial tail tile, and the last one dispatched) belongs in every sample. A
  // slice whose whole stream is the first workgroup alone (a launch of a few workgroups, each over half the
  // budget) cannot hold it: the next larger slice, whose stream is two workgroups, runs the first and, in place
  // of its second, the last (below), one workgroup over the budget (docs/timing.md, "Sampling": the tail). Not
  // when one workgroup alone costs more than the sample and the warming together may (total_wave_instructions,
  // the 1 s): a second would double a cost already over it, and the bound keeps kOneWorkgroupAllowance.
  const bool tail_affordable = per_group <= std::max(budget, opt.total_wave_instructions);
  if (pick->slice_groups == 1 && grid_groups > 1 && slices.size() >= 2 && tail_affordable) {
    const auto [x, c] = slices[slices.size() - 2];
    Choice two{x, c, 1};
    two.slice_groups = slice_count(hw, grid_groups, x, c);
    two.round = static_cast<uint64_t>(x) * c * per_cu;
    two.head = two.slice_groups;
    if (two.slice_groups == 2) pick = two;
  }
  const Choice& ch = *pick;
  p.sampled = true;
  // Shares of the shared units: of the CUs the launch keeps busy, on the device and per XCD.
  const double dev_active = static_cast<double>(std::min<uint64_t>(hw.cus, grid_groups));
  const double xcd_active = static_cast<double>(std::min<uint64_t>(per_xcd, (grid_groups + hw.xcds - 1) / hw.xcds));
  const double slice_active = static_cast<double>(std::min<uint64_t>(static_cast<uint64_t>(ch.x) * ch.c, ch.slice_groups));
  const double slice_xcd_active = static_cast<double>(std::min<uint64_t>(ch.c, (ch.slice_groups + ch.x - 1) / ch.x));
  p.slice = DeviceSlice{ch.x, ch.c, std::min(1.0, slice_xcd_active / xcd_active), std::min(1.0, slice_active / dev_active)};
  p.slice.l1_by_device_cu = opt.slice_workgroups == SliceWorkgroups::XcdWindow;
  p.xcd_window = p.slice.l1_by_device_cu;
  p.slice_groups = ch.slice_groups;
  p.round_groups = ch.round;
  p.head_groups = ch.head;
  p.tail_groups = ch.tail;
  p.head_rounds = ch.rounds;
  // The slice's stream in dispatch order (ascending id): the head from the start. The tail round is
  // the grid's last workgroups (partial tiles, the other code path of a bounds check live there), which
  // the slice's CUs run as their last round. A slice that runs its whole stream gets the grid's last
  // workgroup in place of its own last one, so that the sample holds the first and the last workgroup.
  p.workgroups.reserve(ch.head + ch.tail);
  // XcdWindow: of each device round of an XCD's stream (per_xcd x per_cu positions), the first c x per_cu.
  const bool window = opt.slice_workgroups == SliceWorkgroups::XcdWindow;
  const uint64_t device_round = static_cast<uint64_t>(per_xcd) * per_cu, window_groups = static_cast<uint64_t>(ch.c) * per_cu;
  for (uint64_t g = 0; g < grid_groups && p.workgroups.size() < ch.head; ++g)
    if (window ? g % hw.xcds < ch.x && g / hw.xcds % device_round < window_groups : in_slice(hw, g, ch.x, ch.c))
      p.workgroups.push_back(g);
  for (uint64_t g = grid_groups - ch.tail; g < grid_groups; ++g) p.workgroups.push_back(g);
  if (ch.tail == 0 && p.workgroups.size() > 1 && p.workgroups.back() != grid_groups - 1)
    p.workgroups.back() = grid_groups - 1;
  return p;
}

std::vector<uint64_t> warming_groups(const HwParams& hw, const SamplePlan& plan, unsigned per_cu, double per_group, double budget) {
  std::vector<uint64_t> ids;
  if (!plan.sampled || plan.grid_groups > static_cast<uint64_t>(hw.cus) * per_cu) return ids;
  const double fit = std::floor(std::max(0.0, budget) / (std::max(1.0, per_group) * kWarmingGroupCost));
  const uint64_t others = plan.grid_groups - plan.workgroups.size();
  const uint64_t take = std::min<uint64_t>(others, static_cast<uint64_t>(std::min(fit, 1e18)));
  if (take == 0) return ids;
  std::vector<uint64_t> simulated = plan.workgroups;
  std::sort(simulated.begin(), simulated.end());
  for (uint64_t g = 0; g < plan.grid_groups; ++g)
    if (!std::binary_search(simulated.begin(), simulated.end(), g)) ids.push_back(g);
  if (take == others) return ids;
  // Evenly spread over the others (chosen over the nearest in id on half A of the sampled-vs-exact test,
  // docs/timing.md "Sampling").
  std::vector<uint64_t> spread(take);
  for (uint64_t i = 0; i < take; ++i) spread[i] = ids[i * others / take];
  ids = std::move(spread);
  return ids;
}

Warming plan_warming(const HwParams& hw, SamplePlan& plan, const LaunchTrace& ghosts) {
  Warming out(plan.workgroups.size());
  if (ghosts.groups.empty()) return out;
  plan.warming_groups = ghosts.groups.size();
  const uint64_t others = plan.grid_groups - plan.workgroups.size();
  plan.slice.warmed_share = plan.warming_groups >= others ? 1.0 : static_cast<double>(plan.warming_groups) / static_cast<double>(others);
  const unsigned x = plan.slice.xcds;
  // Dispatch starts in the first round: the k-th workgroup of an XCD's stream starts after the k before it
  // were launched (the simulator's dispatcher: wave_launch_cycles per wave over the shader engines), on the
  // device and, for the simulated ones, on the slice too (model_launch starts a slice's first fill at the
  // workgroups' device positions).
  auto launch_cycles = [&](size_t waves, double share) {
    return static_cast<double>(waves) * hw.wave_launch_cycles / hw.shader_engines / share;
  };
  // Representatives: the simulated workgroups of the slice's stream, by slice XCD.
  std::vector<std::vector<size_t>> reps(x);
  std::vector<size_t> all_reps;
  for (size_t i = 0; i < plan.workgroups.size(); ++i) reps[i % x].push_back(i), all_reps.push_back(i);
  std::vector<size_t> next(x, 0);
  size_t next_any = 0;
  for (size_t j = 0; j < ghosts.groups.size(); ++j) {
    const uint64_t g = ghosts.group_ids[j];
    const unsigned xcd = static_cast<unsigned>(g % hw.xcds);
    const bool inside = xcd < x;
    const bool own = inside && !reps[xcd].empty();
    const size_t rep = own ? reps[xcd][next[xcd]++ % reps[xcd].size()] : all_reps[next_any++ % all_reps.size()];
    const double start = static_cast<double>(g / hw.xcds) * launch_cycles(ghosts.groups[j].size(), 1.0);
    const double rep_start = static_cast<double>(plan.workgroups[rep] / hw.xcds) * launch_cycles(ghosts.groups[j].size(), 1.0);
    out[rep].push_back(WarmingGroup{&ghosts.groups[j], xcd,
                                    static_cast<int64_t>(std::llround(start - rep_start))});
  }
  return out;
}

SampleEstimate extrapolate(const SamplePlan& plan, const ModelResult& r, uint64_t once_bytes) {
  SampleEstimate e;
  e.cycles = static_cast<double>(r.cycles);
  if (!plan.sampled) return e;
  const uint64_t skipped = plan.slice_groups - plan.head_groups - plan.tail_groups;
  e.error_bound = kSliceErrorAllowance;
  // Each buffer read once and written once from HBM is what a device without reuse losses needs; the
  // sample's scaled HBM bytes beyond that are lines its slice re-read where the whole device shares
  // them (or capacity misses the whole device takes too: then the bound is loose, not wrong).
  const double scaled_hbm = static_cast<double>(r.hbm_bytes) * static_cast<double>(plan.grid_groups) /
                            static_cast<double>(plan.workgroups.size());
  if (once_bytes > 0 && scaled_hbm > static_cast<double>(once_bytes)) {
    e.lost_reuse = 1.0 - static_cast<double>(once_bytes) / scaled_hbm;
    e.error_bound += e.lost_reuse;
  }
  // Workgroups that differ (edge tiles, data-dependent loops) make the unsimulated ones uncertain: the
  // spread of the simulated workgroups' end times, weighted by the share not simulated; a sample of one
  // workgroup shows no spread, and says nothing about the others.
  const double unseen = 1.0 - static_cast<double>(plan.workgroups.size()) / static_cast<double>(plan.grid_groups);
  if (plan.workgroups.size() == 1) {
    e.error_bound += kOneWorkgroupAllowance * unseen;
  } else if (!r.group_end.empty()) {
    const auto [lo, hi] = std::minmax_element(r.group_end.begin(), r.group_end.end());
    if (*hi > 0 && plan.head_rounds <= 1) e.error_bound += static_cast<double>(*hi - *lo) / static_cast<double>(*hi) * unseen;
  }
  if (skipped == 0 || plan.head_groups == 0) return e;
  // Steady-state throughput: workgroups completed per cycle between the end of the first round and
  // the end of the head (the first round includes the ramp: cold caches, wave launch).
  std::vector<double> ends(r.group_end.begin(), r.group_end.begin() + static_cast<long>(plan.head_groups));
  std::sort(ends.begin(), ends.end());
  const uint64_t R = plan.round_groups;
  auto at = [&](uint64_t k) { return ends[std::min<uint64_t>(k, ends.size()) - 1]; };
  auto rate = [&](uint64_t from, uint64_t to) {  // completions per cycle between the from-th and to-th completion
    const double dt = at(to) - (from ? at(from) : 0.0);
    return dt > 0 ? static_cast<double>(to - from) / dt : 0.0;
  };
  double thr, spread;
  if (plan.head_rounds >= 3) {
    thr = rate(R, plan.head_groups);
    const double a = rate(R, 2 * R), b = rate(2 * R, 3 * R);
    spread = thr > 0 ? std::abs(a - b) / thr : 1.0;
  } else if (plan.head_rounds == 2) {
    thr = rate(R, plan.head_groups);
    spread = thr > 0 ? std::abs(rate(0, R) - thr) / thr : 1.0;  // first round (ramp included) against steady state
  } else {
    thr = rate(0, plan.head_groups);
    spread = 1.0;  // no steady state observed: the extrapolated part is known only to a factor of two
  }
  if (thr <= 0) thr = plan.head_groups / std::max(1.0, static_cast<double>(r.cycles));
  e.extrapolated_cycles = skipped / thr;
  // The skipped rounds cannot go faster than the slice's shared levels drain their bytes: completions
  // run ahead of posted write-backs, so a short head overstates the throughput of a bandwidth-bound
  // launch. Floor: the slice's whole-stream bytes at each level over the bandwidth the model gives that
  // level on the slice (sim::MemoryHierarchy: HBM and MALL at their achievable efficiency).
  const HwParams& hw = *r.hw;
  const double per_stream = static_cast<double>(plan.slice_groups) / static_cast<double>(plan.workgroups.size());
  const double floors[] = {r.hbm_bytes * per_stream / (hw.hbm_bw * hw.hbm_efficiency * plan.slice.device_share),
                           hw.has_mall ? r.mall_bytes * per_stream / (hw.mall_bw * hw.mall_efficiency * plan.slice.device_share) : 0.0,
                           r.l2_bytes * per_stream / (plan.slice.xcds * hw.l2_bw * plan.slice.xcd_share)};
  for (double f : floors) e.extrapolated_cycles = std::max(e.extrapolated_cycles, f - e.cycles);
  e.cycles += e.extrapolated_cycles;
  e.extrapolation_spread = spread;
  e.error_bound += spread * e.extrapolated_cycles / e.cycles;
  return e;
}

}  // namespace asmevo::timing
