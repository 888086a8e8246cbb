// Lists the corpus files tests run over: the HIP corpus manifest written by the build and the
// committed Triton code objects. Tests use it so that "every corpus file" means the same thing.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace asmevo::testing {

struct CorpusFile {
  std::string path;     // absolute
  std::string target;   // "gfx942", "gfx90a:xnack+", or "gfx90a,gfx942,gfx950" for containers
  unsigned code_object_version = 0;
  std::string kind;     // "co", "bundle", "host-so", "triton"
  std::string label;    // short name for test output
};

// All HIP corpus entries (from <build>/corpus/hip/manifest.txt) and all Triton .hsaco files.
std::vector<CorpusFile> corpus_files(const std::string& source_dir, const std::string& binary_dir);

// The bare code objects among them: HIP "co" entries and the Triton files.
std::vector<CorpusFile> code_object_corpus_files(const std::string& source_dir, const std::string& binary_dir);

// A GoogleTest-safe parameter name for a corpus file ("hip/gfx942/softmax.co" -> "hip_gfx942_softmax_co").
std::string test_name(const CorpusFile& f);

// Runs a shell command; returns its exit status (-1 if it did not exit normally) and captures
// stdout+stderr into `output`.
int run_shell(const std::string& command, std::string* output = nullptr);

// <tmp>/asmevo_<area>_test_<pid>/<name>, created; the per-process folder is removed at exit.
std::filesystem::path scratch_dir(const std::string& area, const std::string& name = {});

// Runs a shell command, returns its standard output; fails the calling test on a non-zero exit.
std::string run_command(const std::string& cmd);

// A copy of a corpus launch spec without its perf: section (a v2 spec, whose perf launch is its first
// verification launch), in scratch_dir("specs"): for tests of the search machinery, which cannot
// afford to model the corpus's real-size perf launches for every candidate. Throws when the spec
// has no perf: section (corpus specs end with it).
std::string spec_without_perf(const std::string& spec_path);

// A small v2 launch spec of the HIP corpus kernel vector_add: 17 full workgroups over 4321 elements and a
// 300-element tail launch, 2 random and the special input sets. Tests append a `perf:` list to it.
inline constexpr const char* kVectorAddSmallSpec = R"(kernel: vector_add
grid: [17, 1, 1]
block: [256, 1, 1]
seed: 1
inputs: 2
special: true
launches:
  - {name: full}
  - {name: tail, grid: [2, 1, 1], values: {n: 300}, counts: {a: 300, b: 300, out: 300}}
args:
  - {name: a, buffer: f32, count: 4321, init: {normal: [0, 1]}}
  - {name: b, buffer: f32, count: 4321, init: {uniform: [-1, 1]}}
  - {name: out, buffer: f32, count: 4321, output: true}
  - {name: n, value: 4321, type: i32}
)";

}  // namespace asmevo::testing
