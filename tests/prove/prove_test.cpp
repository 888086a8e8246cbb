// Window proofs: real rewrites are PROVEN, mutants DISPROVEN with a concrete counterexample, and
// what the prover cannot decide (control flow, unsupported instructions, differences only through
// uninterpreted functions) is UNKNOWN.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>

#include "prove/prove.h"
#include "prove_test_util.h"

namespace asmevo::prove {
namespace {

using test_util::prove;

TEST(Prove, ReorderingIndependentInstructionsIsProven) {
  auto r = prove({"v_add_u32_e32 v1, v2, v3", "v_mul_lo_u32 v4, v5, v6", "s_add_u32 s0, s1, s2"},
                 {"s_add_u32 s0, s1, s2", "v_mul_lo_u32 v4, v5, v6", "v_add_u32_e32 v1, v2, v3"});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
}

TEST(Prove, ReorderingDependentInstructionsIsDisproven) {
  auto r = prove({"v_add_u32_e32 v1, v2, v3", "v_mul_lo_u32 v4, v1, v6"}, {"v_mul_lo_u32 v4, v1, v6", "v_add_u32_e32 v1, v2, v3"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed);
}

TEST(Prove, WaitcntNeutralSwapIsProven) {
  auto r = prove({"global_load_dword v1, v[2:3], off", "s_waitcnt vmcnt(0)", "v_add_u32_e32 v4, v5, v6"},
                 {"global_load_dword v1, v[2:3], off", "v_add_u32_e32 v4, v5, v6", "s_waitcnt vmcnt(0)"});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
}

TEST(Prove, StrengthReductionsAreProven) {
  EXPECT_EQ(prove({"v_mul_lo_u32 v1, v2, 2"}, {"v_add_u32_e32 v1, v2, v2"}).verdict, Verdict::Proven);
  EXPECT_EQ(prove({"v_mul_lo_u32 v1, v2, 2"}, {"v_lshlrev_b32_e32 v1, 1, v2"}).verdict, Verdict::Proven);
  EXPECT_EQ(prove({"s_mul_i32 s1, s2, 8"}, {"s_lshl_b32 s1, s2, 3"}, [] {
              static program::RegSet live;  // SCC dead after the window: s_lshl_b32 also writes it
              live.bits.set(program::RegSet::kSgpr + 1);
              return &live;
            }()).verdict,
            Verdict::Proven);
  // An add/shift pair folded into v_lshl_add_u32.
  EXPECT_EQ(prove({"v_lshlrev_b32_e32 v1, 2, v2", "v_add_u32_e32 v1, v1, v3"}, {"v_lshl_add_u32 v1, v2, 2, v3"}).verdict, Verdict::Proven);
}

TEST(Prove, DeadCodeRemovalNeedsLiveness) {
  std::vector<std::string> old_w = {"v_add_u32_e32 v7, v1, v2", "v_mov_b32_e32 v3, v4"}, new_w = {"v_mov_b32_e32 v3, v4"};
  program::RegSet live;
  live.bits.set(program::RegSet::kVgpr + 3);
  EXPECT_EQ(prove(old_w, new_w, &live).verdict, Verdict::Proven);
  // Window-level equivalence (no context) refuses it: v7 differs.
  auto strict = prove(old_w, new_w);
  EXPECT_EQ(strict.verdict, Verdict::Disproven) << strict.to_text();
}

TEST(Prove, CompareFlipIsDisprovenWithACounterexample) {
  auto r = prove({"v_cmp_gt_i32_e32 vcc, v1, v2"}, {"v_cmp_ge_i32_e32 vcc, v1, v2"});
  ASSERT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed);
  EXPECT_NE(r.reason.find("vcc"), std::string::npos) << r.reason;
  EXPECT_NE(r.counterexample.find("v1[lane"), std::string::npos) << r.counterexample;
  EXPECT_NE(r.counterexample.find("exec"), std::string::npos) << r.counterexample;
}

TEST(Prove, MulToAddIsDisproven) {
  auto r = prove({"v_mul_lo_u32 v1, v2, v3"}, {"v_add_u32_e32 v1, v2, v3"});
  ASSERT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed);
  auto s = prove({"s_mul_i32 s1, s2, s3"}, {"s_add_i32 s1, s2, s3"});
  EXPECT_EQ(s.verdict, Verdict::Disproven) << s.to_text();
}

TEST(Prove, MemoryAliasingIsTheSolversToDecide) {
  // Loads commute with loads.
  auto l = prove({"global_load_dword v3, v[4:5], off", "global_load_dwordx2 v[6:7], v[8:9], off offset:16"},
                 {"global_load_dwordx2 v[6:7], v[8:9], off offset:16", "global_load_dword v3, v[4:5], off"});
  EXPECT_EQ(l.verdict, Verdict::Proven) << l.to_text();
  // A load moved above a store may read what the store wrote (some lane's address may alias):
  // not equivalent, whatever offsets the two use. Two lanes under EXEC (one could alias the
  // other's store): the addresses are free, so the solver decides; 64 lanes would build 256 x 256
  // byte links, which the cost bound below refuses.
  auto r = prove({"s_mov_b64 exec, 3", "global_store_dword v[0:1], v2, off", "global_load_dword v3, v[4:5], off offset:64"},
                 {"s_mov_b64 exec, 3", "global_load_dword v3, v[4:5], off offset:64", "global_store_dword v[0:1], v2, off"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_FALSE(r.confirmed);  // windows with memory are not re-run concretely
  EXPECT_FALSE(r.counterexample.empty());
  // The same with the store's and the load's addresses in disjoint ranges (v1 = 0 vs v5 = 1, the
  // high dwords): no lane can alias, so the reorder is PROVEN, again by the solver.
  auto d = prove({"s_mov_b64 exec, 3", "v_mov_b32_e32 v1, 0", "v_mov_b32_e32 v5, 1", "global_store_dword v[0:1], v2, off",
                  "global_load_dword v3, v[4:5], off offset:64"},
                 {"s_mov_b64 exec, 3", "v_mov_b32_e32 v1, 0", "v_mov_b32_e32 v5, 1", "global_load_dword v3, v[4:5], off offset:64",
                  "global_store_dword v[0:1], v2, off"});
  EXPECT_EQ(d.verdict, Verdict::Proven) << d.to_text();
}

TEST(Prove, MemoryChainPastItsLimitIsUnknownBeforeBuilding) {
  // 64 lanes storing and loading a dwordx4: each of the 1024 loaded bytes would be compared with
  // the 1024 stored ones. The prover refuses before building (Z3 takes minutes to build and free
  // such terms, outside the solver's timeout): UNKNOWN with the reason, never PROVEN, even for
  // two identical windows.
  const std::vector<std::string> w = {"global_store_dwordx4 v[0:1], v[2:5], off", "global_load_dwordx4 v[6:9], v[10:11], off"};
  auto r = prove(w, w);
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_text();
  EXPECT_NE(r.reason.find("memory chain exceeds the limit of 16384"), std::string::npos) << r.reason;
  EXPECT_LT(r.seconds, 5.0) << r.to_text();
  // The bound counts only lanes that run: the same window under a one-lane EXEC is proven.
  const std::vector<std::string> one = {"s_mov_b64 exec, 1", w[0], w[1]};
  EXPECT_EQ(prove(one, one).verdict, Verdict::Proven);
}

TEST(Prove, UninterpretedFunctionsProveEqualUsesAndNeverDisproveAlone) {
  // Transcendentals have no generic definition: uninterpreted, sound for equality.
  auto r = prove({"v_exp_f32_e32 v1, v2", "v_add_u32_e32 v4, v5, v6"}, {"v_add_u32_e32 v4, v5, v6", "v_exp_f32_e32 v1, v2"});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  EXPECT_TRUE(r.uninterpreted);
  auto m = prove({"v_exp_f32_e32 v1, v2"}, {"v_log_f32_e32 v1, v2"});
  EXPECT_NE(m.verdict, Verdict::Proven) << m.to_text();
  if (m.verdict == Verdict::Disproven) EXPECT_TRUE(m.confirmed) << m.to_text();
}

TEST(Prove, UninterpretedUnitsOnConstantsAreTheEmulatorsValue) {
  // An integer division's reciprocal estimate of a divisor the window fixes (a launch constant, a
  // literal): every operand of v_rcp_iflag_f32 is a constant in each lane EXEC runs, so the term is
  // the emulator's own value there and the window is PROVEN equal to the constant.
  const float rcp = 1.0f / 7.0f;  // v_rcp_iflag_f32 of 7.0 (emu/semantics/trans.cpp: 1 / x; 7.0 is normal)
  const uint32_t q = static_cast<uint32_t>(rcp * std::bit_cast<float>(0x4f7ffffeu));
  auto r = prove({"s_mov_b32 s0, 7", "v_cvt_f32_u32_e32 v1, s0", "v_rcp_iflag_f32_e32 v1, v1", "v_mul_f32_e32 v1, 0x4f7ffffe, v1",
                  "v_cvt_u32_f32_e32 v1, v1"},
                 {"s_mov_b32 s0, 7", fmt::format("v_mov_b32_e32 v1, 0x{:x}", q)});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  // One constant off: DISPROVEN, confirmed by the emulator.
  auto off = prove({"s_mov_b32 s0, 7", "v_cvt_f32_u32_e32 v1, s0", "v_rcp_iflag_f32_e32 v1, v1"},
                   {"s_mov_b32 s0, 7", fmt::format("v_mov_b32_e32 v1, 0x{:x}", std::bit_cast<uint32_t>(rcp) + 1)});
  EXPECT_EQ(off.verdict, Verdict::Disproven) << off.to_text();
}

program::RegSet live_vcc() {
  program::RegSet live;
  live.bits.set(program::RegSet::kVcc), live.bits.set(program::RegSet::kVcc + 1);
  return live;
}

TEST(Prove, FloatsAreIeeeTerms) {
  // The same IEEE fma written two ways (and the same NaN function of the same operand bits).
  EXPECT_EQ(prove({"v_fma_f32 v1, v2, v3, v4"}, {"v_mov_b32_e32 v1, v4", "v_fmac_f32_e32 v1, v2, v3"}).verdict, Verdict::Proven);
  // A mirrored compare is the same predicate; an ordered compare's negation is not (NaN).
  EXPECT_EQ(prove({"v_cmp_lt_f32_e32 vcc, v1, v2"}, {"v_cmp_gt_f32_e64 vcc, v2, v1"}).verdict, Verdict::Proven);
  auto nan = prove({"v_cmp_lt_f32_e32 vcc, v1, v2"}, {"v_cmp_nge_f32_e32 vcc, v1, v2"});
  EXPECT_EQ(nan.verdict, Verdict::Disproven) << nan.to_text();
  EXPECT_TRUE(nan.confirmed);
  // An IEEE fact: x - y is x + (-y), so as a compare operand they are interchangeable (the compare
  // result has no NaN bits; as stored values their NaN payloads are different functions).
  const program::RegSet vcc = live_vcc();
  // (One lane under EXEC: each lane's unsat proof bit-blasts an f32 adder; one is enough here.)
  auto sub = prove({"s_mov_b64 exec, 1", "v_sub_f32_e32 v1, v2, v3", "v_cmp_gt_f32_e32 vcc, v4, v1"},
                   {"s_mov_b64 exec, 1", "v_add_f32_e64 v1, v2, -v3", "v_cmp_gt_f32_e32 vcc, v4, v1"}, &vcc);
  EXPECT_EQ(sub.verdict, Verdict::Proven) << sub.to_text();
  // Integer to float conversions round to nearest even: 2^24 + 1 is not exact.
  auto cvt = prove({"v_cvt_f32_i32_e32 v1, v2", "v_cvt_i32_f32_e32 v1, v1"}, {"v_mov_b32_e32 v1, v2"});
  EXPECT_EQ(cvt.verdict, Verdict::Disproven) << cvt.to_text();
  EXPECT_TRUE(cvt.confirmed);
}

TEST(Prove, MinMaxOfZerosFollowTheIsa) {
  // The prover shares the emulator's order of zeros (-0 < +0, emu/generic.h min_num/max_num): the
  // pair is no longer an uninterpreted choice, so these are PROVEN (max(+0, -0) is +0 in either
  // operand order; the minimum of the pair is -0).
  EXPECT_EQ(prove({"v_mov_b32 v2, 0x80000000", "v_max_f32_e32 v1, 0, v2"}, {"v_mov_b32 v2, 0x80000000", "v_mov_b32 v1, 0"}).verdict,
            Verdict::Proven);
  EXPECT_EQ(prove({"v_mov_b32 v2, 0x80000000", "v_max_f32_e64 v1, v2, 0"}, {"v_mov_b32 v2, 0x80000000", "v_mov_b32 v1, 0"}).verdict,
            Verdict::Proven);
  EXPECT_EQ(prove({"v_mov_b32 v2, 0x80000000", "v_min_f32_e32 v1, 0, v2"}, {"v_mov_b32 v2, 0x80000000", "v_mov_b32 v1, v2"}).verdict,
            Verdict::Proven);
}

TEST(Prove, RangeCheckMulToAddIsDisprovenNearItsThreshold) {
  // softmax's exp2 underflow test: x * log2(e) < -126 (the mutant computes x + log2(e)). Only the
  // compare is live: the solver has to find an x between the two thresholds.
  const program::RegSet vcc = live_vcc();
  auto r = prove({"v_mul_f32_e32 v1, 0x3fb8aa3b, v0", "v_cmp_gt_f32_e32 vcc, 0xc2fc0000, v1"},
                 {"v_add_f32_e32 v1, 0x3fb8aa3b, v0", "v_cmp_gt_f32_e32 vcc, 0xc2fc0000, v1"}, &vcc);
  ASSERT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed) << r.to_text();
  EXPECT_NE(r.counterexample.find("v0[lane"), std::string::npos) << r.counterexample;
}

TEST(Prove, DenormalFlushFollowsTheKernelsMode) {
  // |x| below the smallest normal is "x == 0" only when MODE flushes f32 denormals.
  const program::RegSet vcc = live_vcc();
  const std::vector<std::string> a = {"s_mov_b32 s0, 0x800000", "v_cmp_eq_f32_e32 vcc, 0, v2"};
  const std::vector<std::string> b = {"s_mov_b32 s0, 0x800000", "v_cmp_lt_f32_e64 vcc, |v2|, s0"};
  ProofOptions o;
  o.timeout_ms = 10000;
  o.mode_bits = 0x0;  // FP_DENORM 0: flush
  EXPECT_EQ(prove_window(a, b, &vcc, o).verdict, Verdict::Proven);
  o.mode_bits = 0xf0;  // keep denormals
  auto keep = prove_window(a, b, &vcc, o);
  EXPECT_EQ(keep.verdict, Verdict::Disproven) << keep.to_text();
  EXPECT_TRUE(keep.confirmed);
}

TEST(Prove, LoopsAndUnsupportedAreUnknown) {
  const std::vector<std::string> loop = {"BB0_1:", "s_add_u32 s0, s0, 1", "s_cmp_lg_u32 s0, s1", "s_cbranch_scc1 BB0_1"};
  auto r = prove(loop, loop);
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_NE(r.reason.find("backward branch"), std::string::npos) << r.reason;
  auto call = prove({"s_swappc_b64 s[30:31], s[4:5]"}, {"s_swappc_b64 s[30:31], s[4:5]"});
  EXPECT_EQ(call.verdict, Verdict::Unknown);
  EXPECT_NE(call.reason.find("control flow"), std::string::npos) << call.reason;
  // Atomics are not modeled: UNKNOWN even for equal windows. (Buffer loads are: a changed offset
  // is DISPROVEN, tests/prove/prove_buffer_test.cpp.)
  auto atomic = prove({"buffer_atomic_add v1, v2, s[4:7], 0 offen"}, {"buffer_atomic_add v1, v2, s[4:7], 0 offen"});
  EXPECT_EQ(atomic.verdict, Verdict::Unknown);
  EXPECT_NE(atomic.reason.find("unsupported"), std::string::npos) << atomic.reason;
  auto buf = prove({"buffer_load_dword v1, v2, s[4:7], 0 offen"}, {"buffer_load_dword v1, v2, s[4:7], 0 offen offset:4"});
  EXPECT_EQ(buf.verdict, Verdict::Disproven) << buf.to_text();
}

TEST(Prove, CrossLaneMovesFollowExec) {
  // readfirstlane reads the lowest lane under EXEC; readlane of lane 0 is the same only when lane 0
  // runs: the subtly wrong replacement is DISPROVEN (EXEC without bit 0), confirmed concretely.
  auto r = prove({"v_readfirstlane_b32 s4, v1"}, {"v_readlane_b32 s4, v1, 0"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed) << r.to_text();
  auto full = prove({"s_mov_b64 exec, -1", "v_readfirstlane_b32 s4, v1"}, {"s_mov_b64 exec, -1", "v_readlane_b32 s4, v1, 0"});
  EXPECT_EQ(full.verdict, Verdict::Proven) << full.to_text();
  // The lane id idiom (mbcnt lo then hi of all ones) is the lane number in every lane.
  auto id = prove({"s_mov_b64 exec, -1", "v_mbcnt_lo_u32_b32 v0, -1, 0", "v_mbcnt_hi_u32_b32 v0, -1, v0"},
                  {"s_mov_b64 exec, -1", "v_mbcnt_hi_u32_b32 v0, -1, 0", "v_mbcnt_lo_u32_b32 v0, -1, v0"});
  EXPECT_EQ(id.verdict, Verdict::Proven) << id.to_text();
}

TEST(Prove, ExecMaskedLanesKeepTheirValues) {
  // Under EXEC, v_mov v1, v1 is the identity, and a cndmask with equal operands is a move.
  EXPECT_EQ(prove({"v_cndmask_b32_e64 v1, v2, v2, s[4:5]"}, {"v_mov_b32_e32 v1, v2"}).verdict, Verdict::Proven);
  // s_and_saveexec + restore is the identity on EXEC.
  EXPECT_EQ(prove({"s_and_saveexec_b64 s[4:5], s[6:7]", "s_mov_b64 exec, s[4:5]"}, {"s_mov_b64 s[4:5], exec", "s_and_b64 s[8:9], s[6:7], exec"}, [] {
              static program::RegSet live;
              live.bits.set(program::RegSet::kExec), live.bits.set(program::RegSet::kExec + 1);
              live.bits.set(program::RegSet::kSgpr + 4), live.bits.set(program::RegSet::kSgpr + 5);
              return &live;
            }()).verdict,
            Verdict::Proven);
}

// v_cndmask_b32's abs/neg are sign-bit operations on the raw bits (emu/generic.h sign_bit_mods, the
// one definition both the emulator and the prover apply): Triton's "select of -x and x" equals an
// explicit v_xor of bit 31 on v1 (v3 is scratch), and dropping the neg is DISPROVEN, the
// counterexample confirmed by running both windows on the emulator.
TEST(Prove, CndmaskSignModifiersAreSignBitOperations) {
  program::RegSet v1;
  v1.bits.set(program::RegSet::kVgpr + 1);
  auto neg = prove({"v_cndmask_b32_e64 v1, -v2, v2, vcc"}, {"v_xor_b32_e32 v3, 0x80000000, v2", "v_cndmask_b32_e32 v1, v3, v2, vcc"}, &v1);
  EXPECT_EQ(neg.verdict, Verdict::Proven) << neg.to_text();
  auto dropped = prove({"v_cndmask_b32_e64 v1, -v2, v2, vcc"}, {"v_cndmask_b32_e64 v1, v2, v2, vcc"}, &v1);
  ASSERT_EQ(dropped.verdict, Verdict::Disproven) << dropped.to_text();
  EXPECT_TRUE(dropped.confirmed) << dropped.to_text();
  // -|x| sets and |x| clears bit 31, on VGPRs and on inline constants (neg(1.0) is 0xbf800000's bits).
  auto abs = prove({"v_cndmask_b32_e64 v1, -|v2|, |v3|, s[4:5]"},
                   {"v_or_b32_e32 v4, 0x80000000, v2", "v_and_b32_e32 v5, 0x7fffffff, v3", "v_cndmask_b32_e64 v1, v4, v5, s[4:5]"}, &v1);
  EXPECT_EQ(abs.verdict, Verdict::Proven) << abs.to_text();
  auto k = prove({"v_cndmask_b32_e64 v1, neg(1.0), v2, vcc"}, {"v_cndmask_b32_e32 v1, 0xbf800000, v2, vcc"}, &v1);
  EXPECT_EQ(k.verdict, Verdict::Proven) << k.to_text();
  // abs is not neg: a NaN or a negative value tells them apart.
  auto swapped = prove({"v_cndmask_b32_e64 v1, |v2|, v3, vcc"}, {"v_cndmask_b32_e64 v1, -v2, v3, vcc"}, &v1);
  EXPECT_EQ(swapped.verdict, Verdict::Disproven) << swapped.to_text();
}

TEST(Prove, SolverLimitsCountWorkNotWallClock) {
  // x*x - y*y against (x+y)*(x-y): equal, but only bit-blasting both 32-bit multipliers shows it
  // (simplification does not). Under a limit of about 1 ms of solver work the proof gives up, and
  // it gives up the same way every time: the limit is Z3's resource count, not the clock, so the
  // work spent is identical on every run whatever the machine's load.
  program::RegSet live;
  live.bits.set(program::RegSet::kVgpr + 0);
  const std::vector<std::string> a = {"v_mul_lo_u32 v3, v1, v1", "v_mul_lo_u32 v4, v2, v2", "v_sub_u32_e32 v0, v3, v4"};
  const std::vector<std::string> b = {"v_add_u32_e32 v5, v1, v2", "v_sub_u32_e32 v6, v1, v2", "v_mul_lo_u32 v0, v5, v6"};
  ProofOptions o;
  o.timeout_ms = 1, o.budget_ms = 4;
  const ProofResult first = prove_window(a, b, &live, o), second = prove_window(a, b, &live, o);
  EXPECT_EQ(first.verdict, Verdict::Unknown) << first.to_text();
  EXPECT_NE(first.reason.find("work limit"), std::string::npos) << first.to_text();
  EXPECT_GT(first.solver_work, 0u);
  EXPECT_EQ(first.solver_work, second.solver_work) << "the work spent depends on nothing but the query";
  EXPECT_EQ(first.reason, second.reason);
}

TEST(Prove, AWallClockDeadlineEndsTheProofUnknownAboutThen) {
  // The same proof with work limits it would take far longer than a second to reach (each lane's
  // query bit-blasts two multipliers: lane 0's alone ran past 30 s on the shared 2-core machine) and
  // a deadline 300 ms away: the query running at the deadline is cut and no other starts, UNKNOWN,
  // saying the deadline decided it.
  program::RegSet live;
  live.bits.set(program::RegSet::kVgpr + 0);
  const std::vector<std::string> a = {"v_mul_lo_u32 v3, v1, v1", "v_mul_lo_u32 v4, v2, v2", "v_sub_u32_e32 v0, v3, v4"};
  const std::vector<std::string> b = {"v_add_u32_e32 v5, v1, v2", "v_sub_u32_e32 v6, v1, v2", "v_mul_lo_u32 v0, v5, v6"};
  ProofOptions o;
  o.timeout_ms = o.budget_ms = 600000;
  const auto start = std::chrono::steady_clock::now();
  o.deadline = start + std::chrono::milliseconds(300);
  const ProofResult r = prove_window(a, b, &live, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_text();
  EXPECT_NE(r.reason.find("wall-clock deadline"), std::string::npos) << r.to_text();
  EXPECT_LT(seconds, 0.3 + 1.0) << r.to_text();
  // A deadline already past: UNKNOWN before anything is built.
  o.deadline = std::chrono::steady_clock::now();
  const ProofResult late = prove_window(a, b, &live, o);
  EXPECT_EQ(late.verdict, Verdict::Unknown);
  EXPECT_NE(late.reason.find("before this window was built"), std::string::npos) << late.to_text();
}

}  // namespace
}  // namespace asmevo::prove
