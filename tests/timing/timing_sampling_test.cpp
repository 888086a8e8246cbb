// Sampled simulation against exact simulation (timing/sampling.h): every corpus kernel (gfx942) at its
// spec's launch with the sample budget cut to a quarter of the launch's exact cost (so that a slice of
// the device is simulated), plus launches large enough for dispatch rounds to be extrapolated
// (bench/timing/launches at small sizes). Prints the error distribution; asserts that the error stays
// within the bound the sample reports, and the goal (3 % for 90 %, 10 % for all) is printed as
// reached or not.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "timing/backend.h"

namespace fs = std::filesystem;

namespace asmevo::timing {
namespace {

struct Outcome {
  std::string name;
  double exact = 0, sampled = 0, bound = 0;
  uint64_t simulated = 0, groups = 0;
  double error() const { return std::abs(sampled - exact) / exact; }
};

Outcome compare(const std::string& name, const std::string& object, const emu::LaunchSpec& spec, double budget_share) {
  auto co = codeobj::CodeObject::parse(read_file_bytes(object), object);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  EXPECT_NE(k, nullptr) << name;
  SampleOptions exact;
  exact.exact = true;
  ModeledRun e = model_kernel({&co, k, &spec}, 1, exact);
  SampleOptions sampled;
  sampled.budget_wave_instructions = budget_share * static_cast<double>(e.model.wave_instructions);
  ModeledRun s = model_kernel({&co, k, &spec}, 1, sampled);
  return {name, static_cast<double>(e.model.cycles), static_cast<double>(s.model.cycles), s.model.sample.error_bound,
          s.model.sample.sampled ? s.model.sample.simulated_groups : s.model.workgroups, e.model.workgroups};
}

// A corpus launch spec with a larger grid and buffers: elementwise kernels over `n` elements.
emu::LaunchSpec elementwise(const std::string& kernel_spec, uint32_t n) {
  emu::LaunchSpec s = emu::load_launch_spec(corpus::hip_spec(kernel_spec));
  s.grid = {(n + s.block[0] - 1) / s.block[0], 1, 1};
  for (auto& a : s.args) {
    if (a.kind == emu::ArgSpec::Buffer) a.count = n;
    else if (a.name == "n") a.value = std::to_string(n);
  }
  return s;
}

TEST(Sampling, SampledMatchesExactWithinItsBoundOnTheCorpus) {
  std::vector<Outcome> all;
  for (const auto& k : corpus::kernels("gfx942")) {
    auto spec = emu::load_launch_spec(k.spec);
    all.push_back(compare(std::string(corpus::set_name(k.set)) + "/" + fs::path(k.spec).stem().string(), k.code_object, spec, 0.25));
  }
  // Rounds: elementwise launches of several device rounds (304 CUs x 8 workgroups of 256 work-items).
  for (uint32_t n : {1u << 20, 3u << 20}) {
    all.push_back(compare(fmt::format("hip/vector_add n={}", n), corpus::hip_object("gfx942", "vector_add.co"),
                          elementwise("vector_add", n), 0.2));
    all.push_back(compare(fmt::format("hip/relu_f32 n={}", n), corpus::hip_object("gfx942", "relu.co"), elementwise("relu_f32", n),
                          0.2));
  }
  std::sort(all.begin(), all.end(), [](const Outcome& a, const Outcome& b) { return a.error() < b.error(); });
  unsigned within3 = 0, within10 = 0, sampled = 0;
  for (const auto& o : all) {
    within3 += o.error() <= 0.03;
    within10 += o.error() <= 0.10;
    sampled += o.simulated < o.groups;
    std::cout << fmt::format("[sampling] {:40s} exact {:9.0f} sampled {:9.0f} cycles  error {:6.2f} %  bound {:5.1f} %  ({} of {} workgroups)\n",
                             o.name, o.exact, o.sampled, 100 * o.error(), 100 * o.bound, o.simulated, o.groups);
    EXPECT_LE(o.error(), o.bound + 1e-9) << o.name << ": the sample's error exceeds the bound it reports";
  }
  const double p50 = all[all.size() / 2].error(), p90 = all[all.size() * 9 / 10].error(), worst = all.back().error();
  std::cout << fmt::format("[sampling] {} launches ({} sampled): within 3 %: {} ({:.0f} %), within 10 %: {} ({:.0f} %); median {:.2f} %, "
                           "p90 {:.2f} %, max {:.2f} %; goal (3 % for 90 %, 10 % for all): {}\n",
                           all.size(), sampled, within3, 100.0 * within3 / all.size(), within10, 100.0 * within10 / all.size(),
                           100 * p50, 100 * p90, 100 * worst,
                           within3 >= 0.9 * all.size() && within10 == all.size() ? "reached" : "NOT reached");
  EXPECT_GE(sampled, all.size() * 3 / 4) << "most launches must actually be sampled for this test to mean anything";
}

}  // namespace
}  // namespace asmevo::timing
