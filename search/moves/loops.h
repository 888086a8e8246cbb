// Loop bodies for the moves that only act inside loops (setprio's load clusters, interleave).
#pragma once
#include <vector>

#include "program/program.h"

namespace asmevo::search {

// Per block of `f`: whether it lies in a loop body, i.e. between (in layout order) the target and
// the source of a back edge (a successor at or before its block). Compilers lay loops out
// contiguously, so this is the natural-loop test for their code.
std::vector<bool> loop_blocks(const program::Function& f);

}  // namespace asmevo::search
