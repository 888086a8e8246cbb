#include "timing/reuse_probe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "timing/inst_info.h"

namespace asmevo::timing {

std::vector<uint64_t> ReuseProbe::ids() const {
  std::vector<uint64_t> v;
  for (const ProbeStratum& st : strata) v.insert(v.end(), st.probed.begin(), st.probed.end());
  std::sort(v.begin(), v.end());
  return v;
}

namespace {

// `take` of `all` (ascending ids), evenly spread: the middle of each of `take` equal intervals.
std::vector<uint64_t> spread(const std::vector<uint64_t>& all, size_t take) {
  std::vector<uint64_t> out;
  take = std::min(take, all.size());
  for (size_t i = 0; i < take; ++i) out.push_back(all[(2 * i + 1) * all.size() / (2 * take)]);
  return out;
}

// Two strata of `others` (ascending): the nearest half of `take` probed whole, the rest spread over the others.
void add_strata(ReuseProbe& probe, const std::vector<uint64_t>& others, size_t take, bool same_xcd) {
  take = std::min(take, others.size());
  if (take == 0) return;
  const size_t near = take / 2;
  ProbeStratum a{same_xcd, near, {others.begin(), others.begin() + static_cast<long>(near)}};
  const std::vector<uint64_t> rest(others.begin() + static_cast<long>(near), others.end());
  ProbeStratum b{same_xcd, rest.size(), spread(rest, take - near)};
  if (a.members) probe.strata.push_back(std::move(a));
  if (b.members) probe.strata.push_back(std::move(b));
}

}  // namespace

ReuseProbe plan_reuse_probe(const HwParams& hw, const SamplePlan& plan, unsigned per_cu, double per_group, double budget,
                            unsigned max_peers) {
  ReuseProbe probe;
  if (!plan.sampled || plan.xcd_window || per_cu == 0 || plan.workgroups.empty() || plan.workgroups.front() != 0) return probe;
  const size_t afford = static_cast<size_t>(std::min<double>(max_peers, std::floor(std::max(0.0, budget) / std::max(1.0, per_group))));
  if (afford == 0) return probe;
  // Workgroup 0's device round: on every XCD the first CUs-per-XCD x per_cu positions of its stream (ids
  // xcd, xcd + XCDs, ...); the slice holds the positions whose CU (position mod CUs per XCD) is below its c.
  const unsigned per_xcd = hw.cus / hw.xcds;
  const uint64_t round = static_cast<uint64_t>(per_xcd) * per_cu;
  std::vector<uint64_t> xcd_others, device_others;
  std::vector<uint64_t> simulated = plan.workgroups;
  std::sort(simulated.begin(), simulated.end());
  for (uint64_t g = 1; g < std::min<uint64_t>(plan.grid_groups, round * hw.xcds); ++g) {
    const unsigned xcd = static_cast<unsigned>(g % hw.xcds);
    const uint64_t pos = g / hw.xcds;
    const bool in_slice = xcd < plan.slice.xcds && pos % per_xcd < plan.slice.cus_per_xcd;
    if (in_slice) {
      if (std::binary_search(simulated.begin(), simulated.end(), g)) (xcd == 0 ? probe.xcd_simulated : probe.device_simulated).push_back(g);
      continue;
    }
    (xcd == 0 ? xcd_others : device_others).push_back(g);
  }
  // Half on the XCD (the L2's sharing), half on the others (the MALL's), or all where one kind is empty.
  size_t on_xcd = device_others.empty() ? afford : xcd_others.empty() ? 0 : (afford + 1) / 2;
  on_xcd = std::min(on_xcd, xcd_others.size());
  add_strata(probe, xcd_others, on_xcd, true);
  add_strata(probe, device_others, afford - on_xcd, false);
  return probe;
}

std::vector<DeviceSlice::ReadShare> measure_read_shares(const HwParams& hw, const emu::Program& program, const emu::Launch& launch,
                                                        const ReuseProbe& probe, const std::vector<WaveTrace>& first,
                                                        const std::function<const std::vector<WaveTrace>&(uint64_t)>& peer) {
  std::vector<DeviceSlice::ReadShare> shares;
  if (probe.empty()) return shares;
  const auto& insts = program.insts();
  std::vector<uint8_t> is_load(insts.size());
  for (size_t i = 0; i < insts.size(); ++i) {
    const sim::StaticInst si = sim::classify(insts[i], program.arch(), program.accum_offset(), program.kernel());
    is_load[i] = si.kind == sim::Kind::Vmem && !si.store && !si.atomic;
  }
  const unsigned line_shift = static_cast<unsigned>(std::countr_zero(hw.l2_line)) - kSectorShift;
  auto each_line = [&](const std::vector<WaveTrace>& waves, auto&& f) {
    for (const WaveTrace& w : waves)
      for (const TraceEntry& e : w.entries)
        if (is_load[e.inst])
          for (uint32_t s = e.sector_first; s < e.sector_first + e.sector_count; ++s) f(w.sectors[s] >> line_shift);
  };
  // Workgroup 0's lines -> the estimated left-out readers on its XCD and elsewhere, and the simulated ones.
  struct Readers {
    double left_xcd = 0, left_elsewhere = 0;
    uint32_t sim_xcd = 0, sim_elsewhere = 0;
    uint64_t last = ~0ull;  // the workgroup that last counted it (each counts a line once)
  };
  std::unordered_map<uint64_t, Readers> lines;
  each_line(first, [&](uint64_t line) { lines.try_emplace(line); });
  auto count = [&](const std::vector<uint64_t>& ids, auto&& add) {
    for (uint64_t id : ids)
      each_line(peer(id), [&](uint64_t line) {
        auto it = lines.find(line);
        if (it == lines.end() || it->second.last == id) return;
        it->second.last = id;
        add(it->second);
      });
  };
  for (const ProbeStratum& st : probe.strata) {
    const double scale = st.scale();
    count(st.probed, [&](Readers& r) { (st.same_xcd ? r.left_xcd : r.left_elsewhere) += scale; });
  }
  count(probe.xcd_simulated, [](Readers& r) { ++r.sim_xcd; });
  count(probe.device_simulated, [](Readers& r) { ++r.sim_elsewhere; });
  // Per buffer: the mean share over workgroup 0's lines in it.
  for (const emu::BufferArg& b : launch.buffers) {
    const uint64_t first_sector = b.address >> kSectorShift, end_sector = (b.address + b.bytes + (1u << kSectorShift) - 1) >> kSectorShift;
    const uint64_t first_line = first_sector >> line_shift, end_line = ((end_sector - 1) >> line_shift) + 1;
    double mall = 0, hbm = 0;
    uint64_t n = 0;
    for (const auto& [line, r] : lines) {
      if (line < first_line || line >= end_line) continue;
      const double sim_xcd = 1.0 + r.sim_xcd, sim_device = sim_xcd + r.sim_elsewhere;
      mall += sim_xcd / (sim_xcd + r.left_xcd), hbm += sim_device / (sim_device + r.left_xcd + r.left_elsewhere), ++n;
    }
    if (n == 0 || hbm >= static_cast<double>(n)) continue;  // no line shared: every fetch counts whole
    shares.push_back({first_sector, end_sector, mall / n, hbm / n});
  }
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first_sector < b.first_sector; });
  return shares;
}

}  // namespace asmevo::timing
