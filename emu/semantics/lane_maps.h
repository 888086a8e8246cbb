// The lane movements of DPP and ds_swizzle_b32 as functions of the lane: one definition, used by
// the emulator's units (dpp.cpp, ds.cpp) and by the optimizer's DPP move (search/moves/dpp_permute.cpp),
// which must reproduce exactly the permutation the emulator and the hardware perform.
#pragma once
#include <cstdint>

#include "emu/inst.h"

namespace asmevo::emu::sem {

// The source lane of `lane` under DPP control `d` (row/bank masks and bound_ctrl not applied), or -1
// when it is out of range (dpp.cpp has the table of rules).
int dpp_source_lane(const DppMods& d, unsigned lane);

// The source lane of `lane` for ds_swizzle_b32 with 16-bit OFFSET `offset`, or -1 for the rotate/FFT
// modes (offset >= 0xc000), which the emulator does not implement (ds.cpp has the rules).
int swizzle_source_lane(uint32_t offset, unsigned lane);

}  // namespace asmevo::emu::sem
