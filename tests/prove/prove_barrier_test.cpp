// s_barrier in window proofs (docs/prove.md "Barriers"): an ordering point of the memory effects.
// Register work moves across it freely; a load or store moved across it, or a barrier added or
// removed, is never PROVEN.
#include <gtest/gtest.h>

#include "prove/prove.h"
#include "prove_test_util.h"

namespace asmevo::prove {
namespace {

using test_util::prove;

// Two lanes under EXEC keep the memory chains small (each access is compared with every other).
const char* const kTwoLanes = "s_mov_b64 exec, 3";

TEST(ProveBarrier, RegisterWorkMovesAcrossABarrier) {
  auto r = prove({kTwoLanes, "ds_write_b32 v0, v1", "s_waitcnt lgkmcnt(0)", "s_barrier", "v_add_u32_e32 v4, v5, v6", "ds_read_b32 v2, v3"},
                 {kTwoLanes, "v_add_u32_e32 v4, v5, v6", "ds_write_b32 v0, v1", "s_waitcnt lgkmcnt(0)", "s_barrier", "ds_read_b32 v2, v3"});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
}

TEST(ProveBarrier, AnLdsReadHoistedAboveTheBarrierIsDisproven) {
  // The subtly wrong reschedule: the read no longer sees what the other waves wrote before the
  // barrier (it may still see this wave's own write, so aliasing alone does not explain it).
  auto r = prove({kTwoLanes, "ds_write_b32 v0, v1", "s_waitcnt lgkmcnt(0)", "s_barrier", "ds_read_b32 v2, v3"},
                 {kTwoLanes, "ds_write_b32 v0, v1", "ds_read_b32 v2, v3", "s_waitcnt lgkmcnt(0)", "s_barrier"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_NE(r.reason.find("v2"), std::string::npos) << r.reason;
}

TEST(ProveBarrier, AnLdsWriteSunkBelowTheBarrierIsDisproven) {
  // The other waves read LDS after the barrier: this wave's bytes must be there by then.
  auto r = prove({kTwoLanes, "ds_write_b32 v0, v1", "s_barrier"}, {kTwoLanes, "s_barrier", "ds_write_b32 v0, v1"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_NE(r.reason.find("LDS at s_barrier #1"), std::string::npos) << r.reason;
  // A global store too (other waves of the workgroup may read it after the barrier).
  auto g = prove({kTwoLanes, "global_store_dword v[0:1], v2, off", "s_barrier"}, {kTwoLanes, "s_barrier", "global_store_dword v[0:1], v2, off"});
  EXPECT_EQ(g.verdict, Verdict::Disproven) << g.to_text();
}

TEST(ProveBarrier, AGlobalLoadAcrossABarrierIsNotProven) {
  // Moving a load of a read-only input across a barrier is a good reschedule, and wrong only if
  // another wave writes that memory between the barriers: the proof cannot know, so UNKNOWN
  // (testing decides), never PROVEN.
  auto r = prove({kTwoLanes, "s_barrier", "global_load_dword v1, v[2:3], off"}, {kTwoLanes, "global_load_dword v1, v[2:3], off", "s_barrier"});
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_text();
  EXPECT_NE(r.reason.find("another wave"), std::string::npos) << r.reason;
  // Scalar loads (the kernel arguments) are global memory as well.
  auto s = prove({"s_barrier", "s_load_dword s4, s[0:1], 0x0"}, {"s_load_dword s4, s[0:1], 0x0", "s_barrier"});
  EXPECT_EQ(s.verdict, Verdict::Unknown) << s.to_text();
  // A difference that needs no other wave is DISPROVEN: the load moved above this wave's own store.
  auto o = prove({kTwoLanes, "global_store_dword v[0:1], v2, off", "s_barrier", "global_load_dword v3, v[0:1], off"},
                 {kTwoLanes, "global_load_dword v3, v[0:1], off", "global_store_dword v[0:1], v2, off", "s_barrier"});
  EXPECT_EQ(o.verdict, Verdict::Disproven) << o.to_text();
}

TEST(ProveBarrier, AddingOrRemovingABarrierIsUnknown) {
  auto r = prove({kTwoLanes, "ds_write_b32 v0, v1", "s_barrier", "ds_read_b32 v2, v3"}, {kTwoLanes, "ds_write_b32 v0, v1", "ds_read_b32 v2, v3"});
  EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_text();
  EXPECT_NE(r.reason.find("different numbers of s_barrier"), std::string::npos) << r.reason;
  // Even with nothing around it (barrier_elim proves its own removals; this proof does not judge them).
  EXPECT_EQ(prove({"s_barrier"}, {"s_nop 0"}).verdict, Verdict::Unknown);
  // On one path only: a branch around the barrier.
  auto b = prove({"s_cbranch_scc0 L1", "s_barrier", "L1:", "v_mov_b32_e32 v1, 0"}, {"s_barrier", "v_mov_b32_e32 v1, 0"});
  EXPECT_EQ(b.verdict, Verdict::Unknown) << b.to_text();
}

TEST(ProveBarrier, StoresReorderedBetweenTheSameBarriersAreProven) {
  // Within one barrier interval only this wave touches the bytes it writes (the kernel is free of
  // data races, as the final-memory comparison already assumes): one lane's disjoint stores commute.
  auto r = prove({"s_mov_b64 exec, 1", "s_barrier", "ds_write_b32 v0, v1", "ds_write_b32 v0, v2 offset:4", "s_barrier"},
                 {"s_mov_b64 exec, 1", "s_barrier", "ds_write_b32 v0, v2 offset:4", "ds_write_b32 v0, v1", "s_barrier"});
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  // With two lanes, lane 1's first store may hit lane 0's second (v0 4 bytes apart): the order
  // matters, and the next barrier shows it.
  auto two = prove({kTwoLanes, "s_barrier", "ds_write_b32 v0, v1", "ds_write_b32 v0, v2 offset:4", "s_barrier"},
                   {kTwoLanes, "s_barrier", "ds_write_b32 v0, v2 offset:4", "ds_write_b32 v0, v1", "s_barrier"});
  EXPECT_EQ(two.verdict, Verdict::Disproven) << two.to_text();
  EXPECT_NE(two.reason.find("LDS at s_barrier #2"), std::string::npos) << two.reason;
}

}  // namespace
}  // namespace asmevo::prove
