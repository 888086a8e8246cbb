#include "search/moves/waitcnt_refine.h"

#include <fmt/format.h>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

}  // namespace

WaitcntRefinement refine_waitcnts(const program::Program& p, const std::string& kernel,
                                  std::optional<std::pair<size_t, size_t>> window) {
  const auto [first, last] = window_lines(p, kernel, window);
  const codeobj::Arch arch = p.original().target().arch;
  const check::CounterLimits limits = check::counter_limits(arch);
  WaitcntRefinement r{p, {}, 0};
  ++r.probes;
  if (!rebuilds_clean(p, kernel))
    throw Error("kernel " + kernel + " already has static findings; waitcnt refinement needs a clean kernel", p.original().elf().name(),
                "run asmevo check on it");
  size_t removed = 0;  // lines removed so far: later lines moved up by this much
  for (size_t original_line = first; original_line <= last; ++original_line) {
    const size_t line = original_line - removed;
    const program::Line& l = r.program.text_line(line);
    if (l.kind != program::Line::Instr) continue;
    // Lines earlier edits made carry text only.
    auto wait = l.inst ? check::decode_waitcnt(*l.inst, arch) : check::parse_waitcnt_text(l.text, limits);
    if (!wait) continue;
    check::Wait original = *wait;
    for (int c = 0; c < check::kNumCounters; ++c) original.count[c] = std::min<unsigned>(original.count[c], limits.max[c]);
    const check::Wait current = weakest_clean_wait(original, limits, [&](const check::Wait& trial) {
      ++r.probes;
      return rebuilds_clean(with_line(r.program, line, check::waitcnt_text(trial, limits)), kernel);
    });
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
