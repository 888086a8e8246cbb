// The reuse probe's capacity check (timing/reuse_probe.h; Nugteren et al., HPCA 2014, step 2): a co-resident's
// read of a line counts as shared only when the bytes the device moves between the two reads fit the cache that
// would serve it. Two launches, each modeled sampled (a budget that leaves most co-residents to the probe) and
// exact: a multi-pass read over more than the MALL whose readers of a line are a pass apart (nothing shared), and a
// GEMM whose neighbours read the same panels at the same step (shared).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"
#include "timing/backend.h"

namespace asmevo::timing {
namespace {

struct Pair {
  ModeledRun exact, sampled;
};

// The launch exact, then sampled with the budget cut to `budget_share` of its exact cost.
Pair model_both(const std::string& object, const std::string& spec_text, double budget_share) {
  auto co = codeobj::CodeObject::parse(read_file_bytes(object), object);
  const emu::LaunchSpec spec = emu::parse_launch_spec_text(spec_text);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  EXPECT_NE(k, nullptr) << spec.kernel;
  SampleOptions exact;
  exact.exact = true;
  Pair p{model_kernel({&co, k, &spec}, 1, exact), {}};
  SampleOptions sampled;
  sampled.budget_wave_instructions = budget_share * static_cast<double>(p.exact.model.wave_instructions);
  p.sampled = model_kernel({&co, k, &spec}, 1, sampled);
  return p;
}

// bench/calibration's read_passes (calibration.hip): in pass p workgroup b reads slice (b + 8 p) mod groups, so the
// workgroup 8 ahead on the same XCD read each of its second pass's lines a whole pass (320 MiB of the device's
// traffic) earlier, beyond the 256 MiB MALL (hw_params.cpp, S11). Before the capacity check the probe counted
// that workgroup as sharing the fetch and the sample charged about half the HBM bytes.
TEST(ReuseProbe, ReadersAPassApartOverMoreThanTheMallShareNothing) {
  const uint64_t bytes = 320ull << 20, n4 = bytes / 16, groups = 608;  // two workgroups per CU, two waves per SIMD
  const Pair p = model_both(std::string(ASMEVO_CALIBRATION_DIR) + "/gfx942/calibration.co",
                            fmt::format("kernel: read_passes\ngrid: [{0}, 1, 1]\nblock: [256, 1, 1]\nargs:\n"
                                        "  - {{name: a, buffer: f32, count: {1}}}\n"
                                        "  - {{name: out, buffer: f32, count: {2}, output: true}}\n"
                                        "  - {{name: n4, value: {3}, type: u32}}\n"
                                        "  - {{name: groups, value: {0}, type: u32}}\n"
                                        "  - {{name: passes, value: 2, type: u32}}\n",
                                        groups, n4 * 4, groups * 256, n4),
                            1.0 / 64);
  const double exact = static_cast<double>(p.exact.model.hbm_bytes), sampled = static_cast<double>(p.sampled.model.hbm_bytes);
  std::cout << fmt::format("[reuse] read_passes 320 MiB x 2: HBM MB exact {:.1f}, sampled {:.1f} ({}); modeled us exact {:.3f}, sampled {:.3f}\n",
                           exact / 1e6, sampled / 1e6, p.sampled.model.sample.description, p.exact.timing().microseconds,
                           p.sampled.timing().microseconds);
  ASSERT_TRUE(p.sampled.sample.sampled);
  ASSERT_GT(p.sampled.sample.probe_groups, 0u) << "the probe must run for this test to mean anything";
  EXPECT_GT(exact, 1.9 * static_cast<double>(bytes)) << "premise: the exact model re-reads every pass from HBM";
  EXPECT_NEAR(sampled / exact, 1.0, 0.05);
  EXPECT_TRUE(p.sampled.sample.slice.read_shares.empty()) << "no buffer's reads are shared";
}

// kb_matmul_f32 (16 x 16 LDS tiles) at 256^3, one device round: the workgroups of a tile column read B's column
// panel (ids 16 apart: on XCD 0, ids 0, 16, 32, ...), each at the same k step, so the distance between their reads
// is a step's tiles: shared, as the exact model's L2 and MALL serve them. (A's row panel is read by ids 0-15, which
// the slice of 4 CUs per XCD simulates itself: no share needed.)
TEST(ReuseProbe, GemmPanelsReadByNeighboursAtTheSameStepStayShared) {
  const Pair p = model_both(corpus::hip_object("gfx942", "kb_matmul.co"),
                            "kernel: kb_matmul_f32\ngrid: [16, 16, 1]\nblock: [16, 16, 1]\nargs:\n"
                            "  - {name: A, buffer: f32, count: 65536}\n  - {name: B, buffer: f32, count: 65536}\n"
                            "  - {name: C, buffer: f32, count: 65536, output: true}\n"
                            "  - {name: M, value: 256, type: i32}\n  - {name: N, value: 256, type: i32}\n"
                            "  - {name: K, value: 256, type: i32}\n",
                            0.25);
  const double exact = static_cast<double>(p.exact.model.hbm_bytes), sampled = static_cast<double>(p.sampled.model.hbm_bytes);
  std::cout << fmt::format("[reuse] kb_matmul 256^3: HBM MB exact {:.2f}, sampled {:.2f} ({}); modeled us exact {:.3f}, sampled {:.3f}\n",
                           exact / 1e6, sampled / 1e6, p.sampled.model.sample.description, p.exact.timing().microseconds,
                           p.sampled.timing().microseconds);
  ASSERT_TRUE(p.sampled.sample.sampled);
  ASSERT_GT(p.sampled.sample.probe_groups, 0u);
  ASSERT_EQ(p.sampled.sample.slice.read_shares.size(), 1u) << "B's column panel is shared";
  const auto& b = p.sampled.sample.slice.read_shares[0];
  EXPECT_EQ(b.end_sector - b.first_sector, 65536u * 4 / 64) << "one operand's sectors";
  EXPECT_LT(b.hbm_share, 0.25) << "most of the column's 16 readers share the fetch";
  EXPECT_NEAR(sampled / exact, 1.0, 0.3);
}

}  // namespace
}  // namespace asmevo::timing
