#include "emu/memory.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <tuple>

#include "support/error.h"

namespace asmevo::emu {

LazyFill::LazyFill(uint64_t offset, uint64_t bytes, uint64_t page_bytes, Fill fill)
    : offset_(offset), bytes_(bytes), page_bytes_(std::max<uint64_t>(page_bytes, 1)),
      pages_((bytes + page_bytes_ - 1) / page_bytes_), page_shift_(std::has_single_bit(page_bytes_) ? std::countr_zero(page_bytes_) : 64),
      fill_(std::move(fill)), done_(new std::atomic<uint8_t>[pages_]) {
  for (uint64_t p = 0; p < pages_; ++p) done_[p].store(0, std::memory_order_relaxed);
}

void LazyFill::materialize(uint8_t* host, uint64_t off, uint64_t size) {
  if (off + size <= offset_ || off >= offset_ + bytes_ || bytes_ == 0) return;
  const uint64_t lo = off > offset_ ? off - offset_ : 0;
  const uint64_t hi = std::min(bytes_, off + std::max<uint64_t>(size, 1) - offset_);
  for (uint64_t p = lo / page_bytes_; p * page_bytes_ < hi; ++p) {
    if (done_[p].load(std::memory_order_acquire)) continue;
    std::lock_guard hold(lock_);
    if (done_[p].load(std::memory_order_relaxed)) continue;
    const uint64_t start = p * page_bytes_;
    fill_(p, std::span<uint8_t>(host + offset_ + start, std::min(page_bytes_, bytes_ - start)));
    filled_.fetch_add(1, std::memory_order_relaxed);
    done_[p].store(1, std::memory_order_release);
  }
}

DeviceMemory::DeviceMemory() : locks_(new std::mutex[kLocks]) {}

uint64_t DeviceMemory::place(uint64_t size, uint64_t lead, uint64_t align) const {
  uint64_t base = (next_ + lead + align - 1) / align * align;
  if (!straddle_) return base;
  constexpr uint64_t k4G = 1ull << 32;
  uint64_t boundary = (base + size / 2 + k4G - 1) / k4G * k4G;
  return std::max(base, (boundary - size / 2) / align * align);
}

uint64_t DeviceMemory::allocate(uint64_t size, const std::string& name, uint64_t align, bool writable) {
  uint64_t base = place(size, 0, align);
  map_at(base, size, {}, name, writable);
  next_ = base + std::max<uint64_t>(size, 1) + kGuard;
  return base;
}

uint64_t DeviceMemory::allocate_guarded(uint64_t size, uint64_t guard, const std::string& name, uint64_t align) {
  uint64_t addr = place(size, guard, align);
  map_at(addr - guard, size + 2 * guard, {}, name, true).guard = guard;
  next_ = addr + std::max<uint64_t>(size + guard, 1) + kGuard;
  return addr;
}

DeviceMemory::Region& DeviceMemory::map_at(uint64_t base, uint64_t size, std::span<const uint8_t> init, const std::string& name,
                          bool writable) {
  // calloc: large regions come zeroed from the OS page by page as they are touched, not written here.
  std::unique_ptr<uint8_t, FreeBytes> data(static_cast<uint8_t*>(std::calloc(std::max<uint64_t>(size, 1), 1)));
  if (!data) throw Error("out of host memory for device region " + name + " (" + std::to_string(size) + " bytes)");
  if (!init.empty()) std::memcpy(data.get(), init.data(), std::min<uint64_t>(init.size(), size));
  uint8_t* host = data.get();
  return add_region(base, size, host, std::move(data), name, writable);
}

void DeviceMemory::map_external(uint64_t base, uint64_t size, uint8_t* host, const std::string& name, bool writable) {
  add_region(base, size, host, nullptr, name, writable);
}

DeviceMemory::Region& DeviceMemory::add_region(uint64_t base, uint64_t size, uint8_t* host, std::unique_ptr<uint8_t, FreeBytes> data,
                              const std::string& name, bool writable) {
  uint64_t alloc = std::max<uint64_t>(size, 1);
  for (const auto& r : regions_)
    if (base < r->base + r->size && r->base < base + alloc)
      throw Error("device region " + name + " overlaps " + r->name, {}, {}, kExitInternal);
  auto r = std::make_unique<Region>();
  r->base = base;
  r->size = size;
  r->name = name;
  r->writable = writable;
  r->host = host;
  r->data = std::move(data);
  Region& made = *r;
  regions_.push_back(std::move(r));
  std::sort(regions_.begin(), regions_.end(), [](const auto& a, const auto& b) { return a->base < b->base; });
  last_ = regions_.front().get();
  return made;
}

void DeviceMemory::note_out_of_bounds(const OutOfBounds& a) const {
  std::lock_guard lock(oob_lock_);
  for (auto& o : oob_)
    if (o.pc == a.pc && o.write == a.write && o.region == a.region) {
      o.lowest = std::min(o.lowest, a.lowest), o.highest = std::max(o.highest, a.highest), o.count += a.count;
      // The example is the first access in workgroup/wave/lane order, whatever the threads did.
      auto order = [](const OutOfBounds& x) { return std::tuple(x.workgroup[2], x.workgroup[1], x.workgroup[0], x.wave, x.lane); };
      if (order(a) < order(o)) o.lane = a.lane, o.address = a.address, o.workgroup = a.workgroup, o.wave = a.wave;
      return;
    }
  oob_.push_back(a);
}

std::vector<DeviceMemory::OutOfBounds> DeviceMemory::out_of_bounds() const {
  std::lock_guard lock(oob_lock_);
  return oob_;
}

const DeviceMemory::Region* DeviceMemory::find(uint64_t addr) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr, [](uint64_t a, const auto& r) { return a < r->base; });
  if (it == regions_.begin()) return nullptr;
  const Region* r = (it - 1)->get();
  return addr - r->base < r->size ? r : nullptr;
}

const DeviceMemory::Region* DeviceMemory::region(const std::string& name) const {
  for (const auto& r : regions_)
    if (r->name == name) return r.get();
  return nullptr;
}

std::span<uint8_t> DeviceMemory::bytes(uint64_t base) const {
  const Region* r = find(base);
  if (!r || r->base != base) throw Error("no device region starts at this address", {}, {}, kExitInternal);
  if (r->lazy) r->lazy->materialize(r->host, 0, r->size);
  return {r->host, r->size};
}

void DeviceMemory::fill_lazily(uint64_t addr, uint64_t bytes, uint64_t page_bytes, LazyFill::Fill fill) {
  Region* r = const_cast<Region*>(find(addr));
  if (!r || addr - r->base + bytes > r->size || r->lazy || !r->data)
    throw Error("lazy fill of a range that is not inside one region AsmEvo allocated", {}, {}, kExitInternal);
  r->lazy = std::make_unique<LazyFill>(addr - r->base, bytes, page_bytes, std::move(fill));
}

void DeviceMemory::materialize(uint64_t addr, uint64_t size) const {
  const Region* r = find(addr);
  if (r && r->lazy) r->lazy->materialize(r->host, addr - r->base, size);
}

}  // namespace asmevo::emu
