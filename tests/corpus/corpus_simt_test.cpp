// Runs every HIP corpus kernel's source on the CPU (tests/corpus/simt_cpu.h: one thread per
// work-item, wave-level shuffles and MFMA, workgroup barriers) with its launch spec's inputs, and
// compares every buffer with the CPU reference under the reference's tolerance. This validates the
// kernels' indexing, tails and reductions and the references' launch-shape handling together,
// before any emulator exists; the MFMA operand layouts come from the kernels' own comments, so
// those are checked only for self-consistency here.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "corpus/reference/reference.h"
#include "tests/corpus/corpus_test_util.h"
#include "tests/corpus/launch_spec.h"
#include "tests/corpus/simt_cpu.h"

namespace {

using namespace asmevo::corpus;
using namespace asmevo::corpus::test;

std::vector<std::string> kernel_names() {
  std::vector<std::string> out;
  for (const auto& k : hip_kernels()) out.push_back(k.name);
  return out;
}

class SimtVsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(SimtVsReference, Matches) {
  const std::string& name = GetParam();
  LaunchSpec spec = load_launch_spec(kHipDir / "launch" / (name + ".yaml"));
  const ReferenceEntry* ref = find_reference(name);
  ASSERT_NE(ref, nullptr);
  auto it = asmevo::simt::registry().find(name);
  ASSERT_NE(it, asmevo::simt::registry().end()) << "kernel not compiled into the SIMT stand-in";
  Tolerance tol = parse_tolerance(ref->tolerance);

  std::vector<HostArg> want = make_args(spec), got = want;
  ref->fn(want, spec.grid, spec.block, spec.dynamic_lds);
  it->second(got, {spec.grid.x, spec.grid.y, spec.grid.z}, {spec.block.x, spec.block.y, spec.block.z},
             spec.dynamic_lds);

  size_t compared = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!want[i].is_buffer) continue;
    size_t n = want[i].bytes.size() / dtype_size(want[i].dtype);
    size_t bad = 0;
    std::ostringstream first;
    for (size_t j = 0; j < n; ++j) {
      double w = element(want[i], j), g = element(got[i], j);
      if (!within_tolerance(g, w, tol) && bad++ < 5)
        first << "\n  [" << j << "] kernel " << g << " reference " << w;
    }
    compared += n;
    EXPECT_EQ(bad, 0u) << name << " arg " << i << " (" << spec.args[i].name << "): " << bad << " of " << n
                       << " elements differ (" << ref->tolerance << ")" << first.str();
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(HipCorpus, SimtVsReference, ::testing::ValuesIn(kernel_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
