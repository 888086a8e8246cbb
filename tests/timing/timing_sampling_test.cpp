// Sampled simulation against exact simulation (timing/sampling.h): every corpus kernel (gfx942) at its
// spec's launch with the sample budget cut to a quarter of the launch's exact cost (so that a slice of
// the device is simulated), plus launches large enough for dispatch rounds to be extrapolated
// (bench/timing/launches at small sizes). Prints the error distribution; asserts that the error stays
// within the bound the sample reports, and the goal (3 % for 90 %, 10 % for all) is printed as
// reached or not.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "timing/reuse_probe.h"

namespace fs = std::filesystem;

namespace asmevo::timing {
namespace {

struct Outcome {
  std::string name;
  double exact = 0, sampled = 0, bound = 0;
  uint64_t simulated = 0, groups = 0, warming = 0;
  double unwarmed = 0;  // the same sample without functional warming (SampleOptions::warming_budget_share 0)
  double hbm = 0, sampled_hbm = 0;  // HBM bytes: exact, sampled (scaled to the launch)
  double exact_seconds = 0, sampled_seconds = 0, unwarmed_seconds = 0;  // CPU seconds of model_kernel
  double error() const { return std::abs(sampled - exact) / exact; }
  double unwarmed_error() const { return std::abs(unwarmed - exact) / exact; }
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Outcome compare(const std::string& name, const std::string& object, const emu::LaunchSpec& spec, double budget_share) {
  auto co = codeobj::CodeObject::parse(read_file_bytes(object), object);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  EXPECT_NE(k, nullptr) << name;
  Outcome o{name};
  SampleOptions exact;
  exact.exact = true;
  double t = cpu_seconds();
  ModeledRun e = model_kernel({&co, k, &spec}, 1, exact);
  o.exact_seconds = cpu_seconds() - t;
  SampleOptions sampled;
  sampled.budget_wave_instructions = budget_share * static_cast<double>(e.model.wave_instructions);
  t = cpu_seconds();
  ModeledRun s = model_kernel({&co, k, &spec}, 1, sampled);
  o.sampled_seconds = cpu_seconds() - t;
  SampleOptions unwarmed = sampled;
  unwarmed.warming_budget_share = 0;
  t = cpu_seconds();
  ModeledRun u = model_kernel({&co, k, &spec}, 1, unwarmed);
  o.unwarmed_seconds = cpu_seconds() - t;
  o.hbm = static_cast<double>(e.model.hbm_bytes), o.sampled_hbm = static_cast<double>(s.model.hbm_bytes);
  o.exact = static_cast<double>(e.model.cycles), o.sampled = static_cast<double>(s.model.cycles);
  o.unwarmed = static_cast<double>(u.model.cycles), o.bound = s.model.sample.error_bound;
  o.simulated = s.model.sample.sampled ? s.model.sample.simulated_groups : s.model.workgroups;
  o.groups = e.model.workgroups;
  o.warming = s.sample.warming_groups;
  return o;
}

// Share within 3 % and 10 %, median and max of `errors` (relative).
std::string summary(std::vector<double> errors) {
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const auto within = [&](double e) { return std::count_if(errors.begin(), errors.end(), [e](double x) { return x <= e; }); };
  return fmt::format("within 3 %: {} of {} ({:.0f} %), within 10 %: {} ({:.0f} %); median {:.2f} %, max {:.2f} %", within(0.03), n,
                     100.0 * within(0.03) / n, within(0.10), 100.0 * within(0.10) / n, 100 * errors[n / 2], 100 * errors.back());
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

// Functional warming within a cost: all the other workgroups when they fit, else as many as fit, evenly
// spread over them in id; the MALL's capacity share follows (warmed_share).
TEST(Sampling, WarmingTakesAsManyWorkgroupsAsFitItsCostSpreadOverTheOthers) {
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  SampleOptions so;
  so.budget_wave_instructions = 10'000;
  const double per_group = 1000;
  SamplePlan plan = plan_sample(hw, 64, 1, per_group, so);  // one round of 64 workgroups
  ASSERT_TRUE(plan.sampled);
  const uint64_t others = plan.grid_groups - plan.workgroups.size();
  ASSERT_GT(others, 20u);
  EXPECT_EQ(warming_groups(hw, plan, 1, per_group, 1e9).size(), others);
  EXPECT_TRUE(warming_groups(hw, plan, 1, per_group, per_group * kWarmingGroupCost * 0.9).empty());
  const std::vector<uint64_t> some = warming_groups(hw, plan, 1, per_group, 5 * per_group * kWarmingGroupCost);
  ASSERT_EQ(some.size(), 5u);
  EXPECT_TRUE(std::is_sorted(some.begin(), some.end()));
  for (uint64_t g : some)
    EXPECT_EQ(std::count(plan.workgroups.begin(), plan.workgroups.end(), g), 0) << g << " is simulated, not a warming workgroup";
  EXPECT_GT(some.back() - some.front(), plan.grid_groups / 2) << "the warming workgroups are spread over the grid";
  LaunchTrace ghosts;
  for (uint64_t g : some) ghosts.groups.emplace_back(), ghosts.group_ids.push_back(g);
  SamplePlan partial = plan;
  plan_warming(hw, partial, ghosts);
  EXPECT_DOUBLE_EQ(partial.slice.warmed_share, 5.0 / static_cast<double>(others));
  // More rounds than the device holds at once: no warming (a device round is too many to emulate).
  SamplePlan rounds = plan_sample(hw, 4 * hw.cus, 1, per_group, so);
  EXPECT_TRUE(warming_groups(hw, rounds, 1, per_group, 1e12).empty());
}

// The grid's last workgroup is in every sample: a launch of a few workgroups, each over half the budget (or
// over all of it, within the total cost), whose one-CU slice would hold the first alone, runs the first and the
// last on two XCDs' first CUs.
TEST(Sampling, ASampleOfAFewLargeWorkgroupsHoldsTheFirstAndTheLast) {
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  SampleOptions so;
  so.budget_wave_instructions = 1000;
  for (double per_group : {600.0, 1500.0}) {  // within the budget alone, and over it
    for (uint64_t grid : {uint64_t{2}, uint64_t{4}, uint64_t{5}, uint64_t{hw.cus}}) {
      const SamplePlan p = plan_sample(hw, grid, 2, per_group, so);
      ASSERT_TRUE(p.sampled) << grid;
      EXPECT_EQ(p.workgroups, (std::vector<uint64_t>{0, grid - 1})) << grid << " workgroups of " << per_group;
      EXPECT_EQ(p.slice.xcds, 2u);
      EXPECT_EQ(p.slice.cus_per_xcd, 1u);
      EXPECT_EQ(p.slice_groups, 2u);
      EXPECT_EQ(p.head_groups + p.tail_groups, 2u) << "nothing extrapolated";
    }
  }
  // One workgroup: nothing else to hold.
  EXPECT_EQ(plan_sample(hw, 1, 2, 1500, so).workgroups, std::vector<uint64_t>{0});
  // One workgroup over the total cost (sample and warming): the first alone, the bound's one-workgroup allowance.
  SampleOptions tight = so;
  tight.total_wave_instructions = 1000;
  EXPECT_EQ(plan_sample(hw, 4, 2, 1500, tight).workgroups, std::vector<uint64_t>{0});
  EXPECT_EQ(plan_sample(hw, 4, 2, 600, tight).workgroups, (std::vector<uint64_t>{0, 3})) << "within the total: the tail too";
  // A partial last round of a one-CU slice: the grid's last workgroups are its tail.
  const SamplePlan rounds = plan_sample(hw, 4ull * hw.cus + 1, 2, 600, so);
  ASSERT_TRUE(rounds.sampled);
  EXPECT_EQ(rounds.slice.cus(), 1u);
  EXPECT_EQ(rounds.workgroups.back(), 4ull * hw.cus);
}

// SliceWorkgroups::XcdWindow: of every device round of an XCD's stream, the first positions, as many as the
// slice holds at once (neighbours that share the XCD's L2); with one workgroup per CU the OwnCus sample.
TEST(Sampling, XcdWindowTakesNeighboursInEachXcdStreamPerDeviceRound) {
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  const unsigned per_xcd = hw.cus / hw.xcds, per_cu = 4;
  SampleOptions own;
  own.budget_wave_instructions = 1000;  // 10 workgroups of 100: one CU of one XCD, one round and the tail
  SampleOptions window = own;
  window.slice_workgroups = SliceWorkgroups::XcdWindow;
  const uint64_t grid = 3ull * hw.cus * per_cu + 5;  // three device rounds and a partial one
  const SamplePlan a = plan_sample(hw, grid, per_cu, 100, own), b = plan_sample(hw, grid, per_cu, 100, window);
  ASSERT_TRUE(a.sampled && b.sampled);
  EXPECT_EQ(a.workgroups.size(), b.workgroups.size());
  EXPECT_EQ(a.slice.cus(), 1u);
  EXPECT_FALSE(a.slice.l1_by_device_cu);
  EXPECT_TRUE(b.slice.l1_by_device_cu);
  ASSERT_GE(b.head_groups, per_cu);
  for (uint64_t i = 0; i < per_cu; ++i) {
    EXPECT_EQ(a.workgroups[i], i * hw.cus) << "own CU: the CU's slots hold every 38th workgroup of the XCD's stream";
    EXPECT_EQ(b.workgroups[i], i * hw.xcds) << "window: the first workgroups of XCD 0's stream";
  }
  // Whole streams: every device round is sampled, each by its first c x per_cu positions.
  const uint64_t big = 3ull * hw.cus * per_cu;
  SampleOptions force = window;
  force.budget_wave_instructions = 100.0 * big / 2;  // half the launch: a slice's whole stream
  const SamplePlan w = plan_sample(hw, big, per_cu, 100, force);
  ASSERT_TRUE(w.sampled);
  const uint64_t round = static_cast<uint64_t>(per_xcd) * per_cu, held = static_cast<uint64_t>(w.slice.cus_per_xcd) * per_cu;
  for (size_t i = 0; i + 1 < w.workgroups.size(); ++i) {  // the last is the grid's last workgroup
    const uint64_t g = w.workgroups[i];
    EXPECT_LT(g % hw.xcds, w.slice.xcds);
    EXPECT_LT(g / hw.xcds % round, held) << g;
  }
  EXPECT_GE(w.workgroups[w.workgroups.size() - 2], 2 * round * hw.xcds) << "the last device round is sampled too";
  // One workgroup per CU: the same sample as OwnCus.
  const SamplePlan one_own = plan_sample(hw, 200, 1, 100, own), one_window = plan_sample(hw, 200, 1, 100, window);
  EXPECT_EQ(one_own.workgroups, one_window.workgroups);
}

// The reuse probe (timing/reuse_probe.h): co-residents of workgroup 0 in its device round that the slice does not
// hold, spread over them, half on its XCD and half on the others, within the probe's cost; none unsampled.
TEST(Sampling, ReuseProbeTakesCoResidentsOfTheFirstWorkgroupThatTheSliceLeavesOut) {
  const HwParams& hw = hw_params(codeobj::Arch::gfx942);
  const unsigned per_xcd = hw.cus / hw.xcds, per_cu = 2;
  SampleOptions so;
  so.budget_wave_instructions = 3000;  // 30 workgroups of 100
  const uint64_t grid = 4ull * hw.cus * per_cu;
  const SamplePlan plan = plan_sample(hw, grid, per_cu, 100, so);
  ASSERT_TRUE(plan.sampled);
  const ReuseProbe probe = plan_reuse_probe(hw, plan, per_cu, 100, 1600, 16);
  const uint64_t round = static_cast<uint64_t>(hw.cus) * per_cu;
  auto in_slice = [&](uint64_t g) { return g % hw.xcds < plan.slice.xcds && g / hw.xcds % per_xcd < plan.slice.cus_per_xcd; };
  std::vector<uint64_t> xcd_others, device_others;
  for (uint64_t g = 1; g < round; ++g)
    if (!in_slice(g)) (g % hw.xcds == 0 ? xcd_others : device_others).push_back(g);
  // Four strata: the nearest 4 left out on XCD 0 and elsewhere, whole; 4 of the rest of each, spread.
  ASSERT_EQ(probe.strata.size(), 4u);
  uint64_t members[2] = {0, 0}, probed[2] = {0, 0};
  for (const ProbeStratum& st : probe.strata) {
    members[st.same_xcd] += st.members, probed[st.same_xcd] += st.probed.size();
    for (uint64_t g : st.probed) {
      EXPECT_EQ(g % hw.xcds == 0, st.same_xcd) << g;
      EXPECT_LT(g, round) << "co-resident: workgroup 0's device round";
      EXPECT_FALSE(in_slice(g)) << g;
    }
  }
  EXPECT_EQ(members[1], xcd_others.size());
  EXPECT_EQ(members[0], device_others.size());
  EXPECT_EQ(probed[1], 8u);
  EXPECT_EQ(probed[0], 8u);
  const ProbeStratum& near = probe.strata[0];
  EXPECT_TRUE(near.same_xcd);
  EXPECT_EQ(near.probed, std::vector<uint64_t>(xcd_others.begin(), xcd_others.begin() + 4)) << "the nearest, whole";
  EXPECT_DOUBLE_EQ(near.scale(), 1.0);
  const ProbeStratum& far = probe.strata[1];
  EXPECT_GT(far.probed.back() - far.probed.front(), round / 2) << "spread over the rest of the round";
  EXPECT_DOUBLE_EQ(far.scale(), static_cast<double>(xcd_others.size() - 4) / 4);
  EXPECT_EQ(plan_reuse_probe(hw, plan, per_cu, 100, 350, 16).ids().size(), 3u) << "as many as the cost pays for";
  EXPECT_TRUE(plan_reuse_probe(hw, plan_sample(hw, 20, 1, 100, so), 1, 100, 1e9, 16).empty()) << "unsampled: no probe";
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
  // Halves by name order (even and odd positions): the choice among warming variants (docs/timing.md,
  // "Sampling") was made on half A; half B is its held-out check.
  std::sort(all.begin(), all.end(), [](const Outcome& a, const Outcome& b) { return a.name < b.name; });
  std::vector<double> half[2], half_unwarmed[2];
  for (size_t i = 0; i < all.size(); ++i) half[i % 2].push_back(all[i].error()), half_unwarmed[i % 2].push_back(all[i].unwarmed_error());
  std::sort(all.begin(), all.end(), [](const Outcome& a, const Outcome& b) { return a.error() < b.error(); });
  unsigned within3 = 0, within10 = 0, sampled = 0, warmed = 0, covered = 0;
  double exact_s = 0, sampled_s = 0, unwarmed_s = 0;
  std::vector<double> unwarmed;
  for (const auto& o : all) {
    within3 += o.error() <= 0.03;
    within10 += o.error() <= 0.10;
    sampled += o.simulated < o.groups;
    warmed += o.warming > 0;
    covered += o.error() <= o.bound + 1e-9;
    exact_s += o.exact_seconds, sampled_s += o.sampled_seconds, unwarmed_s += o.unwarmed_seconds;
    unwarmed.push_back(o.unwarmed_error());
    std::cout << fmt::format("[sampling] {:40s} exact {:9.0f} sampled {:9.0f} cycles  error {:6.2f} % (unwarmed {:6.2f} %)  bound {:5.1f} %  "
                             "({} of {} workgroups, {} warming)  HBM MB exact {:.2f} sampled {:.2f}\n",
                             o.name, o.exact, o.sampled, 100 * o.error(), 100 * o.unwarmed_error(), 100 * o.bound, o.simulated, o.groups,
                             o.warming, o.hbm / 1e6, o.sampled_hbm / 1e6);
    EXPECT_LE(o.error(), o.bound + 1e-9) << o.name << ": the sample's error exceeds the bound it reports";
  }
  std::cout << fmt::format("[sampling] without warming: {}\n", summary(unwarmed));
  std::cout << fmt::format("[sampling] half A (variant chosen here): {}; unwarmed: {}\n", summary(half[0]), summary(half_unwarmed[0]));
  std::cout << fmt::format("[sampling] half B (held out):            {}; unwarmed: {}\n", summary(half[1]), summary(half_unwarmed[1]));
  std::cout << fmt::format("[sampling] {} launches warmed; bound covers the error on {} of {}; CPU seconds per launch: exact {:.3f}, "
                           "sampled {:.3f} (unwarmed {:.3f})\n",
                           warmed, covered, all.size(), exact_s / all.size(), sampled_s / all.size(), unwarmed_s / all.size());
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
