// Triton kernels whose LDS use this family covers (ds_read_b64_tr_b16 on gfx950, swizzles), checked
// against host references transcribed from corpus/triton/reference.py. (Every HIP corpus kernel is
// checked by corpus_all_test.cpp, thread-count determinism by corpus_run_test.cpp.)
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
#include "corpus/index/corpus.h"

namespace asmevo::emu::test {
namespace {

// Triton's matmul (f16 in, f32 accumulate, f16 out) against a host reference. On gfx950 it reads
// its operands with ds_read_b64_tr_b16 (plus ds_read_b128), so this checks the transpose-read lane
// mapping end to end; on gfx90a/gfx942 it uses ds_read_b64 / ds_read_u16 / ds_write_b128.
// Tolerance as corpus/triton/reference.py: |got - want| <= 2e-2 + 4e-3 |want|.
TEST(CorpusLdsAtomicsTriton, MatmulMatchesReference) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(arch);
    std::string path = corpus::triton_object(arch, "matmul_kernel");
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    LaunchSpec spec = load_launch_spec(corpus::triton_spec("matmul_kernel"));
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
    auto c = launch->contents(*cbuf);
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
      if (b.arg_index == arg) return launch->contents(b);
    return {};
  }
};
std::unique_ptr<TritonRun> run_triton(const std::string& arch, const std::string& kernel) {
  auto r = std::make_unique<TritonRun>();
  std::string path = corpus::triton_object(arch, kernel);
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  if (!std::filesystem::exists(path)) return nullptr;
  r->spec = load_launch_spec(corpus::triton_spec(kernel));
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
