// Proofs over acyclic regions (forward branches inside the window, exits to labels outside it),
// LDS and scalar loads. For each feature a real rewrite is PROVEN and a subtly wrong one is not.
#include <gtest/gtest.h>

#include "prove/prove.h"
#include "prove_test_util.h"

namespace asmevo::prove {
namespace {

using test_util::prove;

// if (s0 == 0) v1 = v2 - v3 else v1 = v2 + v3
std::vector<std::string> diamond(const std::string& branch, const std::string& else_arm, const std::string& then_arm) {
  return {"s_cmp_eq_u32 s0, 0", branch + " BB0_2", else_arm, "s_branch BB0_3", "BB0_2:", then_arm, "BB0_3:"};
}

TEST(ProveRegion, AnEditInsideOneArmOfADiamondIsProven) {
  auto r = prove(diamond("s_cbranch_scc1", "v_add_u32_e32 v1, v2, v3", "v_sub_u32_e32 v1, v2, v3"),
                 diamond("s_cbranch_scc1", "v_add_u32_e32 v1, v3, v2", "v_sub_u32_e32 v1, v2, v3"));
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  EXPECT_EQ(r.paths, 4u);
  // The inverted branch with its arms swapped is the same program.
  auto swapped = prove(diamond("s_cbranch_scc1", "v_add_u32_e32 v1, v2, v3", "v_sub_u32_e32 v1, v2, v3"),
                       diamond("s_cbranch_scc0", "v_sub_u32_e32 v1, v2, v3", "v_add_u32_e32 v1, v2, v3"));
  EXPECT_EQ(swapped.verdict, Verdict::Proven) << swapped.to_text();
}

TEST(ProveRegion, AFlippedBranchIsDisprovenAndConfirmedConcretely) {
  auto r = prove(diamond("s_cbranch_scc1", "v_add_u32_e32 v1, v2, v3", "v_sub_u32_e32 v1, v2, v3"),
                 diamond("s_cbranch_scc0", "v_add_u32_e32 v1, v2, v3", "v_sub_u32_e32 v1, v2, v3"));
  ASSERT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed);
}

TEST(ProveRegion, PathConditionsAreKnownOnEachArm) {
  // On the taken arm s0 == 0, so writing s0 there is writing 0.
  auto r = prove(diamond("s_cbranch_scc1", "v_mov_b32_e32 v1, s0", "v_mov_b32_e32 v1, 0"),
                 diamond("s_cbranch_scc1", "v_mov_b32_e32 v1, s0", "v_mov_b32_e32 v1, s0"));
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  // Subtly wrong: the same on the fall-through arm, where s0 != 0.
  auto wrong = prove(diamond("s_cbranch_scc1", "v_mov_b32_e32 v1, 0", "v_mov_b32_e32 v1, 0"),
                     diamond("s_cbranch_scc1", "v_mov_b32_e32 v1, s0", "v_mov_b32_e32 v1, 0"));
  ASSERT_EQ(wrong.verdict, Verdict::Disproven) << wrong.to_text();
  EXPECT_TRUE(wrong.confirmed);
}

TEST(ProveRegion, HoistingAnSccWriteAboveItsBranchIsDisproven) {
  // s_add_u32 writes SCC (its carry): hoisted between the compare and the branch it changes the path.
  const std::vector<std::string> old_w = {"s_cmp_eq_u32 s0, 0", "s_cbranch_scc1 BB0_2", "s_add_u32 s5, s6, s7", "BB0_2:"};
  const std::vector<std::string> new_w = {"s_cmp_eq_u32 s0, 0", "s_add_u32 s5, s6, s7", "s_cbranch_scc1 BB0_2", "BB0_2:"};
  program::RegSet live;
  live.bits.set(program::RegSet::kSgpr + 5);
  auto r = prove(old_w, new_w, &live);
  ASSERT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_TRUE(r.confirmed);
}

TEST(ProveRegion, ExitsToLabelsOutsideMustMatch) {
  // Both leave to BB0_9 on the same condition (EXEC == 0 <=> s_and_saveexec gave 0).
  auto same = prove({"s_and_saveexec_b64 s[4:5], vcc", "s_cbranch_execz BB0_9", "v_mov_b32_e32 v1, 1"},
                    {"s_and_saveexec_b64 s[4:5], vcc", "s_cbranch_scc0 BB0_9", "v_mov_b32_e32 v1, 1"});
  EXPECT_EQ(same.verdict, Verdict::Proven) << same.to_text();
  // Subtly wrong: vccz instead of execz (VCC != 0 can still leave EXEC = 0 when EXEC was partial).
  auto wrong = prove({"s_and_saveexec_b64 s[4:5], vcc", "s_cbranch_execz BB0_9", "v_mov_b32_e32 v1, 1"},
                     {"s_and_saveexec_b64 s[4:5], vcc", "s_cbranch_vccz BB0_9", "v_mov_b32_e32 v1, 1"});
  ASSERT_EQ(wrong.verdict, Verdict::Disproven) << wrong.to_text();
  EXPECT_TRUE(wrong.confirmed);
  EXPECT_NE(wrong.reason.find("exit"), std::string::npos) << wrong.reason;
}

TEST(ProveRegion, LivenessIsTakenAtEachExit) {
  // v7 is dead at the window's end but live at BB0_9: deleting its write is wrong only because
  // of the exit.
  const std::vector<std::string> old_w = {"v_mov_b32_e32 v7, 0", "s_cmp_eq_u32 s0, 0", "s_cbranch_scc1 BB0_9"};
  const std::vector<std::string> new_w = {"s_cmp_eq_u32 s0, 0", "s_cbranch_scc1 BB0_9"};
  program::RegSet at_end;
  std::map<std::string, program::RegSet> labels;
  labels["BB0_9"].bits.set(program::RegSet::kVgpr + 7);
  auto r = prove(old_w, new_w, &at_end, &labels);
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  labels["BB0_9"] = {};
  auto dead = prove(old_w, new_w, &at_end, &labels);
  EXPECT_EQ(dead.verdict, Verdict::Proven) << dead.to_text();
  // An exit whose live set is unknown counts every register.
  auto unknown_exit = prove(old_w, new_w, &at_end, nullptr);
  EXPECT_EQ(unknown_exit.verdict, Verdict::Disproven) << unknown_exit.to_text();
}

TEST(ProveRegion, EndpgmIsAnExit) {
  program::RegSet live;  // SCC differs (the compares are each other's negation) but is dead
  live.bits.set(program::RegSet::kVgpr + 1);
  auto r = prove({"s_cmp_eq_u32 s0, 0", "s_cbranch_scc0 BB0_2", "s_endpgm", "BB0_2:", "v_mov_b32_e32 v1, 0"},
                 {"s_cmp_lg_u32 s0, 0", "s_cbranch_scc1 BB0_2", "s_endpgm", "BB0_2:", "v_mov_b32_e32 v1, 0"}, &live);
  EXPECT_EQ(r.verdict, Verdict::Proven) << r.to_text();
  // Subtly wrong: the fall-through path now ends the program instead of writing v1.
  auto wrong = prove({"s_cmp_eq_u32 s0, 0", "s_cbranch_scc0 BB0_2", "s_endpgm", "BB0_2:", "v_mov_b32_e32 v1, 0"},
                     {"s_cmp_lg_u32 s0, 0", "s_cbranch_scc0 BB0_2", "s_endpgm", "BB0_2:", "v_mov_b32_e32 v1, 0"}, &live);
  EXPECT_EQ(wrong.verdict, Verdict::Disproven) << wrong.to_text();
}

// ---- LDS ----

TEST(ProveLds, EqualAccessShapesAreProven) {
  EXPECT_EQ(prove({"ds_write2_b32 v1, v2, v3 offset1:1"}, {"ds_write_b64 v1, v[2:3]"}).verdict, Verdict::Proven);
  EXPECT_EQ(prove({"ds_read2_b32 v[4:5], v1 offset0:1 offset1:2"}, {"ds_read_b64 v[4:5], v1 offset:4"}).verdict, Verdict::Proven);
  // LDS and global memory do not alias: a global store and an LDS read commute.
  EXPECT_EQ(prove({"global_store_dword v[2:3], v4, off", "ds_read_b32 v5, v1"}, {"ds_read_b32 v5, v1", "global_store_dword v[2:3], v4, off"}).verdict,
            Verdict::Proven);
}

TEST(ProveLds, Read2OffsetsAreInElements) {
  // read2's offsets are in elements: offset1:2 is 8 bytes, not the b64's second dword.
  auto r = prove({"ds_read2_b32 v[4:5], v1 offset1:2"}, {"ds_read_b64 v[4:5], v1"});
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
}

TEST(ProveLds, StoreToLoadForwardingIsDisproven) {
  // Another lane may write the same address later, and an access past the allocation is dropped
  // (the read gives 0). Two lanes under EXEC keep the solver's work small; it is wrong there already.
  auto fwd = prove({"s_mov_b64 exec, 3", "ds_write_b32 v1, v2", "ds_read_b32 v3, v1"},
                   {"s_mov_b64 exec, 3", "ds_write_b32 v1, v2", "v_mov_b32_e32 v3, v2"});
  EXPECT_EQ(fwd.verdict, Verdict::Disproven) << fwd.to_text();
  std::cerr << fwd.to_text() << "\n";
}

TEST(ProveLds, OverlappingStoresDoNotCommute) {
  auto order = prove({"s_mov_b64 exec, 3", "ds_write_b32 v1, v2", "ds_write_b32 v1, v3 offset:4"},
                     {"s_mov_b64 exec, 3", "ds_write_b32 v1, v3 offset:4", "ds_write_b32 v1, v2"});
  EXPECT_EQ(order.verdict, Verdict::Disproven) << order.to_text();
}

TEST(ProveLds, SubDwordReadsExtendAsTheirNameSays) {
  auto ext = prove({"ds_read_u8 v3, v1"}, {"ds_read_i8 v3, v1"});
  EXPECT_EQ(ext.verdict, Verdict::Disproven) << ext.to_text();
}

// ---- Sub-dword global accesses, scheduling hints ----

TEST(ProveGlobal, SubDwordAccesses) {
  program::RegSet memory_only;
  // One lane: a short store is its two bytes.
  const std::vector<std::string> split = {"s_mov_b64 exec, 1", "v_lshrrev_b32_e32 v3, 8, v2", "global_store_byte v[0:1], v2, off",
                                          "global_store_byte v[0:1], v3, off offset:1"};
  EXPECT_EQ(prove({"s_mov_b64 exec, 1", "global_store_short v[0:1], v2, off"}, split, &memory_only).verdict, Verdict::Proven);
  // Subtly wrong with two lanes: lane 1's first byte may land on lane 0's second, and the order differs.
  std::vector<std::string> split2 = split;
  split2[0] = "s_mov_b64 exec, 3";
  auto r = prove({"s_mov_b64 exec, 3", "global_store_short v[0:1], v2, off"}, split2, &memory_only);
  EXPECT_EQ(r.verdict, Verdict::Disproven) << r.to_text();
  EXPECT_EQ(prove({"global_load_ubyte v3, v[0:1], off"}, {"global_load_sbyte v3, v[0:1], off"}).verdict, Verdict::Disproven);
  EXPECT_EQ(prove({"s_setprio 3", "v_add_u32_e32 v1, v2, v3"}, {"v_add_u32_e32 v1, v2, v3", "s_setprio 3"}).verdict, Verdict::Proven);
}

// ---- Scalar loads ----

TEST(ProveScalarLoad, SplitAndAlignedLoadsAreProven) {
  program::RegSet live;
  live.bits.set(program::RegSet::kSgpr + 4), live.bits.set(program::RegSet::kSgpr + 5);
  EXPECT_EQ(prove({"s_load_dwordx2 s[4:5], s[0:1], 0x8"}, {"s_load_dword s4, s[0:1], 0x8", "s_load_dword s5, s[0:1], 0xc"}, &live).verdict,
            Verdict::Proven);
  // The offset from an SGPR.
  program::RegSet s4;
  s4.bits.set(program::RegSet::kSgpr + 4);
  EXPECT_EQ(prove({"s_load_dword s4, s[0:1], 0x8"}, {"s_mov_b32 s6, 8", "s_load_dword s4, s[0:1], s6"}, &s4).verdict, Verdict::Proven);
  // A kernarg load hoisted above an unrelated VALU instruction.
  EXPECT_EQ(prove({"v_add_u32_e32 v1, v2, v3", "s_load_dword s4, s[0:1], 0x10"}, {"s_load_dword s4, s[0:1], 0x10", "v_add_u32_e32 v1, v2, v3"}).verdict,
            Verdict::Proven);
}

TEST(ProveScalarLoad, SubtlyWrongLoadsAreDisproven) {
  EXPECT_EQ(prove({"s_load_dword s4, s[0:1], 0xc"}, {"s_load_dword s4, s[0:1], 0x10"}).verdict, Verdict::Disproven);
  // The address is aligned down to a dword: 0x9 and 0x8 differ for an odd base.
  EXPECT_EQ(prove({"s_load_dword s4, s[0:1], 0x9"}, {"s_load_dword s4, s[0:1], 0x8"}).verdict, Verdict::Disproven);
  // Hoisted above a store that may write the loaded dword.
  EXPECT_EQ(prove({"global_store_dword v[2:3], v4, off", "s_load_dword s4, s[0:1], 0x0"}, {"s_load_dword s4, s[0:1], 0x0", "global_store_dword v[2:3], v4, off"}).verdict,
            Verdict::Disproven);
}

}  // namespace
}  // namespace asmevo::prove
