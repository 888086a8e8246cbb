// Instruction facts (check/isa.h) against independent sources: the MFMA pass table against
// LLVM's own scheduling model for every MFMA opcode, s_waitcnt decoding against llvm-mc's
// encodings, categories of decoded instructions.
#include <gtest/gtest.h>

#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCSchedule.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>

#include "check/isa.h"
#include "program/decoder.h"
#include "tests/check/check_test_util.h"

namespace asmevo::check {
namespace {

using test::assemble_function;

// The pass counts in check/isa.cpp transcribe SISchedule.td; LLVM's MC layer carries the same
// model, so every real MFMA opcode of each processor must agree with computeInstrLatency.
TEST(IsaTest, MfmaPassesMatchLlvmSchedulingModel) {
  program::initialize_llvm_amdgpu();
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  ASSERT_NE(target, nullptr) << err;
  std::unique_ptr<llvm::MCInstrInfo> mii(target->createMCInstrInfo());
  struct Arch {
    const char* cpu;
    codeobj::Arch arch;
    std::vector<std::string> suffixes;  // real-encoding opcode names of this processor
  };
  const Arch archs[] = {{"gfx90a", codeobj::Arch::gfx90a, {"_vi", "_gfx90a_acd", "_gfx90a_vcd"}},
                        {"gfx942", codeobj::Arch::gfx942, {"_gfx940", "_gfx940_acd", "_gfx940_vcd"}},
                        {"gfx950", codeobj::Arch::gfx950, {"_gfx940", "_gfx940_acd", "_gfx940_vcd"}}};
  for (const auto& a : archs) {
    std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, a.cpu, ""));
    const auto& model = sti->getSchedModel();
    int compared = 0, variants = 0;
    for (unsigned op = 0; op < mii->getNumOpcodes(); ++op) {
      std::string name = mii->getName(op).str();
      if (name.rfind("V_MFMA", 0) != 0 && name.rfind("V_SMFMAC", 0) != 0) continue;
      if (name.rfind("V_MFMA_LD_SCALE", 0) == 0) continue;
      bool real = false;
      for (const auto& s : a.suffixes)
        real |= name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
      if (!real) continue;
      const auto* sc = model.getSchedClassDesc(mii->get(op).getSchedClass());
      if (sc->isVariant()) {
        ++variants;  // gfx950 f8f6f4: passes depend on cbsz/blgp, tested below
        continue;
      }
      int llvm_passes = llvm::MCSchedModel::computeInstrLatency(*sti, *sc);
      // Latency 1 (no MAI write in this processor's model): an opcode the processor does not have
      // (e.g. gfx950's f8f6f4 MFMAs in the gfx942 model).
      if (llvm_passes < 2) continue;
      auto info = mfma_info_by_name(name, "", a.arch);
      ASSERT_TRUE(info) << name;
      EXPECT_EQ(info->passes, llvm_passes) << a.cpu << " " << name;
      ++compared;
    }
    EXPECT_GT(compared, 20) << a.cpu;
    if (a.arch == codeobj::Arch::gfx950) EXPECT_GT(variants, 0);
  }
}

TEST(IsaTest, MfmaXdlAndDgemmFollowTheMaiTable) {
  using codeobj::Arch;
  auto xdl = [](const char* n, Arch a) { return mfma_info_by_name(n, "", a)->xdl; };
  EXPECT_TRUE(xdl("V_MFMA_F32_32X32X8F16_gfx940_acd", Arch::gfx942));
  EXPECT_FALSE(xdl("V_MFMA_F32_32X32X2F32_gfx940_acd", Arch::gfx942));    // SGEMM: not XDL on gfx940+
  EXPECT_TRUE(xdl("V_MFMA_F32_32X32X2F32_gfx90a_acd", Arch::gfx90a));     // gfx90a: every non-DGEMM
  EXPECT_TRUE(xdl("V_MFMA_F32_16X16X8XF32_gfx940_acd", Arch::gfx942));    // xf32 is XDL
  EXPECT_FALSE(xdl("V_MFMA_F64_16X16X4F64_gfx940_acd", Arch::gfx942));
  EXPECT_TRUE(mfma_info_by_name("V_MFMA_F64_4X4X4F64_vi", "", Arch::gfx90a)->dgemm);
  EXPECT_TRUE(xdl("V_SMFMAC_F32_16X16X32_F16_gfx940", Arch::gfx942));
  // gfx950 f8f6f4: f8 operands (cbsz/blgp <= 1, default 0) double the passes.
  EXPECT_EQ(mfma_info_by_name("V_MFMA_F32_16X16X128_F8F6F4_f8_f8_gfx940_acd", "", Arch::gfx950)->passes, 8);
  EXPECT_EQ(mfma_info_by_name("V_MFMA_F32_16X16X128_F8F6F4_f4_f4_gfx940_acd", " cbsz:4 blgp:4", Arch::gfx950)->passes, 4);
  EXPECT_EQ(mfma_info_by_name("V_MFMA_F32_32X32X64_F8F6F4_f4_f4_gfx940_acd", " cbsz:4 blgp:4", Arch::gfx950)->passes, 8);
  EXPECT_EQ(mfma_info_by_name("V_MFMA_F32_32X32X64_F8F6F4_f4_f8_gfx940_acd", " cbsz:4 blgp:0", Arch::gfx950)->passes, 16);
  EXPECT_FALSE(mfma_info_by_name("V_ADD_F32_e32_vi", "", Arch::gfx942));
}

TEST(IsaTest, DecodedMfmaKnowsItsShape) {
  auto f = assemble_function(
      "v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[32:47]\n"
      "v_mfma_f32_4x4x4f16 a[0:3], v[16:17], v[18:19], a[0:3]\n"
      "v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]\n",
      "gfx942");
  ASSERT_EQ(f.insts.size(), 3u);
  auto i0 = mfma_info(f.insts[0], codeobj::Arch::gfx942);
  ASSERT_TRUE(i0);
  EXPECT_EQ(i0->passes, 8);
  EXPECT_TRUE(i0->xdl);
  auto ops = mfma_operands(f.insts[0]);
  EXPECT_EQ(program::to_string(ops.dst), "v[0:15]");
  EXPECT_EQ(program::to_string(ops.a), "v[16:17]");
  EXPECT_EQ(program::to_string(ops.b), "v[18:19]");
  EXPECT_EQ(program::to_string(ops.c), "v[32:47]");
  EXPECT_EQ(mfma_info(f.insts[1], codeobj::Arch::gfx942)->passes, 2);
  auto d = mfma_info(f.insts[2], codeobj::Arch::gfx950);
  EXPECT_TRUE(d->dgemm);
  EXPECT_EQ(d->passes, 16);  // gfx950: Write16PassDGEMM
  EXPECT_EQ(mfma_info(f.insts[2], codeobj::Arch::gfx942)->passes, 8);
  auto g = assemble_function("v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[32:47]\n", "gfx90a");
  EXPECT_EQ(mfma_info(g.insts[0], codeobj::Arch::gfx90a)->passes, 16);
}

TEST(IsaTest, WaitcntDecodingMatchesTheAssembler) {
  auto f = assemble_function(
      "s_waitcnt vmcnt(0)\n"
      "s_waitcnt vmcnt(63)\n"
      "s_waitcnt vmcnt(17) lgkmcnt(3)\n"
      "s_waitcnt expcnt(2)\n"
      "s_waitcnt lgkmcnt(0)\n"
      "s_waitcnt 0\n",
      "gfx942");
  ASSERT_EQ(f.insts.size(), 6u);
  auto w = [&](size_t k) { return *decode_waitcnt(f.insts[k], codeobj::Arch::gfx942); };
  EXPECT_EQ(w(0).count[kVmCnt], 0u);
  EXPECT_EQ(w(0).count[kLgkmCnt], 15u);  // not mentioned: maximum = no wait
  EXPECT_EQ(w(0).count[kExpCnt], 7u);
  EXPECT_EQ(w(1).count[kVmCnt], 63u);
  EXPECT_EQ(w(2).count[kVmCnt], 17u);
  EXPECT_EQ(w(2).count[kLgkmCnt], 3u);
  EXPECT_EQ(w(3).count[kExpCnt], 2u);
  EXPECT_EQ(w(4).count[kLgkmCnt], 0u);
  EXPECT_EQ(w(4).count[kVmCnt], 63u);
  for (int c = 0; c < kNumCounters; ++c) EXPECT_EQ(w(5).count[c], 0u);
  // encode_waitcnt is the inverse on these.
  for (size_t k = 0; k < f.insts.size(); ++k) {
    uint32_t raw = f.insts[k].bytes[0] | (f.insts[k].bytes[1] << 8);
    EXPECT_EQ(encode_waitcnt(w(k)), raw) << f.insts[k].text;
  }
  // The text form (edited lines carry no decoded instruction) agrees with the decoded one, and
  // waitcnt_text spells it back the way LLVM prints it.
  const CounterLimits limits = counter_limits(codeobj::Arch::gfx942);
  for (size_t k = 0; k < f.insts.size(); ++k) {
    auto parsed = parse_waitcnt_text(f.insts[k].text, limits);
    ASSERT_TRUE(parsed) << f.insts[k].text;
    for (int c = 0; c < kNumCounters; ++c) EXPECT_EQ(parsed->count[c], std::min(w(k).count[c], limits.max[c])) << f.insts[k].text;
    auto raw = parse_waitcnt_text("s_waitcnt " + std::to_string(encode_waitcnt(w(k))), limits);
    ASSERT_TRUE(raw);
    EXPECT_EQ(raw->count, w(k).count) << "a raw simm16 decodes as the instruction does";
  }
  EXPECT_EQ(waitcnt_text(*parse_waitcnt_text("s_waitcnt lgkmcnt(0) vmcnt(3)", limits), limits), "s_waitcnt vmcnt(3) lgkmcnt(0)");
  EXPECT_EQ(waitcnt_text(*parse_waitcnt_text("s_waitcnt", limits), limits), "");
  EXPECT_FALSE(parse_waitcnt_text("s_waitcnt_vscnt null, 0", limits));
  EXPECT_FALSE(parse_waitcnt_text("s_nop 0", limits));
  auto nop = assemble_function("s_nop 0\ns_nop 7\ns_nop 15\nv_nop\n", "gfx942");
  EXPECT_EQ(wait_states(nop.insts[0]), 1);
  EXPECT_EQ(wait_states(nop.insts[1]), 8);
  EXPECT_EQ(wait_states(nop.insts[2]), 16);
  EXPECT_EQ(wait_states(nop.insts[3]), 1);
}

TEST(IsaTest, CategoriesAndOperandRoles) {
  auto f = assemble_function(
      "v_exp_f32_e32 v1, v2\n"                                   // 0 trans
      "v_add_f32_e32 v1, v2, v3\n"                               // 1 valu
      "v_mov_b32_dpp v4, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n"  // 2 dpp
      "global_store_dwordx4 v[0:1], v[2:5], off\n"               // 3 store data v[2:5]
      "buffer_store_dwordx4 v[2:5], v0, s[4:7], 0 offen\n"       // 4 soffset constant
      "buffer_store_dwordx4 v[2:5], v0, s[4:7], s8 offen\n"      // 5 soffset register
      "global_atomic_cmpswap_x2 v[6:7], v[0:1], v[8:11], off sc0\n"  // 6 atomic with return
      "v_readlane_b32 s3, v1, s2\n"                              // 7 lane select s2
      "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n"              // 8 hwreg 1
      "ds_read_b32 v0, v1 offset:16\n"                           // 9
      "v_pk_add_f32 v[2:3], v[4:5], v[6:7]\n"                    // 10 VOP3P dst forwarded (op_sel_hi[0])
      "v_pk_add_f32 v[2:3], v[4:5], v[6:7] op_sel_hi:[0,1]\n"    // 11 not
      "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0\n"  // 12
      "v_cmpx_eq_u32_e32 v0, v1\n",                              // 13
      "gfx942");
  ASSERT_EQ(f.insts.size(), 14u);
  using codeobj::Arch;
  EXPECT_TRUE(is_trans(f.insts[0]));
  EXPECT_FALSE(is_trans(f.insts[1]));
  EXPECT_TRUE(is_valu(f.insts[1]));
  EXPECT_TRUE(is_dpp(f.insts[2]));
  EXPECT_EQ(program::to_string(*store_data(f.insts[3])), "v[2:5]");
  EXPECT_EQ(program::to_string(*store_data(f.insts[4])), "v[2:5]");
  EXPECT_FALSE(buffer_soffset_is_register(f.insts[4]));
  EXPECT_TRUE(buffer_soffset_is_register(f.insts[5]));
  EXPECT_EQ(program::to_string(*store_data(f.insts[6])), "v[8:11]");
  EXPECT_EQ(program::to_string(*lane_select(f.insts[7])), "s2");
  EXPECT_EQ(program::to_string(*readlane_source(f.insts[7])), "v1");
  EXPECT_EQ(*hwreg_id(f.insts[8]), 1u);  // HW_REG_MODE
  EXPECT_TRUE(is_ds(f.insts[9]) && ds_accesses_lds_memory(f.insts[9]));
  EXPECT_EQ(*modifier_value(f.insts[9].text, "offset"), 16);
  EXPECT_TRUE(dst_sel_forwarded(f.insts[10], Arch::gfx942));
  EXPECT_FALSE(dst_sel_forwarded(f.insts[10], Arch::gfx90a));
  EXPECT_FALSE(dst_sel_forwarded(f.insts[11], Arch::gfx942));
  EXPECT_TRUE(dst_sel_forwarded(f.insts[12], Arch::gfx942));
  EXPECT_FALSE(dst_sel_forwarded(f.insts[1], Arch::gfx942));
  EXPECT_TRUE(is_vcmpx(f.insts[13]));
  EXPECT_TRUE(f.insts[13].writes({program::RegFile::EXEC, 0, 2}));
}

TEST(IsaTest, CfgFromBranchesAndLongBranches) {
  auto f = assemble_function(
      "s_cbranch_scc0 L1\n"
      "s_nop 0\n"
      "L1:\n"
      "s_getpc_b64 s[0:1]\n"
      "s_add_u32 s0, s0, L2-L1-4\n"  // offset from the address after s_getpc_b64
      "s_addc_u32 s1, s1, 0\n"
      "s_setpc_b64 s[0:1]\n"
      "s_nop 1\n"
      "L2:\n"
      "s_endpgm\n",
      "gfx942");
  ASSERT_EQ(f.blocks.size(), 5u);
  EXPECT_EQ(f.blocks[0].succs.size(), 2u);
  // The long branch resolves to L2 (block 4), not to "leaves the function".
  ASSERT_EQ(f.blocks[2].succs.size(), 1u);
  EXPECT_EQ(f.blocks[2].succs[0], 4u);
  EXPECT_TRUE(f.blocks[3].preds.empty());
}

}  // namespace
}  // namespace asmevo::check
