// The tile-load batching move's refusal reasons, for tests (tile_load_batch.cpp has the move and its
// argument).
#pragma once
#include <cstddef>
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why the move leaves the `s_waitcnt vmcnt(0)` at .text line `wait_line` of `kernel` as it is, or ""
// when it would batch the loads after it with the ones before it.
std::string tile_load_batch_refusal(const program::Program& p, const std::string& kernel, size_t wait_line);

}  // namespace asmevo::search
