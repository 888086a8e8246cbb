// Line address -> way index for sim::Cache: an open-addressing hash map (linear probing, deletion by
// backward shift, at most half full). The model's caches look up, fill and evict a line per memory
// access; std::unordered_map's node allocation, rehashing and erase were a fifth of a replay's time
// (perf on sampling_bench's elementwise and GEMM launches). Keys are line numbers, never ~0.
#pragma once
#include <cstdint>
#include <vector>

namespace asmevo::timing::sim {

class LineMap {
 public:
  const uint32_t* find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == kEmpty) return nullptr;
    }
  }
  void set(uint64_t key, uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    size_t i = home(key);
    for (; slots_[i].key != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].key == key) {
        slots_[i].value = value;
        return;
      }
    slots_[i] = {key, value};
    ++size_;
  }
  void erase(uint64_t key) {
    if (slots_.empty()) return;
    size_t i = home(key);
    for (; slots_[i].key != key; i = (i + 1) & mask_)
      if (slots_[i].key == kEmpty) return;
    // Backward shift: move later entries of the probe run into the hole when their home allows it.
    for (size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].key);
      const bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
      if (movable) slots_[i] = slots_[j], i = j;
    }
    slots_[i].key = kEmpty;
    --size_;
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t value = 0;
  };
  size_t home(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_; }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const size_t n = old.empty() ? 64 : 2 * old.size();
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(n));
    size_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) set(s.key, s.value);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace asmevo::timing::sim
