#include "tests/corpus/launch_spec.h"

#include <cstring>
#include <stdexcept>

#include "emu/launch_spec.h"
#include "support/error.h"

// Launch specs are read with the product's own parser (emu/launch_spec.h) and buffers filled by its
// generators, so references and the CPU stand-in see exactly the inputs the emulator gets.
namespace asmevo::corpus::test {
namespace {

Dim3 dim3(const std::array<uint32_t, 3>& d) { return Dim3{d[0], d[1], d[2]}; }

}  // namespace

LaunchSpec load_launch_spec(const std::filesystem::path& path) {
  emu::LaunchSpec e;
  try {
    e = emu::load_launch_spec(path.string());
  } catch (const asmevo::Error& err) {
    throw std::runtime_error(err.format());
  }
  LaunchSpec s;
  s.kernel = e.kernel;
  s.grid = dim3(e.grid);
  s.block = dim3(e.block);
  s.dynamic_lds = e.dynamic_lds;
  s.seed = e.seed;
  s.source = std::make_shared<emu::LaunchSpec>(e);
  for (const auto& a : e.args) {
    ArgSpec t;
    t.name = a.name;
    t.is_buffer = a.kind == emu::ArgSpec::Buffer;
    t.dtype = a.dtype;
    t.count = a.count;
    t.value = a.value;
    s.args.push_back(t);
  }
  return s;
}

std::vector<HostArg> make_args(const LaunchSpec& spec) {
  std::vector<HostArg> out;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    HostArg h;
    h.is_buffer = spec.args[i].is_buffer;
    h.dtype = spec.args[i].dtype;
    if (h.is_buffer)
      h.bytes = emu::make_buffer(*spec.source, i);
    else if (spec.source->args[i].kind == emu::ArgSpec::Value)
      h.bits = emu::scalar_bits(*spec.source, i);
    out.push_back(std::move(h));
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
