// Issue 15, memory and scalar families: units whose results follow directly from the ISA text, checked against
// values computed by hand: global d16 loads, ds_append/ds_consume, ds_read/write_addtid_b32, ds_wrxchg2*,
// ds_condxchg32_rtn_b64, ds_wrap_rtn_b32, ds_nop, s_movrels/s_movreld, s_call_b64, s_scratch_load/store,
// s_dcache_discard, the debugger/host SOPPs (no effect, or a loud stop). Format buffer ops, LDS DMA and
// ds_read_b96_tr_b6 are checked against NumPy models (mem_format_reference_test.py).
#include <gtest/gtest.h>

#include <cstring>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

class MemScalarArchs : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Emu, MemScalarArchs, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST_P(MemScalarArchs, GlobalD16Loads) {
  // The results buffer holds bytes we write first: lane l's dword l = 0x80a1b2c3 + l (stored, then reloaded).
  auto r = run_snippet(GetParam(), std::string(kLaneAddr) + R"(
  v_add_u32 v1, 0x80a1b2c3, v0
  global_store_dword v[30:31], v1, off
  s_waitcnt vmcnt(0)
  v_mov_b32 v10, 0x11112222
  v_mov_b32 v11, 0x11112222
  v_mov_b32 v12, 0x11112222
  v_mov_b32 v13, 0x11112222
  v_mov_b32 v14, 0x11112222
  v_mov_b32 v15, 0x11112222
  global_load_ubyte_d16 v10, v[30:31], off            // byte 0xc3+l -> low half, zero-extended
  global_load_ubyte_d16_hi v11, v[30:31], off offset:3 // byte 0x80 -> high half
  global_load_sbyte_d16 v12, v[30:31], off offset:3    // 0x80 -> 0xff80
  global_load_sbyte_d16_hi v13, v[30:31], off offset:3
  global_load_short_d16 v14, v[30:31], off offset:2    // 0x80a1
  global_load_short_d16_hi v15, v[30:31], off
  s_waitcnt vmcnt(0)
)", 6);
  for (unsigned l = 0; l < 64; l += 9) {
    const uint32_t word = 0x80a1b2c3u + l;
    EXPECT_EQ(r.at(l, 0, 6), 0x11110000u | (word & 0xff)) << l;
    EXPECT_EQ(r.at(l, 1, 6), 0x00802222u) << l;
    EXPECT_EQ(r.at(l, 2, 6), 0x1111ff80u) << l;
    EXPECT_EQ(r.at(l, 3, 6), 0xff802222u) << l;
    EXPECT_EQ(r.at(l, 4, 6), 0x111180a1u) << l;
    EXPECT_EQ(r.at(l, 5, 6), ((word & 0xffff) << 16) | 0x2222u) << l;
  }
}

TEST_P(MemScalarArchs, AppendConsumeAndAddTid) {
  // ds_append: every active lane gets the old counter, which grows by the active lane count (EXEC = 40
  // lanes); ds_consume shrinks it. addtid: lane l's dword at M0 + offset + 4l.
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v1, 0
  v_mov_b32 v2, 7
  ds_write_b32 v1, v2 offset:132     // counter at 128 + 4 = 132 starts at 7
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 128
  s_mov_b32 exec_hi, 0xff           // 40 lanes
  ds_append v10 offset:4             // old 7; counter 47
  s_waitcnt lgkmcnt(0)
  s_mov_b64 exec, -1
  ds_consume v11 offset:4            // old 47; counter -17 = 47 - 64
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v12, v1 offset:132     // -17
  v_add_u32 v3, 1000, v0
  s_mov_b32 m0, 256
  ds_write_addtid_b32 v3 offset:16   // LDS[272 + 4l] = 1000 + l
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 260
  ds_read_addtid_b32 v13 offset:12   // LDS[272 + 4l] again
  ds_nop
  s_waitcnt lgkmcnt(0)
)", 4);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(r.at(l, 0, 4), l < 40 ? 7u : 0u) << l;  // inactive lanes keep v10 = 0 (zeroed at entry)
    EXPECT_EQ(r.at(l, 1, 4), 47u) << l;
    EXPECT_EQ(r.at(l, 2, 4), static_cast<uint32_t>(-17)) << l;
    EXPECT_EQ(r.at(l, 3, 4), 1000u + l) << l;
  }
  // (`gds` forms: LLVM 22 neither assembles nor decodes them for gfx90a/gfx942/gfx950.)
}

TEST_P(MemScalarArchs, ExchangeCondAndWrap) {
  auto r = run_snippet(GetParam(), R"(
  v_lshlrev_b32 v1, 4, v0           // 16 bytes per lane
  v_mov_b32 v2, 5
  v_mov_b32 v3, 6
  v_mov_b32 v4, 7
  v_mov_b32 v5, 8
  ds_write_b128 v1, v[2:5]
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v6, 50
  v_mov_b32 v7, 70
  ds_wrxchg2_rtn_b32 v[10:11], v1, v6, v7 offset0:0 offset1:2   // old 5, 7; LDS {50, 6, 70, 8}
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v8, 0x80000009          // bit 31 set: write 9
  v_mov_b32 v9, 0x0000000a          // bit 31 clear: keep
  ds_condxchg32_rtn_b64 v[12:13], v1, v[8:9] offset:4             // old {6, 70}; LDS {50, 9, 70, 8}
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v6, 20
  v_mov_b32 v7, 3
  ds_wrap_rtn_b32 v14, v1, v6, v7                               // 50 >= 20: 30; returns 50
  ds_wrap_rtn_b32 v15, v1, v6, v7 offset:12                     // 8 < 20: 11; returns 8
  s_waitcnt lgkmcnt(0)
  ds_read_b128 v[16:19], v1
  s_waitcnt lgkmcnt(0)
)", 10);
  const uint32_t want[10] = {5, 7, 6, 70, 50, 8, 30, 9, 70, 11};
  for (unsigned l = 0; l < 64; l += 7)
    for (unsigned k = 0; k < 10; ++k) EXPECT_EQ(r.at(l, k, 10), want[k]) << "lane " << l << " result " << k;
}

TEST(EmuMemScalar, Wrxchg2St64OfB64) {
  // st64 b64: offsets in units of 8 * 64 bytes; lane 0 only (EXEC = 1) so lanes do not overlap.
  auto r = run_snippet("gfx942", R"(
  s_mov_b64 exec, 1
  v_mov_b32 v1, 0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 2
  v_mov_b32 v8, 0
  v_mov_b32 v9, 0
  ds_write_b64 v1, v[2:3] offset:512
  ds_write_b64 v1, v[8:9]
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v4, 11
  v_mov_b32 v5, 12
  v_mov_b32 v6, 13
  v_mov_b32 v7, 14
  ds_wrxchg2st64_rtn_b64 v[10:13], v1, v[4:5], v[6:7] offset0:1 offset1:0   // old {1,2} at 512, {0,0} at 0
  s_waitcnt lgkmcnt(0)
  ds_read_b64 v[14:15], v1 offset:512
  ds_read_b64 v[16:17], v1
  s_waitcnt lgkmcnt(0)
)", 8);
  const uint32_t want[8] = {1, 2, 0, 0, 11, 12, 13, 14};
  for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(r.at(0, k, 8), want[k]) << k;
}

TEST_P(MemScalarArchs, MovrelAndCall) {
  auto r = run_snippet(GetParam(), R"(
  s_mov_b32 s20, 111
  s_mov_b32 s21, 222
  s_mov_b32 s22, 333
  s_mov_b32 m0, 2
  s_movrels_b32 s4, s20              // s22
  s_movrels_b64 s[6:7], s[20:21]     // s[22:23] = {333, s23}
  s_mov_b32 s23, 444
  s_movrels_b64 s[8:9], s[20:21]     // {333, 444}
  s_movreld_b32 s18, 55              // s20 = 55
  s_mov_b32 s26, 0
  s_call_b64 s[28:29], 1             // skips the next instruction (4 bytes)
  s_mov_b32 s26, 9
  s_getpc_b64 s[30:31]               // the call returned address = this instruction's address
  v_mov_b32 v10, s4
  v_mov_b32 v11, s6
  v_mov_b32 v12, s8
  v_mov_b32 v13, s9
  v_mov_b32 v14, s20
  v_mov_b32 v15, s26
  s_sub_u32 s30, s30, s28            // getpc = (its own address + 4); the call's D = address of s_mov_b32 s26, 9
  v_mov_b32 v16, s30
)", 7);
  EXPECT_EQ(r.at(5, 0, 7), 333u);
  EXPECT_EQ(r.at(5, 1, 7), 333u);
  EXPECT_EQ(r.at(5, 2, 7), 333u);
  EXPECT_EQ(r.at(5, 3, 7), 444u);
  EXPECT_EQ(r.at(5, 4, 7), 55u);
  EXPECT_EQ(r.at(5, 5, 7), 0u);  // the skipped s_mov_b32 s26, 9 did not run
  EXPECT_EQ(r.at(5, 6, 7), 8u);  // s_mov_b32 s26, 9 (4 bytes) + s_getpc_b64 (4 bytes)
  EXPECT_NE(expect_error(GetParam(), "  s_mov_b32 m0, 200\n  s_movrels_b32 s4, s20\n").find("outside s0..s101"),
            std::string::npos);
}

TEST_P(MemScalarArchs, ScalarScratchAndDiscard) {
  // SBASE = the results buffer; ADDR = SBASE + (imm & ~3) + (SGPR offset & ~3) * 64: s5 = 6 -> +256 bytes.
  auto r = run_snippet(GetParam(), R"(
  s_mov_b32 s4, 0x1234
  s_mov_b32 s5, 6
  s_scratch_store_dword s4, s[2:3], s5 offset:8     // dword at 8 + 256 = 264 (lane 33's slot)
  s_waitcnt lgkmcnt(0)
  s_dcache_discard s[2:3], s5
  s_dcache_discard_x2 s[2:3], 0
  s_waitcnt lgkmcnt(0)
  s_scratch_load_dword s6, s[2:3], 0x10a            // 0x108 = 264
  s_load_dword s7, s[2:3], 0x108
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v10, s6
  v_mov_b32 v11, s7
)", 2);
  EXPECT_EQ(r.at(0, 0, 2), 0x1234u);
  EXPECT_EQ(r.at(0, 1, 2), 0x1234u);
}

TEST_P(MemScalarArchs, HostAndDebuggerSopps) {
  auto r = run_snippet(GetParam(), R"(
  v_mov_b32 v10, 1
  s_cbranch_cdbgsys 1               // no debugger: not taken
  v_mov_b32 v10, 2
  s_cbranch_cdbguser 1
  v_add_u32 v10, 1, v10
  s_cbranch_cdbgsys_or_user 1
  v_add_u32 v10, 1, v10
  s_cbranch_cdbgsys_and_user 1
  v_add_u32 v10, 1, v10
  s_incperflevel 3
  s_decperflevel 3
  s_ttracedata
  s_wakeup
  s_sethalt 0
  s_setkill 0
  s_mov_b32 m0, 5
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_waitcnt lgkmcnt(0)
)", 1);
  EXPECT_EQ(r.at(0, 0, 1), 5u);
  EXPECT_NE(expect_error(GetParam(), "  s_sendmsg sendmsg(MSG_HALT_WAVES)\n").find("MSG_HALT_WAVES"), std::string::npos);
  EXPECT_NE(expect_error(GetParam(), "  s_sethalt 1\n").find("halts the wave"), std::string::npos);
  EXPECT_NE(expect_error(GetParam(), "  s_setkill 1\n").find("kills the wave"), std::string::npos);
  // Still unsupported (trap handlers, legacy fork/join): refused at pre-decode, naming the instruction.
  EXPECT_NE(expect_error(GetParam(), "  s_sendmsghalt sendmsg(MSG_INTERRUPT)\n").find("unsupported instruction s_sendmsghalt"),
            std::string::npos);
}

TEST(EmuMemScalar, CacheInvalidateL2) {
  // gfx90a buffer_invl2: the emulator's memory is coherent, so an L2 invalidate moves no data; a store before it
  // is read back after it (and it counts on vmcnt like buffer_wbl2).
  auto r = run_snippet("gfx90a", std::string(kLaneAddr) + R"(
  v_mov_b32 v1, 42
  global_store_dword v[30:31], v1, off
  buffer_wbl2
  buffer_invl2
  s_waitcnt vmcnt(0)
  global_load_dword v10, v[30:31], off
  s_waitcnt vmcnt(0)
)", 1);
  EXPECT_EQ(r.at(7, 0, 1), 42u);
}

TEST_P(MemScalarArchs, ForkAndJoin) {
  // Lanes 0..19 pass (20 < 44 failing lanes: the passing side runs first, {fail EXEC, next PC} is pushed to
  // s[0:3] with CSP 0 -> 1); the join pops to the failing side; the second join (CSP == saved 0) falls through.
  // The kernel saves EXEC and s[2:3] (the stack entry overwrites s0..s3) around the construct, as a compiler would.
  auto r = run_snippet(GetParam(), R"(
  s_mov_b64 s[42:43], exec
  s_mov_b64 s[44:45], s[2:3]
  s_mov_b32 s40, 0                  // the CSP before the fork
  v_mov_b32 v10, 0
  v_cmp_gt_u32 vcc, 20, v0
  s_cbranch_i_fork vcc, .Lpass
  v_add_u32 v10, 1, v10             // failing lanes
  s_branch .Ljoin
.Lpass:
  v_add_u32 v10, 2, v10             // passing lanes
.Ljoin:
  s_cbranch_join s40
  v_mov_b32 v11, s1                 // the pushed entry's EXEC high half (failing lanes 32..63)
  s_mov_b64 exec, s[42:43]
  s_mov_b64 s[2:3], s[44:45]
)", 2);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 2), l < 20 ? 2u : 1u) << l;
  EXPECT_EQ(r.at(40, 1, 2), 0xffffffffu);
}

TEST(EmuMemScalar, LdsDmaLandsAtTheVmcntWait) {
  // global_load_lds_dword writes LDS when the load completes: a ds_read before s_waitcnt vmcnt sees the old
  // dword (so a candidate that drops that wait differs from the original under verify).
  for (const char* arch : {"gfx942", "gfx950"}) {
    auto r = run_snippet(arch, std::string(kLaneAddr) + R"(
  v_add_u32 v1, 500, v0
  global_store_dword v[30:31], v1, off     // results[l] = 500 + l (the DMA's source)
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v2, 2, v0
  v_mov_b32 v3, 77
  ds_write_b32 v2, v3 offset:64            // LDS[64 + 4l] = 77
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 64
  global_load_lds_dword v[30:31], off
  ds_read_b32 v10, v2 offset:64            // before the wait: 77
  s_waitcnt lgkmcnt(0)
  s_waitcnt vmcnt(0)
  ds_read_b32 v11, v2 offset:64            // after it: 500 + l
  s_waitcnt lgkmcnt(0)
)", 2);
    for (unsigned l = 0; l < 64; l += 5) {
      EXPECT_EQ(r.at(l, 0, 2), 77u) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, 2), 500u + l) << arch << " lane " << l;
    }
  }
}

TEST(EmuMemScalar, BufferLoadToLdsLandsAtTheVmcntWait) {
  // buffer_load_dword ... lds (AITer's GEMM, MLA and attention kernels): each lane's dword goes to LDS at
  // M0 + offset + 4 * lane; the instruction offset also moves the memory address; a component outside
  // num_records writes 0; LDS changes only at the covering vmcnt wait.
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    auto r = run_snippet(arch, std::string(kLaneAddr) + R"(
  v_add_u32 v1, 500, v0
  global_store_dword v[30:31], v1, off     // memory dword l = 500 + l (the DMA's source)
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v2, 2, v0
  v_mov_b32 v3, 77
  ds_write_b32 v2, v3 offset:68            // LDS[68 + 4l] = 77
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s2
  s_and_b32 s9, s3, 0xffff                 // stride 0: a raw buffer
  s_movk_i32 s10, 0xc0                     // num_records 192 bytes: offsets 4 + 4l >= 192 (l >= 47) are out of range
  s_mov_b32 s11, 0x27000
  s_mov_b32 m0, 64
  buffer_load_dword v2, s[8:11], 0 offen offset:4 lds
  ds_read_b32 v10, v2 offset:68            // before the wait: 77
  s_waitcnt lgkmcnt(0)
  s_waitcnt vmcnt(0)
  ds_read_b32 v11, v2 offset:68            // after it: memory dword l + 1, or 0 out of range
  s_waitcnt lgkmcnt(0)
)", 2);
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(r.at(l, 0, 2), 77u) << arch << " lane " << l;
      EXPECT_EQ(r.at(l, 1, 2), 4 + 4 * l < 192 ? 501u + l : 0u) << arch << " lane " << l;
    }
  }
}

}  // namespace
}  // namespace asmevo::emu::test
