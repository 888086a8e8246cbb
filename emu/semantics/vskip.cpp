// S_SETVSKIP SSRC0, SSRC1 (SOPC): VSKIP = SSRC0[SSRC1[4:0]]. While VSKIP is set the wave skips vector
// instructions (VALU, MFMA, vector memory, LDS); scalar ones still run (AITer's fmoe kernels bracket
// single global atomics with "s_setvskip s20, k ... s_setvskip 0, 0" to predicate them on bit k).
// The executor applies it (emu/executor.cpp, Wave::vskip). Which classes are skipped follows the
// ISA's "vector instructions"; DS and export being among them needs hardware confirmation.
#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {
void s_setvskip(ExecContext&, Wave& w, const ExecInst& in) {
  uint32_t v = static_cast<uint32_t>(scalar_bits(w, in.src[0])), bit = static_cast<uint32_t>(scalar_bits(w, in.src[1])) & 31;
  w.vskip = (v >> bit & 1) != 0;
}
}  // namespace

void register_vskip(Registry& r) { custom(r, "s_setvskip", s_setvskip, Category::Scalar, {}, {Ty::B32, Ty::B32}); }

}  // namespace asmevo::emu::sem
