// Compound candidates (Edit::then, docs/search.md "Enabling chains"): what a later step's line
// numbers refer to. One definition, used by the cascade (which applies the steps) and by the
// optimizer (which asks follow-up moves for them).
#pragma once
#include "program/program.h"

namespace asmevo::search {

// `edited` rebuilt and recovered: the Program the next step of a compound edit is made on.
// Throws asmevo::Error when the listing does not rebuild.
program::Program step_input(const program::Program& edited);

}  // namespace asmevo::search
