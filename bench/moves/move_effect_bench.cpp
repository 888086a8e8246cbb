// bench/moves: the effect of single moves. For every corpus kernel of one arch (or --only), each
// chosen move is run once over the whole kernel and each edit it proposes goes through the
// optimizer's evaluation cascade (search/cascade.h: ABI, static checks, proof, one emulated run,
// timing on the spec's PERF launches, full verification) against K0, with no minimum gain, so the
// table shows every edit's MODELED speedup (the asmevo timing model, not a measurement) and the
// stage it reached; "verified" rows passed full verification.
//
//   move_effect_bench [--arch gfx942] [--moves kernarg-preload,barrier-elim,...] [--only k1,k2]
//                     [--max-edits 2] [--json FILE] [--objects DIR]
// --objects DIR writes each edit's rebuilt code object as DIR/<kernel>.<move>.<n>.co (for asmevo time,
// profile, --exact on other launches).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "corpus/index/corpus.h"
#include "rebuild/rebuild.h"
#include "search/cascade.h"
#include "search/move.h"
#include "support/error.h"
#include "support/text.h"
#include "support/file_io.h"

using namespace asmevo;

int main(int argc, char** argv) {
  std::string arch = "gfx942", moves_arg = "kernarg-preload,barrier-elim,vmcnt-branches,setprio,interleave", only, json_path, objects_dir;
  size_t max_edits = 2;
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
    else if (a == "--moves") moves_arg = next();
    else if (a == "--only") only = next();
    else if (a == "--max-edits") max_edits = std::stoul(next());
    else if (a == "--json") json_path = next();
    else if (a == "--objects") objects_dir = next();
    else {
      std::cerr << "error: unknown option " << a << "\nusage: move_effect_bench [--arch A] [--moves m1,m2] [--only k1,k2] [--max-edits N] [--json FILE] [--objects DIR]\n";
      return 2;
    }
  }
  try {
    const std::vector<std::string> wanted = split_commas(moves_arg);
    std::vector<std::unique_ptr<search::Move>> moves;
    for (auto& m : search::make_moves("rules"))
      if (std::find(wanted.begin(), wanted.end(), m->name()) != wanted.end()) moves.push_back(std::move(m));
    if (moves.size() != wanted.size()) throw Error("unknown move in --moves " + moves_arg, "--moves", "name rule moves (docs/search.md)");
    nlohmann::json rows = nlohmann::json::array();
    fmt::print("{:<28} {:<16} {:>11} {:>11} {:>8}  {}\n", "kernel", "move", "K0 µs", "edit µs", "speedup", "stage / edit (all times MODELED on perf launches)");
    for (const corpus::Kernel& k : corpus::kernels(arch, split_commas(only))) {
      auto bytes = read_file_bytes(k.code_object);
      auto k0 = codeobj::CodeObject::parse(bytes, k.code_object);
      auto p = program::Program::recover(k0);
      const program::Function* f = p.function(k.name);
      if (!f) continue;
      std::vector<std::pair<std::string, search::Edit>> edits;
      const std::vector<emu::LaunchSpec> perf = emu::perf_runs(emu::load_launch_spec(k.spec));  // what specialize reads
      for (auto& m : moves) {
        std::mt19937_64 rng(1);
        search::MoveContext c{p, k.name, {f->begin, f->end - 1, 0, ""}, rng, max_edits, &perf};
        std::vector<search::Edit> es;
        try {
          es = m->propose(c);
        } catch (const Error&) {
        }
        if (es.size() > max_edits) es.resize(max_edits);
        for (auto& e : es) edits.push_back({m->name(), std::move(e)});
      }
      if (edits.empty()) continue;
      search::CascadeOptions opts;
      opts.min_gain = -1e9;  // time every edit, faster or not
      opts.threads = 2;
      search::Cascade cascade(k0, k.name, {emu::load_launch_spec(k.spec)}, opts);
      search::Individual parent = cascade.individual(bytes, 0, k.code_object);
      size_t n = 0;
      for (auto& [move, e] : edits) {
        if (!objects_dir.empty()) {
          program::Program q = search::apply_edit(p, e);
          const std::string path = fmt::format("{}/{}.{}.{}.co", objects_dir, k.name, move, n++);
          write_file_atomic(path, rebuild::rebuild(q.listing(), path));
          fmt::print("wrote {}\n", path);
        }
        search::Evaluation ev = cascade.evaluate(parent, e);
        const bool verified = ev.accepted;
        const double us = ev.cycles > 0 ? parent.microseconds * ev.cycles / parent.cycles : 0;
        const double speedup = ev.cycles > 0 ? parent.cycles / ev.cycles : 0;
        fmt::print("{:<28} {:<16} {:>11.3f} {:>11} {:>8}  {}: {}\n", k.name, move, parent.microseconds, us > 0 ? fmt::format("{:.3f}", us) : "-",
                   speedup > 0 ? fmt::format("{:.3f}x", speedup) : "-", verified ? "verified" : ev.stage + " failed", e.description);
        std::fflush(stdout);
        rows.push_back({{"kernel", k.name}, {"set", corpus::set_name(k.set)}, {"move", move}, {"k0_us", parent.microseconds},
                        {"k0_cycles", parent.cycles}, {"edit_cycles", ev.cycles}, {"speedup", speedup}, {"verified", verified},
                        {"stage", ev.stage}, {"reason", ev.reason}, {"description", e.description}, {"fitness", cascade.fitness_description()}});
      }
    }
    if (!json_path.empty()) write_file_atomic(json_path, rows.dump(2) + "\n");
    return 0;
  } catch (const Error& e) {
    std::cerr << e.what_text() << "\n";
    return e.exit_code();
  }
}
