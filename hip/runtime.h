// libasmevo_hip's state: the HIP runtime API's objects on AsmEvo's emulator (docs/hip.md).
//
// Device memory is one flat address space the emulator addresses: hipMalloc hands out addresses in
// a range reserved (PROT_NONE) in the host process, so a device pointer is never a valid host
// pointer (the host dereferencing one faults at once, as on a discrete GPU) and never collides with
// one; the bytes live in host memory the runtime owns. hipHostMalloc/hipMallocManaged memory is
// host memory the device addresses at the same address, as on ROCm. Code objects stay loaded with
// persistent segment images at emu::kCodeBase + vaddr, so __device__ variables keep their values
// between launches (one code object's globals are visible to its own kernels only).
// Every launch runs synchronously on the emulator in call order (streams are in order; there is one
// device), then is replayed on the timing model: events carry the MODELED device time.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "emu/program.h"
#include "hip/device_table.h"

namespace asmevo::program {
class Decoder;
}

namespace asmevo::hip {

struct Allocation {
  enum Kind { Device, Host, Managed } kind = Device;
  uint64_t base = 0, size = 0;
  uint8_t* host = nullptr;          // where the bytes are (== base for Host/Managed)
  std::unique_ptr<uint8_t[]> owned; // Device memory's backing
};

// A loaded code object: its bytes, its kernels' decoded programs, its segments' persistent images.
struct Module {
  std::string origin;             // "fat binary of ./app: hipv4-amdgcn-amd-amdhsa--gfx942", a path, "hipModuleLoadData"
  std::string hash;               // content hash of the bytes the program supplied (support/content_hash.h)
  std::string replaced_by;        // path of the ASMEVO_REPLACE counterpart in use, if any
  std::vector<uint8_t> bytes;     // what runs (the replacement when replaced)
  std::vector<uint8_t> original;  // what the program supplied
  std::unique_ptr<codeobj::CodeObject> co;
  std::unique_ptr<program::Decoder> decoder;
  std::map<std::string, std::unique_ptr<emu::Program>> programs;  // by kernel name, built on first launch
  struct Segment {
    uint64_t base = 0, size = 0;
    bool writable = false;
    std::vector<uint8_t> image;
  };
  std::vector<Segment> segments;
  uint64_t symbol_address(const std::string& name, uint64_t* size = nullptr) const;  // 0 when absent
};

struct Function {
  Module* module = nullptr;
  std::string name;
  const codeobj::Kernel* kernel = nullptr;
};

// A fat binary registered by a host program's constructor: its code objects, the one for this
// device loaded on first use, and the host stubs/variables that name its kernels/globals.
struct FatBinary {
  std::string where;
  std::vector<codeobj::EmbeddedCodeObject> entries;
  Module* module = nullptr;  // loaded lazily (a program may register objects for other processors)
  std::map<const void*, std::string> functions;  // host stub -> kernel symbol
  std::map<const void*, std::string> variables;  // host shadow -> device symbol
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t dynamic_lds = 0;
};

struct KernelStats {
  uint64_t launches = 0;
  double modeled_us = 0;
  std::string replaced_by;
};

class Runtime {
 public:
  static Runtime& get();
  const Device& device() const { return *device_; }
  std::mutex& lock() { return mu_; }

  // Memory.
  uint64_t allocate(uint64_t size, Allocation::Kind kind);  // throws for sizes the host cannot back
  bool release(uint64_t address, Allocation::Kind kind);    // false: not the start of such an allocation
  // The allocation holding [address, address + size) or, if none, nullptr.
  const Allocation* find(uint64_t address, uint64_t size = 1) const;
  // Host bytes of [address, address + size): device or host allocations, code-object globals, or
  // (is_host_ok) plain host memory the program owns.
  uint8_t* resolve(uint64_t address, uint64_t size, bool host_ok) const;
  const std::map<uint64_t, Allocation>& allocations() const { return allocs_; }

  // Code objects.
  FatBinary* register_fat_binary(const void* wrapper);
  void unregister_fat_binary(FatBinary* fb);
  Module* module_of(FatBinary& fb);  // throws when none matches the device
  Module* load_module(std::vector<uint8_t> bytes, const std::string& origin);  // bare object or bundle
  void unload_module(Module* m);
  Function* function(Module* m, const std::string& name);  // nullptr when absent
  Function* function_of_stub(const void* host_stub);       // nullptr when unregistered
  FatBinary* fat_binary_of_variable(const void* shadow, std::string* symbol);

  // Launches: synchronous; explicit kernarg bytes at their metadata offsets. Returns modeled µs.
  // A shape the kernel cannot take throws; a kernel that cannot run stops the process (launch_failed).
  double launch(Function& f, const LaunchConfig& cfg, const std::vector<uint8_t>& kernarg);
  std::vector<uint8_t> pack_arguments(const Function& f, void** args) const;  // hipLaunchKernel's void** form

  // The modeled device clock (µs since the first launch).
  double device_time_us() const { return device_time_us_; }

  // The environment-visible log (ASMEVO_HIP_LOG=FILE, or "-" for stderr).
  void log(const std::string& line);
  void warn(const std::string& line);  // always to stderr, and to the log
  std::map<std::string, KernelStats>& kernel_stats() { return stats_; }
  // Per kernel: launches and MODELED time (ASMEVO_HIP_SUMMARY=1 prints it at exit; asmevo exec sets it).
  void print_summary();
  ~Runtime();

 private:
  Runtime();
  Module* finish_module(std::unique_ptr<Module> m);
  void apply_replacement(Module& m);
  const Device* device_ = nullptr;
  mutable std::mutex mu_;
  std::map<uint64_t, Allocation> allocs_;
  uint64_t device_next_ = 0, device_end_ = 0;
  std::vector<std::unique_ptr<FatBinary>> fat_binaries_;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<std::unique_ptr<Function>> functions_;
  std::map<std::pair<Module*, std::string>, Function*> function_index_;
  double device_time_us_ = 0;
  std::map<std::string, KernelStats> stats_;
  FILE* log_ = nullptr;
  bool log_is_stderr_ = false;
  std::string replace_dir_;
  unsigned threads_ = 1;
  bool model_ = true;
};

// The kernel could not run (a fault, an unsupported instruction): like ROCm after a GPU memory
// fault, the process stops, with the reason on stderr.
[[noreturn]] void launch_failed(const std::string& what, const std::string& message);

// The device address range hipMalloc uses (reserved in the host process at start-up).
inline constexpr uint64_t kDeviceHeapBase = 0x0000'5000'0000'0000ull;
inline constexpr uint64_t kDeviceHeapSize = 1ull << 40;

}  // namespace asmevo::hip
