// GPR indexing mode (gfx9 "VGPR indexing": S_SET_GPR_IDX_ON/OFF/IDX/MODE, emu/semantics/gpr_idx.cpp).
// While MODE.gpr_idx_en (bit 27) is set, every VALU instruction adds M0[7:0] to the VGPR index of
// the operands M0[15:12] enables (bit 0 src0, 1 src1, 2 src2, 3 dst). The executor calls
// run_gpr_indexed for VALU/MFMA instructions while the bit is set; otherwise nothing changes.
#pragma once
#include <cstdint>

namespace asmevo::emu {

struct ExecContext;
struct Wave;
struct ExecInst;

inline constexpr uint32_t kModeGprIdxEn = 1u << 27;

// Executes `in` with its enabled VGPR operands offset by M0[7:0]; an offset register past the
// wave's allocation stops the run (the hardware's substitution of v0 is not modelled).
void run_gpr_indexed(ExecContext& ctx, Wave& w, const ExecInst& in);

}  // namespace asmevo::emu
