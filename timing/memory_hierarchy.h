// The timing model's memory stage: the cache hierarchy and its bandwidths (llvm-mca's LSUnit and
// its memory model, here for a GPU). Per vector-memory instruction: the texture addresser, the
// instruction's distinct L1 lines through the CU's L1 data path, per line an LRU set-associative L1
// (per CU), L2 (per XCD), the MALL (an LRU cache of its capacity) and HBM, every level a bandwidth server shared by all waves that
// use it; L1 misses are translated by the CU's L1 TLB, one entry per fragment (a miss adds its penalty); scalar loads through a
// scalar cache per two CUs. Returns completion times; counts traffic.
// It models a `DeviceSlice`: the whole device, or the CUs a sampled simulation keeps, with the
// shared levels' capacities and bandwidths scaled to that share (timing/sampling.h).
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "timing/hw_params.h"
#include "timing/trace.h"

namespace asmevo::timing {

namespace sim {

// LRU set-associative cache of line addresses (hashed set index). Each line remembers when its data arrives, so a
// request to a line still being filled waits for that fill instead of paying a second miss. Sets are
// allocated on first use: a small launch touches few of a device's L2 sets.
// Speed (perf, bench/timing/sampling_bench): the model's MALL is larger than the host's caches, so a set's
// state lies in one block (its recency order, a byte of hash per way, tags, ready times and recency links)
// that a lookup finds from the set index alone and searches 16 ways at a time by their hash bytes (the
// Swiss-table idea); each set keeps its ways in recency order (a doubly linked list), so a fill finds its
// victim without scanning stamps (the L1's 64-way scan was a fifth of an elementwise launch).
// The victim is the least recently used way; ways never used come first, lowest index first.
class Cache {
 public:
  Cache() = default;
  Cache(unsigned bytes, unsigned ways, unsigned line)
      : ways_(ways), tag0_(1 + (ways + 15) / 16 * 2), stride_(tag0_ + 3 * static_cast<size_t>(ways)) {
    if (ways == 0 || ways > kMaxWays) throw std::invalid_argument("sim::Cache: ways must be 1 to 65535");
    sets_ = std::max(1u, bytes / line / ways);
  }
  // The time the line's data is (or will be) present, on a hit; nullopt on a miss.
  std::optional<uint64_t> lookup(uint64_t line) {
    uint8_t hash = 0;
    uint64_t* set = find_set(line, false, hash);
    if (!set) return std::nullopt;
    const unsigned i = way_of(set, line, hash);
    if (i == ways_) return std::nullopt;
    touch(set, i);
    return set[tag0_ + ways_ + i];
  }
  // Asks the host to bring the line's set into its caches (no effect on the model): the model's L2 and MALL sets lie
  // in host memory, and an instruction's lines are known before they are looked up one after the other.
  void prefetch(uint64_t line) const {
    if (slot_.empty()) return;
    const int64_t at = slot_[set_of(line).first];
    if (at >= 0) __builtin_prefetch(blocks_.data() + at);
  }
  // Allocates the line (evicting the least recently used one), its data present from `ready`.
  void fill(uint64_t line, uint64_t ready) {
    uint8_t hash = 0;
    uint64_t* set = find_set(line, true, hash);
    unsigned i = way_of(set, line, hash);
    if (i == ways_) {  // a miss: the least recently used way takes the line
      i = static_cast<unsigned>(set[0] >> 16 & 0xffff);
      set[tag0_ + i] = line;
      reinterpret_cast<uint8_t*>(set + 1)[i] = hash;
    }
    set[tag0_ + ways_ + i] = ready;
    touch(set, i);
  }

 private:
  static constexpr unsigned kMaxWays = 0xffff;
  static constexpr uint64_t kNoLine = ~0ull;  // tag of a way never filled (line numbers are never ~0)
  // A set's block of stride_ words: [0] most recently used way | least recently used way << 16; [1, tag0_) a
  // hash byte per way (W rounded up to 16 bytes); [tag0_, tag0_ + W) the ways' lines; then W data-ready times;
  // then W recency links (the next newer way | the next older way << 16).
  // The way holding `line` (whose hash byte is `hash`), else ways_.
  unsigned way_of(const uint64_t* set, uint64_t line, uint8_t hash) const {
    const uint8_t* hashes = reinterpret_cast<const uint8_t*>(set + 1);
    const uint64_t* tags = set + tag0_;
    for (unsigned c = 0; c < ways_; c += 16) {
#ifdef __SSE2__
      // One compare of 16 hash bytes (the compiler's code for the loop below took a byte at a time in part).
      unsigned match = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hashes + c)), _mm_set1_epi8(static_cast<char>(hash)))));
#else
      unsigned match = 0;
      for (unsigned j = 0; j < 16; ++j) match |= static_cast<unsigned>(hashes[c + j] == hash) << j;
#endif
      for (; match; match &= match - 1) {
        const unsigned i = c + static_cast<unsigned>(std::countr_zero(match));
        if (i < ways_ && tags[i] == line) return i;
      }
    }
    return ways_;
  }
  static unsigned newer(uint64_t link) { return static_cast<unsigned>(link & 0xffff); }
  static unsigned older(uint64_t link) { return static_cast<unsigned>(link >> 16 & 0xffff); }
  // Makes way i its set's most recently used.
  void touch(uint64_t* set, unsigned i) {
    const unsigned mru = static_cast<unsigned>(set[0] & 0xffff);
    unsigned lru = static_cast<unsigned>(set[0] >> 16 & 0xffff);
    if (mru == i) return;
    uint64_t* links = set + tag0_ + 2 * ways_;
    const unsigned n = newer(links[i]), o = older(links[i]);
    if (lru == i) lru = n;
    else links[o] = (links[o] & ~0xffffull) | n;                    // o's newer: n
    links[n] = (links[n] & ~0xffff0000ull) | static_cast<uint64_t>(o) << 16;  // n's older: o
    links[i] = (links[i] & ~0xffff0000ull) | static_cast<uint64_t>(mru) << 16;  // i's older: the old MRU
    links[mru] = (links[mru] & ~0xffffull) | i;                     // the old MRU's newer: i
    set[0] = i | static_cast<uint64_t>(lru) << 16;
  }
  // The line's set and hash byte. The set index is a hash of the line address, as hardware hashes its channel and
  // set selection [U]: with a plain modulo, regular strides alias (one XCD's share of a streamed buffer, every 8th
  // 4 KiB chunk, used 1/8 of the L2's sets, so a 16 MiB footprint missed a 32 MiB L2: bench/calibration).
  std::pair<size_t, uint8_t> set_of(uint64_t line) const {
    uint64_t h = line * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing: every address bit moves the high bits
    h ^= h >> 29;
    return {static_cast<size_t>(h % sets_), static_cast<uint8_t>(h >> 56)};
  }
  // The line's set's block, allocated on first use when `create` (else null when the set was never used: nothing
  // of it is resident); `hash` gets the line's hash byte.
  uint64_t* find_set(uint64_t line, bool create, uint8_t& hash) {
    const auto [set, byte] = set_of(line);
    hash = byte;
    if (slot_.empty()) {
      if (!create) return nullptr;
      slot_.assign(sets_, -1);
      blocks_.reserve(sets_ * stride_);  // reserved only: the host touches the pages of the sets used
    }
    if (slot_[set] < 0) {
      if (!create) return nullptr;
      const size_t base = blocks_.size();
      slot_[set] = static_cast<int64_t>(base);
      blocks_.resize(base + stride_, kNoLine);
      uint64_t* b = blocks_.data() + base;
      b[0] = static_cast<uint64_t>(ways_ - 1);  // a new set's recency order: way 0 (least recent) to the last
      for (size_t w = 1; w < tag0_; ++w) b[w] = 0;  // hash bytes of empty ways (their tags never match)
      for (unsigned i = 0; i < ways_; ++i) {
        b[tag0_ + ways_ + i] = 0;
        b[tag0_ + 2 * ways_ + i] = (i + 1 < ways_ ? i + 1 : i) | static_cast<uint64_t>(i ? i - 1 : 0) << 16;
      }
    }
    return blocks_.data() + slot_[set];
  }
  unsigned sets_ = 1, ways_ = 1;
  size_t tag0_ = 3, stride_ = 6;
  std::vector<int64_t> slot_;     // per set: the first word of its block in blocks_, -1 while unused
  std::vector<uint64_t> blocks_;  // the allocated sets' blocks, stride_ words each
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
  // `l1_tag`: the device CU (0-63 within its XCD's window, SliceWorkgroups::XcdWindow) whose L1 the
  // instruction's workgroup stands for: lines of different tags never hit each other in the slice CU's L1.
  uint64_t vector_access(unsigned cu, const uint64_t* sectors, uint32_t count, unsigned active_lanes, bool store, bool atomic,
                         uint64_t t, unsigned l1_tag = 0);
  // One scalar-memory instruction; returns when its data is in SGPRs.
  uint64_t scalar_access(unsigned cu, const uint64_t* sectors, uint32_t count, uint64_t t);
  // Functional warming (sampled simulation): a workgroup that is not simulated, on the device's XCD
  // `device_xcd`, loads `sectors` at `t`. The lines the MALL lacks enter it, translated by a TLB of
  // that XCD kept for warming (its CUs' L1 TLB entries together); no bandwidth is used (the slice's bandwidth shares already stand for the
  // other workgroups) and no traffic counted.
  void warm(unsigned device_xcd, const uint64_t* sectors, uint32_t count, uint64_t t);
  // When the last byte queued for HBM (reads and write-backs) has passed.
  double hbm_free() const { return hbm_.free; }
  const Traffic& traffic() const { return traffic_; }

 private:
  // `shared_read`: a load (not an atomic) whose fetch the slice's read shares weigh (DeviceSlice::read_shares).
  uint64_t fetch_below_l2(uint64_t t, uint64_t sec, unsigned line_bytes, bool shared_read);
  const DeviceSlice::ReadShare* read_share(uint64_t sec) const;
  const HwParams& hw_;
  DeviceSlice slice_;
  struct CuPorts {
    Cache l1;
    Server ta, l1_data;
  };
  std::vector<CuPorts> cus_;
  std::vector<Cache> scache_, l2_, tlb_;  // tlb_: per CU, fragment numbers (hw.tlb_entries > 0)
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
