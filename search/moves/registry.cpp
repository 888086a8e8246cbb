// make_moves: the built-in moves of each proposer family. A new move adds one line here.
#include <memory>

#include "search/move.h"
#include "search/moves/moves.h"
#include "support/error.h"

namespace asmevo::search {

std::vector<std::unique_ptr<Move>> make_moves(const std::string& proposer) {
  std::vector<std::unique_ptr<Move>> moves;
  if (proposer == "rules") {
    moves.push_back(make_waitcnt_refine_move());
    moves.push_back(make_waitcnt_sink_move());
    moves.push_back(make_kernarg_hoist_move());
    moves.push_back(make_kernarg_preload_move());
    moves.push_back(make_barrier_elim_move());
    moves.push_back(make_vmcnt_branches_move());
    moves.push_back(make_setprio_move());
    moves.push_back(make_interleave_move());
    moves.push_back(make_widen_move());
    moves.push_back(make_dead_code_move());
    moves.push_back(make_nop_minimize_move());
    moves.push_back(make_register_compact_move());
    moves.push_back(make_reschedule_move());
  } else if (proposer == "stochastic") {
    moves.push_back(make_stochastic_swap_move());
    moves.push_back(make_stochastic_shift_move());
    moves.push_back(make_stochastic_delete_move());
    moves.push_back(make_stochastic_operand_move());
    moves.push_back(make_stochastic_opcode_move());
  } else {
    throw Error("unknown proposer '" + proposer + "'", "--proposers", "use rules, stochastic or llm");
  }
  return moves;
}

}  // namespace asmevo::search
