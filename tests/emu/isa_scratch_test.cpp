// SCRATCH (flat scratch) and MUBUF private-segment accesses (emu/semantics/scratch.cpp, mubuf.cpp):
// round trips, the per-dword swizzled layout of private memory (dword k of lane l at
// FLAT_SCRATCH + k * 256 + l * 4), agreement between scratch_* and buffer_* through the private
// segment buffer V# (gfx90a), separate memory per wave, and faults beyond the private size.
// These kernels need a private segment, which run_snippet's kernel lacks, so this file assembles
// its own (same llvm-mc-22 + ld.lld-22 flow as emu_test_util.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

int sh(const std::string& cmd, std::string& out) {
  out.clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return pclose(p);
}

// One workgroup of `block` work-items with 64 bytes of private memory per lane. gfx90a: s[0:3] =
// private segment buffer V#, s9 = wave offset, FLAT_SCRATCH set from flat_scratch_init as compiled
// code does; gfx942/gfx950: architected flat scratch. s[20:21] = out. Stores v10.. v(10+R-1) of each
// work-item to out[id * R + k].
std::vector<uint32_t> run_private(const std::string& arch, const std::string& body, unsigned R, unsigned block = 64) {
  bool g90a = arch == "gfx90a";
  std::string pro = g90a ? R"(
  s_add_u32 flat_scratch_lo, s6, s9
  s_addc_u32 flat_scratch_hi, s7, 0
  s_load_dwordx2 s[20:21], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
)"
                         : R"(
  s_load_dwordx2 s[20:21], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
)";
  std::string epi = fmt::format("  v_mov_b32 v102, {}\n  v_mul_u32_u24 v100, v102, v0\n", 4 * R);
  for (unsigned k = 0; k < R; ++k) epi += fmt::format("  global_store_dword v100, v{}, s[20:21] offset:{}\n", 10 + k, 4 * k);
  std::string kd = g90a ? R"(
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_flat_scratch_init 1
    .amdhsa_user_sgpr_count 8
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1)"
                        : R"(
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_enable_private_segment 1)";
  std::string src = fmt::format(R"(
  .amdgcn_target "amdgcn-amd-amdhsa--{0}"
  .text
  .globl k
  .p2align 8
  .type k,@function
k:
{1}
{2}
{3}
  s_endpgm
.Lk_end:
  .size k, .Lk_end-k
  .rodata
  .p2align 6
  .amdhsa_kernel k{4}
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_private_segment_fixed_size 64
    .amdhsa_next_free_vgpr 128
    .amdhsa_next_free_sgpr 96
    .amdhsa_accum_offset 128
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 64
    .wavefront_size: 64
    .sgpr_count: 96
    .vgpr_count: 128
    .max_flat_workgroup_size: 1024
    .args:
      - {{ .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
  .end_amdgpu_metadata
)",
                                arch, pro, body, epi, kd);
  char tmpl[] = "/tmp/asmevo-scratch-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/k.s") << src;
  std::string out;
  if (sh(fmt::format("{} -triple=amdgcn-amd-amdhsa -mcpu={} -filetype=obj {}/k.s -o {}/k.o", ASMEVO_LLVM_MC, arch, dir, dir), out))
    throw std::runtime_error("llvm-mc failed:\n" + out + "\n" + src);
  if (sh(fmt::format("{} -shared {}/k.o -o {}/k.co", ASMEVO_LD_LLD, dir, dir), out)) throw std::runtime_error("ld.lld failed:\n" + out);
  auto bytes = read_file_bytes(dir + "/k.co");
  std::filesystem::remove_all(dir);
  auto co = codeobj::CodeObject::parse(bytes, "scratch-" + arch);
  const codeobj::Kernel* k = co.kernel("k");
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  LaunchSpec spec = parse_launch_spec_text(fmt::format(
      "kernel: k\ngrid: [1, 1, 1]\nblock: [{}, 1, 1]\nargs:\n  - {{name: out, buffer: u32, count: {}}}\n", block, block * R));
  auto launch = prepare_launch(co, *k, spec, 1);
  run_launch(*launch, *prog, RunOptions{});
  auto b = launch->contents(launch->buffers[0]);
  std::vector<uint32_t> r(b.size() / 4);
  std::memcpy(r.data(), b.data(), b.size());
  return r;
}

const char* kArchs[] = {"gfx90a", "gfx942", "gfx950"};

TEST(EmuScratch, RoundTripTwoWaves) {
  for (const char* arch : kArchs) {
    const unsigned R = 5;
    auto r = run_private(arch, R"(
  v_add_u32 v2, 100, v0
  v_mov_b32 v3, 4
  scratch_store_dword v3, v2, off offset:8          // private offset 12
  v_add_u32 v4, 200, v0
  v_add_u32 v5, 0x12c, v0
  v_mov_b32 v6, 16
  scratch_store_dwordx2 v6, v[4:5], off             // offsets 16, 20
  s_mov_b32 s30, 4
  s_waitcnt vmcnt(0)
  scratch_load_dword v10, v3, off offset:8
  scratch_load_dword v11, off, s30 offset:16        // 20
  scratch_load_dwordx2 v[12:13], v6, off
  v_mov_b32 v14, 0x11112222
  scratch_load_short_d16_hi v14, v6, off offset:4   // low 16 bits of 300 + id into the high half
  s_waitcnt vmcnt(0)
)",
                         R, 128);
    for (unsigned id = 0; id < 128; ++id) {
      SCOPED_TRACE(fmt::format("{} work-item {}", arch, id));
      EXPECT_EQ(r[id * R + 0], 100 + id);
      EXPECT_EQ(r[id * R + 1], 300 + id);
      EXPECT_EQ(r[id * R + 2], 200 + id);
      EXPECT_EQ(r[id * R + 3], 300 + id);
      EXPECT_EQ(r[id * R + 4], ((300 + id) << 16) | 0x2222u);
    }
  }
}

TEST(EmuScratch, SwizzledLayoutInMemory) {
  // Private dword k of lane l lives at FLAT_SCRATCH + k * 256 + l * 4 (ISA: scratch is interleaved
  // per dword across the wave); read it back with a global load from the FLAT_SCRATCH base.
  for (const char* arch : kArchs) {
    auto r = run_private(arch, R"(
  v_add_u32 v2, 7, v0
  v_mov_b32 v3, 8
  scratch_store_dword v3, v2, off                 // private offset 8 = dword 2
  s_waitcnt vmcnt(0)
  s_mov_b64 s[30:31], flat_scratch
  v_lshlrev_b32 v4, 2, v0
  global_load_dword v10, v4, s[30:31] offset:512
  s_waitcnt vmcnt(0)
)",
                         1);
    for (unsigned l = 0; l < 64; ++l) EXPECT_EQ(r[l], 7 + l) << arch << " lane " << l;
  }
}

TEST(EmuScratch, MubufPrivateSegmentMatchesScratch) {
  // gfx90a: buffer_* through the private segment buffer V# (swizzle, add_tid, soffset = wave
  // offset) and scratch_* through FLAT_SCRATCH address the same bytes.
  auto r = run_private("gfx90a", R"(
  v_add_u32 v2, 40, v0
  buffer_store_dword v2, off, s[0:3], s9 offset:24
  v_add_u32 v3, 80, v0
  v_mov_b32 v4, 28
  scratch_store_dword v4, v3, off
  s_waitcnt vmcnt(0)
  v_mov_b32 v5, 0
  scratch_load_dword v10, v5, off offset:24
  buffer_load_dword v11, off, s[0:3], s9 offset:28
  s_waitcnt vmcnt(0)
)",
                       2, 128);
  for (unsigned id = 0; id < 128; ++id) {
    EXPECT_EQ(r[id * 2], 40 + id) << id;
    EXPECT_EQ(r[id * 2 + 1], 80 + id) << id;
  }
}

TEST(EmuScratch, BeyondPrivateSizeFaults) {
  for (const char* arch : kArchs) {
    try {
      run_private(arch, R"(
  v_mov_b32 v3, 64
  scratch_store_dword v3, v0, off                 // private size is 64 bytes
  s_waitcnt vmcnt(0)
  v_mov_b32 v10, 0
)",
                  1);
      ADD_FAILURE() << arch << ": no fault";
    } catch (const Error& e) {
      EXPECT_NE(e.format().find("scratch"), std::string::npos) << e.format();
      EXPECT_NE(e.format().find("memory fault"), std::string::npos) << e.format();
    }
  }
}

}  // namespace
}  // namespace asmevo::emu::test
