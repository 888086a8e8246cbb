// bench/speedups: `optimize` over every corpus kernel of one arch (HIP, KernelBench-style, Triton)
// on the specs' perf launches, with a candidate budget and/or a time budget per kernel. One table:
// kernel, set, baseline and best modeled µs, speedup, candidates, accepted, re-verification verdict,
// wins robust fitness removed, where the candidates' time went, accepted moves; then per set the
// geomean, the max and how many improved; then the ablation (each move family switched off).
// Every time is MODELED (the asmevo timing model), not measured.
//
//   speedups_bench [--arch gfx942] [--budget N] [--time SECONDS] [--seed 1] [--proposers rules,stochastic]
//                  [--only k1,k2] [--set hip|kernelbench|triton] [--jobs N] [--threads T] [--results FILE]
//                  [--summary] [--ablate [FAMILY,..]] [--robust-draws 4] [--proof late|gate|measure|off] [--json FILE]
//
// Kernels run in --jobs worker processes (this binary with --worker), each writing its row to a file;
// the parent merges every finished row into --results (written atomically), so a killed bench resumes
// where it stopped: a rerun with the same settings skips the kernels (and ablation runs) already there.
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "corpus/index/corpus.h"
#include "search/move.h"
#include "search/optimizer.h"
#include "search/store.h"
#include "support/error.h"
#include "support/text.h"
#include "support/file_io.h"

extern char** environ;

using namespace asmevo;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Settings {
  // Gate with the proof after timing by default: the cascade profile showed the proof at 97 % of a
  // candidate's time when every candidate is proved (docs/search.md). "measure" proves every one.
  std::string arch = "gfx942", proposers = "rules,stochastic", proof = "late";
  size_t budget = 40;
  double time_s = 0;
  uint64_t seed = 1;
  unsigned threads = 1, proof_timeout_ms = 2000, robust_draws = 4;
  // What a result depends on: a results file written with other settings is not resumed.
  json key() const {
    return {{"arch", arch}, {"proposers", proposers}, {"proof", proof}, {"budget", budget}, {"time", time_s},
            {"seed", seed}, {"proof_timeout_ms", proof_timeout_ms}, {"robust_draws", robust_draws}};
  }
  std::vector<std::string> args() const {
    return {"--arch", arch, "--proposers", proposers, "--proof", proof, "--budget", std::to_string(budget), "--time",
            fmt::format("{}", time_s), "--seed", std::to_string(seed), "--threads", std::to_string(threads), "--proof-timeout",
            std::to_string(proof_timeout_ms), "--robust-draws", std::to_string(robust_draws)};
  }
};

// The ablation families: each rule move, and the stochastic moves together. A compound of an enabling
// chain ("tile-load-batch+register-double-buffer", search.md "Enabling chains") is no family of its own:
// it belongs to each of its steps' families (switching either off removes the compound).
std::vector<std::string> families_of(const std::string& move) {
  std::vector<std::string> out;
  for (const std::string& step : split_nonempty(move, '+')) out.push_back(step.rfind("stochastic", 0) == 0 ? "stochastic" : step);
  return out;
}

// A row's object field (a copy: iterating items() of a temporary would dangle).
json field(const json& row, const char* name) { return row.contains(name) ? row.at(name) : json::object(); }

// One kernel under one move filter ("all", or "-FAMILY"): optimize it and return its row.
json run_kernel(const Settings& st, const corpus::Kernel& k, const std::string& config) {
  const fs::path tmp = fs::temp_directory_path() / fmt::format("asmevo-speedups-{}", ::getpid());
  fs::create_directories(tmp);
  search::OptimizeOptions o;
  o.budget = st.budget;
  o.kernel_time_s = st.time_s;  // the search's own time: K0's setup and the final re-verification come on top
  o.seed = st.seed;
  o.jobs = st.threads;
  o.proposers = split_commas(st.proposers);
  o.robust_draws = st.robust_draws;
  if (config != "all") o.moves = {config};
  if (st.proof == "late") o.proof = search::CascadeOptions::Proof::Gate, o.prove_winners_only = true;
  else if (st.proof == "gate") o.proof = search::CascadeOptions::Proof::Gate;
  else if (st.proof == "measure") o.proof = search::CascadeOptions::Proof::Measure;
  else if (st.proof == "off") o.proof = search::CascadeOptions::Proof::Off;
  else throw Error("--proof must be late, gate, measure or off", st.proof, "");
  o.proof_timeout_ms = st.proof_timeout_ms;
  const auto start = std::chrono::steady_clock::now();
  json row = {{"kernel", k.name}, {"set", corpus::set_name(k.set)}, {"config", config}, {"code_object", k.code_object}};
  try {
    search::KernelOutcome out;
    {
      search::Store store((tmp / (k.name + ".sqlite")).string());
      search::KernelJob job{k.name, k.spec, {emu::load_launch_spec(k.spec)}};
      auto r = search::optimize(read_file_bytes(k.code_object), k.code_object, {job}, store, o, "speedups_bench");
      out = r.kernels.at(0);
    }
    json proofs = json::array();
    for (const auto& p : out.proofs)
      proofs.push_back({{"verdict", p.verdict}, {"window_verdict", p.window_verdict}, {"move", p.move}, {"detail", p.detail},
                        {"seconds", p.seconds}, {"passed_emulate", p.passed_emulate}, {"passed_verify", p.passed_verify}});
    std::string launches;
    for (const auto& l : out.baseline_launches) launches += (launches.empty() ? "" : "+") + l.name;
    if (out.baseline_launches.size() > 1) launches = "geomean " + launches;
    row.update({{"baseline_us", out.baseline_us}, {"best_us", out.best_us}, {"baseline_cycles", out.baseline_cycles},
                {"best_cycles", out.best_cycles}, {"speedup", out.speedup()}, {"candidates", out.candidates_this_run},
                {"accepted", out.accepted}, {"final_verdict", out.final_verdict}, {"accepted_moves", out.accepted_moves},
                {"rejected_at", out.rejected_at}, {"robust", out.robust}, {"robust_removed", out.robust_removed()},
                {"stage_seconds", search::stage_profile_json(out)}, {"stage_profile", search::stage_profile_text(out)},
                {"fitness", out.fitness}, {"perf_launches", launches},
                {"launches", json::parse(search::launches_json(out.baseline_launches))}, {"proofs", proofs}});
  } catch (const Error& e) {
    row["error"] = e.format();
  }
  row["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove_all(tmp);
  return row;
}

std::string moves_text(const json& row) {
  std::string moves;
  const json moved = field(row, "accepted_moves");
  for (const auto& [m, n] : moved.items())
    moves += (moves.empty() ? "" : ", ") + fmt::format("{} x{}", m, n.get<size_t>());
  return moves.empty() ? "-" : moves;
}

void print_row(const json& r) {
  if (r.contains("error")) {
    std::cout << fmt::format("{:<34} {:<11} ERROR {}\n", r["kernel"].get<std::string>(), r["set"].get<std::string>(),
                             r["error"].get<std::string>());
    return;
  }
  const std::string fv = r["final_verdict"];
  std::cout << fmt::format("{:<34} {:<11} {:>10.3f} {:>10.3f} {:>7.3f}x {:>6} {:>4} {:<10} {:>4} {:>7.1f}  {:<26} {}\n",
                           r["kernel"].get<std::string>(), r["set"].get<std::string>(), r["baseline_us"].get<double>(),
                           r["best_us"].get<double>(), r["speedup"].get<double>(), r["candidates"].get<size_t>(),
                           r["accepted"].get<size_t>(), fv == "EQUIVALENT" ? "EQUIVALENT" : r["accepted"].get<size_t>() ? "FAILED" : "-",
                           r["robust_removed"].get<size_t>(), r["seconds"].get<double>(), r["perf_launches"].get<std::string>(),
                           moves_text(r))
            << std::flush;
}

struct SetSummary {
  double log_sum = 0, max = 0;
  size_t n = 0, improved = 0, errors = 0, robust_removed = 0;
  double geomean() const { return n ? std::exp(log_sum / n) : 0; }
};

std::map<std::string, SetSummary> summarize(const std::vector<const json*>& rows) {
  std::map<std::string, SetSummary> out;
  for (const json* r : rows) {
    for (const std::string& set : {r->at("set").get<std::string>(), std::string("all")}) {
      SetSummary& s = out[set];
      if (r->contains("error")) {
        ++s.errors;
        continue;
      }
      const double x = r->at("speedup").get<double>();
      s.log_sum += std::log(x);
      s.max = std::max(s.max, x);
      ++s.n;
      s.improved += x > 1.0;
      s.robust_removed += r->at("robust_removed").get<size_t>();
    }
  }
  return out;
}

// Why a proof stayed UNKNOWN, as a class: the reason's first words up to a detail (a register,
// a number, a parenthesis), with the mnemonic for an unsupported instruction.
std::string unknown_class(const std::string& detail) {
  std::string r = detail.substr(detail.find(':') == std::string::npos ? 0 : detail.find(':') + 2);
  if (auto at = r.find("; window-level: "); at != std::string::npos) r.resize(at);
  if (r.rfind("unsupported: ", 0) == 0) {
    std::string rest = r.substr(13);
    if (rest.rfind("control flow", 0) == 0) return "unsupported: control flow";
    if (rest.rfind("a backward branch", 0) == 0) return "unsupported: a loop in the window";
    return "unsupported: " + rest.substr(0, rest.find_first_of(" (:"));
  }
  if (r.find("entered from outside the window") != std::string::npos) return "the edit spans a block entered from outside the window";
  if (r.rfind("solver gave up", 0) == 0) return r.find("budget") != std::string::npos ? "solver: proof budget spent" : "solver: query timeout";
  if (r.find("only through uninterpreted") != std::string::npos || r.find("only if uninterpreted") != std::string::npos)
    return "difference only through uninterpreted functions";
  r.resize(std::min(r.size(), r.find_first_of("(:0123456789")));
  while (!r.empty() && r.back() == ' ') r.pop_back();
  return r;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

// PROVEN/DISPROVEN/UNKNOWN over every candidate that reached the proof stage, the UNKNOWN reasons,
// proof time per candidate, and the good candidates (quick run agreed / passed full verification)
// the proof refuses (DISPROVEN) or leaves UNKNOWN.
json summarize_proofs(const std::vector<const json*>& rows) {
  std::map<std::string, size_t> verdicts, window_verdicts, unknown;
  std::map<std::string, std::map<std::string, size_t>> by_move;
  std::vector<double> seconds;
  size_t n = 0, quick_ok = 0, quick_refused = 0, quick_proven = 0, good = 0, good_refused = 0, good_proven = 0, window_refused_quick = 0;
  for (const json* r : rows)
    for (const auto& p : r->value("proofs", json::array())) {
      ++n;
      const std::string v = p["verdict"];
      ++verdicts[v];
      const std::string move = p.value("move", "");
      ++by_move[move.rfind("stochastic", 0) == 0 ? "stochastic" : move][v];
      if (p.contains("window_verdict") && !p["window_verdict"].get<std::string>().empty()) ++window_verdicts[p["window_verdict"]];
      seconds.push_back(p.value("seconds", 0.0));
      if (v == "UNKNOWN") ++unknown[unknown_class(p.value("detail", ""))];
      if (p.value("passed_emulate", false)) {
        ++quick_ok, quick_refused += v == "DISPROVEN", quick_proven += v == "PROVEN";
        window_refused_quick += p.value("window_verdict", "") == "DISPROVEN";
      }
      if (p.value("passed_verify", false)) ++good, good_refused += v == "DISPROVEN", good_proven += v == "PROVEN";
    }
  return {{"candidates", n}, {"verdicts", verdicts}, {"window_verdicts", window_verdicts}, {"unknown_reasons", unknown},
          {"by_move", by_move}, {"seconds_median", percentile(seconds, 0.5)}, {"seconds_p95", percentile(seconds, 0.95)},
          {"seconds_max", percentile(seconds, 1.0)}, {"quick_ok", quick_ok}, {"quick_ok_disproven", quick_refused},
          {"quick_ok_proven", quick_proven}, {"quick_ok_window_disproven", window_refused_quick}, {"good", good},
          {"good_disproven", good_refused}, {"good_proven", good_proven}};
}

void print_proof_summary(const json& s) {
  const size_t n = s["candidates"];
  if (!n) return;
  auto share = [&](const char* v) {
    const size_t k = s["verdicts"].value(v, size_t{0});
    return fmt::format("{} {} ({:.1f} %)", v, k, 100.0 * k / n);
  };
  std::cout << fmt::format("proof verdicts over {} candidates: {}, {}, {}; proof time per candidate median {:.3f} s, p95 {:.3f} s, max "
                           "{:.3f} s\n",
                           n, share("PROVEN"), share("DISPROVEN"), share("UNKNOWN"), s["seconds_median"].get<double>(),
                           s["seconds_p95"].get<double>(), s["seconds_max"].get<double>());
  if (!s["window_verdicts"].empty()) std::cout << "  window-level (no liveness): " << s["window_verdicts"].dump() << "\n";
  std::vector<std::pair<size_t, std::string>> reasons;
  for (const auto& [k, v] : s["unknown_reasons"].items()) reasons.push_back({v.get<size_t>(), k});
  std::sort(reasons.rbegin(), reasons.rend());
  std::cout << "  UNKNOWN reasons:";
  for (const auto& [k, r] : reasons) std::cout << fmt::format(" {} x{};", r, k);
  std::cout << "\n  by move:";
  for (const auto& [m, v] : s["by_move"].items()) std::cout << " " << m << " " << v.dump() << ";";
  std::cout << fmt::format("\n  quick run agreed: {} (PROVEN {}, DISPROVEN {}, window-level DISPROVEN {}); passed full verification: {} "
                           "(PROVEN {}, DISPROVEN {})\n",
                           s["quick_ok"].get<size_t>(), s["quick_ok_proven"].get<size_t>(), s["quick_ok_disproven"].get<size_t>(),
                           s["quick_ok_window_disproven"].get<size_t>(), s["good"].get<size_t>(), s["good_proven"].get<size_t>(),
                           s["good_disproven"].get<size_t>());
}

int usage() {
  std::cerr << "usage: speedups_bench [--arch A] [--budget N] [--time SECONDS] [--seed S] [--proposers P] [--only K,..] "
               "[--set hip|kernelbench|triton] [--jobs N] [--threads T] [--results FILE] [--summary] [--ablate [FAMILY,..]] "
               "[--robust-draws N] [--proof late|gate|measure|off] [--proof-timeout MS] [--json FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Settings st;
  std::string only, set_filter, json_path, results_path, ablate, worker_config, worker_kernel, worker_out;
  bool do_ablate = false, budget_given = false, summary_only = false;
  unsigned jobs = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "error: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--arch") st.arch = next();
      else if (a == "--budget") st.budget = std::stoul(next()), budget_given = true;
      else if (a == "--time") st.time_s = std::stod(next());
      else if (a == "--seed") st.seed = std::stoull(next());
      else if (a == "--proposers") st.proposers = next();
      else if (a == "--only") only = next();
      else if (a == "--set") set_filter = next();
      else if (a == "--jobs") jobs = static_cast<unsigned>(std::stoul(next()));
      else if (a == "--threads") st.threads = static_cast<unsigned>(std::stoul(next()));
      else if (a == "--results") results_path = next();
      else if (a == "--json") json_path = next();
      else if (a == "--summary") summary_only = true;
      else if (a == "--proof") st.proof = next();
      else if (a == "--proof-timeout") st.proof_timeout_ms = static_cast<unsigned>(std::stoul(next()));
      else if (a == "--robust-draws") st.robust_draws = static_cast<unsigned>(std::stoul(next()));
      else if (a == "--ablate") {
        do_ablate = true;
        if (i + 1 < argc && argv[i + 1][0] != '-') ablate = argv[++i];
      } else if (a == "--worker") {
        worker_config = next();
        worker_kernel = next();
        worker_out = next();
      } else return usage();
    } catch (const std::logic_error&) {
      std::cerr << "error: " << a << " needs a number\n";
      return 2;
    }
  }
  if (st.time_s > 0 && !budget_given) st.budget = 0;  // --time alone: the time is the budget
  if (st.budget == 0 && st.time_s <= 0) {
    std::cerr << "error: --budget 0 needs --time SECONDS\n";
    return 2;
  }
  try {
    if (!worker_kernel.empty()) {  // one kernel, its row to worker_out
      const auto k = corpus::kernels(st.arch, {worker_kernel}).at(0);
      write_file_atomic(worker_out, run_kernel(st, k, worker_config).dump());
      return 0;
    }
    if (jobs == 0) throw Error("--jobs must be at least 1", "--jobs", "");
    std::vector<corpus::Kernel> kernels = corpus::kernels(st.arch, split_commas(only));
    if (!set_filter.empty()) {
      if (set_filter != "hip" && set_filter != "kernelbench" && set_filter != "triton")
        throw Error("unknown set '" + set_filter + "'", "--set", "use hip, kernelbench or triton");
      std::erase_if(kernels, [&](const corpus::Kernel& k) { return set_filter != corpus::set_name(k.set); });
    }
    std::vector<std::string> families;
    for (const std::string& f : split_commas(ablate)) {
      search::MoveFilter::parse({"-" + f});  // an unknown family fails now, not in a worker
      families.push_back(f);
    }

    // The results so far (resume).
    json results = {{"schema", "asmevo.speedups-results/1"}, {"settings", st.key()}, {"rows", json::object()}};
    if (!results_path.empty() && fs::exists(results_path)) {
      json old = json::parse(read_file_text(results_path));
      if (old.value("settings", json()) != st.key())
        throw Error("the results file " + results_path + " was written with other settings: " + old.value("settings", json()).dump(),
                    "--results", "rerun with the same settings to resume, or give another --results file");
      results = std::move(old);
      size_t n = 0;
      for (const auto& [config, rows] : results["rows"].items()) n += rows.size();
      std::cout << fmt::format("resuming {}: {} finished run(s) are kept\n", results_path, n);
    }
    auto save = [&]() {
      if (!results_path.empty()) write_file_atomic(results_path, results.dump(1));
    };

    std::cout << fmt::format("bench/speedups: {} kernels on {}, {} per kernel, seed {}, proposers {}, {} job(s), robust fitness {} "
                             "draw(s) -- times MODELED\n",
                             kernels.size(), st.arch,
                             st.budget && st.time_s > 0 ? fmt::format("{} candidates or {:.0f} s", st.budget, st.time_s)
                             : st.budget             ? fmt::format("{} candidates", st.budget)
                                                     : fmt::format("{:.0f} s", st.time_s),
                             st.seed, st.proposers, jobs, st.robust_draws);
    const std::string header = fmt::format("{:<34} {:<11} {:>10} {:>10} {:>8} {:>6} {:>4} {:<10} {:>4} {:>7}  {:<26} {}\n", "kernel",
                                           "set", "base us", "best us", "speedup", "cands", "acc", "re-verify", "rob-", "sec",
                                           "perf launch(es)", "accepted moves");
    std::cout << header;

    // Runs kernels of (config, kernel) jobs in worker processes, `jobs` at a time.
    const fs::path work = fs::temp_directory_path() / fmt::format("asmevo-speedups-rows-{}", ::getpid());
    fs::create_directories(work);
    auto run_all = [&](std::deque<std::pair<std::string, corpus::Kernel>> todo) {
      struct Running {
        std::string config;
        corpus::Kernel kernel;
        std::string row_file;
      };
      std::map<pid_t, Running> running;
      size_t counter = 0;
      while (!todo.empty() || !running.empty()) {
        while (!todo.empty() && running.size() < jobs) {
          auto [config, k] = todo.front();
          todo.pop_front();
          if (results["rows"].contains(config) && results["rows"][config].contains(k.name)) continue;  // resumed
          if (summary_only) continue;
          const std::string out = (work / fmt::format("row-{}.json", ++counter)).string();
          std::vector<std::string> args = {"/proc/self/exe"};
          for (const auto& x : st.args()) args.push_back(x);
          for (const auto& x : {std::string("--worker"), config, k.name, out}) args.push_back(x);
          std::vector<char*> av;
          for (auto& x : args) av.push_back(x.data());
          av.push_back(nullptr);
          pid_t pid = 0;
          if (int rc = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, av.data(), environ); rc != 0)
            throw Error(fmt::format("cannot start a worker: {}", std::strerror(rc)), k.name, "");
          running[pid] = {config, k, out};
        }
        if (running.empty()) break;
        int status = 0;
        const pid_t done = ::waitpid(-1, &status, 0);
        if (done < 0) throw Error(std::string("waitpid: ") + std::strerror(errno), "speedups_bench", "");
        auto it = running.find(done);
        if (it == running.end()) continue;
        const Running job = it->second;
        running.erase(it);
        const std::string& config = job.config;
        const corpus::Kernel& k = job.kernel;
        json row;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(job.row_file)) {
          row = json::parse(read_file_text(job.row_file));
          fs::remove(job.row_file);
        } else {
          row = {{"kernel", k.name}, {"set", corpus::set_name(k.set)}, {"config", config}, {"seconds", 0},
                 {"error", fmt::format("the worker {}", WIFSIGNALED(status) ? fmt::format("was killed by signal {}", WTERMSIG(status))
                                                                            : fmt::format("exited with {}", WEXITSTATUS(status)))}};
        }
        results["rows"][config][k.name] = row;
        save();
        if (config == "all") print_row(row);
        else std::cout << fmt::format("  ablation {} on {}: {:.3f}x\n", config, k.name, row.value("speedup", 0.0)) << std::flush;
      }
    };
    std::deque<std::pair<std::string, corpus::Kernel>> todo;
    for (const auto& k : kernels) todo.push_back({"all", k});
    run_all(todo);

    // The table of every kernel (resumed rows included), by set.
    std::vector<const json*> full;
    size_t not_run = 0;
    for (const auto& k : kernels) {
      if (results["rows"]["all"].contains(k.name)) full.push_back(&results["rows"]["all"][k.name]);
      else ++not_run;
    }
    std::stable_sort(full.begin(), full.end(), [](const json* a, const json* b) { return a->at("set") < b->at("set"); });
    std::cout << "\n" << header;
    double total_s = 0;
    size_t total_candidates = 0;
    for (const json* r : full) {
      print_row(*r);
      total_s += r->value("seconds", 0.0);
      total_candidates += r->value("candidates", size_t{0});
    }
    if (not_run) std::cout << fmt::format("{} kernel(s) not run yet (--summary)\n", not_run);
    const auto sets = summarize(full);
    std::cout << "\nper set (modeled speedups on perf launches):\n";
    for (const auto& [set, s] : sets)
      std::cout << fmt::format("  {:<12} geomean {:.3f}x, max {:.3f}x, improved {}/{}, errors {}, wins removed by robust fitness {}\n",
                               set, s.geomean(), s.max, s.improved, s.n, s.errors, s.robust_removed);
    std::cout << fmt::format("{} candidates in {:.1f} worker-s: {:.2f} candidates/s per worker\n", total_candidates, total_s,
                             total_s > 0 ? total_candidates / total_s : 0.0);
    // Where the candidates' time went, summed over kernels.
    std::map<std::string, std::pair<double, size_t>> stages;
    double stage_total = 0;
    for (const json* r : full)
      for (const json st_seconds = field(*r, "stage_seconds"); const auto& [stage, v] : st_seconds.items()) {
        stages[stage].first += v["seconds"].get<double>();
        stages[stage].second += v["candidates"].get<size_t>();
        stage_total += v["seconds"].get<double>();
      }
    std::vector<std::pair<std::string, std::pair<double, size_t>>> sv(stages.begin(), stages.end());
    std::sort(sv.begin(), sv.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    std::cout << "cascade profile (all kernels):";
    for (const auto& [stage, v] : sv)
      std::cout << fmt::format(" {} {:.0f} s ({:.0f} %, {} cands, {:.3f} s each);", stage, v.first,
                               stage_total > 0 ? 100 * v.first / stage_total : 0.0, v.second, v.second ? v.first / v.second : 0.0);
    std::cout << "\n";

    // The ablation: each family off, rerun only where the family had an accepted candidate; elsewhere
    // the full run's speedup stands (ASSUMED: without the family the search would take the same path).
    json ablation = json::object();
    if (do_ablate) {
      if (families.empty()) {
        std::set<std::string> seen;
        for (const json* r : full)
          for (const json moved = field(*r, "accepted_moves"); const auto& [m, n] : moved.items())
            for (const std::string& f : families_of(m)) seen.insert(f);
        families.assign(seen.begin(), seen.end());
      }
      std::deque<std::pair<std::string, corpus::Kernel>> ab;
      for (const std::string& f : families)
        for (const auto& k : kernels) {
          if (!results["rows"]["all"].contains(k.name)) continue;
          bool used = false;
          for (const json moved = field(results["rows"]["all"][k.name], "accepted_moves"); const auto& [m, n] : moved.items())
            for (const std::string& g : families_of(m)) used |= g == f;
          if (used) ab.push_back({"-" + f, k});
        }
      run_all(ab);
      std::cout << "\nablation (each move family switched off; rerun where it had an accepted candidate, the full run's figure "
                   "elsewhere):\n";
      for (const std::string& f : families) {
        std::vector<const json*> rows;
        size_t rerun = 0;
        for (const auto& k : kernels) {
          const std::string config = "-" + f;
          if (results["rows"].contains(config) && results["rows"][config].contains(k.name)) {
            rows.push_back(&results["rows"][config][k.name]);
            ++rerun;
          } else if (results["rows"]["all"].contains(k.name)) {
            rows.push_back(&results["rows"]["all"][k.name]);
          }
        }
        const auto s = summarize(rows);
        std::string line;
        for (const auto& [set, x] : s) line += fmt::format("  {} {:.3f}x ({}/{})", set, x.geomean(), x.improved, x.n);
        std::cout << fmt::format("  -{:<18} rerun {:>2}:{}\n", f, rerun, line);
        json per = json::object();
        for (const auto& [set, x] : s) per[set] = {{"geomean", x.geomean()}, {"max", x.max}, {"improved", x.improved}, {"n", x.n}};
        ablation[f] = {{"rerun", rerun}, {"sets", per}};
      }
    }

    // The proof stage over the full runs.
    size_t proofs = 0, good = 0, good_not_proven = 0, quick_ok = 0, quick_disproven = 0;
    for (const json* r : full)
      for (const auto& p : r->value("proofs", json::array())) {
        ++proofs;
        if (p["passed_emulate"].get<bool>()) ++quick_ok, quick_disproven += p["verdict"] == "DISPROVEN";
        if (p["passed_verify"].get<bool>()) ++good, good_not_proven += p["verdict"] != "PROVEN";
      }
    std::cout << fmt::format("proof stage ({}): {} candidates reached it; {} passed the quick run ({} of them DISPROVEN); {} passed "
                             "full verification ({} of them not PROVEN)\n",
                             st.proof, proofs, quick_ok, quick_disproven, good, good_not_proven);
    const json proof_summary = summarize_proofs(full);
    print_proof_summary(proof_summary);

    if (!json_path.empty()) {
      json per_set = json::object();
      for (const auto& [set, s] : sets)
        per_set[set] = {{"geomean", s.geomean()}, {"max", s.max}, {"improved", s.improved}, {"n", s.n}, {"errors", s.errors},
                        {"robust_removed", s.robust_removed}};
      json rows = json::array();
      for (const json* r : full) rows.push_back(*r);
      write_file_atomic(json_path, json{{"schema", "asmevo.speedups/2"}, {"settings", st.key()}, {"figures", "modeled"},
                                        {"sets", per_set}, {"kernels", rows}, {"ablation", ablation}, {"candidates", total_candidates},
                                        {"worker_seconds", total_s}, {"proof_summary", proof_summary}}
                                       .dump(2));
    }
    fs::remove_all(work);
    size_t errors = 0;
    for (const json* r : full) errors += r->contains("error");
    return errors ? 1 : 0;
  } catch (const Error& e) {
    std::cerr << e.format() << "\n";
    return e.exit_code();
  } catch (const json::exception& e) {
    std::cerr << "error: a results file is not valid JSON: " << e.what() << "\n";
    return 1;
  }
}
