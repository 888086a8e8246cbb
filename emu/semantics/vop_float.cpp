// VOP1/VOP2/VOP3 f32 and f64 arithmetic and conversions (ISA "Vector ALU Operations").
// The arithmetic, min/max, rounding and int<->float conversions are generic
// (emu/semantics/float_units.h: one definition for the emulator and the prover); what stays here
// has no generic definition yet (ldexp: Z3 has no scaling primitive; written as a wider-format
// multiply it would be a second definition). Per-lane bodies only; abs/neg/omod/clamp and denormal
// flushing are applied by emu/alu.h.
#include <cmath>

#include "emu/alu.h"
#include "emu/semantics/float_units.h"

namespace asmevo::emu::sem {

void register_vop_float(Registry& r) {
  EmuUnits units{r};
  float_valu_units(units);
  valu<[](float a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f32");
  valu<[](double a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f64");
}

}  // namespace asmevo::emu::sem
