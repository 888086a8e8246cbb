#include "cli/mcp.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/optimize.h"
#include "codeobj/code_object.h"
#include "mcp/server.h"
#include "mcp/stdio.h"
#include "rebuild/roundtrip.h"
#include "search/optimizer.h"
#include "search/store.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {
namespace fs = std::filesystem;

CLI::App* add_mcp_command(CLI::App& app, McpCommandOptions& o) {
  auto* cmd = app.add_subcommand("mcp", "Serve the Model Context Protocol over stdio: a coding agent optimizes a kernel with AsmEvo's tools (docs/mcp.md)");
  cmd->add_option("file", o.file, "code object (K0); never modified")->required();
  cmd->add_option("--launch", o.launches, "launch spec(s) (YAML) of one kernel")->required();
  cmd->add_option("--kernel", o.kernel, "the kernel (needed when the specs name several)");
  cmd->add_option("--db", o.db, "experiment store (SQLite); default FILE's name with extension .mcp.sqlite in the current folder");
  cmd->add_flag("--resume", o.resume, "continue the store (its accepted candidates, history and notes); without it an existing --db is an error");
  cmd->add_option("--budget", o.budget, "candidates the agent may evaluate, counted over resumed runs (0: no limit; default 200)");
  cmd->add_option("--time", o.time_s, "seconds after which evaluate is refused (0: none)");
  cmd->add_option("--jobs", o.jobs, "emulator threads per run (default 1)");
  cmd->add_option("--seed", o.seed, "random seed of the verification inputs (default 1)");
  cmd->add_option("--min-gain", o.min_gain_percent, "accept a candidate only if at least this many percent faster than its parent (default 1)");
  cmd->add_option("--windows", o.windows, "hot windows shown per best (default 5)");
  cmd->add_option("--counterexamples", o.counterexamples, "where counterexamples go (default DB with extension .counterexamples/)");
  return cmd;
}

int run_mcp(const McpCommandOptions& o, const std::string& command_line) {
  // First: from here on stdout carries protocol messages only, and signals are handled in order.
  mcp::StdioTransport transport;
  auto log = [](const std::string& line) { std::cerr << line << "\n"; };

  const std::vector<uint8_t> k0_bytes = read_file_bytes(o.file);
  const codeobj::CodeObject k0 = codeobj::CodeObject::parse(k0_bytes, o.file);
  const std::vector<search::KernelJob> jobs = kernel_jobs(k0, o.file, o.launches, o.kernel);
  if (jobs.size() != 1) {
    std::string names;
    for (const auto& j : jobs) names += (names.empty() ? "" : ", ") + j.kernel;
    throw Error("asmevo mcp works on one kernel per session; the launch specs name " + names, "--launch",
                "give --kernel K (one of " + names + "), or pass the specs of one kernel");
  }
  search::OptimizeOptions opts;
  opts.budget = o.budget;
  opts.time_limit_s = o.time_s;
  opts.jobs = o.jobs;
  opts.seed = o.seed;
  opts.proposers = {};  // the client is the only proposer
  opts.min_gain = o.min_gain_percent / 100.0;
  if (opts.min_gain < 0 || opts.min_gain >= 1)
    throw Error(fmt::format("--min-gain {} is not a percentage in [0, 100)", o.min_gain_percent), "--min-gain");
  opts.windows = o.windows;
  opts.resume = o.resume;
  const std::string db_path = o.db.empty() ? fs::path(o.file).filename().replace_extension(".mcp.sqlite").string() : o.db;
  if (fs::exists(db_path) && !o.resume)
    throw Error("the experiment store " + db_path + " already exists", "--db", "pass --resume to continue it, or choose another --db");
  std::error_code ec;
  if (fs::exists(db_path) && fs::equivalent(db_path, o.file, ec)) throw Error("--db is the input file", "--db " + db_path);
  opts.counterexample_dir = o.counterexamples.empty() ? fs::path(db_path).replace_extension(".counterexamples").string() : o.counterexamples;

  search::Store store(db_path);
  const nlohmann::json options_json = {{"budget", opts.budget}, {"time", opts.time_limit_s}, {"jobs", opts.jobs}, {"seed", opts.seed},
                                       {"proposers", {"mcp"}}, {"min_gain", opts.min_gain}, {"windows", opts.windows}, {"resume", opts.resume}};
  const int64_t run = store.begin_run(command_line, opts.seed, options_json.dump());
  const bool rebuildable = rebuild::roundtrip(k0).ok();
  if (!rebuildable) log(o.file + ": the recovered listing does not rebuild to identical bytes; edits become in-place patches");
  search::Progress progress;
  progress.log = log;
  search::KernelSession kernel(k0, k0_bytes, k0_bytes, o.file, jobs[0], store, run, rebuildable, opts, progress,
                               std::chrono::steady_clock::now());
  mcp::ServerContext ctx;
  ctx.kernel = &kernel;
  ctx.store = &store;
  ctx.input_path = o.file;
  ctx.db_path = db_path;
  ctx.run = run;
  ctx.budget = opts.budget;
  ctx.log = log;
  mcp::Server server(ctx);
  log(fmt::format("asmevo mcp: serving kernel {} of {} over stdio (MCP {}), store {}", jobs[0].kernel, o.file, mcp::kLatestVersion, db_path));
  const mcp::StdioTransport::End end = transport.serve(server);
  const char* why = end == mcp::StdioTransport::End::Signal ? "interrupted" : "finished";
  store.finish_run(run, why);
  const search::KernelOutcome out = kernel.outcome();
  log(fmt::format("asmevo mcp: {} ({}): {} candidate(s) this session, {} accepted in all; store {}", why,
                  end == mcp::StdioTransport::End::Signal ? fmt::format("signal {}", transport.signal())
                  : end == mcp::StdioTransport::End::OutputClosed ? "stdout closed" : "end of input",
                  out.candidates_this_run, out.accepted, db_path));
  return kExitOk;
}

}  // namespace asmevo::cli
