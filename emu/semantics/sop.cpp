// SOP1 / SOP2 / SOPK / SOPC: scalar ALU. Each unit is the ISA pseudo-code (AMD "Vega" / CDNA3 ISA,
// chapter "Scalar ALU Operations"); SCC and EXEC come in through Scc& / Exec& (emu/alu.h).
#include <bit>

#include "emu/alu.h"
#include "emu/semantics/int_units.h"
#include "emu/program.h"
#include <fmt/format.h>

namespace asmevo::emu::sem {
namespace {

// s_getpc_b64 D: D = address of the next instruction.
void s_getpc_b64(ExecContext&, Wave& w, const ExecInst& in) { write_scalar(w, in.dst[0], in.address + in.size, 2); }

void jump_to(ExecContext& ctx, Wave& w, const ExecInst& in, uint64_t target) {
  int64_t idx = ctx.program->index_of(target);
  if (idx < 0) fail(ctx, w, in, fmt::format("jump to 0x{:x}", target) + ", which is not an instruction of this code object");
  w.pc = static_cast<uint32_t>(idx);
}
// s_setpc_b64 S0: PC = S0.
void s_setpc_b64(ExecContext& ctx, Wave& w, const ExecInst& in) { jump_to(ctx, w, in, scalar_bits(w, in.src[0])); }
// s_swappc_b64 D, S0: D = PC of the next instruction; PC = S0.
void s_swappc_b64(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint64_t target = scalar_bits(w, in.src[0]);
  write_scalar(w, in.dst[0], in.address + in.size, 2);
  jump_to(ctx, w, in, target);
}

}  // namespace

void register_sop(Registry& r) {
  EmuUnits units{r};
  int_salu_units(units);  // the generic units (emu/semantics/int_units.h)
  // Not generic (yet): find-first-bit needs count-zeros terms; the prover models them as
  // uninterpreted functions (docs/prove.md).
  salu<[](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "s_ff1_i32_b32");
  salu<[](u64 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "s_ff1_i32_b64");
  salu<[](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "s_flbit_i32_b32");
  salu<[](u64 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "s_flbit_i32_b64");
  // Program counter (device-function calls and returns).
  custom(r, "s_getpc_b64", s_getpc_b64, Category::Scalar, {Ty::B64}, {});
  custom(r, "s_setpc_b64", s_setpc_b64, Category::Control, {}, {Ty::B64});
  custom(r, "s_swappc_b64", s_swappc_b64, Category::Control, {Ty::B64}, {Ty::B64});
}

}  // namespace asmevo::emu::sem
