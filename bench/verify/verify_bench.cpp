// Verification time (emulated) for a few corpus kernels with 3 input sets, split into the
// reference (K0's runs, made once per kernel and spec) and one candidate's verification (ABI,
// static checks, K1's runs and the comparisons). The candidate is K0 rebuilt from its recovered
// listing, so every run is compared in full (no early exit).
#include <benchmark/benchmark.h>

#include "corpus/index/corpus.h"
#include "bench/mutants/mutation.h"
#include "rebuild/rebuild.h"
#include "program/program.h"
#include "support/file_io.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

struct Case {
  codeobj::CodeObject k0, k1;
  emu::LaunchSpec spec;
};

Case load(const std::string& kernel) {
  auto k = corpus::kernels("gfx942", {kernel}).at(0);
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
  auto p = program::Program::recover(k0);
  p.touch(kernel);
  p.update_resources();
  auto k1 = codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), kernel + "-rebuilt"), kernel + "-rebuilt");
  emu::LaunchSpec spec = emu::load_launch_spec(k.spec);
  spec.inputs = 3;  // 3 input sets, one launch shape
  spec.special = false;
  spec.launches.clear();
  return {std::move(k0), std::move(k1), std::move(spec)};
}

void BM_Reference(benchmark::State& state, const std::string& kernel) {
  Case c = load(kernel);
  auto backend = verify::make_emulator_backend(1);
  for (auto _ : state) {
    verify::Reference ref(*backend, c.k0, {c.spec});
    benchmark::DoNotOptimize(ref.runs().size());
  }
  state.counters["runs"] = 3;
}

void BM_VerifyCandidate(benchmark::State& state, const std::string& kernel) {
  Case c = load(kernel);
  auto backend = verify::make_emulator_backend(1);
  verify::Reference ref(*backend, c.k0, {c.spec});
  for (auto _ : state) {
    auto r = verify::verify_candidate(ref, c.k1);
    if (r.verdict != verify::Verdict::Equivalent) state.SkipWithError(("not equivalent: " + r.summary).c_str());
  }
  state.counters["runs"] = 3;
}

}  // namespace

#define VERIFY_BENCH(kernel)                                                                      \
  BENCHMARK_CAPTURE(BM_Reference, kernel, #kernel)->Unit(benchmark::kMillisecond)->MinTime(0.5); \
  BENCHMARK_CAPTURE(BM_VerifyCandidate, kernel, #kernel)->Unit(benchmark::kMillisecond)->MinTime(0.5)

VERIFY_BENCH(vector_add);
VERIFY_BENCH(softmax_rows_f32);
VERIFY_BENCH(matmul_tiled_f32);
VERIFY_BENCH(matmul_mfma_32x32x8_f16);
VERIFY_BENCH(attention_decode_f32);
VERIFY_BENCH(layernorm_kernel);

BENCHMARK_MAIN();
