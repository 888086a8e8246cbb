// Hazard rules (check/hazard_rules.cpp): for every rule a positive case (the producer too close:
// the rule must fire) and a negative case (fixed with exactly the required s_nop wait states:
// nothing may fire), per processor where the numbers differ; plus counting across blocks.
#include <gtest/gtest.h>

#include <set>

#include "check/hazards.h"
#include "tests/check/check_test_util.h"

namespace asmevo::check {
namespace {

using codeobj::Arch;
using test::assemble_function;

const char* cpu(Arch a) { return a == Arch::gfx90a ? "gfx90a" : a == Arch::gfx942 ? "gfx942" : "gfx950"; }

// s_nop lines providing exactly n wait states.
std::string nops(int n) {
  std::string s;
  while (n > 0) {
    int k = std::min(n, 8);
    s += "s_nop " + std::to_string(k - 1) + "\n";
    n -= k;
  }
  return s;
}

std::vector<Violation> hazards(const std::string& body, Arch arch, HazardContext ctx = {}) {
  ctx.arch = arch;
  return check_hazards(assemble_function(body, cpu(arch)), ctx);
}

std::set<std::string> rules_of(const std::vector<Violation>& vs) {
  std::set<std::string> r;
  for (const auto& v : vs) r.insert(v.rule);
  return r;
}

std::string dump(const std::vector<Violation>& vs) {
  std::string s;
  for (const auto& v : vs) s += "  " + v.to_text() + "\n";
  return s;
}

struct Case {
  const char* rule;
  std::vector<Arch> archs;
  std::string producer, consumer;  // the hazard: producer, then consumer
  int needed;                      // wait states the rule needs on these archs
};

const std::vector<Arch> kAll = {Arch::gfx90a, Arch::gfx942, Arch::gfx950};
const std::vector<Arch> k940 = {Arch::gfx942, Arch::gfx950};

// Producer and consumer with n wait states between them must fire iff n < needed; and the
// reported numbers must be the rule's.
void expect_rule(const Case& c, HazardContext ctx = {}) {
  for (Arch a : c.archs) {
    SCOPED_TRACE(std::string(c.rule) + " on " + cpu(a));
    auto pos = hazards(c.producer + "\n" + c.consumer + "\n", a, ctx);
    ASSERT_TRUE(rules_of(pos).count(c.rule)) << "positive case did not fire:\n" << dump(pos);
    for (const auto& v : pos)
      if (v.rule == c.rule) {
        EXPECT_EQ(v.needed, c.needed) << v.to_text();
        EXPECT_EQ(v.found, 0);
      }
    if (c.needed > 1) {
      auto edge = hazards(c.producer + "\n" + nops(c.needed - 1) + c.consumer + "\n", a, ctx);
      EXPECT_TRUE(rules_of(edge).count(c.rule)) << "one wait state short did not fire:\n" << dump(edge);
    }
    auto neg = hazards(c.producer + "\n" + nops(c.needed) + c.consumer + "\n", a, ctx);
    EXPECT_TRUE(neg.empty()) << "negative case fired:\n" << dump(neg);
  }
}

void expect_no_rule(const char* rule, const std::vector<Arch>& archs, const std::string& body, HazardContext ctx = {}) {
  for (Arch a : archs) {
    SCOPED_TRACE(std::string(rule) + " must not apply on " + cpu(a));
    auto v = hazards(body, a, ctx);
    EXPECT_FALSE(rules_of(v).count(rule)) << dump(v);
  }
}

const std::string kMfma32 = "v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[0:15]";  // 16 passes gfx90a, 8 gfx94x
const std::string kMfma32C = "v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[32:47]";  // SrcC v[32:47]

// ---- VALU / SALU / VMEM rules ---------------------------------------------------------------------

TEST(HazardsTest, ValuSgprVmem) {
  expect_rule({"valu-sgpr-vmem", kAll, "v_readfirstlane_b32 s4, v0", "buffer_load_dword v1, v2, s[4:7], 0 offen", 5});
  // EXEC written by v_cmpx, read implicitly by a global load.
  expect_rule({"valu-sgpr-vmem", kAll, "v_cmpx_eq_u32_e32 v10, v11", "global_load_dword v1, v[2:3], off", 5});
  // An SALU writing the SGPR is no hazard.
  expect_no_rule("valu-sgpr-vmem", kAll, "s_mov_b32 s4, 0\nbuffer_load_dword v1, v2, s[4:7], 0 offen\n");
}

TEST(HazardsTest, ValuVccDivFmas) {
  expect_rule({"valu-vcc-div-fmas", kAll, "v_div_scale_f32 v0, vcc, v1, v1, v2", "v_div_fmas_f32 v3, v4, v5, v6", 4});
}

TEST(HazardsTest, SetregGetreg) {
  expect_rule({"setreg-getreg", kAll, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
               "s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)", 2});
  expect_no_rule("setreg-getreg", kAll,
                 "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\ns_getreg_b32 s1, hwreg(HW_REG_TRAPSTS, 0, 4)\n");
}

TEST(HazardsTest, SetregSetreg) {
  expect_rule({"setreg-setreg", kAll, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0",
               "s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s1", 2});
}

TEST(HazardsTest, SetregTrapstsRfe) {
  expect_rule({"setreg-trapsts-rfe", kAll, "s_setreg_b32 hwreg(HW_REG_TRAPSTS), s0", "s_rfe_b64 s[0:1]", 1});
}

TEST(HazardsTest, SaluM0Read) {
  expect_rule({"salu-m0-read", kAll, "s_mov_b32 m0, s0", "s_sendmsg sendmsg(MSG_INTERRUPT)", 1});
  expect_no_rule("salu-m0-read", kAll, "s_mov_b32 m0, s0\nds_read_b32 v0, v1\n");  // gfx9 LDS does not read M0
}

TEST(HazardsTest, ValuSgprLaneSelect) {
  expect_rule({"valu-sgpr-lane-select", kAll, "v_readfirstlane_b32 s2, v0", "v_readlane_b32 s3, v1, s2", 4});
  expect_rule({"valu-sgpr-lane-select", kAll, "v_readfirstlane_b32 s2, v0", "v_writelane_b32 v3, 0, s2", 4});
}

TEST(HazardsTest, Dpp) {
  expect_rule({"dpp-vgpr", kAll, "v_add_f32_e32 v1, v2, v3",
               "v_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 2});
  // Any instruction counts as the producer, not only VALU.
  expect_rule({"dpp-vgpr", kAll, "ds_read_b32 v1, v2", "v_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
               2});
  expect_rule({"dpp-exec", kAll, "v_cmpx_eq_u32_e32 v0, v1",
               "v_mov_b32_dpp v4, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 5});
  expect_no_rule("dpp-exec", kAll, "s_mov_b64 exec, -1\nv_mov_b32_dpp v4, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n");
}

TEST(HazardsTest, VmemStoreData) {
  expect_rule({"vmem-store-data-12dw", {Arch::gfx90a}, "global_store_dwordx4 v[0:1], v[2:5], off", "v_mov_b32_e32 v3, 0", 1});
  expect_rule({"vmem-store-data-12dw", k940, "global_store_dwordx4 v[0:1], v[2:5], off", "v_mov_b32_e32 v3, 0", 2});
  expect_rule({"vmem-store-data-12dw", k940, "buffer_store_dwordx4 v[2:5], v0, s[4:7], 0 offen", "v_mov_b32_e32 v5, 0", 2});
  expect_rule({"vmem-store-data-12dw", k940, "global_atomic_cmpswap_x2 v[0:1], v[2:5], off", "v_mov_b32_e32 v2, 0", 2});
  // <= 8 bytes of data, an SGPR soffset, or a register not in the data: no hazard.
  expect_no_rule("vmem-store-data-12dw", kAll, "global_store_dwordx2 v[0:1], v[2:3], off\nv_mov_b32_e32 v3, 0\n");
  expect_no_rule("vmem-store-data-12dw", kAll, "buffer_store_dwordx4 v[2:5], v0, s[4:7], s8 offen\nv_mov_b32_e32 v3, 0\n");
  expect_no_rule("vmem-store-data-12dw", kAll, "global_store_dwordx4 v[0:1], v[2:5], off\nv_mov_b32_e32 v0, 0\n");
}

TEST(HazardsTest, XnackSoftClause) {
  HazardContext xnack_on;
  xnack_on.xnack = true;
  expect_rule({"xnack-soft-clause", kAll, "s_load_dwordx2 s[4:5], s[0:1], 0x0", "s_load_dwordx2 s[0:1], s[0:1], 0x8", 1},
              xnack_on);
  expect_rule({"xnack-soft-clause", kAll, "global_load_dword v2, v[0:1], off", "global_load_dword v0, v[0:1], off offset:4", 1},
              xnack_on);
  expect_rule({"xnack-soft-clause", kAll, "global_load_dword v2, v[0:1], off", "global_store_dword v[4:5], v6, off", 1},
              xnack_on);
  // Independent loads may share a clause.
  expect_no_rule("xnack-soft-clause", kAll, "s_load_dwordx2 s[4:5], s[0:1], 0x0\ns_load_dwordx2 s[6:7], s[0:1], 0x8\n",
                 xnack_on);
  HazardContext xnack_off;
  xnack_off.xnack = false;
  expect_no_rule("xnack-soft-clause", kAll, "s_load_dwordx2 s[4:5], s[0:1], 0x0\ns_load_dwordx2 s[0:1], s[0:1], 0x8\n",
                 xnack_off);
}

// ---- gfx940-family VALU rules ----------------------------------------------------------------------

TEST(HazardsTest, TransForwarding) {
  expect_rule({"trans-forwarding", k940, "v_exp_f32_e32 v1, v2", "v_add_f32_e32 v3, v1, v4", 1});
  expect_no_rule("trans-forwarding", {Arch::gfx90a}, "v_exp_f32_e32 v1, v2\nv_add_f32_e32 v3, v1, v4\n");
  expect_no_rule("trans-forwarding", k940, "v_exp_f32_e32 v1, v2\nv_log_f32_e32 v3, v1\n");  // TRANS consumer
}

TEST(HazardsTest, DstSelForwarding) {
  expect_rule({"dst-sel-forwarding", k940,
               "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0",
               "v_add_f32_e32 v4, v1, v5", 1});
  expect_rule({"dst-sel-forwarding", k940, "v_pk_add_f32 v[2:3], v[4:5], v[6:7]", "v_add_f32_e32 v8, v2, v9", 1});
  expect_rule({"dst-sel-forwarding", k940, "v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]", "v_add_f32_e32 v4, v1, v5", 1});
  expect_no_rule("dst-sel-forwarding", k940, "v_cvt_pk_fp8_f32 v1, v2, v3\nv_add_f32_e32 v4, v1, v5\n");
  expect_no_rule("dst-sel-forwarding", {Arch::gfx90a},
                 "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0\n"
                 "v_add_f32_e32 v4, v1, v5\n");
  expect_no_rule("dst-sel-forwarding", k940,
                 "v_add_f16_sdwa v1, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:WORD_0\n"
                 "v_add_f32_e32 v4, v1, v5\n");
}

TEST(HazardsTest, ValuSgprValu) {
  expect_rule({"valu-sgpr-valu", k940, "v_cmp_eq_u32_e64 s[0:1], v0, v1", "v_cndmask_b32_e64 v2, v3, v4, s[0:1]", 2});
  expect_rule({"valu-sgpr-valu", k940, "v_cmp_eq_u32_e32 vcc, v0, v1", "v_cndmask_b32_e32 v2, v3, v4, vcc", 2});
  expect_no_rule("valu-sgpr-valu", {Arch::gfx90a}, "v_cmp_eq_u32_e64 s[0:1], v0, v1\nv_cndmask_b32_e64 v2, v3, v4, s[0:1]\n");
  expect_no_rule("valu-sgpr-valu", k940, "s_mov_b64 s[0:1], 0\nv_cndmask_b32_e64 v2, v3, v4, s[0:1]\n");  // SALU producer
}

TEST(HazardsTest, ValuVgprReadlane) {
  expect_rule({"valu-vgpr-readlane", k940, "v_add_u32_e32 v1, v2, v3", "v_readfirstlane_b32 s0, v1", 1});
  expect_no_rule("valu-vgpr-readlane", {Arch::gfx90a}, "v_add_u32_e32 v1, v2, v3\nv_readfirstlane_b32 s0, v1\n");
}

TEST(HazardsTest, ValuExecRwlane) {
  expect_rule({"valu-exec-rwlane", k940, "v_cmpx_eq_u32_e32 v0, v1", "v_readfirstlane_b32 s0, v2", 4});
  expect_rule({"valu-exec-rwlane", k940, "v_cmpx_eq_u32_e32 v0, v1", "v_writelane_b32 v3, s4, 0", 4});
}

// ---- MFMA rules ---------------------------------------------------------------------------------

TEST(HazardsTest, ValuExecMfma) { expect_rule({"valu-exec-mfma", kAll, "v_cmpx_eq_u32_e32 v40, v41", kMfma32, 4}); }

TEST(HazardsTest, ValuVgprMfma) {
  expect_rule({"valu-vgpr-mfma", kAll, "v_mov_b32_e32 v16, 0", kMfma32, 2});
  expect_rule({"valu-vgpr-mfma", kAll, "v_accvgpr_write_b32 a0, v40", "v_mfma_f32_32x32x8f16 a[0:15], v[16:17], v[18:19], a[0:15]", 2});
}

TEST(HazardsTest, MfmaSrcAB) {
  const std::string consumer = "v_mfma_f32_32x32x8f16 v[32:47], v[0:1], v[2:3], v[32:47]";
  expect_rule({"mfma-srcab", {Arch::gfx90a}, kMfma32, consumer, 19});  // 16-pass SMFMA
  expect_rule({"mfma-srcab", {Arch::gfx942}, kMfma32, consumer, 11});  // 8-pass XDL: P+3
  expect_rule({"mfma-srcab", {Arch::gfx950}, kMfma32, consumer, 12});  // gfx950: P+3+1
  // 2-pass XDL: 5 everywhere.
  expect_rule({"mfma-srcab", kAll, "v_mfma_f32_4x4x4f16 v[0:3], v[16:17], v[18:19], v[0:3]",
               "v_mfma_f32_4x4x4f16 v[8:11], v[0:1], v[2:3], v[8:11]", 5});
  // SGEMM (non-XDL on gfx940+) producer: P+2.
  expect_rule({"mfma-srcab", k940, "v_mfma_f32_32x32x2f32 v[0:15], v16, v17, v[0:15]",
               "v_mfma_f32_32x32x2f32 v[32:47], v0, v1, v[32:47]", 18});
}

TEST(HazardsTest, MfmaSrcC) {
  const std::string overlapping = "v_mfma_f32_32x32x8f16 v[32:47], v[48:49], v[50:51], v[4:19]";
  expect_rule({"mfma-srcc", {Arch::gfx90a}, kMfma32, overlapping, 16});
  expect_rule({"mfma-srcc", {Arch::gfx942}, kMfma32, overlapping, 9});   // XDL -> XDL: P+1
  expect_rule({"mfma-srcc", {Arch::gfx950}, kMfma32, overlapping, 10});  // gfx950: P+2
  // The same accumulator back to back: no wait (dependent MFMA chains).
  expect_no_rule("mfma-srcc", kAll, kMfma32 + "\n" + kMfma32 + "\n");
  // ... except a 2-pass producer on gfx940+.
  const std::string mfma4 = "v_mfma_f32_4x4x4f16 v[0:3], v[16:17], v[18:19], v[0:3]";
  expect_rule({"mfma-srcc", k940, mfma4, mfma4, 2});
  expect_no_rule("mfma-srcc", {Arch::gfx90a}, mfma4 + "\n" + mfma4 + "\n");
}

TEST(HazardsTest, MfmaRead) {
  expect_rule({"mfma-read", {Arch::gfx90a}, kMfma32, "v_add_f32_e32 v20, v0, v1", 19});
  expect_rule({"mfma-read", {Arch::gfx942}, kMfma32, "v_add_f32_e32 v20, v0, v1", 11});
  expect_rule({"mfma-read", {Arch::gfx950}, kMfma32, "v_add_f32_e32 v20, v0, v1", 12});
  expect_rule({"mfma-read", {Arch::gfx942}, kMfma32, "global_store_dword v[30:31], v0, off", 11});
  expect_rule({"mfma-read", {Arch::gfx942}, kMfma32, "ds_write_b32 v30, v0", 11});
  // DGEMM: VALU 11 (gfx950 19), memory 18.
  const std::string dgemm = "v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]";
  expect_rule({"mfma-read", {Arch::gfx90a, Arch::gfx942}, dgemm, "v_add_f64 v[20:21], v[0:1], v[2:3]", 11});
  expect_rule({"mfma-read", {Arch::gfx950}, dgemm, "v_add_f64 v[20:21], v[0:1], v[2:3]", 19});
  expect_rule({"mfma-read", kAll, dgemm, "global_store_dword v[30:31], v0, off", 18});
  expect_rule({"mfma-read", kAll, "v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[6:7]",
               "v_add_f64 v[20:21], v[0:1], v[2:3]", 6});
}

TEST(HazardsTest, MfmaWaw) {
  expect_rule({"mfma-waw", {Arch::gfx90a}, kMfma32C, "v_mov_b32_e32 v3, 0", 19});
  expect_rule({"mfma-waw", {Arch::gfx942}, kMfma32C, "v_mov_b32_e32 v3, 0", 11});
  expect_rule({"mfma-waw", {Arch::gfx950}, kMfma32C, "v_mov_b32_e32 v3, 0", 12});
  expect_rule({"mfma-waw", {Arch::gfx942}, kMfma32C, "global_load_dword v3, v[40:41], off", 11});
}

TEST(HazardsTest, MfmaSrcCWar) {
  expect_rule({"mfma-srcc-war", {Arch::gfx90a}, kMfma32C, "v_mov_b32_e32 v33, 0", 15});
  expect_rule({"mfma-srcc-war", k940, kMfma32C, "v_mov_b32_e32 v33, 0", 7});
  expect_rule({"mfma-srcc-war", kAll, "v_mfma_f32_4x4x4f16 v[0:3], v[16:17], v[18:19], v[32:35]", "v_mov_b32_e32 v33, 0", 1});
  // A non-XDL (SGEMM) reader on gfx940+ is exempt.
  expect_no_rule("mfma-srcc-war", k940, "v_mfma_f32_32x32x2f32 v[0:15], v16, v17, v[32:47]\nv_mov_b32_e32 v33, 0\n");
}

TEST(HazardsTest, Dot) {
  expect_rule({"dot-read", kAll, "v_dot2_f32_f16 v0, v1, v2, v3", "v_add_f32_e32 v4, v0, v5", 3});
  expect_rule({"dot-read", kAll, "v_dot2_f32_f16 v0, v1, v2, v3", "v_dot2_f32_f16 v4, v0, v2, v3", 3});
  // The same DOT opcode reading the result as its accumulator (SrcC): no wait (gfx90a; on
  // gfx940+ the dst-sel-forwarding rule still asks for 1 after a packed op).
  expect_no_rule("dot-read", kAll, "v_dot2_f32_f16 v0, v1, v2, v3\nv_dot2_f32_f16 v4, v5, v6, v0\n");
  expect_rule({"dot-waw", kAll, "v_dot2_f32_f16 v0, v1, v2, v3", "v_mov_b32_e32 v0, 0", 3});
}

TEST(HazardsTest, ValuDgemmVmem) {
  const std::string producer = "v_mov_b32_e32 v2, 0\nv_mfma_f64_4x4x4f64 v[10:11], v[4:5], v[6:7], v[8:9]";
  // One wait state (the DGEMM) between the VALU write and the VMEM read: gfx90a needs 2.
  auto pos = hazards(producer + "\nglobal_store_dword v[0:1], v2, off\n", Arch::gfx90a);
  EXPECT_TRUE(rules_of(pos).count("valu-dgemm-vmem")) << dump(pos);
  auto neg = hazards(producer + "\ns_nop 0\nglobal_store_dword v[0:1], v2, off\n", Arch::gfx90a);
  EXPECT_TRUE(neg.empty()) << dump(neg);
  // Without the DGEMM in between, no hazard; on gfx940+ the rule does not exist.
  expect_no_rule("valu-dgemm-vmem", {Arch::gfx90a}, "v_mov_b32_e32 v2, 0\ns_nop 0\nglobal_store_dword v[0:1], v2, off\n");
  expect_no_rule("valu-dgemm-vmem", k940, producer + "\nglobal_store_dword v[0:1], v2, off\n");
}

TEST(HazardsTest, DgemmFma64) {
  expect_rule({"dgemm-fma64", kAll, "v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[6:7]",
               "v_fma_f64 v[8:9], v[10:11], v[12:13], v[14:15]", 2});
}

TEST(HazardsTest, Permlane) {
  expect_rule({"permlane-valu-vgpr", {Arch::gfx950}, "v_mov_b32_e32 v1, 0", "v_permlane32_swap_b32 v0, v1", 2});
  expect_rule({"permlane-vcmpx-exec", {Arch::gfx950}, "v_cmpx_eq_u32_e32 v2, v3", "v_permlane32_swap_b32 v0, v1", 4});
}

TEST(HazardsTest, Shift64HighReg) {
  HazardContext small;
  small.arch_vgprs = 8;
  auto v = hazards("v_lshlrev_b64 v[0:1], v7, v[2:3]\n", Arch::gfx90a, small);
  EXPECT_TRUE(rules_of(v).count("shift64-high-reg")) << dump(v);
  HazardContext large;
  large.arch_vgprs = 16;
  EXPECT_TRUE(hazards("v_lshlrev_b64 v[0:1], v7, v[2:3]\n", Arch::gfx90a, large).empty());
  EXPECT_TRUE(hazards("v_lshlrev_b64 v[0:1], v6, v[2:3]\n", Arch::gfx90a, small).empty());
  EXPECT_TRUE(hazards("v_lshlrev_b64 v[0:1], v7, v[2:3]\n", Arch::gfx942, small).empty());
}

// ---- Counting ------------------------------------------------------------------------------------

TEST(HazardsTest, CountsAcrossBlocksOnEveryPath) {
  // Taken path: only the branch (1 wait state) between producer and consumer.
  auto v = hazards(
      "v_cmp_eq_u32_e64 s[0:1], v0, v1\n"
      "s_cbranch_scc0 L1\n"
      "s_nop 7\n"
      "L1:\n"
      "v_cndmask_b32_e64 v2, v3, v4, s[0:1]\n",
      Arch::gfx942);
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].rule, "valu-sgpr-valu");
  EXPECT_EQ(v[0].found, 1);
  // One more wait state before the branch fixes both paths.
  EXPECT_TRUE(hazards(
                  "v_cmp_eq_u32_e64 s[0:1], v0, v1\n"
                  "s_nop 0\n"
                  "s_cbranch_scc0 L1\n"
                  "s_nop 7\n"
                  "L1:\n"
                  "v_cndmask_b32_e64 v2, v3, v4, s[0:1]\n",
                  Arch::gfx942)
                  .empty());
}

TEST(HazardsTest, CountsAroundLoops) {
  // The producer at the bottom of the loop reaches the consumer at its top through the back edge.
  auto v = hazards(
      "L0:\n"
      "v_cndmask_b32_e64 v2, v3, v4, s[0:1]\n"
      "v_cmp_eq_u32_e64 s[0:1], v0, v1\n"
      "s_cbranch_scc0 L0\n",
      Arch::gfx942);
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].found, 1);
  EXPECT_TRUE(hazards(
                  "L0:\n"
                  "v_cndmask_b32_e64 v2, v3, v4, s[0:1]\n"
                  "v_cmp_eq_u32_e64 s[0:1], v0, v1\n"
                  "s_nop 0\n"
                  "s_cbranch_scc0 L0\n",
                  Arch::gfx942)
                  .empty());
  // An MFMA chain in a loop: the accumulator feeds itself (no wait), its result is read after
  // the loop only through the exit edge.
  auto m = hazards(
      "L0:\n" + kMfma32 + "\n"
      "s_cbranch_scc0 L0\n"
      "v_mov_b32_e32 v20, v0\n",
      Arch::gfx942);
  ASSERT_EQ(m.size(), 1u) << dump(m);
  EXPECT_EQ(m[0].rule, "mfma-read");
  EXPECT_EQ(m[0].found, 1);
}

TEST(HazardsTest, FunctionEntryIsNotAHazard) {
  EXPECT_TRUE(hazards("v_cndmask_b32_e64 v2, v3, v4, s[0:1]\nv_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n",
                      Arch::gfx942)
                  .empty());
}

TEST(HazardsTest, EveryRuleHasASourceAndIsTested) {
  std::set<std::string> ids;
  for (const auto& r : hazard_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_NE(std::string(r.source), "") << r.id;
    EXPECT_NE(r.archs, 0u) << r.id;
    EXPECT_TRUE(r.probes || r.local) << r.id;
  }
  EXPECT_GE(ids.size(), 30u);
}

}  // namespace
}  // namespace asmevo::check
