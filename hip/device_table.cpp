#include "hip/device_table.h"

#include "support/error.h"

namespace asmevo::hip {
namespace {

// Sources: [S1] ROCm "GPU hardware specifications" (memory size, bus width, L2, LDS per CU);
// [S15] rocminfo / hipDeviceProp of an MI300X (name string, gcnArchName with sramecc+/xnack-,
// memory clock 1300 MHz, PCI device 0x74a1); MI250X and MI355X device ids from the amdgpu kernel
// driver's PCI table (0x740c, 0x75a3). An MI250X is two GCDs; HIP shows each as one device of 64 GiB.
constexpr Device kDevices[] = {
    {"mi300x", codeobj::Arch::gfx942, "AMD Instinct MI300X", "gfx942:sramecc+:xnack-", 942, 192ull << 30, 1300000, 8192,
     4 << 20, 65536, 0x74a1},
    {"mi250x", codeobj::Arch::gfx90a, "AMD Instinct MI250X", "gfx90a:sramecc+:xnack-", 910, 64ull << 30, 1600000, 4096,
     8 << 20, 65536, 0x740c},
    {"mi355x", codeobj::Arch::gfx950, "AMD Instinct MI355X", "gfx950:sramecc+:xnack-", 950, 288ull << 30, 2000000, 8192,
     4 << 20, 163840, 0x75a3},
};

}  // namespace

const Device& select_device(const char* env_value) {
  std::string v = env_value ? env_value : "mi300x";
  for (const auto& d : kDevices)
    if (v == d.key || v == codeobj::to_string(d.arch)) return d;
  throw Error("unknown device '" + v + "'", "ASMEVO_HIP_DEVICE", "use mi300x (gfx942, the default), mi250x (gfx90a) or mi355x (gfx950)");
}

}  // namespace asmevo::hip
