// Loop bodies for the moves that only act inside loops (setprio's load clusters, interleave), and the
// back branches where the loop-rewriting moves start.
#pragma once
#include <vector>

#include "program/program.h"

namespace asmevo::search {

// Per block of `f`: whether it lies in a loop body, i.e. between (in layout order) the target and
// the source of a back edge (a successor at or before its block). Compilers lay loops out
// contiguously, so this is the natural-loop test for their code.
std::vector<bool> loop_blocks(const program::Function& f);

// The .text lines in [first, last] that end a block of `f` with s_cbranch_scc0/scc1: the exit tests of
// counted loops, where load-ahead and register-double-buffer plan their rewrite (each refuses a branch
// that is not its loop's back edge, with the reason).
std::vector<size_t> scc_branch_block_ends(const program::Program& p, const program::Function& f, size_t first, size_t last);

}  // namespace asmevo::search
