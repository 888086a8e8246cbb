// bench/speedups: `optimize` with a fixed budget and seed over every corpus kernel (HIP and Triton,
// one arch), one table: kernel, baseline and best modeled µs, speedup, candidates, accepted,
// re-verification verdict, accepted moves; then the geomean, the max, how many improved, and the
// candidates-per-second rate. Every time is MODELED (the asmevo timing model), not measured, on the
// spec's perf launches (the geomean of their modeled times when several; each row names them).
//
//   speedups_bench [--arch gfx942] [--budget 40] [--seed 1] [--proposers rules,stochastic]
//                  [--only k1,k2] [--jobs 1] [--json FILE]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "corpus/index/corpus.h"
#include "search/optimizer.h"
#include "search/store.h"
#include "support/error.h"
#include "support/file_io.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string arch = "gfx942", proposers = "rules,stochastic", only, json_path;
  size_t budget = 40;
  uint64_t seed = 1;
  unsigned jobs = 1;
  std::string proof = "measure";
  unsigned proof_timeout_ms = 2000;
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
    else if (a == "--budget") budget = std::stoul(next());
    else if (a == "--seed") seed = std::stoull(next());
    else if (a == "--proposers") proposers = next();
    else if (a == "--only") only = next();
    else if (a == "--jobs") jobs = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--json") json_path = next();
    else if (a == "--proof") proof = next();
    else if (a == "--proof-timeout") proof_timeout_ms = static_cast<unsigned>(std::stoul(next()));
    else {
      std::cerr << "usage: speedups_bench [--arch A] [--budget N] [--seed S] [--proposers P] [--only K,..] [--jobs N] [--json FILE] [--proof gate|measure|off] [--proof-timeout MS]\n";
      return 2;
    }
  }
  try {
    const auto kernels = corpus::kernels(arch, split(only));
    const fs::path tmp = fs::temp_directory_path() / fmt::format("asmevo-speedups-{}", ::getpid());
    fs::create_directories(tmp);
    search::OptimizeOptions o;
    o.budget = budget;
    o.seed = seed;
    o.jobs = jobs;
    o.proposers = split(proposers);
    if (proof == "gate") o.proof = search::CascadeOptions::Proof::Gate;
    else if (proof == "measure") o.proof = search::CascadeOptions::Proof::Measure;
    else if (proof == "off") o.proof = search::CascadeOptions::Proof::Off;
    else throw Error("--proof must be gate, measure or off", proof, "");
    o.proof_timeout_ms = proof_timeout_ms;
    std::vector<search::ProofStat> proofs;
    std::cout << fmt::format("bench/speedups: {} kernels on {}, budget {} candidates each, seed {}, proposers {} -- times MODELED\n",
                             kernels.size(), arch, budget, seed, proposers);
    std::cout << fmt::format("{:<34} {:>11} {:>11} {:>8} {:>6} {:>5} {:<11} {:>6}  {:<28} {}\n", "kernel", "base us", "best us", "speedup",
                             "cands", "acc", "re-verify", "sec", "perf launch(es)", "accepted moves");
    nlohmann::json rows = nlohmann::json::array();
    double log_sum = 0, max_speedup = 0, total_s = 0;
    size_t improved = 0, total_candidates = 0, failed = 0;
    for (const auto& k : kernels) {
      const auto start = std::chrono::steady_clock::now();
      std::string moves, verdict, error;
      search::KernelOutcome out;
      try {
        search::Store store((tmp / (k.name + ".sqlite")).string());
        search::KernelJob job{k.name, k.spec, {emu::load_launch_spec(k.spec)}};
        auto r = search::optimize(read_file_bytes(k.code_object), k.code_object, {job}, store, o, "speedups_bench");
        out = r.kernels.at(0);
        proofs.insert(proofs.end(), out.proofs.begin(), out.proofs.end());
        for (const auto& [m, n] : out.accepted_moves) moves += (moves.empty() ? "" : ", ") + fmt::format("{} x{}", m, n);
        verdict = out.final_verdict == "EQUIVALENT" ? "EQUIVALENT" : (out.accepted ? "FAILED" : "-");
      } catch (const Error& e) {
        error = e.format();
        ++failed;
      }
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      total_s += secs;
      if (!error.empty()) {
        std::cout << fmt::format("{:<34} ERROR {}\n", k.name, error);
        rows.push_back({{"kernel", k.name}, {"error", error}});
        continue;
      }
      const double s = out.speedup();
      log_sum += std::log(s);
      max_speedup = std::max(max_speedup, s);
      improved += s > 1.0;
      total_candidates += out.candidates_this_run;
      std::string launches;
      for (const auto& l : out.baseline_launches) launches += (launches.empty() ? "" : "+") + l.name;
      if (out.baseline_launches.size() > 1) launches = "geomean " + launches;
      std::cout << fmt::format("{:<34} {:>11.3f} {:>11.3f} {:>7.3f}x {:>6} {:>5} {:<11} {:>6.1f}  {:<28} {}\n", k.name, out.baseline_us,
                               out.best_us, s, out.candidates_this_run, out.accepted, verdict, secs, launches, moves.empty() ? "-" : moves)
                << std::flush;
      nlohmann::json rejected = out.rejected_at;
      rows.push_back({{"kernel", k.name}, {"code_object", k.code_object}, {"baseline_us", out.baseline_us}, {"best_us", out.best_us},
                      {"baseline_cycles", out.baseline_cycles}, {"best_cycles", out.best_cycles}, {"speedup", s},
                      {"candidates", out.candidates_this_run}, {"accepted", out.accepted}, {"final_verdict", out.final_verdict},
                      {"accepted_moves", out.accepted_moves}, {"rejected_at", rejected}, {"seconds", secs},
                      {"fitness", out.fitness}, {"launches", nlohmann::json::parse(search::launches_json(out.baseline_launches))}});
    }
    const size_t n = kernels.size() - failed;
    const double geomean = n ? std::exp(log_sum / n) : 0;
    std::cout << fmt::format("geomean speedup {:.3f}x (modeled), max {:.3f}x, improved {}/{}, errors {}\n", geomean, max_speedup,
                             improved, n, failed);
    std::cout << fmt::format("{} candidates in {:.1f} s: {:.2f} candidates/s\n", total_candidates, total_s,
                             total_s > 0 ? total_candidates / total_s : 0.0);
    // The proof stage: verdict shares over every candidate that reached it, proof time per candidate,
    // and how many good candidates (passed full verification) window-level proofs refuse.
    std::map<std::string, size_t> shares, good_refused, good_refused_window, quick_refused, quick_refused_window;
    std::vector<double> times;
    size_t good = 0, quick_ok = 0;
    for (const auto& p : proofs) {
      ++shares[p.verdict];
      times.push_back(p.seconds);
      if (p.passed_emulate) {
        ++quick_ok;
        if (p.verdict != "PROVEN") ++quick_refused[p.verdict];
        if (!p.window_verdict.empty() && p.window_verdict != "PROVEN") ++quick_refused_window[p.window_verdict];
      }
      if (p.passed_verify) {
        ++good;
        if (p.verdict != "PROVEN") ++good_refused[p.verdict];
        if (!p.window_verdict.empty() && p.window_verdict != "PROVEN") ++good_refused_window[p.window_verdict];
      }
    }
    std::sort(times.begin(), times.end());
    auto pct = [&](double q) { return times.empty() ? 0.0 : times[std::min(times.size() - 1, static_cast<size_t>(q * times.size()))]; };
    auto share = [&](const std::string& v) { return proofs.empty() ? 0.0 : 100.0 * shares[v] / proofs.size(); };
    std::cout << fmt::format("proof stage ({}): {} candidates: PROVEN {:.1f} %, DISPROVEN {:.1f} %, UNKNOWN {:.1f} %; proof time median "
                             "{:.3f} s, p95 {:.3f} s\n",
                             proof, proofs.size(), share("PROVEN"), share("DISPROVEN"), share("UNKNOWN"), pct(0.5), pct(0.95));
    std::cout << fmt::format("good candidates (passed full verification) reaching the proof: {}; not PROVEN with liveness: DISPROVEN {}, "
                             "UNKNOWN {}; window-level (no liveness): DISPROVEN {}, UNKNOWN {}\n",
                             good, good_refused["DISPROVEN"], good_refused["UNKNOWN"], good_refused_window["DISPROVEN"],
                             good_refused_window["UNKNOWN"]);
    std::cout << fmt::format("candidates that passed the quick emulation: {}; not PROVEN with liveness: DISPROVEN {}, UNKNOWN {}; "
                             "window-level: DISPROVEN {}, UNKNOWN {}\n",
                             quick_ok, quick_refused["DISPROVEN"], quick_refused["UNKNOWN"], quick_refused_window["DISPROVEN"],
                             quick_refused_window["UNKNOWN"]);
    for (const auto& p : proofs)
      if (p.passed_emulate && p.verdict == "DISPROVEN") std::cout << fmt::format("  passed the quick run, DISPROVEN: {}: {}\n", p.move, p.detail);
    nlohmann::json proof_json = {{"passed_emulate", quick_ok}, {"passed_emulate_not_proven", quick_refused},
                                 {"passed_emulate_not_proven_window_level", quick_refused_window},{"mode", proof}, {"candidates", proofs.size()}, {"shares", shares}, {"median_s", pct(0.5)},
                                 {"p95_s", pct(0.95)}, {"good", good}, {"good_refused", good_refused},
                                 {"good_refused_window_level", good_refused_window}};
    if (!json_path.empty())
      write_file_atomic(json_path, nlohmann::json{{"schema", "asmevo.speedups/1"}, {"arch", arch}, {"budget", budget}, {"seed", seed},
                                                  {"figures", "modeled"}, {"geomean", geomean}, {"max", max_speedup},
                                                  {"improved", improved}, {"kernels", rows}, {"candidates", total_candidates},
                                                  {"seconds", total_s}, {"proof", proof_json}}.dump(2));
    fs::remove_all(tmp);
    return failed ? 1 : 0;
  } catch (const Error& e) {
    std::cerr << e.format() << "\n";
    return e.exit_code();
  }
}
