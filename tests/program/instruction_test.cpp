// The LLVM-independent half of the model: classes, register ranges, JSON.
#include "program/instruction.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace asmevo::program {
namespace {

TEST(Classify, PrefixTable) {
  struct Case {
    const char* mnemonic;
    InstClass cls;
  };
  const Case cases[] = {
      {"s_waitcnt", InstClass::Waitcnt},           {"s_waitcnt_vscnt", InstClass::Waitcnt},
      {"s_barrier", InstClass::Barrier},           {"s_sendmsg", InstClass::Message},
      {"s_sendmsghalt", InstClass::Message},       {"s_trap", InstClass::Message},
      {"s_nop", InstClass::Nop},                   {"s_branch", InstClass::Branch},
      {"s_cbranch_execz", InstClass::Branch},      {"s_setpc_b64", InstClass::Branch},
      {"s_swappc_b64", InstClass::Branch},         {"s_call_b64", InstClass::Branch},
      {"s_endpgm", InstClass::Branch},             {"s_load_dwordx4", InstClass::SMEM},
      {"s_buffer_load_dword", InstClass::SMEM},    {"s_store_dword", InstClass::SMEM},
      {"s_dcache_wb", InstClass::SMEM},            {"s_memtime", InstClass::SMEM},
      {"s_memrealtime", InstClass::SMEM},          {"s_and_saveexec_b64", InstClass::SALU},
      {"s_mov_b32", InstClass::SALU},              {"s_getpc_b64", InstClass::SALU},
      {"s_sleep", InstClass::Other},               {"s_setprio", InstClass::Other},
      {"v_mfma_f32_32x32x8_f16", InstClass::MFMA}, {"v_smfmac_f32_16x16x32_f16", InstClass::MFMA},
      {"v_pk_fma_f32", InstClass::VOP3P},          {"v_dot2c_f32_f16_e32", InstClass::VOP3P},
      {"v_fma_mix_f32", InstClass::VOP3P},         {"v_mad_mixlo_f16", InstClass::VOP3P},
      {"v_add_f32_e32", InstClass::VALU},          {"v_accvgpr_read_b32", InstClass::VALU},
      {"ds_read_b128", InstClass::DS},             {"ds_swizzle_b32", InstClass::DS},
      {"buffer_load_dword", InstClass::VMEMLoad},  {"tbuffer_load_format_x", InstClass::VMEMLoad},
      {"buffer_store_dword", InstClass::VMEMStore}, {"tbuffer_store_format_xy", InstClass::VMEMStore},
      {"buffer_atomic_add", InstClass::VMEMAtomic}, {"buffer_wbl2", InstClass::VMEMCache},
      {"buffer_wbinvl1_vol", InstClass::VMEMCache}, {"global_load_dword", InstClass::GLOBAL},
      {"flat_store_dword", InstClass::FLAT},       {"scratch_load_dword", InstClass::SCRATCH},
      {"exp", InstClass::Other},
  };
  for (const auto& c : cases) EXPECT_EQ(classify(c.mnemonic), c.cls) << c.mnemonic;
}

TEST(Classify, NamesRoundTrip) {
  for (int i = 0; i < kNumInstClasses; ++i) {
    auto c = static_cast<InstClass>(i);
    EXPECT_EQ(class_from_name(class_name(c)), c);
  }
  EXPECT_STREQ(class_name(InstClass::VMEMLoad), "VMEMLoad");
  EXPECT_FALSE(class_from_name("nonsense"));
  EXPECT_TRUE(is_vmem(InstClass::GLOBAL));
  EXPECT_TRUE(is_vmem(InstClass::VMEMCache));
  EXPECT_FALSE(is_vmem(InstClass::DS));
  EXPECT_FALSE(is_vmem(InstClass::SMEM));
}

TEST(RegRange, Spelling) {
  EXPECT_EQ(to_string({RegFile::SGPR, 4, 1}), "s4");
  EXPECT_EQ(to_string({RegFile::SGPR, 4, 4}), "s[4:7]");
  EXPECT_EQ(to_string({RegFile::VGPR, 0, 2}), "v[0:1]");
  EXPECT_EQ(to_string({RegFile::AGPR, 0, 16}), "a[0:15]");
  EXPECT_EQ(to_string({RegFile::TTMP, 4, 2}), "ttmp[4:5]");
  EXPECT_EQ(to_string({RegFile::VCC, 0, 2}), "vcc");
  EXPECT_EQ(to_string({RegFile::VCC, 0, 1}), "vcc_lo");
  EXPECT_EQ(to_string({RegFile::EXEC, 1, 1}), "exec_hi");
  EXPECT_EQ(to_string({RegFile::SCC, 0, 1}), "scc");
  EXPECT_EQ(to_string({RegFile::M0, 0, 1}), "m0");
  EXPECT_EQ(to_string({RegFile::FlatScratch, 0, 2}), "flat_scratch");
  EXPECT_EQ(to_string({RegFile::XnackMask, 1, 1}), "xnack_mask_hi");
  EXPECT_EQ(to_string({RegFile::Mode, 0, 1}), "mode");
  EXPECT_EQ(to_string({RegFile::Other, 34, 1}), "other#34");
}

TEST(RegRange, ParseIsInverseOfToString) {
  for (const char* s : {"s4", "s[4:7]", "v0", "v[0:3]", "v511", "a[0:15]", "ttmp4", "ttmp[4:5]", "vcc",
                        "vcc_lo", "vcc_hi", "exec", "exec_lo", "scc", "m0", "flat_scratch",
                        "flat_scratch_hi", "xnack_mask", "mode", "other#12"}) {
    auto r = parse_reg(s);
    ASSERT_TRUE(r) << s;
    EXPECT_EQ(to_string(*r), s);
  }
  EXPECT_EQ(parse_reg("S[2:3]"), (RegRange{RegFile::SGPR, 2, 2}));
  EXPECT_EQ(parse_reg("v[7]"), (RegRange{RegFile::VGPR, 7, 1}));
  for (const char* bad : {"", "s", "v[3:1]", "q0", "0x24", "vccz", "s4x", "v[1:"}) EXPECT_FALSE(parse_reg(bad)) << bad;
}

TEST(RegRange, Overlap) {
  RegRange s47{RegFile::SGPR, 4, 4};
  EXPECT_TRUE(overlaps(s47, {RegFile::SGPR, 7, 1}));
  EXPECT_FALSE(overlaps(s47, {RegFile::SGPR, 8, 2}));
  EXPECT_FALSE(overlaps(s47, {RegFile::VGPR, 4, 4}));
  EXPECT_TRUE(overlaps({RegFile::VCC, 0, 2}, {RegFile::VCC, 1, 1}));
  EXPECT_FALSE(overlaps({RegFile::VCC, 0, 1}, {RegFile::VCC, 1, 1}));
  EXPECT_FALSE(overlaps({RegFile::VGPR, 0, 0}, {RegFile::VGPR, 0, 4}));  // an absent register
  EXPECT_TRUE(s47.contains(RegFile::SGPR, 5));
  EXPECT_FALSE(s47.contains(RegFile::SGPR, 8));
}

TEST(Instruction, JsonLayout) {
  Instruction i;
  i.address = 0x100;
  i.size = 8;
  i.bytes = {0xc0, 0x00, 0x02, 0xc0, 0x24, 0x00, 0x00, 0x00};
  i.opcode = 7;
  i.mnemonic = "s_load_dword";
  i.text = "s_load_dword s3, s[0:1], 0x24";
  i.cls = InstClass::SMEM;
  i.may_load = true;
  i.operands = {Operand{Operand::Reg, {RegFile::SGPR, 3, 1}, 0, 0, "s3", true, -1},
                Operand{Operand::Reg, {RegFile::SGPR, 0, 2}, 0, 0, "s[0:1]", false, -1},
                Operand{Operand::Imm, {}, 0x24, 0, "", false, -1}};
  i.defs = {{RegFile::SGPR, 3, 1}};
  i.uses = {{RegFile::SGPR, 0, 2}};
  auto j = i.to_json();
  EXPECT_EQ(j["address"], 0x100);
  EXPECT_EQ(j["encoding"], "C00200C0 00000024");
  EXPECT_EQ(j["class"], "SMEM");
  EXPECT_EQ(j["defs"], nlohmann::json({"s3"}));
  EXPECT_EQ(j["uses"], nlohmann::json({"s[0:1]"}));
  EXPECT_EQ(j["flags"], nlohmann::json({"load"}));
  EXPECT_EQ(j["operands"][0], nlohmann::json({{"kind", "reg"}, {"reg", "s3"}, {"def", true}}));
  EXPECT_EQ(j["operands"][2], nlohmann::json({{"kind", "imm"}, {"value", 0x24}}));
  EXPECT_FALSE(j.contains("branch_target"));
  nlohmann::json adl = i;
  EXPECT_EQ(adl, j);
  EXPECT_TRUE(i.reads({RegFile::SGPR, 1, 1}));
  EXPECT_FALSE(i.reads({RegFile::SGPR, 3, 1}));
  EXPECT_TRUE(i.writes({RegFile::SGPR, 2, 2}));
}

}  // namespace
}  // namespace asmevo::program
