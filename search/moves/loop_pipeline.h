// The loop-pipelining move's refusal reasons, for tests (loop_pipeline.cpp has the move and its argument).
#pragma once
#include <cstddef>
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why the move leaves the self-loop block `block` (an index into the function's blocks) of `kernel`
// as it is when unrolling by `k`, or "" when it would pipeline it.
std::string loop_pipeline_refusal(const program::Program& p, const std::string& kernel, size_t block, unsigned k);

}  // namespace asmevo::search
