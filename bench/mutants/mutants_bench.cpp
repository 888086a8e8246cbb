// bench/mutants: the verifier's own benchmark. Generates mutants of corpus kernels
// (bench/mutants/mutation.h), runs each through `verify` against the original and prints, per
// operator, how many were killed (DIFFERENT / UNSAFE / FAULT) and how many survived, then every
// survivor with its diff and the verdict under a stronger spec (16 random + 2 special input sets)
// so a person can judge whether it is truly equivalent. Semantics-preserving rewrites must all be
// EQUIVALENT. Figures are emulated.
//
//   mutants_bench [--arch gfx942] [--per-op N] [--rewrites N] [--kernels k1,k2] [--ops o1,o2] [--json FILE]
//                 [--only FILE] [--no-prove] [--no-strong] [--off-spec]   (docs/verify.md "Mutant score")
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "corpus/index/corpus.h"
#include "bench/mutants/mutation.h"
#include "emu/dispatch.h"
#include "prove/inputs.h"
#include "support/error.h"
#include "support/file_io.h"
#include "verify/verify.h"

using namespace asmevo;

namespace {

struct Row {
  size_t mutants = 0, unbuildable = 0, different = 0, unsafe = 0, fault = 0, error = 0, survived = 0;
  size_t survived_unexecuted = 0;  // survivors whose edited instructions never ran under the spec
  size_t survived_equivalent = 0;  // survivors a static argument or a proof shows equivalent (mutation.h, prove/)
  size_t proven = 0;               // of those: PROVEN by the window prover (with liveness)
  size_t disproven = 0;            // survivors the window prover DISPROVES (the cascade's gate refuses them)
  size_t proof_input_kills = 0;    // killed by the input set a context proof's counterexample maps to
  std::map<std::string, size_t> killed_by;  // evidence kind of each kill (verify::Evidence::kind)
  size_t killed() const { return different + unsafe + fault; }
  // Kill rate among mutants the spec reaches: survivors whose edit never runs are left out (no
  // input of this spec can tell them apart from the original).
  double reached_score() const {
    size_t reached = mutants - survived_unexecuted;
    return reached ? 100.0 * killed() / reached : 0.0;
  }
  // Among reached mutants not shown equivalent: the share the verifier killed.
  double open_score() const {
    size_t open = mutants - survived_unexecuted - survived_equivalent;
    return open ? 100.0 * killed() / open : 0.0;
  }
};

struct Args {
  std::string arch = "gfx942";
  size_t per_op = 6, rewrites = 4;
  std::vector<std::string> kernels;
  std::vector<std::string> ops;  // mutation operators to run (empty: all)
  std::string json;
  // --only FILE: run only the mutants listed ("kernel operator 0xaddress" per line; the sample is
  // drawn as usual, the others are skipped uncounted): re-measuring a previous run's survivors.
  std::set<std::string> only;
  bool prove = true, strong = true;
  // --off-spec: launch-determined survivors are verified again with boundary launches the spec does
  // not declare (every integer argument without vary: given vary: [1, value]; smaller sizes stay
  // inside the buffers, and a launch K0 itself cannot run is dropped): a difference there shows the
  // mutant changes behaviour, but only for launches outside the spec. Not counted as a kill.
  bool off_spec = false;  // --no-prove, --no-strong: skip the prover stage, the 16-set re-verify of survivors
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("missing value after " + s);
      return argv[++i];
    };
    if (s == "--arch") a.arch = value();
    else if (s == "--per-op") a.per_op = std::stoul(value());
    else if (s == "--rewrites") a.rewrites = std::stoul(value());
    else if (s == "--json") a.json = value();
    else if (s == "--no-prove") a.prove = false;
    else if (s == "--no-strong") a.strong = false;
    else if (s == "--off-spec") a.off_spec = true;
    else if (s == "--only") {
      std::istringstream in(read_file_text(value()));
      for (std::string k, o, addr; in >> k >> o >> addr;) a.only.insert(k + " " + o + " " + addr);
    }
    else if (s == "--kernels" || s == "--ops") {
      std::string list = value();
      auto& into = s == "--ops" ? a.ops : a.kernels;
      for (size_t p = 0; p <= list.size();) {
        size_t q = list.find(',', p);
        if (q == std::string::npos) q = list.size();
        if (q > p) into.push_back(list.substr(p, q - p));
        p = q + 1;
      }
    } else
      throw Error("unknown option " + s, "mutants_bench",
                  "options: --arch A --per-op N --rewrites N --kernels a,b --ops o1,o2 --json FILE --only FILE --no-prove --no-strong");
  }
  return a;
}

// The decision a mutant changes: the edited line when it is a compare (v_cmp*, s_cmp*) or a select
// (v_max/v_min), else the first such line within 16 instructions after it (a mul->add feeding a
// range check). None when there is none.
std::optional<uint64_t> decision_of(const program::Program& p, const mutants::Mutant& m) {
  if (m.edits.empty()) return std::nullopt;
  auto is_decision = [](const std::string& t) {
    return (t.starts_with("v_cmp") && t.find("class") == std::string::npos) || (t.starts_with("s_cmp") && !t.starts_with("s_cmp_bit")) ||
           t.starts_with("v_max") || t.starts_with("v_min");
  };
  size_t seen = 0;
  for (size_t i = m.edits.front().line; i < p.text_line_count() && seen < 17; ++i) {
    const program::Line& l = p.text_line(i);
    if (!l.inst) continue;
    if (is_decision(l.text)) return l.address;
    ++seen;
  }
  return std::nullopt;
}

// Why a reached survivor that no proof shows equivalent survived, from what the reference saw
// of K0's decisions (verify::Reference::aimed_decisions / launch_determined_decisions).
std::string survivor_class(const verify::Reference& ref, std::optional<uint64_t> decision, const std::string& context_verdict) {
  if (decision && ref.aimed_decisions().count(*decision))
    return "threshold crossed: aimed sets put elements at, below and above this decision's threshold; outputs agree";
  if (decision && ref.launch_determined_decisions().count(*decision))
    return "launch-determined: no operand of the decision derives from an input element; every launch of the spec ran";
  if (context_verdict == "PROVEN") return "context-proven: equivalent in K0's observed live-in state (one wave), differs only for other states";
  return "open";
}

}  // namespace

int main(int argc, char** argv) try {
  Args args = parse_args(argc, argv);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<corpus::Kernel> kernels = corpus::kernels(args.arch, args.kernels);
  auto backend = verify::make_emulator_backend();
  std::map<std::string, Row> rows, rewrite_rows;
  nlohmann::json survivors = nlohmann::json::array(), rejections = nlohmann::json::array(), killed = nlohmann::json::array();
  nlohmann::json per_kernel = nlohmann::json::array();
  verify::VerifyOptions fast;
  fast.stop_at_first_difference = true;
  fast.max_mismatches = 1;
  verify::VerifyOptions one_run = fast;  // a concrete counterexample run, as it is
  one_run.aimed_inputs = false;
  std::vector<double> proof_seconds;
  std::map<std::string, size_t> survivor_classes;  // "operator | class" -> reached survivors not shown equivalent
  for (const auto& k : kernels) {
    if (!args.only.empty() && std::none_of(args.only.begin(), args.only.end(), [&](const std::string& o) { return o.starts_with(k.name + " "); }))
      continue;
    codeobj::CodeObject co = codeobj::CodeObject::parse(read_file_bytes(k.code_object), k.code_object);
    program::Program prog = program::Program::recover(co);
    emu::LaunchSpec spec = emu::load_launch_spec(k.spec);
    verify::Reference ref(*backend, co, {spec}, fast);
    if (std::getenv("ASMEVO_MUTANTS_TRACE"))
      for (const auto& n : ref.notes()) std::cerr << "  note: " << n << "\n";
    emu::LaunchSpec strong_spec = spec;
    strong_spec.inputs = 16;
    strong_spec.special = true;
    std::unique_ptr<verify::Reference> strong;  // made on the first survivor
    std::unique_ptr<verify::Reference> off_spec_ref;  // --off-spec, made on the first launch-determined survivor
    std::unique_ptr<verify::LoadedKernel> loaded_k0;  // for context proofs, made on the first survivor
    prove::ProofOptions po;
    po.timeout_ms = 2000;
    po.mode_bits = emu::initial_mode_bits(prog.kernel_descriptor(k.name));
    std::optional<prove::LaunchBounds> bounds;  // the admitted launches' facts, made on the first proof
    size_t kernel_mutants = 0, kernel_killed = 0;
    auto run_set = [&](const std::vector<mutants::Mutant>& all, const std::vector<std::string>& ops, size_t cap, bool rewrite) {
      for (const auto& op : ops) {
        if (!rewrite && !args.ops.empty() && std::find(args.ops.begin(), args.ops.end(), op) == args.ops.end()) continue;
        std::vector<const mutants::Mutant*> of_op;
        for (const auto& m : all)
          if (m.op == op) of_op.push_back(&m);
        // Spread the sample over the kernel: every n-th candidate.
        size_t step = std::max<size_t>(1, of_op.size() / std::max<size_t>(cap, 1));
        size_t taken = 0;
        for (size_t i = 0; i < of_op.size() && taken < cap; i += step) {
          const mutants::Mutant& m = *of_op[i];
          Row& row = (rewrite ? rewrite_rows : rows)[op];
          std::optional<codeobj::CodeObject> built;
          try {
            built = codeobj::CodeObject::parse(mutants::build_mutant(prog, m), k.name + "-mutant");
          } catch (const Error&) {
            ++row.unbuildable;
            continue;  // not valid assembly (or over a limit): not a mutant
          }
          const codeobj::CodeObject& k1 = *built;
          ++taken;
          if (!args.only.empty() && !args.only.count(fmt::format("{} {} 0x{:x}", k.name, op, m.address))) continue;
          ++row.mutants;
          verify::VerifyReport r = verify::verify_candidate(ref, k1, fast);
          nlohmann::json entry = {{"kernel", k.name}, {"op", op}, {"address", fmt::format("0x{:x}", m.address)},
                                  {"diff", m.diff()}, {"verdict", verify::verdict_name(r.verdict)}, {"summary", r.summary}};
          bool executed = false;
          for (const auto& e : m.edits)  // an inserted line runs when the line it precedes runs
            executed |= ref.executed().count(prog.text_line(e.line).address) > 0;
          // Testing found no difference: the prover decides. PROVEN (with liveness) shows the edit
          // equivalent; otherwise a proof in K0's observed context may give a counterexample that
          // maps back to input elements, and that input set is run (the kill rests on that run).
          std::string proof_verdict;
          size_t proof_facts = 0;  // launch facts the window proof assumed
          if (r.verdict == verify::Verdict::Equivalent && executed && args.prove) {
            std::vector<prove::Change> changes;
            for (const auto& e : m.edits)
              changes.push_back({e.line, e.insert ? size_t{0} : size_t{1}, e.text.empty() ? std::vector<std::string>{} : std::vector<std::string>{e.text}});
            if (!bounds) {
              std::vector<emu::LaunchSpec> admitted = ref.runs();
              for (emu::LaunchSpec& p : emu::perf_runs(spec)) admitted.push_back(std::move(p));
              bounds = prove::launch_bounds(co, *co.kernel(k.name), admitted);
              po.launch = &*bounds;
            }
            prove::ProofResult pr = prove::prove_edit(prog, k.name, changes, po, /*use_liveness=*/true);
            proof_seconds.push_back(pr.seconds);
            if (std::getenv("ASMEVO_MUTANTS_TRACE"))
              std::cerr << fmt::format("  {} 0x{:x} proof {} {:.2f} s\n", op, m.address, prove::verdict_name(pr.verdict), pr.seconds);
            const auto tc = std::chrono::steady_clock::now();
            proof_verdict = prove::verdict_name(pr.verdict);
            entry["proof"] = {{"verdict", proof_verdict}, {"reason", pr.reason}, {"counterexample", pr.counterexample}, {"launch_facts", pr.facts}};
            proof_facts = pr.facts.size();
            if (pr.verdict == prove::Verdict::Disproven) ++(rewrite ? rewrite_rows : rows)[op].disproven;
            if (pr.verdict != prove::Verdict::Proven) {
              if (!loaded_k0) loaded_k0 = backend->load(co, k.name);
              prove::ContextProof cp = prove::prove_in_context(*backend, *loaded_k0, prog, k.name, changes, ref.runs().front(), po);
              entry["context_proof"] = {{"verdict", prove::verdict_name(cp.proof.verdict)}, {"reason", cp.proof.reason},
                                        {"elements", cp.elements}, {"scalars", cp.scalars}, {"note", cp.note}};
              if (cp.run) {
                try {
                  verify::Reference cref(*backend, co, {*cp.run}, one_run);
                  verify::VerifyReport cr = verify::verify_candidate(cref, k1, fast);
                  entry["context_proof"]["run_verdict"] = verify::verdict_name(cr.verdict);
                  if (cr.verdict == verify::Verdict::Different || cr.verdict == verify::Verdict::Unsafe || cr.verdict == verify::Verdict::Fault) {
                    r = cr;
                    r.evidence.kind = "proof counterexample";
                    r.evidence.detail = fmt::format("{} ({} element(s), {} scalar argument(s) from the {} window proof in K0's context)",
                                                    cr.evidence.run_label, cp.elements, cp.scalars, prove::verdict_name(cp.proof.verdict));
                    entry["verdict"] = verify::verdict_name(r.verdict);
                    entry["summary"] = r.summary;
                    ++(rewrite ? rewrite_rows : rows)[op].proof_input_kills;
                  }
                } catch (const Error& e) {  // K0 refused the input set (e.g. it faults on it): no evidence
                  entry["context_proof"]["run_error"] = e.what_text();
                }
              }
              if (std::getenv("ASMEVO_MUTANTS_TRACE"))
                std::cerr << fmt::format("    context {} ({:.2f} s proof) {} {:.2f} s\n", prove::verdict_name(cp.proof.verdict), cp.proof.seconds,
                                         entry["context_proof"].value("run_verdict", cp.note),
                                         std::chrono::duration<double>(std::chrono::steady_clock::now() - tc).count());
            }
          }
          switch (r.verdict) {
            case verify::Verdict::Different: ++row.different; break;
            case verify::Verdict::Unsafe: ++row.unsafe; break;
            case verify::Verdict::Fault: ++row.fault; break;
            case verify::Verdict::Error: ++row.error; break;
            case verify::Verdict::Equivalent: ++row.survived; break;
          }
          entry["evidence"] = {{"kind", r.evidence.kind}, {"run_label", r.evidence.run_label}, {"detail", r.evidence.detail}};
          if (!rewrite && r.verdict != verify::Verdict::Equivalent && r.verdict != verify::Verdict::Error) {
            ++row.killed_by[r.evidence.kind];
            killed.push_back(entry);
          }
          if (!rewrite) {
            ++kernel_mutants;
            kernel_killed += r.verdict != verify::Verdict::Equivalent && r.verdict != verify::Verdict::Error;
          }
          entry["edit_executed"] = executed;
          for (const auto& n : r.notes)  // what the difference search did (verify/difference_search.h)
            if (n.starts_with("difference search")) entry["difference_search"].push_back(n);
          if (r.verdict == verify::Verdict::Equivalent && !executed) ++row.survived_unexecuted;
          if (r.verdict == verify::Verdict::Equivalent && executed) {
            std::string why = mutants::known_equivalent(prog, k.name, m);
            if (why.empty() && proof_verdict == "PROVEN")
              why = proof_facts ? fmt::format("PROVEN (window prover, liveness, {} launch fact(s) of the admitted launches)", proof_facts)
                                : std::string("PROVEN (window prover, liveness)"),
              ++row.proven;
            entry["known_equivalent"] = why;
            if (!why.empty()) ++row.survived_equivalent;
            if (why.empty()) {
              const auto d = decision_of(prog, m);
              if (d) entry["decision"] = fmt::format("0x{:x}", *d);
              const std::string cls =
                  survivor_class(ref, d, entry.contains("context_proof") ? entry["context_proof"]["verdict"].get<std::string>() : std::string());
              entry["survivor_class"] = cls;
              if (!rewrite) ++survivor_classes[op + " | " + cls.substr(0, cls.find(':'))];
              if (!rewrite && args.off_spec && cls.starts_with("launch-determined")) {
                if (!off_spec_ref) {
                  emu::LaunchSpec wide = spec;
                  for (auto& a : wide.args)
                    if (a.kind == emu::ArgSpec::Value && !a.vary && (a.dtype == "i32" || a.dtype == "u32"))
                      if (const int64_t v = std::strtoll(a.value.c_str(), nullptr, 0); v > 1) a.vary = std::pair<int64_t, int64_t>{1, v};
                  off_spec_ref = std::make_unique<verify::Reference>(*backend, co, std::vector<emu::LaunchSpec>{wide}, fast);
                }
                verify::VerifyReport o = verify::verify_candidate(*off_spec_ref, k1, fast);
                entry["off_spec"] = {{"verdict", verify::verdict_name(o.verdict)}, {"evidence", o.evidence.kind}, {"run", o.evidence.run_label}};
                ++survivor_classes[op + " | launch-determined, off-spec launch " + verify::verdict_name(o.verdict)];
              }
            }
          }
          if (!rewrite && r.verdict == verify::Verdict::Equivalent && !args.strong) survivors.push_back(entry);
          if (!rewrite && r.verdict == verify::Verdict::Equivalent && args.strong) {
            if (!strong) strong = std::make_unique<verify::Reference>(*backend, co, std::vector<emu::LaunchSpec>{strong_spec}, fast);
            verify::VerifyReport s = verify::verify_candidate(*strong, k1, fast);
            entry["strong_verdict"] = verify::verdict_name(s.verdict);
            entry["strong_summary"] = s.summary;
            survivors.push_back(entry);
          }
          if (rewrite && r.verdict != verify::Verdict::Equivalent) rejections.push_back(entry);
        }
      }
    };
    run_set(mutants::generate_mutants(prog, k.name), mutants::mutation_operators(), args.per_op, false);
    run_set(mutants::generate_rewrites(prog, k.name), mutants::rewrite_operators(), args.rewrites, true);
    per_kernel.push_back({{"kernel", k.name}, {"file", k.code_object}, {"mutants", kernel_mutants}, {"killed", kernel_killed}});
    std::cerr << fmt::format("{:32s} {:4d} mutants, {:4d} killed\n", k.name, kernel_mutants, kernel_killed);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  auto print_table = [](const std::string& title, const std::vector<std::string>& ops, const std::map<std::string, Row>& rs) {
    std::cout << title << "\n";
    std::cout << fmt::format("{:20s} {:>7s} {:>6s} {:>9s} {:>6s} {:>5s} {:>5s} {:>5s} {:>9s} {:>6s} {:>7s} {:>8s} {:>8s} {:>11s}", "operator",
                             "mutants", "killed", "DIFFERENT", "UNSAFE", "FAULT", "ERROR", "EQUIV", "unreached", "proven",
                             "score", "reached", "unproven", "unbuildable");
    std::cout << fmt::format("{:>9s} {:>9s} {:>10s}\n", "PROVEN", "DISPROVEN", "proof-run");
    Row total;
    for (const auto& op : ops) {
      Row r = rs.count(op) ? rs.at(op) : Row{};
      total.mutants += r.mutants, total.unbuildable += r.unbuildable, total.different += r.different, total.unsafe += r.unsafe,
          total.fault += r.fault, total.error += r.error, total.survived += r.survived,
          total.survived_unexecuted += r.survived_unexecuted, total.survived_equivalent += r.survived_equivalent;
      total.proven += r.proven, total.disproven += r.disproven, total.proof_input_kills += r.proof_input_kills;
      std::cout << fmt::format("{:20s} {:7d} {:6d} {:9d} {:6d} {:5d} {:5d} {:5d} {:9d} {:6d} {:6.1f}% {:7.1f}% {:7.1f}% {:11d} {:9d} {:9d} {:10d}\n", op,
                               r.mutants, r.killed(), r.different, r.unsafe, r.fault, r.error, r.survived, r.survived_unexecuted,
                               r.survived_equivalent, r.mutants ? 100.0 * r.killed() / r.mutants : 0.0, r.reached_score(),
                               r.open_score(), r.unbuildable, r.proven, r.disproven, r.proof_input_kills);
    }
    std::cout << fmt::format("{:20s} {:7d} {:6d} {:9d} {:6d} {:5d} {:5d} {:5d} {:9d} {:6d} {:6.1f}% {:7.1f}% {:7.1f}% {:11d} {:9d} {:9d} {:10d}\n", "total",
                             total.mutants, total.killed(), total.different, total.unsafe, total.fault, total.error, total.survived,
                             total.survived_unexecuted, total.survived_equivalent,
                             total.mutants ? 100.0 * total.killed() / total.mutants : 0.0, total.reached_score(),
                             total.open_score(), total.unbuildable, total.proven, total.disproven, total.proof_input_kills);
    return total;
  };
  std::cout << fmt::format("bench/mutants on {} ({} kernels, emulated verification, {:.1f} s)\n\n", args.arch, kernels.size(), seconds);
  Row mt = print_table(
      "Mutants (killed = DIFFERENT + UNSAFE + FAULT; score = killed / mutants; unreached = survivors whose edited\n"
      "instructions never ran in the original's runs under the spec; proven = reached survivors a static argument shows\n"
      "equivalent (dead result, exec restore before s_endpgm, trailing barrier) or the window prover PROVES equivalent;\n"
      "reached = killed / (mutants - unreached); unproven = killed / (mutants - unreached - proven); PROVEN = of 'proven',\n"
      "those the prover proved; DISPROVEN = survivors of testing the window prover disproves (the cascade's gate refuses\n"
      "them, not counted as killed here); proof-run = killed by the input set a context proof's counterexample maps to)",
      mutants::mutation_operators(), rows);
  std::cout << "\nEvidence of the kills, per operator (verify::Evidence: which gate or input set decided)\n";
  std::map<std::string, size_t> all_by;
  for (const auto& [op, r] : rows)
    for (const auto& [kind, n] : r.killed_by) all_by[kind] += n;
  std::cout << fmt::format("{:20s}", "operator");
  for (const auto& [kind, n] : all_by) std::cout << fmt::format(" {:>14s}", kind);
  std::cout << "\n";
  for (const auto& op : mutants::mutation_operators()) {
    if (!rows.count(op)) continue;
    std::cout << fmt::format("{:20s}", op);
    for (const auto& [kind, n] : all_by) std::cout << fmt::format(" {:14d}", rows.at(op).killed_by.count(kind) ? rows.at(op).killed_by.at(kind) : 0);
    std::cout << "\n";
  }
  std::cout << fmt::format("{:20s}", "total");
  for (const auto& [kind, n] : all_by) std::cout << fmt::format(" {:14d}", n);
  std::cout << "\n\n";
  Row rt = print_table("Semantics-preserving rewrites (every one must be EQUIVALENT)", mutants::rewrite_operators(), rewrite_rows);
  std::cout << fmt::format("\nfalse rejections: {} of {} (testing and proof inputs); window prover DISPROVES {} of them (the cascade's gate)\n",
                           rt.mutants - rt.survived, rt.mutants, rt.disproven);
  if (!proof_seconds.empty()) {
    std::sort(proof_seconds.begin(), proof_seconds.end());
    std::cout << fmt::format("window proofs of testing's survivors: {}, median {:.3f} s, p95 {:.3f} s\n", proof_seconds.size(),
                             proof_seconds[proof_seconds.size() / 2], proof_seconds[std::min(proof_seconds.size() - 1, proof_seconds.size() * 95 / 100)]);
  }
  std::cout << "\nReached survivors no proof shows equivalent, by why they survived (operator | class):\n";
  for (const auto& [k, n] : survivor_classes) std::cout << fmt::format("  {:60s} {:5d}\n", k, n);
  std::cout << fmt::format("\nSurvivors ({}), with the verdict under 16 random + 2 special input sets:\n", survivors.size());
  for (const auto& s : survivors)
    std::cout << fmt::format("--- {} {} at {} ({}{}): strong verify {}\n{}", s["kernel"].get<std::string>(), s["op"].get<std::string>(),
                             s["address"].get<std::string>(), s["edit_executed"].get<bool>() ? "executed" : "never executed",
                             s.value("known_equivalent", std::string()).empty() ? "" : "; " + s["known_equivalent"].get<std::string>(),
                             s.value("strong_verdict", std::string("not run")) + (s.contains("survivor_class") ? "\nwhy: " + s["survivor_class"].get<std::string>() : std::string()),
                             (s.contains("proof") ? "proof: " + s["proof"]["verdict"].get<std::string>() + " " + s["proof"]["reason"].get<std::string>().substr(0, 160) + "\n" : std::string()) +
                                 (s.contains("context_proof") ? "context proof: " + s["context_proof"]["verdict"].get<std::string>() + " " +
                                                                    s["context_proof"]["note"].get<std::string>() +
                                                                    (s["context_proof"].contains("run_verdict") ? ", its input set: " + s["context_proof"]["run_verdict"].get<std::string>() : std::string()) + "\n"
                                                              : std::string()) +
                                 s["diff"].get<std::string>());
  for (const auto& s : rejections)
    std::cout << fmt::format("--- REJECTED REWRITE {} {} at {}: {} {}\n{}", s["kernel"].get<std::string>(), s["op"].get<std::string>(),
                             s["address"].get<std::string>(), s["verdict"].get<std::string>(), s["summary"].get<std::string>(),
                             s["diff"].get<std::string>());
  if (!args.json.empty()) {
    nlohmann::json j = {{"schema", "asmevo.mutants/1"}, {"arch", args.arch}, {"seconds", seconds}, {"kernels", per_kernel},
                        {"survivors", survivors}, {"rejected_rewrites", rejections}, {"killed", killed},
                        {"survivor_classes", survivor_classes}};
    for (const auto& [op, r] : rows)
      j["operators"][op] = {{"mutants", r.mutants}, {"killed", r.killed()}, {"different", r.different}, {"unsafe", r.unsafe},
                            {"fault", r.fault}, {"error", r.error}, {"survived", r.survived},
                            {"survived_unexecuted", r.survived_unexecuted}, {"survived_known_equivalent", r.survived_equivalent},
                            {"unbuildable", r.unbuildable}, {"killed_by", r.killed_by}, {"proven", r.proven},
                            {"disproven", r.disproven}, {"proof_input_kills", r.proof_input_kills}};
    for (const auto& [op, r] : rewrite_rows)
      j["rewrites"][op] = {{"total", r.mutants}, {"equivalent", r.survived}, {"unbuildable", r.unbuildable}, {"disproven", r.disproven}};
    write_file_atomic(args.json, j.dump(2) + "\n");
  }
  (void)mt;
  return 0;
} catch (const Error& e) {
  std::cerr << e.format() << "\n";
  return e.exit_code();
}
