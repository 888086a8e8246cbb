// Decoding known encodings (from the ISA and llvm-mc-22 -show-encoding) on gfx90a, gfx942 and
// gfx950: text, mnemonic, class, operands, explicit and implicit defs/uses, flags, branch targets.
#include "program/decoder.h"

#include "support/error.h"
#include "test_tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace asmevo::program {
namespace {

using test::words;

const Decoder& decoder(const std::string& processor) {
  static const Decoder d90a(*codeobj::parse_target_id("gfx90a"));
  static const Decoder d942(*codeobj::parse_target_id("gfx942"));
  static const Decoder d950(*codeobj::parse_target_id("gfx950"));
  if (processor == "gfx90a") return d90a;
  if (processor == "gfx950") return d950;
  return d942;
}

std::vector<std::string> names(const std::vector<RegRange>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs) out.push_back(to_string(r));
  return out;
}

struct Known {
  const char* cpu;
  std::vector<uint32_t> words;
  const char* text;
  InstClass cls;
  std::vector<std::string> defs;  // explicit, then implicit, in order
  std::vector<std::string> uses;
};

std::vector<uint8_t> bytes_of(const std::vector<uint32_t>& ws) {
  std::vector<uint8_t> out;
  for (uint32_t w : ws)
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(w >> (8 * k)));
  return out;
}

const Known kKnown[] = {
    // From the brief / the gfx942 ISA.
    {"gfx942", {0xC00200C0, 0x00000024}, "s_load_dword s3, s[0:1], 0x24", InstClass::SMEM, {"s3"}, {"s[0:1]"}},
    {"gfx942", {0xBF8CC07F}, "s_waitcnt lgkmcnt(0)", InstClass::Waitcnt, {}, {}},
    {"gfx942", {0x8603FF03, 0x0000FFFF}, "s_and_b32 s3, s3, 0xffff", InstClass::SALU, {"s3", "scc"}, {"s3"}},
    {"gfx942", {0x68000002}, "v_add_u32_e32 v0, s2, v0", InstClass::VALU, {"v0"}, {"s2", "v0", "exec"}},
    {"gfx942", {0x7D880004}, "v_cmp_gt_i32_e32 vcc, s4, v0", InstClass::VALU, {"vcc"}, {"s4", "v0", "exec"}},
    {"gfx942", {0xBE82206A}, "s_and_saveexec_b64 s[2:3], vcc", InstClass::SALU, {"s[2:3]", "exec", "scc"}, {"vcc", "exec"}},
    {"gfx942", {0xBF88005F}, "s_cbranch_execz 95", InstClass::Branch, {}, {"exec"}},
    {"gfx942", {0xDC508000, 0x037F0002}, "global_load_dword v3, v[2:3], off", InstClass::GLOBAL, {"v3"}, {"v[2:3]", "exec"}},
    {"gfx942", {0xD1CB0002, 0x040E0503}, "v_fma_f32 v2, v3, v2, v3", InstClass::VALU, {"v2"}, {"v3", "v2", "mode", "exec"}},
    // Memory.
    {"gfx942", {0xDC508010, 0x03040002}, "global_load_dword v3, v2, s[4:5] offset:16", InstClass::GLOBAL, {"v3"}, {"s[4:5]", "v2", "exec"}},
    {"gfx942", {0xD9FE0010, 0x00000004}, "ds_read_b128 v[0:3], v4 offset:16", InstClass::DS, {"v[0:3]"}, {"v4", "m0", "exec"}},
    {"gfx942", {0xD81A0000, 0x00000201}, "ds_write_b32 v1, v2", InstClass::DS, {}, {"v1", "v2", "m0", "exec"}},
    {"gfx942", {0xD8400000, 0x00000201}, "ds_add_rtn_u32 v0, v1, v2", InstClass::DS, {"v0"}, {"v1", "v2", "m0", "exec"}},
    {"gfx942", {0xE0501000, 0x80010102}, "buffer_load_dword v1, v2, s[4:7], 0 offen", InstClass::VMEMLoad, {"v1"}, {"v2", "s[4:7]", "exec"}},
    {"gfx942", {0xE0701000, 0x80010102}, "buffer_store_dword v1, v2, s[4:7], 0 offen", InstClass::VMEMStore, {}, {"v1", "v2", "s[4:7]", "exec"}},
    {"gfx942", {0xE1081000, 0x80010102}, "buffer_atomic_add v1, v2, s[4:7], 0 offen", InstClass::VMEMAtomic, {}, {"v1", "v2", "s[4:7]", "exec"}},
    {"gfx942", {0xE1085000, 0x80010102}, "buffer_atomic_add v1, v2, s[4:7], 0 offen sc0", InstClass::VMEMAtomic, {"v1"}, {"v1", "v2", "s[4:7]", "exec"}},
    {"gfx942", {0xE0A00000, 0x00000000}, "buffer_wbl2", InstClass::VMEMCache, {}, {"exec"}},
    {"gfx942", {0xDD348000, 0x007F0200}, "global_atomic_add_f32 v[0:1], v2, off", InstClass::GLOBAL, {}, {"v[0:1]", "v2", "exec"}},
    {"gfx942", {0xDC500000, 0x00000000}, "flat_load_dword v0, v[0:1]", InstClass::FLAT, {"v0"}, {"v[0:1]", "exec", "flat_scratch"}},
    {"gfx942", {0xDC504004, 0x00020000}, "scratch_load_dword v0, off, s2 offset:4", InstClass::SCRATCH, {"v0"}, {"s2", "exec", "flat_scratch"}},
    {"gfx942", {0xDC706000, 0x007F0100}, "scratch_store_dword v0, v1, off", InstClass::SCRATCH, {}, {"v1", "v0", "exec", "flat_scratch"}},
    {"gfx942", {0xC0900000, 0x00000000}, "s_memtime s[0:1]", InstClass::SMEM, {"s[0:1]"}, {}},
    {"gfx942", {0xC0120400, 0x00000000}, "s_load_dwordx16 s[16:31], s[0:1], 0x0", InstClass::SMEM, {"s[16:31]"}, {"s[0:1]"}},
    // Partial writes read the destination: d16 loads (tie present or not in LLVM), SDWA preserve.
    {"gfx942", {0xDC948000, 0x007F0002}, "global_load_short_d16_hi v0, v[2:3], off", InstClass::GLOBAL, {"v0"}, {"v[2:3]", "v0", "exec"}},
    {"gfx942", {0xD8B60000, 0x00000001}, "ds_read_u16_d16_hi v0, v1", InstClass::DS, {"v0"}, {"v1", "v0", "exec"}},
    {"gfx942", {0x3E0004F9, 0x04041501}, "v_add_f16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0", InstClass::VALU, {"v0"}, {"v1", "v2", "v0", "mode", "exec"}},
    {"gfx942", {0x020004F9, 0x06000501}, "v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD", InstClass::VALU, {"v0"}, {"v1", "v2", "mode", "exec"}},
    // MFMA with AGPR and VGPR accumulators, packed math, DPP (old value tied), VOP2 with vcc.
    {"gfx942", {0xD3CC8000, 0x04020500}, "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]", InstClass::MFMA, {"a[0:15]"}, {"v[0:1]", "v[2:3]", "a[0:15]", "mode", "exec"}},
    {"gfx942", {0xD3CD0000, 0x04020D04}, "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]", InstClass::MFMA, {"v[0:3]"}, {"v[4:5]", "v[6:7]", "v[0:3]", "mode", "exec"}},
    {"gfx942", {0xD3C00020, 0x04820300}, "v_mfma_f32_32x32x1_2b_f32 v[32:63], v0, v1, v[32:63]", InstClass::MFMA, {"v[32:63]"}, {"v0", "v1", "v[32:63]", "mode", "exec"}},
    {"gfx942", {0xD3E20000, 0x042A0D04}, "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10", InstClass::MFMA, {"v[0:3]"}, {"v[4:5]", "v[6:9]", "v10", "v[0:3]", "mode", "exec"}},
    {"gfx942", {0xD3B04000, 0x1C1A0902}, "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", InstClass::VOP3P, {"v[0:1]"}, {"v[2:3]", "v[4:5]", "v[6:7]", "mode", "exec"}},
    {"gfx942", {0x7E0002FA, 0xFF010101}, "v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf", InstClass::VALU, {"v0"}, {"v0", "v1", "exec"}},
    {"gfx942", {0x38000501}, "v_addc_co_u32_e32 v0, vcc, v1, v2, vcc", InstClass::VALU, {"v0", "vcc"}, {"v1", "v2", "vcc", "exec"}},
    {"gfx942", {0xD11C0000, 0x000A0501}, "v_addc_co_u32_e64 v0, s[0:1], v1, v2, s[2:3]", InstClass::VALU, {"v0", "s[0:1]"}, {"v1", "v2", "s[2:3]", "exec"}},
    {"gfx942", {0x7DB40300}, "v_cmpx_eq_u32_e32 vcc, v0, v1", InstClass::VALU, {"vcc", "exec"}, {"v0", "v1", "exec"}},
    {"gfx942", {0x6E000501}, "v_dot2c_f32_f16_e32 v0, v1, v2", InstClass::VOP3P, {"v0"}, {"v1", "v2", "v0", "mode", "exec"}},
    {"gfx942", {0xD3D94000, 0x18000101}, "v_accvgpr_write_b32 a0, v1", InstClass::VALU, {"a0"}, {"v1", "exec"}},
    {"gfx942", {0x7E000501}, "v_readfirstlane_b32 s0, v1", InstClass::VALU, {"s0"}, {"v1", "exec"}},
    // Lane access ignores exec.
    {"gfx942", {0xD2890000, 0x00010B01}, "v_readlane_b32 s0, v1, 5", InstClass::VALU, {"s0"}, {"v1"}},
    // Special registers.
    {"gfx942", {0xBEFC00C1}, "s_mov_b32 m0, -1", InstClass::SALU, {"m0"}, {}},
    {"gfx942", {0xBEFE01C1}, "s_mov_b64 exec, -1", InstClass::SALU, {"exec"}, {}},
    {"gfx942", {0xBEE60100}, "s_mov_b64 flat_scratch, s[0:1]", InstClass::SALU, {"flat_scratch"}, {"s[0:1]"}},
    {"gfx942", {0x7E000270}, "v_mov_b32_e32 v0, ttmp4", InstClass::VALU, {"v0"}, {"ttmp4", "exec"}},
    {"gfx942", {0x7E0002FB}, "v_mov_b32_e32 v0, src_vccz", InstClass::VALU, {"v0"}, {"vcc", "exec"}},
    {"gfx942", {0xB9000801}, "s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s0", InstClass::SALU, {"mode"}, {"s0", "mode"}},
    // Control flow and synchronisation.
    {"gfx942", {0xBE9E1E04}, "s_swappc_b64 s[30:31], s[4:5]", InstClass::Branch, {"s[30:31]"}, {"s[4:5]"}},
    {"gfx942", {0xBE801D1E}, "s_setpc_b64 s[30:31]", InstClass::Branch, {}, {"s[30:31]"}},
    {"gfx942", {0xBF810000}, "s_endpgm", InstClass::Branch, {}, {}},
    {"gfx942", {0xBF8A0000}, "s_barrier", InstClass::Barrier, {}, {}},
    {"gfx942", {0xBF900001}, "s_sendmsg sendmsg(MSG_INTERRUPT)", InstClass::Message, {}, {"exec", "m0"}},
    {"gfx942", {0xBF800003}, "s_nop 3", InstClass::Nop, {}, {}},
    {"gfx942", {0xBF8E0001}, "s_sleep 1", InstClass::Other, {}, {}},
    // gfx90a: MFMA names without the type separator, buffer_wbinvl1_vol, cbsz/abid/blgp.
    {"gfx90a", {0xD3CC8000, 0x04020500}, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", InstClass::MFMA, {"a[0:15]"}, {"v[0:1]", "v[2:3]", "a[0:15]", "mode", "exec"}},
    {"gfx90a", {0xD3C08000, 0x04020300}, "v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]", InstClass::MFMA, {"a[0:31]"}, {"v0", "v1", "a[0:31]", "mode", "exec"}},
    {"gfx90a", {0xD3C58900, 0x44020300}, "v_mfma_f32_16x16x4f32 a[0:3], v0, v1, a[0:3] cbsz:1 abid:1 blgp:2", InstClass::MFMA, {"a[0:3]"}, {"v0", "v1", "a[0:3]", "mode", "exec"}},
    {"gfx90a", {0xE0FC0000, 0x00000000}, "buffer_wbinvl1_vol", InstClass::VMEMCache, {}, {"exec"}},
    {"gfx90a", {0xDC518000, 0x037F0002}, "global_load_dword v3, v[2:3], off glc", InstClass::GLOBAL, {"v3"}, {"v[2:3]", "exec"}},
    {"gfx90a", {0xD3D84000, 0x18000101}, "v_accvgpr_read_b32 v0, a1", InstClass::VALU, {"v0"}, {"a1", "exec"}},
    // gfx950-only instructions.
    {"gfx950", {0xD3B50000, 0x04021104}, "v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[0:3]", InstClass::MFMA, {"v[0:3]"}, {"v[4:7]", "v[8:11]", "v[0:3]", "mode", "exec"}},
    {"gfx950", {0xD3D58000, 0x04020900}, "v_mfma_f32_32x32x16_f16 a[0:15], v[0:3], v[4:7], a[0:15]", InstClass::MFMA, {"a[0:15]"}, {"v[0:3]", "v[4:7]", "a[0:15]", "mode", "exec"}},
    {"gfx950", {0x7E00B101}, "v_prng_b32_e32 v0, v1", InstClass::VALU, {"v0"}, {"v1", "exec"}},
    {"gfx950", {0xD9C60000, 0x00000002}, "ds_read_b64_tr_b16 v[0:1], v2", InstClass::DS, {"v[0:1]"}, {"v2", "exec"}},
    {"gfx950", {0x7E00B501}, "v_permlane32_swap_b32_e32 v0, v1", InstClass::VALU, {"v0", "v1"}, {"v0", "v1", "exec"}},
};

TEST(Decoder, KnownEncodings) {
  for (const auto& k : kKnown) {
    SCOPED_TRACE(std::string(k.cpu) + ": " + k.text);
    auto bytes = bytes_of(k.words);
    Instruction i = decoder(k.cpu).decode_one(bytes, 0x1000);
    EXPECT_EQ(i.text, k.text);
    EXPECT_EQ(i.mnemonic, std::string(k.text).substr(0, std::string(k.text).find(' ')));
    EXPECT_EQ(i.size, bytes.size());
    EXPECT_EQ(i.bytes, bytes);
    EXPECT_EQ(i.address, 0x1000u);
    EXPECT_EQ(class_name(i.cls), std::string(class_name(k.cls)));
    EXPECT_EQ(names(i.defs), k.defs);
    EXPECT_EQ(names(i.uses), k.uses);
  }
}

TEST(Decoder, DecodesOnlyThePrefix) {
  // Trailing bytes after the instruction are ignored by decode_one.
  auto bytes = words({0xBF8CC07F, 0xBF810000});
  Instruction i = decoder("gfx942").decode_one(bytes, 0);
  EXPECT_EQ(i.size, 4u);
  EXPECT_EQ(i.text, "s_waitcnt lgkmcnt(0)");
}

TEST(Decoder, OperandsFollowLlvmOrder) {
  auto i = decoder("gfx942").decode_one(words({0xC00200C0, 0x00000024}), 0);  // s_load_dword s3, s[0:1], 0x24
  ASSERT_GE(i.operands.size(), 3u);
  EXPECT_EQ(i.operands[0].kind, Operand::Reg);
  EXPECT_EQ(i.operands[0].reg, (RegRange{RegFile::SGPR, 3, 1}));
  EXPECT_TRUE(i.operands[0].is_def);
  EXPECT_EQ(i.operands[0].text, "s3");
  EXPECT_EQ(i.operands[1].reg, (RegRange{RegFile::SGPR, 0, 2}));
  EXPECT_FALSE(i.operands[1].is_def);
  EXPECT_EQ(i.operands[2].kind, Operand::Imm);
  EXPECT_EQ(i.operands[2].imm, 0x24);
}

TEST(Decoder, UnmodelledRegistersAreOther) {
  auto i = decoder("gfx942").decode_one(words({0xBE8000EB}), 0);  // s_mov_b32 s0, src_shared_base
  EXPECT_EQ(i.text, "s_mov_b32 s0, src_shared_base");
  ASSERT_EQ(i.operands.size(), 2u);
  EXPECT_EQ(i.operands[1].reg.file, RegFile::Other);
  EXPECT_EQ(i.operands[1].reg.count, 1u);
  EXPECT_EQ(i.operands[1].text.rfind("src_shared_base", 0), 0u) << i.operands[1].text;
  ASSERT_EQ(i.uses.size(), 1u);
  EXPECT_EQ(i.uses[0], i.operands[1].reg);
}

TEST(Decoder, FloatConstantsAreBitPatterns) {
  auto inl = decoder("gfx942").decode_one(words({0x020002F2}), 0);  // v_add_f32_e32 v0, 1.0, v1
  EXPECT_EQ(inl.text, "v_add_f32_e32 v0, 1.0, v1");
  ASSERT_EQ(inl.operands.size(), 3u);
  EXPECT_EQ(inl.operands[1].kind, Operand::Imm);
  EXPECT_EQ(inl.operands[1].imm, 0x3f800000);
  auto lit = decoder("gfx942").decode_one(words({0x020002FF, 0x3FC00000}), 0);  // literal 1.5f
  EXPECT_EQ(lit.size, 8u);
  EXPECT_EQ(lit.operands[1].imm, 0x3fc00000);
}

TEST(Decoder, TiedOperands) {
  // buffer_atomic_add with return: the data operand is tied to the returned value.
  auto a = decoder("gfx942").decode_one(words({0xE1085000, 0x80010102}), 0);
  ASSERT_GE(a.operands.size(), 2u);
  EXPECT_TRUE(a.operands[0].is_def);
  EXPECT_EQ(a.operands[1].tied_to, 0);
  EXPECT_EQ(a.operands[1].reg, a.operands[0].reg);
  EXPECT_TRUE(a.may_load && a.may_store);
  // DPP: `old` is tied to vdst.
  auto d = decoder("gfx942").decode_one(words({0x7E0002FA, 0xFF010101}), 0);
  EXPECT_EQ(d.operands[1].tied_to, 0);
}

TEST(Decoder, Flags) {
  const auto& dec = decoder("gfx942");
  auto cbr = dec.decode_one(words({0xBF88005F}), 0);  // s_cbranch_execz
  EXPECT_TRUE(cbr.is_branch && cbr.is_terminator);
  EXPECT_FALSE(cbr.no_fallthrough);  // conditional
  auto br = dec.decode_one(words({0xBF82FFFE}), 0);  // s_branch -2
  EXPECT_TRUE(br.is_branch && br.no_fallthrough);
  auto end = dec.decode_one(words({0xBF810000}), 0);  // s_endpgm
  EXPECT_TRUE(end.is_return && end.is_terminator && end.no_fallthrough);
  EXPECT_FALSE(end.is_branch);
  auto call = dec.decode_one(words({0xBE9E1E04}), 0);  // s_swappc_b64
  EXPECT_TRUE(call.is_call);
  EXPECT_FALSE(call.branch_target);  // indirect
  auto setpc = dec.decode_one(words({0xBE801D1E}), 0);
  EXPECT_TRUE(setpc.is_branch && setpc.no_fallthrough);
  auto load = dec.decode_one(words({0xDC508000, 0x037F0002}), 0);
  EXPECT_TRUE(load.may_load);
  EXPECT_FALSE(load.may_store);
  auto store = dec.decode_one(words({0xE0701000, 0x80010102}), 0);
  EXPECT_TRUE(store.may_store);
  EXPECT_FALSE(store.may_load);
  auto valu = dec.decode_one(words({0x68000002}), 0);
  EXPECT_FALSE(valu.is_branch || valu.is_terminator || valu.is_call || valu.is_return || valu.may_load ||
               valu.may_store || valu.no_fallthrough);
}

TEST(Decoder, BranchTargets) {
  const auto& dec = decoder("gfx942");
  EXPECT_EQ(dec.decode_one(words({0xBF88005F}), 0x1e2c).branch_target, 0x1e2c + 4 + 0x5f * 4);
  EXPECT_EQ(dec.decode_one(words({0xBF82FFFE}), 0x100).branch_target, 0x100 + 4 - 8);  // s_branch -2
  EXPECT_EQ(dec.decode_one(words({0xBF850003}), 0x40).branch_target, 0x40 + 4 + 12);   // s_cbranch_scc1 3
  auto call = dec.decode_one(words({0xBA9E0004}), 0x200);  // s_call_b64 s[30:31], 4
  EXPECT_EQ(call.text, "s_call_b64 s[30:31], 4");
  EXPECT_TRUE(call.is_call);
  EXPECT_EQ(call.branch_target, 0x200 + 4 + 16);
  EXPECT_EQ(names(call.defs), std::vector<std::string>{"s[30:31]"});
  EXPECT_FALSE(dec.decode_one(words({0xBF8CC07F}), 0).branch_target);
}

TEST(Decoder, DecodeRange) {
  auto bytes = words({0xC00200C0, 0x00000024, 0xBF8CC07F, 0x8603FF03, 0x0000FFFF, 0x68000002,
                      0x7D880004, 0xBE82206A, 0xBF88005F, 0xBF810000});
  auto insts = decoder("gfx942").decode_range(bytes, 0x1900);
  ASSERT_EQ(insts.size(), 8u);
  uint64_t addr = 0x1900;
  for (const auto& i : insts) {
    EXPECT_EQ(i.address, addr);
    addr += i.size;
  }
  EXPECT_EQ(addr, 0x1900 + bytes.size());
  EXPECT_EQ(insts[2].mnemonic, "s_and_b32");
  EXPECT_EQ(insts[6].branch_target, insts[6].address + 4 + 0x5f * 4);
  EXPECT_TRUE(decoder("gfx942").decode_range({}, 0).empty());
}

TEST(Decoder, GarbageIsAnErrorNamingAddressAndBytes) {
  const auto& dec = decoder("gfx942");
  auto bytes = words({0xBF8CC07F, 0xFFFFFFFF, 0x00000000});
  try {
    dec.decode_range(bytes, 0x1e2c);
    FAIL() << "expected asmevo::Error";
  } catch (const Error& e) {
    std::string msg = e.format();
    EXPECT_NE(msg.find("0x1e30"), std::string::npos) << msg;  // the second word
    EXPECT_NE(msg.find("ff ff ff ff"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gfx942"), std::string::npos) << msg;
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_FALSE(e.fix().empty());
  }
  EXPECT_THROW(dec.decode_one(words({0xDEADBEEF, 0}), 0), Error);
}

TEST(Decoder, TruncatedInstructionIsAnError) {
  auto bytes = words({0xC00200C0});  // first half of s_load_dword
  try {
    decoder("gfx942").decode_one(bytes, 0x40);
    FAIL() << "expected asmevo::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0x40"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  auto odd = std::vector<uint8_t>{0x7f, 0xc0};
  EXPECT_THROW(decoder("gfx942").decode_one(odd, 0), Error);
  EXPECT_THROW(decoder("gfx942").decode_one({}, 0), Error);
}

TEST(Decoder, UnknownProcessorIsAnError) {
  codeobj::TargetId t;
  t.processor = "gfx9999";
  EXPECT_THROW(Decoder{t}, Error);
}

TEST(Decoder, FeaturesAreAccepted) {
  auto t = codeobj::parse_target_id("gfx942:sramecc+:xnack-");
  ASSERT_TRUE(t);
  Decoder d(*t);
  EXPECT_EQ(d.decode_one(words({0xBF8CC07F}), 0).text, "s_waitcnt lgkmcnt(0)");
  EXPECT_EQ(d.target().processor, "gfx942");
}

TEST(Decoder, ConcurrentUseGivesSameResults) {
  std::vector<uint32_t> ws;
  for (const auto& k : kKnown)
    if (std::string(k.cpu) == "gfx942") ws.insert(ws.end(), k.words.begin(), k.words.end());
  auto bytes = bytes_of(ws);
  const Decoder& dec = decoder("gfx942");
  auto expected = dec.decode_range(bytes, 0);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        auto got = rep % 2 ? dec.decode_range(bytes, 0) : std::vector<Instruction>{dec.decode_one(bytes, 0)};
        for (size_t i = 0; i < got.size(); ++i)
          if (got[i].text != expected[i].text || got[i].uses != expected[i].uses) ++mismatches[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(Decoder, MoveKeepsWorking) {
  Decoder a(*codeobj::parse_target_id("gfx90a"));
  Decoder b = std::move(a);
  EXPECT_EQ(b.decode_one(words({0xBF810000}), 0).text, "s_endpgm");
}

TEST(Decoder, JsonOfDecodedInstruction) {
  auto j = decoder("gfx942").decode_one(words({0xBF88005F}), 0x1e2c).to_json();
  EXPECT_EQ(j["mnemonic"], "s_cbranch_execz");
  EXPECT_EQ(j["class"], "Branch");
  EXPECT_EQ(j["encoding"], "BF88005F");
  EXPECT_EQ(j["branch_target"], 0x1e2c + 4 + 0x5f * 4);
  EXPECT_EQ(j["uses"], nlohmann::json({"exec"}));
  EXPECT_EQ(j["flags"], nlohmann::json({"branch", "terminator"}));
}

}  // namespace
}  // namespace asmevo::program
