// The corpus kernels the mutant benchmark and its test use: every HIP corpus kernel with a launch
// spec (code objects from the build tree) and every Triton corpus kernel built for the arch.
#pragma once
#include <string>
#include <vector>

namespace asmevo::mutants {

struct CorpusKernel {
  std::string kernel, code_object, spec;
};

// `only`: restrict to these kernel names (error if one is not found). Sorted by kernel name.
std::vector<CorpusKernel> corpus_kernels(const std::string& arch, const std::vector<std::string>& only = {});

}  // namespace asmevo::mutants
