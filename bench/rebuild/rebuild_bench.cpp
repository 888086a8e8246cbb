// Recover + rebuild time (bench for issue 3): decode and recover a code object into a listing,
// assemble it in-process with LLVM MC, and link it with lld in-process. Reports the phases
// separately and the time per 2,000 instructions (total time scaled by 2000 / instructions).
// Inputs: the largest corpus objects and the decode benchmark's 51k-instruction object.
#include <benchmark/benchmark.h>

#include "rebuild/assembler.h"
#include "rebuild/linker.h"
#include "rebuild/rebuild.h"
#include "program/recover.h"
#include "support/file_io.h"

using namespace asmevo;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }

unsigned count_instructions(const program::Listing& l) {
  unsigned n = 0;
  for (const auto& s : l.sections)
    for (const auto& line : s.lines) n += line.is_instruction();
  return n;
}

void BM_RecoverAndRebuild(benchmark::State& state, const std::string& path) {
  auto co = load(path);
  unsigned n = count_instructions(program::recover(co));
  for (auto _ : state) {
    auto listing = program::recover(co);
    auto bytes = rebuild::rebuild(listing, "bench");
    benchmark::DoNotOptimize(bytes.data());
  }
  state.counters["instructions"] = n;
  state.counters["time_per_2000_instructions"] =
      benchmark::Counter(double(n) / 2000.0, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_RecoverOnly(benchmark::State& state, const std::string& path) {
  auto co = load(path);
  for (auto _ : state) benchmark::DoNotOptimize(program::recover(co).sections.size());
}

void BM_AssembleOnly(benchmark::State& state, const std::string& path) {
  auto co = load(path);
  auto listing = program::recover(co);
  std::string text = listing.to_assembly(false);
  for (auto _ : state) benchmark::DoNotOptimize(rebuild::assemble_object(text, listing.target, "bench").size());
}

void BM_LinkOnly(benchmark::State& state, const std::string& path) {
  auto co = load(path);
  auto listing = program::recover(co);
  auto object = rebuild::assemble_object(listing.to_assembly(false), listing.target, "bench");
  for (auto _ : state) benchmark::DoNotOptimize(rebuild::link_code_object({object}, "bench").size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string corpus = ASMEVO_BINARY_DIR "/corpus/hip/gfx942/";
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"triton_decode_attention_gfx942", ASMEVO_SOURCE_DIR "/corpus/triton/gfx942/decode_attention_kernel.hsaco"},
      {"hip_matmul_mfma_f16_gfx942", corpus + "matmul_mfma_f16.co"},
      {"hip_softmax_gfx942", corpus + "softmax.co"},
      {"decode_bench_51k_gfx942", ASMEVO_DECODE_BENCH_OBJECT},
  };
  for (const auto& [name, path] : inputs) {
    benchmark::RegisterBenchmark(("RecoverAndRebuild/" + name).c_str(), BM_RecoverAndRebuild, path)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("RecoverOnly/" + name).c_str(), BM_RecoverOnly, path)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("AssembleOnly/" + name).c_str(), BM_AssembleOnly, path)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("LinkOnly/" + name).c_str(), BM_LinkOnly, path)->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
