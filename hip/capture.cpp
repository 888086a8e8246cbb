// libasmevo_capture.so: an LD_PRELOAD interposer over any libamdhip64 (ROCm's on a GPU,
// libasmevo_hip here) that records kernel launches as AsmEvo launch specs (docs/hip.md "Capture").
// It watches registration, module loads and allocations, and around each selected launch
// synchronizes, copies every buffer an argument points into to the host (before), forwards the
// launch, synchronizes and copies them again (after). Everything goes through the real runtime's
// own API (dlsym RTLD_NEXT), so the same library works over ROCm.
//
// Environment (set by `asmevo capture`): ASMEVO_CAPTURE_DIR (required), ASMEVO_CAPTURE_KERNEL
// (ECMAScript regex on the kernel symbol; default all), ASMEVO_CAPTURE_MAX (launches per kernel;
// default unlimited).
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "emu/npy.h"
#include "hip/image.h"
#include "support/content_hash.h"
#include "support/error.h"
#include "support/file_io.h"

namespace fs = std::filesystem;
using namespace asmevo;

namespace {

template <class F>
F real(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr, "[asmevo-capture] the HIP runtime under the interposer has no %s\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

struct Object {
  std::vector<uint8_t> bytes;  // the code object for this device
  std::string hash;
  std::unique_ptr<codeobj::CodeObject> co;
};

struct State {
  std::mutex mu;
  std::string dir;
  std::regex kernel_filter{".*"};
  uint64_t max_per_kernel = ~0ull;
  std::map<void**, std::vector<codeobj::EmbeddedCodeObject>> fat_binaries;  // handle -> its code objects
  std::map<void**, Object*> fat_object;                                     // chosen for the device
  std::map<const void*, std::pair<void**, std::string>> stubs;              // host stub -> (fat binary, kernel)
  std::map<hipModule_t, Object*> modules;
  std::map<hipFunction_t, std::pair<Object*, std::string>> functions;
  std::map<uint64_t, uint64_t> allocations;  // base -> size (device, managed, host)
  std::map<std::string, std::unique_ptr<Object>> objects;  // by hash
  std::map<std::string, uint64_t> per_kernel;
  uint64_t launches = 0;
  std::string index;  // capture.json "launches" entries
  std::string device_arch;
  bool busy = false;  // inside our own calls to the runtime
};

State& state() {
  static State* s = [] {
    auto* st = new State;
    const char* d = std::getenv("ASMEVO_CAPTURE_DIR");
    if (!d || !*d) {
      std::fprintf(stderr, "[asmevo-capture] ASMEVO_CAPTURE_DIR is not set (run through `asmevo capture -o DIR -- PROGRAM`)\n");
      std::abort();
    }
    st->dir = d;
    if (const char* k = std::getenv("ASMEVO_CAPTURE_KERNEL"); k && *k) st->kernel_filter = std::regex(k);
    if (const char* m = std::getenv("ASMEVO_CAPTURE_MAX"); m && *m) st->max_per_kernel = std::strtoull(m, nullptr, 10);
    fs::create_directories(st->dir + "/objects");
    fs::create_directories(st->dir + "/launches");
    std::atexit([] {
      State& s = state();
      std::string json = fmt::format("{{\n  \"schema\": \"asmevo.capture/1\",\n  \"device\": \"{}\",\n  \"launches\": [\n{}\n  ]\n}}\n",
                                     s.device_arch, s.index);
      write_file_atomic(s.dir + "/capture.json", json);
      std::fprintf(stderr, "[asmevo-capture] %llu launches captured into %s\n", static_cast<unsigned long long>(s.launches), s.dir.c_str());
    });
    return st;
  }();
  return *s;
}

std::string device_arch() {
  State& s = state();
  if (s.device_arch.empty()) {
    hipDeviceProp_t p;
    if (real<hipError_t (*)(hipDeviceProp_t*, int)>("hipGetDeviceProperties")(&p, 0) != hipSuccess) return "";
    s.device_arch = p.gcnArchName;
  }
  return s.device_arch;
}

Object* intern(std::vector<uint8_t> bytes, const std::string& origin) {
  State& s = state();
  std::string h = content_hash(bytes);
  auto& slot = s.objects[h];
  if (!slot) {
    slot = std::make_unique<Object>();
    slot->hash = h;
    slot->co = std::make_unique<codeobj::CodeObject>(codeobj::CodeObject::parse(bytes, origin));
    slot->bytes = std::move(bytes);
    std::string path = s.dir + "/objects/" + h + ".co";
    if (!fs::exists(path)) write_file_atomic(path, slot->bytes);
  }
  return slot.get();
}

// The code object of `entries` for this device (same arch; the runtime decides features).
Object* pick(const std::vector<codeobj::EmbeddedCodeObject>& entries, const std::string& origin) {
  auto dev = codeobj::parse_target_id(device_arch());
  for (const auto& e : entries) {
    auto co = codeobj::CodeObject::parse(e.bytes, origin);
    if (dev && co.target().arch == dev->arch) return intern(e.bytes, origin);
  }
  return nullptr;
}

std::string safe_name(const std::string& k) {
  std::string o;
  for (char c : k) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return o.substr(0, 80);
}

struct Buffer {
  size_t arg = 0;
  uint64_t ptr = 0, alloc_base = 0, bytes = 0;
  std::vector<uint8_t> before, after;
};

// Records one launch: `run` performs it on the real runtime.
template <class Run>
hipError_t capture_launch(Object* obj, const std::string& kernel, const std::array<uint32_t, 3>& grid,
                          const std::array<uint32_t, 3>& block, uint32_t lds, const std::vector<uint8_t>& kernarg, Run&& run) {
  State& s = state();
  auto sync = real<hipError_t (*)()>("hipDeviceSynchronize");
  auto memcpy_ = real<hipError_t (*)(void*, const void*, size_t, hipMemcpyKind)>("hipMemcpy");
  const codeobj::Kernel* k = obj->co->kernel(kernel);
  const codeobj::KernelMetadata* md = k ? obj->co->kernel_metadata(*k) : nullptr;
  uint64_t id = s.launches++;
  std::string name = fmt::format("{:04d}-{}", id, safe_name(kernel));
  std::string ldir = s.dir + "/launches/" + name;
  fs::create_directories(ldir);
  std::vector<Buffer> buffers;
  std::string yaml_args, json_args, skip;
  size_t ai = 0;
  for (const auto& a : md ? md->args : std::vector<codeobj::KernelArg>{}) {
    if (a.is_hidden()) continue;
    uint64_t v = 0;
    std::memcpy(&v, kernarg.data() + a.offset, std::min<uint64_t>(a.size, 8));
    if (a.value_kind == "global_buffer") {
      if (v == 0) {
        yaml_args += "  - {pointer: null}\n";
      } else {
        auto it = s.allocations.upper_bound(v);
        if (it == s.allocations.begin() || v >= std::prev(it)->first + std::prev(it)->second) {
          skip = fmt::format("argument {} points to 0x{:x}, outside every allocation the program made through the runtime", ai, v);
          yaml_args += fmt::format("  - {{pointer: null}}  # UNCAPTURED: 0x{:x}\n", v);
        } else {
          --it;
          Buffer b{ai, v, it->first, it->first + it->second - v, {}, {}};
          buffers.push_back(b);
        }
      }
    } else if (a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8) {
      yaml_args += fmt::format("  - {{name: arg{}, value: {}, type: u{}}}\n", ai, v, a.size * 8);
    } else {
      skip = fmt::format("argument {} is a {}-byte value; launch specs hold values of 1, 2, 4 or 8 bytes", ai, a.size);
    }
    json_args += fmt::format("{}{{\"index\": {}, \"kind\": \"{}\", \"offset\": {}, \"size\": {}, \"value\": \"0x{:x}\"}}",
                             json_args.empty() ? "" : ", ", ai, a.value_kind, a.offset, a.size, v);
    ++ai;
  }
  s.busy = true;
  sync();
  for (auto& b : buffers) {
    b.before.resize(b.bytes);
    memcpy_(b.before.data(), reinterpret_cast<void*>(b.ptr), b.bytes, hipMemcpyDefault);
  }
  s.busy = false;
  hipError_t e = run();
  s.busy = true;
  sync();
  for (auto& b : buffers) {
    b.after.resize(b.bytes);
    memcpy_(b.after.data(), reinterpret_cast<void*>(b.ptr), b.bytes, hipMemcpyDefault);
  }
  s.busy = false;
  // The spec: buffers in argument order with the values in between.
  std::string yaml;
  size_t bi = 0, line_arg = 0;
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < yaml_args.size();) {
    size_t nl = yaml_args.find('\n', pos);
    lines.push_back(yaml_args.substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  // Re-assemble: walk the explicit args again, taking buffers or the next value line.
  size_t li = 0;
  ai = 0;
  std::string roles;
  for (const auto& a : md ? md->args : std::vector<codeobj::KernelArg>{}) {
    if (a.is_hidden()) continue;
    if (bi < buffers.size() && buffers[bi].arg == ai) {
      Buffer& b = buffers[bi++];
      bool changed = b.before != b.after;
      std::string dtype = b.bytes % 4 == 0 && b.ptr % 4 == 0 ? "u32" : "u8";
      std::string in = fmt::format("arg{}.in.npy", ai), out = fmt::format("arg{}.out.npy", ai);
      emu::write_npy(ldir + "/" + in, dtype, b.before.data(), b.bytes);
      if (changed) emu::write_npy(ldir + "/" + out, dtype, b.after.data(), b.bytes);
      yaml += fmt::format("  - {{name: arg{}, buffer: {}, count: {}, init: {{file: {}}}{}, special: false}}  # {} bytes at +{} of the "
                          "allocation 0x{:x}\n",
                          ai, dtype, b.bytes / (dtype == "u32" ? 4 : 1), in, changed ? ", inout: true, expect: " + out : "", b.bytes,
                          b.ptr - b.alloc_base, b.alloc_base);
      roles += fmt::format("{}\"arg{}\": \"{}\"", roles.empty() ? "" : ", ", ai, changed ? "written" : "read");
    } else if (li < lines.size()) {
      yaml += lines[li++];
    }
    ++ai;
    (void)line_arg;
  }
  std::string spec = fmt::format(
      "# Captured by asmevo capture: launch {} of the program, kernel {} of code object ../../objects/{}.co\n"
      "# Buffers: the bytes each pointer argument reaches up to the end of its allocation, before the launch\n"
      "# (init) and after it (expect, for the buffers the launch changed: inout). Element types are not\n"
      "# recorded by HIP code objects: u32/u8 hold the exact bits; name float types for tolerance compares.\n"
      "kernel: {}\ngrid: [{}, {}, {}]\nblock: [{}, {}, {}]\ndynamic_lds: {}\nseed: 1\ninputs: 1\nargs:\n{}",
      id, kernel, obj->hash, kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2], lds, yaml);
  std::string hex;
  for (uint8_t c : kernarg) hex += fmt::format("{:02x}", c);
  if (skip.empty()) write_file_atomic(ldir + "/launch.yaml", spec);
  write_file_atomic(ldir + "/launch.json",
                    fmt::format("{{\"kernel\": \"{}\", \"object\": \"objects/{}.co\", \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], "
                                "\"dynamic_lds\": {}, \"kernarg\": \"{}\", \"args\": [{}], \"roles\": {{{}}}, \"result\": \"{}\", "
                                "\"spec\": {}}}\n",
                                kernel, obj->hash, grid[0], grid[1], grid[2], block[0], block[1], block[2], lds, hex, json_args, roles,
                                hipGetErrorName(e), skip.empty() ? "\"launch.yaml\"" : "null, \"not_captured\": \"" + skip + "\""));
  s.index += fmt::format("{}    {{\"id\": \"{}\", \"kernel\": \"{}\", \"object\": \"objects/{}.co\", \"spec\": {}}}", s.index.empty() ? "" : ",\n",
                         name, kernel, obj->hash, skip.empty() ? "\"launches/" + name + "/launch.yaml\"" : "null");
  if (!skip.empty()) std::fprintf(stderr, "[asmevo-capture] %s: no launch spec: %s\n", name.c_str(), skip.c_str());
  return e;
}

bool selected(const std::string& kernel) {
  State& s = state();
  if (s.busy || !std::regex_search(kernel, s.kernel_filter)) return false;
  return s.per_kernel[kernel]++ < s.max_per_kernel;
}

std::vector<uint8_t> pack(const codeobj::CodeObject& co, const std::string& kernel, void** args) {
  const codeobj::Kernel* k = co.kernel(kernel);
  const codeobj::KernelMetadata* md = k ? co.kernel_metadata(*k) : nullptr;
  std::vector<uint8_t> out;
  if (!md) return out;
  size_t i = 0;
  for (const auto& a : md->args) {
    if (a.is_hidden()) continue;
    if (out.size() < a.offset + a.size) out.resize(a.offset + a.size);
    std::memcpy(out.data() + a.offset, args[i++], a.size);
  }
  return out;
}

void track(void** ptr, size_t size, hipError_t e) {
  if (e == hipSuccess && ptr && *ptr) state().allocations[reinterpret_cast<uint64_t>(*ptr)] = size;
}

}  // namespace

extern "C" {

void** __hipRegisterFatBinary(const void* wrapper) {
  void** h = real<void** (*)(const void*)>("__hipRegisterFatBinary")(wrapper);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  try {
    struct W {
      uint32_t magic, version;
      const uint8_t* binary;
      const void* unused;
    };
    const uint8_t* b = static_cast<const W*>(wrapper)->binary;
    s.fat_binaries[h] = codeobj::extract_code_objects(std::span<const uint8_t>(b, hip::image_size(b, "fat binary")), "fat binary");
  } catch (const Error& e) {
    std::fprintf(stderr, "[asmevo-capture] cannot read a fat binary: %s\n", e.format().c_str());
  }
  return h;
}

void __hipRegisterFunction(void** modules, const void* host_function, char* device_function, const char* device_name, unsigned int limit,
                           void* tid, void* bid, dim3* bdim, dim3* gdim, int* wsize) {
  real<void (*)(void**, const void*, char*, const char*, unsigned int, void*, void*, dim3*, dim3*, int*)>("__hipRegisterFunction")(
      modules, host_function, device_function, device_name, limit, tid, bid, bdim, gdim, wsize);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stubs[host_function] = {modules, device_name ? device_name : device_function};
}

hipError_t hipMalloc(void** p, size_t n) {
  hipError_t e = real<hipError_t (*)(void**, size_t)>("hipMalloc")(p, n);
  std::lock_guard<std::mutex> lock(state().mu);
  track(p, n, e);
  return e;
}
hipError_t hipMallocManaged(void** p, size_t n, unsigned int f) {
  hipError_t e = real<hipError_t (*)(void**, size_t, unsigned int)>("hipMallocManaged")(p, n, f);
  std::lock_guard<std::mutex> lock(state().mu);
  track(p, n, e);
  return e;
}
hipError_t hipHostMalloc(void** p, size_t n, unsigned int f) {
  hipError_t e = real<hipError_t (*)(void**, size_t, unsigned int)>("hipHostMalloc")(p, n, f);
  std::lock_guard<std::mutex> lock(state().mu);
  track(p, n, e);
  return e;
}
hipError_t hipFree(void* p) {
  {
    std::lock_guard<std::mutex> lock(state().mu);
    state().allocations.erase(reinterpret_cast<uint64_t>(p));
  }
  return real<hipError_t (*)(void*)>("hipFree")(p);
}
hipError_t hipHostFree(void* p) {
  {
    std::lock_guard<std::mutex> lock(state().mu);
    state().allocations.erase(reinterpret_cast<uint64_t>(p));
  }
  return real<hipError_t (*)(void*)>("hipHostFree")(p);
}

hipError_t hipModuleLoadData(hipModule_t* m, const void* image) {
  hipError_t e = real<hipError_t (*)(hipModule_t*, const void*)>("hipModuleLoadData")(m, image);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (e == hipSuccess) try {
      const auto* p = static_cast<const uint8_t*>(image);
      std::vector<uint8_t> bytes(p, p + hip::image_size(p, "hipModuleLoadData"));
      s.modules[*m] = pick(codeobj::extract_code_objects(bytes, "hipModuleLoadData image"), "hipModuleLoadData image");
    } catch (const Error& x) {
      std::fprintf(stderr, "[asmevo-capture] %s\n", x.format().c_str());
    }
  return e;
}
hipError_t hipModuleLoad(hipModule_t* m, const char* path) {
  hipError_t e = real<hipError_t (*)(hipModule_t*, const char*)>("hipModuleLoad")(m, path);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (e == hipSuccess) try {
      s.modules[*m] = pick(codeobj::extract_code_objects(read_file_bytes(path), path), path);
    } catch (const Error& x) {
      std::fprintf(stderr, "[asmevo-capture] %s\n", x.format().c_str());
    }
  return e;
}
hipError_t hipModuleGetFunction(hipFunction_t* f, hipModule_t m, const char* name) {
  hipError_t e = real<hipError_t (*)(hipFunction_t*, hipModule_t, const char*)>("hipModuleGetFunction")(f, m, name);
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (e == hipSuccess && s.modules.count(m)) s.functions[*f] = {s.modules[m], name};
  return e;
}

hipError_t hipLaunchKernel(const void* stub, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t stream) {
  auto fwd = [&] {
    return real<hipError_t (*)(const void*, dim3, dim3, void**, size_t, hipStream_t)>("hipLaunchKernel")(stub, grid, block, args, shared,
                                                                                                        stream);
  };
  State& s = state();
  std::unique_lock<std::mutex> lock(s.mu);
  auto it = s.stubs.find(stub);
  if (it == s.stubs.end() || !selected(it->second.second)) return lock.unlock(), fwd();
  Object*& obj = s.fat_object[it->second.first];
  if (!obj) obj = pick(s.fat_binaries[it->second.first], "fat binary");
  if (!obj) return lock.unlock(), fwd();
  const std::string& kernel = it->second.second;
  return capture_launch(obj, kernel, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, static_cast<uint32_t>(shared),
                        pack(*obj->co, kernel, args), fwd);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int shared, hipStream_t stream, void** params, void** extra) {
  auto fwd = [&] {
    return real<hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t, void**,
                               void**)>("hipModuleLaunchKernel")(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
  };
  State& s = state();
  std::unique_lock<std::mutex> lock(s.mu);
  auto it = s.functions.find(f);
  if (it == s.functions.end() || !it->second.first || !selected(it->second.second)) return lock.unlock(), fwd();
  Object* obj = it->second.first;
  std::vector<uint8_t> kernarg;
  if (params) kernarg = pack(*obj->co, it->second.second, params);
  else if (extra)
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2)
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) {
        size_t n = 0;
        for (size_t j = 0; extra[j] != HIP_LAUNCH_PARAM_END; j += 2)
          if (extra[j] == HIP_LAUNCH_PARAM_BUFFER_SIZE) n = *static_cast<size_t*>(extra[j + 1]);
        kernarg.assign(static_cast<uint8_t*>(extra[i + 1]), static_cast<uint8_t*>(extra[i + 1]) + n);
      }
  return capture_launch(obj, it->second.second, {gx, gy, gz}, {bx, by, bz}, shared, kernarg, fwd);
}

}  // extern "C"
