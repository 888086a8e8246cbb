// search/moves/register_compact.h: registers renamed high are brought back into the holes below,
// the KD's allocation drops and occupancy rises; tuples stay aligned; results check clean and
// verify EQUIVALENT.
#include "search/moves/register_compact.h"

#include "codeobj/resources.h"
#include "program/decoder.h"
#include "rebuild/assembler.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// `co`'s kernel with every line's text passed through `edit` (lines it leaves alone stay).
codeobj::CodeObject with_lines(const codeobj::CodeObject& co, const std::string& kernel,
                               const std::vector<std::pair<std::string, std::string>>& replacements) {
  auto p = program::Program::recover(co);
  for (const auto& [from, to] : replacements) {
    size_t line = find_line(p, kernel, from);
    EXPECT_GT(line, 0u) << from;
    if (line) p.replace(line, line, {to});
  }
  return rebuilt(p, "high.co");
}

codeobj::Resources resources(const codeobj::CodeObject& co, const std::string& kernel) {
  return codeobj::derive_resources(*codeobj::arch_params(co.target().arch), co.kernel(kernel)->kd, nullptr);
}

}  // namespace

TEST(RegisterCompactTest, RenameSubstitutesWholeOperandsOnly) {
  using program::RegFile;
  EXPECT_EQ(search::rename_registers("v_lshl_add_u64 v[4:5], s[4:5], 0, v[0:1]", {RegFile::VGPR, 4, 2}, 200),
            "v_lshl_add_u64 v[200:201], s[4:5], 0, v[0:1]");
  EXPECT_EQ(search::rename_registers("v_add_f32_e64 v4, -|v4|, v40", {RegFile::VGPR, 4, 1}, 9), "v_add_f32_e64 v9, -|v9|, v40");
  EXPECT_EQ(search::rename_registers("s_load_dwordx2 s[4:5], s[0:1], 0x10", {RegFile::SGPR, 4, 2}, 8), "s_load_dwordx2 s[8:9], s[0:1], 0x10");
  EXPECT_EQ(search::rename_registers("v_mfma_f32_16x16x16_f16 a[0:3], v[4:5], v[6:7], a[0:3]", {RegFile::AGPR, 0, 4}, 8),
            "v_mfma_f32_16x16x16_f16 a[8:11], v[4:5], v[6:7], a[8:11]");
}

TEST(RegisterCompactTest, BringsAHighVgprBackDownAndOccupancyUp) {
  auto k0 = load(hip("vector_add.co"));
  // vector_add's second load goes to v200 instead of v7: 201 VGPRs, 2 waves per SIMD.
  auto high = with_lines(k0, "vector_add",
                         {{"global_load_dword v7, v[2:3], off", "global_load_dword v200, v[2:3], off"},
                          {"v_add_f32_e32 v2, v6, v7", "v_add_f32_e32 v2, v6, v200"}});
  auto before = resources(high, "vector_add");
  ASSERT_GE(before.vgprs_allocated, 201u);
  ASSERT_EQ(before.occupancy.by_vgprs, 2u);
  auto r = search::compact_registers(program::Program::recover(high), "vector_add");
  ASSERT_EQ(r.renames.size(), 1u) << r.refused;
  EXPECT_EQ(r.renames[0].from, (program::RegRange{program::RegFile::VGPR, 200, 1}));
  EXPECT_EQ(r.renames[0].to, 7u);  // the lowest register vector_add leaves unused
  EXPECT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.waves_before, 2u);
  EXPECT_EQ(r.waves_after, 8u);
  auto compacted = rebuilt(std::move(r.program), "compacted.co");
  auto after = resources(compacted, "vector_add");
  EXPECT_EQ(after.vgprs_allocated, resources(k0, "vector_add").vgprs_allocated);
  EXPECT_EQ(after.occupancy.by_vgprs, 8u);
  EXPECT_EQ(compacted.kernel("vector_add")->kd, k0.kernel("vector_add")->kd);  // the original KD again
  auto code = compacted.code_bytes(*compacted.kernel("vector_add"));
  auto original = k0.code_bytes(*k0.kernel("vector_add"));
  EXPECT_TRUE(std::equal(code.begin(), code.end(), original.begin(), original.end()));
  EXPECT_TRUE(checked(compacted, "vector_add").clean());
  EXPECT_EQ(verdict(k0, compacted, hip_spec("vector_add")), verify::Verdict::Equivalent);

  // Through the Move interface: one edit rewriting those two lines, with the KD recomputed.
  auto move = search::make_register_compact_move();
  EXPECT_EQ(move->name(), "register-compact");
  auto hp = program::Program::recover(high);
  auto edits = propose_whole(*move, hp, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].hunks.size(), 2u);
  auto via_edit = rebuilt(search::apply_edit(hp, edits[0]), "via_edit.co");
  EXPECT_EQ(resources(via_edit, "vector_add").occupancy.by_vgprs, 8u);
  EXPECT_EQ(verdict(high, via_edit, hip_spec("vector_add")), verify::Verdict::Equivalent);
}

TEST(RegisterCompactTest, KeepsTuplesEvenAligned) {
  // v[4:5] (an address pair) moved to v[200:201] and v6 to v202: the single v202 takes the lowest
  // hole (v4); the pair needs an even start: v[5:6] is free but odd and v7 is in use, so it lands
  // on v[8:9] (10 VGPRs, 16 allocated: still the 8 waves the hardware allows at most).
  auto k0 = load(hip("vector_add.co"));
  auto high = with_lines(k0, "vector_add",
                         {{"v_lshl_add_u64 v[4:5], s[4:5], 0, v[0:1]", "v_lshl_add_u64 v[200:201], s[4:5], 0, v[0:1]"},
                          {"global_load_dword v6, v[4:5], off", "global_load_dword v202, v[200:201], off"},
                          {"v_add_f32_e32 v2, v6, v7", "v_add_f32_e32 v2, v202, v7"}});
  auto r = search::compact_registers(program::Program::recover(high), "vector_add");
  ASSERT_FALSE(r.renames.empty()) << r.refused;
  auto compacted = rebuilt(std::move(r.program), "compacted.co");
  auto cp = program::Program::recover(compacted);
  EXPECT_GT(find_line(cp, "vector_add", "global_load_dword v4, v[8:9], off"), 0u);
  EXPECT_EQ(resources(compacted, "vector_add").vgprs_allocated, 16u);
  EXPECT_EQ(r.waves_after, 8u);
  EXPECT_TRUE(checked(compacted, "vector_add").clean());
  EXPECT_EQ(verdict(high, compacted, hip_spec("vector_add")), verify::Verdict::Equivalent);
}

TEST(RegisterCompactTest, ProposesNothingWithoutAnOccupancyGain) {
  auto k0 = load(hip("vector_add.co"));
  auto r = search::compact_registers(program::Program::recover(k0), "vector_add");
  EXPECT_TRUE(r.renames.empty());
  EXPECT_FALSE(r.refused.empty());
  EXPECT_EQ(r.waves_before, 8u);
  auto move = search::make_register_compact_move();
  EXPECT_TRUE(propose_whole(*move, program::Program::recover(k0), "vector_add").empty());
  EXPECT_THROW(search::compact_registers(program::Program::recover(k0), "no_such_kernel"), Error);
}

TEST(RegisterCompactTest, CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_register_compact_move();
  run_on_corpus(*move);
}

TEST(RegisterCompactTest, Gfx90aAndGfx950CorpusKernelsStaySafeAndEquivalent) {
  auto move = search::make_register_compact_move();
  for (const char* arch : {"gfx90a", "gfx950"}) run_on_corpus(*move, arch);
}

TEST(RegisterCompactTest, SpreadCorpusKernelsAreCompactedBackAndStayEquivalent) {
  // Each corpus kernel with its VGPRs from v2 up shifted by an even distance to the top of the
  // file (and its AGPRs likewise): tuples stay even-aligned (a tuple never spans v1|v2), v0/v1
  // stay, occupancy falls. Compaction must win the occupancy back, check clean and verify
  // EQUIVALENT against the original. (Registers the kernel may read before writing them — live at
  // its entry, e.g. the MFMA kernels' operands — stay put, so a few spread kernels cannot come back.)
  // gfx942 and gfx90a (MI200 differs in MFMA forms and has no architected flat scratch).
  size_t spread = 0, compacted_back = 0;
  std::vector<std::string> not_back;
  std::vector<CorpusKernel> kernels = corpus_kernels("gfx942"), gfx90a = corpus_kernels("gfx90a");
  kernels.insert(kernels.end(), gfx90a.begin(), gfx90a.end());
  for (const auto& c : kernels) {
    auto k0 = load(c.path);
    auto p = program::Program::recover(k0);
    const program::Function* f = p.function(c.kernel);
    if (!f->callees.empty()) continue;  // refused by design (calls)
    program::RegisterUse use = p.register_use(c.kernel);
    unsigned vshift = use.max_vgpr >= 2 ? (255 - use.max_vgpr) / 2 * 2 : 0;
    unsigned ashift = use.max_agpr >= 0 ? (255 - use.max_agpr) / 2 * 2 : 0;
    if (vshift < 64 && ashift < 64) continue;
    for (size_t i = f->begin; i < f->end; ++i) {
      const auto& l = p.text_line(i);
      if (l.kind != program::Line::Instr) continue;
      std::string text = l.text;
      if (vshift) text = search::rename_registers(text, {program::RegFile::VGPR, 2, 254 - vshift}, 2 + vshift);
      if (ashift) text = search::rename_registers(text, {program::RegFile::AGPR, 0, 256 - ashift}, ashift);
      if (text != l.text) p.replace(i, i, {text});
    }
    auto high = rebuilt(std::move(p), "spread.co");
    auto high_res = resources(high, c.kernel);
    if (high_res.occupancy.by_vgprs >= resources(k0, c.kernel).occupancy.by_vgprs) continue;
    ++spread;
    ASSERT_TRUE(checked(high, c.kernel).clean()) << c.label;
    auto r = search::compact_registers(program::Program::recover(high), c.kernel);
    if (r.renames.empty()) {
      not_back.push_back(c.label + " (" + r.refused + ")");
      continue;
    }
    ++compacted_back;
    EXPECT_EQ(r.waves_before, high_res.occupancy.by_vgprs) << c.label;
    EXPECT_GT(r.waves_after, r.waves_before) << c.label;
    auto compacted = rebuilt(std::move(r.program), "compacted.co");
    EXPECT_LE(resources(compacted, c.kernel).vgprs_allocated, high_res.vgprs_allocated) << c.label;
    EXPECT_TRUE(checked(compacted, c.kernel).clean()) << c.label;
    EXPECT_EQ(verdict(k0, compacted, c.spec), verify::Verdict::Equivalent) << c.label;
  }
  std::cout << "[register-compact] spread " << spread << " corpus kernels; compacted back " << compacted_back << "\n";
  for (const auto& n : not_back) std::cout << "[register-compact] not compacted: " << n << "\n";
  EXPECT_GT(compacted_back, spread / 2);
}

TEST(RegisterCompactTest, PartialWritesDoNotEndLiveness) {
  // The partial-write rule of the renaming moves, from decoded forms: destinations the decoder also
  // lists as uses (v_writelane's vdst_in, DPP `old`, d16 loads, SDWA UNUSED_PRESERVE) and the
  // emulator's kKeepHigh16 16-bit ops; a whole 32-bit write (v_add_f16 zeroes bits 31:16 on gfx9) kills.
  const codeobj::TargetId target = load(hip("vector_add.co")).target();
  const program::Decoder decoder(target);
  auto line = [&](const std::string& text) {
    program::Instruction inst = decoder.decode_one(rebuild::encode_instruction(text, target), 0);
    return program::Line{program::Line::Instr, inst.text, 0, inst};
  };
  auto reads_own_def = [](const program::Line& l) {
    return std::any_of(l.inst->defs.begin(), l.inst->defs.end(),
                       [&](const program::RegRange& d) { return l.inst->reads(d); });
  };
  for (const char* text : {"v_writelane_b32 v1, s2, 3", "v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf",
                           "global_load_short_d16_hi v1, v[2:3], off",
                           "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_0"})
    EXPECT_TRUE(reads_own_def(line(text))) << text;
  EXPECT_TRUE(search::may_write_part(line("v_mad_u16 v1, v2, v3, v4")));
  EXPECT_TRUE(search::may_write_part(line("v_fma_f16 v1, v2, v3, v4")));
  EXPECT_FALSE(search::may_write_part(line("v_add_f16_e32 v1, v2, v3")));
  EXPECT_FALSE(search::may_write_part(line("v_add_u32_e32 v1, v2, v3")));
  EXPECT_FALSE(reads_own_def(line("v_add_u32_e32 v1, v2, v3")));

  // In a kernel: vector_add's sum goes through v9's low half by v_mad_u16 (keeps bits 31:16), then
  // all of v9 is stored. The high half is v9's entry value: live at the entry in the partial-write
  // mode (register compaction keeps v9 in place), not in the mode that kills on every write.
  auto k = with_lines(load(hip("vector_add.co")), "vector_add",
                      {{"v_add_f32_e32 v2, v6, v7", "v_mad_u16 v9, v6, v7, v6"},
                       {"global_store_dword v[0:1], v2, off", "global_store_dword v[0:1], v9, off"}});
  auto p = program::Program::recover(k);
  const program::Function* f = p.function("vector_add");
  const size_t entry = f->blocks[0].first - f->begin;
  const program::RegRange v9{program::RegFile::VGPR, 9, 1};
  EXPECT_FALSE(p.live_in(*f)[entry].contains(v9));
  EXPECT_TRUE(p.live_in_partial(*f, search::may_write_part)[entry].contains(v9));
}
