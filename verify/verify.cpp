#include "verify/verify.h"

#include "emu/npy.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "check/check.h"
#include "support/error.h"
#include "verify/compare.h"
#include "verify/counterexample.h"

namespace asmevo::verify {
namespace {

using Clock = std::chrono::steady_clock;
// LDS is undefined when a workgroup starts: candidates also run with this fill, so code that
// drops an LDS initialisation (and reads what it no longer writes) differs.
constexpr uint8_t kLdsFill = 0xA5;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Findings are matched between K0 and K1 by what they say about the code, not by address: edits
// move instructions.
using FindingKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;
FindingKey finding_key(const check::Violation& v) { return {v.rule, v.function, v.text, v.reg, v.producer_text}; }

std::vector<check::Violation> static_findings(const codeobj::CodeObject& co, const std::string& kernel,
                                              const std::vector<emu::LaunchSpec>& runs) {
  check::CheckOptions opts;
  opts.kernel = kernel;
  // The LDS bound must hold for every launch: the smallest dynamic LDS of any run.
  for (const auto& r : runs) opts.dynamic_lds = std::min(opts.dynamic_lds.value_or(r.dynamic_lds), r.dynamic_lds);
  return check::check_code_object(co, opts).violations;
}

bool all_zero(const std::vector<uint8_t>& b) {
  return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

std::string guard_byte(uint8_t v) { return fmt::format("0x{:02x}", v); }

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Equivalent: return "EQUIVALENT";
    case Verdict::Different: return "DIFFERENT";
    case Verdict::Unsafe: return "UNSAFE";
    case Verdict::Fault: return "FAULT";
    case Verdict::Error: return "ERROR";
  }
  return "?";
}

int verdict_exit_code(Verdict v) {
  switch (v) {
    case Verdict::Equivalent: return 0;
    case Verdict::Different: return 10;
    case Verdict::Unsafe: return 11;
    case Verdict::Fault: return 12;
    case Verdict::Error: return kExitBadInput;
  }
  return kExitInternal;
}

Reference::Reference(Backend& backend, const codeobj::CodeObject& k0, const std::vector<emu::LaunchSpec>& specs,
                     const VerifyOptions& options)
    : backend_(backend), k0_(k0) {
  if (specs.empty()) throw Error("no launch spec given", k0.elf().name(), "pass --launch SPEC.yaml");
  kernel_ = specs.front().kernel;
  for (const auto& s : specs)
    if (s.kernel != kernel_)
      throw Error("launch specs name different kernels: " + kernel_ + " and " + s.kernel, s.path, "verify one kernel at a time");
  auto t0 = Clock::now();
  loaded_ = backend_.load(k0, kernel_);
  for (const auto& s : specs) add_spec(s);
  // Are K0's results independent of the wave schedule and of the firmware's kernarg preloading?
  // (They are for race-free kernels without float atomics inside a workgroup.) Checked on the
  // first run.
  std::vector<RunVariant> probes{{emu::WaveSchedule::Reverse, true, 0, false}, {emu::WaveSchedule::Interleaved, true, 0, false},
                                 {emu::WaveSchedule::InOrder, false, 0, false}, {emu::WaveSchedule::InOrder, true, kLdsFill, false},
                                 {emu::WaveSchedule::InOrder, true, 0, true}};
  for (const RunVariant& v : probes) {
    // A schedule under which K0 spins (waves waiting on each other without a barrier) must not
    // hang the reference: the same step limit as for candidates.
    RunOutcome other = backend_.run(*loaded_, runs_[0], outcomes_[0].max_wave_instructions * 4 + 100000, v);
    executed_.insert(other.executed.begin(), other.executed.end());
    bool same = other.status == RunOutcome::Completed;
    for (size_t b = 0; same && b < other.buffers.size(); ++b) same = other.buffers[b].after == outcomes_[0].buffers[b].after;
    if (same) continue;
    if (v.straddle_4g) {
      address_sensitive_ = true;
      notes_.push_back("the original kernel's results change when its buffers straddle 4 GiB boundaries: candidates run with packed buffers only");
    } else if (v.lds_fill) {
      lds_sensitive_ = true;
      notes_.push_back("the original kernel's results depend on LDS contents it never wrote: candidates run with zeroed LDS only");
    } else if (v.preload_firmware) {
      schedule_sensitive_ = true;
      notes_.push_back("the original kernel's results depend on the wave schedule (" + v.describe() + " differs): candidates run in order only");
    } else {
      preload_sensitive_ = true;
      notes_.push_back("the original kernel's results differ without kernarg preloading: candidates run with it only");
    }
  }
  if (options.static_checks) k0_violations_ = static_findings(k0, kernel_, runs_);
  seconds_ = since(t0);
}

Reference::~Reference() = default;

void Reference::add_spec(const emu::LaunchSpec& spec) {
  if (spec.kernel != kernel_) throw Error("the spec is for kernel " + spec.kernel + ", not " + kernel_, spec.path);
  if (!spec.has_outputs())
    throw Error("the spec marks no buffer as output: true or inout: true, so there is nothing to compare", spec.path,
                "mark every buffer the kernel writes (docs/verify.md)");
  std::vector<emu::LaunchSpec> runs = emu::expand_runs(spec);
  // A set of inputs that are all zero lets most wrong kernels pass: refuse a spec that has only those.
  bool any_input = false, any_nonzero = false;
  const size_t first = runs_.size();
  for (const auto& r : runs) add_run(r);
  for (size_t i = first; i < outcomes_.size(); ++i)
    for (const auto& b : outcomes_[i].buffers)
      if (b.direction != emu::ArgSpec::Output) any_input = true, any_nonzero |= !all_zero(b.before);
  if (any_input && !any_nonzero)
    throw Error("every input buffer is all zeros in every input set: a wrong kernel would easily pass", spec.path,
                "give the inputs an init ({normal: [0, 1]}, {ints: [lo, hi]}, ...) or add special: true");
}

void Reference::add_run(const emu::LaunchSpec& run) {
  const std::string where = run.path + " (" + run.label + ")";
  RunOutcome out = backend_.run(*loaded_, run, 1ull << 32);
  if (out.status != RunOutcome::Completed)
    throw Error("the original kernel " + std::string(out.status == RunOutcome::Faulted ? "faults" : "does not finish") +
                    " under this launch: " + out.message,
                where, "the spec must describe a launch the original kernel runs correctly (sizes, values, special: false for index buffers)");
  for (const auto& b : out.buffers) {
    if (b.broken_guard)
      throw Error(fmt::format("the original kernel writes outside buffer {} (byte offset {} from its start)", b.label, *b.broken_guard),
                  where, "make the buffer's count in the spec large enough for this launch");
    if (b.direction == emu::ArgSpec::Input && b.before != b.after)
      throw Error("the original kernel writes buffer " + b.label + ", which the spec declares as an input", where,
                  "mark it output: true (or inout: true if the kernel also reads its initial contents)");
    if (const std::string& expect = run.args[b.arg_index].expect; !expect.empty()) {
      emu::NpyArray want = emu::read_npy(expect);
      if (want.data != b.after) {
        size_t i = 0;
        while (i < std::min(want.data.size(), b.after.size()) && want.data[i] == b.after[i]) ++i;
        throw Error(fmt::format("the original kernel does not reproduce the expected contents of {} ({}): first difference at byte {} "
                                "({} bytes expected, {} produced)", b.label, expect, i, want.data.size(), b.after.size()),
                    where, "the spec's inputs must be the ones the expected output was produced from (asmevo capture writes both)");
      }
    }
    if (b.direction == emu::ArgSpec::Output && b.before == b.after && !b.after.empty())
      notes_.push_back(fmt::format("{}: the original kernel leaves output {} untouched (still poison)", run.label, b.label));
  }
  executed_.insert(out.executed.begin(), out.executed.end());
  out.executed.clear();  // kept once, in executed_
  runs_.push_back(run);
  outcomes_.push_back(std::move(out));
}

VerifyReport verify_candidate(const Reference& ref, const codeobj::CodeObject& k1, const VerifyOptions& options) {
  auto t0 = Clock::now();
  VerifyReport r;
  r.kernel = ref.kernel();
  r.target = k1.target().str();
  r.k0_name = ref.k0().elf().name();
  r.k1_name = k1.elf().name();
  r.figure_kind = ref.backend().figure_kind();
  r.runs_total = ref.runs().size();
  r.notes = ref.notes();
  auto finish = [&](Verdict v, std::string summary) {
    r.verdict = v;
    r.summary = std::move(summary);
    r.seconds = since(t0);
    return r;
  };

  // 1. ABI.
  rebuild::AbiDiff abi = rebuild::abi_diff(ref.k0(), k1);
  for (const auto& f : abi.breaks)
    if (f.kernel.empty() || f.kernel == ref.kernel()) r.abi_breaks.push_back(f);
  if (!r.abi_breaks.empty())
    return finish(Verdict::Unsafe, fmt::format("the candidate breaks the ABI ({}: {} -> {})", r.abi_breaks[0].field,
                                               r.abi_breaks[0].a, r.abi_breaks[0].b));

  // 2. Static safety.
  if (options.static_checks) {
    std::vector<check::Violation> found;
    try {
      found = static_findings(k1, ref.kernel(), ref.runs());
    } catch (const Error& e) {
      return finish(Verdict::Error, "static checks cannot run on the candidate: " + e.format());
    }
    std::set<FindingKey> baseline;
    for (const auto& v : ref.k0_violations()) baseline.insert(finding_key(v));
    for (auto& v : found)
      if (!baseline.count(finding_key(v))) r.violations.push_back(std::move(v));
    if (!r.violations.empty()) {
      const auto& v = r.violations[0];
      return finish(Verdict::Unsafe, fmt::format("{} static finding(s); first: {} at 0x{:x}: {}", r.violations.size(), v.rule, v.pc, v.message));
    }
  }

  // 3. Runs.
  std::unique_ptr<LoadedKernel> loaded;
  try {
    loaded = ref.backend().load(k1, ref.kernel());
  } catch (const Error& e) {
    return finish(Verdict::Error, "the candidate cannot run on the " + r.figure_kind + " backend: " + e.format());
  }
  for (size_t i = 0; i < ref.runs().size(); ++i) {
    const emu::LaunchSpec& run = ref.runs()[i];
    const RunOutcome& k0 = ref.outcomes()[i];
    const uint64_t limit = k0.max_wave_instructions * options.step_limit_factor + options.step_limit_slack;
    static constexpr emu::WaveSchedule kSchedules[] = {emu::WaveSchedule::InOrder, emu::WaveSchedule::Reverse,
                                                       emu::WaveSchedule::Interleaved};
    RunVariant variant;
    if (options.vary_run_conditions && !ref.schedule_sensitive()) variant.schedule = kSchedules[i % 3];
    if (options.vary_run_conditions && !ref.preload_sensitive()) variant.preload_firmware = i % 2 == 0;
    if (options.vary_run_conditions && !ref.lds_sensitive() && (i / 2) % 2 == 1) variant.lds_fill = kLdsFill;
    if (options.vary_run_conditions && !ref.address_sensitive() && i % 4 == 1) variant.straddle_4g = true;
    const std::string how = variant.describe();
    const std::string label = how.empty() ? run.label : run.label + " (" + how + ")";
    RunOutcome k1_out;
    try {
      k1_out = ref.backend().run(*loaded, run, limit, variant);
    } catch (const Error& e) {
      return finish(Verdict::Error, label + ": the candidate cannot run: " + e.format());
    }
    ++r.runs_done;
    if (k1_out.status != RunOutcome::Completed) {
      r.fault = k1_out.message;
      r.fault_run = label;
      return finish(Verdict::Fault, label + ": " +
                                        (k1_out.status == RunOutcome::Faulted
                                             ? std::string("the candidate faults")
                                             : fmt::format("the candidate runs past the step limit ({} instructions per wave; the original's longest wave ran {})",
                                                           limit, k0.max_wave_instructions)));
    }
    uint64_t before = r.mismatch_count;
    auto add = [&](const std::string& buffer, const char* kind, int64_t index, std::string a, std::string b) {
      if (r.mismatches.size() < options.max_mismatches)
        r.mismatches.push_back({i, label, buffer, kind, index, std::move(a), std::move(b)});
      ++r.mismatch_count;
    };
    for (size_t b = 0; b < k0.buffers.size(); ++b) {
      const BufferResult& x = k0.buffers[b];
      const BufferResult& y = k1_out.buffers[b];
      const size_t esz = emu::dtype_size(x.dtype);
      if (y.broken_guard) {
        const int64_t off = *y.broken_guard, guard = static_cast<int64_t>(run.args[x.arg_index].guard);
        const int64_t size = static_cast<int64_t>(x.after.size());
        const uint64_t canary_index = static_cast<uint64_t>(off < 0 ? guard + off : guard + off - size);
        add(x.label, "guard zone", off, "canary " + guard_byte(emu::guard_canary(canary_index, emu::guard_salt(run, x.arg_index))),
            "overwritten");
      }
      const std::vector<uint8_t>& expect = x.direction == emu::ArgSpec::Input ? y.before : x.after;
      for (size_t e = 0; e + esz <= expect.size(); e += esz) {
        bool same = x.direction == emu::ArgSpec::Input ? std::equal(expect.begin() + e, expect.begin() + e + esz, y.after.begin() + e)
                                                        : elements_match(x.dtype, x.compare, expect.data() + e, y.after.data() + e);
        if (!same)
          add(x.label, x.direction == emu::ArgSpec::Input ? "input modified" : "output", static_cast<int64_t>(e / esz),
              format_element(x.dtype, expect.data() + e), format_element(x.dtype, y.after.data() + e));
      }
    }
    if (r.mismatch_count > before) {
      r.differing_runs.push_back(i);
      if (!options.counterexample_dir.empty()) {
        try {
          r.counterexamples.push_back(save_counterexample(options.counterexample_dir, ref, i, k1_out));
        } catch (const Error& e) {
          r.notes.push_back("could not save the counterexample: " + e.format());
        }
      }
      if (options.stop_at_first_difference) break;
    }
  }
  if (r.mismatch_count) {
    const Mismatch& m = r.mismatches[0];
    std::string what = m.kind == "guard zone" ? fmt::format("{} guard zone at byte {}", m.buffer, m.index)
                                              : fmt::format("{}[{}] ({})", m.buffer, m.index, m.kind);
    return finish(Verdict::Different, fmt::format("{} mismatch(es) in {} of {} runs; first: {} in {}: K0 {}, K1 {}", r.mismatch_count,
                                                  r.differing_runs.size(), r.runs_done, what, m.run_label, m.k0, m.k1));
  }
  return finish(Verdict::Equivalent, fmt::format("all {} runs agree: outputs, unchanged inputs and intact guard zones", r.runs_done));
}

nlohmann::json VerifyReport::to_json() const {
  nlohmann::json j = {{"schema", "asmevo.verify/1"},
                      {"verdict", verdict_name(verdict)},
                      {"summary", summary},
                      {"kernel", kernel},
                      {"target", target},
                      {"k0", k0_name},
                      {"k1", k1_name},
                      {"figures", figure_kind},
                      {"runs_total", runs_total},
                      {"runs_done", runs_done},
                      {"mismatch_count", mismatch_count},
                      {"differing_runs", differing_runs},
                      {"seconds", seconds}};
  j["mismatches"] = nlohmann::json::array();
  for (const auto& m : mismatches)
    j["mismatches"].push_back({{"run", m.run}, {"run_label", m.run_label}, {"buffer", m.buffer}, {"kind", m.kind},
                               {"index", m.index}, {"k0", m.k0}, {"k1", m.k1}});
  j["abi_breaks"] = nlohmann::json::array();
  for (const auto& f : abi_breaks) j["abi_breaks"].push_back({{"kernel", f.kernel}, {"field", f.field}, {"k0", f.a}, {"k1", f.b}, {"message", f.message}});
  j["violations"] = nlohmann::json::array();
  for (const auto& v : violations) j["violations"].push_back(v.to_json());
  if (!fault.empty()) j["fault"] = {{"run_label", fault_run}, {"message", fault}};
  j["counterexamples"] = counterexamples;
  j["notes"] = notes;
  return j;
}

std::string VerifyReport::to_text() const {
  if (kernel.empty()) return fmt::format("verdict: {}: {}\n", verdict_name(verdict), summary);  // nothing was run
  std::string t = fmt::format("verify {} ({}): K0 {} vs K1 {} — {} runs, {} done ({})\n", kernel, target, k0_name, k1_name,
                              runs_total, runs_done, figure_kind);
  t += fmt::format("verdict: {}: {}\n", verdict_name(verdict), summary);
  for (const auto& f : abi_breaks) t += fmt::format("  abi: {} {}: {} -> {} ({})\n", f.kernel, f.field, f.a, f.b, f.message);
  for (const auto& v : violations) t += "  " + v.to_text() + "\n";
  if (!fault.empty()) t += "  " + fault_run + ": " + fault + "\n";
  for (const auto& m : mismatches) {
    if (m.kind == "guard zone")
      t += fmt::format("  {} guard zone, byte {} from its start, {}: K0 {}  K1 {}\n", m.buffer, m.index, m.run_label, m.k0, m.k1);
    else
      t += fmt::format("  {}[{}] {}, {}: K0 {}  K1 {}\n", m.buffer, m.index, m.kind, m.run_label, m.k0, m.k1);
  }
  if (mismatch_count > mismatches.size()) t += fmt::format("  ... {} more\n", mismatch_count - mismatches.size());
  for (const auto& c : counterexamples) t += "  counterexample saved: " + c + "\n";
  for (const auto& n : notes) t += "  note: " + n + "\n";
  return t;
}

}  // namespace asmevo::verify
