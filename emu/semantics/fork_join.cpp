// Legacy GCN divergent control flow through the hardware branch stack: s_cbranch_i_fork, s_cbranch_g_fork,
// s_cbranch_join (LLVM decodes them for gfx90a/gfx942/gfx950; no compiler emits them). Source: the GCN ISA
// pseudo-code as CLRX restates it (doc/GcnInstrsSopk.md, GcnInstrsSop2.md, GcnInstrsSop1.md, GcnState.md):
//
//   fork MASK, TARGET:  pass = EXEC & MASK, fail = EXEC & ~MASK
//     pass == EXEC: jump to TARGET;  fail == EXEC: fall through;
//     otherwise run the side with fewer active lanes first and push the other one: the stack entry CSP is
//     SGPR[4*CSP .. 4*CSP+3] = {EXEC of the other side (64 bits), its PC (64 bits)}, CSP = CSP + 1, where
//     CSP = MODE[31:29];  fewer failing lanes: EXEC = fail, push {pass, TARGET}, fall through;
//     else EXEC = pass, push {fail, next PC}, jump to TARGET.
//   join SAVED:  CSP == SAVED: fall through; else CSP = CSP - 1, EXEC and PC from SGPR[4*CSP ..].
//   i_fork: TARGET = next PC + 4 * simm16 (the decoder's branch target); g_fork: TARGET = SSRC1 (64-bit address).
// The stack lives in s0..s31 as the ISA defines, so a kernel's own s0..s31 are overwritten by forks, as on the
// hardware. A push past CSP 7 or a pop at CSP 0 stops the run (the 3-bit CSP would wrap). These rules need
// hardware confirmation (docs/emulator.md).
#include <bit>
#include <fmt/format.h>

#include "emu/alu.h"
#include "emu/program.h"

namespace asmevo::emu::sem {
namespace {

unsigned csp(const Wave& w) { return w.mode.bits >> 29; }
void set_csp(Wave& w, unsigned c) { w.mode.bits = (w.mode.bits & 0x1fffffffu) | (c << 29); }

void jump_to(ExecContext& ctx, Wave& w, const ExecInst& in, uint64_t target) {
  const int64_t idx = ctx.program->index_of(target);
  if (idx < 0) fail(ctx, w, in, fmt::format("branch to 0x{:x}, which is not an instruction of this code object", target));
  w.pc = static_cast<uint32_t>(idx);
}

void fork(ExecContext& ctx, Wave& w, const ExecInst& in, uint64_t target) {
  const uint64_t exec = w.exec(), mask = scalar_bits(w, in.src[0]);
  const uint64_t pass = exec & mask, fail_lanes = exec & ~mask;
  if (pass == exec) return jump_to(ctx, w, in, target);
  if (fail_lanes == exec) return;
  const unsigned c = csp(w);
  if (c >= 7) fail(ctx, w, in, "branch-stack overflow: a fork with CSP = 7 (MODE[31:29]) has no free stack entry");
  const bool fail_first = std::popcount(fail_lanes) < std::popcount(pass);
  w.set_sreg64(4 * c, fail_first ? pass : fail_lanes);
  w.set_sreg64(4 * c + 2, fail_first ? target : in.address + in.size);
  set_csp(w, c + 1);
  w.set_exec(fail_first ? fail_lanes : pass);
  if (!fail_first) jump_to(ctx, w, in, target);
}

// s_cbranch_i_fork MASK, simm16
void s_cbranch_i_fork(ExecContext& ctx, Wave& w, const ExecInst& in) {
  fork(ctx, w, in, in.target >= 0 ? ctx.program->insts()[in.target].address : in.address + in.size + 4 * static_cast<int16_t>(in.simm));
}
// s_cbranch_g_fork MASK, TARGET
void s_cbranch_g_fork(ExecContext& ctx, Wave& w, const ExecInst& in) { fork(ctx, w, in, scalar_bits(w, in.src[1])); }

// s_cbranch_join SAVED
void s_cbranch_join(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const unsigned c = csp(w);
  if (c == (scalar_bits(w, in.src[0]) & 7)) return;
  if (c == 0) fail(ctx, w, in, "branch-stack underflow: a join with CSP = 0 (MODE[31:29]) differs from its saved CSP");
  set_csp(w, c - 1);
  w.set_exec(w.sreg64(4 * (c - 1)));
  jump_to(ctx, w, in, w.sreg64(4 * (c - 1) + 2));
}

}  // namespace

void register_fork_join(Registry& r) {
  custom(r, "s_cbranch_i_fork", s_cbranch_i_fork, Category::Control, {}, {Ty::B64}, kVariadic);
  custom(r, "s_cbranch_g_fork", s_cbranch_g_fork, Category::Control, {}, {Ty::B64, Ty::B64});
  custom(r, "s_cbranch_join", s_cbranch_join, Category::Control, {}, {Ty::B32});
}

}  // namespace asmevo::emu::sem
