#include "emu/launch_spec.h"

#include <yaml-cpp/yaml.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
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
    throw Error(what, where(n), fix.empty() ? "see docs/emulator.md, \"Launch spec v1\"" : fix);
  }
  template <class T> T as(const YAML::Node& n, const std::string& what) const {
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

uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

template <class T> void put(std::vector<uint8_t>& b, size_t i, T v) { std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T)); }

void store(std::vector<uint8_t>& b, const std::string& d, size_t i, double v) {
  if (d == "f32") put(b, i, static_cast<float>(v));
  else if (d == "f64") put(b, i, v);
  else if (d == "f16") put(b, i, std::bit_cast<uint16_t>(static_cast<_Float16>(static_cast<float>(v))));
  else if (d == "bf16") put(b, i, f32_to_bf16(static_cast<float>(v)));
  else if (d == "i8") put(b, i, static_cast<int8_t>(std::llround(v)));
  else if (d == "u8") put(b, i, static_cast<uint8_t>(std::llround(v)));
  else if (d == "i16") put(b, i, static_cast<int16_t>(std::llround(v)));
  else if (d == "u16") put(b, i, static_cast<uint16_t>(std::llround(v)));
  else if (d == "i32") put(b, i, static_cast<int32_t>(std::llround(v)));
  else if (d == "u32") put(b, i, static_cast<uint32_t>(std::llround(v)));
  else if (d == "i64") put(b, i, static_cast<int64_t>(std::llround(v)));
  else if (d == "u64") put(b, i, static_cast<uint64_t>(std::llround(v)));
  else throw Error("initialising " + d + " buffers from generators is not supported yet", {}, "use {file: x.npy}");
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
  c.only_keys(y, {"kernel", "grid", "block", "dynamic_lds", "args", "seed"}, "the launch spec");
  auto need = [&](const char* k) {
    if (!y[k]) throw Error(std::string("missing key '") + k + "'", path, "see docs/emulator.md, \"Launch spec v1\"");
    return y[k];
  };
  s.kernel = c.as<std::string>(need("kernel"), "kernel");
  s.grid = dim3(c, need("grid"), "grid");
  s.block = dim3(c, need("block"), "block");
  if (y["dynamic_lds"]) s.dynamic_lds = c.as<uint32_t>(y["dynamic_lds"], "dynamic_lds");
  if (y["seed"]) s.seed = c.as<uint64_t>(y["seed"], "seed");
  YAML::Node args = need("args");
  if (!args.IsSequence()) c.fail(args, "args must be a list");
  s.args_line = args.Mark().line + 1;
  for (const auto& n : args) {
    ArgSpec a;
    a.line = n.Mark().line + 1;
    if (!n.IsMap()) c.fail(n, "each argument must be a mapping");
    if (n["name"]) a.name = c.as<std::string>(n["name"], "name");
    if (n["buffer"]) {
      c.only_keys(n, {"name", "buffer", "count", "init"}, "a buffer argument");
      a.kind = ArgSpec::Buffer;
      a.dtype = c.as<std::string>(n["buffer"], "buffer");
      if (dtype_size(a.dtype) == 0) c.fail(n["buffer"], "unknown buffer type '" + a.dtype + "'");
      if (!n["count"]) c.fail(n, "buffer argument needs count");
      a.count = c.as<uint64_t>(n["count"], "count");
      if (n["init"]) a.init = init_spec(c, n["init"]);
    } else if (n["value"]) {
      c.only_keys(n, {"name", "value", "type"}, "a value argument");
      a.kind = ArgSpec::Value;
      if (!n["type"]) c.fail(n, "value argument needs type");
      a.dtype = c.as<std::string>(n["type"], "type");
      static const std::set<std::string> ok{"i32", "u32", "i64", "u64", "f32", "f16", "f64", "i16", "u16", "i8", "u8", "bf16"};
      if (!ok.count(a.dtype)) c.fail(n["type"], "unknown value type '" + a.dtype + "'");
      a.value = c.as<std::string>(n["value"], "value");
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
  // Check values now so errors carry the line.
  for (size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].kind == ArgSpec::Value) {
      try {
        (void)scalar_bits(s, i);
      } catch (const std::exception&) {
        throw Error("value '" + s.args[i].value + "' is not a valid " + s.args[i].dtype, path + ":" + std::to_string(s.args[i].line));
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

std::vector<uint8_t> make_buffer(const LaunchSpec& spec, size_t idx) {
  const ArgSpec& s = spec.args.at(idx);
  size_t esz = dtype_size(s.dtype);
  std::vector<uint8_t> b(s.count * esz, 0);
  const std::string where = spec.path + ":" + std::to_string(s.line);
  if (s.init.kind == InitSpec::File) {
    NpyArray a = read_npy(s.init.file);
    if (a.data.size() != b.size())
      throw Error("file " + s.init.file + " holds " + std::to_string(a.data.size()) + " bytes, the buffer needs " +
                      std::to_string(b.size()) + " (" + std::to_string(s.count) + " x " + s.dtype + ")",
                  where);
    if (a.element_size != esz) throw Error("file " + s.init.file + " has elements of " + std::to_string(a.element_size) + " bytes, " + s.dtype + " needs " + std::to_string(esz), where);
    return a.data;
  }
  std::mt19937_64 rng(spec.seed * 1000003u + idx);
  std::normal_distribution<double> normal(s.init.a, s.init.kind == InitSpec::Normal ? s.init.b : 1.0);
  std::uniform_real_distribution<double> uni(s.init.a, s.init.kind == InitSpec::Uniform ? s.init.b : s.init.a + 1);
  std::uniform_int_distribution<int64_t> ints(static_cast<int64_t>(s.init.a),
                                              s.init.kind == InitSpec::Ints ? static_cast<int64_t>(s.init.b) : static_cast<int64_t>(s.init.a));
  for (size_t i = 0; i < s.count; ++i) {
    double v = 0;
    switch (s.init.kind) {
      case InitSpec::Zeros: continue;
      case InitSpec::Constant: v = s.init.a; break;
      case InitSpec::Normal: v = normal(rng); break;
      case InitSpec::Uniform: v = uni(rng); break;
      case InitSpec::Ints: v = static_cast<double>(ints(rng)); break;
      case InitSpec::File: break;
    }
    try {
      store(b, s.dtype, i, v);
    } catch (const Error& e) {
      throw Error(e.what_text(), where, e.fix());
    }
  }
  return b;
}

}  // namespace asmevo::emu
