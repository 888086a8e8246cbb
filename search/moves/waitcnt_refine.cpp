#include "search/moves/waitcnt_refine.h"

#include <fmt/format.h>

#include "build/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

program::Program with_line(const program::Program& p, size_t line, const std::string& text) {
  program::Program copy = p;
  if (text.empty()) copy.remove(line, line);
  else copy.replace(line, line, {text});
  return copy;
}

}  // namespace

WaitcntRefinement refine_waitcnts(const program::Program& p, const std::string& kernel,
                                  std::optional<std::pair<size_t, size_t>> window) {
  const program::Function* f = p.function(kernel);
  if (!f || !f->is_kernel) throw Error("no kernel named " + kernel, p.original().elf().name());
  const codeobj::Arch arch = p.original().target().arch;
  const check::CounterLimits limits = check::counter_limits(arch);
  WaitcntRefinement r{p, {}, 0};
  ++r.probes;
  if (!rebuilds_clean(p, kernel))
    throw Error("kernel " + kernel + " already has static findings; waitcnt refinement needs a clean kernel", p.original().elf().name(),
                "run asmevo check on it");
  size_t first = window ? window->first : f->begin, last = window ? window->second : f->end - 1;
  size_t removed = 0;  // lines removed so far: later lines moved up by this much
  for (size_t original_line = first; original_line <= last; ++original_line) {
    const size_t line = original_line - removed;
    const program::Line& l = r.program.text_line(line);
    if (l.kind != program::Line::Instr) continue;
    // Lines earlier edits made carry text only.
    auto wait = l.inst ? check::decode_waitcnt(*l.inst, arch) : check::parse_waitcnt_text(l.text, limits);
    if (!wait) continue;
    check::Wait current = *wait;
    for (int c = 0; c < check::kNumCounters; ++c) current.count[c] = std::min<unsigned>(current.count[c], limits.max[c]);
    const check::Wait original = current;
    for (int c = 0; c < check::kNumCounters; ++c) {
      if (current.count[c] >= limits.max[c]) continue;  // does not wait on this counter
      // Bisection for the largest safe count in [current, max]; max means "no wait".
      unsigned lo = current.count[c], hi = limits.max[c];
      while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        check::Wait trial = current;
        trial.count[c] = mid;
        ++r.probes;
        if (rebuilds_clean(with_line(r.program, line, check::waitcnt_text(trial, limits)), kernel)) lo = mid;
        else hi = mid - 1;
      }
      current.count[c] = lo;
    }
    if (current.count == original.count) continue;
    std::string after = check::waitcnt_text(current, limits);
    r.changes.push_back({l.address, l.text, after});
    r.program = with_line(r.program, line, after);
    removed += after.empty();
  }
  r.program.touch(kernel);
  r.program.update_resources();
  return r;
}

}  // namespace asmevo::search

namespace asmevo::search {
namespace {

class WaitcntRefineMove final : public Move {
 public:
  std::string name() const override { return "waitcnt-refine"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    WaitcntRefinement r = refine_waitcnts(c.program, c.kernel, std::pair{c.window.first, c.window.last});
    if (r.changes.empty()) return {};
    std::vector<std::pair<uint64_t, std::string>> changes;
    for (const WaitcntChange& ch : r.changes) changes.push_back({ch.address, ch.after});
    Edit e = line_replacements(c.program, c.kernel, changes);
    e.move = name();
    e.proposer = proposer();
    e.description = fmt::format("{} s_waitcnt weakened or removed to the counts the static proof needs", r.changes.size());
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_waitcnt_refine_move() { return std::make_unique<WaitcntRefineMove>(); }

}  // namespace asmevo::search
