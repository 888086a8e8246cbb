// DS / LDS family (emu/semantics/ds.cpp): round trips of every width, read2/write2 offsets,
// sub-dword and d16 forms, LDS out-of-range rules, LDS atomics and their return values,
// ds_swizzle / ds_bpermute / ds_permute lane patterns, gfx950 ds_read_b64_tr_b16, and strict
// lgkmcnt delivery. Expectations are computed by hand from the ISA pseudo-code. The snippet
// kernel (emu_test_util.h) has 1024 bytes of LDS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

const char* kArchs[] = {"gfx90a", "gfx942", "gfx950"};

TEST(EmuDs, RoundTripEveryWidth) {
  // Lane l writes {100+4l .. 103+4l} at 16*l (ds_write_b128), then reads back with each width.
  const std::string body = R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_lshlrev_b32_e32 v2, 2, v0
  v_add_u32_e32 v2, 100, v2
  v_add_u32_e32 v3, 1, v2
  v_add_u32_e32 v4, 2, v2
  v_add_u32_e32 v5, 3, v2
  ds_write_b128 v1, v[2:5]
  v_add_u32_e32 v6, 1, v0
  v_and_b32_e32 v6, 63, v6
  v_lshlrev_b32_e32 v6, 4, v6
  s_waitcnt lgkmcnt(0)
  ds_read_b128 v[10:13], v6
  ds_read_b96 v[14:16], v1 offset:4
  ds_read_b32 v17, v1 offset:12
  ds_read_b64 v[18:19], v1 offset:8
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 10);
    for (unsigned l = 0; l < 64; ++l) {
      unsigned n = (l + 1) % 64;
      for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(r.at(l, k, 10), 100 + 4 * n + k) << arch << " lane " << l;
      for (unsigned k = 0; k < 3; ++k) EXPECT_EQ(r.at(l, 4 + k, 10), 101 + 4 * l + k) << arch;
      EXPECT_EQ(r.at(l, 7, 10), 103 + 4 * l) << arch;
      EXPECT_EQ(r.at(l, 8, 10), 102 + 4 * l) << arch;
      EXPECT_EQ(r.at(l, 9, 10), 103 + 4 * l) << arch;
    }
  }
}

TEST(EmuDs, Write96AndRead2OfB64) {
  auto r = run_snippet("gfx942", R"(
  v_lshlrev_b32_e32 v1, 4, v0
  v_mov_b32 v2, v0
  v_add_u32_e32 v3, 1000, v0
  v_add_u32_e32 v4, 2000, v0
  v_mov_b32 v5, 0x55
  ds_write_b32 v1, v5 offset:12
  ds_write_b96 v1, v[2:4]
  s_waitcnt lgkmcnt(0)
  ds_read2_b64 v[10:13], v1 offset1:1
  s_waitcnt lgkmcnt(0)
)",
                       4);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 4), l);
    EXPECT_EQ(r.at(l, 1, 4), 1000 + l);
    EXPECT_EQ(r.at(l, 2, 4), 2000 + l);
    EXPECT_EQ(r.at(l, 3, 4), 0x55u);
  }
}

TEST(EmuDs, SubDwordAndD16) {
  const std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_add_u32_e32 v2, 0x80, v0
  ds_write_b8 v1, v2
  v_mov_b32 v3, 0xa50000
  ds_write_b8_d16_hi v1, v3 offset:1
  v_add_u32_e32 v4, 0xf000, v0
  ds_write_b16 v1, v4 offset:2
  v_or_b32_e32 v5, 0xbeef0000, v0
  ds_write_b16_d16_hi v1, v5 offset:256
  v_mov_b32 v15, 0x12345678
  v_mov_b32 v16, 0x12345678
  v_mov_b32 v17, 0x12345678
  v_mov_b32 v18, 0x12345678
  s_waitcnt lgkmcnt(0)
  ds_read_u8 v10, v1
  ds_read_i8 v11, v1
  ds_read_u16 v12, v1 offset:2
  ds_read_i16 v13, v1 offset:2
  ds_read_u8 v14, v1 offset:1
  ds_read_u16_d16 v15, v1 offset:2
  ds_read_u16_d16_hi v16, v1 offset:2
  ds_read_i8_d16 v17, v1
  ds_read_u8_d16_hi v18, v1
  ds_read_u16 v19, v1 offset:256
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 10);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 10), 0x80 + l) << arch;
      EXPECT_EQ(r.at(l, 1, 10), 0xffffff80u + l) << arch;  // int8(0x80 + l) = -128 + l
      EXPECT_EQ(r.at(l, 2, 10), 0xf000 + l) << arch;
      EXPECT_EQ(r.at(l, 3, 10), 0xfffff000u + l) << arch;
      EXPECT_EQ(r.at(l, 4, 10), 0xa5u) << arch;
      EXPECT_EQ(r.at(l, 5, 10), 0x1234f000u + l) << arch;
      EXPECT_EQ(r.at(l, 6, 10), ((0xf000u + l) << 16) | 0x5678u) << arch;
      EXPECT_EQ(r.at(l, 7, 10), 0x1234ff80u + l) << arch;
      EXPECT_EQ(r.at(l, 8, 10), ((0x80u + l) << 16) | 0x5678u) << arch;
      EXPECT_EQ(r.at(l, 9, 10), 0xbeefu) << arch;
    }
  }
}

TEST(EmuDs, Read2Write2Offsets) {
  // write2 offsets are in dwords (b32) and x64 dwords for st64.
  const std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_add_u32_e32 v2, 10, v0
  v_add_u32_e32 v3, 20, v0
  v_add_u32_e32 v4, 30, v0
  v_add_u32_e32 v5, 40, v0
  ds_write2_b32 v1, v2, v3 offset1:64
  ds_write2st64_b32 v1, v4, v5 offset0:2 offset1:3
  s_waitcnt lgkmcnt(0)
  ds_read2_b32 v[10:11], v1 offset0:64
  ds_read2st64_b32 v[12:13], v1 offset0:3 offset1:2
  ds_read_b32 v14, v1 offset:512
  ds_read_b32 v15, v1 offset:768
  ds_read_b32 v16, v1 offset:256
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 7);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 7), 20 + l) << arch;
      EXPECT_EQ(r.at(l, 1, 7), 10 + l) << arch;
      EXPECT_EQ(r.at(l, 2, 7), 40 + l) << arch;
      EXPECT_EQ(r.at(l, 3, 7), 30 + l) << arch;
      EXPECT_EQ(r.at(l, 4, 7), 30 + l) << arch;
      EXPECT_EQ(r.at(l, 5, 7), 40 + l) << arch;
      EXPECT_EQ(r.at(l, 6, 7), 20 + l) << arch;
    }
  }
  // b64 pairs: offsets in units of 8 bytes (x64 for st64).
  auto r = run_snippet("gfx90a", R"(
  v_lshlrev_b32_e32 v1, 3, v0
  v_mov_b32 v2, v0
  v_add_u32_e32 v3, 100, v0
  v_add_u32_e32 v4, 200, v0
  v_add_u32_e32 v5, 300, v0
  ds_write2_b64 v1, v[2:3], v[4:5] offset1:64
  s_waitcnt lgkmcnt(0)
  ds_read2_b64 v[10:13], v1 offset0:64
  v_and_b32_e32 v6, 7, v0
  v_lshlrev_b32_e32 v6, 3, v6
  ds_read2st64_b64 v[14:17], v6 offset1:1
  s_waitcnt lgkmcnt(0)
)",
                       8);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned m = l & 7;
    EXPECT_EQ(r.at(l, 0, 8), 200 + l);
    EXPECT_EQ(r.at(l, 1, 8), 300 + l);
    EXPECT_EQ(r.at(l, 2, 8), l);
    EXPECT_EQ(r.at(l, 3, 8), 100 + l);
    EXPECT_EQ(r.at(l, 4, 8), m);         // element m at 8*m
    EXPECT_EQ(r.at(l, 5, 8), 100 + m);
    EXPECT_EQ(r.at(l, 6, 8), 200 + m);   // 8*m + 512 = element m of the second write
    EXPECT_EQ(r.at(l, 7, 8), 300 + m);
  }
}

TEST(EmuDs, OutOfRangeReadsZeroAndDropsWrites) {
  // LDS is 1024 bytes. Writes at >= 1024 are dropped, reads there return 0; an access that
  // straddles the end is checked per dword.
  const std::string body = R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_add_u32_e32 v2, 1024, v1
  v_mov_b32 v3, 0x1234
  ds_write_b32 v2, v3
  ds_write_b32 v1, v3 offset:1024
  v_mov_b32 v4, 0x10000
  ds_write_b32 v4, v3
  v_mov_b32 v5, 1020
  v_mov_b32 v6, 0xaaaa
  v_mov_b32 v7, 0xbbbb
  ds_write_b64 v5, v[6:7]
  v_mov_b32 v10, 0xdead
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v10, v2
  ds_read_b32 v11, v1
  ds_read_b64 v[12:13], v5
  ds_read_b32 v14, v4 offset:0xffff
  v_mov_b32 v8, 1
  ds_add_rtn_u32 v15, v2, v8
  ds_read_u16 v16, v5 offset:3
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 7);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 7), 0u) << arch;
      EXPECT_EQ(r.at(l, 1, 7), 0u) << arch;  // the OOB writes did not wrap into range
      EXPECT_EQ(r.at(l, 2, 7), 0xaaaau) << arch;             // dword at 1020 in range
      EXPECT_EQ(r.at(l, 3, 7), 0u) << arch;                  // dword at 1024 out of range
      EXPECT_EQ(r.at(l, 4, 7), 0u) << arch;
      EXPECT_EQ(r.at(l, 5, 7), 0u) << arch;                  // OOB atomic returns 0
      EXPECT_EQ(r.at(l, 6, 7), 0u) << arch;                  // bytes 1023..1024 straddle: 0
    }
  }
}

TEST(EmuDs, AtomicsReturnOldValueInLaneOrder) {
  // Every lane adds l+1 to LDS[0]: lanes apply in ascending order, lane l gets l(l+1)/2.
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, R"(
  v_mov_b32 v1, 0
  v_add_u32_e32 v2, 1, v0
  ds_add_rtn_u32 v10, v1, v2
  ds_add_u32 v1, v2 offset:4
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v11, v1
  ds_read_b32 v12, v1 offset:4
  s_waitcnt lgkmcnt(0)
)",
                         3);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 3), l * (l + 1) / 2) << arch;
      EXPECT_EQ(r.at(l, 1, 3), 2080u) << arch;
      EXPECT_EQ(r.at(l, 2, 3), 2080u) << arch;
    }
  }
}

TEST(EmuDs, IntegerAtomicsPerLane) {
  // Region k (256 bytes each) holds 10 + l at 4*l before op k.
  auto r = run_snippet("gfx942", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_add_u32_e32 v2, 10, v0
  ds_write_b32 v1, v2
  ds_write_b32 v1, v2 offset:256
  ds_write_b32 v1, v2 offset:512
  ds_write_b32 v1, v2 offset:768
  v_mov_b32 v3, 3
  v_mov_b32 v4, 40
  v_mov_b32 v5, 50
  v_and_b32_e32 v6, 1, v0
  v_mul_u32_u24_e32 v6, 10, v6
  v_add_u32_e32 v6, v6, v2
  v_add_u32_e32 v7, 500, v0
  ds_sub_rtn_u32 v10, v1, v3
  ds_inc_rtn_u32 v11, v1, v4 offset:256
  ds_dec_rtn_u32 v12, v1, v5 offset:512
  ds_cmpst_rtn_b32 v13, v1, v6, v7 offset:768
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v14, v1
  ds_read_b32 v15, v1 offset:256
  ds_read_b32 v16, v1 offset:512
  ds_read_b32 v17, v1 offset:768
  s_waitcnt lgkmcnt(0)
)",
                       8);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned old = 10 + l;
    for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(r.at(l, k, 8), old);
    EXPECT_EQ(r.at(l, 4, 8), old - 3);
    EXPECT_EQ(r.at(l, 5, 8), old >= 40 ? 0u : old + 1);             // inc: wrap to 0 at >= DATA
    EXPECT_EQ(r.at(l, 6, 8), (old == 0 || old > 50) ? 50u : old - 1);  // dec: reload DATA above it
    EXPECT_EQ(r.at(l, 7, 8), (l & 1) ? old : 500 + l);              // cmpst: DATA = cmp, DATA2 = src
  }
  auto q = run_snippet("gfx90a", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_sub_u32_e32 v2, 20, v0
  ds_write_b32 v1, v2
  ds_write_b32 v1, v2 offset:256
  ds_write_b32 v1, v2 offset:512
  ds_write_b32 v1, v2 offset:768
  v_mov_b32 v3, 5
  v_mov_b32 v4, 0xff0
  v_mov_b32 v5, 0x0f
  ds_min_rtn_i32 v10, v1, v3
  ds_max_rtn_u32 v11, v1, v3 offset:256
  ds_and_rtn_b32 v12, v1, v4 offset:512
  ds_mskor_rtn_b32 v13, v1, v5, v4 offset:768
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v14, v1
  ds_read_b32 v15, v1 offset:256
  ds_read_b32 v16, v1 offset:512
  ds_read_b32 v17, v1 offset:768
  s_waitcnt lgkmcnt(0)
)",
                       8);
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t old = 20 - l;
    for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(q.at(l, k, 8), old);
    EXPECT_EQ(q.at(l, 4, 8), static_cast<uint32_t>(std::min<int32_t>(static_cast<int32_t>(old), 5)));
    EXPECT_EQ(q.at(l, 5, 8), std::max<uint32_t>(old, 5));  // unsigned: negatives are huge
    EXPECT_EQ(q.at(l, 6, 8), old & 0xff0u);
    EXPECT_EQ(q.at(l, 7, 8), (old & ~0x0fu) | 0xff0u);
  }
}

TEST(EmuDs, FloatAnd64BitAtomics) {
  auto r = run_snippet("gfx90a", R"(
  v_mov_b32 v1, 0
  v_cvt_f32_u32_e32 v2, v0
  ds_add_rtn_f32 v10, v1, v2
  v_lshlrev_b32_e32 v3, 3, v0
  v_mov_b32 v4, 7
  v_mov_b32 v5, 1
  ds_write_b64 v3, v[4:5] offset:256
  v_mov_b32 v6, -1
  v_mov_b32 v7, 0
  ds_add_rtn_u64 v[12:13], v3, v[6:7] offset:256
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v8, 0x100
  v_mov_b32 v9, 0
  ds_cmpst_rtn_b64 v[14:15], v3, v[12:13], v[8:9] offset:256
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v11, v1
  ds_read_b64 v[16:17], v3 offset:256
  s_waitcnt lgkmcnt(0)
)",
                       8);
  float acc = 0;
  for (unsigned l = 0; l < 64; ++l) {
    float got;
    uint32_t b = r.at(l, 0, 8);
    std::memcpy(&got, &b, 4);
    EXPECT_EQ(got, acc) << l;
    acc += static_cast<float>(l);
    // 0x1_00000007 + 0xffffffff = 0x2_00000006; cmpst compares with the OLD value: no match.
    EXPECT_EQ(r.at(l, 2, 8), 7u);
    EXPECT_EQ(r.at(l, 3, 8), 1u);
    EXPECT_EQ(r.at(l, 4, 8), 6u);
    EXPECT_EQ(r.at(l, 5, 8), 2u);
    EXPECT_EQ(r.at(l, 6, 8), 6u);
    EXPECT_EQ(r.at(l, 7, 8), 2u);
  }
  uint32_t sum_bits = r.at(0, 1, 8);
  float sum;
  std::memcpy(&sum, &sum_bits, 4);
  EXPECT_EQ(sum, 2016.0f);
}

TEST(EmuDs, SwizzleModes) {
  const std::string body = R"(
  v_add_u32_e32 v1, 100, v0
  ds_swizzle_b32 v10, v1 offset:swizzle(QUAD_PERM,3,2,1,0)
  ds_swizzle_b32 v11, v1 offset:swizzle(SWAP,16)
  ds_swizzle_b32 v12, v1 offset:swizzle(BROADCAST,8,3)
  ds_swizzle_b32 v13, v1 offset:swizzle(REVERSE,32)
  ds_swizzle_b32 v14, v1 offset:swizzle(BITMASK_PERM,"01pi0")
  v_mov_b32 v15, 0x77
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  ds_swizzle_b32 v15, v1 offset:swizzle(SWAP,1)
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 6);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 6), 100 + ((l & ~3u) | (3 - (l & 3)))) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, 6), 100 + ((l & 32) | ((l & 31) ^ 16))) << arch;
      EXPECT_EQ(r.at(l, 2, 6), 100 + ((l & 32) | (l & 0x18) | 3)) << arch;
      EXPECT_EQ(r.at(l, 3, 6), 100 + ((l & 32) | (31 - (l & 31)))) << arch;
      // BITMASK_PERM "01pi0" (bit 4..0): bit4 = 0, bit3 = 1, bit2 = keep, bit1 = invert, bit0 = 0.
      unsigned j = (l & 32) | 8 | (l & 4) | ((~l) & 2);
      EXPECT_EQ(r.at(l, 4, 6), 100 + j) << arch;
      // Even lanes active; each reads its odd neighbour, which is inactive: 0. Odd lanes keep 0x77.
      EXPECT_EQ(r.at(l, 5, 6), (l & 1) ? 0x77u : 0u) << arch;
    }
  }
}

TEST(EmuDs, BpermuteAndPermute) {
  const std::string body = R"(
  v_mul_u32_u24_e32 v2, 3, v0
  v_add_u32_e32 v1, 5, v0
  v_lshlrev_b32_e32 v1, 2, v1
  ds_bpermute_b32 v10, v1, v2
  ds_bpermute_b32 v11, v1, v2 offset:4
  v_sub_u32_e32 v3, 63, v0
  v_lshlrev_b32_e32 v3, 2, v3
  v_add_u32_e32 v3, 0x700, v3
  ds_bpermute_b32 v12, v3, v2
  v_add_u32_e32 v4, 1, v0
  v_lshlrev_b32_e32 v4, 2, v4
  ds_permute_b32 v13, v4, v2
  v_mov_b32 v5, 0
  ds_permute_b32 v14, v5, v2
  v_mov_b32 v15, 0x99
  s_mov_b32 exec_hi, 0
  v_add_u32_e32 v6, 32, v0
  v_lshlrev_b32_e32 v6, 2, v6
  ds_bpermute_b32 v15, v6, v2
  s_waitcnt lgkmcnt(0)
)";
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, body, 6);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 6), 3 * ((l + 5) % 64)) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, 6), 3 * ((l + 6) % 64)) << arch;
      EXPECT_EQ(r.at(l, 2, 6), 3 * (63 - l)) << arch;  // address bits above [7:2] are ignored
      EXPECT_EQ(r.at(l, 3, 6), 3 * ((l + 63) % 64)) << arch;
      EXPECT_EQ(r.at(l, 4, 6), l == 0 ? 3u * 63 : 0u) << arch;  // highest sender wins; others get 0
      EXPECT_EQ(r.at(l, 5, 6), l < 32 ? 0u : 0x99u) << arch;  // sources 32..63 are inactive
    }
  }
}

TEST(EmuDs, TransposeReadB64TrB16Gfx950) {
  // LDS halfword i holds i. Lane L reads its own 4 halfwords {4L..4L+3}; within each block of 16
  // lanes, lane b+i receives element (i % 4) of lanes b + 4r + i/4, r = 0..3.
  auto r = run_snippet("gfx950", R"(
  v_lshlrev_b32_e32 v1, 3, v0
  v_lshlrev_b32_e32 v2, 2, v0
  v_lshlrev_b32_e32 v3, 16, v2
  v_or_b32_e32 v4, v2, v3
  v_add_u32_e32 v4, 0x10000, v4
  v_add_u32_e32 v5, 0x20002, v4
  ds_write_b64 v1, v[4:5]
  s_waitcnt lgkmcnt(0)
  ds_read_b64_tr_b16 v[10:11], v1
  s_waitcnt lgkmcnt(0)
)",
                       2);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned b = l & ~15u, i = l & 15;
    uint32_t e[4];
    for (unsigned k = 0; k < 4; ++k) e[k] = 4 * (b + 4 * k + i / 4) + i % 4;
    EXPECT_EQ(r.at(l, 0, 2), e[0] | (e[1] << 16)) << "lane " << l;
    EXPECT_EQ(r.at(l, 1, 2), e[2] | (e[3] << 16)) << "lane " << l;
  }
}

TEST(EmuDsWaitcnt, ReadingAnLdsResultWithoutWaitStops) {
  for (const char* arch : kArchs) {
    std::string msg = expect_error(arch, R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v5, v1
  v_add_u32_e32 v10, 1, v5
)");
    EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
    EXPECT_NE(msg.find("reads v5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ds_read_b32 v5, v1"), std::string::npos) << msg;
  }
  // Same for an atomic's return value and a bpermute result.
  std::string msg = expect_error("gfx942", R"(
  v_mov_b32 v1, 0
  ds_add_rtn_u32 v5, v1, v1
  v_mov_b32 v10, v5
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  msg = expect_error("gfx950", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_bpermute_b32 v5, v1, v0
  v_mov_b32 v10, v5
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
}

TEST(EmuDsWaitcnt, LgkmcntIsInOrderAmongLdsOps) {
  // Three DS ops (a store counts too); lgkmcnt(1) guarantees the two oldest.
  auto ok = run_snippet("gfx942", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v5, v1
  ds_read_b32 v6, v1 offset:4
  ds_write_b32 v1, v0 offset:8
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v10, v6
  s_waitcnt lgkmcnt(0)
)",
                        1);
  std::string msg = expect_error("gfx942", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v5, v1
  ds_read_b32 v6, v1 offset:4
  ds_write_b32 v1, v0 offset:8
  s_waitcnt lgkmcnt(2)
  v_mov_b32 v10, v6
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads v6"), std::string::npos) << msg;
  // Store data is read at issue: reusing it at once is fine.
  auto st = run_snippet("gfx90a", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_mov_b32 v2, 42
  ds_write_b32 v1, v2
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
)",
                        1);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(st.at(l, 0, 1), 42u);
}

// LDS returns in issue order, so a DS load may write the VGPR an older DS load is still to write (the younger
// value wins); a VALU write to it is still a violation.
TEST(EmuDsWaitcnt, LdsLoadMayOverwriteAnOlderLdsLoadsDestination) {
  for (const char* arch : kArchs) {
    auto r = run_snippet(arch, R"(
  v_lshlrev_b32_e32 v1, 3, v0
  v_mov_b32 v2, 7
  v_mov_b32 v3, 9
  ds_write_b64 v1, v[2:3]
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v10, v1
  ds_read_b32 v10, v1 offset:4
  s_waitcnt lgkmcnt(0)
)",
                         1);
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 9u) << arch << " lane " << l;
    std::string msg = expect_error(arch, R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v10, v1
  v_mov_b32 v10, 0
)");
    EXPECT_NE(msg.find("writes v10"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace asmevo::emu::test
