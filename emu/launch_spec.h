// Launch spec (docs/emulator.md "Launch spec"): which kernel, grid/block, dynamic LDS, arguments
// and their inputs; v2 adds buffer directions (input/output/inout), comparison rules, guard zones,
// several random input sets, edge-value ("special") sets and several launch shapes; v3 adds `perf:`,
// the named launches the user actually runs (the ones timed, and verified on sampled workgroups).
// Parsed from YAML with yaml-cpp; every error names the file and the line (1-based).
// Also the deterministic input generators (seeded) that fill buffers from `init`.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace asmevo::emu {

// Element types of buffers and scalars. Size via dtype_size(); names as in the spec.
size_t dtype_size(const std::string& dtype);  // 0 when unknown
bool dtype_is_float(const std::string& dtype);

struct InitSpec {
  enum Kind { Zeros, Normal, Uniform, Ints, Constant, File, Bytes } kind = Zeros;
  double a = 0, b = 0;
  std::string file;  // File: path to a .npy (relative paths are relative to the spec's folder)
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // Bytes: the exact contents (made by verify's aimed inputs)
};

// How an output buffer of a candidate must match the reference: bit for bit (default), within N
// units in the last place, or |k1 - k0| <= atol + rtol * |k0|. NaN matches NaN; infinities match
// only the same infinity.
struct CompareSpec {
  enum Kind { Exact, Ulp, Tolerance } kind = Exact;
  uint64_t ulp = 0;
  double rtol = 0, atol = 0;
  std::string str() const;
};

struct ArgSpec {
  enum Kind { Buffer, Value, NullPointer } kind = Buffer;
  // Input: the kernel must leave it unchanged. Output: poisoned before the run, compared after.
  // InOut: initialised from `init`, compared after.
  enum Direction { Input, Output, InOut } direction = Input;
  std::string name;   // optional
  std::string dtype;  // Buffer: element type; Value: scalar type
  uint64_t count = 0; // Buffer: elements
  InitSpec init;      // Buffer
  CompareSpec compare;     // Output / InOut buffers
  uint64_t guard = 256;    // Buffer: canary bytes before and after it
  uint64_t align = 256;    // Buffer: device address alignment
  bool special = true;     // Buffer: edge values are mixed in for special input sets
  std::string expect;      // Output / InOut: .npy the original kernel must produce (captured launches)
  std::string value;  // Value: the YAML scalar text
  // Value (integers): `vary: [lo, hi]`, values verify may also launch with (every buffer is large
  // enough for all of them): boundary launches at lo, hi and around multiples of the block size.
  std::optional<std::pair<int64_t, int64_t>> vary;
  int line = 0;       // 1-based line of this entry in the spec, for messages
  bool compared() const { return kind == Buffer && direction != Input; }
};

// One extra launch shape (`launches:` list) or performance launch (`perf:` list): overrides of the
// top-level grid/block/dynamic LDS, of value arguments and of buffer counts (by argument name), e.g.
// to cover a partial last workgroup, or to run at the size the kernel runs in practice.
struct LaunchShape {
  std::string name;
  std::array<uint32_t, 3> grid{}, block{};  // {0,0,0}: as at top level
  int64_t dynamic_lds = -1;                 // -1: as at top level
  std::vector<std::pair<size_t, std::string>> values;  // argument index, value text
  std::vector<std::pair<size_t, uint64_t>> counts;     // argument index, element count
  int line = 0;
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
  unsigned inputs = 1;       // random input sets (seeds seed, seed+1, ...)
  bool special = false;      // add input sets that mix edge values into the inputs
  bool inputs_given = false; // the spec says `inputs:` or `special:` (else verify picks safe defaults)
  std::vector<LaunchShape> launches;  // empty: the one top-level shape
  std::vector<LaunchShape> perf;      // v3: the performance launches, each named (empty: v2 spec)

  // Set on concrete runs made by expand_runs(); the generators read them.
  std::string label;         // "launch 0, input set 1"
  int special_variant = -1;  // >= 0: mix edge values (variant selects the density)
  uint8_t poison = 0xff;     // byte that fills output buffers before the run
  int poison_override = -1;  // `poison:` in the spec: every run uses it (saved counterexamples)
  // Set on perf runs (perf_runs()): which performance launch this is, and whether it is the v2
  // stand-in (no `perf:` list: the first verification run is the perf launch).
  std::string perf_name;
  int perf_line = 0;         // line of the perf entry (0 for the stand-in)
  bool perf_fallback = false;
  // Non-empty: run only these workgroups (linear ids, x fastest, ascending) with full-size buffers
  // (verification of perf launches; emu::sample_workgroups picks them).
  std::vector<uint64_t> workgroup_sample;

  bool has_outputs() const;
};

// Every concrete run a spec asks for: each launch shape (the top level when `launches` is empty)
// with each input set (`inputs` random sets, then two special sets when `special`). Each result
// has no `launches`, inputs = 1 and its own seed, label, special variant and poison byte; the
// poison alternates between runs so a candidate that skips a write cannot match by luck.
std::vector<LaunchSpec> expand_runs(const LaunchSpec& spec);

// The performance launches: one concrete run (input set 0) per `perf:` entry, in order; a spec
// without `perf:` (v2) has one, its first verification run, marked perf_fallback. Each result has
// no `launches`/`perf`, its perf_name set and the label "perf NAME".
std::vector<LaunchSpec> perf_runs(const LaunchSpec& spec);
// The perf run named `name`; throws asmevo::Error listing the names when there is none.
LaunchSpec perf_run(const LaunchSpec& spec, const std::string& name);
// Where a perf run's figures come from, for every report: "perf launch 'decode' (spec.yaml:31)",
// or "the first verification launch ('full', spec.yaml; the spec has no perf: list)".
std::string perf_description(const LaunchSpec& run);
// "grid [x, y, z] x block [x, y, z]"
std::string shape_text(const LaunchSpec& run);

// Throws asmevo::Error("...", "<path>:<line>") on malformed input or unknown keys.
LaunchSpec load_launch_spec(const std::string& path);
LaunchSpec parse_launch_spec_text(const std::string& text, const std::string& path = "<string>");

// Bytes of a buffer argument filled from its init, deterministically from (spec.seed, arg index);
// edge values mixed in when spec.special_variant >= 0; output buffers hold spec.poison.
std::vector<uint8_t> make_buffer(const LaunchSpec& spec, size_t arg_index);
// Generated inputs are made in chunks of kInitChunkBytes bytes, each from a seed of its own (chunk 0
// from the seed a whole buffer had before, so that buffers of one chunk keep their values), so any
// chunk can be made alone and in any order with the bytes make_buffer gives: large launches fill
// their buffers on first touch (emu::DeviceMemory::fill_lazily).
inline constexpr uint64_t kInitChunkBytes = 64 * 1024;
// Whether make_buffer(spec, arg_index) is the concatenation of fill_chunk's chunks: outputs (poison),
// zeros and the random/constant generators; not file or explicit contents, nor buffers that mix in
// edge values (special input sets move elements across chunks).
bool buffer_fills_by_chunk(const LaunchSpec& spec, size_t arg_index);
// Bytes [chunk x kInitChunkBytes, + out.size()) of make_buffer(spec, arg_index) into `out` (the whole
// chunk, or the buffer's last bytes), for buffers that fill by chunk.
void fill_chunk(const LaunchSpec& spec, size_t arg_index, uint64_t chunk, std::span<uint8_t> out);
// The canary of a buffer's guard zones differs between buffers and between runs: with one fixed
// pattern for every buffer, a kernel that copied (or combined) another buffer's guard bytes into
// its output's guard left the canary intact — found by the optimizer, whose opcode mutation made
// an f16x2 kernel read a[n], b[n] and store their sum to out[n]: the fixed canary's first two
// bytes are a quiet f16 NaN, NaN + NaN kept it, and the out-of-bounds store went unnoticed.
uint32_t guard_salt(const LaunchSpec& run, size_t arg_index);
// Byte i (0 .. 2 x guard - 1, the zone before the buffer then the one after) of a guard zone.
inline uint8_t guard_canary(uint64_t i, uint32_t salt) {
  uint64_t x = (static_cast<uint64_t>(salt) << 32) ^ (i * 0x9E3779B97F4A7C15ull);  // splitmix64 finalizer
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint8_t>(x ^ (x >> 31));
}
// Raw little-endian bits of a Value argument (size dtype_size(dtype)).
uint64_t scalar_bits(const LaunchSpec& spec, size_t arg_index);

}  // namespace asmevo::emu
