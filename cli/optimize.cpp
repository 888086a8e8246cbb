#include "cli/optimize.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "agent/agent.h"
#include "codeobj/code_object.h"
#include "search/move.h"
#include "search/optimizer.h"
#include "search/report.h"
#include "search/store.h"
#include "support/error.h"
#include "support/text.h"
#include "support/file_io.h"

namespace asmevo::cli {
namespace fs = std::filesystem;

CLI::App* add_optimize_command(CLI::App& app, OptimizeCommandOptions& o) {
  auto* cmd = app.add_subcommand("optimize", "Search for a faster, verified-equivalent version of a kernel (docs/search.md)");
  cmd->add_option("file", o.file, "code object (K0); never modified")->required();
  cmd->add_option("--kernel", o.kernel, "only this kernel (default: every kernel that has a launch spec)");
  cmd->add_option("--launch", o.launches, "launch spec(s) (YAML); each names its kernel")->required();
  cmd->add_option("-o,--output", o.output, "the optimized code object (written atomically)")->required();
  cmd->add_option("--budget", o.budget, "candidates per kernel, counted over resumed runs (0: no limit; default 200)");
  cmd->add_option("--time", o.time_s, "wall-clock limit in seconds for the whole run (0: none)");
  cmd->add_option("--jobs", o.jobs, "emulator threads per run (default 1)");
  cmd->add_option("--seed", o.seed, "random seed (default 1); same seed, same search");
  cmd->add_option("--db", o.db, "experiment store (SQLite); default OUT with extension .sqlite");
  cmd->add_flag("--resume", o.resume, "continue the run recorded in --db (accepted results are kept)");
  cmd->add_option("--proposers", o.proposers, "comma-separated: rules, stochastic, llm (default rules,stochastic)");
  cmd->add_option("--min-gain", o.min_gain_percent, "accept a candidate only if at least this many percent faster than its parent (default 1)");
  cmd->add_option("--windows", o.windows, "hot windows per parent (default 5)");
  cmd->add_option("--moves", o.moves, "comma-separated move filter: NAME keeps only the named moves or families, -NAME switches one off (e.g. -widen,-stochastic)");
  cmd->add_flag("--prove-winners-only", o.prove_winners_only, "prove only candidates that won timing (the proof gate then stands just before full verification; much faster: docs/search.md)");
  cmd->add_option("--robust-draws", o.robust_draws, "perturbed hardware rows (each [U]/fitted parameter +/-25 %) a win must also hold on (default 4; 0: nominal only)");
  cmd->add_option("--counterexamples", o.counterexamples, "where counterexamples go (default OUT.counterexamples/)");
  cmd->add_flag("--patch-only", o.patch_only, "only in-place patches of the original bytes (what is used anyway when K0 cannot be rebuilt exactly)");
  cmd->add_flag("--no-report", o.no_report, "do not write the HTML report (OUT with extension .html; `asmevo report` makes it later)");
  cmd->add_flag("--json", o.json, "print the summary as JSON (schema asmevo.optimize/1)");
  cmd->add_option("--llm-url", o.llm_url, "OpenAI-compatible endpoint base URL for the llm proposer (POST URL/chat/completions), e.g. http://127.0.0.1:8000/v1");
  cmd->add_option("--llm-model", o.llm_model, "model name the endpoint serves");
  cmd->add_option("--llm-key-env", o.llm_key_env, "environment variable holding the API key (sent as a Bearer token; default: none)");
  cmd->add_option("--llm-temperature", o.llm_temperature, "sampling temperature (default 0.2)");
  cmd->add_option("--llm-max-tokens", o.llm_max_tokens, "max tokens per reply (default 2048)");
  cmd->add_option("--llm-timeout", o.llm_timeout_s, "seconds per request (default 120)");
  cmd->add_option("--llm-retries", o.llm_retries, "retries on 429/5xx/timeouts/connection errors, with exponential backoff (default 4)");
  cmd->add_option("--llm-context", o.llm_context, "tokens of conversation kept before older turns are compacted into a summary (default 24000; keep it well below the model's context window)");
  cmd->add_option("--llm-budget", o.llm_budget, "hard cap per run: calls=N,tokens=N,seconds=N (any subset; default none)");
  cmd->add_option("--backend", o.backend,
                  "emulator (default: verify on the emulator, time with the model) or hip: verify on a HIP runtime and time with its events, "
                  "MEASURED (docs/hip.md)")
      ->check(CLI::IsMember({"emulator", "hip"}));
  cmd->add_option("--hip-library", o.hip_library, "with --backend hip: the runtime to dlopen (default $ASMEVO_HIP_LIBRARY or libamdhip64.so.5)");
  cmd->add_option("--warmup", o.warmup, "with --backend hip: untimed launches before each timing (default 3)");
  cmd->add_option("--repetitions", o.repetitions, "with --backend hip: timed launches per perf launch, median used (default 20)");
  return cmd;
}

namespace {

std::string with_extension(const std::string& path, const std::string& ext) {
  fs::path p(path);
  p.replace_extension(ext);
  return p.string();
}

std::string duration(double s) {
  if (s < 0) return "?";
  if (s < 90) return fmt::format("{:.0f}s", s);
  return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
}

}  // namespace

std::vector<search::KernelJob> kernel_jobs(const codeobj::CodeObject& k0, const std::string& file, const std::vector<std::string>& launches,
                                           const std::string& kernel) {
  std::map<std::string, search::KernelJob> by_kernel;
  for (const std::string& path : launches) {
    emu::LaunchSpec s = emu::load_launch_spec(path);
    auto& job = by_kernel[s.kernel];
    job.kernel = s.kernel;
    job.spec_path = job.spec_path.empty() ? path : job.spec_path + "," + path;
    job.specs.push_back(std::move(s));
  }
  std::vector<search::KernelJob> jobs;
  std::string names;
  for (const auto& k : k0.kernels()) names += (names.empty() ? "" : ", ") + k.name;
  for (const auto& [name, job] : by_kernel)
    if (!k0.kernel(name)) throw Error("the launch spec " + job.spec_path + " is for kernel " + name + ", which " + file + " does not have", "--launch", "kernels in this file: " + names);
  if (!kernel.empty()) {
    if (!k0.kernel(kernel)) throw Error("no kernel named " + kernel, file, "kernels in this file: " + names);
    auto it = by_kernel.find(kernel);
    if (it == by_kernel.end()) throw Error("no launch spec for kernel " + kernel, "--launch", "pass a spec whose kernel: is " + kernel);
    jobs.push_back(it->second);
  } else {
    for (const auto& k : k0.kernels()) {
      auto it = by_kernel.find(k.name);
      if (it != by_kernel.end()) jobs.push_back(it->second);
    }
    if (jobs.empty()) throw Error("none of the launch specs is for a kernel of " + file, "--launch", "kernels in this file: " + names);
  }

  return jobs;
}

int run_optimize(const OptimizeCommandOptions& o, const std::string& command_line) {
  const std::vector<uint8_t> k0_bytes = read_file_bytes(o.file);
  std::error_code ec;
  if (fs::exists(o.output) && fs::equivalent(o.file, o.output, ec))
    throw Error("the output would overwrite the input " + o.file, "-o " + o.output, "write the optimized object to another file");
  const codeobj::CodeObject k0 = codeobj::CodeObject::parse(k0_bytes, o.file);

  const std::vector<search::KernelJob> jobs = kernel_jobs(k0, o.file, o.launches, o.kernel);
  // Inconsistencies the loader accepts (so the kernel is optimized) but the summary names.
  std::vector<std::string> warnings;
  for (const auto& job : jobs)
    if (const auto* md = k0.metadata() ? k0.metadata()->kernel(job.kernel) : nullptr)
      for (const auto& w : codeobj::kernarg_layout_warnings(*md)) warnings.push_back("kernel " + job.kernel + ": " + w);

  search::OptimizeOptions opts;
  opts.budget = o.budget;
  opts.time_limit_s = o.time_s;
  opts.jobs = o.jobs;
  opts.seed = o.seed;
  opts.proposers = split_commas(o.proposers);
  if (opts.proposers.empty()) throw Error("--proposers is empty", "--proposers", "use rules, stochastic or both");
  const bool tty = isatty(STDERR_FILENO);
  if (!o.llm_url.empty()) {
    agent::LlmOptions lo;
    lo.url = o.llm_url;
    lo.model = o.llm_model;
    lo.key_env = o.llm_key_env;
    lo.temperature = o.llm_temperature;
    lo.max_tokens = o.llm_max_tokens;
    lo.timeout_s = o.llm_timeout_s;
    lo.retries = o.llm_retries;
    lo.context_tokens = o.llm_context;
    if (lo.max_tokens <= 0) throw Error("--llm-max-tokens must be > 0", "--llm-max-tokens");
    if (lo.context_tokens < 4000)
      throw Error("--llm-context " + std::to_string(lo.context_tokens) + " is too small for the system prompt and tools", "--llm-context",
                  "give at least 4000 tokens");
    auto session = std::make_shared<agent::LlmSession>(lo, agent::LlmBudget::parse(o.llm_budget), [tty](const std::string& line) {
      if (tty) std::cerr << "\r\033[K";
      std::cerr << line << "\n";
    });
    opts.make_llm = [session](const std::string& kernel) { return agent::make_llm_proposer(session, kernel); };
    if (std::find(opts.proposers.begin(), opts.proposers.end(), "llm") == opts.proposers.end())
      std::cerr << "note: --llm-url is given but --proposers has no llm: the agent is not used\n";
  } else if (!o.llm_model.empty() || !o.llm_budget.empty()) {
    throw Error("--llm-model/--llm-budget need --llm-url", "--llm-url", "give the endpoint, e.g. --llm-url http://127.0.0.1:8000/v1");
  }
  for (const std::string& p : opts.proposers) {  // before anything is created on disk
    if (p == "llm" && !opts.make_llm)
      throw Error("the llm proposer needs an endpoint", "--proposers", "pass --llm-url and --llm-model, or leave llm out");
    if (p != "llm") search::make_moves(p);
  }
  opts.min_gain = o.min_gain_percent / 100.0;
  if (opts.min_gain < 0 || opts.min_gain >= 1) throw Error(fmt::format("--min-gain {} is not a percentage in [0, 100)", o.min_gain_percent), "--min-gain", "e.g. --min-gain 1 accepts candidates at least 1% faster than their parent");
  opts.windows = o.windows;
  opts.moves = split_commas(o.moves);
  search::MoveFilter::parse(opts.moves);  // an unknown name fails before anything is created on disk
  opts.robust_draws = o.robust_draws;
  opts.prove_winners_only = o.prove_winners_only;
  opts.resume = o.resume;
  opts.patch_only = o.patch_only;
  if (o.backend == "hip") {
    if (o.repetitions == 0) throw Error("--repetitions 0 times nothing", "--repetitions", "give at least 1 (default 20)");
    opts.hip = search::CascadeOptions::HipRuntime{o.hip_library, o.warmup, o.repetitions};
  } else if (!o.hip_library.empty()) {
    throw Error("--hip-library needs --backend hip", "--hip-library", "add --backend hip, or leave --hip-library out");
  }
  const std::string figures = opts.hip ? "measured" : "modeled";
  if (o.budget == 0 && o.time_s <= 0) throw Error("no limit: --budget 0 needs --time", "--budget", "give --budget N or --time SECONDS");

  const std::string db_path = o.db.empty() ? with_extension(o.output, ".sqlite") : o.db;
  if (fs::exists(db_path) && !o.resume)
    throw Error("the experiment store " + db_path + " already exists", "--db", "pass --resume to continue it, or choose another --db");
  opts.counterexample_dir = o.counterexamples.empty() ? o.output + ".counterexamples" : o.counterexamples;
  search::Store store(db_path);

  search::Progress progress;
  size_t last_plain = 0;
  progress.log = [&](const std::string& line) {
    if (tty) std::cerr << "\r\033[K";
    std::cerr << line << "\n";
  };
  progress.status = [&](const search::ProgressStatus& s) {
    std::string line = fmt::format("{}: {} tried, {} verified, {} accepted, best {:.3f}x ({}) | window {} | {} | {:.1f}/s | ETA {}",
                                   s.kernel, s.budget ? fmt::format("{}/{}", s.tried, s.budget) : std::to_string(s.tried), s.verified,
                                   s.accepted, s.best_speedup, figures, s.window, s.move, s.rate, duration(s.eta_s));
    if (tty) {
      std::cerr << "\r\033[K" << line.substr(0, 200) << std::flush;
    } else if (s.tried >= last_plain + 25) {
      last_plain = s.tried;
      std::cerr << line << "\n";
    }
  };

  search::OptimizeResult r = search::optimize(k0_bytes, o.file, jobs, store, opts, command_line, progress);
  if (tty) std::cerr << "\r\033[K";
  write_file_atomic(o.output, r.bytes);
  const std::string report_path = o.no_report ? "" : with_extension(o.output, ".html");
  if (!report_path.empty()) search::write_report(db_path, report_path);

  nlohmann::json j = {{"schema", "asmevo.optimize/1"}, {"input", o.file}, {"output", o.output}, {"db", db_path}, {"report", report_path},
                      {"figures", figures}, {"seconds", r.seconds}, {"candidates", r.candidates}, {"kernels", nlohmann::json::array()}};
  for (const auto& k : r.kernels) {
    nlohmann::json launches = nlohmann::json::array();
    for (size_t i = 0; i < k.baseline_launches.size(); ++i) {
      const auto& b = k.baseline_launches[i];
      const search::LaunchFigure best = i < k.best_launches.size() ? k.best_launches[i] : b;
      launches.push_back({{"name", b.name}, {"baseline_cycles", b.cycles}, {"best_cycles", best.cycles}, {"baseline_us", b.microseconds},
                          {"best_us", best.microseconds}, {"speedup", best.cycles > 0 ? b.cycles / best.cycles : 1.0}});
    }
    j["kernels"].push_back({{"kernel", k.kernel}, {"fitness", k.fitness}, {"launches", launches},
                            {"baseline_cycles", k.baseline_cycles}, {"best_cycles", k.best_cycles},
                            {"baseline_us", k.baseline_us}, {"best_us", k.best_us}, {"speedup", k.speedup()},
                            {"candidates", k.candidates}, {"candidates_this_run", k.candidates_this_run}, {"accepted", k.accepted},
                            {"final_verdict", k.final_verdict}, {"accepted_moves", k.accepted_moves}, {"rejected_at", k.rejected_at},
                            {"patch_mode", k.patch_mode}, {"seconds", k.seconds}, {"robust", k.robust},
                            {"robust_removed", k.robust_removed()}, {"stage_seconds", search::stage_profile_json(k)}});
  }
  j["warnings"] = warnings;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (opts.hip)
    std::cout << "Optimized " << o.file << " -- times are MEASURED with HIP events on the runtime (on libasmevo_hip: its modeled clock); "
                 "equivalence TESTED on that runtime\n";
  else
    std::cout << "Optimized " << o.file << " -- times are MODELED (asmevo timing model), not measured\n";
  std::cout << fmt::format("{:<28} {:>12} {:>12} {:>8} {:>10} {:>8}  {:<12} {}\n", "kernel", "baseline us", "best us", "speedup",
                           "candidates", "accepted", "re-verified", "accepted moves");
  for (const auto& k : r.kernels) {
    std::string moves;
    for (const auto& [m, n] : k.accepted_moves) moves += (moves.empty() ? "" : ", ") + fmt::format("{} x{}", m, n);
    std::cout << fmt::format("{:<28} {:>12.3f} {:>12.3f} {:>7.3f}x {:>10} {:>8}  {:<12} {}\n", k.kernel, k.baseline_us, k.best_us,
                             k.speedup(), k.candidates, k.accepted, k.final_verdict == "EQUIVALENT" ? "EQUIVALENT" : "-",
                             moves.empty() ? "-" : moves);
    if (k.final_verdict != "EQUIVALENT") std::cout << "  " << k.kernel << ": " << k.final_verdict << "\n";
    std::cout << "  figures: " << k.fitness << "\n";
    std::cout << "  robust fitness: " << k.robust << "; wins it removed: " << k.robust_removed() << "\n";
    std::cout << "  cascade profile: " << search::stage_profile_text(k) << "\n";
    if (k.baseline_launches.size() > 1)
      for (size_t i = 0; i < k.baseline_launches.size(); ++i) {
        const auto& b = k.baseline_launches[i];
        const search::LaunchFigure best = i < k.best_launches.size() ? k.best_launches[i] : b;
        std::cout << fmt::format("    {:<24} {:>12.3f} {:>12.3f} {:>7.3f}x\n", b.name, b.microseconds, best.microseconds,
                                 best.cycles > 0 ? b.cycles / best.cycles : 1.0);
      }
  }
  for (const auto& w : warnings) std::cout << "warning: " << w << "\n";
  const double rate = r.seconds > 0 ? r.candidates / r.seconds : 0;
  std::cout << fmt::format("{} candidates in {:.1f} s ({:.2f} candidates/s)\n", r.candidates, r.seconds, rate);
  std::cout << "optimized object: " << o.output << "\n";
  if (!report_path.empty()) std::cout << "report:           " << report_path << "\n";
  std::cout << "experiment store: " << db_path << "\n";
  return kExitOk;
}

}  // namespace asmevo::cli
