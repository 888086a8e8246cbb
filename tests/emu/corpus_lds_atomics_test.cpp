// Corpus kernels that use LDS (DS family), global atomics and s_setreg, run end to end and
// compared with the host references (corpus/reference), on gfx90a / gfx942 / gfx950, with fresh
// random inputs (the launch specs' sizes leave the last workgroup partly idle). Float-atomic
// kernels must give bit-identical outputs for --threads 1 and 4.
//
// A kernel that still contains an instruction some other family has not implemented yet is
// skipped (GTEST_SKIP naming the instruction), so the list turns green as families land; every
// other failure fails the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <span>

#include "codeobj/code_object.h"
#include "corpus/reference/reference.h"
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

struct Case {
  const char* file;  // corpus code object stem
  const char* spec;  // corpus/hip/launch/<spec>.yaml
};

// Runs and compares; returns false without running when the kernel needs an instruction the
// emulator does not implement yet (`unsupported` gets the message) or the case cannot be set up.
bool run_and_compare(const std::string& arch, const Case& c, unsigned threads, uint64_t seed,
                     std::vector<std::vector<uint8_t>>* outputs = nullptr, std::string* unsupported = nullptr) {
  std::string co_path = corpus_hip_dir() + "/" + arch + "/" + c.file + ".co";
  EXPECT_TRUE(std::filesystem::exists(co_path)) << "corpus not built: " << co_path;
  if (!std::filesystem::exists(co_path)) return false;
  LaunchSpec spec = load_launch_spec(source_dir() + "/corpus/hip/launch/" + c.spec + ".yaml");
  spec.seed = seed;
  auto co = codeobj::CodeObject::parse(read_file_bytes(co_path), co_path);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  EXPECT_NE(k, nullptr) << spec.kernel;
  if (!k) return false;
  program::Decoder dec(co.target());
  std::unique_ptr<Program> prog;
  try {
    prog = Program::build(co, *k, dec);
  } catch (const Error& e) {
    std::string m = e.format();
    if (m.find("unsupported instruction") != std::string::npos) {
      if (unsupported) *unsupported = m.substr(0, m.find('\n'));
      return false;
    }
    throw;
  }
  auto launch = prepare_launch(co, *k, spec, threads);
  std::vector<corpus::HostArg> host;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    corpus::HostArg a;
    a.dtype = spec.args[i].dtype;
    if (spec.args[i].kind == ArgSpec::Buffer) {
      a.is_buffer = true;
      a.bytes = make_buffer(spec, i);
    } else {
      a.bits = scalar_bits(spec, i);
    }
    host.push_back(std::move(a));
  }
  RunOptions ro;
  ro.threads = threads;
  run_launch(*launch, *prog, ro);
  const corpus::ReferenceEntry* ref = corpus::find_reference(spec.kernel);
  EXPECT_NE(ref, nullptr) << spec.kernel;
  if (!ref) return false;
  ref->fn(host, {spec.grid[0] * 1u, spec.grid[1], spec.grid[2]}, {spec.block[0], spec.block[1], spec.block[2]}, spec.dynamic_lds);
  corpus::Tolerance tol = corpus::parse_tolerance(ref->tolerance);
  for (const auto& b : launch->buffers) {
    auto dev = launch->mem.bytes(b.address);
    const auto& want = host[b.arg_index];
    if (outputs) outputs->emplace_back(dev.begin(), dev.begin() + b.bytes);
    EXPECT_EQ(want.bytes.size(), b.bytes);
    size_t esz = dtype_size(b.dtype), n = b.bytes / esz, bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      double got, exp;
      if (b.dtype == "f32") {
        float g, e;
        std::memcpy(&g, dev.data() + 4 * i, 4), std::memcpy(&e, want.bytes.data() + 4 * i, 4);
        got = g, exp = e;
      } else if (b.dtype == "f64") {
        std::memcpy(&got, dev.data() + 8 * i, 8), std::memcpy(&exp, want.bytes.data() + 8 * i, 8);
      } else {
        uint64_t g = 0, e = 0;
        std::memcpy(&g, dev.data() + esz * i, esz), std::memcpy(&e, want.bytes.data() + esz * i, esz);
        got = static_cast<double>(g), exp = static_cast<double>(e);
      }
      if (!corpus::within_tolerance(got, exp, tol)) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {} arg {} [{}]: emulator {} reference {}", arch, spec.kernel, b.arg_index, i, got, exp);
      }
    }
  }
  return true;
}

// Kernels whose LDS / atomic / setreg instructions are this family's; the rest of their code is
// scalar, integer/f32 VALU and global memory (or comes with other families).
const Case kCases[] = {
    {"reduce_sum", "reduce_sum_f32"},        {"reduce_max", "reduce_max_rows_f32"},
    {"argmax", "argmax_rows_f32"},           {"histogram", "histogram_u8"},
    {"prefix_scan", "prefix_scan_inclusive_i32"}, {"prefix_scan", "scan_blocks_exclusive_u32"},
    {"scatter_add", "scatter_add_f32"},      {"transpose", "transpose_lds_f32"},
    {"matmul_tiled", "matmul_tiled_f32"},    {"softmax", "softmax_rows_f32"},
    {"layernorm", "layernorm_f32"},          {"mean_rows", "mean_rows_f32"},
    {"log_softmax", "log_softmax_rows_f32"}, {"cross_entropy", "cross_entropy_rows_f32"},
    {"conv2d", "conv2d_3x3_f32"},            {"rmsnorm", "rmsnorm_f16"},
    {"attention_decode", "attention_decode_f32"},
};
constexpr int kNumCases = sizeof(kCases) / sizeof(kCases[0]);

class CorpusLdsAtomics : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CorpusLdsAtomics, MatchesReference) {
  auto [arch, idx] = GetParam();
  std::random_device rd;
  uint64_t seed = (static_cast<uint64_t>(rd()) << 32) | rd();  // fresh inputs every run
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::string unsupported;
  if (!run_and_compare(arch, kCases[idx], 2, seed, nullptr, &unsupported) && !unsupported.empty())
    GTEST_SKIP() << "needs another family: " << unsupported;
}

INSTANTIATE_TEST_SUITE_P(Emu, CorpusLdsAtomics,
                         ::testing::Combine(::testing::Values("gfx90a", "gfx942", "gfx950"), ::testing::Range(0, kNumCases)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + kCases[std::get<1>(info.param)].spec;
                         });

// Float atomics (global_atomic_add_f32 on gfx942/gfx950, a cmpswap loop on gfx90a) across
// workgroups: identical bits for 1 and 4 threads.
TEST(CorpusLdsAtomicsDeterminism, FloatAtomicsSameForAnyThreadCount) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"})
    for (const Case& c : {Case{"reduce_sum", "reduce_sum_f32"}, Case{"scatter_add", "scatter_add_f32"}}) {
      SCOPED_TRACE(fmt::format("{} {}", arch, c.spec));
      std::vector<std::vector<uint8_t>> one, four;
      if (!run_and_compare(arch, c, 1, 1234, &one)) continue;
      run_and_compare(arch, c, 4, 1234, &four);
      EXPECT_EQ(one, four);
    }
}

// Triton's matmul (f16 in, f32 accumulate, f16 out) against a host reference. On gfx950 it reads
// its operands with ds_read_b64_tr_b16 (plus ds_read_b128), so this checks the transpose-read lane
// mapping end to end; on gfx90a/gfx942 it uses ds_read_b64 / ds_read_u16 / ds_write_b128.
// Tolerance as corpus/triton/reference.py: |got - want| <= 2e-2 + 4e-3 |want|.
TEST(CorpusLdsAtomicsTriton, MatmulMatchesReference) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(arch);
    std::string path = source_dir() + "/corpus/triton/" + arch + "/matmul_kernel.hsaco";
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    LaunchSpec spec = load_launch_spec(source_dir() + "/corpus/triton/launch/matmul_kernel.yaml");
    std::random_device rd;
    spec.seed = (static_cast<uint64_t>(rd()) << 32) | rd();
    SCOPED_TRACE(fmt::format("seed {}", spec.seed));
    auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
    const codeobj::Kernel* k = co.kernel("matmul_kernel");
    ASSERT_NE(k, nullptr);
    program::Decoder dec(co.target());
    std::unique_ptr<Program> prog;
    try {
      prog = Program::build(co, *k, dec);
    } catch (const Error& e) {
      if (e.format().find("unsupported instruction") != std::string::npos) continue;  // another family
      throw;
    }
    auto launch = prepare_launch(co, *k, spec, 2);
    RunOptions ro;
    ro.threads = 2;
    run_launch(*launch, *prog, ro);
    const int M = static_cast<int>(scalar_bits(spec, 3)), N = static_cast<int>(scalar_bits(spec, 4)),
              K = static_cast<int>(scalar_bits(spec, 5));
    const int sam = static_cast<int>(scalar_bits(spec, 6)), sbk = static_cast<int>(scalar_bits(spec, 7)),
              scm = static_cast<int>(scalar_bits(spec, 8));
    auto half = [](const uint8_t* p, size_t i) {
      _Float16 h;
      std::memcpy(&h, p + 2 * i, 2);
      return static_cast<double>(h);
    };
    std::vector<uint8_t> a = make_buffer(spec, 0), b = make_buffer(spec, 1);
    const BufferArg* cbuf = nullptr;
    for (const auto& buf : launch->buffers)
      if (buf.arg_index == 2) cbuf = &buf;
    ASSERT_NE(cbuf, nullptr);
    auto c = launch->mem.bytes(cbuf->address);
    int bad = 0;
    for (int i = 0; i < M && bad < 5; ++i)
      for (int j = 0; j < N && bad < 5; ++j) {
        double want = 0;
        for (int kk = 0; kk < K; ++kk) want += half(a.data(), i * sam + kk) * half(b.data(), kk * sbk + j);
        double got = half(c.data(), i * scm + j);
        if (!(std::abs(got - want) <= 2e-2 + 4e-3 * std::abs(want))) {
          ++bad;
          ADD_FAILURE() << fmt::format("{} c[{},{}]: emulator {} reference {}", arch, i, j, got, want);
        }
      }
  }
}

// Runs a Triton corpus kernel (corpus/triton/<arch>/<kernel>.hsaco, launch/<kernel>.yaml) with a
// fresh seed; returns nullptr when the kernel needs an instruction not implemented yet.
struct TritonRun {
  LaunchSpec spec;
  std::unique_ptr<codeobj::CodeObject> co;
  std::unique_ptr<Program> prog;
  std::unique_ptr<Launch> launch;
  std::vector<uint8_t> input(size_t arg) const { return make_buffer(spec, arg); }
  std::span<uint8_t> output(size_t arg) const {
    for (const auto& b : launch->buffers)
      if (b.arg_index == arg) return launch->mem.bytes(b.address);
    return {};
  }
};
std::unique_ptr<TritonRun> run_triton(const std::string& arch, const std::string& kernel) {
  auto r = std::make_unique<TritonRun>();
  std::string path = source_dir() + "/corpus/triton/" + arch + "/" + kernel + ".hsaco";
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  if (!std::filesystem::exists(path)) return nullptr;
  r->spec = load_launch_spec(source_dir() + "/corpus/triton/launch/" + kernel + ".yaml");
  std::random_device rd;
  r->spec.seed = (static_cast<uint64_t>(rd()) << 32) | rd();
  r->co = std::make_unique<codeobj::CodeObject>(codeobj::CodeObject::parse(read_file_bytes(path), path));
  const codeobj::Kernel* k = r->co->kernel(kernel);
  EXPECT_NE(k, nullptr) << kernel;
  if (!k) return nullptr;
  program::Decoder dec(r->co->target());
  try {
    r->prog = Program::build(*r->co, *k, dec);
  } catch (const Error& e) {
    if (e.format().find("unsupported instruction") != std::string::npos) return nullptr;  // another family
    throw;
  }
  r->launch = prepare_launch(*r->co, *k, r->spec, 2);
  RunOptions ro;
  ro.threads = 2;
  run_launch(*r->launch, *r->prog, ro);
  return r;
}
float f32_at(std::span<const uint8_t> b, size_t i) {
  float f;
  std::memcpy(&f, b.data() + 4 * i, 4);
  return f;
}
double f16_at(std::span<const uint8_t> b, size_t i) {
  _Float16 h;
  std::memcpy(&h, b.data() + 2 * i, 2);
  return static_cast<double>(h);
}

// Triton softmax: rows reduced through LDS (ds_write2st64_b32 / ds_read*) and DPP.
TEST(CorpusLdsAtomicsTriton, SoftmaxMatchesReference) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(arch);
    auto r = run_triton(arch, "softmax_kernel");
    if (!r) continue;
    SCOPED_TRACE(fmt::format("seed {}", r->spec.seed));
    const size_t rows = r->spec.grid[0], n = scalar_bits(r->spec, 2), xs = scalar_bits(r->spec, 3), os = scalar_bits(r->spec, 4);
    auto x = r->input(0);
    auto out = r->output(1);
    int bad = 0;
    for (size_t i = 0; i < rows && bad < 5; ++i) {
      double m = -INFINITY, z = 0;
      for (size_t j = 0; j < n; ++j) m = std::max<double>(m, f32_at(x, i * xs + j));
      for (size_t j = 0; j < n; ++j) z += std::exp(f32_at(x, i * xs + j) - m);
      for (size_t j = 0; j < n && bad < 5; ++j) {
        double want = std::exp(f32_at(x, i * xs + j) - m) / z, got = f32_at(out, i * os + j);
        if (!(std::abs(got - want) <= 1e-6 + 1e-4 * std::abs(want)))
          ++bad, ADD_FAILURE() << fmt::format("{} out[{},{}]: emulator {} reference {}", arch, i, j, got, want);
      }
    }
  }
}

// Triton decode attention: cross-lane reductions with ds_swizzle_b32 (SWAP,16), ds_read_u16,
// ds_write_b128. out[b,h] = softmax(K[b,:n,kh] q[b,h] * scale) V[b,:n,kh], kh = h / (heads/kv_heads).
TEST(CorpusLdsAtomicsTriton, DecodeAttentionMatchesReference) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(arch);
    auto r = run_triton(arch, "decode_attention_kernel");
    if (!r) continue;
    SCOPED_TRACE(fmt::format("seed {}", r->spec.seed));
    const size_t B = r->spec.grid[0], H = r->spec.grid[1], S = scalar_bits(r->spec, 6);
    uint32_t scale_bits = static_cast<uint32_t>(scalar_bits(r->spec, 5));
    float scale;
    std::memcpy(&scale, &scale_bits, 4);
    auto q = r->input(0), kc = r->input(1), vc = r->input(2), sl = r->input(4);
    auto out = r->output(3);
    const size_t dim = q.size() / 2 / (B * H), kvh = kc.size() / 2 / (B * S * dim), group = H / kvh;
    int bad = 0;
    for (size_t b = 0; b < B; ++b) {
      int32_t n;
      std::memcpy(&n, sl.data() + 4 * b, 4);
      for (size_t h = 0; h < H; ++h) {
        size_t kh = h / group;
        std::vector<double> sc(n);
        double m = -INFINITY, z = 0;
        for (int t = 0; t < n; ++t) {
          double d = 0;
          for (size_t i = 0; i < dim; ++i) d += f16_at(kc, ((b * S + t) * kvh + kh) * dim + i) * f16_at(q, (b * H + h) * dim + i);
          sc[t] = d * scale, m = std::max(m, sc[t]);
        }
        for (int t = 0; t < n; ++t) z += std::exp(sc[t] - m);
        for (size_t i = 0; i < dim && bad < 5; ++i) {
          double want = 0;
          for (int t = 0; t < n; ++t) want += std::exp(sc[t] - m) / z * f16_at(vc, ((b * S + t) * kvh + kh) * dim + i);
          double got = f16_at(out, (b * H + h) * dim + i);
          if (!(std::abs(got - want) <= 2e-3 + 4e-3 * std::abs(want)))
            ++bad, ADD_FAILURE() << fmt::format("{} out[{},{},{}]: emulator {} reference {}", arch, b, h, i, got, want);
        }
      }
    }
  }
}

}  // namespace
}  // namespace asmevo::emu::test
