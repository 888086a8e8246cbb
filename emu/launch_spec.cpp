#include "emu/launch_spec.h"

#include "emu/fast_random.h"

#include <yaml-cpp/yaml.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <random>
#include <set>

#include "emu/npy.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::emu {
namespace {

struct Ctx {
  std::string path;
  std::string where(const YAML::Node& n) const {
    return n.Mark().line >= 0 ? path + ":" + std::to_string(n.Mark().line + 1) : path;
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what, const std::string& fix = {}) const {
    throw Error(what, where(n), fix.empty() ? "see docs/emulator.md, \"Launch spec\"" : fix);
  }
  template <class T> T as(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar() && n.Scalar() == "FILL")
      fail(n, "placeholder FILL left in the spec for " + what, "replace every FILL of the drafted spec (asmevo spec) with a value");
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      fail(n, what + ": cannot read '" + (n.IsScalar() ? n.Scalar() : std::string("<non-scalar>")) + "'");
    }
  }
  void only_keys(const YAML::Node& n, const std::set<std::string>& allowed, const std::string& what) const {
    if (!n.IsMap()) fail(n, what + " must be a mapping");
    for (const auto& kv : n) {
      std::string k = kv.first.Scalar();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, "unknown key '" + k + "' in " + what, "allowed keys: " + list);
      }
    }
  }
};

std::array<uint32_t, 3> dim3(const Ctx& c, const YAML::Node& n, const std::string& what) {
  if (!n.IsSequence() || n.size() < 1 || n.size() > 3) c.fail(n, what + " must be [x, y, z]");
  std::array<uint32_t, 3> d{1, 1, 1};
  for (size_t i = 0; i < n.size(); ++i) {
    d[i] = c.as<uint32_t>(n[i], what);
    if (d[i] == 0) c.fail(n[i], what + " components must be >= 1");
  }
  return d;
}

InitSpec init_spec(const Ctx& c, const YAML::Node& n) {
  InitSpec s;
  if (n.IsScalar()) {
    if (n.Scalar() == "zeros") return s;
    c.fail(n, "unknown init '" + n.Scalar() + "'", "use zeros, {normal: [mean, std]}, {uniform: [lo, hi]}, {ints: [lo, hi]}, {constant: c} or {file: path.npy}");
  }
  if (!n.IsMap() || n.size() != 1) c.fail(n, "init must be zeros or a one-key mapping");
  auto kv = *n.begin();
  std::string k = kv.first.Scalar();
  const YAML::Node& v = kv.second;
  auto pair = [&](InitSpec::Kind kind) {
    if (!v.IsSequence() || v.size() != 2) c.fail(v, "init " + k + " needs [a, b]");
    s.kind = kind;
    s.a = c.as<double>(v[0], "init " + k);
    s.b = c.as<double>(v[1], "init " + k);
  };
  if (k == "normal") pair(InitSpec::Normal);
  else if (k == "uniform") pair(InitSpec::Uniform);
  else if (k == "ints") pair(InitSpec::Ints);
  else if (k == "constant") s.kind = InitSpec::Constant, s.a = c.as<double>(v, "init constant");
  else if (k == "file") {
    s.kind = InitSpec::File;
    s.file = c.as<std::string>(v, "init file");
    std::filesystem::path p(s.file);
    if (p.is_relative() && c.path != "<string>") s.file = (std::filesystem::path(c.path).parent_path() / p).string();
  } else
    c.fail(kv.first, "unknown init '" + k + "'", "use normal, uniform, ints, constant or file");
  return s;
}

CompareSpec compare_spec(const Ctx& c, const YAML::Node& n, const std::string& dtype) {
  CompareSpec k;
  if (n.IsScalar()) {
    if (n.Scalar() == "exact") return k;
    c.fail(n, "unknown compare '" + n.Scalar() + "'", "use exact, {ulp: N} or {rtol: r, atol: a}");
  }
  if (!n.IsMap()) c.fail(n, "compare must be exact, {ulp: N} or {rtol: r, atol: a}");
  if (n["ulp"]) {
    c.only_keys(n, {"ulp"}, "compare");
    k.kind = CompareSpec::Ulp;
    k.ulp = c.as<uint64_t>(n["ulp"], "compare ulp");
  } else {
    c.only_keys(n, {"rtol", "atol"}, "compare");
    k.kind = CompareSpec::Tolerance;
    if (n["rtol"]) k.rtol = c.as<double>(n["rtol"], "compare rtol");
    if (n["atol"]) k.atol = c.as<double>(n["atol"], "compare atol");
    if (!(k.rtol >= 0) || !(k.atol >= 0)) c.fail(n, "rtol and atol must be >= 0");
  }
  if (!dtype_is_float(dtype) || dtype_size(dtype) == 1)
    c.fail(n, "compare " + k.str() + " needs an f16, bf16, f32 or f64 buffer, not " + dtype, "integer and fp8 buffers compare exactly");
  return k;
}

size_t arg_by_name(const Ctx& c, const YAML::Node& key, const LaunchSpec& s) {
  std::string name = key.Scalar();
  for (size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].name == name) return i;
  c.fail(key, "no argument named '" + name + "'", "name the argument in args: with name:");
}

// `launches:` and `perf:` entries share their keys; `perf:` entries must be named, uniquely.
std::vector<LaunchShape> launch_shapes(const Ctx& c, const YAML::Node& list, const LaunchSpec& s, const std::string& key) {
  const std::string what = key == "perf" ? "a perf launch" : "a launch shape";
  if (!list.IsSequence() || list.size() == 0) c.fail(list, key + " must be a non-empty list of " + (key == "perf" ? "named launches" : "launch shapes"));
  std::vector<LaunchShape> shapes;
  std::set<std::string> names;
  for (const auto& n : list) {
    c.only_keys(n, {"name", "grid", "block", "dynamic_lds", "values", "counts"}, what);
    LaunchShape l;
    l.line = n.Mark().line + 1;
    if (n["name"]) l.name = c.as<std::string>(n["name"], "launch name");
    if (key == "perf") {
      if (l.name.empty()) c.fail(n, "a perf launch needs a name", "name it after what it is, e.g. {name: decode_b64, ...}");
      if (!names.insert(l.name).second) c.fail(n["name"], "two perf launches are named '" + l.name + "'", "give each perf launch its own name");
    }
    if (n["grid"]) l.grid = dim3(c, n["grid"], "grid");
    if (n["block"]) l.block = dim3(c, n["block"], "block");
    if (n["dynamic_lds"]) l.dynamic_lds = c.as<uint32_t>(n["dynamic_lds"], "dynamic_lds");
    if (n["values"]) {
      if (!n["values"].IsMap()) c.fail(n["values"], "values must map argument names to values");
      for (const auto& kv : n["values"]) {
        size_t i = arg_by_name(c, kv.first, s);
        if (s.args[i].kind != ArgSpec::Value) c.fail(kv.first, "argument '" + kv.first.Scalar() + "' is not a value argument");
        l.values.emplace_back(i, c.as<std::string>(kv.second, "value"));
      }
    }
    if (n["counts"]) {
      if (!n["counts"].IsMap()) c.fail(n["counts"], "counts must map buffer names to element counts");
      for (const auto& kv : n["counts"]) {
        size_t i = arg_by_name(c, kv.first, s);
        if (s.args[i].kind != ArgSpec::Buffer) c.fail(kv.first, "argument '" + kv.first.Scalar() + "' is not a buffer");
        if (s.args[i].init.kind == InitSpec::File) c.fail(kv.first, "the count of a buffer read from a file cannot change");
        l.counts.emplace_back(i, c.as<uint64_t>(kv.second, "count"));
      }
    }
    shapes.push_back(std::move(l));
  }
  return shapes;
}

// The top level with one shape's overrides applied.
LaunchSpec apply_shape(const LaunchSpec& spec, const LaunchShape& l) {
  LaunchSpec s = spec;
  if (l.grid[0]) s.grid = l.grid;
  if (l.block[0]) s.block = l.block;
  if (l.dynamic_lds >= 0) s.dynamic_lds = static_cast<uint32_t>(l.dynamic_lds);
  for (const auto& [idx, text] : l.values) s.args[idx].value = text;
  for (const auto& [idx, count] : l.counts) s.args[idx].count = count;
  return s;
}

uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

// Element types the generators can write, resolved once per chunk (not per element).
enum class Store { F32, F64, F16, BF16, I8, U8, I16, U16, I32, U32, I64, U64, Unsupported };

Store store_kind(const std::string& d) {
  static const std::pair<const char*, Store> kinds[] = {{"f32", Store::F32}, {"f64", Store::F64}, {"f16", Store::F16},
                                                        {"bf16", Store::BF16}, {"i8", Store::I8}, {"u8", Store::U8},
                                                        {"i16", Store::I16}, {"u16", Store::U16}, {"i32", Store::I32},
                                                        {"u32", Store::U32}, {"i64", Store::I64}, {"u64", Store::U64}};
  for (const auto& [name, k] : kinds)
    if (d == name) return k;
  return Store::Unsupported;
}

// f32 -> f16, round to nearest even: the F16C instruction where the host has it (the same bits as the
// compiler's conversion for every non-NaN value, and generators make no NaN), else that conversion,
// a libgcc call that was a tenth of a sampled f16 GEMM's preparation.
#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t f32_to_f16_f16c(float f) { return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT)); }
#endif
uint16_t f32_to_f16(float f) {
#if defined(__x86_64__)
  static const bool f16c = __builtin_cpu_supports("f16c");
  if (f16c && !std::isnan(f)) return f32_to_f16_f16c(f);
#endif
  return std::bit_cast<uint16_t>(static_cast<_Float16>(f));
}

// Eight f32 -> f16 at once (bytes `h`, unaligned), the same bits as f32_to_f16 on each: F16C's packed conversion
// rounds to nearest even as its scalar form does; a block holding a NaN goes value by value (f32_to_f16's NaN
// rule). The per-value call (a target-specific function cannot inline) was most of an f16 input's store (perf on
// bench/timing/sampling_bench, triton/matmul_128_kernel:decode_b64).
#if defined(__x86_64__)
__attribute__((target("f16c,avx"))) bool f32x8_to_f16_f16c(const float* f, uint8_t* h) {
  const __m256 x = _mm256_loadu_ps(f);
  if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q))) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  return true;
}
#endif
void f32x8_to_f16(const float* f, uint8_t* h) {
#if defined(__x86_64__)
  static const bool packed = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  if (packed && f32x8_to_f16_f16c(f, h)) return;
#endif
  for (unsigned j = 0; j < 8; ++j) {
    const uint16_t v = f32_to_f16(f[j]);
    std::memcpy(h + 2 * j, &v, 2);
  }
}

template <class T> void put(uint8_t* b, size_t i, T v) { std::memcpy(b + i * sizeof(T), &v, sizeof(T)); }

// Element i of `b` (elements of type K) set to v.
template <Store K> void store_as(uint8_t* b, size_t i, double v) {
  if constexpr (K == Store::F32) put(b, i, static_cast<float>(v));
  else if constexpr (K == Store::F64) put(b, i, v);
  else if constexpr (K == Store::F16) put(b, i, f32_to_f16(static_cast<float>(v)));
  else if constexpr (K == Store::BF16) put(b, i, f32_to_bf16(static_cast<float>(v)));
  else if constexpr (K == Store::I8) put(b, i, static_cast<int8_t>(std::llround(v)));
  else if constexpr (K == Store::U8) put(b, i, static_cast<uint8_t>(std::llround(v)));
  else if constexpr (K == Store::I16) put(b, i, static_cast<int16_t>(std::llround(v)));
  else if constexpr (K == Store::U16) put(b, i, static_cast<uint16_t>(std::llround(v)));
  else if constexpr (K == Store::I32) put(b, i, static_cast<int32_t>(std::llround(v)));
  else if constexpr (K == Store::U32) put(b, i, static_cast<uint32_t>(std::llround(v)));
  else if constexpr (K == Store::I64) put(b, i, static_cast<int64_t>(std::llround(v)));
  else if constexpr (K == Store::U64) put(b, i, static_cast<uint64_t>(std::llround(v)));
}

// Elements [0, n) of `b` (elements of type k) set to value(0), value(1), ... in order: the type is chosen once per
// chunk, so the generator's draw and the store inline into one loop (a per-element call and switch were a fifth
// of a sampled f16 GEMM's input generation; perf on bench/timing/sampling_bench).
template <class Value> void store_all(uint8_t* b, Store k, size_t n, Value value) {
  auto each = [&]<Store K>() {
    size_t i = 0;
    constexpr bool blocks = requires(double* v) { value.block8(v); };  // value(i) .. value(i + 7) at once
    if constexpr (K == Store::F16 || blocks)  // eight at a time (f16: f32x8_to_f16), drawn in the same order
      for (double v[8]; i + 8 <= n; i += 8) {
        if constexpr (blocks) value.block8(v);
        else
          for (unsigned j = 0; j < 8; ++j) v[j] = value(i + j);
        if constexpr (K == Store::F16) {
          float block[8];
          for (unsigned j = 0; j < 8; ++j) block[j] = static_cast<float>(v[j]);
          f32x8_to_f16(block, b + 2 * i);
        } else {
          for (unsigned j = 0; j < 8; ++j) store_as<K>(b, i + j, v[j]);
        }
      }
    for (; i < n; ++i) store_as<K>(b, i, value(i));
  };
  switch (k) {
    case Store::F32: return each.template operator()<Store::F32>();
    case Store::F64: return each.template operator()<Store::F64>();
    case Store::F16: return each.template operator()<Store::F16>();
    case Store::BF16: return each.template operator()<Store::BF16>();
    case Store::I8: return each.template operator()<Store::I8>();
    case Store::U8: return each.template operator()<Store::U8>();
    case Store::I16: return each.template operator()<Store::I16>();
    case Store::U16: return each.template operator()<Store::U16>();
    case Store::I32: return each.template operator()<Store::I32>();
    case Store::U32: return each.template operator()<Store::U32>();
    case Store::I64: return each.template operator()<Store::I64>();
    case Store::U64: return each.template operator()<Store::U64>();
    case Store::Unsupported: break;  // fill_chunk refuses these before it stores anything
  }
}

}  // namespace

size_t dtype_size(const std::string& d) {
  if (d == "f32" || d == "i32" || d == "u32") return 4;
  if (d == "f16" || d == "bf16" || d == "i16" || d == "u16") return 2;
  if (d == "f64" || d == "i64" || d == "u64") return 8;
  if (d == "i8" || d == "u8" || d == "fp8e4m3fnuz" || d == "fp8e5m2fnuz" || d == "fp8e4m3fn" || d == "fp8e5m2") return 1;
  return 0;
}
bool dtype_is_float(const std::string& d) { return d[0] == 'f' || d[0] == 'b'; }

LaunchSpec parse_launch_spec_text(const std::string& text, const std::string& path) {
  Ctx c{path};
  YAML::Node y;
  try {
    y = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error("malformed YAML: " + e.msg, path + ":" + std::to_string(e.mark.line + 1));
  }
  LaunchSpec s;
  s.path = path;
  c.only_keys(y, {"kernel", "grid", "block", "dynamic_lds", "args", "seed", "inputs", "special", "launches", "perf", "poison"}, "the launch spec");
  auto need = [&](const char* k) {
    if (!y[k]) throw Error(std::string("missing key '") + k + "'", path, "see docs/emulator.md, \"Launch spec\"");
    return y[k];
  };
  s.kernel = c.as<std::string>(need("kernel"), "kernel");
  s.grid = dim3(c, need("grid"), "grid");
  s.block = dim3(c, need("block"), "block");
  if (y["dynamic_lds"]) s.dynamic_lds = c.as<uint32_t>(y["dynamic_lds"], "dynamic_lds");
  if (y["seed"]) s.seed = c.as<uint64_t>(y["seed"], "seed");
  if (y["inputs"]) {
    s.inputs = c.as<unsigned>(y["inputs"], "inputs");
    if (s.inputs < 1 || s.inputs > 1000) c.fail(y["inputs"], "inputs must be between 1 and 1000");
  }
  if (y["special"]) s.special = c.as<bool>(y["special"], "special");
  s.inputs_given = y["inputs"] || y["special"];
  if (y["poison"]) {
    unsigned p = c.as<unsigned>(y["poison"], "poison");
    if (p > 255) c.fail(y["poison"], "poison is one byte (0 to 255)");
    s.poison_override = static_cast<int>(p);
    s.poison = static_cast<uint8_t>(p);
  }
  YAML::Node args = need("args");
  if (!args.IsSequence()) c.fail(args, "args must be a list");
  s.args_line = args.Mark().line + 1;
  for (const auto& n : args) {
    ArgSpec a;
    a.line = n.Mark().line + 1;
    if (!n.IsMap()) c.fail(n, "each argument must be a mapping");
    if (n["name"]) a.name = c.as<std::string>(n["name"], "name");
    if (n["buffer"]) {
      c.only_keys(n, {"name", "buffer", "count", "init", "output", "inout", "compare", "guard", "align", "special", "expect"},
                  "a buffer argument");
      a.kind = ArgSpec::Buffer;
      a.dtype = c.as<std::string>(n["buffer"], "buffer");
      if (dtype_size(a.dtype) == 0) c.fail(n["buffer"], "unknown buffer type '" + a.dtype + "'");
      if (!n["count"]) c.fail(n, "buffer argument needs count");
      a.count = c.as<uint64_t>(n["count"], "count");
      if (n["init"]) a.init = init_spec(c, n["init"]);
      bool output = n["output"] && c.as<bool>(n["output"], "output");
      bool inout = n["inout"] && c.as<bool>(n["inout"], "inout");
      if (output && inout) c.fail(n, "a buffer is either output: true or inout: true, not both");
      if (output && n["init"])
        c.fail(n["init"], "an output buffer is poisoned before every run, so init has no effect",
               "drop init, or use inout: true if the kernel reads the buffer's initial contents");
      a.direction = output ? ArgSpec::Output : inout ? ArgSpec::InOut : ArgSpec::Input;
      if (n["compare"]) {
        if (a.direction == ArgSpec::Input)
          c.fail(n["compare"], "compare applies to output and inout buffers; an input buffer must stay unchanged bit for bit");
        a.compare = compare_spec(c, n["compare"], a.dtype);
      }
      if (n["guard"]) a.guard = c.as<uint64_t>(n["guard"], "guard");
      if (a.guard > (1u << 20)) c.fail(n["guard"], "guard must be at most 1 MiB");
      if (n["align"]) {
        a.align = c.as<uint64_t>(n["align"], "align");
        if (a.align == 0 || (a.align & (a.align - 1)) || a.align > 65536)
          c.fail(n["align"], "align must be a power of two between 1 and 65536");
      }
      if (n["special"]) a.special = c.as<bool>(n["special"], "special");
      if (n["expect"]) {
        if (a.direction == ArgSpec::Input) c.fail(n["expect"], "expect applies to output and inout buffers");
        std::filesystem::path p = c.as<std::string>(n["expect"], "expect");
        a.expect = p.is_relative() && c.path != "<string>" ? (std::filesystem::path(c.path).parent_path() / p).string() : p.string();
      }
    } else if (n["value"]) {
      c.only_keys(n, {"name", "value", "type", "vary"}, "a value argument");
      a.kind = ArgSpec::Value;
      if (!n["type"]) c.fail(n, "value argument needs type");
      a.dtype = c.as<std::string>(n["type"], "type");
      // `pad`: zero bytes filling a by-value argument of any size (AITer's 12-byte struct padding)
      static const std::set<std::string> ok{"i32", "u32", "i64", "u64", "f32", "f16", "f64", "i16", "u16", "i8", "u8", "bf16", "pad"};
      if (!ok.count(a.dtype)) c.fail(n["type"], "unknown value type '" + a.dtype + "'");
      a.value = c.as<std::string>(n["value"], "value");
      if (n["vary"]) {
        const YAML::Node& v = n["vary"];
        if (!v.IsSequence() || v.size() != 2 || a.dtype.find('f') != std::string::npos || a.dtype == "pad")
          c.fail(v, "vary takes [lo, hi] for an integer value argument", "e.g. vary: [1, 781]: verify adds boundary launches in that range");
        a.vary = {{c.as<int64_t>(v[0], "vary"), c.as<int64_t>(v[1], "vary")}};
        if (a.vary->first > a.vary->second) c.fail(v, "vary: lo must not exceed hi");
      }
    } else if (n["pointer"]) {
      c.only_keys(n, {"name", "pointer"}, "a pointer argument");
      if (!n["pointer"].IsNull()) c.fail(n["pointer"], "only {pointer: null} is supported");
      a.kind = ArgSpec::NullPointer;
      a.dtype = "u64";
    } else {
      c.fail(n, "argument is neither {buffer: ...}, {value: ...} nor {pointer: null}");
    }
    s.args.push_back(std::move(a));
  }
  if (y["launches"]) s.launches = launch_shapes(c, y["launches"], s, "launches");
  if (y["perf"]) s.perf = launch_shapes(c, y["perf"], s, "perf");
  // Check values now so errors carry the line.
  for (size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].kind == ArgSpec::Value) {
      try {
        (void)scalar_bits(s, i);
      } catch (const std::exception&) {
        throw Error("value '" + s.args[i].value + "' is not a valid " + s.args[i].dtype, path + ":" + std::to_string(s.args[i].line));
      }
    }
  std::vector<const LaunchShape*> shapes;
  for (const auto& shape : s.launches) shapes.push_back(&shape);
  for (const auto& shape : s.perf) shapes.push_back(&shape);
  for (const LaunchShape* shape : shapes)
    for (const auto& [idx, text] : shape->values) {
      LaunchSpec probe = s;
      probe.args[idx].value = text;
      try {
        (void)scalar_bits(probe, idx);
      } catch (const std::exception&) {
        throw Error("value '" + text + "' is not a valid " + s.args[idx].dtype, path + ":" + std::to_string(shape->line));
      }
    }
  return s;
}

LaunchSpec load_launch_spec(const std::string& path) { return parse_launch_spec_text(read_file_text(path), path); }

uint64_t scalar_bits(const LaunchSpec& spec, size_t idx) {
  const ArgSpec& a = spec.args.at(idx);
  if (a.kind == ArgSpec::NullPointer) return 0;
  const std::string& t = a.dtype;
  const std::string& v = a.value;
  if (t == "pad") {
    if (v != "0") throw Error("a pad argument holds zero bytes: its value must be 0, not " + v);
    return 0;
  }
  size_t pos = 0;
  uint64_t r = 0;
  if (t == "f32") r = std::bit_cast<uint32_t>(std::stof(v, &pos));
  else if (t == "f64") r = std::bit_cast<uint64_t>(std::stod(v, &pos));
  else if (t == "f16") r = std::bit_cast<uint16_t>(static_cast<_Float16>(std::stof(v, &pos)));
  else if (t == "bf16") r = f32_to_bf16(std::stof(v, &pos));
  else if (t == "i32" || t == "i16" || t == "i8") r = static_cast<uint64_t>(std::stoll(v, &pos, 0)) & (~0ull >> (64 - 8 * dtype_size(t)));
  else if (t == "u32" || t == "u16" || t == "u8") r = std::stoull(v, &pos, 0) & (~0ull >> (64 - 8 * dtype_size(t)));
  else if (t == "i64") r = static_cast<uint64_t>(std::stoll(v, &pos, 0));
  else if (t == "u64") r = std::stoull(v, &pos, 0);
  else throw Error("unsupported scalar type " + t);
  if (pos != v.size()) throw Error("trailing characters in value " + v);
  return r;
}

namespace {

// Edge values of a dtype as raw little-endian bits: signed zeros, infinities, a quiet NaN, the
// smallest and largest denormals, the largest finite and smallest normal numbers, +-1. Integers:
// the ends of the declared {ints: [lo, hi]} range (a buffer of indices or sizes must stay in its
// domain), otherwise the type's extremes, 0 and +-1.
std::vector<uint64_t> edge_values(const ArgSpec& a) {
  const std::string& d = a.dtype;
  if (d == "f32")
    return {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x80000001,
            0x007fffff, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x3f800000, 0xbf800000};
  if (d == "f16") return {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff, 0x0400, 0x3c00, 0xbc00};
  if (d == "bf16") return {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001, 0x007f, 0x7f7f, 0xff7f, 0x0080, 0x3f80, 0xbf80};
  if (d == "f64")
    return {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 1,
            0x8000000000000001ull, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
            0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull};
  if (!dtype_is_float(d)) {
    const unsigned bits = 8 * static_cast<unsigned>(dtype_size(d));
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (a.init.kind == InitSpec::Ints) {
      auto lo = static_cast<int64_t>(a.init.a), hi = static_cast<int64_t>(a.init.b);
      return {static_cast<uint64_t>(lo) & mask, static_cast<uint64_t>(hi) & mask,
              static_cast<uint64_t>(std::min(lo + 1, hi)) & mask, static_cast<uint64_t>(std::max(hi - 1, lo)) & mask};
    }
    const bool is_signed = d[0] == 'i';
    const uint64_t max = is_signed ? mask >> 1 : mask, min = is_signed ? (mask >> 1) + 1 : 0;
    return {min, max, 0, 1, mask /* -1 or the unsigned max */};
  }
  return {};  // fp8: only file inputs, which are never mixed
}

}  // namespace

std::string CompareSpec::str() const {
  if (kind == Ulp) return "{ulp: " + std::to_string(ulp) + "}";
  if (kind == Tolerance) return fmt::format("{{rtol: {}, atol: {}}}", rtol, atol);
  return "exact";
}

bool LaunchSpec::has_outputs() const {
  for (const auto& a : args)
    if (a.compared()) return true;
  return false;
}

std::vector<LaunchSpec> expand_runs(const LaunchSpec& spec) {
  std::vector<LaunchSpec> shapes;
  if (spec.launches.empty()) shapes.push_back(spec);
  for (size_t i = 0; i < spec.launches.size(); ++i) {
    const LaunchShape& l = spec.launches[i];
    LaunchSpec s = apply_shape(spec, l);
    s.label = "launch " + (l.name.empty() ? std::to_string(i) : l.name);
    shapes.push_back(std::move(s));
  }
  std::vector<LaunchSpec> runs;
  for (auto& shape : shapes) {
    shape.launches.clear();
    shape.perf.clear();  // perf launches are runs of their own (perf_runs)
    const unsigned sets = shape.inputs + (shape.special ? 2 : 0);
    for (unsigned k = 0; k < sets; ++k) {
      LaunchSpec r = shape;
      r.inputs = 1;
      r.special = false;
      const bool special = k >= shape.inputs;
      r.seed = spec.seed + k;
      r.special_variant = special ? static_cast<int>(k - shape.inputs) : -1;
      r.poison = spec.poison_override >= 0 ? static_cast<uint8_t>(spec.poison_override)
                 : runs.size() % 2              ? 0xA5
                                                : 0xFF;  // NaN / -1 in every width, then an unlikely pattern
      std::string set = special ? fmt::format("special input set {}", k - shape.inputs) : fmt::format("input set {}", k);
      r.label = shape.label.empty() ? set : shape.label + ", " + set;
      runs.push_back(std::move(r));
    }
  }
  return runs;
}

std::vector<LaunchSpec> perf_runs(const LaunchSpec& spec) {
  std::vector<LaunchSpec> out;
  if (spec.perf.empty()) {
    LaunchSpec r = expand_runs(spec).at(0);
    r.perf_fallback = true;
    r.perf_name = spec.launches.empty() ? "top level" : spec.launches[0].name.empty() ? "launch 0" : spec.launches[0].name;
    out.push_back(std::move(r));
    return out;
  }
  for (const LaunchShape& l : spec.perf) {
    LaunchSpec r = apply_shape(spec, l);
    r.launches.clear();
    r.perf.clear();
    r.inputs = 1;
    r.special = false;
    r.special_variant = -1;
    r.poison = spec.poison_override >= 0 ? static_cast<uint8_t>(spec.poison_override) : 0xFF;
    r.perf_name = l.name;
    r.perf_line = l.line;
    r.label = "perf " + l.name;
    out.push_back(std::move(r));
  }
  return out;
}

LaunchSpec perf_run(const LaunchSpec& spec, const std::string& name) {
  std::string names;
  for (LaunchSpec& r : perf_runs(spec)) {
    if (r.perf_name == name) return r;
    names += (names.empty() ? "" : ", ") + r.perf_name;
  }
  if (spec.perf.empty())
    throw Error("no perf launch named '" + name + "': the spec has no perf: list", spec.path,
                "add a perf: list (docs/emulator.md, \"Launch spec\"), or leave --perf out to time the first verification launch");
  throw Error("no perf launch named '" + name + "'", spec.path, "perf launches in this spec: " + names);
}

std::string perf_description(const LaunchSpec& r) {
  if (r.perf_fallback)
    return fmt::format("the first verification launch ('{}', {}; the spec has no perf: list)", r.perf_name, r.path);
  return fmt::format("perf launch '{}' ({}:{})", r.perf_name, r.path, r.perf_line);
}

std::string shape_text(const LaunchSpec& r) {
  return fmt::format("grid [{}, {}, {}] x block [{}, {}, {}]", r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2]);
}

std::vector<uint8_t> initial_buffer(const LaunchSpec& spec, size_t idx);  // from init only, below

std::vector<uint8_t> make_buffer(const LaunchSpec& spec, size_t idx) {
  const ArgSpec& s = spec.args.at(idx);
  size_t esz = dtype_size(s.dtype);
  if (s.direction == ArgSpec::Output) return std::vector<uint8_t>(s.count * esz, spec.poison);
  std::vector<uint8_t> b = initial_buffer(spec, idx);
  if (spec.special_variant < 0 || !s.special || s.init.kind == InitSpec::File || s.init.kind == InitSpec::Bytes) return b;
  std::vector<uint64_t> edges = edge_values(s);
  if (edges.empty()) return b;
  // Variant 0 replaces about a quarter of the elements, variant 1 about one in 64, so that
  // reductions see rows both dominated by and sprinkled with edge values.
  const uint64_t one_in = spec.special_variant == 0 ? 4 : 64;
  std::mt19937_64 rng(spec.seed * 7919u + idx * 104729u + static_cast<uint64_t>(spec.special_variant) + 1);
  for (size_t i = 0; i < s.count; ++i) {
    uint64_t r = rng();
    if (r % one_in) continue;
    uint64_t v = edges[(r / one_in) % edges.size()];
    std::memcpy(b.data() + i * esz, &v, esz);  // little-endian: the low esz bytes
  }
  // Variant 1 also repeats values (about one element in 8 copies one of the 64 before it, so the
  // copies land in the same row of most row-wise kernels): comparisons meet ties (lt vs le, first
  // vs last maximum).
  if (spec.special_variant == 1)
    for (size_t i = 1; i < s.count; ++i) {
      uint64_t r = rng();
      if (r % 8 == 0) std::memmove(b.data() + i * esz, b.data() + (i - 1 - (r / 8) % std::min<size_t>(i, 64)) * esz, esz);
    }
  return b;
}

std::vector<uint8_t> initial_buffer(const LaunchSpec& spec, size_t idx) {
  const ArgSpec& s = spec.args.at(idx);
  size_t esz = dtype_size(s.dtype);
  std::vector<uint8_t> b(s.count * esz, 0);
  const std::string where = spec.path + ":" + std::to_string(s.line);
  if (s.init.kind == InitSpec::Bytes) {
    if (!s.init.bytes || s.init.bytes->size() != b.size())
      throw Error("explicit contents do not match the buffer's size", where, {}, kExitInternal);
    return *s.init.bytes;
  }
  if (s.init.kind == InitSpec::File) {
    NpyArray a = read_npy(s.init.file);
    if (a.data.size() != b.size())
      throw Error("file " + s.init.file + " holds " + std::to_string(a.data.size()) + " bytes, the buffer needs " +
                      std::to_string(b.size()) + " (" + std::to_string(s.count) + " x " + s.dtype + ")",
                  where);
    if (a.element_size != esz) throw Error("file " + s.init.file + " has elements of " + std::to_string(a.element_size) + " bytes, " + s.dtype + " needs " + std::to_string(esz), where);
    return a.data;
  }
  if (s.init.kind == InitSpec::Zeros) return b;
  for (uint64_t c = 0; c * kInitChunkBytes < b.size(); ++c) {
    const uint64_t start = c * kInitChunkBytes;
    fill_chunk(spec, idx, c, std::span<uint8_t>(b).subspan(start, std::min<uint64_t>(kInitChunkBytes, b.size() - start)));
  }
  return b;
}

namespace {

// The seed of chunk `chunk` of buffer `idx`: chunk 0 keeps the seed the whole buffer had before
// inputs were made by chunks, so buffers of at most one chunk (every verification launch's) hold
// the same values as before; the others are splitmix64-mixed from it.
uint64_t chunk_seed(const LaunchSpec& spec, size_t idx, uint64_t chunk) {
  uint64_t x = spec.seed * 1000003u + idx;
  if (chunk == 0) return x;
  x += chunk * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

bool buffer_fills_by_chunk(const LaunchSpec& spec, size_t idx) {
  const ArgSpec& s = spec.args.at(idx);
  if (s.kind != ArgSpec::Buffer) return false;
  if (s.direction == ArgSpec::Output) return true;
  if (s.init.kind == InitSpec::File || s.init.kind == InitSpec::Bytes) return false;
  if (spec.special_variant >= 0 && s.special && !edge_values(s).empty()) return false;  // edge values move across chunks
  return s.init.kind == InitSpec::Zeros || store_kind(s.dtype) != Store::Unsupported;  // else the eager fill says why not
}

void fill_chunk(const LaunchSpec& spec, size_t idx, uint64_t chunk, std::span<uint8_t> out) {
  const ArgSpec& s = spec.args.at(idx);
  if (s.direction == ArgSpec::Output) {
    std::memset(out.data(), spec.poison, out.size());
    return;
  }
  const size_t esz = dtype_size(s.dtype);
  if (s.init.kind == InitSpec::Zeros || esz == 0) {
    std::memset(out.data(), 0, out.size());
    return;
  }
  const Store kind = store_kind(s.dtype);
  if (kind == Store::Unsupported)
    throw Error("initialising " + s.dtype + " buffers from generators is not supported yet", spec.path + ":" + std::to_string(s.line),
                "use {file: x.npy}");
  const size_t n = out.size() / esz;
  if (s.init.kind == InitSpec::Constant) return store_all(out.data(), kind, n, [&](size_t) { return s.init.a; });
  const double lo = s.init.a, hi = s.init.b;
  if (chunk == 0) {  // the standard library's generators: the values every buffer of one chunk always had
    std::mt19937_64 rng(chunk_seed(spec, idx, chunk));
    std::normal_distribution<double> normal(lo, s.init.kind == InitSpec::Normal ? hi : 1.0);
    std::uniform_real_distribution<double> uni(lo, s.init.kind == InitSpec::Uniform ? hi : lo + 1);
    std::uniform_int_distribution<int64_t> ints(static_cast<int64_t>(lo), s.init.kind == InitSpec::Ints ? static_cast<int64_t>(hi) : static_cast<int64_t>(lo));
    return store_all(out.data(), kind, n, [&](size_t) {
      return s.init.kind == InitSpec::Normal ? normal(rng) : s.init.kind == InitSpec::Uniform ? uni(rng) : static_cast<double>(ints(rng));
    });
  }
  // Later chunks (buffers over 64 KiB: perf launches): the same distributions from a generator about
  // 5x faster (emu/fast_random.h), which a sampled timing run of a large GEMM spends most of its
  // preparation in.
  FastRandom rng(chunk_seed(spec, idx, chunk));
  switch (s.init.kind) {
    case InitSpec::Normal: {
      // lo + hi * normal(), one by one or eight at a time (normal8) in the same order: block8 draws while `one` holds
      // no draws ahead, as store_all takes blocks before single values.
      struct Values {
        FastRandom& rng;
        NormalDraws one;
        double lo, hi;
        double operator()(size_t) { return lo + hi * one.next(); }
        void block8(double* v) {
          rng.normal8(v);
          for (unsigned j = 0; j < 8; ++j) v[j] = lo + hi * v[j];
        }
      } values{rng, NormalDraws(rng), lo, hi};
      return store_all(out.data(), kind, n, values);
    }
    case InitSpec::Uniform: return store_all(out.data(), kind, n, [&](size_t) { return lo + (hi - lo) * rng.uniform(); });
    case InitSpec::Ints:
      return store_all(out.data(), kind, n, [&](size_t) {
        return static_cast<double>(rng.integer(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
      });
    default: return store_all(out.data(), kind, n, [](size_t) { return 0.0; });
  }
}

uint32_t guard_salt(const LaunchSpec& run, size_t arg_index) {
  uint64_t x = run.seed * 0x9E3779B97F4A7C15ull + arg_index * 0xC2B2AE3D27D4EB4Full + run.poison;
  x ^= x >> 29;
  return static_cast<uint32_t>(x ^ (x >> 32));
}

}  // namespace asmevo::emu
