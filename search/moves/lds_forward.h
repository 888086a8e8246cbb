// The LDS store-to-load forwarding move's refusal reason (search/moves/lds_forward.cpp), for tests.
#pragma once
#include <string>

#include "program/program.h"

namespace asmevo::search {

// Why lds-forward proposes nothing for the whole of `kernel` ("" when it proposes an edit).
std::string lds_forward_refusal(const program::Program& p, const std::string& kernel);

}  // namespace asmevo::search
