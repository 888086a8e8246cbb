// sampling_bench [--exact-too] [--figures] [--only SUBSTRING] [--shard I/N] [--warming-share S] [--slice own-cus|xcd-window]
//                [--probe-peers N] [--launches DIR] [ARCH]:
// how long modeling one large launch takes on
// one core, sampled (the default of asmevo time) and, with --exact-too, exact: every launch under
// bench/timing/launches (a 4096^3 and a 1024^3 GEMM, a 64M-element elementwise kernel, ...) and every
// perf launch of every corpus launch spec (the launch `asmevo time` models; a v2 spec's first
// verification launch). CPU seconds of this process (one emulator thread), split into launch
// preparation (buffers), emulation with the trace recorder, and the model's replay; the summary counts
// the launches over the issue's 1 s goal. Every time in the table is MODELED, not measured.
// --launches DIR: only the launch specs of DIR (each spec's first perf launch), e.g. bench/timing/reuse, the
// GEMM-like launches whose cross-workgroup reuse the sample may lose (docs/timing.md, "Sampling");
// --slice: which workgroups a sample's slice runs (timing::SliceWorkgroups); --probe-peers N: the reuse probe's
// co-residents at most (timing::SampleOptions::reuse_probe_peers; 0: no probe, the sample as before the probe).
// --figures: after each row, every modeled count in full (cycles, bytes per level, instructions, the error bound's
// bits) and a digest of the per-instruction profile and workgroup end times: what a change that claims to leave the
// model's figures alone diffs before and after (the table rounds them).
// --shard I/N: only the launches at positions I, I + N, I + 2N, ... of the list (after --only), so that N processes,
// one a core, time every launch between them (each still one core: docs/timing.md, "Sampling", gives the command).
#include <algorithm>
#include <bit>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
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
  std::string name, object;
  emu::LaunchSpec run;
};

// CPU seconds of the row.
timing::SliceWorkgroups slice_workgroups = timing::SampleOptions{}.slice_workgroups;
unsigned probe_peers = timing::SampleOptions{}.reuse_probe_peers;
bool print_figures = false;

// FNV-1a over the bits of the model's per-instruction profile and workgroup end times.
uint64_t profile_digest(const timing::ModelResult& m) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ (v >> (8 * i) & 0xff)) * 0x100000001b3ull;
  };
  for (const auto& p : m.per_inst) {
    add(p.executions), add(std::bit_cast<uint64_t>(p.issue_cycles));
    for (double s : p.stall) add(std::bit_cast<uint64_t>(s));
  }
  for (uint64_t e : m.group_end) add(e);
  return h;
}

double row(const Case& c, bool exact, double warming_share) {
  const emu::LaunchSpec& spec = c.run;
  auto co = codeobj::CodeObject::parse(read_file_bytes(c.object), c.object);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  if (!k) throw Error("no kernel " + spec.kernel, c.object);
  timing::SampleOptions so;
  so.exact = exact;
  so.warming_budget_share = warming_share;
  so.slice_workgroups = slice_workgroups;
  so.reuse_probe_peers = probe_peers;
  const double t0 = cpu_seconds();
  timing::ModeledRun r = timing::model_kernel({&co, k, &spec}, 1, so);
  const double total = cpu_seconds() - t0;
  const auto& m = r.model;
  // ModeledRun's stage times are wall-clock (the machine may be shared): report their shares of the CPU total.
  const double wall = std::max(1e-9, r.prepare_seconds + r.emulate_seconds + r.model_seconds);
  fmt::print("| {} | {} | {} | {:.3f} | {} | {} | {} | {:.1f} | {:.1f} / {:.1f} | {:.3f} | {:.0f} / {:.0f} / {:.0f} |\n", c.name,
             exact ? "exact" : "sampled", m.workgroups, m.microseconds, m.sample.sampled ? m.sample.simulated_groups : m.workgroups,
             r.sample.warming_groups, r.sample.probe_groups, 100 * m.sample.error_bound, m.hbm_bytes / 1e6, m.mall_bytes / 1e6, total, 100 * r.prepare_seconds / wall, 100 * r.emulate_seconds / wall,
             100 * r.model_seconds / wall);
  if (print_figures)
    fmt::print("figures {} {}: cycles {} waves {} wave_instructions {} hbm {} mall {} l2 {} l1 {} lds {} unique {} flops {:a} "
               "error_bound {:a} simulated {} profile {:016x}\n",
               c.name, exact ? "exact" : "sampled", m.cycles, m.waves, m.wave_instructions, m.hbm_bytes, m.mall_bytes, m.l2_bytes,
               m.l1_bytes, m.lds_bytes, m.unique_bytes, m.flops, m.sample.error_bound, m.sample.simulated_groups, profile_digest(m));
  std::fflush(stdout);
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  bool exact_too = false;
  double warming_share = timing::SampleOptions{}.warming_budget_share;
  std::string arch = "gfx942", only, launches_dir;
  unsigned shard = 0, shards = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--exact-too") exact_too = true;
    else if (a == "--figures") print_figures = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--warming-share" && i + 1 < argc) warming_share = std::stod(argv[++i]);
    else if (a == "--launches" && i + 1 < argc) launches_dir = argv[++i];
    else if (a == "--shard" && i + 1 < argc) {
      const std::string v = argv[++i];
      const size_t slash = v.find('/');
      try {
        if (slash == std::string::npos) throw std::invalid_argument(v);
        shard = static_cast<unsigned>(std::stoul(v.substr(0, slash)));
        shards = static_cast<unsigned>(std::stoul(v.substr(slash + 1)));
      } catch (const std::exception&) {
        shards = 0;
      }
      if (shards == 0 || shard >= shards) {
        fmt::print(stderr, "--shard {}: expected I/N with 0 <= I < N, e.g. --shard 3/16\n", v);
        return 2;
      }
    }
    else if (a == "--probe-peers" && i + 1 < argc) probe_peers = static_cast<unsigned>(std::stoul(argv[++i]));
    else if (a == "--slice" && i + 1 < argc) {
      const std::string m = argv[++i];
      if (m != "own-cus" && m != "xcd-window") {
        fmt::print(stderr, "--slice {}: expected own-cus or xcd-window\n", m);
        return 2;
      }
      slice_workgroups = m == "own-cus" ? timing::SliceWorkgroups::OwnCus : timing::SliceWorkgroups::XcdWindow;
    }
    else arch = a;
  }
  std::vector<Case> cases;
  const fs::path launches = launches_dir.empty() ? fs::path(ASMEVO_SOURCE_DIR) / "bench/timing/launches" : fs::path(launches_dir);
  if (!fs::is_directory(launches)) {
    fmt::print(stderr, "--launches {}: not a directory of launch specs\n", launches.string());
    return 2;
  }
  std::vector<fs::path> specs;
  for (const auto& e : fs::directory_iterator(launches))
    if (e.path().extension() == ".yaml") specs.push_back(e.path());
  std::sort(specs.begin(), specs.end());
  for (const auto& p : specs) {
    auto spec = emu::load_launch_spec(p.string());
    auto ks = corpus::kernels(arch, std::vector<std::string>{spec.kernel});
    cases.push_back({"bench/" + p.stem().string(), ks.at(0).code_object, emu::perf_runs(spec).at(0)});
  }
  for (const auto& k : launches_dir.empty() ? corpus::kernels(arch) : std::vector<corpus::Kernel>{})
    for (auto& run : emu::perf_runs(emu::load_launch_spec(k.spec)))
      cases.push_back({std::string(corpus::set_name(k.set)) + "/" + fs::path(k.spec).stem().string() + ":" + run.perf_name,
                       k.code_object, std::move(run)});
  std::erase_if(cases, [&](const Case& c) { return c.name.find(only) == std::string::npos; });
  for (size_t i = 0, kept = 0; i < cases.size(); ++i)
    if (i % shards == shard) {
      if (kept != i) cases[kept] = std::move(cases[i]);
      ++kept;
    }
  cases.resize((cases.size() + shards - 1 - shard) / shards);
  fmt::print("## {} -- modeled times (asmevo timing model), not measured; cost in CPU seconds, one core\n\n", arch);
  fmt::print("| launch | mode | workgroups | modeled us | simulated workgroups | warming workgroups | probed workgroups | bound % | HBM / MALL MB | CPU s | prepare / emulate / replay % |\n");
  fmt::print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|\n");
  std::vector<double> seconds;
  try {
    for (const auto& c : cases) {
      seconds.push_back(row(c, false, warming_share));
      if (exact_too) row(c, true, warming_share);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const auto over = std::count_if(seconds.begin(), seconds.end(), [](double t) { return t > 1.0; });
  if (!sorted.empty())
    fmt::print("\n{} launches sampled: median {:.3f} CPU s, max {:.3f} CPU s, {} over the 1 s goal, total {:.1f} CPU s\n", sorted.size(),
               sorted[sorted.size() / 2], sorted.back(), over, [&] { double t = 0; for (double x : sorted) t += x; return t; }());
  return 0;
}
