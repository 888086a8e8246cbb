#include "tests/corpus/launch_spec.h"

#include <yaml-cpp/yaml.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

namespace asmevo::corpus::test {
namespace {

Dim3 dim3(const YAML::Node& n, const std::string& what) {
  if (!n || !n.IsSequence() || n.size() != 3) throw std::runtime_error(what + " must be [x, y, z]");
  return Dim3{n[0].as<uint32_t>(), n[1].as<uint32_t>(), n[2].as<uint32_t>()};
}

InitSpec init_spec(const YAML::Node& n) {
  InitSpec s;
  if (!n || (n.IsScalar() && n.as<std::string>() == "zeros")) return s;
  if (!n.IsMap() || n.size() != 1) throw std::runtime_error("bad init");
  auto kv = *n.begin();
  std::string k = kv.first.as<std::string>();
  const YAML::Node& v = kv.second;
  auto pair = [&](InitSpec::Kind kind) {
    if (!v.IsSequence() || v.size() != 2) throw std::runtime_error("init " + k + " needs [a, b]");
    s.kind = kind;
    s.a = v[0].as<double>();
    s.b = v[1].as<double>();
  };
  if (k == "normal") pair(InitSpec::Normal);
  else if (k == "uniform") pair(InitSpec::Uniform);
  else if (k == "ints") pair(InitSpec::Ints);
  else if (k == "constant") s.kind = InitSpec::Constant, s.a = v.as<double>();
  else throw std::runtime_error("unknown init " + k);
  return s;
}

template <class T> void put(std::vector<uint8_t>& bytes, size_t i, T v) { std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T)); }

void store(HostArg& a, size_t i, double v) {
  const std::string& d = a.dtype;
  if (d == "f32") put(a.bytes, i, static_cast<float>(v));
  else if (d == "f64") put(a.bytes, i, v);
  else if (d == "f16") put(a.bytes, i, f32_to_f16(static_cast<float>(v)));
  else if (d == "bf16") put(a.bytes, i, f32_to_bf16(static_cast<float>(v)));
  else if (d == "i8") put(a.bytes, i, static_cast<int8_t>(std::llround(v)));
  else if (d == "u8") put(a.bytes, i, static_cast<uint8_t>(std::llround(v)));
  else if (d == "i16") put(a.bytes, i, static_cast<int16_t>(std::llround(v)));
  else if (d == "u16") put(a.bytes, i, static_cast<uint16_t>(std::llround(v)));
  else if (d == "i32") put(a.bytes, i, static_cast<int32_t>(std::llround(v)));
  else if (d == "u32") put(a.bytes, i, static_cast<uint32_t>(std::llround(v)));
  else if (d == "i64") put(a.bytes, i, static_cast<int64_t>(std::llround(v)));
  else if (d == "u64") put(a.bytes, i, static_cast<uint64_t>(std::llround(v)));
  else throw std::runtime_error("unknown dtype " + d);
}

}  // namespace

LaunchSpec load_launch_spec(const std::filesystem::path& path) {
  try {
    YAML::Node y = YAML::LoadFile(path.string());
    LaunchSpec s;
    s.kernel = y["kernel"].as<std::string>();
    s.grid = dim3(y["grid"], "grid");
    s.block = dim3(y["block"], "block");
    s.dynamic_lds = y["dynamic_lds"].as<uint32_t>();
    s.seed = y["seed"].as<uint64_t>();
    for (const auto& n : y["args"]) {
      ArgSpec a;
      a.name = n["name"].as<std::string>();
      if (n["buffer"]) {
        a.is_buffer = true;
        a.dtype = n["buffer"].as<std::string>();
        a.count = n["count"].as<uint64_t>();
        a.init = init_spec(n["init"]);
      } else if (n["value"]) {
        a.dtype = n["type"].as<std::string>();
        a.value = n["value"].as<std::string>();
      } else {
        throw std::runtime_error("argument " + a.name + " is neither a buffer nor a value");
      }
      if (dtype_size(a.dtype) == 0) throw std::runtime_error("argument " + a.name + ": unknown type " + a.dtype);
      s.args.push_back(std::move(a));
    }
    return s;
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

std::vector<HostArg> make_args(const LaunchSpec& spec) {
  std::vector<HostArg> out;
  for (size_t idx = 0; idx < spec.args.size(); ++idx) {
    const ArgSpec& s = spec.args[idx];
    HostArg a;
    a.dtype = s.dtype;
    if (s.is_buffer) {
      a.is_buffer = true;
      a.bytes.assign(s.count * dtype_size(s.dtype), 0);
      std::mt19937_64 rng(spec.seed * 1000003u + idx);
      for (size_t i = 0; i < s.count; ++i) {
        double v = 0;
        switch (s.init.kind) {
          case InitSpec::Zeros: v = 0; break;
          case InitSpec::Constant: v = s.init.a; break;
          case InitSpec::Normal: v = std::normal_distribution<double>(s.init.a, s.init.b)(rng); break;
          case InitSpec::Uniform: v = std::uniform_real_distribution<double>(s.init.a, s.init.b)(rng); break;
          case InitSpec::Ints:
            v = static_cast<double>(std::uniform_int_distribution<int64_t>(static_cast<int64_t>(s.init.a),
                                                                           static_cast<int64_t>(s.init.b))(rng));
            break;
        }
        store(a, i, v);
      }
    } else {
      const std::string& t = s.dtype;
      if (t == "f32") a.bits = std::bit_cast<uint32_t>(std::stof(s.value));
      else if (t == "f64") a.bits = std::bit_cast<uint64_t>(std::stod(s.value));
      else if (t == "i32") a.bits = static_cast<uint32_t>(static_cast<int32_t>(std::stol(s.value)));
      else if (t == "u32") a.bits = static_cast<uint32_t>(std::stoul(s.value));
      else if (t == "i64") a.bits = static_cast<uint64_t>(std::stoll(s.value));
      else if (t == "u64") a.bits = std::stoull(s.value);
      else throw std::runtime_error("unsupported scalar type " + t);
    }
    out.push_back(std::move(a));
  }
  return out;
}

double element(const HostArg& a, size_t i) {
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, a.bytes.data() + i * sizeof(v), sizeof(v));
    return v;
  };
  const std::string& d = a.dtype;
  if (d == "f32") return get(float{});
  if (d == "f64") return get(double{});
  if (d == "f16") return f16_to_f32(get(uint16_t{}));
  if (d == "bf16") return bf16_to_f32(get(uint16_t{}));
  if (d == "i8") return get(int8_t{});
  if (d == "u8") return get(uint8_t{});
  if (d == "i16") return get(int16_t{});
  if (d == "u16") return get(uint16_t{});
  if (d == "i32") return get(int32_t{});
  if (d == "u32") return get(uint32_t{});
  if (d == "i64") return static_cast<double>(get(int64_t{}));
  if (d == "u64") return static_cast<double>(get(uint64_t{}));
  throw std::runtime_error("unknown dtype " + d);
}

}  // namespace asmevo::corpus::test
