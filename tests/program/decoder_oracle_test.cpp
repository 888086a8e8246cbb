// Whole-section decoding checked against llvm-objdump-22, the independent oracle: every
// instruction's address, encoding and text must match, for all three architectures. Inputs are
// made at test time: an assembled snippet (llvm-mc) and compiled kernels (clang -x hip).
#include "program/decoder.h"

#include "test_tools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace asmevo::program {
namespace {

const char* const kArchs[] = {"gfx90a", "gfx942", "gfx950"};

// Valid on gfx90a, gfx942 and gfx950 (spellings that differ per arch are in kArchSnippet).
const char* const kCommonSnippet = R"(
  s_load_dword s3, s[0:1], 0x24
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s3, s3, 0xffff
  v_add_u32_e32 v0, s2, v0
  v_cmp_gt_i32_e32 vcc, s4, v0
  s_and_saveexec_b64 s[2:3], vcc
  s_cbranch_execz 3
  v_fma_f32 v2, v3, v2, v3
  v_add_f32_e32 v0, 1.0, v1
  v_add_f32_e32 v0, 0x3fc00000, v1
  v_add_f64 v[0:1], 1.0, v[2:3]
  v_lshlrev_b64 v[0:1], 2, v[0:1]
  v_cndmask_b32_e64 v0, v1, v2, s[4:5]
  v_addc_co_u32_e64 v0, s[0:1], v1, v2, s[2:3]
  v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
  v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
  v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
  v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,0]
  v_accvgpr_write_b32 a0, v1
  v_accvgpr_read_b32 v0, a1
  v_readlane_b32 s0, v1, 5
  v_writelane_b32 v0, s1, 5
  ds_read_b128 v[0:3], v4 offset:16
  ds_read2_b32 v[0:1], v2 offset1:1
  ds_write_b32 v1, v2
  ds_add_rtn_u32 v0, v1, v2
  ds_bpermute_b32 v0, v1, v2
  ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)
  buffer_load_dword v1, v2, s[4:7], 0 offen
  buffer_store_dword v1, v2, s[4:7], 0 offen offset:64
  buffer_atomic_add v1, v2, s[4:7], 0 offen
  global_load_dword v3, v[2:3], off
  global_load_dword v3, v2, s[4:5] offset:16
  global_load_dwordx4 v[4:7], v[2:3], off offset:-16
  global_store_dwordx4 v[0:1], v[2:5], off
  global_load_short_d16_hi v0, v[2:3], off
  flat_load_dword v0, v[0:1]
  scratch_load_dword v0, off, s2 offset:4
  s_mov_b32 m0, -1
  s_mov_b64 exec, -1
  s_getpc_b64 s[0:1]
  s_add_u32 s0, s0, 1.0
  s_swappc_b64 s[30:31], s[4:5]
  s_call_b64 s[30:31], 2
  s_barrier
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_nop 3
  s_branch -4
  s_setpc_b64 s[30:31]
  s_endpgm
)";

std::string arch_snippet(const std::string& arch) {
  if (arch == "gfx90a")
    return R"(
  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_16x16x4f32 a[0:3], v0, v1, a[0:3] cbsz:1 abid:1 blgp:2
  v_mfma_f64_16x16x4f64 v[0:7], v[0:1], v[2:3], v[0:7]
  global_load_dword v3, v[2:3], off glc
  buffer_wbinvl1_vol
)";
  std::string s = R"(
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f64_16x16x4_f64 v[0:7], v[0:1], v[2:3], v[0:7]
  v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
  global_load_dword v3, v[2:3], off sc0 sc1
  buffer_wbl2 sc1
  buffer_inv sc1
)";
  if (arch == "gfx950")
    s += R"(
  v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[0:3]
  v_prng_b32 v0, v1
  ds_read_b64_tr_b16 v[0:1], v2
  v_permlane32_swap_b32 v0, v1
)";
  return s;
}

// Decodes `file`'s .text and checks it instruction by instruction against llvm-objdump.
void expect_matches_objdump(const std::filesystem::path& file, const std::string& arch) {
  auto text = test::read_text(file);
  auto oracle = test::objdump(file, arch);
  Decoder dec(*codeobj::parse_target_id(arch));
  auto insts = dec.decode_range(text.bytes, text.address);
  ASSERT_EQ(insts.size(), oracle.size()) << file;
  for (size_t k = 0; k < insts.size(); ++k) {
    SCOPED_TRACE(oracle[k].text);
    EXPECT_EQ(insts[k].address, oracle[k].address);
    EXPECT_EQ(insts[k].text, oracle[k].text);
    EXPECT_EQ(insts[k].to_json()["encoding"], oracle[k].encoding);
    EXPECT_FALSE(insts[k].mnemonic.empty());
  }
}

TEST(DecoderOracle, AssembledSnippetMatchesObjdump) {
  for (const char* arch : kArchs) {
    SCOPED_TRACE(arch);
    auto obj = test::assemble(std::string(kCommonSnippet) + arch_snippet(arch), arch, "snippet");
    expect_matches_objdump(obj, arch);
  }
}

TEST(DecoderOracle, CompiledKernelsMatchObjdump) {
  for (const char* arch : kArchs) {
    SCOPED_TRACE(arch);
    auto co = test::scratch_dir(arch) / "oracle_kernels.co";
    std::string out;
    int rc = test::run(std::string(ASMEVO_CLANGXX) + " -x hip --offload-arch=" + arch +
                           " --offload-device-only --no-gpu-bundle-output -O3 -nogpulib -nogpuinc"
                           " -mcode-object-version=5 " ASMEVO_SOURCE_DIR "/tests/program/oracle_kernels.hip -o " +
                           co.string(),
                       &out);
    ASSERT_EQ(rc, 0) << out;
    expect_matches_objdump(co, arch);
    // The kernels exercise every major class.
    Decoder dec(*codeobj::parse_target_id(arch));
    auto text = test::read_text(co);
    std::set<InstClass> seen;
    for (const auto& i : dec.decode_range(text.bytes, text.address)) seen.insert(i.cls);
    for (InstClass c : {InstClass::SALU, InstClass::VALU, InstClass::MFMA, InstClass::SMEM, InstClass::GLOBAL,
                        InstClass::DS, InstClass::Branch, InstClass::Waitcnt, InstClass::Barrier})
      EXPECT_TRUE(seen.count(c)) << class_name(c);
  }
}

}  // namespace
}  // namespace asmevo::program
