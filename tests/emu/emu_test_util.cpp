#include "tests/emu/emu_test_util.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <unistd.h>

#include "codeobj/code_object.h"
#include "corpus/reference/reference.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"
#include "corpus/index/corpus.h"

namespace fs = std::filesystem;

namespace asmevo::emu::test {
namespace {

std::string run_cmd(const std::string& cmd, int& rc) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  rc = pclose(p);
  return out;
}

}  // namespace

std::string expect_error(const std::string& arch, const std::string& body) {
  try {
    run_snippet(arch, body, 1);
  } catch (const Error& e) {
    return e.format();
  }
  return "(no error)";
}

const char* const kLaneAddr = R"(
  v_lshlrev_b32_e32 v30, 2, v0
  v_mov_b32 v31, s3
  v_add_co_u32_e32 v30, vcc, s2, v30
  v_addc_co_u32_e32 v31, vcc, 0, v31, vcc
)";

std::string source_dir() { return ASMEVO_SOURCE_DIR; }
std::string corpus_hip_dir() {
  // This build's corpus first (emu_tests depends on asmevo_corpus_hip), then the usual build folders.
  for (std::string b : {std::string(ASMEVO_BINARY_DIR), std::string(ASMEVO_SOURCE_DIR) + "/out",
                        std::string(ASMEVO_SOURCE_DIR) + "/build-corpus"})
    if (std::filesystem::exists(b + "/corpus/hip/gfx942/vector_add.co")) return b + "/corpus/hip";
  return std::string(ASMEVO_BINARY_DIR) + "/corpus/hip";
}

std::vector<uint8_t> assemble_kernel(const std::string& arch, const std::string& body, unsigned results,
                                     const std::string& extra_text, unsigned agprs) {
  std::string epi = "  s_mov_b64 exec, s[92:93]\n";
  epi += fmt::format("  v_mov_b32 v102, {}\n  v_mul_u32_u24 v100, v102, v0\n", results * 4);
  epi += "  v_mov_b32 v101, s3\n  v_add_co_u32 v100, vcc, s2, v100\n  v_addc_co_u32 v101, vcc, 0, v101, vcc\n";
  for (unsigned k = 0; k < results; ++k) epi += fmt::format("  global_store_dword v[100:101], v{}, off offset:{}\n", 10 + k, 4 * k);
  epi += "  s_endpgm\n";
  std::string src = fmt::format(R"(
  .amdgcn_target "amdgcn-amd-amdhsa--{0}"
  .text
  .globl k
  .p2align 8
  .type k,@function
k:
  s_mov_b64 s[92:93], exec
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
{1}
{2}
.Lk_end:
  .size k, .Lk_end-k
{3}
  .rodata
  .p2align 6
  .amdhsa_kernel k
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr {4}
    .amdhsa_next_free_sgpr 96
    .amdhsa_accum_offset 128
    .amdhsa_kernarg_size 8
    .amdhsa_group_segment_fixed_size 1024
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 96
    .vgpr_count: {4}
    .agpr_count: {5}
    .max_flat_workgroup_size: 1024
    .args:
      - {{ .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
  .end_amdgpu_metadata
)",
                                arch, body, epi, extra_text, 128 + agprs, agprs);
  char tmpl[] = "/tmp/asmevo-emu-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/k.s") << src;
  int rc;
  std::string out = run_cmd(fmt::format("{} -triple=amdgcn-amd-amdhsa -mcpu={} -filetype=obj {}/k.s -o {}/k.o", ASMEVO_LLVM_MC,
                                        arch, dir, dir),
                            rc);
  if (rc != 0) throw std::runtime_error("llvm-mc failed:\n" + out + "\nsource:\n" + src);
  out = run_cmd(fmt::format("{} -shared {}/k.o -o {}/k.co", ASMEVO_LD_LLD, dir, dir), rc);
  if (rc != 0) throw std::runtime_error("ld.lld failed:\n" + out);
  auto bytes = read_file_bytes(dir + "/k.co");
  std::filesystem::remove_all(dir);
  return bytes;
}

SnippetRun run_snippet(const std::string& arch, const std::string& body, unsigned results, unsigned block, unsigned agprs) {
  auto co = codeobj::CodeObject::parse(assemble_kernel(arch, body, results, {}, agprs), "snippet-" + arch);
  const codeobj::Kernel* k = co.kernel("k");
  if (!k) throw std::runtime_error("no kernel k");
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  LaunchSpec spec = parse_launch_spec_text(fmt::format(R"(
kernel: k
grid: [1, 1, 1]
block: [{}, 1, 1]
args:
  - {{name: out, buffer: u32, count: {}}}
)",
                                                       block, 64 * results * ((block + 63) / 64)));
  auto launch = prepare_launch(co, *k, spec, 1);
  run_launch(*launch, *prog, RunOptions{});
  // As `asmevo run`: a write into a buffer's guard zone (just past its end) is an error too.
  for (const auto& b : launch->buffers)
    if (auto off = launch->first_broken_guard(b))
      throw Error("the snippet wrote into the guard zone of buffer " + b.label() + " at byte " + std::to_string(*off), "snippet", {},
                  kExitFailure);
  SnippetRun r;
  auto b = launch->contents(launch->buffers[0]);
  r.out.resize(b.size() / 4);
  std::memcpy(r.out.data(), b.data(), b.size());
  return r;
}

namespace {

// The corpus code object (default v5 build) holding `kernel` for `arch`.
std::string object_for(const std::string& arch, const std::string& kernel) {
  static std::map<std::string, std::string> cache;
  std::string key = arch + "/" + kernel;
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  for (const auto& e : fs::directory_iterator(corpus_hip_dir() + "/" + arch)) {
    if (e.path().extension() != ".co") continue;
    auto co = codeobj::CodeObject::parse(read_file_bytes(e.path().string()), e.path().string());
    for (const auto& k : co.kernels()) cache[arch + "/" + k.name] = e.path().string();
  }
  return cache[key];
}

double element(const std::string& dtype, const uint8_t* p) {
  auto get = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (dtype == "f32") return get(float{});
  if (dtype == "f64") return get(double{});
  if (dtype == "f16") return corpus::f16_to_f32(get(uint16_t{}));
  if (dtype == "bf16") return corpus::bf16_to_f32(get(uint16_t{}));
  if (dtype == "i8") return get(int8_t{});
  if (dtype == "u8") return get(uint8_t{});
  if (dtype == "i16") return get(int16_t{});
  if (dtype == "u16") return get(uint16_t{});
  if (dtype == "i32") return get(int32_t{});
  if (dtype == "u32") return get(uint32_t{});
  if (dtype == "i64") return static_cast<double>(get(int64_t{}));
  if (dtype == "u64") return static_cast<double>(get(uint64_t{}));
  throw std::runtime_error("unknown dtype " + dtype);
}

void run_corpus_kernel_impl(const std::string& arch, const std::string& spec_name, uint64_t seed, unsigned threads,
                            std::vector<std::vector<uint8_t>>* outputs) {
  LaunchSpec spec = load_launch_spec(corpus::hip_spec(spec_name));
  spec.seed = seed;
  std::string path = object_for(arch, spec.kernel);
  ASSERT_FALSE(path.empty()) << "no corpus object for " << arch << " holds " << spec.kernel << " (build asmevo_corpus_hip)";
  auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  auto launch = prepare_launch(co, *k, spec, threads);
  std::vector<corpus::HostArg> host;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    corpus::HostArg a;
    a.dtype = spec.args[i].dtype;
    if (spec.args[i].kind == ArgSpec::Buffer) {
      a.is_buffer = true;
      a.bytes = make_buffer(spec, i);
    } else if (spec.args[i].kind == ArgSpec::Value) {
      a.bits = scalar_bits(spec, i);
    }
    host.push_back(std::move(a));
  }
  RunOptions ro;
  ro.threads = threads;
  run_launch(*launch, *prog, ro);
  const corpus::ReferenceEntry* ref = corpus::find_reference(spec.kernel);
  ASSERT_NE(ref, nullptr) << spec.kernel;
  ref->fn(host, {spec.grid[0], spec.grid[1], spec.grid[2]}, {spec.block[0], spec.block[1], spec.block[2]}, spec.dynamic_lds);
  corpus::Tolerance tol = corpus::parse_tolerance(ref->tolerance);
  for (const auto& b : launch->buffers) {
    auto dev = launch->contents(b);
    if (outputs) outputs->emplace_back(dev.begin(), dev.begin() + b.bytes);
    const auto& want = host[b.arg_index];
    ASSERT_EQ(want.bytes.size(), b.bytes);
    size_t esz = dtype_size(b.dtype), bad = 0;
    for (size_t i = 0; i < b.bytes / esz && bad < 5; ++i) {
      double got = element(b.dtype, dev.data() + i * esz), exp = element(b.dtype, want.bytes.data() + i * esz);
      bool ok = corpus::within_tolerance(got, exp, tol) || (std::isnan(got) && std::isnan(exp));
      if (!ok) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {} seed {} arg {} [{}]: emulated {} reference {} (tolerance {})", arch, spec.kernel, seed,
                                     b.arg_index, i, got, exp, ref->tolerance);
      }
    }
  }
}

}  // namespace

void run_corpus_kernel(const std::string& arch, const std::string& spec_name, uint64_t seed, unsigned threads,
                       std::vector<std::vector<uint8_t>>* outputs) {
  run_corpus_kernel_impl(arch, spec_name, seed, threads, outputs);
}

}  // namespace asmevo::emu::test
