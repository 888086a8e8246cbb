// Waitcnt safety (check/waitcnt.h): for every rule a violating case and the same code with the
// right s_waitcnt; counter ordering (in-order VMEM and LDS queues, out-of-order SMEM and flat),
// partial waits, saturation, CFG joins and loops, calls, device-function entry and return.
#include <gtest/gtest.h>

#include "check/waitcnt.h"
#include "tests/check/check_test_util.h"

namespace asmevo::check {
namespace {

using codeobj::Arch;
using test::assemble_function;

std::vector<Violation> wc(const std::string& body, const char* cpu = "gfx942", bool kernel = true) {
  WaitcntOptions o;
  o.arch = codeobj::parse_target_id(cpu)->arch;
  return check_waitcnt(assemble_function(body, cpu, kernel), o);
}

std::string dump(const std::vector<Violation>& vs) {
  std::string s;
  for (const auto& v : vs) s += "  " + v.to_text() + "\n";
  return s;
}

TEST(WaitcntTest, VmemLoadThenUse) {
  for (const char* cpu : {"gfx90a", "gfx942", "gfx950"}) {
    auto v = wc("global_load_dword v2, v[0:1], off\nv_add_f32_e32 v3, v2, v2\n", cpu);
    ASSERT_EQ(v.size(), 1u) << cpu << dump(v);
    EXPECT_EQ(v[0].rule, "waitcnt.raw");
    EXPECT_EQ(v[0].reg, "v2");
    EXPECT_EQ(v[0].needed_wait, "vmcnt(0)");
    EXPECT_EQ(v[0].producer_pc, 0u);
    EXPECT_TRUE(wc("global_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(0)\nv_add_f32_e32 v3, v2, v2\n", cpu).empty());
  }
}

TEST(WaitcntTest, VmemInOrderPartialWaits) {
  const std::string loads =
      "global_load_dword v2, v[0:1], off\n"
      "buffer_load_dword v3, v4, s[8:11], 0 offen\n"
      "global_store_dword v[0:1], v5, off\n";  // stores count in the same in-order queue on gfx9
  // vmcnt(2): the oldest of the three is done.
  EXPECT_TRUE(wc(loads + "s_waitcnt vmcnt(2)\nv_mov_b32_e32 v6, v2\n").empty());
  auto v = wc(loads + "s_waitcnt vmcnt(2)\nv_mov_b32_e32 v6, v3\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].needed_wait, "vmcnt(1)");
  EXPECT_TRUE(wc(loads + "s_waitcnt vmcnt(1)\nv_mov_b32_e32 v6, v3\n").empty());
  // vmcnt(63) is the field's maximum: treated as no wait.
  EXPECT_FALSE(wc("global_load_dword v2, v[0:1], off\ns_waitcnt vmcnt(63)\nv_mov_b32_e32 v6, v2\n").empty());
}

TEST(WaitcntTest, SmemIsOutOfOrder) {
  const std::string loads = "s_load_dword s4, s[0:1], 0x0\ns_load_dword s5, s[0:1], 0x4\n";
  auto v = wc(loads + "s_waitcnt lgkmcnt(1)\ns_mov_b32 s6, s4\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].needed_wait, "lgkmcnt(0)");
  EXPECT_TRUE(wc(loads + "s_waitcnt lgkmcnt(0)\ns_mov_b32 s6, s4\n").empty());
}

TEST(WaitcntTest, LdsIsInOrderButSmemDoesNotCount) {
  const std::string lds = "ds_read_b32 v2, v0\nds_read_b32 v3, v0 offset:4\n";
  EXPECT_TRUE(wc(lds + "s_waitcnt lgkmcnt(1)\nv_mov_b32_e32 v6, v2\n").empty());
  EXPECT_FALSE(wc(lds + "s_waitcnt lgkmcnt(1)\nv_mov_b32_e32 v6, v3\n").empty());
  // An SMEM load issued after the LDS read may complete first: lgkmcnt(1) no longer proves
  // the LDS read done.
  EXPECT_FALSE(wc("ds_read_b32 v2, v0\ns_load_dword s4, s[0:1], 0x0\ns_waitcnt lgkmcnt(1)\nv_mov_b32_e32 v6, v2\n").empty());
}

TEST(WaitcntTest, FlatNeedsBothCountersAtZero) {
  const std::string load = "flat_load_dword v2, v[0:1]\nds_read_b32 v3, v4\n";
  auto v = wc(load + "s_waitcnt vmcnt(0)\nv_mov_b32_e32 v6, v2\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].needed_wait, "lgkmcnt(0)");
  EXPECT_TRUE(wc(load + "s_waitcnt vmcnt(0) lgkmcnt(0)\nv_mov_b32_e32 v6, v2\n").empty());
  // A flat load issued after a global load may be reported early: it does not count for it.
  EXPECT_FALSE(wc("global_load_dword v2, v[0:1], off\nflat_load_dword v3, v[4:5]\ns_waitcnt vmcnt(1)\nv_mov_b32_e32 v6, v2\n").empty());
}

TEST(WaitcntTest, WriteAfterWrite) {
  auto v = wc("global_load_dword v2, v[0:1], off\nv_mov_b32_e32 v2, 0\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].rule, "waitcnt.waw");
  // Two loads of the same in-order queue into one register complete in order: no wait.
  EXPECT_TRUE(wc("global_load_dword v2, v[0:1], off\nglobal_load_dword v2, v[0:1], off offset:4\n").empty());
  // Different queues (VMEM then LDS) may complete in either order.
  EXPECT_FALSE(wc("global_load_dword v2, v[0:1], off\nds_read_b32 v2, v4\n").empty());
  // SMEM to the same SGPR twice: out of order.
  EXPECT_FALSE(wc("s_load_dword s4, s[0:1], 0x0\ns_load_dword s4, s[0:1], 0x4\n").empty());
}

TEST(WaitcntTest, AddressFromAPendingLoad) {
  auto v = wc("global_load_dwordx2 v[2:3], v[0:1], off\nglobal_load_dword v4, v[2:3], off\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].rule, "waitcnt.raw");
  EXPECT_EQ(v[0].reg, "v[2:3]");
}

TEST(WaitcntTest, JoinTakesTheWeakestPath) {
  // The load happens on one path only; the use after the join needs the wait.
  const std::string body =
      "s_cbranch_scc0 L1\n"
      "global_load_dword v2, v[0:1], off\n"
      "%s"
      "L1:\n"
      "v_mov_b32_e32 v6, v2\n";
  auto with = [&](const std::string& mid) {
    std::string b = body;
    b.replace(b.find("%s"), 2, mid);
    return wc(b);
  };
  EXPECT_FALSE(with("").empty());
  EXPECT_TRUE(with("s_waitcnt vmcnt(0)\n").empty());
  // In-order counts join to the fewest newer operations.
  auto v = wc(
      "global_load_dword v2, v[0:1], off\n"
      "s_cbranch_scc0 L1\n"
      "global_load_dword v3, v[0:1], off offset:4\n"
      "L1:\n"
      "s_waitcnt vmcnt(1)\n"
      "v_mov_b32_e32 v6, v2\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].needed_wait, "vmcnt(0)");
}

TEST(WaitcntTest, Loops) {
  // A load at the bottom of the loop body reaches the use at its top through the back edge.
  EXPECT_FALSE(wc("L0:\nv_mov_b32_e32 v6, v2\nglobal_load_dword v2, v[0:1], off\ns_cbranch_scc0 L0\n").empty());
  EXPECT_TRUE(wc("L0:\ns_waitcnt vmcnt(0)\nv_mov_b32_e32 v6, v2\nglobal_load_dword v2, v[0:1], off\ns_cbranch_scc0 L0\n").empty());
}

TEST(WaitcntTest, BarrierNeedsLdsAccessesComplete) {
  auto v = wc("ds_write_b32 v0, v1\ns_barrier\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].rule, "waitcnt.barrier");
  EXPECT_EQ(v[0].needed_wait, "lgkmcnt(0)");
  EXPECT_FALSE(wc("ds_read_b32 v2, v0\ns_barrier\n").empty());  // a read other waves may overwrite after it
  EXPECT_TRUE(wc("ds_write_b32 v0, v1\ns_waitcnt lgkmcnt(0)\ns_barrier\n").empty());
  // Global stores and SMEM need not complete before a barrier.
  EXPECT_TRUE(wc("global_store_dword v[0:1], v2, off\ns_load_dword s4, s[0:1], 0x0\ns_barrier\n").empty());
  // ds_bpermute does not access LDS memory.
  EXPECT_TRUE(wc("ds_bpermute_b32 v2, v0, v1\ns_barrier\n").empty());
}

TEST(WaitcntTest, CallsReturnWithEverythingComplete) {
  // The call's own target registers must be complete ...
  auto v = wc("s_load_dwordx2 s[4:5], s[0:1], 0x0\ns_swappc_b64 s[30:31], s[4:5]\n");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].reg, "s[4:5]");
  // ... but a callee waits at its entry and before it returns, so nothing is pending after it.
  EXPECT_TRUE(wc("global_load_dword v2, v[0:1], off\ns_swappc_b64 s[30:31], s[4:5]\nv_mov_b32_e32 v6, v2\n").empty());
}

TEST(WaitcntTest, DeviceFunctionEntryAndReturn) {
  // Entry: a caller's load may still write any register until a full wait.
  auto v = wc("v_mov_b32_e32 v6, v2\ns_setpc_b64 s[30:31]\n", "gfx942", /*kernel=*/false);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].rule, "waitcnt.raw");
  EXPECT_FALSE(v[0].producer_pc.has_value());
  EXPECT_TRUE(wc("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)\nv_mov_b32_e32 v6, v2\ns_setpc_b64 s[30:31]\n", "gfx942", false)
                  .empty());
  // Return: nothing may be outstanding, stores included.
  auto r = wc("s_waitcnt 0\nglobal_store_dword v[0:1], v2, off\ns_setpc_b64 s[30:31]\n", "gfx942", false);
  ASSERT_EQ(r.size(), 1u) << dump(r);
  EXPECT_EQ(r[0].rule, "waitcnt.return");
  EXPECT_EQ(r[0].needed_wait, "vmcnt(0)");
  EXPECT_TRUE(wc("s_waitcnt 0\nglobal_store_dword v[0:1], v2, off\ns_waitcnt vmcnt(0)\ns_setpc_b64 s[30:31]\n", "gfx942", false)
                  .empty());
  // A kernel has no return contract: stores may be in flight at s_endpgm.
  EXPECT_TRUE(wc("global_store_dword v[0:1], v2, off\ns_endpgm\n").empty());
}

TEST(WaitcntTest, NoopWaits) {
  auto f = assemble_function(
      "s_load_dword s4, s[0:1], 0x0\n"
      "s_waitcnt lgkmcnt(0)\n"   // 0x8: needed
      "s_waitcnt lgkmcnt(0)\n"   // 0xc: nothing left to wait for
      "s_mov_b32 s5, s4\n",
      "gfx942");
  WaitcntOptions o;
  auto noops = noop_waits(f, o);
  ASSERT_EQ(noops.size(), 1u);
  EXPECT_EQ(noops[0], 0xcu);
}

}  // namespace
}  // namespace asmevo::check
