// SOPP: program control (branches, end, waits, barrier, priority, sleep, trap). ISA "SOPP".
#include "emu/alu.h"
#include "emu/program.h"

namespace asmevo::emu::sem {
namespace {

void s_nop(ExecContext&, Wave&, const ExecInst&) {}
void s_endpgm(ExecContext&, Wave& w, const ExecInst&) { w.done = true, w.wc.clear(); }
void s_branch(ExecContext&, Wave& w, const ExecInst& in) { w.pc = static_cast<uint32_t>(in.target); }

template <class Cond> void cbranch(Wave& w, const ExecInst& in, Cond c) {
  if (c()) w.pc = static_cast<uint32_t>(in.target);
}
void s_cbranch_scc0(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return !w.scc; }); }
void s_cbranch_scc1(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return w.scc; }); }
void s_cbranch_vccz(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return w.vcc() == 0; }); }
void s_cbranch_vccnz(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return w.vcc() != 0; }); }
void s_cbranch_execz(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return w.exec() == 0; }); }
void s_cbranch_execnz(ExecContext&, Wave& w, const ExecInst& in) { cbranch(w, in, [&] { return w.exec() != 0; }); }

// simm16: vmcnt = {[15:14], [3:0]}, expcnt = [6:4], lgkmcnt = [11:8] (gfx9).
void s_waitcnt(ExecContext&, Wave& w, const ExecInst& in) {
  uint32_t s = static_cast<uint32_t>(in.simm);
  unsigned vm = (s & 0xf) | ((s >> 14 & 3) << 4), exp = s >> 4 & 7, lgkm = s >> 8 & 0xf;
  w.wc.wait(w, vm, lgkm, exp);
}
void s_barrier(ExecContext&, Wave& w, const ExecInst&) { w.at_barrier = true; }
void s_trap(ExecContext& ctx, Wave& w, const ExecInst& in) {
  fail(ctx, w, in, "the kernel executed s_trap " + std::to_string(in.simm) + " (a device-side abort or assert)");
}
void s_setprio(ExecContext&, Wave&, const ExecInst&) {}  // scheduling hint: no functional effect
void s_sleep(ExecContext&, Wave&, const ExecInst&) {}    // waits ~64*N clocks: no functional effect

}  // namespace

void register_sopp(Registry& r) {
  auto add = [&](const char* stem, ExecFn fn, Category c = Category::Control) { custom(r, stem, fn, c, {}, {}, kRawOperands); };
  add("s_nop", s_nop);
  add("s_endpgm", s_endpgm);
  add("s_branch", s_branch);
  add("s_cbranch_scc0", s_cbranch_scc0);
  add("s_cbranch_scc1", s_cbranch_scc1);
  add("s_cbranch_vccz", s_cbranch_vccz);
  add("s_cbranch_vccnz", s_cbranch_vccnz);
  add("s_cbranch_execz", s_cbranch_execz);
  add("s_cbranch_execnz", s_cbranch_execnz);
  add("s_waitcnt", s_waitcnt);
  add("s_barrier", s_barrier);
  add("s_trap", s_trap);
  add("s_setprio", s_setprio);
  add("s_sleep", s_sleep);
  add("s_icache_inv", s_nop);  // no instruction cache is modelled
}

}  // namespace asmevo::emu::sem
