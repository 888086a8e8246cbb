// make_moves: the built-in moves of each proposer family. A new move adds one line here.
#include <algorithm>
#include <memory>

#include "search/move.h"
#include "search/moves/load_ahead.h"
#include "search/moves/moves.h"
#include "support/error.h"

namespace asmevo::search {

std::vector<std::unique_ptr<Move>> make_moves(const std::string& proposer) {
  std::vector<std::unique_ptr<Move>> moves;
  if (proposer == "rules") {
    // First: where it fires its gains are the largest (bench/moves), and on full-size perf launches a
    // candidate costs 20 s or more, so a 30 s search reaches only the first moves' edits.
    moves.push_back(make_loop_pipeline_move());
    moves.push_back(make_address_fold_move());  // on loop-pipeline's copies: fewer, wider loads
    moves.push_back(make_tile_load_batch_move());
    moves.push_back(make_register_double_buffer_move());
    moves.push_back(make_load_ahead_move());
    moves.push_back(make_lds_forward_move());
    moves.push_back(make_early_load_move());
    moves.push_back(make_waitcnt_refine_move());
    moves.push_back(make_waitcnt_sink_move());
    moves.push_back(make_kernarg_hoist_move());
    moves.push_back(make_kernarg_preload_move());
    moves.push_back(make_barrier_elim_move());
    moves.push_back(make_vmcnt_branches_move());
    moves.push_back(make_load_hoist_move());
    moves.push_back(make_setprio_move());
    moves.push_back(make_interleave_move());
    moves.push_back(make_widen_move());
    moves.push_back(make_widen_short_move());
    moves.push_back(make_buffer_bounds_move());
    moves.push_back(make_dpp_permute_move());
    moves.push_back(make_pk_math_move());
    moves.push_back(make_lds_swizzle_move());
    moves.push_back(make_dead_code_move());
    moves.push_back(make_agpr_round_trip_move());
    moves.push_back(make_nop_minimize_move());
    moves.push_back(make_register_compact_move());
    moves.push_back(make_occupancy_rename_move());
    moves.push_back(make_reschedule_move());
    moves.push_back(make_specialize_move());
    moves.push_back(make_workgroup_remap_move());  // a whole-grid order: the perf launch decides
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

std::vector<std::string> move_names() {
  std::vector<std::string> out;
  for (const char* family : {"rules", "stochastic"})
    for (const auto& m : make_moves(family)) out.push_back(m->name());
  return out;
}

bool MoveFilter::allows(const Move& m) const {
  auto named = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), m.name()) != v.end() || std::find(v.begin(), v.end(), m.proposer()) != v.end();
  };
  return (only.empty() || named(only)) && !named(off);
}

MoveFilter MoveFilter::parse(const std::vector<std::string>& entries) {
  const std::vector<std::string> names = move_names();
  MoveFilter f;
  for (const std::string& e : entries) {
    const bool minus = !e.empty() && e[0] == '-';
    const std::string name = minus ? e.substr(1) : e;
    if (name != "rules" && name != "stochastic" && std::find(names.begin(), names.end(), name) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw Error("unknown move '" + name + "'", "--moves", "use rules, stochastic or a move: " + all + " (prefix - to switch one off)");
    }
    (minus ? f.off : f.only).push_back(name);
  }
  return f;
}

}  // namespace asmevo::search
