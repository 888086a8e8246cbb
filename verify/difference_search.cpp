#include "verify/difference_search.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "emu/context.h"
#include "emu/wave.h"
#include "verify/aimed.h"
#include "verify/element_value.h"
#include "verify/input_set.h"
#include "verify/magnitude_sets.h"

namespace asmevo::verify {
namespace {

// What K0's sampled workgroups read, and how many f32 operands of vector instructions they saw
// non-finite or denormal (the range edges of the search).
class ReadObserver final : public emu::ExecObserver {
 public:
  ReadObserver(const emu::LaunchSpec& spec, const std::vector<uint64_t>& sampled, bool record_reads)
      : spec_(spec), sampled_(sampled), record_reads_(record_reads) {}

  void before_inst(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in) override {
    if (!sampled(ctx) || !in.raw || !in.raw->mnemonic.starts_with("v_")) return;
    uint64_t nonfinite = 0, denormal = 0;
    const uint64_t exec = w.exec();
    for (unsigned i = 0; i < in.nsrc; ++i) {
      const emu::Operand& o = in.src[i];
      if (o.kind != emu::Operand::VGPR || o.ty != emu::Ty::F32) continue;
      for (unsigned l = 0; l < emu::kWaveSize; ++l) {
        if (!(exec >> l & 1)) continue;
        const uint32_t b = w.v[o.index][l];
        const uint32_t e = b & 0x7f800000u;
        nonfinite += e == 0x7f800000u;
        denormal += e == 0 && (b & 0x007fffffu) != 0;
      }
    }
    if (nonfinite) nonfinite_ += nonfinite;
    if (denormal) denormal_ += denormal;
  }

  void on_access(const emu::ExecContext& ctx, const emu::Wave&, const emu::ExecInst&, uint64_t address, unsigned size, bool write,
                 int) override {
    if (write || !record_reads_ || !sampled(ctx)) return;
    const auto at = element_at(*ctx.mem, spec_, address);
    if (!at) return;
    const unsigned esize = element_bytes(spec_.args[at->arg].dtype);
    std::lock_guard lock(mu_);
    for (uint64_t e = at->element; e * esize < at->element * esize + std::max(size, esize) && e < spec_.args[at->arg].count; ++e)
      reads[at->arg].insert(e);
  }

  uint64_t nonfinite() const { return nonfinite_; }
  uint64_t denormal() const { return denormal_; }
  std::map<size_t, std::set<uint64_t>> reads;  // argument -> elements read by the sampled workgroups

 private:
  bool sampled(const emu::ExecContext& ctx) const {
    const uint64_t g = ctx.wg_id[0] + static_cast<uint64_t>(spec_.grid[0]) * (ctx.wg_id[1] + static_cast<uint64_t>(spec_.grid[1]) * ctx.wg_id[2]);
    return std::find(sampled_.begin(), sampled_.end(), g) != sampled_.end();
  }
  const emu::LaunchSpec& spec_;
  const std::vector<uint64_t>& sampled_;
  bool record_reads_;
  std::mutex mu_;
  std::atomic<uint64_t> nonfinite_{0}, denormal_{0};
};

// One float input buffer the search may move: its base bytes and the elements the sampled
// workgroups read.
struct Movable {
  size_t arg;
  std::string dtype;
  FloatRange range;
  std::vector<uint64_t> elements;
  int largest_exponent;  // of the elements read (ilogb)
};

}  // namespace

DifferenceSearch search_difference(Backend& backend, const LoadedKernel& k0, const LoadedKernel& k1, const emu::LaunchSpec& base,
                                   uint64_t k1_step_limit, const DifferenceSearchOptions& options) {
  DifferenceSearch out;
  if (!backend.runs_workgroup_samples()) return out.note = "the backend runs whole grids only", out;
  const uint64_t groups = workgroup_count(base);
  if (!groups) return out.note = "an empty grid", out;
  std::vector<uint64_t> sampled{0};
  if (groups > 1) sampled.push_back(groups - 1);
  emu::LaunchSpec plain = base;
  plain.workgroup_sample = sampled;
  ReadObserver first(plain, sampled, /*record_reads=*/true);
  RunOutcome o = backend.run(k0, plain, 1ull << 32, {}, &first);
  ++out.k0_runs;
  if (o.status != RunOutcome::Completed) return out.note = "the original does not complete the base run", out;
  std::vector<std::vector<uint8_t>> inputs(base.args.size());
  for (const auto& b : o.buffers)
    if (b.direction != emu::ArgSpec::Output) inputs[b.arg_index] = b.before;
  std::vector<Movable> movable;
  for (auto& [arg, elems] : first.reads) {
    const emu::ArgSpec& a = base.args[arg];
    const auto range = float_range(a.dtype);
    if (!range || !a.special || a.direction == emu::ArgSpec::Output || inputs[arg].empty()) continue;
    Movable m{arg, a.dtype, *range, {elems.begin(), elems.end()}, std::numeric_limits<int>::min()};
    for (uint64_t e : m.elements) {
      const double x = element_number(a.dtype, element_bits(inputs[arg], a.dtype, e));
      if (std::isfinite(x) && x != 0) m.largest_exponent = std::max(m.largest_exponent, std::ilogb(x));
    }
    if (m.largest_exponent != std::numeric_limits<int>::min()) movable.push_back(std::move(m));
  }
  if (movable.empty()) return out.note = "the sampled workgroups read no nonzero float input element", out;

  // A run with every movable buffer's read elements shifted by 2^k (each buffer's largest element
  // kept inside its dtype's range).
  auto shifted = [&](int k) {
    std::vector<std::vector<uint8_t>> bytes(base.args.size());
    for (const Movable& m : movable) {
      bytes[m.arg] = inputs[m.arg];
      const int shift = std::clamp(k, m.range.emin - m.range.mantissa - m.largest_exponent, m.range.emax - m.largest_exponent);
      scale_elements(bytes[m.arg], m.dtype, shift, &m.elements);
    }
    return bytes;
  };
  auto with = [&](std::vector<std::vector<uint8_t>> bytes, const std::string& what) {
    emu::LaunchSpec r = base;
    r.special_variant = -1;
    for (size_t a = 0; a < bytes.size(); ++a)
      if (!bytes[a].empty()) set_input_bytes(r.args[a], std::move(bytes[a]));
    r.label = derived_label(base.label, "difference search: " + what);
    return r;
  };
  // K0's counts of non-finite and denormal f32 operands at shift k.
  auto k0_counts = [&](int k) -> std::optional<std::pair<uint64_t, uint64_t>> {
    emu::LaunchSpec r = with(shifted(k), "edge probe");
    r.workgroup_sample = sampled;
    ReadObserver obs(r, sampled, false);
    ++out.k0_runs;
    if (backend.run(k0, r, 1ull << 32, {}, &obs).status != RunOutcome::Completed) return std::nullopt;
    return std::pair{obs.nonfinite(), obs.denormal()};
  };
  const uint64_t base_nonfinite = first.nonfinite(), base_denormal = first.denormal();
  // Bisection for the edges, in both directions (a product overflows as values grow, an exp(x - max)
  // goes denormal as they grow too): the last shift with no more non-finite operands than the base
  // run, and the last with no more denormal ones.
  int top = std::numeric_limits<int>::max(), bottom = std::numeric_limits<int>::min();
  for (const Movable& m : movable) {
    top = std::min(top, m.range.emax - m.largest_exponent);
    bottom = std::max(bottom, m.range.emin - m.range.mantissa - m.largest_exponent);
  }
  auto bisect = [](int inside, int outside, const std::function<bool(int)>& still_inside) {
    while (std::abs(outside - inside) > 1) {
      const int mid = inside + (outside - inside) / 2;
      (still_inside(mid) ? inside : outside) = mid;
    }
    return inside;
  };
  struct Edge {
    int shift;
    const char* what;
  };
  std::vector<Edge> edges;
  auto no_more_nonfinite = [&](int k) { auto c = k0_counts(k); return c && c->first <= base_nonfinite; };
  auto no_more_denormal = [&](int k) { auto c = k0_counts(k); return c && c->second <= base_denormal; };
  for (int end : {top, bottom}) {
    if (end == 0) continue;
    for (int kind = 0; kind < 2; ++kind) {
      const std::function<bool(int)> inside = kind == 0 ? std::function<bool(int)>(no_more_nonfinite) : std::function<bool(int)>(no_more_denormal);
      if (inside(end)) continue;  // no edge this way
      const int e = bisect(0, end, inside);
      edges.push_back({e, kind == 0 ? "overflow edge" : "denormal edge"});
      if (kind == 0 && end > 0) out.upper_edge = e;
      if (kind == 1 && end < 0) out.lower_edge = e;
    }
  }

  // The candidate's runs: the edge shifts first (at each edge and inside it), then random moves.
  std::mt19937_64 rng(options.seed ^ 0x9E3779B97F4A7C15ull);
  std::vector<std::pair<std::vector<std::vector<uint8_t>>, std::string>> plan;
  for (int d : {0, 1, 2, 4})
    for (const Edge& e : edges) {
      const int k = e.shift > 0 ? e.shift - d : e.shift + d;
      if (k == 0 || (e.shift > 0) != (k > 0)) continue;  // k = 0: the base run itself
      plan.push_back({shifted(k), fmt::format("shift 2^{} (K0's {} at 2^{}, {} inside)", k, e.what, e.shift, d)});
    }
  const int lowest = std::min({0, bottom}), highest = std::max({0, top});
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  while (plan.size() < options.steps) {
    std::vector<std::vector<uint8_t>> bytes(base.args.size());
    std::string what;
    const Movable& m = movable[pick(movable.size())];
    // Moves in turn: one element at a random magnitude; every element of one buffer redrawn; and
    // (two of four) a random shift between K0's edges, then a nudge (a wrong estimate often shows
    // only for small or large values: a quotient n / d with n far below 1 / d).
    const size_t kind = plan.size() % 4;
    if (kind >= 2) {
      int lo = 0, hi = 0;  // between the outermost edges (the dtype's ends where there is none)
      for (const Edge& e : edges) lo = std::min(lo, e.shift), hi = std::max(hi, e.shift);
      if (edges.empty()) lo = lowest, hi = highest;
      // Half of them within 8 of an end: where a quotient n / d meets n far below 1 / d, or the
      // candidate's values leave the range before the original's.
      int k = std::uniform_int_distribution<int>(lo, hi)(rng);
      if (rng() & 1) k = rng() & 1 ? std::min(hi, lo + static_cast<int>(pick(9))) : std::max(lo, hi - static_cast<int>(pick(9)));
      bytes = shifted(k);
      what = fmt::format("shift 2^{}, ", k);
    }
    if (bytes[m.arg].empty()) bytes[m.arg] = inputs[m.arg];
    const std::string name = base.args[m.arg].name.empty() ? "arg" + std::to_string(m.arg) : base.args[m.arg].name;
    if (kind == 1) {  // every element the workgroups read redrawn: random sign, exponent within 12 of the largest
      for (uint64_t e : m.elements) {
        const int exponent = m.largest_exponent + std::uniform_int_distribution<int>(-12, 4)(rng);
        const double v = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng), exponent) * (rng() & 1 ? -1 : 1);
        if (auto b = element_from_number(m.dtype, v)) set_element_bits(bytes[m.arg], m.dtype, e, *b);
      }
      what += fmt::format("every {} element read redrawn (exponents 2^{}..2^{})", name, m.largest_exponent - 12, m.largest_exponent + 4);
    } else if (kind == 0) {  // one element at a random magnitude of the dtype's whole range
      const uint64_t e = m.elements[pick(m.elements.size())];
      const int exponent = std::uniform_int_distribution<int>(m.range.emin - m.range.mantissa, m.range.emax)(rng);
      const double mant = std::uniform_real_distribution<double>(1, 2)(rng);
      const double v = std::ldexp(mant, exponent) * (rng() & 1 ? -1 : 1);
      if (auto b = element_from_number(m.dtype, v)) set_element_bits(bytes[m.arg], m.dtype, e, *b);
      what += fmt::format("{}[{}] = {:a}", name, e, element_number(m.dtype, element_bits(bytes[m.arg], m.dtype, e)));
    } else {  // a few elements nudged by 2^j ulps in their ordered representation
      const unsigned count = 1 + static_cast<unsigned>(pick(3));
      for (unsigned c = 0; c < count; ++c) {
        const uint64_t e = m.elements[pick(m.elements.size())];
        const int j = static_cast<int>(pick(static_cast<size_t>(m.range.mantissa) + 3));
        const int64_t step = (int64_t{1} << j) * (rng() & 1 ? -1 : 1);
        const uint32_t bits = element_bits(bytes[m.arg], m.dtype, e);
        if (auto b = element_of_key(m.dtype, element_key(m.dtype, bits) + step)) set_element_bits(bytes[m.arg], m.dtype, e, *b);
        what += fmt::format("{}{}[{}] {:+} ulp", c ? ", " : "", name, e, step);
      }
    }
    plan.push_back({std::move(bytes), what});
  }

  for (auto& [bytes, what] : plan) {
    emu::LaunchSpec r = with(bytes, what);
    emu::LaunchSpec s = r;
    s.workgroup_sample = sampled;
    RunOutcome a = backend.run(k0, s, 1ull << 32);
    ++out.k0_runs;
    if (a.status != RunOutcome::Completed) continue;  // not an input the original runs: not a counterexample
    RunOutcome b = backend.run(k1, s, k1_step_limit);
    ++out.k1_runs;
    bool differ = b.status != RunOutcome::Completed || b.buffers.size() != a.buffers.size();
    for (size_t i = 0; !differ && i < a.buffers.size(); ++i) differ = a.buffers[i].after != b.buffers[i].after;
    if (differ) {
      out.run = std::move(r);
      out.description = what;
      return out;
    }
  }
  return out;
}

}  // namespace asmevo::verify
