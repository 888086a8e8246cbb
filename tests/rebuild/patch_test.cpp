// In-place patching (rebuild/patch.h) on corpus code objects of all three processors: accepted
// edits change only the patched bytes; every refusal is an asmevo::Error with its reason.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "rebuild/assembler.h"
#include "rebuild/linker.h"
#include "rebuild/patch.h"
#include "codeobj/code_object.h"
#include "program/decoder.h"
#include "support/error.h"
#include "tests/rebuild/rebuild_test_util.h"
#include "tests/support/corpus_files.h"

namespace asmevo::rebuild {
namespace {

using codeobj::CodeObject;
using program::Instruction;

struct Loaded {
  std::vector<uint8_t> bytes;
  std::string name;
  std::string kernel;
  uint64_t start = 0;
  std::vector<Instruction> insts;
  std::set<uint64_t> targets;  // kernel-relative branch targets
};

Loaded load(const std::filesystem::path& path, std::string kernel = {}) {
  Loaded l;
  l.bytes = test::read_bytes(path);
  l.name = path.string();
  auto co = CodeObject::parse(l.bytes, l.name);
  const auto& k = kernel.empty() ? co.kernels().at(0) : *co.kernel(kernel);
  l.kernel = k.name;
  l.start = k.code_address;
  program::Decoder dec(co.target());
  l.insts = dec.decode_range(co.code_bytes(k), k.code_address);
  for (const auto& i : l.insts)
    if (i.branch_target) l.targets.insert(static_cast<uint64_t>(*i.branch_target) - l.start);
  return l;
}

uint64_t off(const Loaded& l, const Instruction& i) { return i.address - l.start; }

bool pc_relative(const Instruction& i) {
  return i.mnemonic == "s_getpc_b64" || i.mnemonic == "s_add_u32" || i.mnemonic == "s_addc_u32";
}

// An instruction of `size` bytes matching `pred`, not PC-relative, not a branch target, not last.
const Instruction* find(const Loaded& l, unsigned size, const std::function<bool(const Instruction&)>& pred = {}) {
  for (size_t i = 0; i + 1 < l.insts.size(); ++i) {
    const auto& x = l.insts[i];
    if (x.size != size || pc_relative(x) || x.is_branch || x.is_call || l.targets.count(off(l, x))) continue;
    if (pred && !pred(x)) continue;
    return &x;
  }
  return nullptr;
}

PatchEdit edit(uint64_t at, const std::string& text, unsigned replace = 1) {
  PatchEdit e;
  e.at = at;
  e.asm_text = text;
  e.replace = replace;
  e.where = fmt::format("test edit at 0x{:x}", at);
  return e;
}

// Every byte that differs lies in a patched range, and every range holds its new bytes.
void expect_only_ranges_changed(const std::vector<uint8_t>& before, const PatchResult& r) {
  ASSERT_EQ(before.size(), r.image.size());
  size_t changed = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i] == r.image[i]) continue;
    ++changed;
    bool inside = false;
    for (const auto& p : r.ranges) inside |= i >= p.file_offset && i < p.file_offset + p.new_bytes.size();
    EXPECT_TRUE(inside) << fmt::format("byte 0x{:x} changed outside the patched ranges", i);
  }
  // Each range holds its new bytes, except where a later edit wrote over them.
  for (size_t k = 0; k < r.ranges.size(); ++k) {
    const auto& p = r.ranges[k];
    EXPECT_EQ(p.old_bytes.size(), p.new_bytes.size());
    for (size_t i = 0; i < p.new_bytes.size(); ++i) {
      size_t at = p.file_offset + i;
      bool overwritten = false;
      for (size_t later = k + 1; later < r.ranges.size(); ++later)
        overwritten |= at >= r.ranges[later].file_offset && at < r.ranges[later].file_offset + r.ranges[later].new_bytes.size();
      if (!overwritten) EXPECT_EQ(r.image[at], p.new_bytes[i]) << fmt::format("range {} byte {}", k, i);
    }
  }
  (void)changed;
}

void expect_refusal(const Loaded& l, const std::vector<PatchEdit>& edits, const std::string& needle,
                    const std::string& kernel = {}) {
  try {
    patch_kernel(l.bytes, l.name, kernel.empty() ? l.kernel : kernel, edits);
    ADD_FAILURE() << "no refusal; expected: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput) << e.format();
    EXPECT_NE(e.format().find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << e.format();
  }
}

class PatchArch : public ::testing::TestWithParam<std::string> {
 protected:
  // blur_gauss has data references through s_getpc_b64 on every processor.
  Loaded l = load(test::corpus_path(GetParam() + "/blur_gauss.co"));
};

TEST_P(PatchArch, ReplacementChangesOnlyItsBytes) {
  const auto* valu4 = find(l, 4, [](const Instruction& i) { return i.mnemonic.rfind("v_", 0) == 0; });
  const auto* any8 = find(l, 8);
  ASSERT_TRUE(valu4 && any8);
  auto r = patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, *valu4), "v_nop"), edit(off(l, *any8), "s_nop 3")});
  expect_only_ranges_changed(l.bytes, r);
  ASSERT_EQ(r.ranges.size(), 2u);
  EXPECT_EQ(r.ranges[0].new_text, std::vector<std::string>{"v_nop"});
  EXPECT_EQ(r.ranges[1].new_text, (std::vector<std::string>{"s_nop 3", "s_nop 0"}));  // padded
  EXPECT_EQ(r.ranges[0].old_text, std::vector<std::string>{valu4->text});
  // Decoded back: the new instructions are there, everything else is as before.
  auto after = load(test::corpus_path(GetParam() + "/blur_gauss.co"));
  after.bytes = r.image;
  auto co = CodeObject::parse(r.image, "patched");
  program::Decoder dec(co.target());
  auto insts = dec.decode_range(co.code_bytes(*co.kernel(l.kernel)), l.start);
  ASSERT_EQ(insts.size(), l.insts.size() + 1);  // the 8-byte instruction became two
  auto orig = CodeObject::parse(l.bytes, "orig");
  EXPECT_EQ(co.kernels()[0].kd, orig.kernels()[0].kd);
  EXPECT_EQ(co.metadata()->original_blob(), orig.metadata()->original_blob());
  // Re-encoding an instruction's own text changes nothing.
  auto same = patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, *valu4), valu4->text)});
  EXPECT_EQ(same.image, l.bytes);
}

TEST_P(PatchArch, DeleteWritesNops) {
  const auto* any8 = find(l, 8);
  ASSERT_TRUE(any8);
  PatchEdit e;
  e.at = off(l, *any8);
  e.delete_count = 2;
  auto r = patch_kernel(l.bytes, l.name, l.kernel, {e});
  expect_only_ranges_changed(l.bytes, r);
  for (const auto& t : r.ranges[0].new_text) EXPECT_EQ(t, "s_nop 0");
  EXPECT_EQ(r.ranges[0].new_bytes.size() % 4, 0u);
  EXPECT_EQ(r.ranges[0].old_text.size(), 2u);
}

TEST_P(PatchArch, RefusesTooLarge) {
  const auto* valu4 = find(l, 4, [](const Instruction& i) { return i.mnemonic.rfind("v_", 0) == 0; });
  ASSERT_TRUE(valu4);
  expect_refusal(l, {edit(off(l, *valu4), "v_add_f32_e64 v0, v0, v0")}, "too large: the replacement is 8 bytes");
  expect_refusal(l, {edit(off(l, *valu4), "v_nop; v_nop")}, "too large");
  // Replacing two instructions makes room (unless the second is special, which find() avoids).
  size_t i = static_cast<size_t>(valu4 - l.insts.data());
  if (!pc_relative(l.insts[i + 1]) && !l.targets.count(off(l, l.insts[i + 1])))
    EXPECT_NO_THROW(patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, *valu4), "v_nop; v_nop", 2)}));
}

TEST_P(PatchArch, RefusesToCrossABranchTarget) {
  bool tested = false;
  for (size_t i = 1; i < l.insts.size() && !tested; ++i) {
    const auto &prev = l.insts[i - 1], &at = l.insts[i];
    if (!l.targets.count(off(l, at)) || prev.size != 4 || pc_relative(prev) || pc_relative(at) || l.targets.count(off(l, prev)))
      continue;
    // An 8-byte instruction over [prev, target): the target's boundary would vanish.
    expect_refusal(l, {edit(off(l, prev), "v_add_f32_e64 v0, v0, v0", 2)}, "crosses a branch target");
    // Two 4-byte instructions keep it: allowed.
    auto r = patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, prev), "v_nop; v_nop", 2)});
    expect_only_ranges_changed(l.bytes, r);
    tested = true;
  }
  EXPECT_TRUE(tested) << "no branch target after a 4-byte instruction in " << l.name;
}

TEST_P(PatchArch, RefusesToTouchPcRelativeCode) {
  int getpc = 0;
  for (size_t i = 0; i < l.insts.size(); ++i) {
    if (l.insts[i].mnemonic != "s_getpc_b64") continue;
    ++getpc;
    // s_getpc_b64 itself, and the s_add_u32 / s_addc_u32 with the rel32 constants after it.
    expect_refusal(l, {edit(off(l, l.insts[i]), "s_nop 0")}, "PC-relative");
    expect_refusal(l, {edit(off(l, l.insts[i + 1]), "s_nop 0")}, "adds a PC-relative offset");
    expect_refusal(l, {edit(off(l, l.insts[i + 2]), "s_nop 0")}, "adds a PC-relative offset");
    // ... also when a wider edit starts before them.
    if (i > 0 && !pc_relative(l.insts[i - 1]))
      expect_refusal(l, {edit(off(l, l.insts[i - 1]), "s_nop 0", 2)}, "PC-relative");
  }
  EXPECT_GT(getpc, 0);
}

TEST_P(PatchArch, RefusesRegistersTheKernelDescriptorDoesNotAllocate) {
  auto co = CodeObject::parse(l.bytes, "x");
  const auto& kd = co.kernels()[0].kd;
  unsigned vgprs = (kd.vgpr_blocks() + 1) * 8, sgprs = (kd.sgpr_blocks() + 1) * 8;
  ASSERT_LT(vgprs, 256u);
  const auto* valu4 = find(l, 4, [](const Instruction& i) { return i.mnemonic.rfind("v_", 0) == 0; });
  const auto* any8 = find(l, 8);
  ASSERT_TRUE(valu4 && any8);
  expect_refusal(l, {edit(off(l, *valu4), "v_mov_b32 v255, 0")},
                 fmt::format("patch needs 256 VGPRs, the kernel descriptor allocates {}; use a full rebuild", vgprs));
  expect_refusal(l, {edit(off(l, *valu4), "s_mov_b32 s100, 0")},
                 fmt::format("the kernel descriptor allocates {}", sgprs));
  expect_refusal(l, {edit(off(l, *valu4), "s_mov_b32 s100, 0")}, "SGPRs");
  expect_refusal(l, {edit(off(l, *any8), "v_accvgpr_write_b32 a200, v0")}, "patch needs 201 AGPRs");
  // Registers inside the allocation are fine.
  EXPECT_NO_THROW(patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, *valu4), "v_mov_b32 v1, 0")}));
}

TEST_P(PatchArch, RefusesBadLocations) {
  expect_refusal(l, {edit(0, "s_nop 0")}, "no kernel named 'no_such_kernel' (kernels: blur_gauss5_f32)",
                 "no_such_kernel");
  const auto* any8 = find(l, 8);
  ASSERT_TRUE(any8);
  expect_refusal(l, {edit(off(l, *any8) + 4, "s_nop 0")}, "is not on an instruction boundary");
  uint64_t size = l.insts.back().address + l.insts.back().size - l.start;
  expect_refusal(l, {edit(size, "s_nop 0")}, "outside the kernel's code");
  expect_refusal(l, {edit(size + 0x100000, "s_nop 0")}, "outside the kernel's code");
  PatchEdit many = edit(off(l, l.insts.back()), "s_nop 0", 3);
  expect_refusal(l, {many}, "only 1 remain");
}

TEST_P(PatchArch, BranchesNeedExplicitValidTargets) {
  // The kernel's first conditional branch: retarget it to another instruction boundary.
  const Instruction* br = nullptr;
  for (const auto& i : l.insts)
    if (i.mnemonic == "s_cbranch_execz" && !br) br = &i;
  ASSERT_TRUE(br);
  uint64_t old_target = static_cast<uint64_t>(*br->branch_target) - l.start;
  const Instruction* other = nullptr;
  for (const auto& i : l.insts)
    if (i.address > br->address + 4 && i.address - l.start != old_target && !other) other = &i;
  ASSERT_TRUE(other);
  auto r = patch_kernel(l.bytes, l.name, l.kernel,
                        {edit(off(l, *br), fmt::format("s_cbranch_execz @0x{:x}", off(l, *other)))});
  expect_only_ranges_changed(l.bytes, r);
  auto co = CodeObject::parse(r.image, "p");
  program::Decoder dec(co.target());
  auto patched = dec.decode_one(std::span(r.ranges[0].new_bytes), br->address);
  EXPECT_EQ(static_cast<uint64_t>(*patched.branch_target), other->address);
  EXPECT_NE(r.ranges[0].new_text[0].find(fmt::format("(-> +0x{:x})", off(l, *other))), std::string::npos);

  expect_refusal(l, {edit(off(l, *br), "s_cbranch_execz 3")}, "must be given explicitly as @OFFSET");
  expect_refusal(l, {edit(off(l, *br), fmt::format("s_cbranch_execz @0x{:x}", off(l, *other) + 2))},
                 "not a multiple of 4");
  const auto* any8 = find(l, 8);
  ASSERT_TRUE(any8);
  expect_refusal(l, {edit(off(l, *br), fmt::format("s_branch @0x{:x}", off(l, *any8) + 4))},
                 "is not an instruction boundary");
  expect_refusal(l, {edit(off(l, *br), "s_branch @0x8000")}, "is not an instruction boundary");
  expect_refusal(l, {edit(off(l, *br), "s_branch @0x100000")}, "out of a 16-bit branch's range");
  expect_refusal(l, {edit(off(l, *br), "s_setpc_b64 s[0:1]")}, "indirect branches");
  expect_refusal(l, {edit(off(l, *br), "s_nop @0x4")}, "only for the targets of direct branches");
  expect_refusal(l, {edit(off(l, *br), "s_mov_b32 s0, external_symbol")}, "relocation");
  expect_refusal(l, {edit(off(l, *br), ".byte 1")}, "directive");
  expect_refusal(l, {edit(off(l, *br), "s_bogus 1")}, "invalid instruction");
}

TEST_P(PatchArch, AbsoluteAddressesAndEditFiles) {
  const auto* valu4 = find(l, 4, [](const Instruction& i) { return i.mnemonic.rfind("v_", 0) == 0; });
  ASSERT_TRUE(valu4);
  PatchEdit abs = edit(valu4->address, "v_nop");
  abs.absolute = true;
  auto a = patch_kernel(l.bytes, l.name, l.kernel, {abs});
  auto b = patch_kernel(l.bytes, l.name, l.kernel, {edit(off(l, *valu4), "v_nop")});
  EXPECT_EQ(a.image, b.image);

  const auto* any8 = find(l, 8);
  ASSERT_TRUE(any8);
  std::string yaml = fmt::format(
      "# two edits, the second sees the first\n"
      "- {{at: 0x{:x}, asm: \"v_nop\"}}\n"
      "- at: {}\n  delete: 1\n"
      "- address: 0x{:x}\n  asm: |\n    s_nop 1   // comment\n    s_nop 2\n",
      off(l, *valu4), off(l, *valu4), any8->address);
  auto edits = parse_edits_yaml(yaml, "edits.yaml");
  ASSERT_EQ(edits.size(), 3u);
  EXPECT_TRUE(edits[2].absolute);
  auto r = patch_kernel(l.bytes, l.name, l.kernel, edits);
  expect_only_ranges_changed(l.bytes, r);
  ASSERT_EQ(r.ranges.size(), 3u);
  EXPECT_EQ(r.ranges[1].old_text, std::vector<std::string>{"v_nop"});
  EXPECT_EQ(r.ranges[1].new_text, std::vector<std::string>{"s_nop 0"});
  EXPECT_EQ(r.ranges[2].new_text, (std::vector<std::string>{"s_nop 1", "s_nop 2"}));

  for (const auto& [bad, needle] : std::vector<std::pair<std::string, std::string>>{
           {"- {at: 1, asm: x, color: red}", "unknown key 'color'"},
           {"- {asm: x}", "no at:"},
           {"- {at: 0x10}", "neither asm: nor delete:"},
           {"- {at: 0x10, delete: 1, asm: x}", "cannot be combined"},
           {"- {at: ten, asm: x}", "'ten' is not a number"},
           {"at: 1", "expected a YAML list"},
           {"- [1, 2", "invalid YAML"},
           {"[]", "lists no edits"}}) {
    try {
      parse_edits_yaml(bad, "e.yaml");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(e.format().find(needle), std::string::npos) << e.format();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, PatchArch, ::testing::Values("gfx90a", "gfx942", "gfx950", "gfx942/v4", "gfx90a/v6"),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '/', '_');
                           return s;
                         });

// A text relocation (a .quad of a preemptible symbol inside the kernel's code, linked with
// -z notext): none of the relocated bytes may be patched; the instructions around them may.
TEST(Patch, RefusesBytesARelocationWrites) {
  const char* text = R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_nop 0
	.quad gdata
	v_mov_b32 v0, 0
	s_endpgm
.Lk_end:
	.size k, .Lk_end-k
	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.data
	.globl gdata
	.type gdata,@object
gdata:
	.long 5
	.size gdata, 4
)";
  auto target = *codeobj::parse_target_id("gfx942");
  LinkOptions o;
  o.extra_args = {"-z", "notext"};
  Loaded l;
  l.bytes = link_code_object({assemble_object(text, target, "rel.s")}, "rel.co", o);
  l.name = "rel.co";
  l.kernel = "k";
  ASSERT_FALSE(CodeObject::parse(l.bytes, "rel.co").elf().relocations().empty());
  expect_refusal(l, {edit(4, "s_nop 1")}, "a relocation (type 3) at +0x4");
  expect_refusal(l, {edit(8, "s_nop 1")}, "a relocation (type 3) at +0x4");
  auto r = patch_kernel(l.bytes, l.name, l.kernel, {edit(0, "s_nop 1"), edit(12, "v_mov_b32 v0, 1")});
  expect_only_ranges_changed(l.bytes, r);
}

// Every kernel of every corpus code object (HIP all archs and code-object versions, Triton): the
// first instruction that may be deleted is, and nothing else in the file changes. Refusals on the
// way may only be for PC-relative code.
TEST(PatchCorpus, EveryKernelAcceptsADeleteAndKeepsEveryOtherByte) {
  auto files = testing::corpus_files(ASMEVO_SOURCE_DIR, ASMEVO_BINARY_DIR);
  size_t kernels = 0, files_seen = 0;
  for (const auto& f : files) {
    if (f.kind != "co" && f.kind != "triton") continue;
    ++files_seen;
    auto bytes = test::read_bytes(f.path);
    auto co = CodeObject::parse(bytes, f.label);
    for (const auto& k : co.kernels()) {
      SCOPED_TRACE(f.label + ": " + k.name);
      Loaded l = load(f.path, k.name);
      bool done = false;
      for (size_t i = 0; i < l.insts.size() && i < 40 && !done; ++i) {
        PatchEdit e;
        e.at = off(l, l.insts[i]);
        e.delete_count = 1;
        try {
          auto r = patch_kernel(bytes, f.label, k.name, {e});
          expect_only_ranges_changed(bytes, r);
          EXPECT_NE(r.image, bytes);
          done = true;
        } catch (const Error& err) {
          EXPECT_NE(err.what_text().find("PC-relative"), std::string::npos) << err.format();
        }
      }
      EXPECT_TRUE(done);
      ++kernels;
    }
  }
  EXPECT_GT(files_seen, 150u);
  EXPECT_GT(kernels, 150u);
}

// The command: exit codes, the input left alone, the output written only on success.
TEST(PatchCli, ExitCodesAndFiles) {
  auto l = load(test::corpus_path("gfx942/blur_gauss.co"));
  const auto* valu4 = find(l, 4, [](const Instruction& i) { return i.mnemonic.rfind("v_", 0) == 0; });
  ASSERT_TRUE(valu4);
  auto dir = test::scratch_dir("patch_cli");
  auto in = dir / "in.co";
  test::write_bytes(in, l.bytes);
  auto out = dir / "out.co";
  std::string text;
  int rc = test::run(fmt::format("{} patch {} --kernel {} --at 0x{:x} --asm 'v_nop' -o {} --json", ASMEVO_CLI,
                                 in.string(), l.kernel, off(l, *valu4), out.string()),
                     &text);
  ASSERT_EQ(rc, 0) << text;
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema"], "asmevo.patch/1");
  EXPECT_EQ(j["edits"][0]["new"][0], "v_nop");
  EXPECT_EQ(test::read_bytes(in), l.bytes);
  auto patched = test::read_bytes(out);
  size_t diff = 0;
  for (size_t i = 0; i < patched.size(); ++i) diff += patched[i] != l.bytes[i];
  EXPECT_GT(diff, 0u);
  EXPECT_LE(diff, 4u);

  auto refused = dir / "refused.co";
  rc = test::run(fmt::format("{} patch {} --kernel {} --at 0x{:x} --asm 'v_add_f32_e64 v0, v0, v0' -o {}", ASMEVO_CLI,
                             in.string(), l.kernel, off(l, *valu4), refused.string()),
                 &text);
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("too large"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(refused));
  rc = test::run(fmt::format("{} patch {} --kernel nope --at 0 --asm 's_nop 0' -o {}", ASMEVO_CLI, in.string(),
                             refused.string()),
                 &text);
  EXPECT_EQ(rc, 2) << text;
  rc = test::run(fmt::format("{} patch {} --kernel {} --at 0 -o {}", ASMEVO_CLI, in.string(), l.kernel, refused.string()),
                 &text);
  EXPECT_EQ(rc, 2) << text;
  rc = test::run(fmt::format("{} patch {} --kernel {} --at 0x{:x} --asm v_nop -o {}", ASMEVO_CLI, in.string(), l.kernel,
                             off(l, *valu4), in.string()),
                 &text);
  EXPECT_EQ(rc, 2) << text;
  EXPECT_NE(text.find("overwrite the input"), std::string::npos) << text;
  EXPECT_EQ(test::read_bytes(in), l.bytes);
}

}  // namespace
}  // namespace asmevo::rebuild
