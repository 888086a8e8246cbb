// Move: vmcnt across branches. At a join, the static waitcnt proof (and the compiler's waitcnt
// pass) keeps for each pending load the fewest newer vector-memory operations over the incoming
// paths, so a load that one arm follows with k loads and the other arm with none needs vmcnt(0)
// after the join — which on the first arm also waits for the k loads it did not need
// (llvm/llvm-project #221115, ≈ +6 % on a masked grouped GEMM; notes/mi300x-measured.md F).
// The move evens the arms out: a copy of the join's wait goes to the end of every predecessor
// block (before its branch, or after its last instruction when it falls through), then the join's
// wait is refined first (usually removed: each arm now waits on its own) and each copy after it,
// to the weakest counts the static waitcnt proof accepts on its own path.
// Why every launch: an added s_waitcnt only delays the wave; every weakening is the static proof's
// (check/waitcnt.h: for every path and every pending register the count keeps the wait), and the
// cascade verifies the result like any other edit.
#include <fmt/format.h>

#include <algorithm>

#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/waitcnt_refine.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

class VmcntBranchesMove final : public Move {
 public:
  std::string name() const override { return "vmcnt-branches"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f || f->blocks.empty()) return {};
    const codeobj::Arch arch = p.original().target().arch;
    const check::CounterLimits limits = check::counter_limits(arch);
    std::vector<Edit> out;
    for (size_t b = 0; b < f->blocks.size() && out.size() < c.max_edits; ++b) {
      const program::BasicBlock& join = f->blocks[b];
      if (join.preds.size() < 2) continue;
      // The first wait of the join block that waits on vmcnt, inside the window.
      size_t wait_line = SIZE_MAX;
      std::string wait;  // the copy: the join wait's vmcnt part only
      for (size_t i = join.first; i <= join.last; ++i) {
        const program::Line& l = p.text_line(i);
        if (!l.inst) continue;
        auto w = check::decode_waitcnt(*l.inst, arch);
        if (!w) continue;
        if (w->count[check::kVmCnt] < limits.max[check::kVmCnt]) {
          wait_line = i;
          check::Wait vm;
          vm.count = limits.max;
          vm.count[check::kVmCnt] = w->count[check::kVmCnt];
          wait = check::waitcnt_text(vm, limits);
        }
        break;
      }
      if (wait_line == SIZE_MAX || wait_line < c.window.first || wait_line > c.window.last) continue;
      Edit e;
      e.kernel = c.kernel;
      bool ok = true;
      for (size_t pred : join.preds) {
        const program::BasicBlock& pb = f->blocks[pred];
        const program::Line& last = p.text_line(pb.last);
        if (!last.inst || pb.last == wait_line) {
          ok = false;
          break;
        }
        const bool branches = last.inst->is_branch || last.inst->is_terminator;
        e.hunks.push_back(make_hunk(p, pb.last, pb.last, branches ? std::vector<std::string>{wait, last.text} : std::vector<std::string>{last.text, wait}));
      }
      if (!ok) continue;
      std::sort(e.hunks.begin(), e.hunks.end(), [](const Hunk& x, const Hunk& y) { return x.first < y.first; });
      if (std::adjacent_find(e.hunks.begin(), e.hunks.end(), [](const Hunk& x, const Hunk& y) { return x.first == y.first; }) != e.hunks.end())
        continue;  // one block reaches the join twice (both edges of a branch)
      try {
        program::Program copied = apply_edit(p, e);
        // Where the join's wait and the copies are now: each hunk before it added one line.
        size_t join_now = wait_line;
        std::vector<size_t> copies;
        size_t added = 0;
        for (const Hunk& h : e.hunks) {
          const bool wait_first = h.lines.front() == wait;
          copies.push_back(h.first + added + (wait_first ? 0 : 1));
          ++added;
          if (h.first < wait_line) ++join_now;
        }
        // The join's wait first: with the copies in place it needs little or nothing.
        WaitcntRefinement r = refine_waitcnts(copied, c.kernel, std::pair{join_now, join_now});
        const bool join_removed = !r.changes.empty() && r.changes[0].after.empty();
        if (r.changes.empty()) continue;  // the copies bought nothing
        program::Program result = r.program;
        for (size_t line : copies) {
          const size_t now = line - (join_removed && line > join_now ? 1 : 0);
          result = refine_waitcnts(result, c.kernel, std::pair{now, now}).program;
        }
        Edit d = diff_edit(p, result, c.kernel);
        d.move = name();
        d.proposer = proposer();
        d.description = fmt::format("'{}' of line {} split into its {} predecessor blocks and refined per path (join: {})", wait, wait_line,
                                    join.preds.size(), join_removed ? "removed" : "'" + r.changes[0].after + "'");
        out.push_back(std::move(d));
      } catch (const Error&) {
        // Static findings in the parent or an edit the program refuses: nothing to propose here.
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_vmcnt_branches_move() { return std::make_unique<VmcntBranchesMove>(); }

}  // namespace asmevo::search
