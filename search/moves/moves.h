// Constructors of the built-in moves (search/move.h), one per move; registry.cpp groups them by
// proposer family.
#pragma once
#include <memory>

#include "search/move.h"

namespace asmevo::search {

std::unique_ptr<Move> make_waitcnt_refine_move();  // waitcnt_refine.cpp
std::unique_ptr<Move> make_waitcnt_sink_move();      // waitcnt_sink.cpp
std::unique_ptr<Move> make_kernarg_hoist_move();     // kernarg_hoist.cpp
std::unique_ptr<Move> make_kernarg_preload_move();   // kernarg_preload.cpp
std::unique_ptr<Move> make_barrier_elim_move();      // barrier_elim.cpp
std::unique_ptr<Move> make_vmcnt_branches_move();    // vmcnt_branches.cpp
std::unique_ptr<Move> make_setprio_move();           // setprio.cpp
std::unique_ptr<Move> make_interleave_move();        // interleave.cpp
std::unique_ptr<Move> make_widen_move();             // widen.cpp
std::unique_ptr<Move> make_widen_short_move();       // widen_short.cpp
std::unique_ptr<Move> make_buffer_bounds_move();     // buffer_bounds.cpp
std::unique_ptr<Move> make_dpp_permute_move();       // dpp_permute.cpp
std::unique_ptr<Move> make_pk_math_move();           // pk_math.cpp
std::unique_ptr<Move> make_lds_swizzle_move();       // lds_swizzle.cpp
std::unique_ptr<Move> make_load_hoist_move();        // load_hoist.cpp
std::unique_ptr<Move> make_early_load_move();        // early_load.cpp
std::unique_ptr<Move> make_dead_code_move();         // dead_code.cpp
std::unique_ptr<Move> make_nop_minimize_move();      // nop_minimize.cpp
std::unique_ptr<Move> make_register_compact_move();  // register_compact.cpp
std::unique_ptr<Move> make_occupancy_rename_move();  // occupancy_rename.cpp
std::unique_ptr<Move> make_agpr_round_trip_move();   // agpr_round_trip.cpp
std::unique_ptr<Move> make_reschedule_move();        // reschedule.cpp
std::unique_ptr<Move> make_specialize_move();        // specialize.cpp
std::unique_ptr<Move> make_lds_forward_move();       // lds_forward.cpp
std::unique_ptr<Move> make_loop_pipeline_move();     // loop_pipeline.cpp
std::unique_ptr<Move> make_address_fold_move();      // address_fold.cpp
std::unique_ptr<Move> make_tile_load_batch_move();   // tile_load_batch.cpp
std::unique_ptr<Move> make_register_double_buffer_move();  // register_double_buffer.cpp
std::unique_ptr<Move> make_workgroup_remap_move();   // workgroup_remap.cpp

// stochastic.cpp
std::unique_ptr<Move> make_stochastic_swap_move();
std::unique_ptr<Move> make_stochastic_shift_move();
std::unique_ptr<Move> make_stochastic_delete_move();
std::unique_ptr<Move> make_stochastic_operand_move();
std::unique_ptr<Move> make_stochastic_opcode_move();

}  // namespace asmevo::search
