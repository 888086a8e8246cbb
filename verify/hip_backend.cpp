#include "verify/hip_backend.h"

#define __HIP_PLATFORM_AMD__ 1
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "support/error.h"

namespace asmevo::verify {
namespace {

// The HIP functions the backend uses, looked up once in the loaded library.
struct Hip {
  std::string name;
  void* lib = nullptr;
#define ASMEVO_HIP_FN(ret, fn, ...) ret (*fn)(__VA_ARGS__) = nullptr;
#define ASMEVO_HIP_FNS(X)                                                                                              \
  X(hipError_t, hipModuleLoadData, hipModule_t*, const void*)                                                          \
  X(hipError_t, hipModuleGetFunction, hipFunction_t*, hipModule_t, const char*)                                        \
  X(hipError_t, hipModuleUnload, hipModule_t)                                                                          \
  X(hipError_t, hipModuleLaunchKernel, hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,     \
    unsigned, hipStream_t, void**, void**)                                                                             \
  X(hipError_t, hipMalloc, void**, size_t)                                                                             \
  X(hipError_t, hipFree, void*)                                                                                        \
  X(hipError_t, hipMemcpy, void*, const void*, size_t, hipMemcpyKind)                                                  \
  X(hipError_t, hipMemset, void*, int, size_t)                                                                         \
  X(hipError_t, hipDeviceSynchronize)                                                                                  \
  X(hipError_t, hipGetDeviceProperties, hipDeviceProp_t*, int)                                                         \
  X(hipError_t, hipDeviceGetAttribute, int*, hipDeviceAttribute_t, int)                                                \
  X(hipError_t, hipEventCreate, hipEvent_t*)                                                                           \
  X(hipError_t, hipEventRecord, hipEvent_t, hipStream_t)                                                               \
  X(hipError_t, hipEventSynchronize, hipEvent_t)                                                                       \
  X(hipError_t, hipEventElapsedTime, float*, hipEvent_t, hipEvent_t)                                                   \
  X(hipError_t, hipEventDestroy, hipEvent_t)                                                                           \
  X(const char*, hipGetErrorName, hipError_t)
  ASMEVO_HIP_FNS(ASMEVO_HIP_FN)
#undef ASMEVO_HIP_FN

  explicit Hip(const std::string& library) {
    name = !library.empty() ? library : std::getenv("ASMEVO_HIP_LIBRARY") ? std::getenv("ASMEVO_HIP_LIBRARY") : "libamdhip64.so.5";
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw Error(std::string("cannot load the HIP runtime: ") + dlerror(), name, "install ROCm, or name the library with ASMEVO_HIP_LIBRARY");
#define ASMEVO_HIP_SYM(ret, fn, ...)                                                                 \
  fn = reinterpret_cast<decltype(fn)>(dlsym(lib, #fn));                                             \
  if (!fn) throw Error("the HIP runtime has no " #fn, name);
    ASMEVO_HIP_FNS(ASMEVO_HIP_SYM)
#undef ASMEVO_HIP_SYM
  }
  void check(hipError_t e, const char* what) const {
    if (e != hipSuccess) throw Error(fmt::format("{} failed: {}", what, hipGetErrorName(e)), name);
  }
};

Hip& hip(const std::string& library) {
  static std::unique_ptr<Hip> h;
  if (!h) h = std::make_unique<Hip>(library);
  return *h;
}

struct HipKernel : LoadedKernel {
  const codeobj::CodeObject* co = nullptr;
  const codeobj::Kernel* kernel = nullptr;
  std::vector<uint8_t> bytes;
  hipModule_t module = nullptr;
  hipFunction_t function = nullptr;
};

// One launch's device buffers (guarded) and kernarg bytes, built from the spec as the emulator does.
struct Prepared {
  struct Buf {
    size_t arg = 0;
    void* base = nullptr;  // guard zone start
    uint64_t bytes = 0, guard = 0;
    uint32_t salt = 0;
  };
  std::vector<Buf> bufs;
  std::vector<uint8_t> kernarg;
};

Prepared prepare(Hip& h, const HipKernel& k, const emu::LaunchSpec& spec) {
  const codeobj::KernelMetadata* md = k.co->kernel_metadata(*k.kernel);
  if (!md) throw Error("kernel " + k.kernel->name + " has no metadata", k.co->elf().name());
  std::vector<const codeobj::KernelArg*> explicit_args;
  for (const auto& a : md->args)
    if (!a.is_hidden()) explicit_args.push_back(&a);
  if (explicit_args.size() != spec.args.size())
    throw Error(fmt::format("the spec lists {} arguments but kernel {} has {}", spec.args.size(), k.kernel->name, explicit_args.size()),
                spec.path);
  Prepared p;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const auto& s = spec.args[i];
    const auto& m = *explicit_args[i];
    if (p.kernarg.size() < m.offset + m.size) p.kernarg.resize(m.offset + m.size, 0);
    uint64_t v = 0;
    if (s.kind == emu::ArgSpec::Buffer) {
      Prepared::Buf b{i, nullptr, s.count * emu::dtype_size(s.dtype), s.guard, emu::guard_salt(spec, i)};
      h.check(h.hipMalloc(&b.base, b.bytes + 2 * b.guard), "hipMalloc");
      std::vector<uint8_t> host(b.bytes + 2 * b.guard);
      for (uint64_t g = 0; g < b.guard; ++g)
        host[g] = emu::guard_canary(g, b.salt), host[b.guard + b.bytes + g] = emu::guard_canary(b.guard + g, b.salt);
      auto init = emu::make_buffer(spec, i);
      std::memcpy(host.data() + b.guard, init.data(), init.size());
      h.check(h.hipMemcpy(b.base, host.data(), host.size(), hipMemcpyHostToDevice), "hipMemcpy");
      v = reinterpret_cast<uint64_t>(b.base) + b.guard;
      p.bufs.push_back(b);
    } else if (s.kind == emu::ArgSpec::Value) {
      v = emu::scalar_bits(spec, i);
    }
    std::memcpy(p.kernarg.data() + m.offset, &v, std::min<uint64_t>(m.size, 8));
  }
  return p;
}

void launch(Hip& h, const HipKernel& k, const emu::LaunchSpec& spec, Prepared& p) {
  size_t size = p.kernarg.size();
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, p.kernarg.data(), HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  h.check(h.hipModuleLaunchKernel(k.function, spec.grid[0], spec.grid[1], spec.grid[2], spec.block[0], spec.block[1], spec.block[2],
                                  spec.dynamic_lds, nullptr, nullptr, extra),
          "hipModuleLaunchKernel");
}

class HipBackend : public Backend {
 public:
  explicit HipBackend(const std::string& library) : h_(hip(library)) {}
  std::string figure_kind() const override { return "measured"; }
  std::unique_ptr<LoadedKernel> load(const codeobj::CodeObject& co, const std::string& name) override {
    auto k = std::make_unique<HipKernel>();
    k->co = &co;
    k->kernel = co.kernel(name);
    if (!k->kernel) throw Error("no kernel named " + name, co.elf().name());
    k->bytes = co.write();
    h_.check(h_.hipModuleLoadData(&k->module, k->bytes.data()), "hipModuleLoadData");
    h_.check(h_.hipModuleGetFunction(&k->function, k->module, name.c_str()), "hipModuleGetFunction");
    return k;
  }
  // Hardware schedules waves itself: RunVariant's emulator conditions do not apply. A kernel that
  // faults on a GPU stops the process in ROCm (no outcome to report); step limits do not exist.
  RunOutcome run(const LoadedKernel& loaded, const emu::LaunchSpec& spec, uint64_t, const RunVariant&,
                 emu::ExecObserver* observer) override {
    if (observer)
      throw Error("the hip backend cannot observe the instructions a kernel executes", "--backend hip",
                  "aimed inputs need the emulator's observer: they are not made with --backend hip");
    const auto& k = static_cast<const HipKernel&>(loaded);
    Prepared p = prepare(h_, k, spec);
    RunOutcome out;
    std::vector<std::vector<uint8_t>> before;
    for (auto& b : p.bufs) {
      BufferResult r;
      r.arg_index = b.arg;
      const auto& s = spec.args[b.arg];
      r.label = s.name.empty() ? "arg" + std::to_string(b.arg) : s.name;
      r.dtype = s.dtype;
      r.direction = s.direction;
      r.compare = s.compare;
      r.before = emu::make_buffer(spec, b.arg);
      out.buffers.push_back(std::move(r));
    }
    auto t0 = std::chrono::steady_clock::now();
    launch(h_, k, spec, p);
    h_.check(h_.hipDeviceSynchronize(), "hipDeviceSynchronize");
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (size_t i = 0; i < p.bufs.size(); ++i) {
      auto& b = p.bufs[i];
      std::vector<uint8_t> host(b.bytes + 2 * b.guard);
      h_.check(h_.hipMemcpy(host.data(), b.base, host.size(), hipMemcpyDeviceToHost), "hipMemcpy");
      out.buffers[i].after.assign(host.begin() + b.guard, host.begin() + b.guard + b.bytes);
      for (uint64_t g = 0; g < b.guard && !out.buffers[i].broken_guard; ++g) {
        if (host[g] != emu::guard_canary(g, b.salt)) out.buffers[i].broken_guard = static_cast<int64_t>(g) - static_cast<int64_t>(b.guard);
        else if (host[b.guard + b.bytes + g] != emu::guard_canary(b.guard + g, b.salt))
          out.buffers[i].broken_guard = static_cast<int64_t>(b.bytes + g);
      }
      h_.check(h_.hipFree(b.base), "hipFree");
    }
    return out;
  }

 private:
  Hip& h_;
};

}  // namespace

std::unique_ptr<Backend> make_hip_backend(const std::string& library) { return std::make_unique<HipBackend>(library); }

HipTiming time_with_hip(const codeobj::CodeObject& co, const std::string& kernel, const emu::LaunchSpec& run, unsigned warmup,
                        unsigned repetitions, const std::string& library) {
  Hip& h = hip(library);
  HipBackend backend(library);
  auto loaded = backend.load(co, kernel);
  const auto& k = static_cast<const HipKernel&>(*loaded);
  HipTiming t;
  hipDeviceProp_t props;
  h.check(h.hipGetDeviceProperties(&props, 0), "hipGetDeviceProperties");
  t.runtime = h.name + " (" + props.name + ")";
  t.device_arch = props.gcnArchName;
  h.check(h.hipDeviceGetAttribute(&t.clock_khz, hipDeviceAttributeClockRate, 0), "hipDeviceGetAttribute");
  t.power_mode = "unknown (HIP has no query for it; record `rocm-smi --showperflevel` beside the result)";
  t.warmup = warmup;
  t.repetitions = repetitions;
  Prepared p = prepare(h, k, run);
  constexpr size_t kFlushBytes = 512ull << 20;  // larger than MI300X's 256 MiB MALL and every L2
  void* flush = nullptr;
  h.check(h.hipMalloc(&flush, kFlushBytes), "hipMalloc (cache flush buffer)");
  for (unsigned i = 0; i < warmup; ++i) launch(h, k, run, p);
  hipEvent_t start, stop;
  h.check(h.hipEventCreate(&start), "hipEventCreate");
  h.check(h.hipEventCreate(&stop), "hipEventCreate");
  std::vector<double> us;
  for (unsigned i = 0; i < repetitions; ++i) {
    h.check(h.hipMemset(flush, static_cast<int>(i & 0xff), kFlushBytes), "hipMemset (cache flush)");
    h.check(h.hipEventRecord(start, nullptr), "hipEventRecord");
    launch(h, k, run, p);
    h.check(h.hipEventRecord(stop, nullptr), "hipEventRecord");
    h.check(h.hipEventSynchronize(stop), "hipEventSynchronize");
    float ms = 0;
    h.check(h.hipEventElapsedTime(&ms, start, stop), "hipEventElapsedTime");
    us.push_back(ms * 1000.0);
  }
  std::sort(us.begin(), us.end());
  t.median_us = us.empty() ? 0 : us[us.size() / 2];
  t.min_us = us.empty() ? 0 : us.front();
  t.max_us = us.empty() ? 0 : us.back();
  h.hipEventDestroy(start), h.hipEventDestroy(stop), h.hipFree(flush);
  for (auto& b : p.bufs) h.hipFree(b.base);
  return t;
}

}  // namespace asmevo::verify
