// Small VOP1 units found in AITer's kernels (ISA "VOP1"):
//   v_nop                  no operation.
//   v_cvt_off_f32_i4       D.f32 = S0[3:0] as a signed 4-bit integer / 16 (-0.5 .. 0.4375; exact).
//   v_cvt_f32_bf16 (gfx950) D.f32 = S0[15:0] as bf16, i.e. the bits shifted into the top half (exact;
//                          a bf16 NaN stays a NaN with the same payload bits, denormals are kept
//                          unless MODE flushes f32 denormals, which the framework applies).
#include <bit>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {
void v_nop(ExecContext&, Wave&, const ExecInst&) {}
}  // namespace

void register_vop_cvt_misc(Registry& r) {
  custom(r, "v_nop", v_nop, Category::Vector, {}, {}, kRawOperands);
  // v_clrexcp clears the wave's floating-point exception status; the emulator keeps none (no FP traps).
  custom(r, "v_clrexcp", v_nop, Category::Vector, {}, {}, kRawOperands);
  valu<[](u32 a) { return static_cast<float>(static_cast<int32_t>(a << 28) >> 28) / 16.0f; }>(r, "v_cvt_off_f32_i4");
  valu<[](u16 a) { return std::bit_cast<float>(static_cast<u32>(a) << 16); }>(r, "v_cvt_f32_bf16");  // B16 source: op_sel/SDWA select the half
}

}  // namespace asmevo::emu::sem
