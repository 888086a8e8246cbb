// GLOBAL / FLAT atomics (emu/semantics/atomics.cpp): return value = the old value, lane order,
// every integer op, cmpswap operand order, 64-bit forms, float atomics (incl. the gfx90a f32
// denormal flush), flat atomics that hit LDS, waitcnt on the returned value, memory faults.
// The snippet's output buffer doubles as the atomics' target; results are loaded back into
// v10.. before the epilogue stores them. Expectations are hand-computed from the ISA pseudo-code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

const char* kArchs[] = {"gfx90a", "gfx942", "gfx950"};
// The "return the old value" bit: glc on gfx90a, sc0 on gfx942/gfx950.
std::string rtn(const std::string& arch) { return arch == "gfx90a" ? "glc" : "sc0"; }

float as_f(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(EmuAtomics, AddReturnsOldValueInLaneOrder) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, fmt::format(R"(
  v_mov_b32 v30, s2
  v_mov_b32 v31, s3
  v_add_u32_e32 v2, 1, v0
  global_atomic_add v10, v[30:31], v2, off {0}
  v_mov_b32 v3, 0
  global_atomic_add v3, v2, s[2:3] offset:4
  s_waitcnt vmcnt(0)
  global_load_dword v11, v[30:31], off
  global_load_dword v12, v[30:31], off offset:4
  s_waitcnt vmcnt(0)
)",
                                           rtn(arch)),
                         3);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 3), l * (l + 1) / 2) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, 3), 2080u) << arch;
      EXPECT_EQ(r.at(l, 2, 3), 2080u) << arch;
    }
  }
}

TEST(EmuAtomics, IntegerOpsPerLane) {
  // Region k = out + 256 k holds 10 + l at lane l before op k. v10+k = old, v18+k = new.
  const char* ops[8][2] = {{"sub", "3"},     {"smin", "v4"},  {"umax", "v4"},  {"and", "0xf0"},
                           {"or", "0x100"},  {"xor", "0xff"}, {"inc", "40"},   {"dec", "50"}};
  for (const char* arch : kArchs) {
    std::string body = std::string(kLaneAddr) + "  v_add_u32_e32 v2, 10, v0\n  v_subrev_u32_e32 v4, 32, v0\n";
    for (int k = 0; k < 8; ++k) body += fmt::format("  global_store_dword v[30:31], v2, off offset:{}\n", 256 * k);
    body += "  s_waitcnt vmcnt(0)\n";
    for (int k = 0; k < 8; ++k) {
      std::string data = ops[k][1];
      if (data[0] != 'v') body += fmt::format("  v_mov_b32 v{}, {}\n", 40 + k, data), data = fmt::format("v{}", 40 + k);
      body += fmt::format("  global_atomic_{} v{}, v[30:31], {}, off offset:{} {}\n", ops[k][0], 10 + k, data, 256 * k, rtn(arch));
    }
    body += "  s_waitcnt vmcnt(0)\n";
    for (int k = 0; k < 8; ++k) body += fmt::format("  global_load_dword v{}, v[30:31], off offset:{}\n", 18 + k, 256 * k);
    body += "  s_waitcnt vmcnt(0)\n";
    auto r = run_snippet(arch, body, 16);
    for (unsigned l = 0; l < 64; ++l) {
      uint32_t old = 10 + l, d = l - 32;
      for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(r.at(l, k, 16), old) << arch << " op " << ops[k][0];
      EXPECT_EQ(r.at(l, 8, 16), old - 3) << arch;
      EXPECT_EQ(r.at(l, 9, 16), static_cast<uint32_t>(std::min<int32_t>(old, static_cast<int32_t>(d)))) << arch;
      EXPECT_EQ(r.at(l, 10, 16), std::max<uint32_t>(old, d)) << arch;
      EXPECT_EQ(r.at(l, 11, 16), old & 0xf0u) << arch;
      EXPECT_EQ(r.at(l, 12, 16), old | 0x100u) << arch;
      EXPECT_EQ(r.at(l, 13, 16), old ^ 0xffu) << arch;
      EXPECT_EQ(r.at(l, 14, 16), old >= 40 ? 0u : old + 1) << arch;
      EXPECT_EQ(r.at(l, 15, 16), old > 50 ? 50u : old - 1) << arch;
    }
  }
}

TEST(EmuAtomics, SwapCmpswapAnd64Bit) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, std::string(kLaneAddr) + fmt::format(R"(
  v_add_u32_e32 v2, 10, v0
  global_store_dword v[30:31], v2, off
  global_store_dword v[30:31], v2, off offset:256
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v4, 500, v0
  v_and_b32_e32 v5, 1, v0
  v_add_u32_e32 v5, v5, v2
  global_atomic_cmpswap v10, v[30:31], v[4:5], off {0}
  v_mov_b32 v6, 77
  global_atomic_swap v11, v[30:31], v6, off offset:256 {0}
  s_waitcnt vmcnt(0)
  global_load_dword v12, v[30:31], off
  global_load_dword v13, v[30:31], off offset:256
  s_waitcnt vmcnt(0)
  v_lshlrev_b32_e32 v7, 3, v0
  v_mov_b32 v8, 7
  v_mov_b32 v9, 1
  global_store_dwordx2 v7, v[8:9], s[2:3] offset:1024
  s_waitcnt vmcnt(0)
  v_mov_b32 v20, -1
  v_mov_b32 v21, 0
  global_atomic_add_x2 v[14:15], v7, v[20:21], s[2:3] offset:1024 {0}
  s_waitcnt vmcnt(0)
  v_mov_b32 v22, 5
  v_mov_b32 v23, 5
  global_atomic_cmpswap_x2 v[16:17], v7, v[20:23], s[2:3] offset:1024 {0}
  v_mov_b32 v24, 9
  v_mov_b32 v25, 9
  v_mov_b32 v26, 6
  v_mov_b32 v27, 2
  global_atomic_cmpswap_x2 v7, v[24:27], s[2:3] offset:1024
  s_waitcnt vmcnt(0)
  global_load_dwordx2 v[18:19], v7, s[2:3] offset:1024
  s_waitcnt vmcnt(0)
)",
                                                                 rtn(arch)),
                         10);
    for (unsigned l = 0; l < 64; ++l) {
      uint32_t old = 10 + l;
      EXPECT_EQ(r.at(l, 0, 10), old) << arch;
      EXPECT_EQ(r.at(l, 1, 10), old) << arch;
      // cmpswap data = {src, cmp}: even lanes compare equal and store 500 + l.
      EXPECT_EQ(r.at(l, 2, 10), (l & 1) ? old : 500 + l) << arch;
      EXPECT_EQ(r.at(l, 3, 10), 77u) << arch;
      // 0x1_00000007 + 0x0_ffffffff = 0x2_00000006; the x2 cmpswap compares with 5:5 (no match).
      EXPECT_EQ(r.at(l, 4, 10), 7u) << arch;
      EXPECT_EQ(r.at(l, 5, 10), 1u) << arch;
      EXPECT_EQ(r.at(l, 6, 10), 6u) << arch;
      EXPECT_EQ(r.at(l, 7, 10), 2u) << arch;
      // The no-return cmpswap_x2 with {src = 9:9, cmp = 0x2_00000006} matches.
      EXPECT_EQ(r.at(l, 8, 10), 9u) << arch;
      EXPECT_EQ(r.at(l, 9, 10), 9u) << arch;
    }
  }
}

TEST(EmuAtomics, Cmpswap64Matches) {
  auto r = run_snippet("gfx942", R"(
  v_lshlrev_b32_e32 v7, 3, v0
  v_mov_b32 v8, 6
  v_mov_b32 v9, 2
  global_store_dwordx2 v7, v[8:9], s[2:3]
  s_waitcnt vmcnt(0)
  v_mov_b32 v20, 0x11
  v_mov_b32 v21, 0x22
  v_mov_b32 v22, 6
  v_mov_b32 v23, 2
  global_atomic_cmpswap_x2 v7, v[20:23], s[2:3]
  s_waitcnt vmcnt(0)
  global_load_dwordx2 v[10:11], v7, s[2:3]
  s_waitcnt vmcnt(0)
)",
                       2);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 2), 0x11u);
    EXPECT_EQ(r.at(l, 1, 2), 0x22u);
  }
}

TEST(EmuAtomics, FloatAddF32LaneOrderAndDenormals) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, fmt::format(R"(
  v_mov_b32 v30, s2
  v_mov_b32 v31, s3
  v_cvt_f32_u32_e32 v2, v0
  v_mul_f32_e32 v2, 0.5, v2
  global_atomic_add_f32 v10, v[30:31], v2, off {0}
  v_mov_b32 v3, 0x116c2
  v_mov_b32 v4, 0
  v_cmp_eq_u32_e32 vcc, 0, v0
  s_and_saveexec_b64 s[4:5], vcc
  global_atomic_add_f32 v4, v3, s[2:3] offset:4
  s_mov_b64 exec, s[4:5]
  s_waitcnt vmcnt(0)
  global_load_dword v11, v[30:31], off
  global_load_dword v12, v[30:31], off offset:4
  s_waitcnt vmcnt(0)
)",
                                           rtn(arch)),
                         3);
    float acc = 0;
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(as_f(r.at(l, 0, 3)), acc) << arch << " lane " << l;
      acc += 0.5f * static_cast<float>(l);
      EXPECT_EQ(as_f(r.at(l, 1, 3)), 1008.0f) << arch;
      // gfx90a flushes f32 denormals in global atomic add; gfx942/gfx950 keep them.
      EXPECT_EQ(r.at(l, 2, 3), std::string(arch) == "gfx90a" ? 0u : 0x116c2u) << arch;
    }
  }
}

TEST(EmuAtomics, F64AndPackedF16) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, std::string(kLaneAddr) + fmt::format(R"(
  v_lshlrev_b32_e32 v7, 3, v0
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0x3ff00000
  global_store_dwordx2 v7, v[8:9], s[2:3]
  global_store_dwordx2 v7, v[8:9], s[2:3] offset:512
  global_store_dwordx2 v7, v[8:9], s[2:3] offset:1024
  v_mov_b32 v6, 0x3c003c00
  global_store_dword v[30:31], v6, off offset:1536
  s_waitcnt vmcnt(0)
  v_cvt_f64_u32_e32 v[20:21], v0
  global_atomic_add_f64 v[10:11], v7, v[20:21], s[2:3] {0}
  global_atomic_min_f64 v7, v[20:21], s[2:3] offset:512
  global_atomic_max_f64 v7, v[20:21], s[2:3] offset:1024
  v_mov_b32 v22, 0x40003800
  global_atomic_pk_add_f16 v12, v[30:31], v22, off offset:1536 {0}
  s_waitcnt vmcnt(0)
  global_load_dwordx2 v[14:15], v7, s[2:3]
  global_load_dwordx2 v[16:17], v7, s[2:3] offset:512
  global_load_dwordx2 v[18:19], v7, s[2:3] offset:1024
  global_load_dword v13, v[30:31], off offset:1536
  s_waitcnt vmcnt(0)
)",
                                                                 rtn(arch)),
                         10);
    for (unsigned l = 0; l < 64; ++l) {
      auto f64 = [&](unsigned k) {
        uint64_t b = r.at(l, k, 10) | static_cast<uint64_t>(r.at(l, k + 1, 10)) << 32;
        double d;
        std::memcpy(&d, &b, 8);
        return d;
      };
      EXPECT_EQ(f64(0), 1.0) << arch;
      EXPECT_EQ(r.at(l, 2, 10), 0x3c003c00u) << arch;
      EXPECT_EQ(f64(4), 1.0 + l) << arch;
      EXPECT_EQ(f64(6), l < 1 ? 0.0 : 1.0) << arch;
      EXPECT_EQ(f64(8), l > 1 ? static_cast<double>(l) : 1.0) << arch;
      // f16: 1.0 + 0.5 = 1.5 (0x3e00), 1.0 + 2.0 = 3.0 (0x4200).
      EXPECT_EQ(r.at(l, 3, 10), 0x42003e00u) << arch;
    }
  }
}

TEST(EmuAtomics, FlatAtomicsOnGlobalAndLds) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, std::string(kLaneAddr) + fmt::format(R"(
  v_add_u32_e32 v2, 10, v0
  global_store_dword v[30:31], v2, off
  s_waitcnt vmcnt(0)
  v_mov_b32 v3, 5
  flat_atomic_add v10, v[30:31], v3 {0}
  s_mov_b32 s5, src_shared_base
  v_lshlrev_b32_e32 v20, 2, v0
  v_mov_b32 v21, s5
  ds_write_b32 v20, v2
  s_waitcnt lgkmcnt(0)
  flat_atomic_umax v11, v[20:21], v3 offset:0 {0}
  flat_atomic_sub v[20:21], v3
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_load_dword v12, v[30:31], off
  ds_read_b32 v13, v20
  s_waitcnt vmcnt(0) lgkmcnt(0)
)",
                                                                 rtn(arch)),
                         4);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 4), 10 + l) << arch;
      EXPECT_EQ(r.at(l, 1, 4), 10 + l) << arch;
      EXPECT_EQ(r.at(l, 2, 4), 15 + l) << arch;
      EXPECT_EQ(r.at(l, 3, 4), 5 + l) << arch;  // max(10+l, 5) - 5
    }
  }
}

TEST(EmuAtomics, ReturnValueNeedsVmcnt) {
  std::string msg = expect_error("gfx942", std::string(kLaneAddr) + R"(
  v_mov_b32 v2, 1
  global_atomic_add v5, v[30:31], v2, off sc0
  v_mov_b32 v10, v5
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads v5"), std::string::npos) << msg;
  // The no-return form writes no register: using its data register at once is fine.
  auto ok = run_snippet("gfx90a", std::string(kLaneAddr) + R"(
  v_mov_b32 v2, 1
  global_atomic_add v[30:31], v2, off
  v_mov_b32 v2, 2
  v_mov_b32 v10, v2
  s_waitcnt vmcnt(0)
)",
                        1);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(ok.at(l, 0, 1), 2u);
}

TEST(EmuAtomics, OutOfRangeAtomicFaults) {
  std::string msg = expect_error("gfx90a", R"(
  v_mov_b32 v30, 0x1000
  v_mov_b32 v31, 0
  v_mov_b32 v2, 1
  global_atomic_add v[30:31], v2, off
  s_waitcnt vmcnt(0)
)");
  EXPECT_NE(msg.find("memory fault"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_atomic_add"), std::string::npos) << msg;
}

}  // namespace
}  // namespace asmevo::emu::test
