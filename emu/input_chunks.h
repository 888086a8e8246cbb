// Generated input chunks kept for later launches: the optimizer times K0 and every candidate on the
// same perf launch, whose inputs are the same bytes each time (emu::fill_chunk is deterministic), so
// they are generated once and copied afterwards. Keyed by what fill_chunk's bytes depend on (the
// spec's seed and special variant, the argument's index, dtype, count and init, the chunk), so a
// cache handed a different launch misses instead of giving wrong bytes. Thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "emu/launch_spec.h"

namespace asmevo::emu {

class InputChunks {
 public:
  // Keeps at most `max_bytes` of chunks; later chunks are generated every time.
  explicit InputChunks(uint64_t max_bytes = uint64_t{256} << 20) : max_bytes_(max_bytes) {}
  // fill_chunk(spec, arg_index, chunk, out), from the cache when an earlier call made it. Outputs
  // (poison, a memset) are not kept.
  void fill(const LaunchSpec& spec, size_t arg_index, uint64_t chunk, std::span<uint8_t> out);
  uint64_t hits() const;
  uint64_t bytes_kept() const;

 private:
  uint64_t max_bytes_;
  mutable std::mutex lock_;
  std::map<std::pair<std::string, uint64_t>, std::vector<uint8_t>> chunks_;
  uint64_t bytes_ = 0, hits_ = 0;
};

}  // namespace asmevo::emu
