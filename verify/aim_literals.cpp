#include "verify/aim_literals.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>

#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {
namespace {

bool float_buffer(const std::string& dtype) { return dtype == "f32" || dtype == "f16" || dtype == "bf16"; }

// The positive magnitudes among the constants that `dtype` holds exactly (0 kept: it is a value
// too), ascending.
std::vector<double> exact_magnitudes(const std::string& dtype, const std::set<uint32_t>& literal_bits) {
  std::set<double> out;
  for (uint32_t b : literal_bits) {
    const double v = std::fabs(static_cast<double>(std::bit_cast<float>(b)));
    if (!std::isfinite(v)) continue;
    auto e = element_from_number(dtype, v);
    if (e && element_number(dtype, *e) == v) out.insert(v);
  }
  return {out.begin(), out.end()};
}

}  // namespace

std::vector<LiteralSet> literal_sets(const emu::LaunchSpec& base, const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                     const std::set<uint32_t>& literal_bits) {
  struct Buffer {
    size_t arg;
    std::vector<double> magnitudes;
  };
  std::vector<Buffer> buffers;
  for (size_t a = 0; a < base.args.size() && a < inputs.size(); ++a) {
    const emu::ArgSpec& arg = base.args[a];
    if (!inputs[a] || inputs[a]->empty() || !arg.special || !float_buffer(arg.dtype)) continue;
    std::vector<double> m = exact_magnitudes(arg.dtype, literal_bits);
    // Only 0 or a single value would be a constant buffer: no row shape worth a run.
    if (m.size() >= 2) buffers.push_back({a, std::move(m)});
  }
  std::vector<LiteralSet> out;
  for (unsigned c = 0; c < kLiteralCeilings; ++c) {
    LiteralSet set;
    set.run = base;
    set.run.special_variant = -1;
    set.run.poison = c % 2 ? 0xA5 : 0xFF;
    std::string filled;
    for (const Buffer& buf : buffers) {
      if (c >= buf.magnitudes.size() - 1) continue;  // keep at least two values below the ceiling
      const emu::ArgSpec& arg = base.args[buf.arg];
      const double ceiling = buf.magnitudes[buf.magnitudes.size() - 1 - c];
      const std::vector<double> allowed(buf.magnitudes.begin(), buf.magnitudes.end() - c);
      std::vector<uint8_t> bytes = *inputs[buf.arg];
      const uint64_t n = bytes.size() / element_bytes(arg.dtype);
      // Element 0 takes the ceiling, so even a one-element row has its largest magnitude a constant.
      for (uint64_t e = 0; e < n; ++e) {
        const uint64_t h = mix(e * 0x9E3779B97F4A7C15ull + buf.arg * 0x632BE59BD9B4E019ull + c);
        const double v = e == 0 ? ceiling : allowed[(h >> 1) % allowed.size()];
        if (auto b = element_from_number(arg.dtype, h & 1 ? -v : v)) set_element_bits(bytes, arg.dtype, e, *b);
      }
      set_input_bytes(set.run.args[buf.arg], std::move(bytes));
      const std::string name = arg_label(arg, buf.arg);
      filled += fmt::format("{}{} ({} constants up to {:g})", filled.empty() ? "" : ", ", name, allowed.size(), ceiling);
    }
    if (filled.empty()) continue;
    set.run.label = derived_label(base.label, fmt::format("literal set {}", out.size()));
    set.description = "inputs from the kernel's constants: " + filled;
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace asmevo::verify
