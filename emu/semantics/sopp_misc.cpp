// SOPP instructions whose effect lies outside the wave (debugger, host, performance counters, thread trace),
// added for issue 15's ISA coverage. Each is either exactly what the ISA defines for a compute dispatch
// with no debugger, trace or host handler attached, or a loud stop where the ISA gives it an effect the
// emulator does not model. Sources: AMD Vega / CDNA ISA SOPP descriptions (as restated in CLRX's
// doc/GcnInstrsSopp.md) and LLVM's SIDefines.h message ids (SendMsg::ID_*, gfx9: SIMM16[3:0]).
//
//   s_cbranch_cdbg{sys,user,sys_or_user,sys_and_user}: branch on STATUS.COND_DBG_SYS (bit 21) /
//       COND_DBG_USER (bit 20), bits only a debugger sets: read from the wave's STATUS (0 at dispatch).
//   s_incperflevel / s_decperflevel N: count in performance counter N - not program state: no effect.
//   s_ttracedata: sends M0 to the thread-trace stream - no trace runs here, and M0 is not changed.
//   s_wakeup: wakes waves of the workgroup sleeping in s_sleep - s_sleep never sleeps here (sopp.cpp).
//   s_sethalt 0 / s_setkill 0: clear HALT / KILL of a running wave - no effect; 1 halts the wave until the
//       host resumes it / kills it (a debugger's path): stops the run.
//   s_sendmsg: MSG_INTERRUPT (raise a host interrupt carrying M0[7:0]; the wave continues unchanged) is a
//       message on lgkmcnt with no effect on the dispatch; every other message (GS, halt, save-wave,
//       stall wave generation, doorbell, system) stops the run naming it.
// Not here (unsupported, docs/emulator.md): s_sendmsghalt (halts), s_endpgm_saved (context-save trap
// handler), s_endpgm_ordered_ps_done (pixel shaders), s_rfe_* (trap return). The branch-stack forks/join:
// fork_join.cpp.
#include <fmt/format.h>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

constexpr uint32_t kCondDbgUser = 1u << 20, kCondDbgSys = 1u << 21;  // STATUS bits (gfx9 STATUS register)

template <bool (*Taken)(uint32_t status)> void cbranch_dbg(ExecContext&, Wave& w, const ExecInst& in) {
  if (Taken(w.status)) w.pc = static_cast<uint32_t>(in.target);
}
bool dbg_sys(uint32_t s) { return s & kCondDbgSys; }
bool dbg_user(uint32_t s) { return s & kCondDbgUser; }
bool dbg_or(uint32_t s) { return s & (kCondDbgSys | kCondDbgUser); }
bool dbg_and(uint32_t s) { return (s & (kCondDbgSys | kCondDbgUser)) == (kCondDbgSys | kCondDbgUser); }

void no_effect(ExecContext&, Wave&, const ExecInst&) {}

template <bool Halt> void set_halt_or_kill(ExecContext& ctx, Wave& w, const ExecInst& in) {
  if (in.simm & 1)
    fail(ctx, w, in,
         Halt ? "s_sethalt 1 halts the wave until the host or a debugger resumes it; the emulator has neither"
              : "s_setkill 1 kills the wave (the host's kill-wave path); the emulator does not model it",
         -1, 0, "remove the instruction, or run the kernel on hardware", kExitBadInput);
}

void s_sendmsg(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const unsigned id = static_cast<unsigned>(in.simm) & 0xf;
  if (id != 1) {  // SendMsg::ID_INTERRUPT
    static constexpr const char* kNames[16] = {"0", "MSG_INTERRUPT", "MSG_GS", "MSG_GS_DONE", "MSG_SAVEWAVE",
                                               "MSG_STALL_WAVE_GEN", "MSG_HALT_WAVES", "MSG_ORDERED_PS_DONE",
                                               "MSG_EARLY_PRIM_DEALLOC", "MSG_GS_ALLOC_REQ", "MSG_GET_DOORBELL",
                                               "MSG_GET_DDID", "12", "13", "14", "MSG_SYSMSG"};
    fail(ctx, w, in,
         fmt::format("s_sendmsg {} acts on the dispatch, the host or graphics state, which the emulator does not model "
                     "(only MSG_INTERRUPT is implemented)", kNames[id]),
         -1, 0, "remove the message, or run the kernel on hardware", kExitBadInput);
  }
  PendingOp op;  // messages count on lgkmcnt
  op.counters = kLgkm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

}  // namespace

void register_sopp_misc(Registry& r) {
  auto add = [&](const char* stem, ExecFn fn, uint8_t counters = 0) {
    custom(r, stem, fn, Category::Control, {}, {}, kRawOperands, counters);
  };
  add("s_cbranch_cdbgsys", cbranch_dbg<dbg_sys>);
  add("s_cbranch_cdbguser", cbranch_dbg<dbg_user>);
  add("s_cbranch_cdbgsys_or_user", cbranch_dbg<dbg_or>);
  add("s_cbranch_cdbgsys_and_user", cbranch_dbg<dbg_and>);
  add("s_incperflevel", no_effect);
  add("s_decperflevel", no_effect);
  add("s_ttracedata", no_effect);
  add("s_wakeup", no_effect);
  add("s_sethalt", set_halt_or_kill<true>);
  add("s_setkill", set_halt_or_kill<false>);
  add("s_sendmsg", s_sendmsg, kLgkm);
}

}  // namespace asmevo::emu::sem
