// Test-side reader for corpus launch specs (launch spec v1, corpus/hip/launch/<kernel>.yaml) and a
// deterministic input generator, so the corpus tests can run references (and the CPU SIMT stand-in)
// on the same inputs the emulator will get.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/reference/reference.h"

namespace asmevo::corpus::test {

struct InitSpec {
  enum Kind { Zeros, Normal, Uniform, Ints, Constant } kind = Zeros;
  double a = 0, b = 0;
};

struct ArgSpec {
  std::string name;
  bool is_buffer = false;
  std::string dtype;      // buffer element type, or scalar type
  uint64_t count = 0;     // buffers
  InitSpec init;          // buffers
  std::string value;      // scalars: the YAML text of the value
};

struct LaunchSpec {
  std::string kernel;
  Dim3 grid, block;
  uint32_t dynamic_lds = 0;
  uint64_t seed = 0;
  std::vector<ArgSpec> args;
};

// Throws std::runtime_error with the path on malformed specs.
LaunchSpec load_launch_spec(const std::filesystem::path& path);

// Buffers filled from `init` with a generator seeded by spec.seed and the argument index;
// scalars encoded as raw little-endian bits.
std::vector<HostArg> make_args(const LaunchSpec& spec);

// Element `i` of a buffer as a double (f32 f16 bf16 f64 and the integer types).
double element(const HostArg& a, size_t i);

}  // namespace asmevo::corpus::test
