// The register double-buffer move's refusal reasons, for tests (register_double_buffer.cpp has the
// move and its argument).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "program/program.h"
#include "search/move.h"

namespace asmevo::search {

// The move (registry.cpp, rules family). Declared here rather than in moves.h so that adding it did not
// rebuild every move and test on the shared 2-core machine; the lead may move it there at merge.
std::unique_ptr<Move> make_register_double_buffer_move();

// Why the move leaves the loop whose back branch (s_cbranch_scc0/scc1) is .text line `branch_line` of
// `kernel` as it is, or "" when it would issue the next tile's loads during this tile's compute.
std::string register_double_buffer_refusal(const program::Program& p, const std::string& kernel, size_t branch_line);

}  // namespace asmevo::search
