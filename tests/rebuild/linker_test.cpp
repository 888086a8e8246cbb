// The in-process linker (rebuild/linker.h): lld's ELF driver as a library, many times in one
// process, from several threads, with errors, and with more than one input object.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <thread>

#include "rebuild/assembler.h"
#include "rebuild/linker.h"
#include "codeobj/code_object.h"
#include "support/error.h"
#include "tests/rebuild/rebuild_test_util.h"

namespace asmevo::rebuild {
namespace {

using codeobj::CodeObject;

codeobj::TargetId gfx942() { return *codeobj::parse_target_id("gfx942"); }

std::vector<uint8_t> tiny_object(const std::string& arch = "gfx942") {
  const auto& c = test::clang_tiny_kernels(arch);
  return assemble_object(c.assembly, CodeObject::parse(c.code_object, "c").target(), "tiny.s");
}

// A kernel calling `callee`, which another object defines.
const char* kCaller = R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl caller
	.p2align 8
	.type caller,@function
caller:
	s_getpc_b64 s[4:5]
	s_add_u32 s4, s4, callee@rel32@lo+4
	s_addc_u32 s5, s5, callee@rel32@hi+12
	s_swappc_b64 s[30:31], s[4:5]
	s_endpgm
.Lcaller_end:
	.size caller, .Lcaller_end-caller
	.rodata
	.p2align 6
	.amdhsa_kernel caller
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
)";
const char* kCallee = R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl callee
	.protected callee
	.p2align 2
	.type callee,@function
callee:
	s_setpc_b64 s[30:31]
.Lcallee_end:
	.size callee, .Lcallee_end-callee
)";

TEST(Linker, ArgumentsAreClangsDeviceLink) {
  // What clang++-22 passes to ld.lld for a HIP device-only compile (the LTO plugin options only
  // matter for bitcode inputs).
  std::string out;
  ASSERT_EQ(test::run(fmt::format("{} -### -x hip -nogpulib --offload-arch=gfx942 --offload-device-only "
                                  "--no-gpu-bundle-output {}/tests/rebuild/tiny_kernels.hip -o x.co",
                                  ASMEVO_CLANGXX, ASMEVO_SOURCE_DIR),
                      &out),
            0)
      << out;
  std::string lld_line;
  for (size_t p = 0, e; p < out.size(); p = e + 1) {
    e = out.find('\n', p);
    if (e == std::string::npos) e = out.size();
    std::string line = out.substr(p, e - p);
    if (line.find("\"-flavor\" \"gnu\"") != std::string::npos) lld_line = line;
  }
  ASSERT_FALSE(lld_line.empty()) << out;
  auto args = link_arguments({"in.o"}, "out.co", {});
  for (const std::string a : {"-m", "elf64_amdgpu", "--no-undefined", "-shared"}) {
    EXPECT_NE(lld_line.find("\"" + a + "\""), std::string::npos) << a << " not in " << lld_line;
    EXPECT_NE(std::find(args.begin(), args.end(), a), args.end()) << a;
  }
}

TEST(Linker, TwentyLinksInARowGiveTheSameCodeObject) {
  auto obj = tiny_object();
  auto first = link_code_object({obj}, "tiny.co");
  (void)CodeObject::parse(first, "tiny.co");
  for (int i = 0; i < 20; ++i) ASSERT_EQ(link_code_object({obj}, "tiny.co"), first) << "link " << i;
}

TEST(Linker, ConcurrentCallersAreSerialised) {
  std::vector<std::vector<uint8_t>> objs = {tiny_object("gfx90a"), tiny_object("gfx942"), tiny_object("gfx950")};
  std::vector<std::vector<uint8_t>> expected;
  for (const auto& o : objs) expected.push_back(link_code_object({o}, "tiny.co"));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        size_t k = static_cast<size_t>(t + i) % objs.size();
        if (link_code_object({objs[k]}, "tiny.co") != expected[k]) ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// (`callee` must not be preemptible: with default visibility lld refuses the rel32 pair,
// "relocation R_AMDGPU_REL32_LO cannot be used against symbol 'callee'; recompile with -fPIC".
// clang gives device functions hidden or protected visibility.)
TEST(Linker, TwoObjectsResolveACall) {
  auto co = link_code_object({assemble_object(kCaller, gfx942(), "caller.s"), assemble_object(kCallee, gfx942(), "callee.s")},
                             "two.co");
  auto c = CodeObject::parse(co, "two.co");
  ASSERT_NE(c.kernel("caller"), nullptr);
  ASSERT_EQ(c.device_functions().size(), 1u);
  EXPECT_EQ(c.device_functions()[0].name, "callee");
  // The call's rel32 pair now holds callee - (address after s_getpc_b64) (+4 / +12 addends).
  const auto* k = c.kernel("caller");
  auto code = c.code_bytes(*k);
  auto u32 = [&](size_t o) { return uint32_t(code[o]) | uint32_t(code[o + 1]) << 8 | uint32_t(code[o + 2]) << 16 | uint32_t(code[o + 3]) << 24; };
  uint64_t lo = u32(8), hi = u32(16);
  int64_t rel = static_cast<int64_t>((hi << 32) | lo);
  EXPECT_EQ(static_cast<int64_t>(k->code_address) + 4 + rel, static_cast<int64_t>(c.device_functions()[0].address));
}

TEST(Linker, UndefinedSymbolIsAnErrorAndLldRunsAgainAfterIt) {
  auto caller = assemble_object(kCaller, gfx942(), "caller.s");
  try {
    link_code_object({caller}, "undef.co");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "undef.co");
    EXPECT_NE(e.what_text().find("undefined symbol: callee"), std::string::npos) << e.what_text();
    EXPECT_NE(e.what_text().find("<object 0>"), std::string::npos) << e.what_text();
    EXPECT_EQ(e.what_text().find("asmevo-link-"), std::string::npos) << "temp paths leak into messages";
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
  // Garbage input: lld refuses it, and still works afterwards.
  EXPECT_THROW(link_code_object({{1, 2, 3}}, "junk.co"), Error);
  EXPECT_THROW(link_code_object({}, "none.co"), Error);
  auto co = link_code_object({tiny_object()}, "tiny.co");
  EXPECT_NO_THROW(CodeObject::parse(co, "tiny.co"));
}

TEST(Linker, TemporaryFilesAreRemoved) {
  auto dir = test::scratch_dir("linker_tmp");
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  // Inputs first: clang and the scratch directories honour TMPDIR too.
  auto obj = tiny_object();
  auto caller = assemble_object(kCaller, gfx942(), "caller.s");
  ::setenv("TMPDIR", dir.c_str(), 1);
  EXPECT_NO_THROW(link_code_object({obj}, "tiny.co"));
  EXPECT_THROW(link_code_object({caller}, "undef.co"), Error);
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "left behind in " << dir;
}

TEST(Linker, ExtraArgumentsArePassed) {
  LinkOptions o;
  o.extra_args = {"--no-such-lld-option"};
  try {
    link_code_object({tiny_object()}, "x.co", o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.what_text().find("no-such-lld-option"), std::string::npos) << e.what_text();
  }
}

}  // namespace
}  // namespace asmevo::rebuild
