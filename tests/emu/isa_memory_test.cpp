// GLOBAL/FLAT memory, strict waitcnt (violations stop the run) and memory faults.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

TEST(EmuMemory, StoreLoadRoundTripAfterWait) {
  auto r = run_snippet("gfx942", std::string(kLaneAddr) + R"(
  v_add_u32_e32 v1, 1000, v0
  global_store_dword v[30:31], v1, off
  s_waitcnt vmcnt(0)
  global_load_dword v10, v[30:31], off
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v10, 1, v10
)",
                       1);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 1001 + l);
}

TEST(EmuMemory, SaddrFormAndOffsets) {
  auto r = run_snippet("gfx90a", R"(
  v_lshlrev_b32_e32 v1, 2, v0
  v_add_u32_e32 v2, 7, v0
  global_store_dword v1, v2, s[2:3] offset:0
  global_load_dword v10, v1, s[2:3]
  s_waitcnt vmcnt(0)
)",
                       1);
  for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r.at(l, 0, 1), 7 + l);
}

TEST(EmuWaitcnt, ReadingALoadResultWithoutWaitStops) {
  std::string msg = expect_error("gfx942", std::string(kLaneAddr) + R"(
  global_load_dword v5, v[30:31], off
  v_add_u32_e32 v10, 1, v5
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads v5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("v_add_u32_e32 v10, 1, v5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pc 0x"), std::string::npos) << msg;
}

TEST(EmuWaitcnt, VmcntCountsInOrder) {
  // Two loads; vmcnt(1) guarantees the older one only: reading v5 is fine, v6 is not.
  auto ok = run_snippet("gfx942", std::string(kLaneAddr) + R"(
  global_load_dword v5, v[30:31], off
  global_load_dword v6, v[30:31], off
  s_waitcnt vmcnt(1)
  v_mov_b32 v10, v5
  s_waitcnt vmcnt(0)
)",
                        1);
  std::string msg = expect_error("gfx942", std::string(kLaneAddr) + R"(
  global_load_dword v5, v[30:31], off
  global_load_dword v6, v[30:31], off
  s_waitcnt vmcnt(1)
  v_mov_b32 v10, v6
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads v6"), std::string::npos) << msg;
}

// gfx9 splits vmcnt: simm16 bits [3:0] low, [15:14] high. 17 loads, then vmcnt(16) (simm16 0x4f70, low bits 0)
// completes the first load only: a decoder that dropped the high bits would read it as vmcnt(0) and allow v41.
// 0xcf7f (vmcnt 63, expcnt 7, lgkmcnt 15; AITer's fmoe 16x128_pf3 has 28) and 0xc00f (expcnt 0, lgkmcnt 0, vmcnt
// 63) wait for no load.
TEST(EmuWaitcnt, VmcntHighBitsAndTheNoWaitEncodings) {
  std::string loads = kLaneAddr;
  for (int i = 0; i < 17; ++i) loads += "  global_load_dword v" + std::to_string(40 + i) + ", v[30:31], off\n";
  run_snippet("gfx942", loads + "  s_waitcnt 0x4f70\n  v_mov_b32 v10, v40\n  s_waitcnt vmcnt(0)\n", 1);
  std::string msg = expect_error("gfx942", loads + "  s_waitcnt vmcnt(16)\n  v_mov_b32 v10, v41\n");
  EXPECT_NE(msg.find("reads v41"), std::string::npos) << msg;
  for (const char* no_wait : {"0xcf7f", "0xc00f"}) {
    msg = expect_error("gfx942", std::string(kLaneAddr) + "  global_load_dword v5, v[30:31], off\n  s_waitcnt " + no_wait +
                                     "\n  v_mov_b32 v10, v5\n");
    EXPECT_NE(msg.find("reads v5"), std::string::npos) << no_wait << ": " << msg;
  }
}

TEST(EmuWaitcnt, SmemIsOutOfOrder) {
  // lgkmcnt(1) after two scalar loads guarantees neither (SMEM returns out of order).
  std::string msg = expect_error("gfx950", R"(
  s_load_dword s4, s[0:1], 0x0
  s_load_dword s5, s[0:1], 0x4
  s_waitcnt lgkmcnt(1)
  v_mov_b32 v10, s4
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads s4"), std::string::npos) << msg;
}

TEST(EmuWaitcnt, OverwritingALoadDestinationStops) {
  std::string msg = expect_error("gfx90a", std::string(kLaneAddr) + R"(
  global_load_dword v5, v[30:31], off
  v_mov_b32 v5, 0
)");
  EXPECT_NE(msg.find("waitcnt violation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("writes v5"), std::string::npos) << msg;
}

TEST(EmuFault, OutOfRangeLoadNamesLaneAndAddress) {
  std::string msg = expect_error("gfx942", R"(
  v_mov_b32 v30, 0x1000
  v_mov_b32 v31, 0
  v_cmp_eq_u32_e32 vcc, 3, v0
  s_and_saveexec_b64 s[4:5], vcc
  global_load_dword v5, v[30:31], off
  s_waitcnt vmcnt(0)
)");
  EXPECT_NE(msg.find("memory fault"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("address 0x1000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_load_dword v5, v[30:31], off"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel k"), std::string::npos) << msg;
}

TEST(EmuFault, StoreJustPastTheBufferEndBreaksTheGuardZone) {
  // The buffer holds 64 dwords; lane 0 writes dword 64: inside the 256-byte guard zone (canary).
  std::string msg = expect_error("gfx942", R"(
  v_mov_b32 v30, s2
  v_mov_b32 v31, s3
  global_store_dword v[30:31], v0, off offset:256
)");
  EXPECT_NE(msg.find("guard zone of buffer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at byte 256"), std::string::npos) << msg;
}

TEST(EmuFault, StorePastTheGuardZoneFaults) {
  // Beyond the buffer and its guard zone nothing is mapped: a memory fault naming the lane.
  std::string msg = expect_error("gfx942", R"(
  v_mov_b32 v30, s2
  v_mov_b32 v31, s3
  global_store_dword v[30:31], v0, off offset:1024
)");
  EXPECT_NE(msg.find("memory fault"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lane 0"), std::string::npos) << msg;
}

}  // namespace
}  // namespace asmevo::emu::test

// `_d16_hi` stores write the high half (bits 31:16) or byte (23:16) of the data VGPR. Each lane
// uses its own two dwords of the output buffer as scratch, then reloads them into v10/v11.
TEST(EmuGlobalD16, StoresOfTheHighHalf) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    auto r = asmevo::emu::test::run_snippet(arch, R"(
  v_mov_b32 v1, 0x12345678
  v_mov_b32 v10, 0
  v_lshlrev_b32 v20, 3, v0
  v_mov_b32 v21, s3
  v_add_co_u32 v20, vcc, s2, v20
  v_addc_co_u32 v21, vcc, 0, v21, vcc
  global_store_dword v[20:21], v10, off
  global_store_dword v[20:21], v10, off offset:4
  s_waitcnt vmcnt(0)
  global_store_short_d16_hi v[20:21], v1, off
  global_store_byte_d16_hi v[20:21], v1, off offset:4
  s_waitcnt vmcnt(0)
  global_load_dword v10, v[20:21], off
  global_load_dword v11, v[20:21], off offset:4
  s_waitcnt vmcnt(0)
)", 2);
    for (unsigned lane = 0; lane < 64; ++lane) {
      EXPECT_EQ(r.at(lane, 0, 2), 0x1234u) << arch << " lane " << lane;
      EXPECT_EQ(r.at(lane, 1, 2), 0x34u) << arch << " lane " << lane;
    }
  }
}
