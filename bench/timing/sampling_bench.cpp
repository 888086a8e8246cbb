// sampling_bench [--exact-too] [ARCH]: how long modeling one large launch takes on one core, sampled
// (the default of asmevo time) and, with --exact-too, exact: every launch under bench/timing/launches
// (a 4096^3 and a 1024^3 GEMM, a 64M-element elementwise kernel, ...) and every corpus launch spec.
// CPU seconds of this process (one emulator thread), split into launch preparation (buffers), emulation
// with the trace recorder, and the model's replay. Every time in the table is MODELED, not measured.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"

namespace fs = std::filesystem;
using namespace asmevo;

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Case {
  std::string name, object, spec;
};

void row(const Case& c, bool exact) {
  auto spec = emu::load_launch_spec(c.spec);
  auto co = codeobj::CodeObject::parse(read_file_bytes(c.object), c.object);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  if (!k) throw Error("no kernel " + spec.kernel, c.object);
  timing::SampleOptions so;
  so.exact = exact;
  const double t0 = cpu_seconds();
  timing::ModeledRun r = timing::model_kernel({&co, k, &spec}, 1, so);
  const double total = cpu_seconds() - t0;
  const auto& m = r.model;
  // ModeledRun's stage times are wall-clock (the machine may be shared): report their shares of the CPU total.
  const double wall = std::max(1e-9, r.prepare_seconds + r.emulate_seconds + r.model_seconds);
  fmt::print("| {} | {} | {} | {:.3f} | {} | {:.1f} | {:.3f} | {:.0f} / {:.0f} / {:.0f} |\n", c.name, exact ? "exact" : "sampled",
             m.workgroups, m.microseconds, m.sample.sampled ? m.sample.simulated_groups : m.workgroups,
             100 * m.sample.error_bound, total, 100 * r.prepare_seconds / wall, 100 * r.emulate_seconds / wall,
             100 * r.model_seconds / wall);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool exact_too = false;
  std::string arch = "gfx942";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--exact-too") exact_too = true;
    else arch = a;
  }
  std::vector<Case> cases;
  const fs::path launches = fs::path(ASMEVO_SOURCE_DIR) / "bench/timing/launches";
  std::vector<fs::path> specs;
  for (const auto& e : fs::directory_iterator(launches))
    if (e.path().extension() == ".yaml") specs.push_back(e.path());
  std::sort(specs.begin(), specs.end());
  for (const auto& p : specs) {
    auto spec = emu::load_launch_spec(p.string());
    auto ks = corpus::kernels(arch, std::vector<std::string>{spec.kernel});
    cases.push_back({"bench/" + p.stem().string(), ks.at(0).code_object, p.string()});
  }
  for (const auto& k : corpus::kernels(arch))
    cases.push_back({std::string(corpus::set_name(k.set)) + "/" + fs::path(k.spec).stem().string(), k.code_object, k.spec});
  fmt::print("## {} -- modeled times (asmevo timing model), not measured; cost in CPU seconds, one core\n\n", arch);
  fmt::print("| launch | mode | workgroups | modeled us | simulated workgroups | bound % | CPU s | prepare / emulate / replay % |\n");
  fmt::print("|---|---|---:|---:|---:|---:|---:|---|\n");
  try {
    for (const auto& c : cases) {
      row(c, false);
      if (exact_too) row(c, true);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
  return 0;
}
