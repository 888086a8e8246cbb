// bench/occupancy: for every corpus kernel of one arch (or --set / --only), at each perf launch of
// its spec: the registers its KD allocates and the highest ones its code names, the waves per SIMD
// each resource allows (codeobj::compute_occupancy: VGPRs, SGPRs, LDS, workgroup size), which one
// binds, the workgroups a CU holds, how many rounds of workgroups the grid needs at that residency,
// what one more wave per SIMD would need (VGPRs/SGPRs at most), and the MODELED time (the asmevo
// timing model on the perf launch, not a measurement). A kernel whose grid fills the device in
// under one round gains nothing from more resident waves in the model (there is no one to make
// resident); a kernel bound by LDS or the workgroup size gains nothing from fewer registers.
//
//   occupancy_bench [--arch gfx942] [--set hip|kernelbench|triton] [--only k1,k2] [--json FILE]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "codeobj/code_object.h"
#include "codeobj/resources.h"
#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "program/program.h"
#include "support/error.h"
#include "support/file_io.h"
#include "support/text.h"
#include "timing/backend.h"
#include "timing/hw_params.h"

using namespace asmevo;

namespace {

// The most registers of a file (allocation granule `granule`, `per_simd` of them per SIMD) that
// still allow `waves` waves per SIMD (0: none do).
unsigned most_registers_for(unsigned waves, unsigned per_simd, unsigned granule) {
  if (waves == 0) return 0;
  return per_simd / waves / granule * granule;
}

}  // namespace

int main(int argc, char** argv) {
  std::string arch = "gfx942", set, only, json_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "error: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--arch") arch = next();
    else if (a == "--set") set = next();
    else if (a == "--only") only = next();
    else if (a == "--json") json_path = next();
    else {
      std::cerr << "error: unknown option " << a
                << "\nusage: occupancy_bench [--arch A] [--set hip|kernelbench|triton] [--only k1,k2] [--json FILE]\n";
      return 2;
    }
  }
  try {
    if (!set.empty() && set != "hip" && set != "kernelbench" && set != "triton")
      throw Error("unknown set '" + set + "'", "--set", "use hip, kernelbench or triton");
    std::vector<corpus::Kernel> kernels = corpus::kernels(arch, split_commas(only));
    if (!set.empty()) std::erase_if(kernels, [&](const corpus::Kernel& k) { return set != corpus::set_name(k.set); });
    nlohmann::json rows = nlohmann::json::array();
    fmt::print("{:<30} {:<10} {:>9} {:>9} {:>5} {:>5} {:>5} {:>4} {:>4} {:>4} {:>4} {:>3} {:<9} {:>4} {:>7} {:>9} {:>11}\n", "kernel",
               "perf", "vgpr kd", "vgpr use", "agpr", "sgpr", "lds KB", "byV", "byS", "byL", "byW", "w", "limiter", "wg/CU",
               "rounds", "+1w needs", "modeled us");
    for (const corpus::Kernel& k : kernels) {
      auto bytes = read_file_bytes(k.code_object);
      auto co = codeobj::CodeObject::parse(bytes, k.code_object);
      const codeobj::Kernel* kernel = co.kernel(k.name);
      if (!kernel) throw Error("no kernel " + k.name, k.code_object, "");
      const codeobj::ArchParams* ap = codeobj::arch_params(co.target().arch);
      if (!ap || !kernel->resources) throw Error("no resource table for " + k.name, k.code_object, "use gfx90a, gfx942 or gfx950");
      const timing::HwParams& hw = timing::hw_params(co.target().arch);
      const auto& res = *kernel->resources;
      const program::RegisterUse use = program::Program::recover(co).register_use(k.name);
      emu::LaunchSpec spec = emu::load_launch_spec(k.spec);
      for (const emu::LaunchSpec& run : emu::perf_runs(spec)) {
        const codeobj::Occupancy occ = timing::launch_occupancy(co, *kernel, run);
        const uint64_t groups = static_cast<uint64_t>(run.grid[0]) * run.grid[1] * run.grid[2];
        const double rounds = occ.workgroups_per_cu ? static_cast<double>(groups) / (hw.cus * occ.workgroups_per_cu) : 0;
        // One more wave by registers: the allocation each file would need (only the binding ones matter).
        const unsigned want = occ.waves_per_simd + 1;
        const unsigned vgpr_for = most_registers_for(want, ap->vgprs_per_simd_lane, ap->vgpr_alloc_granule);
        const unsigned sgpr_for = most_registers_for(want, ap->sgprs_per_simd, ap->sgpr_alloc_granule);
        std::string needs;
        if (occ.waves_per_simd >= ap->max_waves_per_simd) needs = "at max";
        else if (occ.by_lds < want || occ.by_workgroup < want) needs = occ.by_lds < want ? "LDS" : "wg size";
        else {
          if (occ.by_vgprs < want) needs += fmt::format("v<={}", vgpr_for);
          if (occ.by_sgprs < want) needs += fmt::format("{}s<={}", needs.empty() ? "" : ",", sgpr_for);
        }
        timing::ModeledRun m = timing::model_kernel({&co, kernel, &run}, 1);
        fmt::print("{:<30} {:<10} {:>9} {:>9} {:>5} {:>5} {:>6.1f} {:>4} {:>4} {:>4} {:>4} {:>3} {:<9} {:>4} {:>7.2f} {:>9} {:>11.3f}\n",
                   k.name.substr(0, 30), run.perf_name.substr(0, 10), res.vgprs_allocated, use.max_vgpr + 1, res.agprs,
                   res.sgprs_allocated, (res.lds_bytes + run.dynamic_lds) / 1024.0, occ.by_vgprs, occ.by_sgprs, occ.by_lds,
                   occ.by_workgroup, occ.waves_per_simd, occ.limiter, occ.workgroups_per_cu, rounds, needs, m.model.microseconds);
        rows.push_back({{"kernel", k.name},
                        {"set", corpus::set_name(k.set)},
                        {"perf", run.perf_name},
                        {"vgprs_allocated", res.vgprs_allocated},
                        {"arch_vgprs", res.arch_vgprs},
                        {"agprs", res.agprs},
                        {"sgprs_allocated", res.sgprs_allocated},
                        {"max_vgpr_named", use.max_vgpr},
                        {"max_agpr_named", use.max_agpr},
                        {"max_sgpr_named", use.max_sgpr},
                        {"lds_bytes", res.lds_bytes + run.dynamic_lds},
                        {"workgroup_size", run.block[0] * run.block[1] * run.block[2]},
                        {"workgroups", groups},
                        {"by_vgprs", occ.by_vgprs},
                        {"by_sgprs", occ.by_sgprs},
                        {"by_lds", occ.by_lds},
                        {"by_workgroup", occ.by_workgroup},
                        {"waves_per_simd", occ.waves_per_simd},
                        {"limiter", occ.limiter},
                        {"workgroups_per_cu", occ.workgroups_per_cu},
                        {"rounds", rounds},
                        {"one_more_wave_needs", needs},
                        {"modeled_us", m.model.microseconds},
                        {"sampled", m.model.sample.sampled}});
      }
    }
    if (!json_path.empty())
      write_file_atomic(json_path, nlohmann::json({{"schema", "asmevo.occupancy-bench/1"}, {"arch", arch}, {"figures", "modeled"}, {"rows", rows}}).dump(1));
    return 0;
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
