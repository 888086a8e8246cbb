// Direction tests: pairs of kernels whose faster member is known from how the hardware works; the
// model must rank each pair correctly. Semantics-neutral edits must move the modeled time by < 1%.
// Kernels are assembled from snippets (tests/emu/emu_test_util.h: s[2:3] = out buffer, v0 = lane).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <bit>
#include <iostream>
#include <random>
#include <set>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "tests/emu/emu_test_util.h"
#include "timing/backend.h"
#include "timing/profile.h"
#include "timing/trace.h"

namespace asmevo::timing {
namespace {

struct SnippetLaunch {
  unsigned groups = 1, block = 64;
  unsigned out_dwords = 1 << 20;  // the out buffer doubles as the kernels' input
  unsigned dynamic_lds = 0;
  unsigned agprs = 0;
};

ModeledRun model_snippet(const std::string& arch, const std::string& body, const SnippetLaunch& sl = {}, unsigned threads = 1) {
  auto co = codeobj::CodeObject::parse(emu::test::assemble_kernel(arch, body, 1, {}, sl.agprs), "snippet-" + arch);
  const codeobj::Kernel* k = co.kernel("k");
  EXPECT_NE(k, nullptr);
  emu::LaunchSpec spec = emu::parse_launch_spec_text(fmt::format(R"(
kernel: k
grid: [{}, 1, 1]
block: [{}, 1, 1]
dynamic_lds: {}
args:
  - {{name: out, buffer: u32, count: {}, init: {{ints: [0, 1000]}}}}
)",
                                                                 sl.groups, sl.block, sl.dynamic_lds, sl.out_dwords));
  return model_kernel({&co, k, &spec}, threads);
}

uint64_t cycles(const std::string& arch, const std::string& body, const SnippetLaunch& sl = {}) {
  return model_snippet(arch, body, sl).model.cycles;
}

// The model must rank the pair; the figures go to the test log (they are modeled cycles).
void expect_faster(const std::string& what, uint64_t faster, uint64_t slower) {
  std::cout << fmt::format("  [modeled] {}: {} vs {} cycles ({:.2f}x)\n", what, faster, slower,
                           faster ? static_cast<double>(slower) / faster : 0.0);
  EXPECT_LT(faster, slower) << what;
}

// v1 = lane * 16 (byte offset of the lane's 16-byte slot).
const char* const kLane16 = "  v_lshlrev_b32 v1, 4, v0\n";

std::string valu_work(unsigned n, unsigned reg = 20) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += fmt::format("  v_add_u32 v{0}, v{0}, v{1}\n", reg + i % 8, reg + (i + 1) % 8);
  return s;
}

const HwParams& hw_for(const std::string& arch) {
  return hw_params(arch == "gfx90a" ? codeobj::Arch::gfx90a : arch == "gfx942" ? codeobj::Arch::gfx942 : codeobj::Arch::gfx950);
}

class Direction : public ::testing::TestWithParam<std::string> {};

TEST_P(Direction, OneDwordx4LoadBeatsFourDwordLoads) {
  // A streaming loop (16 iterations, 16 waves per workgroup): the same bytes as four dword loads or
  // one dwordx4 load per lane and iteration. The texture addresser handles each wave instruction, so
  // four instructions cost it four times the work of one.
  auto loop = [](const std::string& loads) {
    return std::string(kLane16) + "  v_lshlrev_b32 v2, 4, v0\n  s_mov_b32 s8, 16\n.Lloop:\n" + loads +
           "  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v10, v11\n  v_add_u32 v10, v10, v12\n  v_add_u32 v10, v10, v13\n"
           "  v_add_u32 v1, 0x4000, v1\n  s_sub_u32 s8, s8, 1\n  s_cmp_lg_u32 s8, 0\n  s_cbranch_scc1 .Lloop\n";
  };
  const std::string four = loop("  global_load_dword v10, v1, s[2:3]\n  global_load_dword v11, v1, s[2:3] offset:4\n"
                                "  global_load_dword v12, v1, s[2:3] offset:8\n  global_load_dword v13, v1, s[2:3] offset:12\n");
  const std::string x4 = loop("  global_load_dwordx4 v[10:13], v1, s[2:3]\n");
  SnippetLaunch sl{.groups = 16, .block = 1024, .out_dwords = 1 << 18};
  expect_faster("dwordx4 vs 4x dword", cycles(GetParam(), x4, sl), cycles(GetParam(), four, sl));
}

TEST_P(Direction, HoistedLoadBeatsLoadAfterIndependentWork) {
  const std::string load = std::string(kLane16) + "  global_load_dword v10, v1, s[2:3]\n";
  const std::string use = "  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v10, v20\n";
  const std::string late = valu_work(40) + load + use;
  const std::string hoisted = load + valu_work(40) + use;
  expect_faster("hoisted load vs late load", cycles(GetParam(), hoisted), cycles(GetParam(), late));
}

TEST_P(Direction, ExactVmcntBeatsVmcntZero) {
  // Two loads; the first result is consumed by work before the second is needed.
  const std::string loads = std::string(kLane16) + "  v_add_u32 v2, 0x2000, v1\n  global_load_dword v10, v1, s[2:3]\n"
                                                   "  global_load_dword v11, v2, s[2:3]\n";
  const std::string work = "  v_mov_b32 v20, v10\n" + valu_work(24) + "  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v20, v11\n";
  const std::string zero = loads + "  s_waitcnt vmcnt(0)\n" + work;
  const std::string exact = loads + "  s_waitcnt vmcnt(1)\n" + work;
  expect_faster("vmcnt(1) vs vmcnt(0)", cycles(GetParam(), exact), cycles(GetParam(), zero));
}

TEST_P(Direction, FewerVgprsRaiseOccupancyOnALatencyBoundKernel) {
  // A chain of dependent loads per wave (latency-bound), many more workgroups than fit at once.
  std::string chase = std::string(kLane16) + "  global_load_dword v10, v1, s[2:3]\n";
  for (int i = 0; i < 24; ++i)
    chase += "  s_waitcnt vmcnt(0)\n  v_and_b32 v10, 0xff0, v10\n  v_add_u32 v10, v10, v1\n  global_load_dword v10, v10, s[2:3]\n";
  chase += "  s_waitcnt vmcnt(0)\n";
  const HwParams& hw = hw_for(GetParam());
  SnippetLaunch many{.groups = hw.cus * 16, .block = 64};
  SnippetLaunch fat = many;
  fat.agprs = 128;  // 256 registers per lane: 2 waves per SIMD instead of 4
  const ModeledRun lean = model_snippet(GetParam(), chase, many), heavy = model_snippet(GetParam(), chase, fat);
  ASSERT_GT(lean.model.occupancy.waves_per_simd, heavy.model.occupancy.waves_per_simd);
  expect_faster("128 vs 256 registers", lean.model.cycles, heavy.model.cycles);
}

TEST_P(Direction, OneWorkgroupMoreThanFitsCostsASecondRound) {
  // Tail effect: with every CU full, one more workgroup waits for a free slot and runs alone at the end.
  std::string chase = std::string(kLane16) + "  global_load_dword v10, v1, s[2:3]\n";
  for (int i = 0; i < 8; ++i)
    chase += "  s_waitcnt vmcnt(0)\n  v_and_b32 v10, 0xff0, v10\n  v_add_u32 v10, v10, v1\n  global_load_dword v10, v10, s[2:3]\n";
  chase += "  s_waitcnt vmcnt(0)\n";
  const HwParams& hw = hw_for(GetParam());
  SnippetLaunch full{.groups = hw.cus * 4, .block = 256};  // 128 registers: 4 waves/SIMD = 4 workgroups of 4 waves per CU
  const ModeledRun fits = model_snippet(GetParam(), chase, full);
  ASSERT_EQ(fits.model.occupancy.workgroups_per_cu, 4u);
  SnippetLaunch one_more = full;
  one_more.groups += 1;
  const uint64_t tail = model_snippet(GetParam(), chase, one_more).model.cycles;
  expect_faster("all workgroups resident vs one more", fits.model.cycles, tail);
}

TEST_P(Direction, PaddedLdsBeatsBankConflicts) {
  // Every lane writes and reads one dword at lane * stride: stride 32 dwords puts all lanes of a phase in
  // one bank (64 on gfx950: stride 64); one more dword of padding spreads them over all banks.
  const unsigned banks = GetParam() == "gfx950" ? 64 : 32;
  auto body = [&](unsigned stride_dwords) {
    std::string s = fmt::format("  v_mul_u32_u24 v1, {}, v0\n", stride_dwords * 4);
    for (int i = 0; i < 8; ++i) s += fmt::format("  ds_write_b32 v1, v0 offset:{}\n", 4 * i);
    s += "  s_waitcnt lgkmcnt(0)\n";
    for (int i = 0; i < 8; ++i) s += fmt::format("  ds_read_b32 v{}, v1 offset:{}\n", 10 + i, 4 * i);
    s += "  s_waitcnt lgkmcnt(0)\n";
    return s;
  };
  SnippetLaunch sl{.groups = 8, .block = 256, .dynamic_lds = 65 * 64 * 4 + 64};
  if (GetParam() == "gfx950") sl.dynamic_lds = 65 * 64 * 4 * 2;
  expect_faster("padded vs conflicting LDS", cycles(GetParam(), body(banks + 1), sl), cycles(GetParam(), body(banks), sl));
}

TEST_P(Direction, InterleavedMfmaChainsBeatDependentOnes) {
  // Two chains X and Y; each MFMA reads its chain's previous result as SrcA. Dependent: X1..X4 then
  // Y1..Y4; interleaved: X1 Y1 X2 Y2 ...: the other chain's MFMA hides the SrcA dependency.
  auto mfma = [](char chain, int i) {
    const int base = chain == 'X' ? 40 : 60;
    const int dst = base + 4 * i, src = i == 0 ? (chain == 'X' ? 1 : 2) : base + 4 * (i - 1);
    return fmt::format("  v_mfma_f32_16x16x4f32 v[{}:{}], v{}, v3, v[{}:{}]\n", dst, dst + 3, src, dst, dst + 3);
  };
  std::string dependent, interleaved;
  for (int i = 0; i < 4; ++i) dependent += mfma('X', i);
  for (int i = 0; i < 4; ++i) dependent += mfma('Y', i);
  for (int i = 0; i < 4; ++i) interleaved += mfma('X', i) + mfma('Y', i);
  const std::string tail = "  s_nop 15\n  v_mov_b32 v10, v52\n  v_add_f32 v10, v10, v72\n";
  expect_faster("interleaved vs dependent MFMAs", cycles(GetParam(), interleaved + tail), cycles(GetParam(), dependent + tail));
}

TEST_P(Direction, RegisterRenamingChangesLessThanOnePercent) {
  auto body = [](unsigned a, unsigned b) {
    std::string s = std::string(kLane16) + fmt::format("  global_load_dwordx2 v[{0}:{1}], v1, s[2:3]\n", a, a + 1);
    s += valu_work(16, b) + "  s_waitcnt vmcnt(0)\n";
    s += fmt::format("  v_add_u32 v10, v{}, v{}\n", a, a + 1);
    return s;
  };
  SnippetLaunch sl{.groups = 32, .block = 256};
  const double x = static_cast<double>(cycles(GetParam(), body(40, 20), sl));
  const double y = static_cast<double>(cycles(GetParam(), body(70, 50), sl));
  std::cout << fmt::format("  [modeled] renamed registers: {} vs {} cycles\n", x, y);
  EXPECT_LT(std::abs(x - y) / x, 0.01);
}

TEST_P(Direction, MovingAnOffCriticalPathNopChangesLessThanOnePercent) {
  const std::string load = std::string(kLane16) + "  global_load_dword v10, v1, s[2:3]\n";
  const std::string use = "  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v10, v20\n";
  // The s_nop sits in the shadow of the load either way.
  const std::string a = load + "  s_nop 3\n" + valu_work(4) + use;
  const std::string b = load + valu_work(4) + "  s_nop 3\n" + use;
  SnippetLaunch sl{.groups = 32, .block = 256};
  const double x = static_cast<double>(cycles(GetParam(), a, sl)), y = static_cast<double>(cycles(GetParam(), b, sl));
  std::cout << fmt::format("  [modeled] s_nop moved: {} vs {} cycles\n", x, y);
  EXPECT_LT(std::abs(x - y) / x, 0.01);
}

TEST_P(Direction, TranscendentalsCostMoreThanPlainValu) {
  std::string trans, plain;
  for (int i = 0; i < 32; ++i) trans += fmt::format("  v_exp_f32 v{}, v{}\n", 20 + i % 8, 20 + (i + 7) % 8);
  for (int i = 0; i < 32; ++i) plain += fmt::format("  v_add_f32 v{}, v{}, v{}\n", 20 + i % 8, 20 + (i + 7) % 8, 20 + i % 8);
  expect_faster("v_add_f32 vs v_exp_f32", cycles(GetParam(), plain), cycles(GetParam(), trans));
}

INSTANTIATE_TEST_SUITE_P(Arch, Direction, ::testing::Values("gfx942", "gfx90a", "gfx950"));

TEST(Timing, SameLaunchSameCyclesAtAnyThreadCount) {
  std::string body = std::string(kLane16) + "  global_load_dwordx4 v[10:13], v1, s[2:3]\n" + valu_work(12) +
                     "  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v10, v13\n";
  SnippetLaunch sl{.groups = 96, .block = 256};
  const ModeledRun one = model_snippet("gfx942", body, sl, 1), four = model_snippet("gfx942", body, sl, 4);
  EXPECT_EQ(one.model.cycles, four.model.cycles);
  EXPECT_EQ(one.model.hbm_bytes, four.model.hbm_bytes);
  EXPECT_EQ(one.timing().kind, FigureKind::Modeled);
}

TEST(Timing, ProfileAttributesWaitcntStallsToTheWait) {
  std::string body = std::string(kLane16) + "  global_load_dword v10, v1, s[2:3]\n  s_waitcnt vmcnt(0)\n  v_add_u32 v10, v10, v10\n";
  const ModeledRun r = model_snippet("gfx942", body);
  const auto& insts = r.program->insts();
  double wait_vm = 0;
  for (size_t i = 0; i < insts.size(); ++i)
    if (insts[i].raw->mnemonic == "s_waitcnt") wait_vm = std::max(wait_vm, r.model.per_inst[i].stall[static_cast<int>(Stall::WaitcntVm)]);
  EXPECT_GE(wait_vm, hw_params(codeobj::Arch::gfx942).lat_l1);  // at least a cache latency
  auto windows = hot_windows(*r.program, r.model, 64, 3);
  ASSERT_FALSE(windows.empty());
  EXPECT_GT(windows[0].share, 0.0);
  EXPECT_LE(windows[0].last - windows[0].first + 1, 64u);
  auto j = profile_json(*r.program, r.model, windows);
  EXPECT_EQ(j["figure"], "modeled");
  EXPECT_FALSE(j["hot_windows"].empty());
}

TEST(Timing, UntimableInstructionIsRefusedByName) {
  try {
    model_snippet("gfx942", "  s_icache_inv\n");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("s_icache_inv"), std::string::npos) << e.what();
  }
}

TEST(LdsBanks, PhaseCyclesFollowTheMeasuredRules) {
  uint32_t a[64], none[64] = {};
  for (unsigned l = 0; l < 64; ++l) a[l] = 4 * l;
  EXPECT_EQ(lds_phase_cycles(a, none, ~0ull, 4, 1, 32, true), 2u);   // b32: 2 phases, conflict-free
  for (unsigned l = 0; l < 64; ++l) a[l] = 128 * l;
  EXPECT_EQ(lds_phase_cycles(a, none, ~0ull, 4, 1, 32, true), 64u);  // every lane of a phase in bank 0
  for (unsigned l = 0; l < 64; ++l) a[l] = 0;
  EXPECT_EQ(lds_phase_cycles(a, none, ~0ull, 4, 1, 32, true), 2u);   // broadcast
  for (unsigned l = 0; l < 64; ++l) a[l] = 16 * l;
  EXPECT_EQ(lds_phase_cycles(a, none, ~0ull, 16, 1, 32, true), 8u);  // b128: 8 phases of 8 lanes
  EXPECT_EQ(lds_phase_cycles(a, none, ~0ull, 16, 1, 64, true), 4u);  // gfx950: 4 phases of 16
}

// The conflict-free shortcut of lds_phase_cycles against the rule written out plainly (contiguous lane groups:
// every width but the b128 read, whose measured groups only reorder the lanes a phase takes): per phase, each
// bank's distinct dwords, the busiest bank's count summed over phases.
TEST(LdsBanks, PhaseCyclesEqualThePlainCountOnRandomAccesses) {
  std::mt19937_64 rng(14);
  const unsigned widths[] = {1, 2, 4, 8, 12, 16};
  unsigned conflicted = 0, free_of_conflicts = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const unsigned banks = rng() % 2 ? 32 : 64, bytes = widths[rng() % 6], naddr = rng() % 3 == 0 ? 2 : 1;
    const bool read = bytes != 16 && rng() % 2;
    uint64_t exec = rng();
    if (rng() % 4) exec = ~0ull;
    uint32_t a0[64], a1[64];
    const unsigned pattern = rng() % 4, stride = static_cast<unsigned>(4u << (rng() % 6));
    for (unsigned l = 0; l < 64; ++l) {
      const uint32_t lane_base = pattern == 0 ? l * std::max(4u, bytes)                // unit stride
                                 : pattern == 1 ? l * stride                            // strided
                                 : pattern == 2 ? static_cast<uint32_t>(rng() % 4096)   // scattered
                                                : (l / 4) * 4u;                        // partly broadcast
      a0[l] = lane_base, a1[l] = lane_base + 256;
    }
    const unsigned lane_bytes = std::max(4u, bytes) * naddr;
    const unsigned per_phase = std::min(64u, std::bit_floor(std::max(1u, banks * 4 / lane_bytes)));
    unsigned expect = 0;
    for (unsigned p = 0; p < 64 / per_phase; ++p) {
      std::vector<std::set<uint32_t>> dwords(banks);
      for (unsigned l = p * per_phase; l < (p + 1) * per_phase; ++l)
        for (unsigned k = 0; k < naddr && (exec >> l & 1); ++k)
          for (uint32_t d = (k ? a1[l] : a0[l]) / 4; d <= ((k ? a1[l] : a0[l]) + bytes - 1) / 4; ++d) dwords[d % banks].insert(d);
      size_t worst = 0;
      for (const auto& b : dwords) worst = std::max(worst, b.size());
      expect += static_cast<unsigned>(worst);
    }
    const unsigned got = lds_phase_cycles(a0, a1, exec, bytes, naddr, banks, read);
    ASSERT_EQ(got, std::max(expect, 1u)) << "trial " << trial << " bytes " << bytes << " addresses " << naddr << " banks " << banks;
    (expect == 64 / per_phase ? free_of_conflicts : conflicted) += 1;
  }
  EXPECT_GT(conflicted, 1000u);  // both paths taken
  EXPECT_GT(free_of_conflicts, 1000u);
}

// The recorder's memory of LDS costs gives lds_phase_cycles' answer whatever it is asked: a few instructions whose
// patterns recur, shifted by bank rows, by other amounts, and near the top of the 32-bit address space.
TEST(LdsBanks, CostCacheAnswersAsTheCostFunction) {
  std::mt19937_64 rng(1414);
  LdsCostCache cache;
  uint32_t pattern[4][64];
  for (auto& p : pattern)
    for (unsigned l = 0; l < 64; ++l) p[l] = static_cast<uint32_t>(rng() % 2048) & ~3u;
  const unsigned widths[] = {4, 8, 16};
  unsigned recurring = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const unsigned which = static_cast<unsigned>(rng() % 4), inst = which * 16;  // 0 and 32, 16 and 48 share a slot
    const unsigned bytes = widths[which % 3], naddr = which == 3 ? 2 : 1, banks = trial % 2 ? 32 : 64;
    const uint64_t exec = rng() % 8 ? ~0ull : rng();
    const unsigned how = static_cast<unsigned>(rng() % 4);
    const uint32_t shift = how == 0   ? 0
                           : how == 1 ? static_cast<uint32_t>(rng() % 64) * 4 * banks    // whole bank rows
                           : how == 2 ? static_cast<uint32_t>(rng() % 4096)               // anything
                                      : 0xFFFFFFFFu - static_cast<uint32_t>(rng() % 4096); // wraps past 2^32
    uint32_t a0[64], a1[64];
    for (unsigned l = 0; l < 64; ++l) a0[l] = pattern[which][l] + shift, a1[l] = a0[l] + 512;
    ASSERT_EQ(cache.cost(inst, a0, a1, exec, bytes, naddr, banks, true), lds_phase_cycles(a0, a1, exec, bytes, naddr, banks, true))
        << "trial " << trial;
    recurring += how <= 1;
  }
  EXPECT_GT(recurring, 5000u);
}

}  // namespace
}  // namespace asmevo::timing
