// Emulation speed (issue 4): lane-instructions and wave-instructions per second on one core for a
// VALU-heavy kernel, a memory-heavy kernel (vector_add) and an MFMA kernel (matmul_mfma_32x32x8_f16).
// Figures are of the emulator itself (host CPU time), not of any GPU.
#include <benchmark/benchmark.h>

#include <thread>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"

using namespace asmevo;

namespace {

void run_kernel(benchmark::State& state, const std::string& path, const std::string& kernel, const std::string& spec_text) {
  try {
    auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
    const codeobj::Kernel* k = co.kernel(kernel);
    if (!k) throw Error("no kernel " + kernel, path);
    program::Decoder decoder(co.target());
    auto prog = emu::Program::build(co, *k, decoder);
    auto spec = emu::parse_launch_spec_text(spec_text, "bench");
    emu::RunOptions ro;
    ro.threads = 1;
    uint64_t lane_ops = 0, wave_insts = 0;
    for (auto _ : state) {
      state.PauseTiming();
      auto launch = emu::prepare_launch(co, *k, spec, 1);
      state.ResumeTiming();
      auto rr = emu::run_launch(*launch, *prog, ro);
      lane_ops += rr.stats.lane_ops;
      wave_insts += rr.stats.total();
    }
    state.counters["lane_instructions_per_s"] = benchmark::Counter(double(lane_ops), benchmark::Counter::kIsRate);
    state.counters["wave_instructions_per_s"] = benchmark::Counter(double(wave_insts), benchmark::Counter::kIsRate);
  } catch (const Error& e) {
    state.SkipWithError(e.format().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string corpus = ASMEVO_BINARY_DIR "/corpus/hip/gfx942/";
  benchmark::RegisterBenchmark("VALU_heavy/valu_chain_gfx942", run_kernel, ASMEVO_VALU_BENCH_OBJECT, "valu_chain",
                               "kernel: valu_chain\ngrid: [64, 1, 1]\nblock: [256, 1, 1]\nseed: 1\nargs:\n"
                               "  - {buffer: f32, count: 16384, init: {uniform: [-1, 1]}}\n"
                               "  - {buffer: f32, count: 16384, init: zeros}\n"
                               "  - {value: 16384, type: i32}\n  - {value: 8, type: i32}\n")
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("Memory_heavy/vector_add_gfx942", run_kernel, corpus + "vector_add.co", "vector_add",
                               "kernel: vector_add\ngrid: [1024, 1, 1]\nblock: [256, 1, 1]\nseed: 1\nargs:\n"
                               "  - {buffer: f32, count: 262144, init: {normal: [0, 1]}}\n"
                               "  - {buffer: f32, count: 262144, init: {normal: [0, 1]}}\n"
                               "  - {buffer: f32, count: 262144, init: zeros}\n  - {value: 262144, type: i32}\n")
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("MFMA/matmul_mfma_32x32x8_f16_gfx942", run_kernel, corpus + "matmul_mfma_f16.co",
                               "matmul_mfma_32x32x8_f16",
                               read_file_text(ASMEVO_SOURCE_DIR "/corpus/hip/launch/matmul_mfma_32x32x8_f16.yaml"))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
