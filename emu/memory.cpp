#include "emu/memory.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "support/error.h"

namespace asmevo::emu {

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
  auto data = std::make_unique<uint8_t[]>(std::max<uint64_t>(size, 1));
  if (!init.empty()) std::memcpy(data.get(), init.data(), std::min<uint64_t>(init.size(), size));
  uint8_t* host = data.get();
  return add_region(base, size, host, std::move(data), name, writable);
}

void DeviceMemory::map_external(uint64_t base, uint64_t size, uint8_t* host, const std::string& name, bool writable) {
  add_region(base, size, host, nullptr, name, writable);
}

DeviceMemory::Region& DeviceMemory::add_region(uint64_t base, uint64_t size, uint8_t* host, std::unique_ptr<uint8_t[]> data,
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
  return {r->host, r->size};
}

}  // namespace asmevo::emu
