// Corpus kernels that the MUBUF / transcendental / division families complete, run end to end on
// the emulator against host references, on gfx90a, gfx942 and gfx950, with fresh random inputs
// (the launch specs' sizes leave the last workgroup partly idle and, for Triton, mask tails
// through buffer out-of-range rules).
//   * HIP (corpus/hip, references and per-kernel tolerances in corpus/reference): kernels using
//     v_exp/v_log/v_rcp/v_rsq/v_sqrt and the v_div_scale/fmas/fixup division sequence.
//   * Triton (corpus/triton, buffer_load/buffer_store with Triton's OOB masking): references below,
//     transcribed from corpus/triton/reference.py, tolerances from its TOLERANCE table.
// A kernel that still contains an instruction of a family nobody has implemented yet is skipped
// with the instruction named (the run itself would stop with "unsupported instruction").
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>
#include <random>

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

// e4m3 fp8 (corpus/triton/reference.py fp8_decode / fp8_round): FNUZ bias 8, max 240, NaN 0x80;
// FN bias 7, max 448, NaN S.1111.111.
double fp8_decode(uint8_t c, bool fnuz) {
  if (fnuz ? c == 0x80 : (c & 0x7f) == 0x7f) return NAN;
  int bias = fnuz ? 8 : 7, e = (c >> 3) & 0xf, m = c & 7;
  double v = e > 0 ? std::ldexp(1.0 + m / 8.0, e - bias) : std::ldexp(m / 8.0, 1 - bias);
  return (c & 0x80) ? -v : v;
}
double fp8_round(double x, bool fnuz) {
  int bias = fnuz ? 8 : 7;
  double fmax = fnuz ? 240.0 : 448.0, a = std::min(std::fabs(x), fmax);
  double e = std::max(std::floor(std::log2(a > 0 ? a : 1.0)), static_cast<double>(1 - bias));
  double q = std::exp2(e - 3), r = std::min(std::nearbyint(a / q) * q, fmax);
  return static_cast<float>(x < 0 ? -r : r);
}

double to_double(const std::string& dtype, const uint8_t* p) {
  if (dtype == "fp8e4m3fnuz" || dtype == "fp8e4m3fn") return fp8_decode(*p, dtype == "fp8e4m3fnuz");
  if (dtype == "f32") return std::bit_cast<float>(*reinterpret_cast<const uint32_t*>(p));
  if (dtype == "f64") return std::bit_cast<double>(*reinterpret_cast<const uint64_t*>(p));
  if (dtype == "f16") return static_cast<double>(std::bit_cast<_Float16>(*reinterpret_cast<const uint16_t*>(p)));
  if (dtype == "bf16") return std::bit_cast<float>(static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(p)) << 16);
  uint64_t v = 0;
  std::memcpy(&v, p, dtype_size(dtype));
  return static_cast<double>(v);
}

bool close(double got, double want, double atol, double rtol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

struct Loaded {
  std::optional<codeobj::CodeObject> co;
  LaunchSpec spec;
  std::unique_ptr<Program> prog;
  std::unique_ptr<Launch> launch;
};

// Loads, pre-decodes and runs; GTEST_SKIPs (returns false) when the kernel still has an
// instruction no family implements.
bool run(const std::string& co_path, const std::string& spec_path, uint64_t seed, unsigned threads, Loaded& L) {
  EXPECT_TRUE(std::filesystem::exists(co_path)) << "corpus not built: " << co_path;
  if (!std::filesystem::exists(co_path)) return false;
  L.spec = load_launch_spec(spec_path);
  L.spec.seed = seed;
  L.co.emplace(codeobj::CodeObject::parse(read_file_bytes(co_path), co_path));
  const codeobj::Kernel* k = L.co->kernel(L.spec.kernel);
  EXPECT_NE(k, nullptr) << L.spec.kernel;
  if (!k) return false;
  program::Decoder dec(L.co->target());
  try {
    L.prog = Program::build(*L.co, *k, dec);
  } catch (const Error& e) {
    std::string m = e.format();
    if (m.find("unsupported instruction") == std::string::npos) throw;
    return false;
  }
  L.launch = prepare_launch(*L.co, *k, L.spec, threads);
  RunOptions ro;
  ro.threads = threads;
  run_launch(*L.launch, *L.prog, ro);
  return true;
}

std::string skip_reason(const std::string& co_path, const std::string& kernel) {
  auto co = codeobj::CodeObject::parse(read_file_bytes(co_path), co_path);
  const codeobj::Kernel* k = co.kernel(kernel);
  program::Decoder dec(co.target());
  auto insts = dec.decode_range(*co.elf().bytes_at_address(k->code_address, k->code_size), k->code_address);
  std::string s;
  for (const auto& m : unsupported_mnemonics(insts)) s += " " + m;
  return "needs instructions of other families:" + s;
}

uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

// ---- Triton corpus ----------------------------------------------------------------------------

struct Buf {
  std::string dtype;
  std::vector<uint8_t> bytes;
  double at(size_t i) const { return to_double(dtype, bytes.data() + dtype_size(dtype) * i); }
  size_t size() const { return bytes.size() / dtype_size(dtype); }
};
// Host view of the launch's inputs and the reference's expected outputs (by argument name).
struct TritonRef {
  std::function<void(const LaunchSpec&, const std::map<std::string, Buf>&, const std::map<std::string, double>&,
                     std::map<std::string, std::vector<double>>&)>
      fn;
  std::map<std::string, std::pair<double, double>> tol;  // name -> (atol, rtol)
};

double silu(double g) { return g / (1.0 + std::exp(-g)); }

template <bool Fnuz>
void fp8_quant_ref(const LaunchSpec&, const std::map<std::string, Buf>& in, const std::map<std::string, double>& val,
                   std::map<std::string, std::vector<double>>& out) {
  const float fmax = Fnuz ? 240.0f : 448.0f;
  int64_t n = static_cast<int64_t>(val.at("n_cols"));
  auto& x = in.at("x");
  for (size_t r = 0; r < x.size() / n; ++r) {
    float amax = 0;
    for (int64_t c = 0; c < n; ++c) amax = std::max(amax, std::fabs(static_cast<float>(x.at(r * n + c))));
    amax = std::max(amax, 1e-12f);
    float scale = amax / fmax;
    for (int64_t c = 0; c < n; ++c)
      out["out"].push_back(fp8_round(std::clamp(static_cast<float>(x.at(r * n + c)) / scale, -fmax, fmax), Fnuz));
    out["scale"].push_back(scale);
  }
}

const std::map<std::string, TritonRef>& triton_refs() {
  static const std::map<std::string, TritonRef> refs = {
      {"vector_add_kernel",
       {[](const LaunchSpec&, const auto& in, const auto&, auto& out) {
          auto& x = in.at("x");
          auto& o = out["out"];
          for (size_t i = 0; i < x.size(); ++i) o.push_back(static_cast<float>(x.at(i)) + static_cast<float>(in.at("y").at(i)));
        },
        {{"out", {1e-6, 1e-6}}}}},
      {"embedding_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t dim = static_cast<int64_t>(val.at("dim"));
          auto& ids = in.at("ids");
          auto& o = out["out"];
          for (size_t t = 0; t < ids.size(); ++t) {
            int64_t id = static_cast<int32_t>(static_cast<uint32_t>(ids.at(t)));
            for (int64_t c = 0; c < dim; ++c) o.push_back(in.at("table").at(id * dim + c));
          }
        },
        {{"out", {0, 0}}}}},
      {"gelu_add_kernel",
       {[](const LaunchSpec&, const auto& in, const auto&, auto& out) {
          auto& o = out["out"];
          for (size_t i = 0; i < in.at("x").size(); ++i) {
            double z = in.at("x").at(i) + in.at("y").at(i);
            o.push_back(0.5 * z * (1.0 + std::tanh(0.7978845608028654 * (z + 0.044715 * z * z * z))));
          }
        },
        {{"out", {2e-3, 4e-3}}}}},
      {"silu_and_mul_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t d = static_cast<int64_t>(val.at("d"));
          auto& x = in.at("x");
          auto& o = out["out"];
          for (size_t r = 0; r < x.size() / (2 * d); ++r)
            for (int64_t c = 0; c < d; ++c) o.push_back(silu(x.at(r * 2 * d + c)) * x.at(r * 2 * d + d + c));
        },
        {{"out", {1e-2, 1.6e-2}}}}},
      {"softmax_kernel",
       {[](const LaunchSpec& s, const auto& in, const auto& val, auto& out) {
          int64_t rows = s.grid[0], n = static_cast<int64_t>(val.at("n_cols")), xs = static_cast<int64_t>(val.at("x_row_stride")),
                  os = static_cast<int64_t>(val.at("out_row_stride"));
          auto& x = in.at("x");
          auto& o = out["out"];
          o.assign(in.at("out").size(), 0.0);
          for (int64_t r = 0; r < rows; ++r) {
            double m = -INFINITY, sum = 0;
            for (int64_t c = 0; c < n; ++c) m = std::max(m, x.at(r * xs + c));
            for (int64_t c = 0; c < n; ++c) sum += std::exp(x.at(r * xs + c) - m);
            for (int64_t c = 0; c < n; ++c) o[r * os + c] = std::exp(x.at(r * xs + c) - m) / sum;
          }
        },
        {{"out", {1e-6, 1e-4}}}}},
      {"rmsnorm_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t n = static_cast<int64_t>(val.at("n_cols"));
          auto& x = in.at("x");
          auto& o = out["out"];
          for (size_t r = 0; r < x.size() / n; ++r) {
            double ss = 0;
            for (int64_t c = 0; c < n; ++c) ss += x.at(r * n + c) * x.at(r * n + c);
            double rstd = 1.0 / std::sqrt(ss / n + val.at("eps"));
            for (int64_t c = 0; c < n; ++c) o.push_back(x.at(r * n + c) * rstd * in.at("w").at(c));
          }
        },
        {{"out", {2e-3, 4e-3}}}}},
      {"fused_add_rmsnorm_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t n = static_cast<int64_t>(val.at("n_cols"));
          auto& x = in.at("x");
          auto& ox = out["x"];
          auto& orr = out["residual"];
          for (size_t r = 0; r < x.size() / n; ++r) {
            std::vector<double> s(n);
            double ss = 0;
            for (int64_t c = 0; c < n; ++c) {
              s[c] = static_cast<float>(static_cast<float>(x.at(r * n + c)) + static_cast<float>(in.at("residual").at(r * n + c)));
              ss += s[c] * s[c];
            }
            double rstd = 1.0 / std::sqrt(ss / n + val.at("eps"));
            for (int64_t c = 0; c < n; ++c) ox.push_back(s[c] * rstd * in.at("w").at(c)), orr.push_back(s[c]);
          }
        },
        {{"x", {1e-2, 1.6e-2}}, {"residual", {1e-2, 1.6e-2}}}}},
      {"layernorm_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t n = static_cast<int64_t>(val.at("n_cols"));
          auto& x = in.at("x");
          for (size_t r = 0; r < x.size() / n; ++r) {
            double mean = 0, var = 0;
            for (int64_t c = 0; c < n; ++c) mean += x.at(r * n + c);
            mean /= n;
            for (int64_t c = 0; c < n; ++c) var += (x.at(r * n + c) - mean) * (x.at(r * n + c) - mean);
            double rstd = 1.0 / std::sqrt(var / n + val.at("eps"));
            for (int64_t c = 0; c < n; ++c)
              out["out"].push_back((x.at(r * n + c) - mean) * rstd * in.at("w").at(c) + in.at("b").at(c));
            out["mean"].push_back(mean), out["rstd"].push_back(rstd);
          }
        },
        {{"out", {2e-3, 4e-3}}, {"mean", {1e-5, 1e-5}}, {"rstd", {1e-5, 1e-5}}}}},
      {"argmax_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t v = static_cast<int64_t>(val.at("vocab"));
          auto& x = in.at("logits");
          for (size_t r = 0; r < x.size() / v; ++r) {
            int64_t best = 0;
            for (int64_t c = 1; c < v; ++c)
              if (x.at(r * v + c) > x.at(r * v + best)) best = c;
            out["out"].push_back(static_cast<double>(best));
          }
        },
        {{"out", {0, 0}}}}},
      {"rotary_kernel",
       {[](const LaunchSpec& s, const auto& in, const auto& val, auto& out) {
          int64_t tokens = s.grid[0], nq = s.grid[1], qs = static_cast<int64_t>(val.at("q_token_stride"));
          int64_t ks = static_cast<int64_t>(val.at("k_token_stride")), hkv = static_cast<int64_t>(val.at("num_kv_heads"));
          int64_t dim = qs / nq, half = dim / 2;
          auto& cs = in.at("cos_sin");
          auto& pos = in.at("positions");
          auto rot = [&](const Buf& b, int64_t stride, int64_t heads, std::vector<double>& o) {
            for (size_t i = 0; i < b.size(); ++i) o.push_back(b.at(i));
            for (int64_t t = 0; t < tokens; ++t) {
              int64_t p = static_cast<int64_t>(pos.at(t));
              for (int64_t h = 0; h < heads; ++h)
                for (int64_t i = 0; i < half; ++i) {
                  int64_t j = t * stride + h * dim + i;
                  double c = cs.at(p * dim + i), sn = cs.at(p * dim + half + i), x1 = b.at(j), x2 = b.at(j + half);
                  o[j] = x1 * c - x2 * sn, o[j + half] = x2 * c + x1 * sn;
                }
            }
          };
          rot(in.at("q"), qs, nq, out["q"]);
          rot(in.at("k"), ks, hkv, out["k"]);
        },
        {{"q", {2e-3, 4e-3}}, {"k", {2e-3, 4e-3}}}}},
      {"matmul_kernel",
       {[](const LaunchSpec&, const auto& in, const auto& val, auto& out) {
          int64_t M = static_cast<int64_t>(val.at("M")), N = static_cast<int64_t>(val.at("N")), K = static_cast<int64_t>(val.at("K"));
          int64_t sa = static_cast<int64_t>(val.at("stride_am")), sb = static_cast<int64_t>(val.at("stride_bk"));
          int64_t sc = static_cast<int64_t>(val.at("stride_cm"));
          auto& o = out["c"];
          o.assign(in.at("c").size(), 0.0);
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double acc = 0;
              for (int64_t k = 0; k < K; ++k) acc += in.at("a").at(m * sa + k) * in.at("b").at(k * sb + n);
              o[m * sc + n] = acc;
            }
        },
        {{"c", {2e-2, 4e-3}}}}},
      {"decode_attention_kernel",
       {[](const LaunchSpec& s, const auto& in, const auto& val, auto& out) {
          int64_t batch = s.grid[0], heads = s.grid[1], max_seq = static_cast<int64_t>(val.at("max_seq"));
          auto& q = in.at("q");
          auto& kc = in.at("k_cache");
          auto& vc = in.at("v_cache");
          int64_t dim = static_cast<int64_t>(q.size()) / (batch * heads);
          int64_t kvh = static_cast<int64_t>(kc.size()) / (batch * max_seq * dim), group = heads / kvh;
          auto& o = out["out"];
          o.assign(q.size(), 0.0);
          for (int64_t b = 0; b < batch; ++b) {
            int64_t n = static_cast<int64_t>(in.at("seq_lens").at(b));
            for (int64_t h = 0; h < heads; ++h) {
              int64_t kh = h / group;
              std::vector<double> p(n);
              double m = -INFINITY, sum = 0;
              for (int64_t t = 0; t < n; ++t) {
                double d = 0;
                for (int64_t i = 0; i < dim; ++i) d += kc.at(((b * max_seq + t) * kvh + kh) * dim + i) * q.at((b * heads + h) * dim + i);
                p[t] = d * val.at("sm_scale"), m = std::max(m, p[t]);
              }
              for (auto& x : p) x = std::exp(x - m), sum += x;
              for (int64_t i = 0; i < dim; ++i) {
                double acc = 0;
                for (int64_t t = 0; t < n; ++t) acc += p[t] / sum * vc.at(((b * max_seq + t) * kvh + kh) * dim + i);
                o[(b * heads + h) * dim + i] = acc;
              }
            }
          }
        },
        {{"out", {2e-3, 4e-3}}}}},
      {"fp8_quant_fnuz_kernel", {fp8_quant_ref<true>, {{"out", {2e-3, 0.126}}, {"scale", {0.0, 1e-6}}}}},
      {"fp8_quant_fn_kernel", {fp8_quant_ref<false>, {{"out", {2e-3, 0.126}}, {"scale", {0.0, 1e-6}}}}},
  };
  return refs;
}

class TritonFamilies : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TritonFamilies, MatchesReference) {
  auto [arch, kernel] = GetParam();
  uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::string co_path = corpus::triton_object(arch, kernel);
  Loaded L;
  if (!run(co_path, corpus::triton_spec(kernel), seed, 2, L)) {
    if (!HasFailure()) GTEST_SKIP() << skip_reason(co_path, kernel);
    return;
  }
  std::map<std::string, Buf> in;
  std::map<std::string, double> val;
  for (size_t i = 0; i < L.spec.args.size(); ++i) {
    const ArgSpec& a = L.spec.args[i];
    if (a.kind == ArgSpec::Buffer) in[a.name] = Buf{a.dtype, make_buffer(L.spec, i)};
    else if (a.kind != ArgSpec::NullPointer)
      val[a.name] = a.dtype == "f32" ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(scalar_bits(L.spec, i))))
                                     : static_cast<double>(static_cast<int32_t>(scalar_bits(L.spec, i)));
  }
  std::map<std::string, std::vector<double>> want;
  const TritonRef& ref = triton_refs().at(kernel);
  ref.fn(L.spec, in, val, want);
  for (const auto& b : L.launch->buffers) {
    auto it = want.find(b.name);
    if (it == want.end()) continue;
    auto [atol, rtol] = ref.tol.at(b.name);
    auto dev = L.launch->contents(b);
    Buf got{b.dtype, std::vector<uint8_t>(dev.begin(), dev.begin() + b.bytes)};
    ASSERT_EQ(got.size(), it->second.size()) << b.name;
    size_t bad = 0;
    for (size_t i = 0; i < got.size() && bad < 5; ++i)
      if (!close(got.at(i), it->second[i], atol, rtol)) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {} {}[{}]: emulator {} reference {}", arch, kernel, b.name, i, got.at(i), it->second[i]);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Emu, TritonFamilies,
                         ::testing::Combine(::testing::Values("gfx90a", "gfx942", "gfx950"),
                                            ::testing::Values("vector_add_kernel", "embedding_kernel", "gelu_add_kernel",
                                                              "silu_and_mul_kernel", "softmax_kernel", "rmsnorm_kernel",
                                                              "fused_add_rmsnorm_kernel", "layernorm_kernel", "argmax_kernel",
                                                              "rotary_kernel", "matmul_kernel", "decode_attention_kernel")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// The fp8 kernels: FNUZ on gfx942 only, OCP FN on gfx942 and gfx950 (gfx90a has no fp8 conversions).
INSTANTIATE_TEST_SUITE_P(EmuFp8, TritonFamilies,
                         ::testing::Values(std::tuple<std::string, std::string>{"gfx942", "fp8_quant_fnuz_kernel"},
                                           std::tuple<std::string, std::string>{"gfx942", "fp8_quant_fn_kernel"},
                                           std::tuple<std::string, std::string>{"gfx950", "fp8_quant_fn_kernel"}),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace asmevo::emu::test
