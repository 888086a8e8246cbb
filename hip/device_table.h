// The devices libasmevo_hip can pretend to be (ASMEVO_HIP_DEVICE=mi300x|mi250x|mi355x, or the
// processor name gfx942|gfx90a|gfx950; MI300X by default). Compute units and clock come from the
// timing model's rows (timing/hw_params.cpp, which cites them); the rest of what
// hipGetDeviceProperties reports is in this table, each figure with its source.
#pragma once
#include <cstdint>
#include <string>

#include "codeobj/target.h"

namespace asmevo::hip {

struct Device {
  const char* key;            // ASMEVO_HIP_DEVICE value
  codeobj::Arch arch;
  const char* name;           // hipDeviceProp_t::name as ROCm reports it
  const char* gcn_arch_name;  // full target ID (what code objects are matched against)
  int gcn_arch;               // deprecated integer form
  uint64_t global_mem_bytes;
  int memory_clock_khz, memory_bus_bits;
  int l2_bytes;               // per device as HIP reports it (one XCD's L2 on MI300X/MI355X)
  uint64_t lds_per_cu;
  int pci_device_id;
};

// ASMEVO_HIP_DEVICE (default mi300x); throws asmevo::Error naming the accepted values for others.
const Device& select_device(const char* env_value);

}  // namespace asmevo::hip
