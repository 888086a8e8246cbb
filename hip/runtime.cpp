#include "hip/runtime.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <thread>

#include "emu/dispatch.h"
#include "emu/executor.h"
#include "hip/image.h"
#include "program/decoder.h"
#include "rebuild/abi_diff.h"
#include "support/content_hash.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "timing/model.h"
#include "timing/trace.h"

namespace asmevo::hip {
namespace {

constexpr uint64_t kAlign = 256;
constexpr uint64_t kGap = 64 * 1024;  // unmapped bytes between device allocations: small overruns fault

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The offload-bundle id's target ("hipv4-amdgcn-amd-amdhsa--gfx942:xnack-" -> gfx942:xnack-).
std::optional<codeobj::TargetId> bundle_target(const std::string& id) {
  auto p = id.find("amdgcn-amd-amdhsa-");
  if (p == std::string::npos) return std::nullopt;
  return codeobj::parse_target_id(id.substr(p));
}

// How well a code object built for `t` fits the device: 2 exact features, 1 compatible ("any"), 0 no.
int target_fit(const codeobj::TargetId& t, const codeobj::TargetId& dev) {
  if (t.arch != dev.arch || t.generic_version) return 0;
  auto fits = [](codeobj::FeatureSetting code, codeobj::FeatureSetting device) {
    using F = codeobj::FeatureSetting;
    return code == F::Any || code == F::Unsupported || code == device;
  };
  if (!fits(t.xnack, dev.xnack) || !fits(t.sramecc, dev.sramecc)) return 0;
  return (t.xnack == dev.xnack && t.sramecc == dev.sramecc) ? 2 : 1;
}

}  // namespace

uint64_t Module::symbol_address(const std::string& name, uint64_t* size) const {
  const codeobj::ElfSymbol* s = co->elf().symbol(name);
  if (!s) return 0;
  if (size) *size = s->size;
  return emu::kCodeBase + s->value;
}

Runtime& Runtime::get() {
  static Runtime* rt = new Runtime();  // never destroyed: host destructors may call HIP after exit()
  return *rt;
}

Runtime::Runtime() {
  device_ = &select_device(std::getenv("ASMEVO_HIP_DEVICE"));
  if (const char* l = std::getenv("ASMEVO_HIP_LOG"); l && *l) {
    if (std::string(l) == "-") log_ = stderr, log_is_stderr_ = true;
    else if (!(log_ = std::fopen(l, "a"))) warn(fmt::format("cannot open ASMEVO_HIP_LOG={} for appending; logging to stderr", l)), log_ = stderr, log_is_stderr_ = true;
  }
  if (const char* r = std::getenv("ASMEVO_REPLACE"); r && *r) replace_dir_ = r;
  threads_ = std::max(1u, std::thread::hardware_concurrency());
  if (const char* t = std::getenv("ASMEVO_HIP_THREADS"); t && *t) threads_ = std::max(1, std::atoi(t));
  if (const char* m = std::getenv("ASMEVO_HIP_MODEL"); m && std::string(m) == "0") model_ = false;
  // Reserve the device range so that no host mapping lands in it and host dereferences of device
  // pointers fault.
  void* p = mmap(reinterpret_cast<void*>(kDeviceHeapBase), kDeviceHeapSize, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != reinterpret_cast<void*>(kDeviceHeapBase))
    warn(fmt::format("could not reserve the device address range 0x{:x}+0x{:x} in this process; device pointers may alias host memory",
                     kDeviceHeapBase, kDeviceHeapSize));
  if (const char* sm = std::getenv("ASMEVO_HIP_SUMMARY"); sm && *sm && std::string(sm) != "0")
    std::atexit([] { Runtime::get().print_summary(); });
  device_next_ = kDeviceHeapBase;
  device_end_ = kDeviceHeapBase + kDeviceHeapSize;
  log(fmt::format("libasmevo_hip: device {} ({}), emulator threads {}, timing model {}{}", device_->name, device_->gcn_arch_name,
                  threads_, model_ ? "on" : "off (ASMEVO_HIP_MODEL=0)",
                  replace_dir_.empty() ? "" : ", ASMEVO_REPLACE=" + replace_dir_));
}

Runtime::~Runtime() = default;

void Runtime::print_summary() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string t = fmt::format("per-kernel summary (times MODELED by asmevo-model {} {}, not measured):\n", device_->name,
                              device_->gcn_arch_name);
  t += fmt::format("  {:>8} {:>14} {:>12}  {}\n", "launches", "modeled us", "us/launch", "kernel");
  for (const auto& [name, st] : stats_)
    t += fmt::format("  {:>8} {:>14.3f} {:>12.3f}  {}{}\n", st.launches, st.modeled_us, st.modeled_us / st.launches, name,
                     st.replaced_by.empty() ? "" : "  [replaced: " + st.replaced_by + "]");
  std::fprintf(stderr, "[asmevo-hip] %s", t.c_str());
  if (log_ && !log_is_stderr_) std::fprintf(log_, "[asmevo-hip] %s", t.c_str()), std::fflush(log_);
}

void Runtime::log(const std::string& line) {
  if (!log_) return;
  std::fprintf(log_, "[asmevo-hip] %s\n", line.c_str());
  std::fflush(log_);
}

void Runtime::warn(const std::string& line) {
  std::fprintf(stderr, "[asmevo-hip] %s\n", line.c_str());
  if (log_ && !log_is_stderr_) log(line);
}

// Memory.

uint64_t Runtime::allocate(uint64_t size, Allocation::Kind kind) {
  Allocation a;
  a.kind = kind;
  a.size = size;
  if (kind == Allocation::Device) {
    a.base = round_up(device_next_, kAlign);
    if (a.base + size > device_end_) throw Error(fmt::format("out of emulated device memory ({} bytes requested)", size));
    a.owned.reset(new (std::nothrow) uint8_t[std::max<uint64_t>(size, 1)]());
    if (!a.owned) throw Error(fmt::format("the host cannot back {} bytes of device memory", size));
    a.host = a.owned.get();
    device_next_ = a.base + std::max<uint64_t>(size, 1) + kGap;
  } else {
    void* p = mmap(nullptr, round_up(std::max<uint64_t>(size, 1), 4096), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw Error(fmt::format("cannot map {} bytes of host memory", size));
    a.host = static_cast<uint8_t*>(p);
    a.base = reinterpret_cast<uint64_t>(p);
  }
  uint64_t base = a.base;
  allocs_.emplace(base, std::move(a));
  return base;
}

bool Runtime::release(uint64_t address, Allocation::Kind kind) {
  auto it = allocs_.find(address);
  // hipFree frees device and managed memory, hipHostFree host memory.
  auto freed_by = [](Allocation::Kind k) { return k == Allocation::Host ? Allocation::Host : Allocation::Device; };
  if (it == allocs_.end() || freed_by(it->second.kind) != freed_by(kind)) return false;
  if (it->second.kind != Allocation::Device) munmap(it->second.host, round_up(std::max<uint64_t>(it->second.size, 1), 4096));
  allocs_.erase(it);
  return true;
}

const Allocation* Runtime::find(uint64_t address, uint64_t size) const {
  auto it = allocs_.upper_bound(address);
  if (it == allocs_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  if (address - a.base < std::max<uint64_t>(a.size, 1) && address + size <= a.base + a.size) return &a;
  return nullptr;
}

uint8_t* Runtime::resolve(uint64_t address, uint64_t size, bool host_ok) const {
  if (const Allocation* a = find(address, size)) return a->host + (address - a->base);
  if (address >= emu::kCodeBase && address < emu::kCodeBase + (1ull << 40)) {
    uint8_t* hit = nullptr;
    int hits = 0;
    for (const auto& m : modules_)
      for (auto& s : m->segments)
        if (address >= s.base && address + size <= s.base + s.size) {
          hit = const_cast<uint8_t*>(s.image.data()) + (address - s.base);
          ++hits;
        }
    if (hits == 1) return hit;
    if (hits > 1)
      throw Error(fmt::format("address 0x{:x} is a code-object global, and {} loaded code objects have one there", address, hits),
                  "libasmevo_hip", "use hipMemcpyToSymbol/FromSymbol, which name the variable");
  }
  if (address >= kDeviceHeapBase && address < device_end_) return nullptr;  // a freed or never-allocated device address
  return host_ok ? reinterpret_cast<uint8_t*>(address) : nullptr;
}

// Code objects.

FatBinary* Runtime::register_fat_binary(const void* wrapper) {
  struct Wrapper {
    uint32_t magic, version;
    const uint8_t* binary;
    const void* unused;
  };
  const auto* w = static_cast<const Wrapper*>(wrapper);
  if (w->magic != 0x48495046u /* "HIPF" */)
    throw Error(fmt::format("fat binary wrapper has magic 0x{:08x}, not 0x48495046 (HIPF)", w->magic), "__hipRegisterFatBinary");
  auto fb = std::make_unique<FatBinary>();
  fb->where = fmt::format("fat binary at {}", static_cast<const void*>(w->binary));
  const uint8_t* b = w->binary;
  size_t end = image_size(b, fb->where);
  fb->entries = codeobj::extract_code_objects(std::span<const uint8_t>(b, end), fb->where);
  FatBinary* raw = fb.get();
  fat_binaries_.push_back(std::move(fb));
  log(fmt::format("registered {} ({} code objects)", raw->where, raw->entries.size()));
  return raw;
}

void Runtime::unregister_fat_binary(FatBinary* fb) { log("unregistered " + fb->where); }

Module* Runtime::module_of(FatBinary& fb) {
  if (fb.module) return fb.module;
  auto dev = codeobj::parse_target_id(device_->gcn_arch_name);
  const codeobj::EmbeddedCodeObject* best = nullptr;
  int best_fit = 0;
  std::string have;
  for (const auto& e : fb.entries) {
    auto t = bundle_target(e.bundle_id);
    have += (have.empty() ? "" : ", ") + e.bundle_id;
    if (int f = t ? target_fit(*t, *dev) : 0; f > best_fit) best = &e, best_fit = f;
  }
  if (!best)
    throw Error(fmt::format("no code object for {} in the program's fat binary (it holds: {})", device_->gcn_arch_name, have),
                fb.where, fmt::format("rebuild with --offload-arch={} or pick the device with ASMEVO_HIP_DEVICE", codeobj::to_string(device_->arch)));
  auto m = std::make_unique<Module>();
  m->origin = fb.where + ": " + best->bundle_id;
  m->original = best->bytes;
  fb.module = finish_module(std::move(m));
  return fb.module;
}

Module* Runtime::load_module(std::vector<uint8_t> bytes, const std::string& origin) {
  auto objects = codeobj::extract_code_objects(bytes, origin);
  auto dev = codeobj::parse_target_id(device_->gcn_arch_name);
  const codeobj::EmbeddedCodeObject* best = nullptr;
  int best_fit = 0;
  for (const auto& e : objects) {
    auto t = e.bundle_id.empty() ? std::optional<codeobj::TargetId>(codeobj::CodeObject::parse(e.bytes, origin).target())
                                 : bundle_target(e.bundle_id);
    if (int f = t ? target_fit(*t, *dev) : 0; f > best_fit) best = &e, best_fit = f;
  }
  if (!best)
    throw Error(fmt::format("no code object for {} in {}", device_->gcn_arch_name, origin), origin,
                "load a code object built for the device, or pick the device with ASMEVO_HIP_DEVICE");
  auto m = std::make_unique<Module>();
  m->origin = origin;
  m->original = best->bytes;
  return finish_module(std::move(m));
}

void Runtime::apply_replacement(Module& m) {
  if (replace_dir_.empty()) return;
  std::string path = replace_dir_ + "/" + m.hash + ".co";
  if (!std::filesystem::exists(path)) {
    log(fmt::format("ASMEVO_REPLACE: no counterpart for code object {} ({})", m.hash, m.origin));
    return;
  }
  std::vector<uint8_t> bytes = read_file_bytes(path);
  auto original = codeobj::CodeObject::parse(m.original, m.origin);
  auto replacement = codeobj::CodeObject::parse(bytes, path);
  rebuild::AbiDiff d = rebuild::abi_diff(original, replacement);
  if (!d.compatible()) {
    warn(fmt::format("ASMEVO_REPLACE: refusing {}: it cannot replace code object {} ({} ABI breaks); running the original.\n{}", path,
                     m.hash, d.breaks.size(), d.to_text(m.origin, path)));
    return;
  }
  m.bytes = std::move(bytes);
  m.replaced_by = path;
  warn(fmt::format("ASMEVO_REPLACE: code object {} replaced by {} (abi-diff: compatible, {} resource changes)", m.hash, path,
                   d.changes.size()));
}

Module* Runtime::finish_module(std::unique_ptr<Module> m) {
  m->hash = content_hash(m->original);
  m->bytes = m->original;
  apply_replacement(*m);
  m->co = std::make_unique<codeobj::CodeObject>(codeobj::CodeObject::parse(m->bytes, m->replaced_by.empty() ? m->origin : m->replaced_by));
  m->decoder = std::make_unique<program::Decoder>(m->co->target());
  const auto& img = m->co->elf().image();
  for (const auto& seg : m->co->elf().segments()) {
    if (seg.type != 1 /*PT_LOAD*/ || seg.mem_size == 0) continue;
    Module::Segment s;
    s.base = emu::kCodeBase + seg.vaddr;
    s.size = seg.mem_size;
    s.writable = (seg.flags & 2) != 0;
    s.image.assign(seg.mem_size, 0);
    if (seg.offset < img.size())
      std::memcpy(s.image.data(), img.data() + seg.offset, std::min<uint64_t>(seg.file_size, img.size() - seg.offset));
    m->segments.push_back(std::move(s));
  }
  log(fmt::format("loaded code object {} from {} ({} kernels){}", m->hash, m->origin, m->co->kernels().size(),
                  m->replaced_by.empty() ? "" : ", running " + m->replaced_by));
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

void Runtime::unload_module(Module* m) { log("unloaded code object " + m->hash); }

Function* Runtime::function(Module* m, const std::string& name) {
  auto key = std::make_pair(m, name);
  if (auto it = function_index_.find(key); it != function_index_.end()) return it->second;
  const codeobj::Kernel* k = m->co->kernel(name);
  if (!k) return nullptr;
  auto f = std::make_unique<Function>();
  f->module = m;
  f->name = name;
  f->kernel = k;
  functions_.push_back(std::move(f));
  function_index_[key] = functions_.back().get();
  return functions_.back().get();
}

Function* Runtime::function_of_stub(const void* stub) {
  for (auto& fb : fat_binaries_)
    if (auto it = fb->functions.find(stub); it != fb->functions.end()) return function(module_of(*fb), it->second);
  return nullptr;
}

FatBinary* Runtime::fat_binary_of_variable(const void* shadow, std::string* symbol) {
  for (auto& fb : fat_binaries_)
    if (auto it = fb->variables.find(shadow); it != fb->variables.end()) {
      *symbol = it->second;
      return fb.get();
    }
  return nullptr;
}

// Launches.

std::vector<uint8_t> Runtime::pack_arguments(const Function& f, void** args) const {
  const codeobj::KernelMetadata* md = f.module->co->kernel_metadata(*f.kernel);
  if (!md) throw Error("kernel " + f.name + " has no metadata: its arguments cannot be laid out", f.module->origin);
  std::vector<uint8_t> k;
  size_t i = 0;
  for (const auto& a : md->args) {
    if (a.is_hidden()) continue;
    if (k.size() < a.offset + a.size) k.resize(a.offset + a.size, 0);
    if (!args || !args[i]) throw Error(fmt::format("argument {} of {} is a null pointer in the argument array", i, f.name));
    std::memcpy(k.data() + a.offset, args[i], a.size);
    ++i;
  }
  return k;
}

double Runtime::launch(Function& f, const LaunchConfig& cfg, const std::vector<uint8_t>& kernarg) {
  Module& m = *f.module;
  auto& prog = m.programs[f.name];
  try {
    if (!prog) prog = emu::Program::build(*m.co, *f.kernel, *m.decoder);
  } catch (const Error& e) {
    launch_failed("launch of " + f.name, e.format());
  }
  emu::RawLaunch raw;
  raw.grid = cfg.grid;
  raw.block = cfg.block;
  raw.dynamic_lds = cfg.dynamic_lds;
  raw.explicit_kernarg = kernarg;
  raw.map_code_object = false;
  for (auto& [base, a] : allocs_)
    raw.memory.push_back({a.base, a.size, a.host, fmt::format("{} allocation 0x{:x}", a.kind == Allocation::Device ? "device" : "host", a.base), true});
  for (auto& s : m.segments) raw.memory.push_back({s.base, s.size, s.image.data(), fmt::format("code object segment 0x{:x}", s.base - emu::kCodeBase), s.writable});
  auto launch = emu::prepare_raw_launch(*m.co, *f.kernel, raw, threads_);
  const timing::HwParams* hw = model_ ? &timing::hw_params(m.co->target().arch) : nullptr;
  std::unique_ptr<timing::TraceRecorder> recorder;
  if (hw) recorder = std::make_unique<timing::TraceRecorder>(*launch, *prog, *hw);
  emu::RunOptions ro;
  ro.threads = threads_;
  ro.observer = recorder.get();
  auto t0 = std::chrono::steady_clock::now();
  emu::RunResult rr;
  try {
    rr = emu::run_launch(*launch, *prog, ro);
  } catch (const Error& e) {
    launch_failed("launch of " + f.name, e.format());
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double us = 0;
  std::string timed = "not modeled (ASMEVO_HIP_MODEL=0)";
  if (hw) {
    emu::LaunchSpec shape;
    shape.block = cfg.block;
    shape.dynamic_lds = cfg.dynamic_lds;
    timing::LaunchTrace trace = recorder->take();
    timing::ModelResult mr = timing::model_launch(*prog, trace, timing::launch_occupancy(*m.co, *f.kernel, shape), *hw);
    us = mr.microseconds;
    timed = fmt::format("{:.3f} us MODELED ({} cycles, asmevo-model {} {})", us, mr.cycles, codeobj::to_string(hw->arch), hw->device);
  }
  device_time_us_ += us;
  KernelStats& st = stats_[f.name];
  st.launches++;
  st.modeled_us += us;
  st.replaced_by = m.replaced_by;
  log(fmt::format("launch {} grid [{},{},{}] block [{},{},{}] lds {} code object {}{}: {} instructions EMULATED in {:.3f} s; {}", f.name,
                  cfg.grid[0], cfg.grid[1], cfg.grid[2], cfg.block[0], cfg.block[1], cfg.block[2], cfg.dynamic_lds, m.hash,
                  m.replaced_by.empty() ? "" : " (replaced by " + m.replaced_by + ")", rr.stats.total(), wall, timed));
  return us;
}

}  // namespace asmevo::hip
