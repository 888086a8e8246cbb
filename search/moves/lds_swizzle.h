// The LDS swizzle move's refusal reason (search/moves/lds_swizzle.cpp), for tests and reports.
#pragma once
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why lds-swizzle proposes nothing for `kernel` ("" when it has a plan: every LDS access rewritable,
// each address hoistable and proven inside one 16-byte chunk below 2^32).
std::string lds_swizzle_refusal(const program::Program& p, const std::string& kernel);

}  // namespace asmevo::search
