// Move: waitcnt sinking and splitting (issue 7: "split a wait to let independent work proceed").
// A wait placed earlier than its first consumer makes the wave stall while independent
// instructions could still issue. For each s_waitcnt in the window, first to last, the wait is
// moved down past the next instruction as long as the static waitcnt proof (check/waitcnt.h)
// accepts the kernel; when the next instruction does need some of the awaited operations, a
// weaker copy of the wait — the weakest counts that make the kernel clean again, found by
// bisection per counter — is left in front of it and the original keeps sinking ("split").
// Control flow, barriers, other waits, s_nop padding, and messages stop a wait. Like waitcnt
// refinement, every probe rebuilds the candidate and checks the built code.
#include <fmt/format.h>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

constexpr size_t kMaxSink = 16;   // lines a wait may travel (probes grow with it)
constexpr size_t kMaxSplits = 2;  // weaker copies left behind per wait

// An instruction a wait may move past: straight-line, no wait, no barrier, no hazard padding.
bool passable(const program::Line& l) {
  if (l.kind != program::Line::Instr || !l.inst) return false;
  static const char* const kStop[] = {"s_waitcnt", "s_barrier", "s_nop", "s_branch", "s_cbranch", "s_endpgm", "s_setpc", "s_swappc",
                                      "s_call", "s_getpc", "s_sendmsg", "s_sleep", "s_setprio", "s_trap", "s_dcache", "s_icache",
                                      "buffer_wbl2", "buffer_inv", "s_code_end"};
  for (const char* s : kStop)
    if (l.text.rfind(s, 0) == 0) return false;
  return l.text.find('@') == std::string::npos;
}

class WaitcntSinkMove final : public Move {
 public:
  std::string name() const override { return "waitcnt-sink"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const codeobj::Arch arch = c.program.original().target().arch;
    const check::CounterLimits limits = check::counter_limits(arch);
    if (!rebuilds_clean(c.program, c.kernel)) return {};  // nothing to compare against
    std::vector<Edit> edits;
    for (size_t w = c.window.first; w <= c.window.last && edits.size() < c.max_edits; ++w) {
      const program::Line& line = c.program.text_line(w);
      if (line.kind != program::Line::Instr) continue;
      // Lines earlier edits made carry text only.
      auto wait = line.inst ? check::decode_waitcnt(*line.inst, arch) : check::parse_waitcnt_text(line.text, limits);
      if (!wait) continue;
      // Work on a copy; `region` is the parent's lines [w, end] rewritten.
      program::Program p = c.program;
      size_t pos = w, end = w, splits = 0, moved = 0;
      std::string text = line.text;
      while (moved < kMaxSink && pos + 1 <= c.window.last + splits && pos + 1 < p.text_line_count()) {
        const program::Line& next = p.text_line(pos + 1);
        if (!passable(next)) break;
        const std::string next_text = next.text;
        program::Program sunk = p;
        sunk.replace(pos, pos + 1, {next_text, text});
        if (rebuilds_clean(sunk, c.kernel)) {
          p = std::move(sunk);
          ++pos;
          ++moved;
          end = std::max(end, w + moved);
          continue;
        }
        if (splits == kMaxSplits) break;
        // The next instruction needs part of what the wait waits for: leave the weakest copy that
        // satisfies it in front of it (bisection per counter, as in waitcnt refinement).
        check::Wait strong = *wait;
        for (int k = 0; k < check::kNumCounters; ++k) strong.count[k] = std::min<unsigned>(strong.count[k], limits.max[k]);
        auto with_copy = [&](const check::Wait& copy) {
          program::Program q = sunk;  // [.., next, W, ..] at pos, pos + 1
          std::string t = check::waitcnt_text(copy, limits);
          if (!t.empty()) q.insert_before(pos, {t});
          return q;
        };
        if (!rebuilds_clean(with_copy(strong), c.kernel)) break;  // more than this wait is involved
        const check::Wait weak =
            weakest_clean_wait(strong, limits, [&](const check::Wait& trial) { return rebuilds_clean(with_copy(trial), c.kernel); });
        if (weak.count == strong.count) break;  // nothing weaker: the wait is where it belongs
        p = with_copy(weak);
        ++splits;
        pos += 2;  // the copy and `next` are in front of the wait now
        ++moved;
        end = std::max(end, w + moved);
      }
      if (moved == 0) continue;
      // The parent's lines [w, end] became the program's lines [w, end + splits].
      std::vector<std::string> lines;
      for (size_t i = w; i <= end + splits; ++i) lines.push_back(p.text_line(i).text);
      Edit e;
      e.kernel = c.kernel;
      e.move = name();
      e.proposer = proposer();
      e.description = fmt::format("'{}' moved down {} instruction(s){}", text, moved,
                                  splits ? fmt::format(", {} weaker copy(ies) left before the instructions that need them", splits) : "");
      e.hunks.push_back(make_hunk(c.program, w, end, lines));
      edits.push_back(std::move(e));
    }
    return edits;
  }
};

}  // namespace

std::unique_ptr<Move> make_waitcnt_sink_move() { return std::make_unique<WaitcntSinkMove>(); }

}  // namespace asmevo::search
