// abi-diff (rebuild/abi_diff.h): identical objects are compatible; launch-setup KD changes,
// kernarg changes, kernel-set, target and code-object-version differences are breaks; resource
// changes are reported but compatible.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "rebuild/abi_diff.h"
#include "codeobj/code_object.h"
#include "tests/rebuild/rebuild_test_util.h"

namespace asmevo::rebuild {
namespace {

using codeobj::CodeObject;

CodeObject corpus(const std::string& rel) {
  return CodeObject::parse(test::read_bytes(test::corpus_path(rel)), rel);
}

bool has(const std::vector<AbiFinding>& v, const std::string& field, const std::string& kernel = {}) {
  for (const auto& f : v)
    if (f.field == field && (kernel.empty() || f.kernel == kernel)) return true;
  return false;
}

std::string dump(const AbiDiff& d) { return d.to_text("A", "B"); }

// A copy of `co` with kernel 0's KD changed by `edit`.
CodeObject with_kd(const CodeObject& co, const std::function<void(codeobj::KernelDescriptor&)>& edit) {
  CodeObject copy = CodeObject::parse(co.write(), "B");
  auto kd = copy.kernels()[0].kd;
  edit(kd);
  copy.write_kernel_descriptor(copy.kernels()[0].name, kd);
  return CodeObject::parse(copy.write(), "B");
}

class AbiDiffArch : public ::testing::TestWithParam<std::string> {};

TEST_P(AbiDiffArch, IdenticalIsCompatible) {
  auto a = corpus(GetParam() + "/softmax.co");
  auto b = corpus(GetParam() + "/softmax.co");
  auto d = abi_diff(a, b);
  EXPECT_TRUE(d.compatible()) << dump(d);
  EXPECT_TRUE(d.changes.empty()) << dump(d);
}

TEST_P(AbiDiffArch, UserSgprCountIsABreak) {
  auto a = corpus(GetParam() + "/softmax.co");
  auto b = with_kd(a, [](auto& kd) { kd.set("compute_pgm_rsrc2.user_sgpr_count", kd.user_sgpr_count() + 2); });
  auto d = abi_diff(a, b);
  EXPECT_FALSE(d.compatible());
  ASSERT_EQ(d.breaks.size(), 1u) << dump(d);
  EXPECT_EQ(d.breaks[0].field, "compute_pgm_rsrc2.user_sgpr_count");
  EXPECT_EQ(d.breaks[0].kernel, a.kernels()[0].name);
  EXPECT_EQ(d.breaks[0].b, std::to_string(a.kernels()[0].kd.user_sgpr_count() + 2));
}

TEST_P(AbiDiffArch, VgprCountIsAReportedChange) {
  auto a = corpus(GetParam() + "/softmax.co");
  auto b = with_kd(a, [](auto& kd) {
    kd.set("compute_pgm_rsrc1.granulated_workitem_vgpr_count", kd.vgpr_blocks() + 1);
  });
  auto d = abi_diff(a, b);
  EXPECT_TRUE(d.compatible()) << dump(d);
  ASSERT_EQ(d.changes.size(), 1u) << dump(d);
  EXPECT_EQ(d.changes[0].field, "compute_pgm_rsrc1.granulated_workitem_vgpr_count");
  EXPECT_NE(d.changes[0].message.find("VGPRs allocated"), std::string::npos);
}

TEST_P(AbiDiffArch, FloatModeAndOtherLaunchFieldsAreBreaks) {
  auto a = corpus(GetParam() + "/softmax.co");
  for (const std::string field :
       {"compute_pgm_rsrc1.float_denorm_mode_32", "compute_pgm_rsrc1.enable_ieee_mode", "compute_pgm_rsrc2.enable_vgpr_workitem_id",
        "compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", "kernel_code_properties.enable_sgpr_dispatch_ptr",
        "kernel_code_properties.uses_dynamic_stack", "compute_pgm_rsrc2.enable_private_segment", "kernarg_preload.length"}) {
    SCOPED_TRACE(field);
    auto b = with_kd(a, [&](auto& kd) { kd.set(field, kd.get(field) ^ 1); });
    auto d = abi_diff(a, b);
    EXPECT_FALSE(d.compatible());
    EXPECT_TRUE(has(d.breaks, field)) << dump(d);
  }
  auto b = with_kd(a, [](auto& kd) { kd.group_segment_fixed_size += 256; kd.private_segment_fixed_size += 16; });
  auto d = abi_diff(a, b);
  EXPECT_TRUE(d.compatible()) << dump(d);
  EXPECT_TRUE(has(d.changes, "group_segment_fixed_size"));
  EXPECT_TRUE(has(d.changes, "private_segment_fixed_size"));
  b = with_kd(a, [](auto& kd) { kd.kernarg_size += 8; });
  EXPECT_TRUE(has(abi_diff(a, b).breaks, "kernarg_size"));
}

TEST_P(AbiDiffArch, DifferentKernelSetIsABreak) {
  auto a = corpus(GetParam() + "/softmax.co");
  auto b = corpus(GetParam() + "/relu.co");
  auto d = abi_diff(a, b);
  EXPECT_FALSE(d.compatible());
  EXPECT_TRUE(has(d.breaks, "kernels", a.kernels()[0].name)) << dump(d);
  EXPECT_TRUE(has(d.breaks, "kernels", b.kernels()[0].name)) << dump(d);
}

TEST_P(AbiDiffArch, KernargMetadataChangeIsABreak) {
  auto a = corpus(GetParam() + "/softmax.co");
  CodeObject b = CodeObject::parse(a.write(), "B");
  auto md = *b.metadata();
  const auto& k = md.kernels()[0];
  md.set_kernel_uint(k.name, ".kernarg_segment_size", k.kernarg_segment_size + 8);
  b.write_metadata(md);
  b = CodeObject::parse(b.write(), "B");
  auto d = abi_diff(a, b);
  EXPECT_FALSE(d.compatible());
  EXPECT_TRUE(has(d.breaks, ".kernarg_segment_size")) << dump(d);
  // The metadata's register counts are resources.
  CodeObject c = CodeObject::parse(a.write(), "C");
  auto md2 = *c.metadata();
  md2.set_kernel_uint(k.name, ".vgpr_count", k.vgpr_count + 1);
  c.write_metadata(md2);
  c = CodeObject::parse(c.write(), "C");
  d = abi_diff(a, c);
  EXPECT_TRUE(d.compatible()) << dump(d);
  EXPECT_TRUE(has(d.changes, ".vgpr_count")) << dump(d);
}

INSTANTIATE_TEST_SUITE_P(Archs, AbiDiffArch, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST(AbiDiff, TargetAndCodeObjectVersionAreBreaks) {
  auto d = abi_diff(corpus("gfx90a/softmax.co"), corpus("gfx942/softmax.co"));
  EXPECT_TRUE(has(d.breaks, "target")) << dump(d);
  d = abi_diff(corpus("gfx942/v4/softmax.co"), corpus("gfx942/softmax.co"));
  EXPECT_TRUE(has(d.breaks, "code_object_version")) << dump(d);
  // Separate compiles carry different HIP compilation-unit IDs: reported, not a break.
  for (const auto& f : d.breaks) EXPECT_EQ(f.field.find("__hip_cuid_"), std::string::npos) << dump(d);
  bool cuid_change = false;
  for (const auto& f : d.changes) cuid_change |= f.field.find("symbol __hip_cuid_") == 0;
  EXPECT_TRUE(cuid_change) << dump(d);
}

TEST(AbiDiff, EveryKdFieldIsClassified) {
  std::set<std::string> classified;
  for (const auto& r : kd_field_rules()) classified.insert(r.field);
  for (const auto& f : codeobj::kd_bit_fields()) EXPECT_TRUE(classified.count(f.name)) << f.name;
  for (const std::string m : {"group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
                              "kernel_code_entry_byte_offset"})
    EXPECT_TRUE(classified.count(m)) << m;
}

TEST(AbiDiffCli, ExitCodesAndJson) {
  auto dir = test::scratch_dir("abi_cli");
  auto a = corpus("gfx942/softmax.co");
  test::write_bytes(dir / "a.co", a.write());
  test::write_bytes(dir / "vgpr.co", with_kd(a, [](auto& kd) {
                      kd.set("compute_pgm_rsrc1.granulated_workitem_vgpr_count", kd.vgpr_blocks() + 1);
                    }).write());
  test::write_bytes(dir / "usgpr.co", with_kd(a, [](auto& kd) {
                      kd.set("compute_pgm_rsrc2.user_sgpr_count", kd.user_sgpr_count() + 1);
                    }).write());
  std::string out;
  EXPECT_EQ(test::run(fmt::format("{} abi-diff {} {}", ASMEVO_CLI, (dir / "a.co").string(), (dir / "a.co").string()), &out), 0)
      << out;
  EXPECT_NE(out.find("compatible (0 breaks, 0 changes)"), std::string::npos) << out;
  EXPECT_EQ(test::run(fmt::format("{} abi-diff {} {}", ASMEVO_CLI, (dir / "a.co").string(), (dir / "vgpr.co").string()), &out), 0)
      << out;
  EXPECT_NE(out.find("change: kernel"), std::string::npos) << out;
  EXPECT_NE(out.find("VGPRs allocated"), std::string::npos) << out;
  EXPECT_EQ(test::run(fmt::format("{} abi-diff --json {} {}", ASMEVO_CLI, (dir / "a.co").string(), (dir / "usgpr.co").string()), &out), 1)
      << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.abi-diff/1");
  EXPECT_EQ(j["compatible"], false);
  EXPECT_EQ(j["breaks"][0]["field"], "compute_pgm_rsrc2.user_sgpr_count");
  EXPECT_EQ(test::run(fmt::format("{} abi-diff {} /nonexistent.co", ASMEVO_CLI, (dir / "a.co").string()), &out), 2) << out;
}

}  // namespace
}  // namespace asmevo::rebuild
