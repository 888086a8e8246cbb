// What every derived input set does to the run it starts from (magnitude, literal, tie and aimed
// sets: verify/magnitude_sets.cpp, aim_literals.cpp, aim_ties.cpp, aimed.cpp): its label, and the
// buffers it replaces with bytes of its own.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emu/launch_spec.h"

namespace asmevo::verify {

// The label of an input set made from the run labelled `base_label`: that label's launch part (all
// before its last ", ", none when it has no ", "), then `name`.
inline std::string derived_label(const std::string& base_label, const std::string& name) {
  const size_t shape_end = base_label.rfind(", ");
  const std::string shape = shape_end == std::string::npos ? std::string() : base_label.substr(0, shape_end);
  return shape.empty() ? name : shape + ", " + name;
}

// The splitmix64 finalizer: the hash by which derived sets choose per element (which constant, sign,
// zero or threshold an element takes), so that no choice follows a lane's fixed stride.
inline uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// How an input set names argument `a` in its description: its name, or "arg<a>" when it has none.
inline std::string arg_label(const emu::ArgSpec& arg, size_t a) { return arg.name.empty() ? "arg" + std::to_string(a) : arg.name; }

// The workgroups of a launch's grid.
inline uint64_t workgroup_count(const emu::LaunchSpec& run) { return static_cast<uint64_t>(run.grid[0]) * run.grid[1] * run.grid[2]; }

// `arg` initialised with exactly `bytes`.
inline void set_input_bytes(emu::ArgSpec& arg, std::vector<uint8_t> bytes) {
  arg.init = {};
  arg.init.kind = emu::InitSpec::Bytes;
  arg.init.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
}

}  // namespace asmevo::verify
