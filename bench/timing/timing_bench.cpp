// timing_bench [ARCH...] [--repeat N]: for every corpus kernel (HIP and Triton) built for ARCH
// (default gfx942): the modeled time, the roofline bound, their ratio and the top stall reason, then
// what the model costs: emulation with the trace recorder plus the replay, against plain emulation
// (decode + launch preparation + one emulator thread each, best of N runs). Every time in the table is MODELED, not measured.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "timing/llvm_sched.h"
#include "timing/profile.h"
#include "corpus/index/corpus.h"

namespace fs = std::filesystem;
using namespace asmevo;

namespace {

struct Case {
  std::string name, object, spec;
};

std::vector<Case> corpus_cases(const std::string& arch) {
  std::vector<Case> out;
  for (const auto& k : corpus::kernels(arch))
    out.push_back({std::string(corpus::set_name(k.set)) + "/" + fs::path(k.spec).stem().string(), k.code_object, k.spec});
  return out;
}

// What `asmevo run` does: decode, prepare the launch, emulate (one thread).
double plain_emulation_seconds(const codeobj::CodeObject& co, const codeobj::Kernel& k, const emu::LaunchSpec& spec) {
  auto t0 = std::chrono::steady_clock::now();
  program::Decoder decoder(co.target());
  auto prog = emu::Program::build(co, k, decoder);
  auto launch = emu::prepare_launch(co, k, spec, 1);
  emu::RunOptions ro;
  ro.threads = 1;
  emu::run_launch(*launch, *prog, ro);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> archs;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else archs.push_back(a);
  }
  if (archs.empty()) archs = {"gfx942"};
  try {
    for (const auto& arch : archs) {
      fmt::print("\n## {} -- all times MODELED (asmevo timing model), not measured\n\n", arch);
      fmt::print("| kernel | modeled us | roofline us | ratio | roofline bound | top stall | emulate s | modeled run s (record + replay) | cost x |\n");
      fmt::print("|---|---:|---:|---:|---|---|---:|---:|---:|\n");
      double sum_emu = 0, sum_model = 0, worst_cost = 0;
      std::vector<double> ours, llvms;  // per straight-line window: modeled cycles per execution, LLVM's estimate
      std::string worst;
      for (const auto& c : corpus_cases(arch)) {
        auto spec = emu::load_launch_spec(c.spec);
        auto co = codeobj::CodeObject::parse(read_file_bytes(c.object), c.object);
        const codeobj::Kernel* k = co.kernel(spec.kernel);
        if (!k) continue;
        double emu_s = 1e30, run_s = 1e30;
        timing::ModeledRun r;
        for (int i = 0; i < repeat; ++i) {
          emu_s = std::min(emu_s, plain_emulation_seconds(co, *k, spec));
          auto t0 = std::chrono::steady_clock::now();
          r = timing::model_kernel({&co, k, &spec}, 1);
          run_s = std::min(run_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        const auto& m = r.model;
        {
          timing::LlvmSchedModel llvm_model(co.target());
          for (const auto& w : timing::hot_windows(*r.program, m, 64, 1000)) {
            const auto execs = m.per_inst[w.first].executions;
            if (!execs) continue;
            std::vector<const program::Instruction*> insts;
            for (uint32_t i = w.first; i <= w.last; ++i) insts.push_back(r.program->insts()[i].raw);
            ours.push_back(w.cycles / static_cast<double>(execs));
            llvms.push_back(llvm_model.estimate(insts));
          }
        }
        const double roof_us = m.roofline_cycles / (m.hw->clock_ghz * 1e3);
        const double cost = emu_s > 0 ? run_s / emu_s : 0;
        sum_emu += emu_s, sum_model += run_s;
        if (cost > worst_cost) worst_cost = cost, worst = c.name;
        fmt::print("| {} | {:.3f} | {:.4f} | {:.1f} | {} | {} | {:.4f} | {:.4f} ({:.4f} + {:.4f}) | {:.2f} |\n", c.name,
                   m.microseconds, roof_us, roof_us > 0 ? m.microseconds / roof_us : 0.0, m.roofline_bound,
                   timing::stall_name(m.top_stall()), emu_s, run_s, r.emulate_seconds, r.model_seconds, cost);
      }
      fmt::print("\nsecond opinion: Spearman rank correlation of modeled cycles per window execution with LLVM's "
                 "MCSchedModel estimate over {} straight-line windows: {:.3f}\n",
                 ours.size(), timing::spearman(ours, llvms));
      fmt::print("\nmodel cost over the corpus: modeled runs {:.3f} s vs plain emulation {:.3f} s = {:.2f}x (worst kernel {} {:.2f}x)\n",
                 sum_model, sum_emu, sum_emu > 0 ? sum_model / sum_emu : 0.0, worst, worst_cost);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.format());
    return e.exit_code();
  }
  return 0;
}
