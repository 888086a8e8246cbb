#include "timing/memory_hierarchy.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace asmevo::timing::sim {

MemoryHierarchy::MemoryHierarchy(const HwParams& hw, const DeviceSlice& slice) : hw_(hw), slice_(slice) {
  cus_.resize(slice.cus());
  for (auto& c : cus_) {
    c.l1 = Cache(hw.l1_bytes, hw.l1_ways, hw.l1_line);
    c.ta.bytes_per_cycle = 1;
    c.l1_data.bytes_per_cycle = hw.l1_bw;
  }
  scache_.resize((slice.cus() + 1) / 2, Cache(hw.scache_bytes, 4, hw.scache_line));  // S1: 16 KiB per 2 CUs; 4-way [U]
  // A slice's share of each XCD's L2: as many sets as its CUs' share (at least one), all the ways.
  const double l2_share = slice.xcd_share, dev_share = slice.device_share;
  const double mall_capacity_share =
      slice.warmed_share >= 1 ? 1.0 : dev_share + (1 - dev_share) * std::max(0.0, slice.warmed_share);
  const unsigned l2_bytes = std::max(hw.l2_ways * hw.l2_line, static_cast<unsigned>(std::lround(hw.l2_bytes * l2_share)));
  l2_.resize(slice.xcds, Cache(l2_bytes, hw.l2_ways, hw.l2_line));
  l2_bw_.resize(slice.xcds);
  for (auto& s : l2_bw_) s.bytes_per_cycle = hw.l2_bw * l2_share;
  mall_.bytes_per_cycle = hw.has_mall ? hw.mall_bw * hw.mall_efficiency * dev_share : 1;
  // A slice gets its share of the MALL's sets (at least one), all the ways, as of the L2.
  if (hw.has_mall)
    mall_cache_ = Cache(std::max<unsigned>(hw.mall_ways << kSectorShift,
                                           static_cast<unsigned>(std::lround(hw.mall_bytes * mall_capacity_share))),
                        hw.mall_ways, 1u << kSectorShift);
  hbm_.bytes_per_cycle = hw.hbm_bw * hw.hbm_efficiency * dev_share;
  // Each CU's vL1D translates through its own L1 TLB (UTCL1, S10), so a slice CU keeps a whole one.
  if (hw.tlb_entries) tlb_.resize(slice.cus(), Cache(hw.tlb_entries, hw.tlb_ways, 1));
  // Functional warming (warmed_share) already lets the sample's loads find the lines the other XCDs' workgroups
  // bring into the MALL: the HBM fetch of a shared read keeps the XCD's share (the L2's sharing, which warming
  // leaves out) for the warmed part of the others, the device's share for the rest.
  const double warmed = std::clamp(slice.warmed_share, 0.0, 1.0);
  for (auto& r : slice_.read_shares) r.hbm_share = warmed * r.mall_share + (1 - warmed) * r.hbm_share;
  page_shift_ = std::countr_zero(hw.tlb_page);
  l1_shift_ = std::countr_zero(hw.l1_line);
  l2_shift_ = std::countr_zero(hw.l2_line);
  sc_shift_ = std::countr_zero(hw.scache_line);
}

uint64_t MemoryHierarchy::scalar_access(unsigned cu, const uint64_t* sectors, uint32_t count, uint64_t t) {
  uint64_t done = t + hw_.lat_scache;
  Cache& sc = scache_[cu / 2];
  const unsigned xcd = xcd_of(cu);
  uint64_t prev = ~0ull;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t sec = sectors[i];
    const uint64_t line = (sec << kSectorShift) >> sc_shift_;
    if (line == prev) continue;
    prev = line;
    if (auto r = sc.lookup(line)) {
      done = std::max(done, *r);
      continue;
    }
    traffic_.l2_bytes += hw_.scache_line;
    uint64_t ready = static_cast<uint64_t>(l2_bw_[xcd].serve(t, hw_.scache_line)) + hw_.lat_smem_miss;
    const uint64_t l2_line = (sec << kSectorShift) >> l2_shift_;
    if (auto r = l2_[xcd].lookup(l2_line)) ready = std::max(ready, *r);
    else {
      ready = std::max(ready, fetch_below_l2(t, sec, hw_.l2_line, true));
      l2_[xcd].fill(l2_line, ready);
    }
    sc.fill(line, ready);
    done = std::max(done, ready);
  }
  return done;
}

const DeviceSlice::ReadShare* MemoryHierarchy::read_share(uint64_t sec) const {
  const auto& v = slice_.read_shares;
  auto it = std::upper_bound(v.begin(), v.end(), sec, [](uint64_t s, const DeviceSlice::ReadShare& r) { return s < r.first_sector; });
  if (it == v.begin()) return nullptr;
  --it;
  return sec < it->end_sector ? &*it : nullptr;
}

// Time at which an L2 miss of sector `sec` (line of `line_bytes`) is back from the MALL or HBM.
// A shared read (the reuse probe, timing/reuse_probe.h) keeps its latency but uses, and counts, only the
// share of the MALL's and HBM's bytes that the device's one fetch for its co-resident readers leaves it.
uint64_t MemoryHierarchy::fetch_below_l2(uint64_t t, uint64_t sec, unsigned line_bytes, bool shared_read) {
  const DeviceSlice::ReadShare* share = shared_read && !slice_.read_shares.empty() ? read_share(sec) : nullptr;
  const double mall_bytes = share ? line_bytes * share->mall_share : line_bytes;
  const double hbm_bytes = share ? line_bytes * share->hbm_share : line_bytes;
  const uint64_t line_secs = line_bytes >> kSectorShift;
  const uint64_t first = sec / line_secs * line_secs;
  bool all_in_mall = hw_.has_mall;
  uint64_t pending = 0;  // sectors still being filled into the MALL
  for (uint64_t s = first; s < first + line_secs && all_in_mall; ++s) {
    if (auto r = mall_cache_.lookup(s)) pending = std::max(pending, *r);
    else all_in_mall = false;
  }
  if (all_in_mall) {
    traffic_.mall_bytes += share ? static_cast<uint64_t>(std::llround(mall_bytes)) : line_bytes;
    return std::max(pending, static_cast<uint64_t>(mall_.serve(t, mall_bytes)) + hw_.lat_mall);
  }
  traffic_.hbm_bytes += share ? static_cast<uint64_t>(std::llround(hbm_bytes)) : line_bytes;
  const uint64_t ready = static_cast<uint64_t>(hbm_.serve(t, hbm_bytes)) + hw_.lat_hbm;
  if (hw_.has_mall)
    for (uint64_t s = first; s < first + line_secs; ++s)
      if (!mall_cache_.lookup(s)) mall_cache_.fill(s, ready);
  return ready;
}

uint64_t MemoryHierarchy::vector_access(unsigned cu, const uint64_t* sectors, uint32_t count, unsigned active_lanes, bool store,
                                        bool atomic, uint64_t t, unsigned l1_tag) {
  CuPorts& C = cus_[cu];
  const unsigned xcd = xcd_of(cu);
  // The texture addresser takes ta_cycles per 64 active lanes (at least one quarter of it).
  const double ta = hw_.ta_cycles * std::max(0.25, std::ceil(active_lanes / 16.0) / 4.0);
  const double ta_done = C.ta.serve(static_cast<double>(t), ta);
  // Distinct L1 lines of the instruction.
  lines_.clear();
  for (uint32_t i = 0; i < count; ++i) lines_.push_back(sectors[i] >> (l1_shift_ - kSectorShift));
  if (!std::is_sorted(lines_.begin(), lines_.end())) std::sort(lines_.begin(), lines_.end());  // lanes mostly ascend
  lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
  uint64_t done = static_cast<uint64_t>(ta_done) + hw_.lat_l1;
  if (lines_.empty()) return done;
  const double l1_bytes = static_cast<double>(lines_.size()) * hw_.l1_line;
  traffic_.l1_bytes += static_cast<uint64_t>(l1_bytes);
  const double l1_done = C.l1_data.serve(ta_done, l1_bytes);
  done = std::max(done, static_cast<uint64_t>(l1_done) + hw_.lat_l1);
  const bool to_l2 = store || atomic;  // L1 is write-through (S11); atomics execute at the L2
  const double start = ta_done;
  for (uint64_t line : lines_) {  // host prefetch of the L2 and MALL sets the loop below may visit
    const uint64_t addr = line << l1_shift_;
    if (!store) l2_[xcd].prefetch(addr >> l2_shift_);
    if (hw_.has_mall)
      for (uint64_t s = addr >> kSectorShift; s < (addr + hw_.l1_line) >> kSectorShift; ++s) mall_cache_.prefetch(s);
  }
  uint64_t prev_l2 = ~0ull, prev_ready = 0;
  for (uint64_t line : lines_) {
    const uint64_t addr = line << l1_shift_;
    if (store) {
      // Written bytes reach HBM eventually (L2 write-back): charged once per 64-byte sector, when first written.
      for (uint64_t s = addr >> kSectorShift; s < (addr + hw_.l1_line) >> kSectorShift; ++s)
        if (written_.insert(s).second) {
          if (hw_.has_mall) mall_cache_.fill(s, t);
          traffic_.hbm_bytes += 1u << kSectorShift;
          hbm_.serve(static_cast<double>(t), 1u << kSectorShift);
        }
    }
    // Line numbers stay below 2^57 (64-bit addresses over 128-byte lines): the tag takes the bits above.
    const uint64_t l1_key = line ^ (static_cast<uint64_t>(l1_tag & 63) << 57);
    if (!to_l2) {
      if (auto r = C.l1.lookup(l1_key)) {
        done = std::max(done, *r);
        continue;
      }
    }
    // The L1 missed: translate (the lines of one fragment share one entry, as they share the L1 key's tag).
    uint64_t translated = static_cast<uint64_t>(start);
    if (!tlb_.empty()) {
      const uint64_t page = (addr >> page_shift_) ^ (static_cast<uint64_t>(l1_tag & 63) << 57);
      if (auto r = tlb_[cu].lookup(page)) translated = std::max(translated, *r);
      else {
        translated += hw_.lat_tlb_miss;
        tlb_[cu].fill(page, translated);
      }
    }
    const uint64_t l2_line = addr >> l2_shift_;
    uint64_t ready;
    if (l2_line == prev_l2) {
      ready = prev_ready;  // the same L2 request brought this L1 line
    } else {
      prev_l2 = l2_line;
      traffic_.l2_bytes += hw_.l2_line;
      ready = static_cast<uint64_t>(l2_bw_[xcd].serve(static_cast<double>(translated), hw_.l2_line)) + hw_.lat_l2 +
              (atomic ? hw_.lat_atomic_extra : 0);
      if (!store) {
        if (auto r = l2_[xcd].lookup(l2_line)) ready = std::max(ready, *r);
        else {
          ready = std::max(ready, fetch_below_l2(translated, addr >> kSectorShift, hw_.l2_line, !atomic) +
                                      (atomic ? hw_.lat_atomic_extra : 0));
          l2_[xcd].fill(l2_line, ready);
        }
      }
      prev_ready = ready;
    }
    if (!to_l2) C.l1.fill(l1_key, ready);
    done = std::max(done, ready);
  }
  return done;
}

void MemoryHierarchy::warm(unsigned device_xcd, const uint64_t* sectors, uint32_t count, uint64_t t) {
  if (!hw_.has_mall) return;
  // The warming workgroups of an XCD stand for its other CUs: their L1 TLBs together, one cache of all their entries.
  const unsigned xcd_entries = hw_.tlb_entries * (hw_.cus / hw_.xcds);
  if (!tlb_.empty() && warm_tlb_.empty()) warm_tlb_.assign(hw_.xcds, Cache(xcd_entries, std::min(xcd_entries, 64u), 1));
  const uint64_t line_secs = hw_.l2_line >> kSectorShift;
  // Host prefetch of the MALL sets the loop below visits (no effect on the model): a warming load's lines
  // are mostly MALL misses on the host too, and looked up one after the other.
  for (uint32_t i = 0; i < count; ++i)
    for (uint64_t s = sectors[i] / line_secs * line_secs, e = s + line_secs; s < e; ++s) mall_cache_.prefetch(s);
  uint64_t prev = ~0ull;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t addr = sectors[i] << kSectorShift, first = (addr >> kSectorShift) / line_secs * line_secs;
    if (first == prev) continue;
    prev = first;
    uint64_t translated = t;
    if (!warm_tlb_.empty()) {
      Cache& tlb = warm_tlb_[device_xcd % hw_.xcds];
      const uint64_t page = addr >> page_shift_;
      if (auto r = tlb.lookup(page)) translated = std::max(translated, *r);
      else tlb.fill(page, translated += hw_.lat_tlb_miss);
    }
    // A line the MALL lacks is filled from HBM after the latency and the wait the slice's own requests
    // see in the HBM queue now (its share of the queue), without adding to that queue.
    bool all_in_mall = true;
    for (uint64_t s = first; s < first + line_secs && all_in_mall; ++s) all_in_mall = mall_cache_.lookup(s).has_value();
    if (all_in_mall) continue;
    const uint64_t ready = static_cast<uint64_t>(std::max(static_cast<double>(translated), hbm_.free)) + hw_.lat_hbm;
    for (uint64_t s = first; s < first + line_secs; ++s)
      if (!mall_cache_.lookup(s)) mall_cache_.fill(s, ready);
  }
}

}  // namespace asmevo::timing::sim
