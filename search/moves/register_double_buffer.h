// The register double-buffer move's refusal reasons, for tests (register_double_buffer.cpp has the
// move and its argument).
#pragma once
#include <cstddef>
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why the move leaves the loop whose back branch (s_cbranch_scc0/scc1) is .text line `branch_line` of
// `kernel` as it is, or "" when it would issue the next tile's loads during this tile's compute.
std::string register_double_buffer_refusal(const program::Program& p, const std::string& kernel, size_t branch_line);

}  // namespace asmevo::search
