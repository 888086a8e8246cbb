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

// `arg` initialised with exactly `bytes`.
inline void set_input_bytes(emu::ArgSpec& arg, std::vector<uint8_t> bytes) {
  arg.init = {};
  arg.init.kind = emu::InitSpec::Bytes;
  arg.init.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
}

}  // namespace asmevo::verify
