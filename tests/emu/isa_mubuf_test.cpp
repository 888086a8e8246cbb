// MUBUF buffer loads/stores (emu/semantics/mubuf.cpp): V# addressing (offen, idxen, both, soffset,
// inst offset, swizzle + add_tid) and the range-checking rules of the MI200/MI300 ISA guides
// ("Range Checking"): raw buffers check the offset (soffset + VGPR + instruction offset) per dword, which must
// end within num_records (gfx950 hardware as AMD's rocjitsu models it: ROCm/rocm-systems PR 10928; LLVM's
// intrinsic docs leave soffset out), structured buffers check the index; out-of-range loads return 0 and
// out-of-range stores are dropped. Expectations are computed by hand from those rules.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

const char* kArchs[] = {"gfx90a", "gfx942", "gfx950"};

// Fills out[i] = 1000 + i for the first 64 * R dwords (each lane its R dwords), then waits.
std::string prefill(unsigned R) {
  std::string s = fmt::format(R"(
  s_movk_i32 s20, 0x3e8
  v_mov_b32 v40, {0}
  v_mul_u32_u24 v41, v40, v0            // lane * R (dword index)
  v_lshlrev_b32 v42, 2, v41             // byte offset
  v_add_u32 v43, s20, v41               // 1000 + lane * R
)",
                              R);
  for (unsigned k = 0; k < R; ++k)
    s += fmt::format("  v_add_u32 v44, {0}, v43\n  global_store_dword v42, v44, s[2:3] offset:{1}\n", k, 4 * k);
  return s + "  s_waitcnt vmcnt(0)\n";
}

// Raw buffer V# in s[4:7]: base = out, stride 0, no swizzle, num_records = `n`.
std::string raw_vsharp(const std::string& n) {
  return fmt::format("  s_mov_b32 s4, s2\n  s_and_b32 s5, s3, 0xffff\n  s_mov_b32 s6, {}\n  s_mov_b32 s7, 0x27000\n", n);
}

TEST(EmuMubuf, RawBufferRangeCheckPerDword) {
  for (const char* arch : kArchs) {
    const unsigned R = 8;
    auto r = run_snippet(arch, prefill(R) + raw_vsharp("40") + R"(
  v_lshlrev_b32 v1, 2, v0                        // offset = 4 * lane
  buffer_load_dword v10, v1, s[4:7], 0 offen                 // in range iff 4l < 40
  buffer_load_dword v11, v1, s[4:7], 0 offen offset:8        // inst offset is range-checked: 4l + 8 < 40
  s_mov_b32 s9, 8
  buffer_load_dword v12, v1, s[4:7], s9 offen                // so is soffset: 8 + 4l + 4 <= 40, reads 4l + 8
  s_mov_b64 s[12:13], s[4:5]
  s_mov_b32 s14, 0x7ffffffe                                  // Triton's masking: offset 0x80000000
  s_mov_b32 s15, 0x27000
  v_bfrev_b32 v2, 1
  buffer_load_dword v13, v2, s[12:15], 0 offen
  buffer_load_dwordx4 v[14:17], v1, s[4:7], 0 offen          // per dword: 4l + 4d < 40
  buffer_load_dword v18, off, s[4:7], 0 offset:36            // no VGPR: in range for every lane
  buffer_load_dword v19, off, s[4:7], 0 offset:40            // out of range for every lane
  s_waitcnt vmcnt(0)
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      SCOPED_TRACE(fmt::format("{} lane {}", arch, l));
      EXPECT_EQ(r.at(l, 0, R), l < 10 ? 1000 + l : 0u);
      EXPECT_EQ(r.at(l, 1, R), l < 8 ? 1002 + l : 0u);
      EXPECT_EQ(r.at(l, 2, R), l < 8 ? 1002 + l : 0u);
      EXPECT_EQ(r.at(l, 3, R), 0u);
      for (unsigned d = 0; d < 4; ++d) EXPECT_EQ(r.at(l, 4 + d, R), 4 * l + 4 * d < 40 ? 1000 + l + d : 0u) << "dword " << d;
      EXPECT_EQ(r.at(l, 5, R), 4 * l + 4 < 40 ? 1001 + l : 0u);
    }
    // The last two (no VGPR address) at lanes 0..63: offset 36 in range, 40 out of range.
    // (checked in a separate run because R above is full)
    auto r2 = run_snippet(arch, prefill(2) + raw_vsharp("40") + R"(
  buffer_load_dword v10, off, s[4:7], 0 offset:36
  buffer_load_dword v11, off, s[4:7], 0 offset:40
  s_waitcnt vmcnt(0)
)",
                          2);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r2.at(l, 0, 2), 1009u) << arch;
      EXPECT_EQ(r2.at(l, 1, 2), 0u) << arch;
    }
  }
}

// An access must end within num_records (38 here; dword i holds 1000 + i): a dword at 36 reads 0 though it
// starts in range, a ushort there does not; soffset moves the checked end as the VGPR offset does (AITer's
// fmha_v3 fwd steps its K/V tiles in soffset and relies on what lies past seqlen_k reading 0).
TEST(EmuMubuf, RawBufferRangeCheckCountsSizeAndSoffset) {
  for (const char* arch : kArchs) {
    const unsigned R = 5;
    auto r = run_snippet(arch, prefill(R) + raw_vsharp("38") + R"(
  buffer_load_dword v10, off, s[4:7], 0 offset:32            // ends at 36: dword 8
  buffer_load_dword v11, off, s[4:7], 0 offset:36            // ends at 40 > 38: 0
  buffer_load_ushort v12, off, s[4:7], 0 offset:36           // ends at 38: low half of dword 9
  s_mov_b32 s9, 32
  v_lshlrev_b32 v2, 2, v0                                    // 4 * lane
  buffer_load_dword v13, v2, s[4:7], s9 offen                // 32 + 4l + 4 <= 38 for lane 0 only
  s_mov_b32 s9, 40
  buffer_load_dword v14, off, s[4:7], s9                     // soffset alone past the end: 0
  s_waitcnt vmcnt(0)
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      SCOPED_TRACE(fmt::format("{} lane {}", arch, l));
      EXPECT_EQ(r.at(l, 0, R), 1008u);
      EXPECT_EQ(r.at(l, 1, R), 0u);
      EXPECT_EQ(r.at(l, 2, R), 1009u);
      EXPECT_EQ(r.at(l, 3, R), l == 0 ? 1008u : 0u);
      EXPECT_EQ(r.at(l, 4, R), 0u);
    }
  }
}

TEST(EmuMubuf, StructuredBufferChecksIndex) {
  for (const char* arch : kArchs) {
    const unsigned R = 4;
    auto r = run_snippet(arch, prefill(R) + R"(
  s_mov_b32 s4, s2
  s_and_b32 s5, s3, 0xffff
  s_or_b32 s5, s5, 0x100000                 // stride 16
  s_mov_b32 s6, 5                           // 5 records
  s_mov_b32 s7, 0x27000
  v_mov_b32 v1, v0                          // index = lane
  buffer_load_dword v10, v1, s[4:7], 0 idxen offset:4
  v_mov_b32 v2, v0
  v_mov_b32 v3, 8
  buffer_load_dword v11, v[2:3], s[4:7], 0 idxen offen     // index v2, offset v3
  buffer_load_dwordx2 v[12:13], v1, s[4:7], 0 idxen
  s_waitcnt vmcnt(0)
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      SCOPED_TRACE(fmt::format("{} lane {}", arch, l));
      EXPECT_EQ(r.at(l, 0, R), l < 5 ? 1000 + 4 * l + 1 : 0u);
      EXPECT_EQ(r.at(l, 1, R), l < 5 ? 1000 + 4 * l + 2 : 0u);
      EXPECT_EQ(r.at(l, 2, R), l < 5 ? 1000 + 4 * l : 0u);
      EXPECT_EQ(r.at(l, 3, R), l < 5 ? 1000 + 4 * l + 1 : 0u);
    }
  }
}

TEST(EmuMubuf, OutOfRangeStoresAreDropped) {
  for (const char* arch : kArchs) {
    const unsigned R = 2;
    auto r = run_snippet(arch, prefill(R) + raw_vsharp("40") + R"(
  v_lshlrev_b32 v1, 3, v0                   // offset = 8 * lane (this lane's two dwords)
  v_add_u32 v2, 7, v0
  v_add_u32 v3, 9, v0
  buffer_store_dwordx2 v[2:3], v1, s[4:7], 0 offen      // per dword: 8l + 4d < 40
  s_waitcnt vmcnt(0)
  global_load_dwordx2 v[10:11], v1, s[2:3]
  s_waitcnt vmcnt(0)
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, R), 8 * l < 40 ? 7 + l : 1000 + 2 * l) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, R), 8 * l + 4 < 40 ? 9 + l : 1001 + 2 * l) << arch << " lane " << l;
    }
  }
}

TEST(EmuMubuf, SwizzledAddTidLayout) {
  // Private-segment style V#: swizzle, add_tid, index_stride 64, stride 0: dword k of lane l is at
  // base + soffset + k * 256 + l * 4.
  for (const char* arch : kArchs) {
    const unsigned R = 4;  // out = 1024 bytes
    auto r = run_snippet(arch, R"(
  s_mov_b32 s4, s2
  s_and_b32 s5, s3, 0xffff
  s_or_b32 s5, s5, 0x80000000               // swizzle_enable
  s_mov_b32 s6, -1
  s_mov_b32 s7, 0xe27000                    // add_tid | index_stride 64 | format
  v_add_u32 v2, 5, v0
  v_add_u32 v3, 50, v0
  buffer_store_dword v2, off, s[4:7], 0 offset:4            // -> 256 + 4l
  s_movk_i32 s9, 0x200
  buffer_store_dword v3, off, s[4:7], s9                    // -> 512 + 4l
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  global_load_dword v10, v1, s[2:3] offset:256
  global_load_dword v11, v1, s[2:3] offset:512
  buffer_load_dword v12, off, s[4:7], 0 offset:4
  buffer_load_dwordx2 v[20:21], off, s[4:7], 0 offset:4     // dwords at 256 + 4l and 512 + 4l
  s_waitcnt vmcnt(0)
  v_add_u32 v13, v20, v21
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, R), 5 + l) << arch;
      EXPECT_EQ(r.at(l, 1, R), 50 + l) << arch;
      EXPECT_EQ(r.at(l, 2, R), 5 + l) << arch;
      EXPECT_EQ(r.at(l, 3, R), 55 + 2 * l) << arch;
    }
  }
}

TEST(EmuMubuf, SubDwordAndD16) {
  for (const char* arch : kArchs) {
    const unsigned R = 6;
    auto r = run_snippet(arch, raw_vsharp("-1") + R"(
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0xfedc8081
  global_store_dword v1, v2, s[2:3]
  s_waitcnt vmcnt(0)
  v_mov_b32 v10, 0x12345678
  v_mov_b32 v11, 0x12345678
  buffer_load_short_d16_hi v10, v1, s[4:7], 0 offen       // 0x8081 into the high half
  buffer_load_sbyte_d16 v11, v1, s[4:7], 0 offen          // 0x81 -> 0xff81 into the low half
  buffer_load_sshort v12, v1, s[4:7], 0 offen             // 0xffff8081
  buffer_load_ubyte v13, v1, s[4:7], 0 offen offset:1     // 0x80
  s_waitcnt vmcnt(0)
  v_mov_b32 v3, 0xaabbccdd
  buffer_store_short_d16_hi v3, v1, s[4:7], 0 offen       // bytes 0-1 = 0xaabb
  buffer_store_byte v3, v1, s[4:7], 0 offen offset:3      // byte 3 = 0xdd
  s_waitcnt vmcnt(0)
  buffer_load_dword v14, v1, s[4:7], 0 offen
  buffer_load_ushort v15, v1, s[4:7], 0 offen offset:2
  s_waitcnt vmcnt(0)
)",
                         R);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, R), 0x80815678u) << arch;
      EXPECT_EQ(r.at(l, 1, R), 0x1234ff81u) << arch;
      EXPECT_EQ(r.at(l, 2, R), 0xffff8081u) << arch;
      EXPECT_EQ(r.at(l, 3, R), 0x80u) << arch;
      EXPECT_EQ(r.at(l, 4, R), 0xdddcaabbu) << arch;
      EXPECT_EQ(r.at(l, 5, R), 0xdddcu) << arch;
    }
  }
}

TEST(EmuMubuf, CacheControlCountsOnVmcnt) {
  // gfx90a: buffer_wbl2 / buffer_wbinvl1_vol; gfx942: buffer_wbl2 sc1 / buffer_inv sc1. A load
  // followed by a cache op: vmcnt(1) (the cache op may be outstanding) still guarantees the load.
  for (std::string arch : {"gfx90a", "gfx942"}) {
    std::string ops = arch == "gfx90a" ? "  buffer_wbl2\n  buffer_wbinvl1_vol\n" : "  buffer_wbl2 sc1\n  buffer_inv sc1\n";
    auto r = run_snippet(arch, raw_vsharp("-1") + R"(
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, 3, v0
  buffer_store_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  buffer_load_dword v10, v1, s[4:7], 0 offen
)" + ops + "  s_waitcnt vmcnt(2)\n  v_add_u32 v10, 1, v10\n  s_waitcnt vmcnt(0)\n",
                         1);
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 4 + l) << arch;
  }
}

TEST(EmuMubuf, AtomicsReturnOldValueAndRespectRange) {
  // Every lane adds lane+1 to dword (lane % 4) of a raw buffer with num_records 12: dwords 0..2 are
  // in range, lanes hitting dword 3 are out of range (no effect, return 0). Then cmpswap on dword 0.
  for (std::string arch : {"gfx90a", "gfx942"}) {
    std::string rtn = arch == "gfx90a" ? "glc" : "sc0";
    const unsigned R = 3;
    auto r = run_snippet(arch, prefill(R) + raw_vsharp("12") + fmt::format(R"(
  v_and_b32 v1, 3, v0
  v_lshlrev_b32 v1, 2, v1                   // offset = 4 * (lane % 4)
  v_add_u32 v10, 1, v0
  buffer_atomic_add v10, v1, s[4:7], 0 offen {0}
  s_waitcnt vmcnt(0)
  v_mov_b32 v2, 0
  global_load_dword v11, v2, s[2:3] offset:4  // dword 1 after all adds
  v_mov_b32 v12, 7
  v_mov_b32 v13, 0x3e8                      // cmp = 1000: dword 3 holds 1003, never matches (and is out of range)
  buffer_atomic_cmpswap v[12:13], v2, s[4:7], 0 offen offset:12 {0}
  s_waitcnt vmcnt(0)
)",
                                                                            rtn),
                         R);
    // In-lane order of application is ascending lane order: lane l sees the sum of the lanes
    // before it with the same l % 4.
    for (unsigned l = 0; l < 64; ++l) {
      unsigned d = l % 4, before = 0;
      for (unsigned j = d; j < l; j += 4) before += j + 1;
      EXPECT_EQ(r.at(l, 0, R), d == 3 ? 0u : 1000 + d + before) << arch << " lane " << l;
      unsigned sum1 = 0;
      for (unsigned j = 1; j < 64; j += 4) sum1 += j + 1;
      EXPECT_EQ(r.at(l, 1, R), 1001 + sum1) << arch;
      EXPECT_EQ(r.at(l, 2, R), 0u) << arch;  // out of range: returns 0
    }
  }
}

TEST(EmuMubuf, LoadResultNeedsVmcnt) {
  try {
    run_snippet("gfx942", raw_vsharp("-1") + R"(
  v_lshlrev_b32 v1, 2, v0
  buffer_load_dword v5, v1, s[4:7], 0 offen
  v_add_u32 v10, 1, v5
)",
                1);
    FAIL() << "no waitcnt violation";
  } catch (const Error& e) {
    EXPECT_NE(e.format().find("waitcnt violation"), std::string::npos) << e.format();
  }
}

TEST(EmuMubuf, InRangeAccessOutsideAllocationFaults) {
  try {
    run_snippet("gfx942", raw_vsharp("-1") + R"(
  v_lshlrev_b32 v1, 12, v0                  // 4 KiB per lane: past the 256-byte buffer and its guard
  v_lshlrev_b32 v1, 8, v1
  buffer_load_dword v10, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
)",
                1);
    FAIL() << "no memory fault";
  } catch (const Error& e) {
    EXPECT_NE(e.format().find("memory fault"), std::string::npos) << e.format();
  }
}

}  // namespace
}  // namespace asmevo::emu::test
