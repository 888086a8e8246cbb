// The interface every built-in move implements. A move looks at one window of one kernel (a range
// of .text lines of the parent Program, usually a hot window from the timing profile) and proposes
// edits that it believes preserve the kernel's semantics (rule moves) or that merely explore
// (stochastic moves). Nothing a move returns is trusted: the optimizer's cascade (rebuild → ABI →
// static checks → emulation → timing → full verification) decides. Moves should still avoid
// proposing edits the cascade will obviously reject, because each rejection costs time.
#pragma once
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "program/program.h"
#include "search/edit.h"

namespace asmevo::emu {
struct LaunchSpec;
}

namespace asmevo::search {

// Lines [first, last] (inclusive) of the parent's .text, inside one function.
struct Window {
  size_t first = 0, last = 0;
  double share = 0;  // of the kernel's modeled cycles (0 when unknown)
  std::string id;    // stable name for the population / store: "<kernel>@0x<address of first line>"
};

struct MoveContext {
  const program::Program& program;  // the parent, as recovered from its code object
  const std::string& kernel;
  Window window;
  std::mt19937_64& rng;             // stochastic moves draw from it; rule moves ignore it
  size_t max_edits = 8;             // propose at most this many
  // The perf launches the fitness is timed on (emu::perf_runs), for moves that specialize on their
  // argument values (guarded specialization); null when the caller has none.
  const std::vector<emu::LaunchSpec>* perf_runs = nullptr;
};

class Move {
 public:
  virtual ~Move() = default;
  virtual std::string name() const = 0;       // "waitcnt-refine", ...
  virtual std::string proposer() const = 0;   // "rules" or "stochastic"
  // How often the optimizer draws this move relative to the others of its family (stochastic
  // moves; rule moves are all tried on every window).
  virtual double weight() const { return 1.0; }
  // Rule moves whose edits this move's edits make possible (tile-load-batch: register-double-buffer
  // needs the loop it batched). When one of this move's edits is correct on the quick run but not
  // fast enough alone, the optimizer tries it together with each follow-up's edits on it as one
  // compound candidate (Edit::then), judged against the parent like any other (docs/search.md,
  // "Enabling chains"). Depth 1: a follow-up's own enables() are not expanded.
  virtual std::vector<std::string> enables() const { return {}; }
  // Rule moves: true when this kernel and its perf launches show that this move's edit may be worth
  // far more than local polish, so the optimizer proposes it on a member's hottest window before
  // every other rule move instead of in registry order (occupancy-rename: VGPRs bind a perf
  // launch's residency and one granule fewer would add resident workgroups, while a 30 s search on a
  // full-size launch reaches only the first few candidates). Cheap: it runs once per member.
  // Returns why, or "" when the move keeps its place.
  virtual std::string leads(const MoveContext&) const { return ""; }
  // Edits for this window, best first. May be empty. Must not throw for ordinary code; an
  // asmevo::Error means the move cannot work on this kernel (the optimizer logs it and moves on).
  virtual std::vector<Edit> propose(const MoveContext& context) = 0;
};

// Every built-in move of a proposer family ("rules", "stochastic"); throws asmevo::Error for an
// unknown family.
std::vector<std::unique_ptr<Move>> make_moves(const std::string& proposer);

// The names of every built-in move of the rules and stochastic families.
std::vector<std::string> move_names();

// Which moves a search may use (`--moves`): entries "NAME" keep only the named moves, "-NAME" switch
// one off (the ablation of bench/speedups); NAME is a move ("widen") or a family ("rules",
// "stochastic"). Empty: every move.
struct MoveFilter {
  std::vector<std::string> only, off;
  bool allows(const Move& m) const;
  // Throws asmevo::Error naming an entry that is no move or family.
  static MoveFilter parse(const std::vector<std::string>& entries);
};

}  // namespace asmevo::search
