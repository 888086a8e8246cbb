#include "verify/verify.h"

#include <cstring>

#include "emu/npy.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "check/check.h"
#include "emu/dispatch.h"
#include "emu/inst.h"
#include "emu/registry.h"
#include "emu/wave.h"
#include "support/error.h"
#include "verify/aimed.h"
#include "verify/difference_search.h"
#include "verify/compare.h"
#include "verify/counterexample.h"
#include "verify/exact_sums.h"
#include "verify/magnitude_sets.h"

namespace asmevo::verify {
namespace {

using Clock = std::chrono::steady_clock;
// LDS is undefined when a workgroup starts: candidates also run with these fills, so code that
// drops an LDS initialisation (and reads what it no longer writes) differs. 0xa5a5a5a5 is a tiny
// float (-2.9e-16) that a sum of ordinary values absorbs; 0x7f7f7f7f is a huge one (3.4e38; an f16
// NaN), which dominates a sum or a max it enters: a skipped partial-sum slot shows under it.
constexpr uint8_t kLdsFill = 0xA5, kLdsFillLarge = 0x7F;
// Registers undefined at wave start on hardware: as a float about 2.2e38 (it dominates a sum or a max
// it enters, where a tiny value would be absorbed), as an integer no small index, as an address's high
// word unmapped; so a candidate that reads one before writing it shows. The second has the sign bit
// set (about -2.2e38): a value read where K0 reads a positive one can round or compare the other way
// (silu_and_mul's retargeted v8 read differs on 132 of 65,536 gates only with the sign set).
constexpr uint32_t kRegisterFill = 0x7F25A5A5u, kRegisterFillNegative = 0xFF25A5A5u;
// Random input sets for a spec that says nothing about `inputs`/`special` (docs/verify.md).
constexpr unsigned kDefaultRandomSets = 3;
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

using OutOfBounds = emu::DeviceMemory::OutOfBounds;

// "reads 4 bytes of argument 2 (out) at byte offset 1024 from its start (its guard zone) ..."
std::string describe(const OutOfBounds& o) {
  const bool lds = o.region == "LDS";
  std::string what = lds ? fmt::format("LDS bytes [{}, {}) beyond the workgroup's allocation", o.lowest, o.highest)
                         : fmt::format("{} bytes [{}, {}) from its start, in its guard zone", o.region, o.lowest, o.highest);
  std::string lane = o.lane >= 0 ? fmt::format("lane {}", o.lane) : std::string("the scalar unit");
  return fmt::format("{} {} ({} lane access(es)); first: workgroup ({},{},{}) wave {} {}, address 0x{:x}, pc 0x{:x}: {}",
                     o.write ? "writes" : "reads", what, o.count, o.workgroup[0], o.workgroup[1], o.workgroup[2], o.wave, lane,
                     o.address, o.pc, o.inst);
}

// K1's first access outside the launch that K0 does not make in the same run: the same
// instruction (by text: edits move code), region and direction, within K0's byte range.
std::optional<OutOfBounds> unallowed(const std::vector<OutOfBounds>& k0, const std::vector<OutOfBounds>& k1) {
  for (const auto& b : k1) {
    bool allowed = false;
    for (const auto& a : k0)
      allowed |= a.inst == b.inst && a.region == b.region && a.write == b.write && a.lowest <= b.lowest && b.highest <= a.highest;
    if (!allowed) return b;
  }
  return std::nullopt;
}

// Values of a `vary:` range worth a launch: its ends and one below, at and above each multiple of
// the workgroup size, of the wave size (64) and of the common tile edge 16 (16 x 16 LDS tiles, the
// K step of 16x16x16 MFMA) inside it (at most kMaxBoundaryValues, the workgroup multiples first,
// the tile multiples last); then every remainder modulo 8 at the top (hi - 7 .. hi) and lo + 2, lo + 3: a
// kernel that handles 2, 4 or 8 elements per lane masks each one with its own compare, and a flip
// of one shows only at sizes with its remainder; a range of at most kMaxBoundaryValues values is
// run whole.
constexpr size_t kMaxBoundaryValues = 24;
constexpr int64_t kTileEdge = 16;
std::vector<int64_t> boundary_values(std::pair<int64_t, int64_t> range, uint32_t block) {
  const auto [lo, hi] = range;
  std::vector<int64_t> out;
  auto add = [&](int64_t v, size_t cap) {
    if (v >= lo && v <= hi && out.size() < cap && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (int64_t v : {lo, lo + 1, hi - 1, hi}) add(v, kMaxBoundaryValues);
  for (int64_t step : {static_cast<int64_t>(std::max<uint32_t>(block, 1)), int64_t{64}, kTileEdge})
    for (int64_t m = (lo / step) * step; m <= hi + 1 && m - lo < step * 64; m += step)
      for (int64_t d : {-1, 0, 1}) add(m + d, kMaxBoundaryValues);
  const size_t cap = out.size() + 10;
  if (hi - lo < static_cast<int64_t>(kMaxBoundaryValues))
    for (int64_t v = lo; v <= hi; ++v) add(v, kMaxBoundaryValues);
  for (int64_t d = 2; d <= 7; ++d) add(hi - d, cap);
  for (int64_t d : {2, 3}) add(lo + d, cap);
  std::sort(out.begin(), out.end());
  return out;
}

// The order in which the waves of each workgroup reach order-dependent atomics, per address: float
// adds (rounding makes a float sum depend on its order) and swaps/cmpswaps (the last writer wins; a
// cmpswap loop is how gfx90a builds a float atomicAdd). Integer add/min/max/and/or/xor give the same
// memory in any order. Comparing this order between two schedules tells whether K0's atomic results
// may follow the schedule, whatever the input values (equal sums by chance of rounding included).
class AtomicOrder : public emu::ExecObserver {
 public:
  void before_inst(const emu::ExecContext&, const emu::Wave&, const emu::ExecInst&) override {}
  void on_access(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in, uint64_t address, unsigned, bool write,
                 int) override {
    if (!write || !in.entry || !(in.entry->flags & emu::kGlobalAtomic) || !in.raw || !order_dependent(in.raw->mnemonic)) return;
    const auto who = std::make_tuple(ctx.wg_id[0], ctx.wg_id[1], ctx.wg_id[2], w.id_in_group);
    std::lock_guard<std::mutex> lock(mu_);  // workgroups with atomics run one at a time; the lock is for safety
    auto& seq = by_address_[address];
    if (seq.empty() || seq.back() != who) seq.push_back(who);  // one entry per wave visit, not per lane
    if (first_pc_ == 0) first_pc_ = in.raw->address, first_text_ = in.raw->text;
  }
  static bool order_dependent(const std::string& m) {
    for (const char* k : {"_f32", "_f64", "_f16", "_bf16", "swap"})
      if (m.find(k) != std::string::npos) return true;
    return false;
  }
  bool empty() const { return by_address_.empty(); }
  bool same_order(const AtomicOrder& o) const { return by_address_ == o.by_address_; }
  std::string where() const { return fmt::format("'{}' at 0x{:x}", first_text_, first_pc_); }

 private:
  std::mutex mu_;
  std::map<uint64_t, std::vector<std::tuple<uint32_t, uint32_t, uint32_t, unsigned>>> by_address_;  // workgroup, wave
  uint64_t first_pc_ = 0;
  std::string first_text_;
};

// Where a run's inputs came from, for the evidence of a verdict.
Evidence inputs_of(const emu::LaunchSpec& run) {
  bool files = false, any = false;
  for (const auto& a : run.args)
    if (a.kind == emu::ArgSpec::Buffer && a.direction != emu::ArgSpec::Output)
      any = true, files |= a.init.kind == emu::InitSpec::File;
  if (any && files) return {"saved input", run.label, ""};
  return {run.special_variant >= 0 ? "special input" : "random input", run.label, ""};
}

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
    : backend_(backend), k0_(k0), aimed_(options.aimed_inputs), aim_with_(options.aim_with) {
  if (specs.empty()) throw Error("no launch spec given", k0.elf().name(), "pass --launch SPEC.yaml");
  kernel_ = specs.front().kernel;
  for (const auto& s : specs)
    if (s.kernel != kernel_)
      throw Error("launch specs name different kernels: " + kernel_ + " and " + s.kernel, s.path, "verify one kernel at a time");
  auto t0 = Clock::now();
  loaded_ = backend_.load(k0, kernel_);
  if (aim_with_ && aimed_) aim_loaded_ = aim_with_->load(k0, kernel_);
  for (const auto& s : specs) add_spec(s);
  // Are K0's results independent of the wave schedule and of the firmware's kernarg preloading?
  // (They are for race-free kernels without float atomics inside a workgroup.) Checked on the
  // first run.
  std::vector<RunVariant> probes{{emu::WaveSchedule::Reverse, true, 0, false}, {emu::WaveSchedule::Interleaved, true, 0, false},
                                 {emu::WaveSchedule::InOrder, false, 0, false}, {emu::WaveSchedule::InOrder, true, kLdsFill, false},
                                 {emu::WaveSchedule::InOrder, true, kLdsFillLarge, false},
                                 {emu::WaveSchedule::InOrder, true, 0, true},
                                 {emu::WaveSchedule::InOrder, true, 0, false, kRegisterFill},
                                 {emu::WaveSchedule::InOrder, true, 0, false, kRegisterFillNegative}};
  // The schedule probes also record the order of K0's order-dependent atomics (AtomicOrder): where
  // another schedule reorders them, K0's result follows the schedule even when this run's values
  // happen to round alike (cross_entropy_rows_f32's atomicAdd total agreed bit for bit with one seed).
  // Only an emulator takes an observer (one that can run workgroup samples; a GPU backend cannot).
  const bool observe = backend_.runs_workgroup_samples();
  AtomicOrder in_order_atomics;
  std::vector<std::pair<emu::WaveSchedule, std::unique_ptr<AtomicOrder>>> probe_atomics;
  const uint64_t probe_limit = outcomes_[0].max_wave_instructions * 4 + 100000;
  for (const RunVariant& v : probes) {
    // A schedule under which K0 spins (waves waiting on each other without a barrier) must not
    // hang the reference: the same step limit as for candidates.
    const bool schedule_probe = observe && v.schedule != emu::WaveSchedule::InOrder;
    if (schedule_probe) probe_atomics.emplace_back(v.schedule, std::make_unique<AtomicOrder>());
    RunOutcome other = backend_.run(*loaded_, runs_[0], probe_limit, v, schedule_probe ? probe_atomics.back().second.get() : nullptr);
    executed_.insert(other.executed.begin(), other.executed.end());
    bool same = other.status == RunOutcome::Completed;
    for (size_t b = 0; same && b < other.buffers.size(); ++b) same = other.buffers[b].after == outcomes_[0].buffers[b].after;
    if (same) continue;
    if (v.register_fill) {
      register_sensitive_ = true;
      notes_.push_back("the original kernel's results depend on registers the kernel descriptor leaves undefined: candidates run with them zeroed only");
    } else if (v.straddle_4g) {
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
  if (!schedule_sensitive_ && std::any_of(probe_atomics.begin(), probe_atomics.end(), [](const auto& a) { return !a.second->empty(); })) {
    backend_.run(*loaded_, runs_[0], probe_limit, {}, &in_order_atomics);
    for (const auto& [schedule, order] : probe_atomics)
      if (!schedule_sensitive_ && !order->same_order(in_order_atomics)) {
        schedule_sensitive_ = true;
        notes_.push_back("the order in which the original kernel's waves reach its order-dependent atomic " + order->where() +
                         " follows the wave schedule (" + emu::schedule_name(schedule) +
                         " waves reorder it), so its results may: candidates run in order only");
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
  // Safe defaults: a spec that says nothing about its inputs gets several random sets and the
  // special sets, not one run (a concrete run, label set, is run as it is).
  bool random_inputs = false;  // some input buffer is generated (not read from a file or all zeros)
  for (const auto& a : spec.args)
    random_inputs |= a.kind == emu::ArgSpec::Buffer && a.direction != emu::ArgSpec::Output && a.init.kind != emu::InitSpec::File &&
                     a.init.kind != emu::InitSpec::Zeros && a.init.kind != emu::InitSpec::Bytes;
  emu::LaunchSpec defaulted = spec;
  if (!spec.inputs_given && spec.label.empty() && random_inputs) {
    defaulted.inputs = kDefaultRandomSets, defaulted.special = true;
    notes_.push_back(fmt::format("{}: the spec says nothing about inputs: {} random sets and 2 special sets are run", spec.path,
                                 kDefaultRandomSets));
  }
  std::vector<emu::LaunchSpec> runs = emu::expand_runs(defaulted);
  // A set of inputs that are all zero lets most wrong kernels pass: refuse a spec that has only those.
  bool any_input = false, any_nonzero = false;
  const size_t first = runs_.size();
  for (const auto& r : runs) add_run(r, inputs_of(r));
  // Boundary launches for value arguments with `vary: [lo, hi]`: the first input set with the value
  // at lo, lo + 1, hi - 1, hi and one below, at and above each multiple of the workgroup size, the
  // wave size and the tile edge in the range (a bounds compare off by one shows at exactly one of them).
  if (spec.label.empty() && !runs.empty())
    for (size_t a = 0; a < spec.args.size(); ++a) {
      if (!spec.args[a].vary) continue;
      for (int64_t v : boundary_values(*spec.args[a].vary, spec.block[0])) {
        emu::LaunchSpec b = runs.front();
        if (std::to_string(v) == b.args[a].value) continue;
        b.args[a].value = std::to_string(v);
        const std::string name = spec.args[a].name.empty() ? "arg" + std::to_string(a) : spec.args[a].name;
        b.label += fmt::format(", {} = {}", name, v);
        try {
          add_run(b, {"boundary launch", b.label, fmt::format("{} = {} (vary: [{}, {}])", name, v, spec.args[a].vary->first, spec.args[a].vary->second)});
        } catch (const Error& e) {  // the range claims more than the kernel does: say so, keep the rest
          notes_.push_back(fmt::format("boundary launch {} dropped: {}", b.label, e.what_text()));
        }
      }
      // At the largest whole number of tiles (a nonzero multiple of kTileEdge) in the range, the
      // first input set's launch runs once more with signed tiny inputs, one sign per buffer
      // (magnitude_sets.h): an off-by-one tile-loop exit adds a zero-filled tile there, which changes
      // only a -0 sum; a dot product of buffers of opposite signs is -0 whatever the summation order
      // (mixed signs make one only where its last products share a sign: kb_matmul_tb_f32 adds 12
      // rounded products per tile, 1 in 2^12).
      const auto [lo, hi] = *spec.args[a].vary;
      const int64_t whole = hi / kTileEdge * kTileEdge;
      if (!aimed_ || !random_inputs || whole <= 0 || whole < lo) continue;
      emu::LaunchSpec b = runs.front();
      b.args[a].value = std::to_string(whole);
      const std::string name = spec.args[a].name.empty() ? "arg" + std::to_string(a) : spec.args[a].name;
      auto tiny = signed_tiny_set(b, outcomes_[first].input_bytes(b.args.size()), TinySigns::ByBuffer, 1);
      if (!tiny) continue;
      tiny->run.label = b.label + fmt::format(", {} = {}, signed tiny set", name, whole);
      try {
        add_run(tiny->run, {"boundary launch", tiny->run.label,
                            fmt::format("{} = {} (vary: [{}, {}]), {}", name, whole, lo, hi, tiny->description)});
      } catch (const Error& e) {
        notes_.push_back(fmt::format("boundary launch {} dropped: {}", tiny->run.label, e.what_text()));
      }
    }
  // Inputs aimed at K0's decisions, made from the first input set of each launch shape.
  bool divides = false;  // some launch shape ran a float reciprocal estimate in K0 (aimed.h): the perf launches get tie-count sets
  if (aimed_ && spec.label.empty() && random_inputs) {
    std::set<std::string> shapes;
    const size_t made = first + runs.size();  // the spec's own runs, not the boundary launches
    for (size_t i = first; i < made; ++i) {
      const size_t shape_end = runs_[i].label.rfind(", ");
      const std::string shape = shape_end == std::string::npos ? std::string() : runs_[i].label.substr(0, shape_end);
      if (!shapes.insert(shape).second) continue;
      AimedInputs aimed = aim_loaded_ ? aim_inputs(*aim_with_, *aim_loaded_, runs_[i]) : aim_inputs(backend_, *loaded_, runs_[i]);
      for (auto& n : aimed.notes) notes_.push_back(std::move(n));
      for (const auto& t : aimed.thresholds) ++aimed_decisions_[t.pc];
      launch_determined_.insert(aimed.launch_determined.begin(), aimed.launch_determined.end());
      for (auto& a : aimed.sets) try {
          add_run(a.run, {"aimed input", a.run.label, a.describe()});
        } catch (const Error& e) {  // elements at a threshold the original cannot take (an index out of range): drop that set
          notes_.push_back(fmt::format("aimed set {} dropped: {}", a.run.label, e.what_text()));
        }
      for (auto& m : aimed.magnitude) try {
          add_run(m.run, {"magnitude input", m.run.label, m.description});
        } catch (const Error& e) {
          notes_.push_back(fmt::format("magnitude set {} dropped: {}", m.run.label, e.what_text()));
        }
      for (auto& l : aimed.literal) try {
          add_run(l.run, {"literal input", l.run.label, l.description});
        } catch (const Error& e) {
          notes_.push_back(fmt::format("literal set {} dropped: {}", l.run.label, e.what_text()));
        }
      divides |= aimed.float_division;
      for (auto& t : aimed.tie_counts) try {
          add_run(t.run, {"aimed input", t.run.label, t.description});
        } catch (const Error& e) {
          notes_.push_back(fmt::format("tie-count set {} dropped: {}", t.run.label, e.what_text()));
        }
    }
  }
  // Each perf launch at full size, on a sample of its workgroups (the same sample for K0 and K1);
  // a backend that cannot sample (a GPU) runs all of them.
  std::vector<std::pair<size_t, size_t>> perf_indices;  // (run, sampled_runs_ entry) of each perf launch
  if (!spec.perf.empty())
    for (emu::LaunchSpec r : emu::perf_runs(spec)) {
      if (backend_.runs_workgroup_samples()) r.workgroup_sample = emu::sample_workgroups(r.grid);
      SampledRun sr;
      sr.label = r.label;
      sr.launch = emu::perf_description(r);
      sr.shape = emu::shape_text(r);
      sr.workgroups_total = static_cast<uint64_t>(r.grid[0]) * r.grid[1] * r.grid[2];
      for (uint64_t g : r.workgroup_sample) sr.workgroups.push_back(emu::workgroup_text(r.grid, g));
      for (const auto& a : r.args)
        if (a.kind == emu::ArgSpec::Buffer) sr.buffer_bytes += a.count * emu::dtype_size(a.dtype);
      const bool sampled = !r.workgroup_sample.empty();
      r.label = sampled ? fmt::format("{} ({} of {} workgroups)", r.label, r.workgroup_sample.size(), sr.workgroups_total)
                        : fmt::format("{} (all {} workgroups)", r.label, sr.workgroups_total);
      add_run(r, {"perf launch", r.label, sr.launch + (sampled ? ", sampled workgroups" : ", every workgroup")});
      sampled_runs_.push_back(std::move(sr));
      check_perf_conditions(runs_.size() - 1);
      perf_indices.emplace_back(runs_.size() - 1, sampled_runs_.size() - 1);
    }
  // The tie-count set (exact_sums.h) at perf size: only full-size shares hold the large counts whose
  // reciprocals a wrong estimate gets wrong most often (the small launches' rows stop at a few hundred).
  // Made after every perf launch, so that each keeps the placement and register fill it had.
  if (aimed_ && divides && random_inputs)
    for (const auto& [p, sampled] : perf_indices) {
      auto ties = tie_count_set(runs_[p], outcomes_[p].input_bytes(runs_[p].args.size()));
      if (!ties) continue;
      ties->run.label = runs_[p].label + ", tie-count set";
      SampledRun sr = sampled_runs_[sampled];
      sr.label = ties->run.label;
      try {
        add_run(ties->run, {"aimed input", ties->run.label, sr.launch + (runs_[p].workgroup_sample.empty() ? ", every workgroup, " : ", sampled workgroups, ") + ties->description});
      } catch (const Error& e) {
        notes_.push_back(fmt::format("tie-count set {} dropped: {}", ties->run.label, e.what_text()));
        continue;
      }
      sampled_runs_.push_back(std::move(sr));
      check_perf_conditions(runs_.size() - 1);
    }
  for (size_t i = first; i < outcomes_.size(); ++i)
    for (const auto& b : outcomes_[i].buffers)
      if (b.direction != emu::ArgSpec::Output) any_input = true, any_nonzero |= !all_zero(b.before);
  if (any_input && !any_nonzero)
    throw Error("every input buffer is all zeros in every input set: a wrong kernel would easily pass", spec.path,
                "give the inputs an init ({normal: [0, 1]}, {ints: [lo, hi]}, ...) or add special: true");
}

void Reference::add_run(const emu::LaunchSpec& run, Evidence inputs) {
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
  std::set<std::string> noted;
  for (const auto& o : out.out_of_bounds)
    if (noted.insert(o.inst + "\n" + o.region).second)
      notes_.push_back(fmt::format("{}: the original kernel {}: candidates may do the same at that instruction", run.label, describe(o)));
  executed_.insert(out.executed.begin(), out.executed.end());
  out.executed.clear();  // kept once, in executed_
  run_inputs_.push_back(std::move(inputs));
  runs_.push_back(run);
  outcomes_.push_back(std::move(out));
}

// A perf launch is where the sizes users run are exercised (offsets past 2^32 bytes of a base, a
// second grid dimension, the long loops): its candidate run always places the buffers across 4 GiB
// boundaries (a dropped carry in 64-bit address arithmetic shows only where an accessed range
// crosses one, and the small runs' buffers of at most 256 bytes never do: placement is 256-byte
// aligned) and fills the registers the kernel descriptor leaves undefined (a path only large sizes
// take may read one). The run index would give each to one run in four only, so adding input sets
// moved the perf run off them (embedding_kernel's swapped address add at 0x1810 survived so).
// K0 is checked once under both on this run; whichever changes its results is left off, with a note.
void Reference::check_perf_conditions(size_t i) {
  const uint32_t fill = perf_conditions_.size() % 2 == 0 ? kRegisterFill : kRegisterFillNegative;
  const uint64_t limit = outcomes_[i].max_wave_instructions * 4 + 100000;
  auto same_results = [&](bool straddle, uint32_t register_fill) {
    RunVariant v;
    v.straddle_4g = straddle, v.register_fill = register_fill;
    RunOutcome o = backend_.run(*loaded_, runs_[i], limit, v);
    if (o.status != RunOutcome::Completed) return false;
    for (size_t b = 0; b < o.buffers.size(); ++b)
      if (o.buffers[b].after != outcomes_[i].buffers[b].after) return false;
    return true;
  };
  PerfConditions c{true, fill};
  if (!same_results(true, fill)) {
    c.straddle_4g = same_results(true, 0);
    c.register_fill = !c.straddle_4g && same_results(false, fill) ? fill : 0;
    if (!c.straddle_4g)
      notes_.push_back(runs_[i].label + ": the original kernel's results change when its buffers straddle 4 GiB boundaries: "
                                        "candidates run this perf launch with packed buffers");
    if (!c.register_fill)
      notes_.push_back(runs_[i].label + ": the original kernel's results depend on registers the kernel descriptor leaves "
                                        "undefined: candidates run this perf launch with them zeroed");
  }
  perf_conditions_[i] = c;
}

RunVariant Reference::candidate_conditions(size_t i, const VerifyOptions& options) const {
  RunVariant variant;
  if (!options.vary_run_conditions) return variant;
  static constexpr emu::WaveSchedule kSchedules[] = {emu::WaveSchedule::InOrder, emu::WaveSchedule::Reverse,
                                                     emu::WaveSchedule::Interleaved};
  if (!schedule_sensitive_) variant.schedule = kSchedules[i % 3];
  if (!preload_sensitive_) variant.preload_firmware = i % 2 == 0;
  // Every run but the first (the plain run, as for the other conditions) fills LDS (K0 was checked
  // not to read what it did not write): two fills in turn by pairs of runs, so a few consecutive
  // boundary launches (n = 1..4) meet both.
  if (!lds_sensitive_ && i > 0) variant.lds_fill = (i / 2) % 2 == 1 ? kLdsFill : kLdsFillLarge;
  if (auto perf = perf_conditions_.find(i); perf != perf_conditions_.end()) {
    variant.straddle_4g = !address_sensitive_ && perf->second.straddle_4g;
    variant.register_fill = register_sensitive_ ? 0 : perf->second.register_fill;
    return variant;
  }
  if (!address_sensitive_ && i % 4 == 1) variant.straddle_4g = true;
  if (!register_sensitive_ && i % 4 == 3) variant.register_fill = (i / 4) % 2 == 0 ? kRegisterFill : kRegisterFillNegative;
  return variant;
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
  r.sampled_runs = ref.sampled_runs();
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
  if (!r.abi_breaks.empty()) {
    r.evidence = {"abi", "", r.abi_breaks[0].field};
    return finish(Verdict::Unsafe, fmt::format("the candidate breaks the ABI ({}: {} -> {})", r.abi_breaks[0].field,
                                               r.abi_breaks[0].a, r.abi_breaks[0].b));
  }

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
      r.evidence = {"static", "", v.rule};
      return finish(Verdict::Unsafe, fmt::format("{} static finding(s); first: {} at 0x{:x}: {}", r.violations.size(), v.rule, v.pc, v.message));
    }
  }

  if (options.after_static) {
    std::string why = options.after_static();
    if (!why.empty()) return finish(Verdict::Different, why);
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
    RunVariant variant = ref.candidate_conditions(i, options);
    const std::string how = variant.describe();
    const std::string label = how.empty() ? run.label : run.label + " (" + how + ")";
    // Every run checks for LDS races (a deleted s_barrier shows even where no schedule makes its
    // result differ). A race the original has as well in this run is not held against the candidate:
    // that run is made again without the check.
    variant.lds_races = options.lds_race_check;
    RunOutcome k1_out;
    bool lds_race = false;  // K1 stopped at an LDS race that K0 does not have in this run
    emu::LaunchSpec k1_run;
    if (options.candidate_sample && !run.workgroup_sample.empty()) {
      k1_run = run;
      k1_run.workgroup_sample = options.candidate_sample(run);
    }
    const emu::LaunchSpec& k1_launch = k1_run.workgroup_sample.empty() ? run : k1_run;
    try {
      k1_out = ref.backend().run(*loaded, k1_launch, limit, variant);
      if (variant.lds_races && k1_out.status == RunOutcome::Faulted) {
        RunVariant unchecked = variant;
        unchecked.lds_races = false;
        RunOutcome plain = ref.backend().run(*loaded, k1_launch, limit, unchecked);
        lds_race = plain.status == RunOutcome::Completed &&
                   ref.backend().run(ref.loaded(), run, limit, variant).status == RunOutcome::Completed;
        if (!lds_race) k1_out = std::move(plain);  // a fault of its own, or a race K0 has too
      }
    } catch (const Error& e) {
      return finish(Verdict::Error, label + ": the candidate cannot run: " + e.format());
    }
    ++r.runs_done;
    ++r.runs_by_kind[ref.run_inputs()[i].kind];
    const Evidence& inputs = ref.run_inputs()[i];
    if (k1_out.status != RunOutcome::Completed) {
      r.fault = k1_out.message;
      r.fault_run = label;
      r.evidence = {lds_race ? "lds race" : "fault", label, inputs.kind + (inputs.detail.empty() ? "" : ": " + inputs.detail)};
      if (lds_race)
        return finish(Verdict::Fault, label + ": the candidate races on LDS (two waves touch one byte, one writing, with no s_barrier "
                                              "between them; the original does not in this run)");
      return finish(Verdict::Fault, label + ": " +
                                        (k1_out.status == RunOutcome::Faulted
                                             ? std::string("the candidate faults")
                                             : fmt::format("the candidate runs past the step limit ({} instructions per wave; the original's longest wave ran {})",
                                                           limit, k0.max_wave_instructions)));
    }
    if (auto bad = unallowed(k0.out_of_bounds, k1_out.out_of_bounds)) {
      r.out_of_bounds = *bad;
      r.fault = "the candidate " + describe(*bad) + " (the original does not)";
      r.fault_run = label;
      r.evidence = {"out-of-bounds", label, inputs.kind + (inputs.detail.empty() ? "" : ": " + inputs.detail)};
      return finish(Verdict::Fault, label + ": the candidate " + (bad->write ? "writes" : "reads") + " outside what the launch allows: " +
                                        describe(*bad));
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
      // Element by element only inside blocks whose bytes differ: identical bytes are equal elements
      // under every rule (elements_match), and a perf launch's buffers are hundreds of MiB.
      constexpr size_t kBlock = 4096;
      const size_t whole = kBlock % esz ? 0 : std::min(expect.size(), y.after.size()) / kBlock * kBlock;
      for (size_t e = 0; e + esz <= expect.size(); e += esz) {
        if (e % kBlock == 0 && e + kBlock <= whole && std::memcmp(expect.data() + e, y.after.data() + e, kBlock) == 0) {
          e += kBlock - esz;
          continue;
        }
        bool same = x.direction == emu::ArgSpec::Input ? std::equal(expect.begin() + e, expect.begin() + e + esz, y.after.begin() + e)
                                                        : elements_match(x.dtype, x.compare, expect.data() + e, y.after.data() + e);
        if (!same)
          add(x.label, x.direction == emu::ArgSpec::Input ? "input modified" : "output", static_cast<int64_t>(e / esz),
              format_element(x.dtype, expect.data() + e), format_element(x.dtype, y.after.data() + e));
      }
    }
    if (r.mismatch_count > before) {
      if (r.differing_runs.empty()) r.evidence = {inputs.kind, label, inputs.detail};
      r.differing_runs.push_back(i);
      if (!run.workgroup_sample.empty() && !options.counterexample_dir.empty())
        r.notes.push_back(label + ": no counterexample saved (a perf launch's full-size buffers; its spec and the sample reproduce it)");
      else if (!options.counterexample_dir.empty()) {
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
  if (options.difference_search_steps && !ref.runs().empty()) {
    DifferenceSearchOptions so;
    so.steps = options.difference_search_steps;
    const uint64_t limit = ref.outcomes().front().max_wave_instructions * options.step_limit_factor + options.step_limit_slack;
    DifferenceSearch ds = search_difference(ref.backend(), ref.loaded(), *loaded, ref.runs().front(), limit, so);
    std::string edges;
    if (ds.upper_edge) edges += fmt::format(", K0's overflow edge at shift 2^{}", *ds.upper_edge);
    if (ds.lower_edge) edges += fmt::format(", K0's denormal edge at shift 2^{}", *ds.lower_edge);
    r.notes.push_back(ds.note.empty() ? fmt::format("difference search: {} candidate run(s) beside {} observed run(s) of the original on the "
                                                    "first and last workgroup{}{}", ds.k1_runs, ds.k0_runs, edges, ds.run ? ": outputs differ" : ", outputs agree")
                                      : "difference search: not run: " + ds.note);
    if (ds.run) {
      VerifyOptions whole = options;
      whole.aimed_inputs = false;
      whole.difference_search_steps = 0;
      whole.after_static = {};
      try {
        Reference cref(ref.backend(), ref.k0(), {*ds.run}, whole);
        VerifyReport cr = verify_candidate(cref, k1, whole);
        if (cr.verdict == Verdict::Different || cr.verdict == Verdict::Fault || cr.verdict == Verdict::Unsafe) {
          cr.evidence.kind = "searched input";
          cr.evidence.detail = ds.description;
          cr.runs_done += r.runs_done;
          cr.runs_total += r.runs_total;
          cr.notes.insert(cr.notes.begin(), r.notes.begin(), r.notes.end());
          cr.sampled_runs = r.sampled_runs;
          cr.seconds = since(t0);
          return cr;
        }
        r.notes.push_back("difference search: the whole launch with that input agrees (" + cr.summary + ")");
      } catch (const Error& e) {  // the original refuses the input as a whole launch: no evidence
        r.notes.push_back("difference search: the original refuses the searched input as a whole launch: " + e.what_text());
      }
    }
  }
  std::string kinds;
  for (const auto& [kind, n] : r.runs_by_kind) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, kind);
  r.evidence = {"all runs", "", kinds};
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
  if (out_of_bounds) {
    const auto& o = *out_of_bounds;
    j["out_of_bounds"] = {{"region", o.region}, {"write", o.write}, {"lowest", o.lowest}, {"highest", o.highest},
                          {"count", o.count}, {"pc", o.pc}, {"instruction", o.inst}, {"lane", o.lane}, {"address", o.address},
                          {"workgroup", o.workgroup}, {"wave", o.wave}};
  }
  j["evidence"] = {{"kind", evidence.kind}, {"run_label", evidence.run_label}, {"detail", evidence.detail}};
  j["runs_by_kind"] = runs_by_kind;
  j["counterexamples"] = counterexamples;
  j["notes"] = notes;
  j["sampled_runs"] = nlohmann::json::array();
  for (const auto& s : sampled_runs)
    j["sampled_runs"].push_back({{"label", s.label}, {"launch", s.launch}, {"shape", s.shape}, {"workgroups_total", s.workgroups_total},
                                 {"workgroups", s.workgroups}, {"buffer_bytes", s.buffer_bytes}});
  return j;
}

std::string VerifyReport::to_text() const {
  if (kernel.empty()) return fmt::format("verdict: {}: {}\n", verdict_name(verdict), summary);  // nothing was run
  std::string t = fmt::format("verify {} ({}): K0 {} vs K1 {} — {} runs, {} done ({})\n", kernel, target, k0_name, k1_name,
                              runs_total, runs_done, figure_kind);
  t += fmt::format("verdict: {}: {}\n", verdict_name(verdict), summary);
  if (!evidence.kind.empty())
    t += fmt::format("evidence: {}{}{}\n", evidence.kind, evidence.run_label.empty() ? "" : " (" + evidence.run_label + ")",
                     evidence.detail.empty() ? "" : ": " + evidence.detail);
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
  for (const auto& s : sampled_runs) {
    std::string wgs;
    for (const auto& w : s.workgroups) wgs += (wgs.empty() ? "" : " ") + w;
    if (s.workgroups.empty())  // a backend that runs whole grids
      t += fmt::format("  perf launch: {} = {}, {}, {:.1f} MiB of buffers; all {} workgroups run\n", s.label, s.launch, s.shape,
                       s.buffer_bytes / 1048576.0, s.workgroups_total);
    else
      t += fmt::format("  sampled: {} = {}, {}, {:.1f} MiB of buffers at full size; {} of {} workgroups run: {}\n", s.label, s.launch,
                       s.shape, s.buffer_bytes / 1048576.0, s.workgroups.size(), s.workgroups_total, wgs);
  }
  for (const auto& n : notes) t += "  note: " + n + "\n";
  return t;
}

}  // namespace asmevo::verify
