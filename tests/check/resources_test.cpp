// Resource rules (check/resources.h) on whole code objects built with llvm-mc + ld.lld: each rule
// with a violating kernel and the same kernel with enough resources.
#include <gtest/gtest.h>

#include <set>

#include "check/check.h"
#include "tests/check/check_test_util.h"

namespace asmevo::check {
namespace {

using test::assemble_kernel;
using test::KernelSpec;

std::set<std::string> rules(const CheckReport& r) {
  std::set<std::string> s;
  for (const auto& v : r.violations) s.insert(v.rule);
  return s;
}

CheckReport check(const std::string& body, const std::string& cpu, const KernelSpec& spec, CheckOptions opts = {}) {
  opts.waitcnt = opts.hazards = false;
  return check_code_object(assemble_kernel(body, cpu, spec), opts);
}

TEST(ResourcesTest, VgprsWithinTheArchitecturalAllocation) {
  KernelSpec small;
  small.next_free_vgpr = 8;
  small.accum_offset = 8;
  for (const char* cpu : {"gfx90a", "gfx942", "gfx950"}) {
    auto r = check("v_mov_b32_e32 v10, 0", cpu, small);
    ASSERT_EQ(rules(r), std::set<std::string>{"resources.vgpr"}) << cpu << r.to_text();
    EXPECT_EQ(r.violations[0].text, "v_mov_b32_e32 v10, 0");
    EXPECT_TRUE(check("v_mov_b32_e32 v7, 0", cpu, small).clean());
  }
}

TEST(ResourcesTest, AgprsWithinTheirBlock) {
  KernelSpec spec;
  spec.next_free_vgpr = 16;  // unified allocation of 16 ...
  spec.accum_offset = 8;     // ... of which v0..v7 are architectural, a0..a7 accumulation
  auto r = check("v_accvgpr_write_b32 a8, 0", "gfx942", spec);
  EXPECT_EQ(rules(r), std::set<std::string>{"resources.agpr"}) << r.to_text();
  EXPECT_TRUE(check("v_accvgpr_write_b32 a7, 0", "gfx942", spec).clean());
  // AGPR use also takes VGPRs beyond accum_offset away from the architectural file.
  EXPECT_EQ(rules(check("v_mov_b32_e32 v8, 0", "gfx942", spec)), std::set<std::string>{"resources.vgpr"});
}

TEST(ResourcesTest, SgprsBelowTheReservedTop) {
  KernelSpec spec;
  spec.next_free_sgpr = 16;
  auto r = check("s_mov_b32 s60, 0", "gfx942", spec);
  EXPECT_EQ(rules(r), std::set<std::string>{"resources.sgpr"}) << r.to_text();
  EXPECT_TRUE(check("s_mov_b32 s15, 0", "gfx942", spec).clean());
}

TEST(ResourcesTest, LdsOffsetBeyondTheProcessorLimit) {
  KernelSpec spec;
  spec.group_segment = 65536;
  auto r = check("ds_read_b64 v[0:1], v2 offset:65535", "gfx942", spec);  // 64 KiB on gfx942
  EXPECT_EQ(rules(r), std::set<std::string>{"resources.lds-offset-limit"}) << r.to_text();
  EXPECT_TRUE(check("ds_read_b32 v0, v2 offset:65532", "gfx942", spec).clean());
  EXPECT_TRUE(check("ds_read_b64 v[0:1], v2 offset:65535", "gfx950", spec).clean());  // 160 KiB on gfx950
  EXPECT_EQ(rules(check("ds_read2st64_b64 v[0:3], v2 offset1:255", "gfx942", spec)),
            std::set<std::string>{"resources.lds-offset-limit"});  // 255 * 512 + 8
}

TEST(ResourcesTest, LdsOffsetBeyondTheAllocationWhenTheLaunchIsKnown) {
  KernelSpec spec;
  spec.group_segment = 1024;
  const std::string body = "ds_write_b32 v0, v1 offset:1024";
  EXPECT_TRUE(check(body, "gfx942", spec).clean());  // dynamic LDS unknown: may be fine
  CheckOptions none;
  none.dynamic_lds = 0;
  EXPECT_EQ(rules(check(body, "gfx942", spec, none)), std::set<std::string>{"resources.lds-offset"});
  CheckOptions some;
  some.dynamic_lds = 64;
  EXPECT_TRUE(check(body, "gfx942", spec, some).clean());
  KernelSpec zero;
  EXPECT_EQ(rules(check("ds_read_b32 v0, v1", "gfx942", zero, none)), std::set<std::string>{"resources.lds-offset"});
  EXPECT_TRUE(check("ds_bpermute_b32 v0, v1, v2", "gfx942", zero, none).clean());  // no LDS memory access
}

TEST(ResourcesTest, ScratchNeedsAPrivateSegment) {
  KernelSpec none;
  auto r = check("scratch_load_dword v0, off, off offset:16", "gfx942", none);
  EXPECT_EQ(rules(r), std::set<std::string>{"resources.scratch"}) << r.to_text();
  KernelSpec enough;
  enough.private_segment = 64;
  EXPECT_TRUE(check("scratch_load_dword v0, off, off offset:16", "gfx942", enough).clean());
  KernelSpec small;
  small.private_segment = 16;
  EXPECT_EQ(rules(check("scratch_load_dword v0, off, off offset:16", "gfx942", small)),
            std::set<std::string>{"resources.scratch"});
  KernelSpec dynamic;
  dynamic.dynamic_stack = true;
  EXPECT_TRUE(check("scratch_load_dword v0, off, off offset:16", "gfx942", dynamic).clean());
}

}  // namespace
}  // namespace asmevo::check
