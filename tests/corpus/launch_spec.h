// Corpus launch specs (docs/emulator.md "Launch spec", corpus/hip/launch/<kernel>.yaml) as the corpus tests use
// them: parsed by emu/launch_spec.h and turned into reference arguments with the same inputs the
// emulator gets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "corpus/reference/reference.h"

namespace asmevo::emu {
struct LaunchSpec;
}

namespace asmevo::corpus::test {

struct ArgSpec {
  std::string name;
  bool is_buffer = false;
  std::string dtype;      // buffer element type, or scalar type
  uint64_t count = 0;     // buffers
  std::string value;      // scalars: the YAML text of the value
};

struct LaunchSpec {
  std::string kernel;
  Dim3 grid, block;
  uint32_t dynamic_lds = 0;
  uint64_t seed = 0;
  std::vector<ArgSpec> args;
  std::shared_ptr<const emu::LaunchSpec> source;  // the parsed spec (inputs are generated from it)
};

// Throws std::runtime_error with the path on malformed specs.
LaunchSpec load_launch_spec(const std::filesystem::path& path);

// Buffers filled from `init` with a generator seeded by spec.seed and the argument index;
// scalars encoded as raw little-endian bits.
std::vector<HostArg> make_args(const LaunchSpec& spec);

// Element `i` of a buffer as a double (f32 f16 bf16 f64 and the integer types).
double element(const HostArg& a, size_t i);

}  // namespace asmevo::corpus::test
