// The corpus as a library: where each corpus code object and launch spec lives, and the list of
// every corpus kernel that has a spec. Tests and benchmarks enumerate kernels through this, never by
// walking corpus folders themselves. HIP code objects are built into the build tree
// (corpus/hip/CMakeLists.txt); Triton code objects are committed (corpus/triton/<arch>/).
#pragma once
#include <string>
#include <vector>

namespace asmevo::corpus {

// hip: corpus/hip's kernels; kernelbench: the KernelBench-style ones among them (corpus/hip/kb_*.hip,
// built the same way); triton: corpus/triton's.
enum class Set { hip, kernelbench, triton };
const char* set_name(Set s);  // "hip" | "kernelbench" | "triton"

struct Kernel {
  std::string name;         // the kernel symbol
  std::string code_object;  // absolute path of the code object holding it
  std::string spec;         // absolute path of its launch spec
  Set set = Set::hip;
  std::string arch;
  std::string label() const;  // "<set>/<arch>/<name>", e.g. "hip/gfx942/vector_add"
};

// Paths, whether or not the file exists.
std::string hip_object(const std::string& arch, const std::string& file);  // built HIP code object, e.g. ("gfx942", "vector_add.co")
std::string hip_spec(const std::string& kernel);                           // corpus/hip/launch/<kernel>.yaml
std::string triton_object(const std::string& arch, const std::string& kernel);  // corpus/triton/<arch>/<kernel>.hsaco
std::string triton_spec(const std::string& kernel);                        // corpus/triton/launch/<kernel>.yaml

// Every corpus kernel of `arch` with a launch spec: the HIP-built sets first (hip and kernelbench,
// each kernel found in the lexicographically first built .co that defines it), then Triton, each
// sorted by kernel name.
// `only` restricts to those kernel names, in that order (an Error names one that is not found).
// An Error also says when the HIP corpus of `arch` was not built.
std::vector<Kernel> kernels(const std::string& arch, const std::vector<std::string>& only = {});

// The same list restricted to one set, or to the kernels built from corpus/hip (hip and kernelbench).
std::vector<Kernel> kernels(const std::string& arch, Set set);
std::vector<Kernel> hip_built_kernels(const std::string& arch);

}  // namespace asmevo::corpus
