// Constructors of the built-in moves (search/move.h), one per move; registry.cpp groups them by
// proposer family.
#pragma once
#include <memory>

#include "search/move.h"

namespace asmevo::search {

std::unique_ptr<Move> make_waitcnt_refine_move();  // waitcnt_refine.cpp
std::unique_ptr<Move> make_dead_code_move();  // dead_code.cpp
std::unique_ptr<Move> make_nop_minimize_move();  // nop_minimize.cpp
std::unique_ptr<Move> make_register_compact_move();  // register_compact.cpp

}  // namespace asmevo::search
