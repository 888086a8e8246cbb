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
// allocated on first use: a small launch touches few of a device's L2 sets.
class Cache {
 public:
  Cache() = default;
  Cache(unsigned bytes, unsigned ways, unsigned line) : ways_(ways) { sets_ = std::max(1u, bytes / line / ways); }
  // The time the line's data is (or will be) present, on a hit; nullopt on a miss.
  std::optional<uint64_t> lookup(uint64_t line) {
    const uint32_t* at = where_.find(line);
    if (!at) return std::nullopt;
    Way& w = pool_[*at];
    w.stamp = ++clock_;
    return w.ready;
  }
  // Allocates the line (evicting the least recently used one), its data present from `ready`.
  void fill(uint64_t line, uint64_t ready) {
    if (const uint32_t* at = where_.find(line)) {
      pool_[*at] = Way{line, ++clock_, ready};
      return;
    }
    Way* set = find_set(line, true);
    unsigned victim = 0;
    for (unsigned i = 1; i < ways_; ++i)
      if (set[i].stamp < set[victim].stamp) victim = i;
    if (set[victim].tag != ~0ull) where_.erase(set[victim].tag);
    set[victim] = Way{line, ++clock_, ready};
    where_.set(line, static_cast<uint32_t>(&set[victim] - pool_.data()));
  }

 private:
  struct Way {
    uint64_t tag = ~0ull, stamp = 0, ready = 0;
  };
  // The set index is a hash of the line address, as hardware hashes its channel and set selection [U]:
  // with a plain modulo, regular strides alias (one XCD's share of a streamed buffer, every 8th 4 KiB
  // chunk, used 1/8 of the L2's sets, so a 16 MiB footprint missed a 32 MiB L2: bench/calibration).
  Way* find_set(uint64_t line, bool create) {
    uint64_t h = line * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: every address bit moves the high bits
    h ^= h >> 29;
    const size_t set = static_cast<size_t>(h % sets_);
    if (slot_.empty()) {
      if (!create) return nullptr;
      slot_.assign(sets_, -1);
    }
    if (slot_[set] < 0) {
      if (!create) return nullptr;
      slot_[set] = static_cast<int32_t>(pool_.size());
      pool_.resize(pool_.size() + ways_);
    }
    return &pool_[static_cast<size_t>(slot_[set])];
  }
  unsigned sets_ = 1, ways_ = 1;
  std::vector<int32_t> slot_;  // per set: first way in pool_, -1 while unused
  std::vector<Way> pool_;
  LineMap where_;  // resident line -> its way in pool_ (64-way L1s make scans slow)
  uint64_t clock_ = 0;
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
  // Functional warming (sampled simulation): a workgroup that is not simulated, on the device's XCD
  // `device_xcd`, loads `sectors` at `t`. The lines the MALL lacks enter it, translated by a TLB of
  // that XCD kept for warming; no bandwidth is used (the slice's bandwidth shares already stand for the
  // other workgroups) and no traffic counted.
  void warm(unsigned device_xcd, const uint64_t* sectors, uint32_t count, uint64_t t);
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
  std::vector<Cache> warm_tlb_;           // warm(): the warming workgroups' TLBs, by device XCD
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
