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

// s_call_b64 D, simm16 (SOPK): D = address of the next instruction; PC = that address + simm16 * 4 (the
// decoder's branch target).
void s_call_b64(ExecContext&, Wave& w, const ExecInst& in) {
  write_scalar(w, in.dst[0], in.address + in.size, 2);
  w.pc = static_cast<uint32_t>(in.target);
}

// s_movrels_b32/b64 D, S0: D = SGPR[S0 + M0]; s_movreld_b32/b64 D, S0: SGPR[D + M0] = S0 (ISA SOP1, M0-relative
// SGPR indexing). The relative register must be one of s0..s101 (and S0 / D an SGPR there): anything past the
// SGPR file (vcc, ttmp, m0, exec...) stops the run - the ISA leaves out-of-range indexing to the hardware.
unsigned relative_sgpr(ExecContext& ctx, const Wave& w, const ExecInst& in, const Operand& base, unsigned dwords) {
  const uint64_t idx = static_cast<uint64_t>(base.index) + w.s[kM0];
  if (base.kind != Operand::SGPR || base.index >= kFlatScratchLo || idx + dwords > kFlatScratchLo)
    fail(ctx, w, in,
         fmt::format("M0-relative SGPR access s{} + M0 ({}) lies outside s0..s101", base.index, w.s[kM0]), -1, 0,
         "check the value of M0 before the instruction");
  return static_cast<unsigned>(idx);
}
template <unsigned N> void s_movrels(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const unsigned src = relative_sgpr(ctx, w, in, in.src[0], N);
  uint64_t v = w.s[src];
  if (N == 2) v |= static_cast<uint64_t>(w.s[src + 1]) << 32;
  write_scalar(w, in.dst[0], v, N);
}
template <unsigned N> void s_movreld(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const unsigned dst = relative_sgpr(ctx, w, in, in.dst[0], N);
  const uint64_t v = scalar_bits(w, in.src[0]);
  for (unsigned i = 0; i < N; ++i) w.s[dst + i] = static_cast<uint32_t>(v >> (32 * i));
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
  custom(r, "s_call_b64", s_call_b64, Category::Control, {Ty::B64}, {}, kVariadic);
  custom(r, "s_movrels_b32", s_movrels<1>, Category::Scalar, {Ty::B32}, {Ty::B32});
  custom(r, "s_movrels_b64", s_movrels<2>, Category::Scalar, {Ty::B64}, {Ty::B64});
  custom(r, "s_movreld_b32", s_movreld<1>, Category::Scalar, {Ty::B32}, {Ty::B32});
  custom(r, "s_movreld_b64", s_movreld<2>, Category::Scalar, {Ty::B64}, {Ty::B64});
}

}  // namespace asmevo::emu::sem
