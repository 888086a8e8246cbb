// The DPP move's refusal reasons, for tests (dpp_permute.cpp has the move and its argument).
#pragma once
#include <cstddef>
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why the move leaves the ds_bpermute_b32 / ds_swizzle_b32 at .text line `line` of `kernel` as it
// is, or "" when it would replace it.
std::string dpp_permute_refusal(const program::Program& p, const std::string& kernel, size_t line);

}  // namespace asmevo::search
