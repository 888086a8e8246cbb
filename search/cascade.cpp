#include "search/cascade.h"
#include "search/steps.h"
#include "search/moves/workgroup_remap.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include <map>
#include <nlohmann/json.hpp>

#include "rebuild/patch.h"
#include "rebuild/rebuild.h"
#include "emu/dispatch.h"
#include "emu/program.h"
#include "prove/prove.h"
#include "support/content_hash.h"
#include "support/error.h"
#include "verify/hip_backend.h"
#include "timing/hw_params.h"
#include "timing/hw_perturb.h"

namespace asmevo::search {
namespace {

// A candidate that renumbers its workgroups (workgroup-remap's prologue) starts, in each sampled run,
// the workgroups that compute what the original's sampled ones do; null for every other candidate.
std::function<std::vector<uint64_t>(const emu::LaunchSpec&)> remapped_sample(const verify::Reference& ref, const codeobj::CodeObject& k1) {
  if (ref.sampled_runs().empty()) return nullptr;
  return workgroup_remap_sampler(k1, ref.kernel());
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The in-place patch equivalent of an edit (patch mode): every hunk replaces whole instructions
// at their original addresses; insertions cannot be expressed.
std::vector<rebuild::PatchEdit> patch_edits(const program::Program& parent, const Edit& edit) {
  std::vector<rebuild::PatchEdit> out;
  if (edit.kernarg_preload || edit.dispatch_ptr)
    throw Error("a kernel-descriptor change (kernarg preload, dispatch pointer) cannot be an in-place patch", "edit", "patch mode only edits instructions");
  for (const Hunk& h : edit.hunks) {
    if (h.count == 0) throw Error("an insertion cannot be an in-place patch", "edit", "patch mode only replaces or deletes instructions");
    rebuild::PatchEdit p;
    p.at = parent.text_line(h.first).address;
    p.absolute = true;
    p.replace = static_cast<unsigned>(h.count);
    if (h.lines.empty()) p.delete_count = static_cast<unsigned>(h.count);
    for (const std::string& l : h.lines) p.asm_text += l + "\n";
    p.where = fmt::format("hunk at line {}", h.first);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<prove::Change> proof_changes(const Edit& edit) {
  std::vector<prove::Change> out;
  for (const Hunk& h : edit.hunks) out.push_back({h.first, h.count, h.lines});
  return out;
}

Edit first_step(const Edit& edit) {
  Edit head = edit;
  head.then.clear();
  return head;
}

// Applies an edit and its steps (Edit::then): each step to the Program recovered from the previous
// step's rebuilt object, which is what the step's line numbers refer to. `inputs`, when given,
// receives the program each later step was applied to.
program::Program apply_steps(const program::Program& parent, const Edit& edit, std::vector<program::Program>* inputs = nullptr) {
  program::Program p = apply_edit(parent, first_step(edit));
  for (size_t i = 0; i < edit.then.size(); ++i) {
    const Edit& step = edit.then[i];
    require(step.then.empty(), fmt::format("step {} of the compound edit {} has steps of its own", i + 1, edit.move),
            "compound edits are one level deep");
    program::Program q = step_input(p);
    p = apply_edit(q, step);
    if (inputs) inputs->push_back(std::move(q));
  }
  return p;
}

// The window proof of an edit. An edit that changes the kernel descriptor (kernarg preload: the
// SGPRs are renamed and the entry moves) starts its window from another live-in state than the
// parent's, so a window proof says nothing about it: UNKNOWN, never a DISPROVEN that would refuse it.
// A compound edit is proved step by step, each against the program it applies to: PROVEN only when
// every step is (equivalence is transitive), DISPROVEN when one step is (a step that another undoes
// is refused: a false refusal, never a false acceptance), UNKNOWN otherwise.
prove::ProofResult prove_edit_window(const program::Program& parent, const std::string& kernel, const Edit& edit,
                                     const prove::ProofOptions& po, bool use_liveness) {
  if (!edit.then.empty()) {
    std::vector<program::Program> inputs;
    apply_steps(parent, edit, &inputs);
    prove::ProofResult all;
    all.verdict = prove::Verdict::Proven;
    for (size_t i = 0; i <= edit.then.size(); ++i) {
      const Edit step = i == 0 ? first_step(edit) : edit.then[i - 1];
      prove::ProofResult r = prove_edit_window(i == 0 ? parent : inputs[i - 1], kernel, step, po, use_liveness);
      all.seconds += r.seconds;
      all.reason += fmt::format("{}step {} ({}): {}: {}", i ? "; " : "", i + 1, step.move, prove::verdict_name(r.verdict), r.reason);
      if (r.verdict == prove::Verdict::Disproven) {
        r.reason = all.reason;
        r.seconds = all.seconds;
        return r;
      }
      if (r.verdict != prove::Verdict::Proven) all.verdict = prove::Verdict::Unknown;
    }
    return all;
  }
  if (edit.kernarg_preload || edit.dispatch_ptr) {
    prove::ProofResult r;
    r.reason = "the edit changes the kernel descriptor (kernarg preload or dispatch pointer): the windows do not start from the same live-in state";
    return r;
  }
  return prove::prove_edit(parent, kernel, proof_changes(edit), po, use_liveness);
}

}  // namespace

program::Program step_input(const program::Program& edited) {
  return program::Program::recover(codeobj::CodeObject::parse(rebuild::rebuild(edited.listing(), "step"), "step"));
}

const prove::LaunchBounds* Cascade::launch_bounds_for(const program::Program& parent) {
  const codeobj::Kernel* k = k0_->kernel(kernel_);
  if (!k) return nullptr;
  const codeobj::KernelDescriptor& kd = parent.kernel_descriptor(kernel_);
  if (kd.user_sgpr_count() != k->kd.user_sgpr_count() || kd.kernarg_preload_length() != k->kd.kernarg_preload_length())
    return nullptr;  // another entry layout (kernarg preload): K0's facts name other registers
  if (!launch_bounds_) {
    std::vector<emu::LaunchSpec> admitted = full_->runs();
    admitted.insert(admitted.end(), perf_runs_.begin(), perf_runs_.end());
    launch_bounds_ = prove::launch_bounds(*k0_, *k, admitted);
  }
  return &*launch_bounds_;
}

prove::ProofResult Cascade::prove_window(const program::Program& parent, const Edit& edit, bool use_liveness) {
  if (edit.move == kWorkgroupRemapMove) {
    // A renumbered wave computes another workgroup's tile: no window of K1 is equivalent to K0's, so
    // the proof could only answer UNKNOWN, after building the prologue's terms for every lane (32 s a
    // candidate on kb_conv2d_relu_bias_f32, past the deadline: the time is in Z3's term construction
    // and context teardown, which the deadline does not interrupt). The tests are its evidence.
    prove::ProofResult r;
    r.reason = "the edit renumbers the grid's workgroups (workgroup-remap): a window proof cannot relate a renumbered wave to "
               "the original one; the evidence is the tests (the sampled perf launch at the preimage of K0's sample)";
    return r;
  }
  prove::ProofOptions po;
  // The stated timeout bounds the proof stage of one candidate: as solver work for every query
  // together (deterministic) and as wall-clock time (a query whose work grows slowly: the verdict is
  // then UNKNOWN about the timeout, not after the prover's own backstops of 4 x 10 s).
  po.timeout_ms = po.budget_ms = options_.proof_timeout_ms;
  po.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.proof_timeout_ms);
  po.mode_bits = emu::initial_mode_bits(parent.kernel_descriptor(kernel_));
  po.launch = launch_bounds_for(parent);
  return prove_edit_window(parent, kernel_, edit, po, use_liveness);
}

Cascade::Cascade(const codeobj::CodeObject& k0, const std::string& kernel, const std::vector<emu::LaunchSpec>& specs,
                 const CascadeOptions& options)
    : k0_(std::make_shared<codeobj::CodeObject>(k0)), kernel_(kernel), specs_(specs), options_(options) {
  require(!specs_.empty(), "no launch spec for kernel " + kernel);
  backend_ = make_backend();
  for (const auto& s : specs_)
    if (!s.perf.empty())
      for (auto& r : emu::perf_runs(s)) perf_runs_.push_back(std::move(r));
  if (perf_runs_.empty()) perf_runs_ = emu::perf_runs(specs_[0]);  // v2: the first verification run
  verify::VerifyOptions vo;
  if (options_.hip) aim_backend_ = verify::make_emulator_backend(options.threads), vo.aim_with = aim_backend_.get();
  const emu::LaunchSpec quick_run = emu::expand_runs(specs_[0]).at(0);
  quick_ = std::make_unique<verify::Reference>(*backend_, *k0_, std::vector<emu::LaunchSpec>{quick_run}, vo);
  full_ = std::make_unique<verify::Reference>(*backend_, *k0_, specs_, vo);
  // Robust fitness perturbs the model's parameters: a measured fitness has none to perturb.
  if (!options_.hip) robust_rows_ = robust_rows_for(k0_->target().arch);
}

std::vector<timing::HwParams> Cascade::robust_rows_for(codeobj::Arch arch) const {
  std::vector<timing::HwParams> rows;
  const timing::HwParams& nominal = timing::hw_params(arch);
  for (unsigned d = 0; d < options_.robust_draws; ++d)
    rows.push_back(timing::perturbed_params(nominal, options_.robust_seed + d, options_.robust_fraction));
  return rows;
}

std::string Cascade::robust_description() const {
  if (options_.hip) return "off (the fitness is measured, not modeled)";
  if (robust_rows_.empty()) return "off (nominal hardware row only)";
  std::string names;
  for (const std::string& n : timing::uncertain_params(k0_->target().arch)) names += (names.empty() ? "" : ", ") + n;
  return fmt::format("{} perturbed rows (seeds {}..{}), each of {} moved by +/-{:.0f} %", robust_rows_.size(), options_.robust_seed,
                     options_.robust_seed + robust_rows_.size() - 1, names, 100 * options_.robust_fraction);
}

Cascade::~Cascade() = default;

std::unique_ptr<verify::Backend> Cascade::make_backend() const {
  return options_.hip ? verify::make_hip_backend(options_.hip->library) : verify::make_emulator_backend(options_.threads);
}

timing::ModeledRun Cascade::model(const codeobj::CodeObject& co) const {
  const codeobj::Kernel* k = co.kernel(kernel_);
  require(k != nullptr, "no kernel named " + kernel_ + " in " + co.elf().name());
  return timing::model_kernel({&co, k, &perf_runs_.at(0), inputs_}, options_.threads);
}

namespace {

// The fitness is modeled time, counted in cycles of the peak clock: the model lowers the clock under
// matrix-unit load (timing::set_clock), so fewer cycles can take longer (an occupancy edit that
// packs more MFMA work per CU). Where the clock stays at its peak (no MFMA) these are the model's
// own cycles, unchanged.
double at_peak_clock(codeobj::Arch arch, double microseconds, double cycles) {
  const double at_peak = microseconds * timing::hw_params(arch).clock_ghz * 1e3;
  return std::abs(at_peak - cycles) <= 1e-9 * cycles ? cycles : at_peak;
}

}  // namespace

Fitness Cascade::fitness(const codeobj::CodeObject& co, bool robust, bool keep_traces) const {
  const codeobj::Kernel* k = co.kernel(kernel_);
  require(k != nullptr, "no kernel named " + kernel_ + " in " + co.elf().name());
  const codeobj::Arch arch = co.target().arch;
  auto at_peak = [&](double microseconds, double cycles) { return at_peak_clock(arch, microseconds, cycles); };
  Fitness f;
  double log_cycles = 0, log_us = 0;
  // Another processor's object (a parent the ABI gate will refuse) is timed on its own rows.
  const std::vector<timing::HwParams> rows =
      !robust ? std::vector<timing::HwParams>{} : co.target().arch == k0_->target().arch ? robust_rows_ : robust_rows_for(co.target().arch);
  std::vector<double> log_robust(robust ? robust_rows_.size() : 0, 0.0);
  for (const emu::LaunchSpec& run : perf_runs_) {
    std::shared_ptr<timing::ModeledRun> r;
    if (!options_.hip || !f.profile)  // the model's profile picks hot windows, also when timing is measured
      r = std::make_shared<timing::ModeledRun>(timing::model_kernel({&co, k, &run, inputs_}, options_.threads, {}, rows, keep_traces));
    if (r && keep_traces) f.traces.push_back(std::move(r->traces));  // not kept in the profile (an accepted child's would hold them for good)
    LaunchFigure figure;
    if (options_.hip) {
      const verify::HipTiming t = verify::time_with_hip(co, kernel_, run, options_.hip->warmup, options_.hip->repetitions, options_.hip->library);
      require(t.clock_khz > 0 && t.median_us > 0,
              fmt::format("the HIP runtime {} reports clock {} kHz and a median of {} us for perf launch '{}': no measured fitness",
                          t.runtime, t.clock_khz, t.median_us, run.perf_name));
      figure = {run.perf_name, t.median_us * t.clock_khz / 1000.0, t.median_us};
    } else {
      figure = {run.perf_name, at_peak(r->model.microseconds, static_cast<double>(r->model.cycles)), r->model.microseconds};
    }
    f.launches.push_back(figure);
    log_cycles += std::log(std::max(1.0, figure.cycles));
    log_us += std::log(std::max(1e-9, figure.microseconds));
    for (size_t d = 0; d < log_robust.size(); ++d)
      log_robust[d] += std::log(std::max(1.0, at_peak(r->variant_microseconds.at(d), static_cast<double>(r->variant_cycles.at(d)))));
    if (!f.profile) f.profile = std::move(r);
  }
  const double n = static_cast<double>(perf_runs_.size());
  for (double l : log_robust) f.robust_cycles.push_back(std::exp(l / n));
  f.cycles = perf_runs_.size() == 1 ? f.launches[0].cycles : std::exp(log_cycles / n);
  f.microseconds = perf_runs_.size() == 1 ? f.launches[0].microseconds : std::exp(log_us / n);
  return f;
}

double Cascade::robust_row(const Fitness& timed, size_t row) const {
  require(timed.traces.size() == perf_runs_.size(), "no traces kept for the perturbed rows", "time with fitness(co, false, keep_traces)");
  const timing::HwParams& hw = robust_rows_.at(row);
  ++robust_replays_;
  // fitness's arithmetic, one row: the geomean over the perf launches of each one's figure at the peak clock.
  double log_cycles = 0;
  for (const auto& traces : timed.traces) {
    require(traces != nullptr, "no traces kept for a perf launch", "time with fitness(co, false, keep_traces)");
    const timing::ModelResult m = timing::replay(*traces, hw);
    log_cycles += std::log(std::max(1.0, at_peak_clock(hw.arch, m.microseconds, static_cast<double>(m.cycles))));
  }
  return std::exp(log_cycles / static_cast<double>(perf_runs_.size()));
}

std::string Cascade::fitness_description() const {
  const std::string figure =
      options_.hip ? fmt::format("measured time (median of {} HIP-event runs after {} warm-up, as cycles at the device's reported clock)",
                                 options_.hip->repetitions, options_.hip->warmup)
                   : "modeled time (as cycles at the peak clock)";
  if (perf_runs_.size() == 1) return figure + " on " + emu::perf_description(perf_runs_[0]);
  std::string names;
  for (const auto& r : perf_runs_) names += (names.empty() ? "" : ", ") + fmt::format("'{}' ({}:{})", r.perf_name, r.path, r.perf_line);
  return "geomean of " + figure + " on perf launches " + names;
}

std::string launch_changes(const std::vector<LaunchFigure>& before, const std::vector<LaunchFigure>& after) {
  std::string s;
  for (size_t i = 0; i < after.size(); ++i) {
    s += (s.empty() ? "" : ", ") + after[i].name + " ";
    if (i < before.size()) s += fmt::format("{:.0f} -> ", before[i].cycles);
    s += fmt::format("{:.0f}", after[i].cycles);
  }
  return s;
}

Individual Cascade::individual(const std::vector<uint8_t>& bytes, int64_t id, const std::string& name) const {
  Individual ind;
  ind.id = id;
  ind.bytes = bytes;
  auto co = std::make_shared<codeobj::CodeObject>(codeobj::CodeObject::parse(bytes, name));
  ind.program = std::make_shared<program::Program>(program::Program::recover(*co));
  Fitness f = fitness(*co, /*robust=*/true);
  ind.robust_cycles = std::move(f.robust_cycles);
  ind.cycles = f.cycles;
  ind.microseconds = f.microseconds;
  ind.launches = std::move(f.launches);
  ind.timed = std::move(f.profile);
  ind.co = std::move(co);
  return ind;
}

std::vector<uint8_t> Cascade::build_candidate(const Individual& parent, const Edit& edit, std::vector<StageResult>& stages,
                                              std::string& reason, std::string& key) const {
  auto t = Clock::now();
  if (options_.patch_mode) {
    if (!edit.then.empty()) {
      reason = "a compound edit (a step rebuilt before the next) cannot be an in-place patch";
      stages.push_back({"edit", false, since(t), reason});
      return {};
    }
    try {
      auto r = rebuild::patch_kernel(parent.bytes, "candidate", edit.kernel, patch_edits(*parent.program, edit));
      stages.push_back({"edit", true, since(t), "in-place patch"});
      key = content_hash(r.image);
      if (seen_.count(key)) return {};  // the caller answers from the cache
      stages.push_back({"rebuild", true, 0, fmt::format("{} range(s) patched", r.ranges.size())});
      return r.image;
    } catch (const Error& e) {
      reason = e.what_text();
      stages.push_back({"edit", false, since(t), reason});
      return {};
    }
  }
  std::optional<program::Program> edited;
  try {
    edited.emplace(apply_steps(*parent.program, edit));
  } catch (const Error& e) {
    reason = e.what_text();
    stages.push_back({"edit", false, since(t), reason});
    return {};
  }
  stages.push_back({"edit", true, since(t),
                    edit.then.empty() ? fmt::format("{} hunk(s)", edit.hunks.size())
                                      : fmt::format("{} hunk(s), then {} step(s) each on the rebuilt result", edit.hunks.size(), edit.then.size())});
  const program::Listing& listing = edited->listing();
  const std::string text = listing.to_assembly(/*annotate=*/false);
  key = content_hash(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (seen_.count(key)) return {};  // the caller answers from the cache
  t = Clock::now();
  try {
    auto bytes = rebuild::rebuild(listing, "candidate");
    stages.push_back({"rebuild", true, since(t), fmt::format("{} bytes", bytes.size())});
    return bytes;
  } catch (const Error& e) {
    reason = e.what_text();
    stages.push_back({"rebuild", false, since(t), reason});
    return {};
  }
}

Evaluation Cascade::evaluate(const Individual& parent, const Edit& edit) {
  auto start = Clock::now();
  const int64_t ordinal = ++evaluations_;
  Evaluation ev;
  std::string key;
  auto finish = [&](bool ok, std::string reason) -> Evaluation {
    ev.accepted = ok;
    ev.reason = std::move(reason);
    ev.stage = ev.stages.empty() ? "edit" : ev.stages.back().stage;
    ev.seconds = since(start);
    if (!key.empty() && !seen_.count(key) && !ok) seen_[key] = Seen{ev.stage, ev.reason, ordinal, {}, nullptr, {}, 0, 0, {}};
    return std::move(ev);
  };
  std::string reason;
  std::vector<uint8_t> bytes = build_candidate(parent, edit, ev.stages, reason, key);
  std::shared_ptr<const codeobj::CodeObject> k1;
  Fitness timed;
  const Seen* cached = nullptr;
  if (bytes.empty() && !key.empty()) {
    if (auto it = seen_.find(key); it != seen_.end()) cached = &it->second;
  }
  if (cached && !cached->stage.empty()) {
    // The same code was rejected before; the stages that rejected it are deterministic for the code
    // (the references only grow), and a timing rejection is re-judged against this parent below.
    if ((cached->stage != "timing" && cached->stage != "robust") || !cached->co) {
      ev.stages.push_back({"cache", false, since(start),
                           fmt::format("the same code as evaluation {} of this kernel ({}: {})", cached->ordinal,
                                       cached->stage == "accept" ? "accepted" : "rejected at " + cached->stage, cached->reason)});
      ev.stage = "cache";
      ev.accepted = false;
      ev.reason = ev.stages.back().detail;
      ev.seconds = since(start);
      return ev;
    }
  }
  if (cached && cached->co) {
    ev.stages.push_back({"cache", true, since(start),
                         fmt::format("the same code as evaluation {}: rebuild, static checks, proof, emulation and timing reused",
                                     cached->ordinal)});
    bytes = cached->bytes;
    k1 = cached->co;
    timed.cycles = cached->cycles;
    timed.microseconds = cached->microseconds;
    timed.launches = cached->launches;
    timed.robust_cycles = cached->robust_cycles;
  }
  if (bytes.empty()) return finish(false, reason);

  auto t = Clock::now();
  if (!k1) {
    try {
      k1 = std::make_shared<codeobj::CodeObject>(codeobj::CodeObject::parse(bytes, "candidate"));
    } catch (const Error& e) {
      ev.stages.push_back({"rebuild", false, since(t), e.what_text()});
      return finish(false, e.what_text());
    }
    // ABI, static checks and one run: verify_candidate's gates in that order.
    verify::VerifyOptions quick_opts;
    quick_opts.stop_at_first_difference = true;
    quick_opts.max_mismatches = 1;
    // The proof runs inside the quick verification, right after its static checks; the gate also
    // marks where the static checks end (the profile's split between static and emulate).
    std::optional<StageResult> proof_stage;
    bool refuted = false;
    double static_s = -1;
    const bool late_proof = options_.proof == CascadeOptions::Proof::Gate && options_.prove_winners_only;
    quick_opts.after_static = [&]() -> std::string {
      static_s = since(t);
      if (options_.proof == CascadeOptions::Proof::Off || late_proof) return {};
      auto tp = Clock::now();
      prove::ProofResult pr = prove_window(*parent.program, edit);
      std::string detail = std::string(prove::verdict_name(pr.verdict)) + ": " + pr.reason;
      if (pr.verdict == prove::Verdict::Disproven) detail += "; live-in state: " + pr.counterexample;
      if (options_.proof == CascadeOptions::Proof::Measure) {
        prove::ProofResult wl = prove_window(*parent.program, edit, /*use_liveness=*/false);
        // Its time is said apart: the proof time per candidate is the gate's (liveness) proof alone.
        detail += fmt::format("; window-level: {} in {:.3f} s", prove::verdict_name(wl.verdict), wl.seconds);
      }
      refuted = pr.verdict == prove::Verdict::Disproven && options_.proof == CascadeOptions::Proof::Gate;
      proof_stage = StageResult{"prove", !refuted, since(tp), detail};
      return refuted ? "DISPROVEN: " + pr.reason : std::string();
    };
    quick_opts.candidate_sample = remapped_sample(*quick_, *k1);
    verify::VerifyReport quick = verify::verify_candidate(*quick_, *k1, quick_opts);
    const double quick_s = since(t);
    if (static_s < 0) static_s = quick_s;  // stopped before the gate
    const double emulate_s = std::max(0.0, quick_s - static_s - (proof_stage ? proof_stage->seconds : 0));
    if (!quick.abi_breaks.empty()) {
      ev.stages.push_back({"abi", false, static_s, quick.summary});
      return finish(false, quick.summary);
    }
    ev.stages.push_back({"abi", true, 0, "compatible"});
    if (!quick.violations.empty() || (quick.verdict == verify::Verdict::Error && quick.runs_done == 0)) {
      ev.stages.push_back({"static", false, static_s, quick.summary});
      return finish(false, quick.summary);
    }
    ev.stages.push_back({"static", true, static_s, "clean"});
    if (proof_stage) ev.stages.push_back(*proof_stage);
    if (refuted) return finish(false, quick.summary);  // never emulated
    if (quick.verdict != verify::Verdict::Equivalent) {
      std::string why = std::string(verify::verdict_name(quick.verdict)) + ": " + quick.summary;
      ev.stages.push_back({"emulate", false, emulate_s, why});
      return finish(false, why);
    }
    ev.stages.push_back({"emulate", true, emulate_s, fmt::format("{} run(s) agree", quick.runs_done)});

    t = Clock::now();
    try {
      timed = fitness(*k1, /*robust=*/false, /*keep_traces=*/!robust_rows_.empty());  // the robust stage replays them
    } catch (const Error& e) {
      ev.stages.push_back({"timing", false, since(t), e.what_text()});
      return finish(false, e.what_text());
    }
  }
  // From here on the candidate is remembered with its figures, whatever this parent makes of them.
  Seen& memo = seen_.emplace(key, Seen{}).first->second;
  if (memo.ordinal == 0) {
    memo = Seen{"", "", ordinal, bytes, k1, timed.launches, timed.cycles, timed.microseconds, timed.robust_cycles};
  }
  auto reject = [&](const std::string& stage, std::string why) {
    if (memo.stage.empty() || stage == "verify") memo.stage = stage, memo.reason = why;
    ev.accepted = false;
    ev.stage = stage;
    ev.reason = std::move(why);
    ev.seconds = since(start);
    return std::move(ev);
  };
  ev.cycles = timed.cycles;
  ev.launches = timed.launches;
  const double limit = parent.cycles * (1.0 - options_.min_gain);
  const std::string figure =
      fmt::format("{:.0f} {} cycles vs parent {:.0f} ({:.3f}x){}", ev.cycles, figure_kind(), parent.cycles, ev.cycles > 0 ? parent.cycles / ev.cycles : 0.0,
                  perf_runs_.size() == 1 ? " on perf launch " + perf_runs_[0].perf_name
                                         : " geomean over perf launches: " + launch_changes(parent.launches, timed.launches));
  if (ev.cycles > limit) {
    // The limit with a decimal and the gain it stands for: rounded to whole cycles it can print the candidate's own
    // figure ("4882 ... needs <= 4882" for a limit of 4881.69), which reads as a wrong refusal.
    const std::string needs = fmt::format(", needs <= {:.1f} (min gain {:g} %)", limit, options_.min_gain * 100);
    ev.stages.push_back({"timing", false, since(t), figure + needs});
    return reject("timing", "not faster: " + figure + needs);
  }
  ev.stages.push_back({"timing", true, since(t), figure});

  if (!robust_rows_.empty()) {
    t = Clock::now();
    require(parent.robust_cycles.size() == robust_rows_.size(), "the parent has no figures under the perturbed hardware rows",
            "make individuals with Cascade::individual");
    // Row by row, stopping at the first row under which the candidate is not faster (the verdict is
    // the same as over every row: rejected where any row does not confirm the win), each replayed on
    // the traces the timing stage kept. The figures are remembered with the code; a repeat of it
    // (the cache) whose rows stopped short before, or that kept no traces, is timed again under
    // every row.
    std::vector<double>& rows = timed.robust_cycles;
    std::optional<size_t> slower;
    try {
      for (size_t d = 0; d < robust_rows_.size() && !slower; ++d) {
        if (d == rows.size()) {
          if (!timed.traces.empty()) rows.push_back(robust_row(timed, d));
          else {
            Fitness again = fitness(*k1, /*robust=*/true);
            rows = again.robust_cycles;
            if (!timed.profile) timed.profile = std::move(again.profile);
          }
        }
        if (rows[d] >= parent.robust_cycles[d]) slower = d;
      }
    } catch (const Error& e) {
      ev.stages.push_back({"robust", false, since(t), e.what_text()});
      return reject("robust", e.what_text());
    }
    if (rows.size() > memo.robust_cycles.size()) memo.robust_cycles = rows;
    timed.traces.clear();  // the traces' memory is not needed past this stage
    auto row_change = [&](size_t d) { return fmt::format("{:.0f} -> {:.0f}", parent.robust_cycles[d], rows[d]); };
    if (slower) {
      // Names the first row that does not confirm the win (later rows were not replayed).
      const std::string one = fmt::format("row {}: {}", *slower, row_change(*slower));
      ev.stages.push_back({"robust", false, since(t),
                           fmt::format("not faster under perturbed hardware row {} ({} of {} rows replayed): {}", *slower, *slower + 1,
                                       robust_rows_.size(), one)});
      return reject("robust", "faster only under the nominal row (" + figure + "); not under " + one);
    }
    std::string all;
    for (size_t d = 0; d < robust_rows_.size(); ++d) all += (all.empty() ? "" : ", ") + row_change(d);
    ev.stages.push_back({"robust", true, since(t), fmt::format("faster under all {} perturbed rows: {}", robust_rows_.size(), all)});
  }

  if (options_.proof == CascadeOptions::Proof::Gate && options_.prove_winners_only) {
    t = Clock::now();
    prove::ProofResult pr = prove_window(*parent.program, edit);
    std::string detail = std::string(prove::verdict_name(pr.verdict)) + ": " + pr.reason;
    if (pr.verdict == prove::Verdict::Disproven) {
      detail += "; live-in state: " + pr.counterexample;
      ev.stages.push_back({"prove", false, since(t), detail});
      // Not remembered as the code's verdict: the proof is of this parent's window.
      ev.accepted = false;
      ev.stage = "prove";
      ev.reason = "DISPROVEN: " + pr.reason;
      ev.seconds = since(start);
      return ev;
    }
    ev.stages.push_back({"prove", true, since(t), detail});
  }

  t = Clock::now();
  verify::VerifyOptions full_opts;
  full_opts.stop_at_first_difference = true;
  full_opts.static_checks = true;  // cheap, and the quick reference's K0 findings are the same
  full_opts.counterexample_dir = options_.counterexample_dir;
  full_opts.candidate_sample = remapped_sample(*full_, *k1);
  verify::VerifyReport full = verify::verify_candidate(*full_, *k1, full_opts);
  ev.counterexamples = full.counterexamples;
  for (const std::string& dir : full.counterexamples) {
    try {
      add_counterexample(emu::load_launch_spec(dir + "/spec.yaml"));
    } catch (const Error&) {
      // The folder exists from an earlier find of the same input; the references already have it.
    }
  }
  if (full.verdict != verify::Verdict::Equivalent) {
    std::string why = std::string(verify::verdict_name(full.verdict)) + ": " + full.summary;
    ev.stages.push_back({"verify", false, since(t), why});
    return reject("verify", why);
  }
  ev.stages.push_back({"verify", true, since(t), full.summary});

  t = Clock::now();
  if (!timed.profile) timed = fitness(*k1, !robust_rows_.empty());  // from the cache: the child needs its profile
  Individual child;
  child.bytes = std::move(bytes);
  child.co = k1;
  child.program = std::make_shared<program::Program>(program::Program::recover(*k1));
  child.cycles = ev.cycles;
  child.microseconds = timed.microseconds;
  child.launches = timed.launches;
  child.timed = std::move(timed.profile);
  child.robust_cycles = timed.robust_cycles;
  child.move = edit.move;
  ev.child = std::move(child);
  ev.stages.push_back({"accept", true, since(t), figure});
  memo.stage = "accept", memo.reason = "accepted";
  ev.accepted = true;
  ev.stage = "accept";
  ev.reason = figure;
  ev.seconds = since(start);
  return ev;
}

void Cascade::add_counterexample(const emu::LaunchSpec& spec) {
  quick_->add_spec(spec);
  full_->add_spec(spec);
}

verify::VerifyReport Cascade::reverify(const codeobj::CodeObject& k1, uint64_t seed_offset) const {
  std::vector<emu::LaunchSpec> fresh = specs_;
  for (auto& s : fresh) s.seed += seed_offset;
  auto backend = make_backend();
  verify::VerifyOptions ref_opts;
  ref_opts.aim_with = aim_backend_.get();
  verify::Reference ref(*backend, *k0_, fresh, ref_opts);
  verify::VerifyOptions opts;
  opts.counterexample_dir = options_.counterexample_dir;
  opts.candidate_sample = remapped_sample(ref, k1);
  return verify::verify_candidate(ref, k1, opts);
}

std::string per_line_json(const Individual& ind, const std::string& kernel) {
  nlohmann::json out = nlohmann::json::array();
  const program::Function* f = ind.program->function(kernel);
  if (!f) return out.dump();
  std::map<uint64_t, double> by_address;
  if (ind.timed) {
    const auto& insts = ind.timed->program->insts();
    for (size_t i = 0; i < insts.size() && i < ind.timed->model.per_inst.size(); ++i)
      by_address[insts[i].address - emu::kCodeBase] = ind.timed->model.per_inst[i].cycles();
  }
  for (size_t i = f->begin; i < f->end; ++i) {
    const program::Line& l = ind.program->text_line(i);
    if (!l.inst) continue;
    auto it = by_address.find(l.address);
    out.push_back({{"address", l.address}, {"text", l.text}, {"cycles", it == by_address.end() ? 0.0 : it->second}});
  }
  return out.dump();
}

std::string kernel_listing(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f) return "";
  std::string out;
  for (size_t i = f->begin; i < f->end; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind == program::Line::Label) out += l.text + ":\n";
    else if (l.is_instruction()) out += "  " + l.text + "\n";
  }
  return out;
}

}  // namespace asmevo::search
