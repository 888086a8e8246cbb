// calibration_bench: the timing model held against published measurements. For each row of
// /work/shared/notes/mi300x-measured.md that a kernel of calibration.hip reproduces, the kernel is
// launched the way the measurement ran (a pointer chase over a footprint, BabelStream's kernels on
// 2^25 doubles, a 1 GiB read, an MFMA chain), modeled (sampled like `asmevo time`), and the modeled
// figure printed next to the measured one with the error. Rows are split: "fit" rows were used to set
// parameters in timing/hw_params.cpp, "held-out" rows were not; the WMAPE of each half is printed.
// Modeled figures are MODELED; measured ones are MEASURED by the sources named per row ([V]: vendor figure).
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"

using namespace asmevo;

namespace {

std::string object(const std::string& arch) { return std::string(ASMEVO_CALIBRATION_DIR) + "/" + arch + "/calibration.co"; }

// Models `yaml` (a launch spec of a calibration kernel) on `arch`; returns the model's result.
timing::ModelResult model(const std::string& arch, const std::string& yaml) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(yaml, "calibration launch");
  auto co = codeobj::CodeObject::parse(read_file_bytes(object(arch)), object(arch));
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  if (!k) throw Error("no kernel " + spec.kernel, object(arch));
  return timing::model_kernel({&co, k, &spec}, 1).model;
}

// Cycles of a one-lane chase of `steps` steps over `footprint` bytes, one 128-byte line per step.
double chase_cycles(const std::string& arch, uint64_t footprint, uint64_t steps) {
  return static_cast<double>(model(arch, fmt::format(R"(kernel: chase
grid: [1, 1, 1]
block: [64, 1, 1]
args:
  - {{name: buf, buffer: u32, count: {}}}
  - {{name: steps, value: {}, type: u32}}
  - {{name: stride, value: 32, type: u32}}
  - {{name: mask, value: {}, type: u32}}
  - {{name: out, buffer: u32, count: 1, output: true}}
)", footprint / 4, steps, footprint / 4 - 1)).cycles);
}

// Latency per step in ns: warm (second pass over the footprint) or cold (first touches only).
double chase_ns(const std::string& arch, uint64_t footprint, bool warm) {
  const uint64_t lines = footprint / 128;
  const double ghz = timing::hw_params(arch == "gfx90a" ? codeobj::Arch::gfx90a : codeobj::Arch::gfx942).clock_ghz;
  const double d = warm ? chase_cycles(arch, footprint, 2 * lines) - chase_cycles(arch, footprint, lines)
                        : chase_cycles(arch, footprint, lines) - chase_cycles(arch, footprint, lines / 2);
  return d / (warm ? lines : lines / 2) / ghz;
}

// BabelStream on n doubles, 256 work-items per workgroup: achieved TB/s (BabelStream's byte counts).
double stream_tbps(const std::string& arch, const std::string& kernel, uint64_t n) {
  const uint64_t groups = (n + 255) / 256;
  std::string args;
  double arrays = 2;
  if (kernel == "stream_copy") args = fmt::format("  - {{name: a, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: c, buffer: f64, count: {0}, output: true}}\n", n);
  if (kernel == "stream_mul") args = fmt::format("  - {{name: b, buffer: f64, count: {0}, output: true}}\n  - {{name: c, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n", n);
  if (kernel == "stream_add" || kernel == "stream_triad") {
    arrays = 3;
    args = kernel == "stream_add"
               ? fmt::format("  - {{name: a, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: b, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: c, buffer: f64, count: {0}, output: true}}\n", n)
               : fmt::format("  - {{name: a, buffer: f64, count: {0}, output: true}}\n  - {{name: b, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: c, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n", n);
  }
  uint64_t grid = groups;
  std::string extra;
  if (kernel == "stream_dot") {
    grid = 1216;  // 4 workgroups per CU, grid-stride
    args = fmt::format("  - {{name: a, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: b, buffer: f64, count: {0}, init: {{uniform: [0, 1]}}}}\n  - {{name: sums, buffer: f64, count: {1}, output: true}}\n", n, grid);
    extra = fmt::format("  - {{name: groups, value: {}, type: u32}}\n", grid);
  }
  auto m = model(arch, fmt::format("kernel: {}\ngrid: [{}, 1, 1]\nblock: [256, 1, 1]\nargs:\n{}  - {{name: n, value: {}, type: u32}}\n{}", kernel,
                                   grid, args, n, extra));
  return arrays * 8.0 * n / (m.microseconds * 1e-6) / 1e12;
}

double read_tbps(const std::string& arch, uint64_t bytes) {
  const uint64_t n4 = bytes / 16, grid = 304 * 8;
  auto m = model(arch, fmt::format(R"(kernel: read_f32x4
grid: [{0}, 1, 1]
block: [256, 1, 1]
args:
  - {{name: a, buffer: f32, count: {1}, init: {{uniform: [0, 1]}}}}
  - {{name: out, buffer: f32, count: {2}, output: true}}
  - {{name: n4, value: {3}, type: u32}}
  - {{name: groups, value: {0}, type: u32}}
)", grid, n4 * 4, grid * 256, n4));
  return static_cast<double>(bytes) / (m.microseconds * 1e-6) / 1e12;
}

// MFMA issue-to-issue cycles on one SIMD: one wave, four independent chains, difference of two lengths.
std::pair<double, double> mfma(const std::string& arch, const std::string& kernel, uint64_t groups, uint32_t iters) {
  const bool f16 = kernel.find("f16") != std::string::npos;
  auto spec = [&](uint32_t it, uint64_t g) {
    return fmt::format("kernel: {}\ngrid: [{}, 1, 1]\nblock: [{}, 1, 1]\nargs:\n  - {{name: ab, buffer: {}, count: {}, init: {{uniform: [0, 1]}}}}\n"
                       "  - {{name: out, buffer: f32, count: 256, output: true}}\n  - {{name: iters, value: {}, type: u32}}\n",
                       kernel, g, g == 1 ? 64 : 256, f16 ? "f16" : "f32", f16 ? 2048 : 512, it);
  };
  if (groups == 1) {
    const double a = static_cast<double>(model(arch, spec(iters, 1)).cycles), b = static_cast<double>(model(arch, spec(2 * iters, 1)).cycles);
    return {(b - a) / (8.0 * iters), 0};
  }
  auto m = model(arch, spec(iters, groups));  // every SIMD of every CU busy: the clock under dense MFMA
  return {0, m.clock_ghz};
}

struct Row {
  std::string name, unit;
  double measured;
  std::string source;
  bool fit;
  std::function<double()> modeled;
};

}  // namespace

int main() {
  const uint64_t kStream = 1ull << 25;  // BabelStream's default array size
  std::vector<Row> rows = {
      {"MI300X L2 hit latency (chase, 1 MiB)", "ns", 83, "fleet-amd-task, 81-85", true, [] { return chase_ns("gfx942", 1 << 20, true); }},
      {"MI300X MALL hit latency (chase, 16 MiB)", "ns", 259, "fleet-amd-task, 256-262", true, [] { return chase_ns("gfx942", 16 << 20, true); }},
      {"MI300X HBM latency (chase, cold)", "ns", 347, "fleet-amd-task, 341-353", true, [] { return chase_ns("gfx942", 16 << 20, false); }},
      {"MI300X MALL latency, Chips and Cheese", "ns", 218, "Chips and Cheese MI300X", false, [] { return chase_ns("gfx942", 16 << 20, true); }},
      {"MI210 vL1D latency (chase, 8 KiB)", "ns", 73.6, "Chips and Cheese MI210 (gfx90a row)", false, [] { return chase_ns("gfx90a", 8 << 10, true); }},
      {"MI210 L2 latency (chase, 1 MiB)", "ns", 141.5, "Chips and Cheese MI210, 137-146", false, [] { return chase_ns("gfx90a", 1 << 20, true); }},
      {"MI210 HBM latency (chase, cold)", "ns", 339.5, "gpu-benches mi210, 335-344", false, [] { return chase_ns("gfx90a", 16 << 20, false); }},
      {"MI300X BabelStream Copy", "TB/s", 4.12, "Azure / fleet-amd-task, 4.11-4.13", true, [&] { return stream_tbps("gfx942", "stream_copy", kStream); }},
      {"MI300X BabelStream Mul", "TB/s", 4.18, "Azure / fleet-amd-task, 4.10-4.26", true, [&] { return stream_tbps("gfx942", "stream_mul", kStream); }},
      {"MI300X BabelStream Add", "TB/s", 4.02, "Azure / fleet-amd-task, 3.90-4.14", false, [&] { return stream_tbps("gfx942", "stream_add", kStream); }},
      {"MI300X BabelStream Triad", "TB/s", 4.025, "Azure / fleet-amd-task, 3.96-4.09", false, [&] { return stream_tbps("gfx942", "stream_triad", kStream); }},
      {"MI300X BabelStream Dot", "TB/s", 3.935, "Azure / fleet-amd-task, 3.87-4.00", false, [&] { return stream_tbps("gfx942", "stream_dot", kStream); }},
      {"MI300X plain read, 1 GiB", "TB/s", 3.82, "fleet-amd-task", false, [] { return read_tbps("gfx942", 1ull << 30); }},
      {"MI250X GCD BabelStream Copy", "TB/s", 1.35, "ROCm blog seismic stencils, 1.3-1.4", false, [&] { return stream_tbps("gfx90a", "stream_copy", kStream); }},
      {"gfx942 MFMA f16 32x32x8 issue-to-issue", "cycles", 32, "AMD matrix instruction calculator [V]", true, [] { return mfma("gfx942", "mfma_32x32x8f16", 1, 16).first; }},
      {"gfx942 MFMA f32 16x16x4 issue-to-issue", "cycles", 32, "AMD matrix instruction calculator [V]", true, [] { return mfma("gfx942", "mfma_16x16x4f32", 1, 16).first; }},
      {"gfx942 MFMA f16 16x16x16 issue-to-issue", "cycles", 16, "AMD matrix instruction calculator [V]", false, [] { return mfma("gfx942", "mfma_16x16x16f16", 1, 16).first; }},
      {"gfx942 MFMA f32 32x32x2 issue-to-issue", "cycles", 64, "AMD matrix instruction calculator [V]", false, [] { return mfma("gfx942", "mfma_32x32x2f32", 1, 16).first; }},
      {"gfx90a MFMA f16 32x32x8 issue-to-issue", "cycles", 64, "AMD matrix instruction calculator [V]", false, [] { return mfma("gfx90a", "mfma_32x32x8f16", 1, 16).first; }},
      {"MI300X clock under dense f16 MFMA", "GHz", 1.115, "ROCm MAF blog part 2 (FP16 GEMM)", true, [] { return mfma("gfx942", "mfma_32x32x8f16", 1216, 64).second; }},
  };
  fmt::print("| row | measured | modeled | error % | half | source |\n|---|---:|---:|---:|---|---|\n");
  double abs_err[2] = {0, 0}, sum[2] = {0, 0};
  unsigned count[2] = {0, 0};
  try {
    for (const auto& r : rows) {
      const double m = r.modeled();
      const double err = (m - r.measured) / r.measured;
      fmt::print("| {} | {:.4g} {} | {:.4g} {} | {:+.1f} | {} | {} |\n", r.name, r.measured, r.unit, m, r.unit, 100 * err,
                 r.fit ? "fit" : "held-out", r.source);
      std::fflush(stdout);
      abs_err[r.fit ? 0 : 1] += std::abs(m - r.measured) / r.measured;  // WMAPE over rows of different units: per-row weights 1
      sum[r.fit ? 0 : 1] += 1;
      ++count[r.fit ? 0 : 1];
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
  fmt::print("\nMAPE (WMAPE with every row weighted equally, as the rows have different units): fit {:.1f} % over {} rows, "
             "held-out {:.1f} % over {} rows\n",
             100 * abs_err[0] / sum[0], count[0], 100 * abs_err[1] / sum[1], count[1]);
  return 0;
}
