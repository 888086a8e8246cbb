// The load-ahead move's refusal reasons, for tests (load_ahead.cpp has the move and its argument).
#pragma once
#include <cstddef>
#include <string>

#include <memory>

#include "program/program.h"
#include "search/move.h"

namespace asmevo::search {

// The move (declared here rather than in moves.h, beside the others, so that adding it did not rebuild every
// move and test; registry.cpp includes this header).
std::unique_ptr<Move> make_load_ahead_move();

// Why the move leaves the loop whose back branch (s_cbranch_scc0/scc1) is .text line `branch_line` of
// `kernel` as it is, or "" when it would keep two tiles' loads in flight.
std::string load_ahead_refusal(const program::Program& p, const std::string& kernel, size_t branch_line);

}  // namespace asmevo::search
