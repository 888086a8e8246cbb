// The premises of bench/calibration's A/B pairs on the pipelined GEMM (calibration.hip pipe_gemm), checked on
// the variants as compiled: each pair must differ in what its row says it differs in, and in nothing the
// compiler could add (a compiler update that erased the difference would leave the bench comparing a kernel
// with itself).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "codeobj/arch_params.h"
#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/file_io.h"

using namespace asmevo;

namespace {

const codeobj::CodeObject& calibration_object() {
  static const codeobj::CodeObject co = [] {
    const std::string path = std::string(ASMEVO_CALIBRATION_DIR) + "/gfx942/calibration.co";
    return codeobj::CodeObject::parse(read_file_bytes(path), path);
  }();
  return co;
}

std::vector<program::Instruction> decode(const std::string& kernel) {
  const auto& co = calibration_object();
  const auto* k = co.kernel(kernel);
  if (!k) ADD_FAILURE() << "no kernel " << kernel;
  if (!k) return {};
  program::Decoder dec(co.target());
  return dec.decode_range(co.code_bytes(*k), k->code_address);
}

// The k loop's body: from the target of the last backward branch to that branch.
std::vector<program::Instruction> loop_body(const std::vector<program::Instruction>& insts) {
  for (size_t i = insts.size(); i-- > 0;) {
    const auto& b = insts[i];
    if (!b.branch_target || static_cast<uint64_t>(*b.branch_target) >= b.address) continue;
    for (size_t j = 0; j < i; ++j)
      if (insts[j].address == static_cast<uint64_t>(*b.branch_target)) return {insts.begin() + j, insts.begin() + i + 1};
  }
  return {};
}

unsigned count_text(const std::vector<program::Instruction>& insts, const std::string& text) {
  unsigned n = 0;
  for (const auto& in : insts) n += in.text.find(text) != std::string::npos;
  return n;
}

}  // namespace

// vmcnt pair: the base waits for the older prefetch stage only (vmcnt(3): the newer stage's three loads stay in
// flight), the other variant adds one vmcnt(0) per step, two steps per trip.
TEST(CalibrationKernels, VmcntPairDiffersInItsWaitsOnly) {
  const auto base = loop_body(decode("pipe_gemm_d2")), all = loop_body(decode("pipe_gemm_d2_vmcnt0"));
  ASSERT_FALSE(base.empty());
  ASSERT_FALSE(all.empty());
  EXPECT_GE(count_text(base, "s_waitcnt vmcnt(3)"), 2u);
  EXPECT_EQ(count_text(base, "vmcnt(0)"), 0u);
  EXPECT_EQ(count_text(all, "s_waitcnt vmcnt(0)"), 2u);
  EXPECT_EQ(base.size() + 2, all.size());
  EXPECT_EQ(count_text(base, "v_mfma"), count_text(all, "v_mfma"));
  EXPECT_EQ(count_text(base, "global_load"), count_text(all, "global_load"));
}

// Barrier pair on the pipelined GEMM: one more s_barrier per step (two per trip), nothing else added.
TEST(CalibrationKernels, BarrierPairAddsOneBarrierPerStep) {
  const auto base = loop_body(decode("pipe_gemm_d2")), extra = loop_body(decode("pipe_gemm_d2_extra_barrier"));
  ASSERT_FALSE(base.empty());
  ASSERT_FALSE(extra.empty());
  EXPECT_EQ(count_text(extra, "s_barrier"), count_text(base, "s_barrier") + 2);
  for (const char* m : {"v_mfma", "global_load", "ds_read", "ds_write"}) EXPECT_EQ(count_text(base, m), count_text(extra, m)) << m;
}

// Interleave pair: the same instructions in the loop (as many MFMAs, global loads and ds_reads), and the default
// schedule issues its first global load after more MFMAs than the sched_group_barrier one does.
TEST(CalibrationKernels, InterleavePairIssuesLoadsEarlierAmongTheMfmas) {
  const auto base = loop_body(decode("pipe_gemm_d1")), mixed = loop_body(decode("pipe_gemm_d1_interleave"));
  ASSERT_FALSE(base.empty());
  ASSERT_FALSE(mixed.empty());
  for (const char* m : {"v_mfma", "global_load", "ds_read", "ds_write", "s_barrier"})
    EXPECT_EQ(count_text(base, m), count_text(mixed, m)) << m;
  auto mfmas_before_first_load = [](const std::vector<program::Instruction>& body) {
    unsigned n = 0;
    for (const auto& in : body) {
      if (in.text.find("global_load") != std::string::npos) return n;
      n += in.text.find("v_mfma") != std::string::npos;
    }
    return n;
  };
  EXPECT_LT(mfmas_before_first_load(mixed), mfmas_before_first_load(base));
}

// ds_read clustering pairs (one and two prefetch stages): the same instructions; clustered issues every ds_read of a
// step before its first MFMA, spread issues some after one.
TEST(CalibrationKernels, DsReadPairClustersAndSpreads) {
  for (const char* base : {"pipe_gemm_d1", "pipe_gemm_d2"}) {
    SCOPED_TRACE(base);
    const auto clustered = loop_body(decode(std::string(base) + "_ds_clustered"));
    const auto spread = loop_body(decode(std::string(base) + "_ds_spread"));
    ASSERT_FALSE(clustered.empty());
    ASSERT_FALSE(spread.empty());
    for (const char* m : {"v_mfma", "global_load", "ds_read", "ds_write", "s_barrier"})
      EXPECT_EQ(count_text(clustered, m), count_text(spread, m)) << m;
    auto reads_after_an_mfma = [](const std::vector<program::Instruction>& body) {  // within a step (barrier to barrier)
      unsigned n = 0;
      bool mfma_seen = false;
      for (const auto& in : body) {
        if (in.text.find("s_barrier") != std::string::npos) mfma_seen = false;
        if (in.text.find("v_mfma") != std::string::npos) mfma_seen = true;
        n += mfma_seen && in.text.find("ds_read") != std::string::npos;
      }
      return n;
    };
    EXPECT_EQ(reads_after_an_mfma(clustered), 0u);
    EXPECT_GT(reads_after_an_mfma(spread), 0u);
  }
}

// Occupancy pair: the default allocation leaves one wave per SIMD (registers), waves_per_eu(2) two; LDS allows
// two workgroups of 256 work-items per CU for both.
TEST(CalibrationKernels, OccupancyPairRunsOneAndTwoWavesPerSimd) {
  const auto& co = calibration_object();
  const auto* ap = codeobj::arch_params(co.target().arch);
  ASSERT_NE(ap, nullptr);
  auto waves = [&](const std::string& name) {
    const auto* k = co.kernel(name);
    EXPECT_TRUE(k && k->resources) << name;
    if (!k || !k->resources) return codeobj::Occupancy{};
    const auto& r = *k->resources;
    return codeobj::compute_occupancy(*ap, r.vgprs_allocated, r.sgprs_allocated, r.lds_bytes, 256);
  };
  const auto one = waves("pipe_gemm_big"), two = waves("pipe_gemm_big_wpe2");
  EXPECT_EQ(one.waves_per_simd, 1u);
  EXPECT_EQ(one.limiter, "vgprs");
  EXPECT_EQ(two.waves_per_simd, 2u);
  EXPECT_GE(two.by_lds, 2u);
}

// The RoPE rows' Triton kernels (bench/calibration/triton), as committed: Triton's assembly unmodified (build.py
// finalize), including its `v_cndmask_b32_e64 vD, -vS, vS, vcc` selects (the neg modifier flips bit 31). Emulated
// on 48 tokens x 16 heads (a partial last tile at BLOCK_M 32), the result must be the inverse GPT-J rotation of a
// float64 reference within bf16 rounding, and the table unchanged: the bench times a kernel that computes RoPE.
TEST(CalibrationKernels, TritonRopeComputesTheInverseRotation) {
  const uint64_t tokens = 48, heads = 16, rd = 64;
  for (unsigned block_m : {32u, 8u}) {
    SCOPED_TRACE(fmt::format("BLOCK_M {}", block_m));
    const std::string path = fmt::format("{}/gfx942/rope_contig_m{}.hsaco", ASMEVO_CALIBRATION_TRITON_DIR, block_m);
    auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
    const codeobj::Kernel* k = co.kernel("rope_contig_kernel");
    ASSERT_NE(k, nullptr);
    const emu::LaunchSpec spec = emu::parse_launch_spec_text(fmt::format(R"(kernel: rope_contig_kernel
grid: [{0}, 16, 1]
block: [256, 1, 1]
dynamic_lds: {3}
args:
  - {{name: x, buffer: bf16, count: {1}, init: {{uniform: [-1, 1]}}, inout: true}}
  - {{name: fr, buffer: f32, count: {2}, init: {{uniform: [-1, 1]}}}}
  - {{name: n_tokens, value: {4}, type: i32}}
  - {{name: stride_token, value: 1024, type: i32}}
  - {{name: stride_head, value: 64, type: i32}}
  - {{pointer: null}}
  - {{pointer: null}}
)", (tokens + block_m - 1) / block_m, tokens * heads * rd, tokens * rd, block_m == 32 ? 4096 : 1024, tokens), "rope test");
    const auto x0 = emu::make_buffer(spec, 0), fr = emu::make_buffer(spec, 1);
    program::Decoder dec(co.target());
    auto prog = emu::Program::build(co, *k, dec);
    auto launch = emu::prepare_launch(co, *k, spec, 1);
    emu::run_launch(*launch, *prog, emu::RunOptions{});
    const auto bf16 = [](const uint8_t* p) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(h) << 16));
    };
    const auto f32 = [&](uint64_t i) {
      float f;
      std::memcpy(&f, fr.data() + 4 * i, 4);
      return static_cast<double>(f);
    };
    uint64_t checked = 0;
    for (const auto& b : launch->buffers) {
      const auto dev = launch->contents(b);
      if (b.arg_index == 1) EXPECT_EQ(0, std::memcmp(dev.data(), fr.data(), fr.size())) << "the cos/sin table changed";
      if (b.arg_index != 0) continue;
      unsigned bad = 0;
      for (uint64_t e = 0; e < tokens * heads * rd && bad < 5; ++e) {
        const uint64_t t = e / (heads * rd), d = e % rd, even = e & ~uint64_t{1};
        const double c = f32(t * rd + (d & ~uint64_t{1})), s = f32(t * rd + (d | 1));
        const double x_even = bf16(x0.data() + 2 * even), x_odd = bf16(x0.data() + 2 * (even + 1));
        const double want = d % 2 == 0 ? x_even * c + x_odd * s : x_odd * c - x_even * s;
        const double got = bf16(dev.data() + 2 * e);
        ++checked;
        if (std::abs(got - want) > 1.0 / 128 * std::max(1.0, std::abs(want)))
          ++bad, ADD_FAILURE() << fmt::format("x[{}] = {} emulated, {} expected", e, got, want);
      }
    }
    EXPECT_EQ(checked, tokens * heads * rd);
  }
}
