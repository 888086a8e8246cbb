// Move: wave priority (s_setprio) around MFMA clusters and memory issue. When several waves share a
// SIMD, the arbiter issues the oldest ready wave first among those of the highest priority. Raising
// a wave's priority while it issues a run of MFMAs keeps the matrix core fed by one wave while the
// others wait on memory; raising it while it issues a run of loads gets the next tile's requests out
// early (CK and Triton's ping-pong schedules use both: triton-lang/triton #5018, ≈ +10 % on an FP8
// GEMM; notes/mi300x-measured.md F). Each edit brackets one cluster (≥ 2 MFMAs, or ≥ 2 vector/LDS
// loads of a loop body — the next tile's loads —, with at most 2 other instructions between them)
// of the window with `s_setprio P` /
// `s_setprio 0`, for P = 1 and 3 (the field is 2 bits); the timing model (its issue arbiter honours
// s_setprio, timing/model.cpp) decides whether it pays.
// Why every launch: s_setprio only sets the wave's issue-arbitration priority (GFX9 ISA guide,
// "S_SETPRIO: user settable wave priority"); it reads and writes no register, memory or counter,
// so every instruction computes what it did. It is emulated as such (emu/semantics/sopp.cpp).
// Refused: kernels that already use s_setprio (their schedule is deliberate).
#include <fmt/format.h>

#include "search/moves/loops.h"
#include "search/moves/moves.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

constexpr size_t kMinCluster = 2, kMaxGap = 2;

bool is_load(const program::Instruction& in) {
  using C = program::InstClass;
  return (in.cls == C::GLOBAL || in.cls == C::VMEMLoad || in.cls == C::DS || in.cls == C::FLAT) && in.may_load && !in.may_store;
}

class SetprioMove final : public Move {
 public:
  std::string name() const override { return "setprio"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f) return {};
    for (size_t i = f->begin; i < f->end; ++i)
      if (p.text_line(i).inst && p.text_line(i).inst->mnemonic == "s_setprio") return {};
    const std::vector<bool> in_loop = loop_blocks(*f);
    std::vector<Edit> out;
    for (const bool mfma : {true, false}) {
      // Clusters: runs of members inside one basic block with small gaps.
      for (size_t bi = 0; bi < f->blocks.size(); ++bi) {
        const program::BasicBlock& b = f->blocks[bi];
        if (!mfma && !in_loop[bi]) continue;
        const size_t lo = std::max(b.first, c.window.first), hi = std::min(b.last, c.window.last);
        size_t start = SIZE_MAX, end = 0, members = 0, gap = 0;
        auto flush = [&]() {
          if (start != SIZE_MAX && members >= kMinCluster) {
            for (unsigned prio : {1u, 3u}) {
              if (out.size() >= c.max_edits) return;
              Edit e;
              e.kernel = c.kernel;
              e.move = name();
              e.proposer = proposer();
              std::vector<std::string> lines{fmt::format("s_setprio {}", prio)};
              for (size_t k = start; k <= end; ++k) lines.push_back(p.text_line(k).text);
              lines.push_back("s_setprio 0");
              e.hunks.push_back(make_hunk(p, start, end, lines));
              e.description = fmt::format("s_setprio {} around the {} {} at lines {}-{}", prio, members, mfma ? "MFMAs" : "loads", start, end);
              out.push_back(std::move(e));
            }
          }
          start = SIZE_MAX, members = 0, gap = 0;
        };
        for (size_t i = lo; i <= hi && lo <= hi; ++i) {
          const program::Line& l = p.text_line(i);
          if (!l.inst) {
            flush();  // labels cannot sit inside a hunk
            continue;
          }
          const bool member = mfma ? l.inst->cls == program::InstClass::MFMA : is_load(*l.inst);
          if (member) {
            if (start == SIZE_MAX) start = i;
            end = i, ++members, gap = 0;
          } else if (start != SIZE_MAX && (++gap > kMaxGap || l.inst->is_terminator || l.inst->cls == program::InstClass::Barrier)) {
            flush();
          }
        }
        flush();
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_setprio_move() { return std::make_unique<SetprioMove>(); }

}  // namespace asmevo::search
