// Results must not depend on the number of worker threads (docs/emulator.md "Determinism"):
// an ordinary kernel, and kernels whose float atomics make order matter.
#include <gtest/gtest.h>

#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

void expect_thread_count_independent(const std::string& arch, const std::string& spec) {
  std::vector<std::vector<uint8_t>> one, four;
  run_corpus_kernel(arch, spec, 42, 1, &one);
  run_corpus_kernel(arch, spec, 42, 4, &four);
  EXPECT_EQ(one, four) << arch << " " << spec;
}

TEST(CorpusRunDeterminism, SameOutputForAnyThreadCount) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"})
    for (const char* spec : {"vector_add", "reduce_sum_f32", "scatter_add_f32", "histogram_u8"})
      expect_thread_count_independent(arch, spec);
}

}  // namespace
}  // namespace asmevo::emu::test
