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
  probe.resident_xcd = std::min<uint64_t>((plan.grid_groups + hw.xcds - 1) / hw.xcds, round);
  probe.resident_device = std::min<uint64_t>(plan.grid_groups, round * hw.xcds);
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
  std::vector<uint8_t> is_load(insts.size()), is_mem(insts.size());
  for (size_t i = 0; i < insts.size(); ++i) {
    const sim::StaticInst si = sim::classify(insts[i], program.arch(), program.accum_offset(), program.kernel());
    is_mem[i] = si.kind == sim::Kind::Vmem;
    is_load[i] = is_mem[i] && !si.store && !si.atomic;
  }
  const unsigned line_shift = static_cast<unsigned>(std::countr_zero(hw.l2_line)) - kSectorShift;
  // Each loaded line with the workgroup's progress when it is read: the bytes its vector memory instructions
  // (loads, stores, atomics) moved before, its waves advancing together (a wave's bytes times the waves). Traffic,
  // not distinct lines: an upper bound of the footprint in between, exact for a stream; cheap (no set of lines).
  auto each_read = [&](const std::vector<WaveTrace>& waves, auto&& f) {
    const double waves_n = static_cast<double>(waves.size());
    for (const WaveTrace& w : waves) {
      uint64_t moved = 0;  // sectors
      for (const TraceEntry& e : w.entries) {
        if (!is_mem[e.inst]) continue;
        if (is_load[e.inst]) {
          const double at = static_cast<double>(moved << kSectorShift) * waves_n;
          for (uint32_t s = e.sector_first; s < e.sector_first + e.sector_count; ++s) f(w.sectors[s] >> line_shift, at);
        }
        moved += e.sector_count;
      }
    }
  };
  // How far apart two reads may be in one workgroup's progress for the later to find the line still in the L2
  // (a reader on workgroup 0's XCD) or in the MALL: the cache's capacity over the co-resident workgroups that
  // fill it at the same rate.
  const double l2_reach = static_cast<double>(hw.l2_bytes) / static_cast<double>(std::max<uint64_t>(1, probe.resident_xcd));
  const double mall_reach =
      hw.has_mall ? static_cast<double>(hw.mall_bytes) / static_cast<double>(std::max<uint64_t>(1, probe.resident_device)) : -1.0;
  // Workgroup 0's lines -> the estimated left-out readers on its XCD and elsewhere, and the simulated ones, each
  // counted by the cache that serves its read: the XCD's L2 (a reader of workgroup 0's XCD within l2_reach) or the
  // MALL (within mall_reach: the MALL access is the reader's own, the HBM fetch shared).
  struct Readers {
    double first = 0, last = 0;  // workgroup 0's progress at its first and last read of the line
    double left_xcd = 0, left_elsewhere = 0;
    double sim_xcd = 0, sim_elsewhere = 0;
    uint64_t counted_by = ~0ull;  // the reader counted last (each counts a line once, by the nearest cache that serves it)
    uint8_t level = 0;            // its level: 0 none yet, 1 MALL, 2 L2
  };
  std::unordered_map<uint64_t, Readers> lines;
  each_read(first, [&](uint64_t line, double at) {
    auto [it, fresh] = lines.try_emplace(line);
    if (fresh) it->second.first = at;
    it->second.last = at;
  });
  auto count = [&](const std::vector<uint64_t>& ids, bool same_xcd, double weight, bool simulated) {
    for (uint64_t id : ids)
      each_read(peer(id), [&](uint64_t line, double at) {
        auto it = lines.find(line);
        if (it == lines.end()) return;
        Readers& r = it->second;
        if (r.counted_by != id) r.counted_by = id, r.level = 0;
        if (r.level == 2) return;
        const double apart = at < r.first ? r.first - at : at > r.last ? at - r.last : 0.0;
        const uint8_t level = same_xcd && apart <= l2_reach ? 2 : apart <= mall_reach ? 1 : 0;
        if (level <= r.level) return;
        double& xcd = simulated ? r.sim_xcd : r.left_xcd;
        double& elsewhere = simulated ? r.sim_elsewhere : r.left_elsewhere;
        if (r.level == 1) elsewhere -= weight;  // now served nearer: by the L2
        (level == 2 ? xcd : elsewhere) += weight;
        r.level = level;
      });
  };
  for (const ProbeStratum& st : probe.strata) count(st.probed, st.same_xcd, st.scale(), false);
  count(probe.xcd_simulated, true, 1.0, true);
  count(probe.device_simulated, false, 1.0, true);
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
