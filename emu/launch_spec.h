// Launch spec v1 (issue 4): which kernel, grid/block, dynamic LDS, arguments and their inputs.
// Parsed from YAML with yaml-cpp; every error names the file and the line (1-based).
// Also the deterministic input generators (seeded) that fill buffers from `init`.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu {

// Element types of buffers and scalars. Size via dtype_size(); names as in the spec.
size_t dtype_size(const std::string& dtype);  // 0 when unknown
bool dtype_is_float(const std::string& dtype);

struct InitSpec {
  enum Kind { Zeros, Normal, Uniform, Ints, Constant, File } kind = Zeros;
  double a = 0, b = 0;
  std::string file;  // File: path to a .npy (relative paths are relative to the spec's folder)
};

struct ArgSpec {
  enum Kind { Buffer, Value, NullPointer } kind = Buffer;
  std::string name;   // optional
  std::string dtype;  // Buffer: element type; Value: scalar type
  uint64_t count = 0; // Buffer: elements
  InitSpec init;      // Buffer
  std::string value;  // Value: the YAML scalar text
  int line = 0;       // 1-based line of this entry in the spec, for messages
};

struct LaunchSpec {
  std::string path;  // where it was read from ("<string>" for parse_launch_spec_text)
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};   // workgroups in x, y, z
  std::array<uint32_t, 3> block{1, 1, 1};  // work-items per workgroup
  uint32_t dynamic_lds = 0;
  uint64_t seed = 0;
  std::vector<ArgSpec> args;
  int args_line = 0;
};

// Throws asmevo::Error("...", "<path>:<line>") on malformed input or unknown keys.
LaunchSpec load_launch_spec(const std::string& path);
LaunchSpec parse_launch_spec_text(const std::string& text, const std::string& path = "<string>");

// Bytes of a buffer argument filled from its init, deterministically from (spec.seed, arg index).
std::vector<uint8_t> make_buffer(const LaunchSpec& spec, size_t arg_index);
// Raw little-endian bits of a Value argument (size dtype_size(dtype)).
uint64_t scalar_bits(const LaunchSpec& spec, size_t arg_index);

}  // namespace asmevo::emu
