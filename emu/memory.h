// The device address space of one emulated launch. Only ranges AsmEvo allocated (buffers, kernarg
// segment, dispatch packet, scratch, the loaded code object) are accessible; translate() returns
// nullptr for anything else and the caller stops the run with a memory fault (emu/fault.h).
//
// Regions are created before the run and never move, so translate() is safe from any thread.
// Each allocation is followed by an unmapped guard gap so small overruns fault instead of landing
// in the next buffer. Atomics take a striped lock (atomic_lock) so read-modify-write is atomic
// across workgroups running on different threads.
#pragma once
#include <cstdint>
#include <array>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace asmevo::emu {

// Contents of part of a region made on first touch, page by page: a large launch's inputs (a 64M-
// element kernel's 768 MB) are generated only where the workgroups that run (a sampled timing run)
// read or write them. `fill(page, bytes)` must give a page the same bytes whenever it is called
// (emu::fill_chunk does). Thread-safe: every page is filled once, before any access to it returns.
class LazyFill {
 public:
  using Fill = std::function<void(uint64_t page, std::span<uint8_t> bytes)>;
  // Pages of `page_bytes` cover region bytes [offset, offset + bytes).
  LazyFill(uint64_t offset, uint64_t bytes, uint64_t page_bytes, Fill fill);
  // Makes every page overlapping region bytes [off, off + size) (region host memory `host`).
  void materialize(uint8_t* host, uint64_t off, uint64_t size);
  // materialize for one access of a kernel (`size` at most a page): inline when both pages the access can
  // touch are made already, as nearly every access of a run finds them (the out-of-line call, with its
  // divisions, was 2-6 % of a sampled timing run's CPU time: perf on bench/timing/sampling_bench).
  void materialize_access(uint8_t* host, uint64_t off, uint64_t size) {
    const uint64_t lo = off - offset_, hi = lo + size - 1;  // bytes of the filled range (wrap: outside)
    if (size && size <= page_bytes_ && hi < bytes_ && lo <= hi && page_made(lo) && page_made(hi)) [[likely]] return;
    materialize(host, off, size);
  }
  uint64_t pages() const { return pages_; }
  uint64_t pages_filled() const { return filled_.load(std::memory_order_relaxed); }

 private:
  bool page_made(uint64_t byte) const {
    return done_[page_shift_ < 64 ? byte >> page_shift_ : byte / page_bytes_].load(std::memory_order_acquire);
  }
  uint64_t offset_, bytes_, page_bytes_, pages_;
  unsigned page_shift_;  // log2(page_bytes_) when a power of two (kInitChunkBytes is), else 64: divide
  Fill fill_;
  std::unique_ptr<std::atomic<uint8_t>[]> done_;
  std::atomic<uint64_t> filled_{0};
  std::mutex lock_;
};

class DeviceMemory {
 public:
  struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  struct Region {
    uint64_t base = 0, size = 0;
    std::string name;
    bool writable = true;
    uint8_t* host = nullptr;          // the bytes: `data`, or memory the caller owns (map_external)
    std::unique_ptr<uint8_t, FreeBytes> data;  // calloc'ed (pages zeroed on first touch); empty for external regions
    // A guarded buffer (allocate_guarded): the first and last `guard` bytes are its guard zones,
    // which a kernel may not touch; 0 for every other region.
    uint64_t guard = 0;
    std::unique_ptr<LazyFill> lazy;  // part of the contents made on first touch (fill_lazily), or none
  };

  // Accesses of one instruction outside what the launch allows that do not stop the run: guard
  // zones of buffers (accessible so that K0's legal over-reads inside a padded allocation run) and
  // LDS beyond the workgroup's allocation (reads 0, writes dropped on gfx9). Aggregated per
  // (instruction, region, read/write); the first access is kept as the example.
  struct OutOfBounds {
    std::string region;  // the region's name ("argument 0 (x)") or "LDS"
    uint64_t pc = 0;
    std::string inst;    // instruction text
    bool write = false;
    int64_t lowest = 0, highest = 0;  // byte range [lowest, highest) touched, from the buffer's start (LDS: from 0)
    uint64_t count = 0;  // lane accesses
    int lane = -1;       // first access: lane (-1 scalar), address, workgroup, wave
    uint64_t address = 0;
    std::array<uint32_t, 3> workgroup{};
    unsigned wave = 0;
  };
  void note_out_of_bounds(const OutOfBounds& a) const;  // merges into the log (thread-safe)
  std::vector<OutOfBounds> out_of_bounds() const;       // the log, in the order first seen

  // Well-known apertures (src_shared_base / src_private_base give their high 32 bits). Flat
  // addresses inside them go to LDS / scratch, not to this address space.
  static constexpr uint64_t kSharedAperture = 0x0001'0000'0000'0000ull;
  static constexpr uint64_t kPrivateAperture = 0x0002'0000'0000'0000ull;
  static constexpr uint64_t kApertureSize = 1ull << 32;
  static constexpr uint64_t kGuard = 64 * 1024;

  DeviceMemory();
  // Allocates zeroed memory; returns its device address (aligned to `align`).
  uint64_t allocate(uint64_t size, const std::string& name, uint64_t align = 256, bool writable = true);
  // Allocates a writable buffer of `size` bytes with `guard` accessible bytes before and after it
  // (one region; the caller fills the guard zones with a canary); returns the buffer's address,
  // aligned to `align`.
  uint64_t allocate_guarded(uint64_t size, uint64_t guard, const std::string& name, uint64_t align);
  // From now on place every allocation so that it straddles a 4 GiB boundary (its middle sits on
  // one): 64-bit address arithmetic that drops a carry then reaches the wrong place.
  void straddle_4g_boundaries(bool on) { straddle_ = on; }
  // Maps `size` bytes at exactly `base` (the loaded code object), first `init.size()` copied.
  Region& map_at(uint64_t base, uint64_t size, std::span<const uint8_t> init, const std::string& name, bool writable);

  // The `bytes` bytes at `addr` (inside one region) are made by `fill` on first touch, in pages of
  // `page_bytes` from `addr` on: by translate() for the kernel's accesses, by materialize() for host
  // views. The region's memory is zero until then.
  void fill_lazily(uint64_t addr, uint64_t bytes, uint64_t page_bytes, LazyFill::Fill fill);
  // Makes the contents of [addr, addr + size) if they are filled lazily: call before reading or
  // writing a region's bytes on the host (Launch::contents does).
  void materialize(uint64_t addr, uint64_t size) const;

  // Maps `size` bytes at exactly `base` onto `host`, which the caller owns and keeps alive for as long
  // as this DeviceMemory: a program's own allocations (hip/), shared by every launch without copying.
  void map_external(uint64_t base, uint64_t size, uint8_t* host, const std::string& name, bool writable);

  // Host pointer for [addr, addr+size) if it lies inside one region (writable if `write`), else nullptr.
  uint8_t* translate(uint64_t addr, uint64_t size, bool write = false) const {
    const Region* hint = last_;
    return translate(addr, size, write, hint);
  }
  // The same, trying `hint` (a region of this DeviceMemory, or nullptr) first and leaving in it the
  // region that holds addr: a caller's cache (one per thread), as accesses mostly hit one region.
  uint8_t* translate(uint64_t addr, uint64_t size, bool write, const Region*& hint) const {
    const Region* r = hint;
    if (!(r && addr - r->base < r->size)) {
      r = find(addr);
      if (r) hint = r;
    }
    if (!r || addr - r->base + size > r->size || (write && !r->writable)) return nullptr;
    if (r->lazy) [[unlikely]] r->lazy->materialize_access(r->host, addr - r->base, size);
    return r->host + (addr - r->base);
  }
  const Region* find(uint64_t addr) const;
  const Region* region(const std::string& name) const;
  std::span<uint8_t> bytes(uint64_t base) const;  // whole region starting at base (made, if lazy)

  // Striped lock for atomics at `addr` (same lock for the same 64-byte line).
  std::mutex& atomic_lock(uint64_t addr) const { return locks_[(addr >> 6) % kLocks]; }

  static bool in_shared_aperture(uint64_t a) { return a - kSharedAperture < kApertureSize; }
  static bool in_private_aperture(uint64_t a) { return a - kPrivateAperture < kApertureSize; }

 private:
  static constexpr size_t kLocks = 256;
  std::vector<std::unique_ptr<Region>> regions_;  // sorted by base
  uint64_t next_ = 0x0000'7000'0000'0000ull;
  const Region* last_ = nullptr;  // set when the first region is created; a hint only
  bool straddle_ = false;
  uint64_t place(uint64_t size, uint64_t lead, uint64_t align) const;  // address for an allocation
  Region& add_region(uint64_t base, uint64_t size, uint8_t* host, std::unique_ptr<uint8_t, FreeBytes> data, const std::string& name,
                  bool writable);
  mutable std::unique_ptr<std::mutex[]> locks_;
  mutable std::mutex oob_lock_;
  mutable std::vector<OutOfBounds> oob_;
};

}  // namespace asmevo::emu
