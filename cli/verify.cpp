#include "cli/verify.h"
#include "verify/hip_backend.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "codeobj/code_object.h"
#include "support/error.h"
#include "support/file_io.h"
#include "program/program.h"
#include "prove/inputs.h"
#include "prove/prove.h"
#include "search/edit.h"
#include "search/moves/workgroup_remap.h"
#include "verify/verify.h"
#include "emu/dispatch.h"

namespace asmevo::cli {

CLI::App* add_verify_command(CLI::App& app, VerifyCommandOptions& o) {
  auto* cmd = app.add_subcommand(
      "verify", "Check that K1 behaves exactly like K0 under the spec's launches (exit 0 EQUIVALENT, 10 DIFFERENT, "
                "11 UNSAFE, 12 FAULT, 2 ERROR; docs/verify.md)");
  cmd->add_option("k0", o.k0, "the original code object (the reference)")->required();
  cmd->add_option("k1", o.k1, "the candidate code object")->required();
  cmd->add_option("--launch", o.launches, "launch spec (YAML, docs/emulator.md); repeat for several")->required();
  cmd->add_option("--regressions", o.regressions, "also run every saved counterexample in this folder (*/spec.yaml)");
  cmd->add_option("--counterexamples", o.counterexamples, "save every input set that exposes a difference into this folder");
  cmd->add_flag("--json", o.json, "machine-readable report (schema asmevo.verify/1)");
  cmd->add_option("--backend", o.backend, "emulator (default) or hip: run K0 and K1 on a HIP runtime (dlopen libamdhip64; docs/hip.md)")
      ->check(CLI::IsMember({"emulator", "hip"}));
  cmd->add_option("--hip-library", o.hip_library, "with --backend hip: the runtime to dlopen (default $ASMEVO_HIP_LIBRARY or libamdhip64.so.5)");
  cmd->add_flag("--no-static", o.no_static, "skip the static safety checks (not recommended)");
  cmd->add_option("--threads", o.threads, "emulator worker threads (0: all cores); verdicts do not depend on it");
  cmd->add_option("--max-mismatches", o.max_mismatches, "mismatches to list (all are counted)");
  cmd->add_flag("--prove", o.prove,
                "also prove the window K1 changed equivalent to K0's for all inputs with Z3: PROVEN / DISPROVEN (with the "
                "live-in state) / UNKNOWN; the exit status stays the testing verdict's");
  cmd->add_option("--prove-timeout", o.prove_timeout_ms, "solver work per query, in ms of one core (--prove; counted in Z3 resource units, so the verdict does not depend on the machine's load)");
  return cmd;
}

namespace {

codeobj::CodeObject load_one(const std::string& path) {
  auto bytes = read_file_bytes(path);
  return codeobj::CodeObject::parse(std::move(bytes), path);
}

std::vector<std::string> regression_specs(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw Error("not a folder", dir, "give the folder that --counterexamples wrote");
  std::vector<std::string> specs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string()[0] != '.' && fs::exists(e.path() / "spec.yaml"))
      specs.push_back((e.path() / "spec.yaml").string());
  std::sort(specs.begin(), specs.end());
  return specs;
}

// The proof of K1's changed window against K0's: the line diff of the two recovered listings is
// the edit; its span must be one straight-line region of the kernel. When the proof is not PROVEN
// and the backend is the emulator, the proof is made again in K0's observed context and its
// counterexample, mapped back to input elements, is run (prove/inputs.h).
struct CandidateProof {
  prove::ProofResult proof;
  std::optional<prove::ContextProof> context;
  std::optional<verify::VerifyReport> context_run;
};

CandidateProof prove_candidate(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& kernel,
                               unsigned timeout_ms, verify::Backend* backend, const verify::Reference* ref, const verify::VerifyOptions& vo) {
  program::Program p0 = program::Program::recover(k0), p1 = program::Program::recover(k1);
  CandidateProof out;
  search::Edit edit;
  try {
    edit = search::diff_edit(p0, p1, kernel);
  } catch (const Error& e) {
    out.proof.reason = "the listings differ in more than instructions: " + e.what_text();
    return out;
  }
  if (edit.empty()) {
    out.proof.verdict = prove::Verdict::Proven;
    out.proof.reason = "the kernel's instructions are identical";
    return out;
  }
  std::vector<prove::Change> changes;
  for (const auto& h : edit.hunks) changes.push_back({h.first, h.count, h.lines});
  prove::ProofOptions po;
  po.timeout_ms = timeout_ms;
  po.mode_bits = emu::initial_mode_bits(p0.kernel_descriptor(kernel));
  // Constraint-aware: the reference's runs (boundary and perf launches included) are the admitted launches.
  std::optional<prove::LaunchBounds> bounds;
  if (ref && !ref->runs().empty() && k0.kernel(kernel)) {
    bounds = prove::launch_bounds(k0, *k0.kernel(kernel), ref->runs());
    po.launch = &*bounds;
  }
  out.proof = prove::prove_edit(p0, kernel, changes, po);
  if (out.proof.verdict == prove::Verdict::Proven || !backend || !ref || ref->runs().empty()) return out;
  auto loaded = backend->load(k0, kernel);
  out.context = prove::prove_in_context(*backend, *loaded, p0, kernel, changes, ref->runs().front(), po);
  if (out.context->run) {
    verify::VerifyOptions one = vo;
    one.aimed_inputs = false;
    verify::Reference cref(*backend, k0, {*out.context->run}, one);
    out.context_run = verify::verify_candidate(cref, k1, one);
  }
  return out;
}

nlohmann::json context_json(const CandidateProof& p) {
  nlohmann::json j = {{"verdict", prove::verdict_name(p.context->proof.verdict)}, {"reason", p.context->proof.reason},
                      {"elements", p.context->elements}, {"scalars", p.context->scalars}, {"note", p.context->note}};
  if (p.context_run) j["run"] = {{"label", p.context->run->label}, {"verdict", verify::verdict_name(p.context_run->verdict)}, {"summary", p.context_run->summary}};
  return j;
}

}  // namespace

int run_verify(const VerifyCommandOptions& o) {
  verify::VerifyOptions vo;
  vo.static_checks = !o.no_static;
  vo.max_mismatches = o.max_mismatches;
  vo.counterexample_dir = o.counterexamples;
  verify::VerifyReport report;
  std::optional<CandidateProof> proof;
  try {
    codeobj::CodeObject k0 = load_one(o.k0);
    codeobj::CodeObject k1 = load_one(o.k1);
    std::vector<emu::LaunchSpec> specs;
    for (const auto& p : o.launches) specs.push_back(emu::load_launch_spec(p));
    if (!o.regressions.empty()) {
      for (const auto& p : regression_specs(o.regressions)) {
        emu::LaunchSpec s = emu::load_launch_spec(p);
        if (!specs.empty() && s.kernel != specs[0].kernel) continue;  // counterexamples of other kernels
        specs.push_back(std::move(s));
      }
    }
    auto backend = o.backend == "hip" ? verify::make_hip_backend(o.hip_library) : verify::make_emulator_backend(o.threads);
    // Aimed inputs come from watching K0 execute, which only the emulator can do: with a HIP
    // runtime the emulator makes them and the runtime runs them.
    std::unique_ptr<verify::Backend> aim_with;
    if (o.backend == "hip") aim_with = verify::make_emulator_backend(o.threads), vo.aim_with = aim_with.get();
    verify::Reference ref(*backend, k0, specs, vo);
    if (!ref.sampled_runs().empty()) vo.candidate_sample = search::workgroup_remap_sampler(k1, ref.kernel());  // a renumbered K1
    report = verify::verify_candidate(ref, k1, vo);
    if (o.prove) {
      proof = prove_candidate(k0, k1, specs.at(0).kernel, o.prove_timeout_ms, o.backend == "hip" ? nullptr : backend.get(), &ref, vo);
      // A difference the proof's input set shows is a tested difference like any other.
      if (proof->context_run && report.verdict == verify::Verdict::Equivalent && proof->context_run->verdict != verify::Verdict::Equivalent &&
          proof->context_run->verdict != verify::Verdict::Error) {
        const std::string label = proof->context->run->label;
        report = *proof->context_run;
        report.evidence.kind = "proof counterexample";
        report.evidence.detail = label + " (input elements from the window proof in K0's context)";
      }
    }
  } catch (const Error& e) {
    if (e.exit_code() == kExitInternal) throw;
    report.verdict = verify::Verdict::Error;
    report.summary = e.format();
    report.k0_name = o.k0;
    report.k1_name = o.k1;
  }
  if (o.json) {
    nlohmann::json j = report.to_json();
    if (proof) {
      j["proof"] = proof->proof.to_json();
      if (proof->context) j["proof"]["in_context"] = context_json(*proof);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << report.to_text();
    if (proof) {
      std::cout << "proof: " << proof->proof.to_text() << "\n";
      if (proof->context) {
        std::cout << "proof in K0's context: " << prove::verdict_name(proof->context->proof.verdict) << " " << proof->context->proof.reason;
        if (proof->context_run)
          std::cout << "; its counterexample as inputs (" << proof->context->elements << " element(s), " << proof->context->run->label
                    << "): " << verify::verdict_name(proof->context_run->verdict);
        else if (!proof->context->note.empty())
          std::cout << "; no input set: " << proof->context->note;
        std::cout << "\n";
      }
    }
  }
  return report.exit_code();
}

}  // namespace asmevo::cli
