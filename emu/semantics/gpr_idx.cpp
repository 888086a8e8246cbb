// GPR indexing mode (ISA "VGPR Indexing"; AMDGPU asm syntax "imask": bit 0 src0, 1 src1, 2 src2,
// 3 dst). S_SET_GPR_IDX_ON SSRC, IMASK: MODE.gpr_idx_en = 1, M0[7:0] = SSRC[7:0], M0[15:12] = IMASK.
// S_SET_GPR_IDX_OFF: MODE.gpr_idx_en = 0. S_SET_GPR_IDX_IDX SSRC: M0[7:0] = SSRC[7:0].
// S_SET_GPR_IDX_MODE IMASK: M0[15:12] = IMASK. (MODE bit 27 per CLRX's GcnState and LLVM's
// SIDefines.h; the other M0 bits are kept.) While enabled, each VALU instruction's enabled VGPR
// operands are offset by M0[7:0] at execution (emu/gpr_idx.h). Only VGPR operands move: SGPRs and
// constants are not indexed. Documented choice: an index that leaves the allocation stops the run
// rather than reading v0 as some ISA texts describe (needs hardware confirmation).
#include <fmt/format.h>

#include "emu/alu.h"
#include "emu/gpr_idx.h"
#include "emu/waitcnt.h"
#include "program/instruction.h"

namespace asmevo::emu {

void run_gpr_indexed(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint32_t m0 = w.s[kM0];
  const unsigned idx = m0 & 0xff, mask = m0 >> 12 & 0xf;
  ExecInst x = in;
  auto shift = [&](Operand& o) {
    if (o.kind != Operand::VGPR) return;
    unsigned from = o.index;
    o.index = static_cast<uint16_t>(o.index + idx);
    if (o.index + o.count > w.num_vregs)
      fail(ctx, w, in, fmt::format("GPR indexing: v{} + M0[7:0] = {} lies outside the {} registers the wave has", from, idx,
                                   w.num_vregs));
    for (auto* uses : {&x.uses, &x.defs})
      for (auto& u : *uses)
        if (u.file == 0 && u.first == from) u.first = o.index;
  };
  for (unsigned s = 0; s < 3; ++s)
    if (mask >> s & 1 && s < x.nsrc) shift(x.src[s]);
  if (mask & 8 && x.ndst) shift(x.dst[0]);
  if (w.wc.any()) {
    std::string v = w.wc.violation(x, in.entry->counters);
    if (!v.empty()) fail(ctx, w, in, "waitcnt violation (GPR-indexed operands): " + v);
  }
  in.fn(ctx, w, x);
}

namespace sem {
namespace {

// The value of an SSRC operand as LLVM decoded it (raw operands: these units take no parsed text).
uint32_t ssrc_value(ExecContext& ctx, const Wave& w, const ExecInst& in, size_t i) {
  const auto& ops = in.raw->operands;
  if (i >= ops.size()) fail(ctx, w, in, "missing operand");
  const auto& o = ops[i];
  if (o.kind == program::Operand::Imm) return static_cast<uint32_t>(o.imm);
  if (o.kind == program::Operand::Reg) {
    using program::RegFile;
    switch (o.reg.file) {
      case RegFile::SGPR: return w.s[o.reg.first];
      case RegFile::M0: return w.s[kM0];
      case RegFile::VCC: return w.s[kVccLo + o.reg.first];
      case RegFile::EXEC: return w.s[kExecLo + o.reg.first];
      case RegFile::TTMP: return w.s[kTtmp0 + o.reg.first];
      default: break;
    }
  }
  fail(ctx, w, in, "GPR indexing: operand '" + o.text + "' is not supported by the emulator");
}

uint32_t imask(ExecContext& ctx, const Wave& w, const ExecInst& in, size_t i) { return ssrc_value(ctx, w, in, i) & 0xf; }

void set_gpr_idx_on(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint32_t idx = ssrc_value(ctx, w, in, 0) & 0xff, mask = imask(ctx, w, in, 1);
  w.s[kM0] = (w.s[kM0] & ~0xf0ffu) | idx | mask << 12;
  w.mode.bits |= kModeGprIdxEn;
}
void set_gpr_idx_off(ExecContext&, Wave& w, const ExecInst&) { w.mode.bits &= ~kModeGprIdxEn; }
void set_gpr_idx_idx(ExecContext& ctx, Wave& w, const ExecInst& in) {
  w.s[kM0] = (w.s[kM0] & ~0xffu) | (ssrc_value(ctx, w, in, 0) & 0xff);
}
void set_gpr_idx_mode(ExecContext& ctx, Wave& w, const ExecInst& in) {
  w.s[kM0] = (w.s[kM0] & ~0xf000u) | imask(ctx, w, in, 0) << 12;
}

}  // namespace

void register_gpr_idx(Registry& r) {
  custom(r, "s_set_gpr_idx_on", set_gpr_idx_on, Category::Scalar, {}, {}, kRawOperands);
  custom(r, "s_set_gpr_idx_off", set_gpr_idx_off, Category::Scalar, {}, {}, kRawOperands);
  custom(r, "s_set_gpr_idx_idx", set_gpr_idx_idx, Category::Scalar, {}, {}, kRawOperands);
  custom(r, "s_set_gpr_idx_mode", set_gpr_idx_mode, Category::Scalar, {}, {}, kRawOperands);
}

}  // namespace sem
}  // namespace asmevo::emu
