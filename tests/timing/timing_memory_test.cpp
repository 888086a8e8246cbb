// The memory stage's capacity rules (timing/memory_hierarchy.h), on a scaled-down MI300X row so the
// footprints stay small: the MALL keeps what fits in it (a second pass over a footprint between the
// L2 and the MALL capacity is served by the MALL) and LRU-thrashes what does not (a footprint above the
// MALL capacity goes to HBM again), at the MALL's achievable bandwidth. With the hashed set index a few
// sets overflow early, so "all" reads "nearly all" (>= 90 %) and "none" "nearly none" (<= 1 %).
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "timing/hw_params.h"
#include "timing/memory_hierarchy.h"

namespace asmevo::timing {
namespace {

using sim::Traffic;

HwParams small_mi300x() {
  HwParams hw = hw_params(codeobj::Arch::gfx942);
  hw.l1_bytes = 2048;         // scaled down from 32 KiB per CU: 16 lines
  hw.l1_ways = 4;
  hw.l2_bytes = 64 * 1024;    // scaled down from 4 MiB per XCD
  hw.mall_bytes = 1u << 20;   // scaled down from 256 MiB
  return hw;
}

struct Pass {
  Traffic traffic;
  uint64_t end = 0;
};

// Reads `bytes` once more in 128-byte lines from CU 0 (issued back to back at `t`), returning the traffic it added.
Pass read_pass(sim::MemoryHierarchy& mem, uint64_t bytes, uint64_t t) {
  const Traffic before = mem.traffic();
  Pass p;
  for (uint64_t a = 0; a < bytes; a += 128) {
    const uint64_t sectors[2] = {a >> kSectorShift, (a >> kSectorShift) + 1};
    p.end = std::max(p.end, mem.vector_access(0, sectors, 2, 64, false, false, t));
  }
  const Traffic& after = mem.traffic();
  p.traffic = {after.l1_bytes - before.l1_bytes, after.l2_bytes - before.l2_bytes, after.mall_bytes - before.mall_bytes,
               after.hbm_bytes - before.hbm_bytes};
  return p;
}

// Read shares (the reuse probe, timing/reuse_probe.h): a load of a shared buffer uses and counts its share of
// the HBM fetch (and of the MALL access on a second pass) at the same latency; other addresses and stores
// count whole, and with no shares the hierarchy is the one it was.
TEST(MemoryHierarchy, ASharedReadUsesItsShareOfTheFetchBelowTheL2AtTheSameLatency) {
  const HwParams hw = small_mi300x();
  const uint64_t bytes = 256 * 1024;  // above the L2, below the MALL: the second pass is served by the MALL
  DeviceSlice shared{1, 1, 1.0, 1.0};
  shared.read_shares.push_back({0, bytes >> kSectorShift, 0.5, 0.25});
  sim::MemoryHierarchy whole(hw, DeviceSlice{1, 1, 1.0, 1.0}), part(hw, shared);
  const Pass w1 = read_pass(whole, bytes, 0), p1 = read_pass(part, bytes, 0);
  EXPECT_EQ(w1.traffic.hbm_bytes, bytes);
  EXPECT_EQ(p1.traffic.hbm_bytes, bytes / 4);
  EXPECT_EQ(p1.traffic.l2_bytes, w1.traffic.l2_bytes) << "every L2 request is the slice's own";
  DeviceSlice narrow{1, 1, 1.0, 0.001}, narrow_shared = shared;  // HBM at a thousandth: bandwidth-bound
  narrow_shared.device_share = 0.001;
  sim::MemoryHierarchy whole_narrow(hw, narrow), part_narrow(hw, narrow_shared);
  EXPECT_LT(read_pass(part_narrow, bytes, 0).end * 3, read_pass(whole_narrow, bytes, 0).end)
      << "a quarter of the bytes through the same HBM bandwidth";
  const Pass w2 = read_pass(whole, bytes, w1.end), p2 = read_pass(part, bytes, p1.end);
  EXPECT_GE(w2.traffic.mall_bytes, bytes * 9 / 10);
  EXPECT_EQ(p2.traffic.mall_bytes * 2, w2.traffic.mall_bytes);
  // One isolated load: the latency of the fetch is unchanged.
  sim::MemoryHierarchy whole1(hw, DeviceSlice{1, 1, 1.0, 1.0}), part1(hw, shared);
  const uint64_t sectors[2] = {0, 1};
  EXPECT_EQ(part1.vector_access(0, sectors, 2, 64, false, false, 100), whole1.vector_access(0, sectors, 2, 64, false, false, 100));
  // Beyond the shared buffer: whole.
  const uint64_t beyond[2] = {bytes >> kSectorShift, (bytes >> kSectorShift) + 1};
  const uint64_t before = part1.traffic().hbm_bytes;
  part1.vector_access(0, beyond, 2, 64, false, false, 200);
  EXPECT_EQ(part1.traffic().hbm_bytes - before, hw.l2_line);
}

// The L1 tag (SliceWorkgroups::XcdWindow): workgroups standing for different device CUs share the slice
// CU's L1 capacity but never hit each other's lines there; the second load goes on to the L2 and hits.
TEST(MemoryHierarchy, LinesOfAnotherL1TagMissTheL1AndHitTheL2) {
  const HwParams hw = small_mi300x();
  sim::MemoryHierarchy mem(hw, DeviceSlice{1, 1, 1.0, 1.0});
  const uint64_t sectors[2] = {0, 1};
  const uint64_t first = mem.vector_access(0, sectors, 2, 64, false, false, 0, 0);
  const uint64_t l2_after_first = mem.traffic().l2_bytes, hbm_after_first = mem.traffic().hbm_bytes;
  mem.vector_access(0, sectors, 2, 64, false, false, first, 0);  // same tag: an L1 hit
  EXPECT_EQ(mem.traffic().l2_bytes, l2_after_first);
  mem.vector_access(0, sectors, 2, 64, false, false, first, 5);  // another tag: misses the L1, hits the L2
  EXPECT_EQ(mem.traffic().l2_bytes, l2_after_first + hw.l2_line);
  EXPECT_EQ(mem.traffic().hbm_bytes, hbm_after_first);
}

TEST(MemoryHierarchy, FootprintBetweenL2AndMallIsServedByTheMallOnTheSecondPass) {
  const HwParams hw = small_mi300x();
  const DeviceSlice one_xcd{1, 1, 1.0, 1.0};
  sim::MemoryHierarchy mem(hw, one_xcd);
  const uint64_t footprint = 512 * 1024;  // 8x the L2, half the MALL
  const Pass first = read_pass(mem, footprint, 0);
  EXPECT_EQ(first.traffic.hbm_bytes, footprint);
  EXPECT_EQ(first.traffic.mall_bytes, 0u);
  const Pass second = read_pass(mem, footprint, first.end);
  // The set index is hashed, so a few sets overflow before the cache is full: nearly all, not all.
  EXPECT_GE(second.traffic.mall_bytes, footprint * 9 / 10);
  EXPECT_EQ(second.traffic.mall_bytes + second.traffic.hbm_bytes, footprint);
  // The MALL pass is bandwidth-bound at its achievable rate (peak x efficiency), not at the peak.
  const double mall_cycles = static_cast<double>(second.traffic.mall_bytes) / (hw.mall_bw * hw.mall_efficiency);
  EXPECT_GE(static_cast<double>(second.end - first.end), mall_cycles);
}

TEST(MemoryHierarchy, FootprintAboveTheMallCapacityGoesToHbmAgain) {
  const HwParams hw = small_mi300x();
  sim::MemoryHierarchy mem(hw, DeviceSlice{1, 1, 1.0, 1.0});
  const uint64_t footprint = 2u << 20;  // twice the MALL: LRU keeps none of the next pass's lines
  const Pass first = read_pass(mem, footprint, 0);
  const Pass second = read_pass(mem, footprint, first.end);
  EXPECT_LE(second.traffic.mall_bytes, footprint / 100);
  EXPECT_GE(second.traffic.hbm_bytes, footprint * 99 / 100);
}

TEST(MemoryHierarchy, ASliceGetsItsShareOfTheMallCapacity) {
  const HwParams hw = small_mi300x();
  // A slice with a quarter of the device: 256 KiB of the 1 MiB MALL, so 512 KiB no longer fits.
  sim::MemoryHierarchy mem(hw, DeviceSlice{1, 1, 1.0, 0.25});
  const uint64_t footprint = 512 * 1024;
  const Pass first = read_pass(mem, footprint, 0);
  const Pass second = read_pass(mem, footprint, first.end);
  EXPECT_LE(second.traffic.mall_bytes, footprint / 100);
}

// Functional warming (sampled simulation): a line another workgroup loaded earlier is a MALL hit for
// the slice, with no HBM traffic counted for the warming load; a line it did not load still misses.
TEST(MemoryHierarchy, AWarmedLineIsAMallHit) {
  const HwParams hw = small_mi300x();
  ASSERT_TRUE(hw.has_mall);
  DeviceSlice slice{1, 1, 1.0, 1.0};
  slice.warmed_share = 1;
  sim::MemoryHierarchy mem(hw, slice);
  const uint64_t warmed[2] = {0, 1}, cold[2] = {1u << 20, (1u << 20) + 1};  // two 128-byte lines, pages apart
  mem.warm(3, warmed, 2, 0);
  EXPECT_EQ(mem.traffic().hbm_bytes, 0u);
  const uint64_t t = 100000;  // the warming fill has long arrived
  const uint64_t hit = mem.vector_access(0, warmed, 2, 64, false, false, t) - t;
  EXPECT_EQ(mem.traffic().mall_bytes, hw.l2_line);
  EXPECT_EQ(mem.traffic().hbm_bytes, 0u);
  const uint64_t t2 = 2 * t;  // after the hit: the CU's ports are free again
  const uint64_t miss = mem.vector_access(0, cold, 2, 64, false, false, t2) - t2;
  EXPECT_EQ(mem.traffic().hbm_bytes, hw.l2_line);
  EXPECT_EQ(miss - hit, hw.lat_hbm - hw.lat_mall);
}

// The first L1 miss to a fragment pays the TLB miss; a later miss to another line of that fragment, 1 MiB away
// (another 4 KiB page), does not: one entry covers the fragment (the driver's 2 MiB, timing/hw_params.cpp).
TEST(MemoryHierarchy, OnlyTheFirstMissToAFragmentPaysTheTlbMiss) {
  const HwParams hw = small_mi300x();
  ASSERT_EQ(hw.tlb_page, 2u << 20);
  sim::MemoryHierarchy mem(hw, DeviceSlice{1, 1, 1.0, 1.0});
  const uint64_t far = (1u << 20) >> kSectorShift;
  const uint64_t line0[2] = {0, 1}, line1[2] = {far, far + 1};  // two 128-byte lines of fragment 0
  const uint64_t first = mem.vector_access(0, line0, 2, 64, false, false, 0);
  const uint64_t t1 = 1000000;  // long after: the queues are empty again
  const uint64_t second = mem.vector_access(0, line1, 2, 64, false, false, t1) - t1;
  EXPECT_EQ(first - second, hw.lat_tlb_miss);
}

// The L1 TLB is the CU's own (UTCL1, in its vL1D): a fragment CU 0 translated still misses on CU 1 of the same XCD.
TEST(MemoryHierarchy, EachCuTranslatesThroughItsOwnTlb) {
  const HwParams hw = small_mi300x();
  sim::MemoryHierarchy mem(hw, DeviceSlice{1, 2, 1.0, 1.0});
  const uint64_t far = (1u << 20) >> kSectorShift;
  const uint64_t line_a[2] = {0, 1}, line_b[2] = {far, far + 1};  // two lines of fragment 0
  mem.vector_access(0, line_a, 2, 64, false, false, 0);  // CU 0: both into the shared L2, fragment 0 in CU 0's TLB
  mem.vector_access(0, line_b, 2, 64, false, false, 0);
  const uint64_t t1 = 1000000, t2 = 2000000;               // long after: the queues are empty again
  const uint64_t first_on_cu1 = mem.vector_access(1, line_a, 2, 64, false, false, t1) - t1;   // L2 hit, CU 1's TLB misses
  const uint64_t second_on_cu1 = mem.vector_access(1, line_b, 2, 64, false, false, t2) - t2;  // L2 hit, CU 1's TLB hits
  EXPECT_EQ(first_on_cu1 - second_on_cu1, hw.lat_tlb_miss);
}

// Past the TLB's reach every fragment misses again on the next pass.
TEST(MemoryHierarchy, FragmentsBeyondTheTlbReachMissAgain) {
  HwParams hw = small_mi300x();
  hw.tlb_entries = 64;
  hw.tlb_ways = 4;  // 64 entries of 2 MiB: 128 MiB of reach
  const uint64_t fragment = hw.tlb_page;
  auto second_pass_cycles = [&](uint64_t fragments) {
    sim::MemoryHierarchy mem(hw, DeviceSlice{1, 1, 1.0, 1.0});
    uint64_t t = 0;
    for (int pass = 0; pass < 2; ++pass) {
      const uint64_t start = t;
      for (uint64_t p = 0; p < fragments; ++p) {  // one line per fragment, dependent: a pointer chase
        const uint64_t s[2] = {p * fragment >> kSectorShift, (p * fragment >> kSectorShift) + 1};
        t = mem.vector_access(0, s, 2, 64, false, false, t);
      }
      if (pass == 1) return static_cast<double>(t - start) / static_cast<double>(fragments);
    }
    return 0.0;
  };
  // 32 fragments (inside the reach) against 128 (twice it); both chases miss the 16-line L1 and hit the
  // 512-line L2 on the second pass, so the per-step difference is the TLB miss penalty.
  const double inside = second_pass_cycles(32), beyond = second_pass_cycles(128);
  EXPECT_NEAR(beyond - inside, static_cast<double>(hw.lat_tlb_miss), 1.0);
}

}  // namespace
}  // namespace asmevo::timing

namespace asmevo::timing {
namespace {

// sim::Cache keeps each set's recency in a list instead of scanning stamps: on one set (bytes = ways x line)
// it must hit, miss and evict exactly as a stamp-scan LRU does (victim: the way of the oldest stamp, never-used
// ways first, lowest index first), for 1 to 64 ways and a random mix of lookups, fills and refills.
TEST(MemoryHierarchy, CacheEvictsTheLeastRecentlyUsedLineAsAStampScanDoes) {
  struct Reference {
    struct Way {
      uint64_t tag = ~0ull, stamp = 0, ready = 0;
    };
    std::vector<Way> ways;
    uint64_t clock = 0;
    Way* find(uint64_t line) {
      for (auto& w : ways)
        if (w.tag == line) return &w;
      return nullptr;
    }
    std::optional<uint64_t> lookup(uint64_t line) {
      Way* w = find(line);
      if (!w) return std::nullopt;
      w->stamp = ++clock;
      return w->ready;
    }
    void fill(uint64_t line, uint64_t ready) {
      Way* w = find(line);
      if (!w) {
        w = &ways[0];
        for (auto& v : ways)
          if (v.stamp < w->stamp) w = &v;
      }
      *w = Way{line, ++clock, ready};
    }
  };
  std::mt19937_64 rng(14);
  for (unsigned ways : {1u, 2u, 3u, 4u, 16u, 64u}) {
    sim::Cache cache(ways * 128, ways, 128);
    Reference ref{std::vector<Reference::Way>(ways)};
    std::uniform_int_distribution<uint64_t> line(0, 2 * ways + 1);
    for (int op = 0; op < 20000; ++op) {
      const uint64_t l = line(rng);
      if (rng() % 3) {
        ASSERT_EQ(cache.lookup(l), ref.lookup(l)) << ways << " ways, operation " << op;
      } else {
        cache.fill(l, static_cast<uint64_t>(op));
        ref.fill(l, static_cast<uint64_t>(op));
      }
    }
  }
}

}  // namespace
}  // namespace asmevo::timing
