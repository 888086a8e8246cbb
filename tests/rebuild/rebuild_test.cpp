// Recovery and rebuild are lossless, and edits rebuild into correct code objects.
//  - roundtrip: every corpus file (HIP gfx90a/gfx942/gfx950 in v4/v5/v6, target-ID variants,
//    Triton) recovers and rebuilds to identical .text, KD bytes, metadata, e_flags and symbols;
//  - resource recomputation from the code reproduces what the compiler wrote;
//  - edits that grow code, shrink it, and raise the VGPR count rebuild with correct branches,
//    calls, data references, KD and metadata, checked by decoding the result back.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "rebuild/rebuild.h"
#include "rebuild/roundtrip.h"
#include "program/decoder.h"
#include "program/program.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
using asmevo::testing::CorpusFile;

namespace {

std::vector<CorpusFile> code_object_files() {
  return asmevo::testing::code_object_corpus_files(ASMEVO_SOURCE_DIR, ASMEVO_BINARY_DIR);
}

std::string label(const ::testing::TestParamInfo<CorpusFile>& info) { return asmevo::testing::test_name(info.param); }

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }

class Roundtrip : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(Roundtrip, IsByteIdentical) {
  auto co = load(GetParam().path);
  auto r = rebuild::roundtrip(co);
  std::string first;
  if (!r.ok()) {
    const auto& d = r.differences[0];
    first = d.what + " at " + d.where + ": " + d.original + " -> " + d.rebuilt + " " + d.detail;
  }
  EXPECT_TRUE(r.ok()) << r.differences.size() << " differences; first: " << first;
  EXPECT_TRUE(r.metadata_bytes_equal);
  EXPECT_GT(r.instructions, 0u);
}

TEST_P(Roundtrip, ResourceRecomputationMatchesTheCompiler) {
  auto co = load(GetParam().path);
  if (co.target().arch == codeobj::Arch::Other) GTEST_SKIP() << "not a modeled processor";
  auto p = program::Program::recover(co);
  for (const auto& k : co.kernels()) p.touch(k.name);
  p.update_resources();
  for (const auto& k : co.kernels()) {
    const auto& kd = p.kernel_descriptor(k.name);
    EXPECT_EQ(kd.vgpr_blocks(), k.kd.vgpr_blocks()) << k.name;
    EXPECT_EQ(kd.sgpr_blocks(), k.kd.sgpr_blocks()) << k.name;
    EXPECT_EQ(kd.accum_offset_field(), k.kd.accum_offset_field()) << k.name;
    const auto* md = p.metadata()->kernel(k.name);
    const auto* orig = co.kernel_metadata(k);
    EXPECT_EQ(md->vgpr_count, orig->vgpr_count) << k.name;
    EXPECT_EQ(md->sgpr_count, orig->sgpr_count) << k.name;
    EXPECT_EQ(md->agpr_count, orig->agpr_count) << k.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Roundtrip, ::testing::ValuesIn(code_object_files()), label);

// Maps each original instruction address of `kernel` to its address after an edit, assuming the
// edit only inserted `inserted` instructions before original index `at` (or deleted `deleted`).
struct Decoded {
  std::vector<program::Instruction> insts;
  uint64_t start;
};
Decoded decode_kernel(const codeobj::CodeObject& co, const std::string& name) {
  const auto* k = co.kernel(name);
  program::Decoder dec(co.target());
  return {dec.decode_range(co.code_bytes(*k), k->code_address), k->code_address};
}

// Every branch in `after` must land on the instruction that corresponds to its original target.
void expect_branches_preserved(const Decoded& before, const Decoded& after, const std::vector<long>& index_map) {
  std::map<uint64_t, size_t> before_index;
  for (size_t i = 0; i < before.insts.size(); ++i) before_index[before.insts[i].address] = i;
  size_t checked = 0;
  for (size_t i = 0; i < before.insts.size(); ++i) {
    if (!before.insts[i].branch_target || index_map[i] < 0) continue;
    auto t = before_index.find(static_cast<uint64_t>(*before.insts[i].branch_target));
    ASSERT_NE(t, before_index.end());
    const auto& nb = after.insts[index_map[i]];
    ASSERT_TRUE(nb.branch_target) << nb.text;
    EXPECT_EQ(static_cast<uint64_t>(*nb.branch_target), after.insts[index_map[t->second]].address) << nb.text;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

std::set<std::string> pc_relative_targets(const codeobj::CodeObject& co) {
  std::set<std::string> s;
  for (const auto& p : program::recover(co).pc_relative) s.insert(p.target_expr);
  return s;
}

codeobj::CodeObject rebuild(program::Program& p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), name), name);
}

std::string fixture(const std::string& arch) { return std::string(ASMEVO_BINARY_DIR) + "/tests/codeobj/fixture_" + arch + ".co"; }

class Edits : public ::testing::TestWithParam<std::string> {};

TEST_P(Edits, InsertingNopsGrowsCodeAndKeepsBranchesCallsAndDataReferences) {
  auto co = load(fixture(GetParam()));
  auto p = program::Program::recover(co);
  // fixture_scale calls _Z8scale_ofi (getpc + swappc) which reads kScale (getpc data reference);
  // fixture_block_sum has loops (branches). Grow both at their first instruction.
  for (const char* kernel : {"fixture_scale", "fixture_block_sum"}) {
    const auto* f = p.function(kernel);
    p.insert_before(f->blocks[0].first, {"s_nop 0", "s_nop 1", "s_nop 2", "s_nop 3", "s_nop 4"});
  }
  // 64 more instructions in the callee (the first function in .text) push both kernels to the
  // next 256-byte boundary, so every PC-relative offset between them and the data changes.
  const auto* callee = p.function("_Z8scale_ofi");
  p.insert_before(callee->blocks[0].first, std::vector<std::string>(64, "s_nop 0"));
  auto edited = rebuild(p, "grown");
  for (const char* kernel : {"fixture_scale", "fixture_block_sum"}) {
    auto before = decode_kernel(co, kernel), after = decode_kernel(edited, kernel);
    ASSERT_EQ(after.insts.size(), before.insts.size() + 5);
    std::vector<long> map(before.insts.size());
    for (size_t i = 0; i < map.size(); ++i) map[i] = long(i) + 5;
    for (size_t i = 0; i < map.size(); ++i) EXPECT_EQ(after.insts[map[i]].text.substr(0, 8), before.insts[i].text.substr(0, 8));
    if (std::string(kernel) == "fixture_block_sum") expect_branches_preserved(before, after, map);
    // KD still points at the kernel's (256-aligned) code; resources unchanged.
    const auto* k = edited.kernel(kernel);
    EXPECT_EQ(k->code_address % 256, 0u);
    EXPECT_EQ(edited.elf().symbol(kernel)->value, k->code_address);
    EXPECT_NE(k->code_address, co.kernel(kernel)->code_address);
    // Only the code entry offset changes in the descriptor.
    auto kd = k->kd;
    kd.kernel_code_entry_byte_offset = co.kernel(kernel)->kd.kernel_code_entry_byte_offset;
    EXPECT_EQ(kd.encode(), co.kernel(kernel)->kd.encode());
  }
  // The kernels moved; the call and the data reference still resolve to the right symbols.
  EXPECT_EQ(pc_relative_targets(edited), pc_relative_targets(co));
  EXPECT_TRUE(pc_relative_targets(edited).count("kScale"));
  EXPECT_TRUE(pc_relative_targets(edited).count("_Z8scale_ofi"));
  EXPECT_EQ(edited.metadata()->to_json(), co.metadata()->to_json());
}

TEST_P(Edits, DeletingAnInstructionShrinksCode) {
  auto co = load(fixture(GetParam()));
  auto p = program::Program::recover(co);
  const auto* f = p.function("fixture_block_sum");
  // Delete the first s_waitcnt-free SALU instruction after the entry? Any instruction works for
  // layout; pick the second instruction of the first block.
  size_t victim = f->blocks[0].first + 1;
  std::string victim_text = p.text_line(victim).text;
  p.remove(victim, victim);
  auto edited = rebuild(p, "shrunk");
  auto before = decode_kernel(co, "fixture_block_sum"), after = decode_kernel(edited, "fixture_block_sum");
  ASSERT_EQ(after.insts.size() + 1, before.insts.size());
  std::vector<long> map(before.insts.size());
  for (size_t i = 0; i < map.size(); ++i) map[i] = i < 1 ? long(i) : i == 1 ? -1 : long(i) - 1;
  expect_branches_preserved(before, after, map);
  EXPECT_LT(edited.kernel("fixture_block_sum")->code_size, co.kernel("fixture_block_sum")->code_size);
  EXPECT_EQ(pc_relative_targets(edited), pc_relative_targets(co));
}

TEST_P(Edits, ShrinkingTheFirstOfTwoKernelsKeepsTheSecondAligned) {
  // A kernel's code entry must be 256-byte aligned (AMDGPUUsage, kernel descriptor). The padding
  // between kernels is recovered as `.p2align 8`, not as a fixed run of s_nop, so deleting or
  // inserting instructions in the first kernel re-pads before the second.
  const std::string path = corpus::hip_object(GetParam(), "prefix_scan.co");
  auto co = load(path);
  for (int delta : {-1, +1}) {
    auto p = program::Program::recover(co);
    const auto* f = p.function("prefix_scan_inclusive_i32");
    size_t line = f->blocks[0].first + 1;
    if (delta < 0) p.remove(line, line);
    else p.insert_before(line, {"s_nop 0"});
    auto edited = rebuild(p, "edited");
    for (const auto& k : edited.kernels()) EXPECT_EQ(k.code_address % 256, 0u) << k.name;
    EXPECT_EQ(decode_kernel(edited, "scan_blocks_exclusive_u32").insts.size(), decode_kernel(co, "scan_blocks_exclusive_u32").insts.size());
  }
}

// A kernel that starts on a 256-byte boundary with no padding in front of it (the code before
// it happens to end there) must stay aligned when an edit grows that code: kb_reduce.co's
// kb_argmax_dim1_f32 follows kb_max_dim1_f32 directly on gfx942 (found by the widen move's corpus
// test, whose narrowed kb_max_dim1_f32 moved kb_argmax_dim1_f32 off its boundary).
TEST(EditsUnpadded, GrowingTheCodeBeforeAnUnpaddedKernelKeepsItAligned) {
  auto co = load(corpus::hip_object("gfx942", "kb_reduce.co"));
  const auto* before = co.kernel("kb_max_dim1_f32");
  const auto* after = co.kernel("kb_argmax_dim1_f32");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  ASSERT_EQ(before->code_address + before->code_size, after->code_address) << "the corpus no longer has the unpadded case";
  for (int grow : {1, 3}) {
    auto p = program::Program::recover(co);
    const auto* f = p.function("kb_max_dim1_f32");
    p.insert_before(f->blocks[0].first + 1, std::vector<std::string>(grow, "s_nop 0"));
    auto edited = rebuild(p, "grown");
    for (const auto& k : edited.kernels()) EXPECT_EQ(k.code_address % 256, 0u) << k.name;
    EXPECT_EQ(decode_kernel(edited, "kb_argmax_dim1_f32").insts.size(), decode_kernel(co, "kb_argmax_dim1_f32").insts.size());
  }
}

TEST_P(Edits, RenamingAVgprAboveTheMaximumRaisesKdAndMetadataCounts) {
  auto co = load(fixture(GetParam()));
  auto p = program::Program::recover(co);
  const auto* f = p.function("fixture_block_sum");
  // Append a write of v40 before s_endpgm: the kernel now needs 41 VGPRs.
  size_t endpgm = f->blocks.back().last;
  ASSERT_EQ(p.text_line(endpgm).text, "s_endpgm");
  p.insert_before(endpgm, {"v_mov_b32_e32 v40, 0"});
  auto edited = rebuild(p, "wider");
  const auto* k = edited.kernel("fixture_block_sum");
  ASSERT_TRUE(k->resources);
  EXPECT_EQ(k->resources->vgprs_allocated, 48u);  // 41 rounded up to the granule of 8
  EXPECT_EQ(edited.kernel_metadata(*k)->vgpr_count, 41u);
  EXPECT_EQ(k->kd.accum_offset_field(), 44u / 4 - 1);
  // The other kernel is untouched.
  EXPECT_EQ(edited.kernel("fixture_scale")->kd.encode(), co.kernel("fixture_scale")->kd.encode());
  auto after = decode_kernel(edited, "fixture_block_sum");
  EXPECT_EQ(after.insts[after.insts.size() - 2].text, "v_mov_b32_e32 v40, 0");
}

TEST_P(Edits, ExceedingArchLimitsIsRefused) {
  auto co = load(fixture(GetParam()));
  auto p = program::Program::recover(co);
  const auto* f = p.function("fixture_scale");
  p.insert_before(f->blocks[0].first, {"v_mov_b32_e32 v255, 0", "s_mov_b32 s101, 0"});
  p.update_resources();  // 256 VGPRs and 102 SGPRs are still legal
  auto q = program::Program::recover(co);
  q.insert_before(q.function("fixture_scale")->blocks[0].first, {"s_mov_b32 s102, 0"});
  try {
    q.update_resources();
    FAIL() << "expected a limit error";
  } catch (const asmevo::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SGPRs"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(AllArchs, Edits, ::testing::Values("gfx90a", "gfx942", "gfx950"));

}  // namespace

namespace {

// Per process (removed at exit): ctest runs tests of this binary in parallel processes, and two
// checkouts may run at once; a shared file name here once let one test read another's (empty) stderr.
std::string private_dir() { return asmevo::testing::scratch_dir("rebuild_cli").string(); }

int run_cli(const std::string& args, std::string* err = nullptr) {
  std::string err_file = private_dir() + "/asmevo_cli_err.txt";
  int rc = std::system((std::string(ASMEVO_CLI) + " " + args + " > /dev/null 2> " + err_file).c_str());
  if (err) *err = asmevo::read_file_text(err_file);
  return WEXITSTATUS(rc);
}

class Cli : public ::testing::TestWithParam<std::string> {};

// disasm writes assembly that `asmevo rebuild` turns back into an equivalent code object.
TEST_P(Cli, DisasmThenRebuildReproducesTheObject) {
  std::string dir = private_dir();
  std::string s = dir + "/recovered_" + GetParam() + ".s", out = dir + "/rebuilt_" + GetParam() + ".co";
  ASSERT_EQ(run_cli("disasm " + fixture(GetParam()) + " -o " + s), 0);
  ASSERT_EQ(run_cli("rebuild " + s + " -o " + out), 0);
  auto diffs = rebuild::compare_code_objects(load(fixture(GetParam())), load(out));
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs[0].what << " " << diffs[0].where;
  EXPECT_EQ(run_cli("roundtrip " + fixture(GetParam())), 0);
}

TEST_P(Cli, RebuildReportsAssemblerErrorsWithLineAndColumn) {
  std::string dir = private_dir();
  std::string s = dir + "/broken_" + GetParam() + ".s";
  ASSERT_EQ(run_cli("disasm " + fixture(GetParam()) + " -o " + s), 0);
  std::string text = asmevo::read_file_text(s);
  auto pos = text.find("\ts_endpgm");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 9, "\ts_bogus_instruction v1");
  asmevo::write_file_atomic(s, text);
  size_t line = 1 + std::count(text.begin(), text.begin() + pos, '\n');
  std::string err;
  EXPECT_EQ(run_cli("rebuild " + s + " -o " + dir + "/never.co", &err), 2);
  EXPECT_NE(err.find(s + ":" + std::to_string(line) + ":"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/never.co"));
}

INSTANTIATE_TEST_SUITE_P(AllArchs, Cli, ::testing::Values("gfx90a", "gfx942", "gfx950"));

}  // namespace

namespace {

// Where LLVM's encoder writes different don't-care bits than the original (seen in AITer's
// gfx950 v_mfma_scale files), recovery keeps the original bytes for that instruction so the
// round trip stays byte-identical. Here: a VOP3 v_mov_b32 whose unused src1/src2 fields are set.
TEST_P(Edits, InstructionsWhoseTextReencodesDifferentlyAreKeptAsRawBytes) {
  auto co = load(fixture(GetParam()));
  const auto* k = co.kernel("fixture_scale");
  program::Decoder dec(co.target());
  auto insts = dec.decode_range(co.code_bytes(*k), k->code_address);
  auto slot = std::find_if(insts.begin(), insts.end(), [](const program::Instruction& i) {
    return i.size == 8 && i.mnemonic.rfind("v_", 0) == 0 && !i.branch_target;
  });
  ASSERT_NE(slot, insts.end());
  const std::vector<uint8_t> junk_mov = {0x00, 0x00, 0x41, 0xd1, 0x01, 0x03, 0x02, 0x00};  // v_mov_b32_e64 v0, v1 + junk
  ASSERT_EQ(dec.decode_one(junk_mov, 0).text, "v_mov_b32_e64 v0, v1");
  co.elf().overwrite(*co.elf().file_offset_of_address(slot->address), junk_mov, "test");
  auto edited = codeobj::CodeObject::parse(co.write(), "junk");
  auto r = rebuild::roundtrip(edited);
  EXPECT_TRUE(r.ok()) << r.differences.size() << " differences";
  EXPECT_EQ(r.raw_instructions, 1u);
  EXPECT_EQ(r.passes, 2u);
}

}  // namespace
