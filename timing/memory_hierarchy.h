// The timing model's memory stage: the cache hierarchy and its bandwidths (llvm-mca's LSUnit and
// its memory model, here for a GPU). Per vector-memory instruction: the texture addresser, the
// instruction's distinct L1 lines through the CU's L1 data path, per line an LRU set-associative L1
// (per CU), L2 (per XCD), the MALL (an LRU cache of its capacity) and HBM, every level a bandwidth server shared by all waves that
// use it; L1 misses are translated by a per-XCD TLB (a miss adds its penalty); scalar loads through a
// scalar cache per two CUs. Returns completion times; counts traffic.
// It models a `DeviceSlice`: the whole device, or the CUs a sampled simulation keeps, with the
// shared levels' capacities and bandwidths scaled to that share (timing/sampling.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "timing/hw_params.h"
#include "timing/line_map.h"
#include "timing/trace.h"

namespace asmevo::timing {

namespace sim {

// LRU set-associative cache of line addresses (hashed set index). Each line remembers when its data arrives, so a
// request to a line still being filled waits for that fill instead of paying a second miss. Sets are
// allocated on first use: a small launch touches few of a device's L2 sets. Each set keeps its ways in
// recency order (a doubly linked list), so a fill finds its victim without scanning the ways: the L1's
// 64-way scan was a fifth of an elementwise launch's time (perf, bench/timing/sampling_bench). The victim is
// the least recently used way; ways never used come first, lowest index first.
class Cache {
 public:
  Cache() = default;
  Cache(unsigned bytes, unsigned ways, unsigned line) : ways_(ways) {
    if (ways == 0 || ways > kMaxWays) throw std::invalid_argument("sim::Cache: ways must be 1 to 65535");
    sets_ = std::max(1u, bytes / line / ways);
  }
  // The time the line's data is (or will be) present, on a hit; nullopt on a miss.
  std::optional<uint64_t> lookup(uint64_t line) {
    const uint32_t* at = where_.find(line);
    if (!at) return std::nullopt;
    touch(*at);
    return pool_[*at].ready;
  }
  // Allocates the line (evicting the least recently used one), its data present from `ready`.
  void fill(uint64_t line, uint64_t ready) {
    if (const uint32_t* at = where_.find(line)) {
      pool_[*at].ready = ready;
      touch(*at);
      return;
    }
    const uint32_t base = set_base(line);
    const uint32_t victim = base + order_[base / ways_].lru;
    Way& v = pool_[victim];
    if (v.tag != ~0ull) where_.erase(v.tag);
    v.tag = line, v.ready = ready;
    touch(victim);
    where_.set(line, victim);
  }

 private:
  static constexpr unsigned kMaxWays = 0xffff;
  struct Way {
    uint64_t tag = ~0ull, ready = 0;
    uint16_t newer = 0, older = 0;  // neighbours in the set's recency list (way numbers within the set)
  };
  struct Order {
    uint16_t mru = 0, lru = 0;
  };
  // Makes way `at` (index into pool_) its set's most recently used.
  void touch(uint32_t at) {
    const uint32_t base = at / ways_ * ways_;
    const uint16_t i = static_cast<uint16_t>(at - base);
    Order& o = order_[at / ways_];
    if (o.mru == i) return;
    Way& w = pool_[at];
    if (o.lru == i) o.lru = w.newer;
    else pool_[base + w.older].newer = w.newer;
    pool_[base + w.newer].older = w.older;
    w.older = o.mru;
    pool_[base + o.mru].newer = i;
    o.mru = i;
  }
  // The set index is a hash of the line address, as hardware hashes its channel and set selection [U]:
  // with a plain modulo, regular strides alias (one XCD's share of a streamed buffer, every 8th 4 KiB
  // chunk, used 1/8 of the L2's sets, so a 16 MiB footprint missed a 32 MiB L2: bench/calibration).
  // Returns the set's first way in pool_, allocating the set on first use (recency: way 0 least recent).
  uint32_t set_base(uint64_t line) {
    uint64_t h = line * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: every address bit moves the high bits
    h ^= h >> 29;
    const size_t set = static_cast<size_t>(h % sets_);
    if (slot_.empty()) slot_.assign(sets_, -1);
    if (slot_[set] < 0) {
      const size_t base = pool_.size();
      slot_[set] = static_cast<int32_t>(base);
      pool_.resize(base + ways_);
      for (unsigned i = 0; i < ways_; ++i) {
        pool_[base + i].older = static_cast<uint16_t>(i ? i - 1 : 0);
        pool_[base + i].newer = static_cast<uint16_t>(i + 1 < ways_ ? i + 1 : i);
      }
      order_.push_back(Order{static_cast<uint16_t>(ways_ - 1), 0});
    }
    return static_cast<uint32_t>(slot_[set]);
  }
  unsigned sets_ = 1, ways_ = 1;
  std::vector<int32_t> slot_;  // per set: first way in pool_, -1 while unused
  std::vector<Way> pool_;      // the allocated sets' ways, ways_ per set
  std::vector<Order> order_;   // per allocated set (pool_ index / ways_): its most and least recently used way
  LineMap where_;  // resident line -> its way in pool_
};

// A bandwidth: requests are served in arrival order, `bytes_per_cycle` at a time.
struct Server {
  double free = 0;
  double bytes_per_cycle = 1;
  // Returns when the last byte of the request has passed.
  double serve(double t, double bytes) {
    free = std::max(free, t) + bytes / bytes_per_cycle;
    return free;
  }
};

struct Traffic {
  uint64_t l1_bytes = 0, l2_bytes = 0, mall_bytes = 0, hbm_bytes = 0;
};

class MemoryHierarchy {
 public:
  MemoryHierarchy(const HwParams& hw, const DeviceSlice& slice);
  unsigned xcd_of(unsigned cu) const { return cu / slice_.cus_per_xcd; }
  // One vector-memory instruction of CU `cu` issued at `t` touching `count` 64-byte sectors; returns
  // when its data is back (loads) or its writes are acknowledged by the L2 (stores, atomics).
  uint64_t vector_access(unsigned cu, const uint64_t* sectors, uint32_t count, unsigned active_lanes, bool store, bool atomic,
                         uint64_t t);
  // One scalar-memory instruction; returns when its data is in SGPRs.
  uint64_t scalar_access(unsigned cu, const uint64_t* sectors, uint32_t count, uint64_t t);
  // When the last byte queued for HBM (reads and write-backs) has passed.
  double hbm_free() const { return hbm_.free; }
  const Traffic& traffic() const { return traffic_; }

 private:
  uint64_t fetch_below_l2(uint64_t t, uint64_t sec, unsigned line_bytes);
  const HwParams& hw_;
  DeviceSlice slice_;
  struct CuPorts {
    Cache l1;
    Server ta, l1_data;
  };
  std::vector<CuPorts> cus_;
  std::vector<Cache> scache_, l2_, tlb_;  // tlb_: per XCD, page numbers (hw.tlb_entries > 0)
  std::vector<Server> l2_bw_;
  Server mall_, hbm_;
  Cache mall_cache_;  // 64-byte sectors (the MALL's line, S11) -> time their data is in the MALL
  std::unordered_set<uint64_t> written_;
  Traffic traffic_;
  unsigned l1_shift_ = 7, l2_shift_ = 7, sc_shift_ = 6, page_shift_ = 12;
  std::vector<uint64_t> lines_;
};

}  // namespace sim
}  // namespace asmevo::timing
