// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32: hardware registers (ISA "SOPK", "Hardware
// Registers"). The operand hwreg(ID, OFFSET, SIZE) is SIMM16 = {SIZE-1[15:11], OFFSET[10:6], ID[5:0]};
// getreg: D = HW_REG[ID][OFFSET+SIZE-1:OFFSET]; setreg: that field of HW_REG[ID] = S0 (or the
// 32-bit literal)[SIZE-1:0]. Operands are read from the encoding (simm16 = bits 15:0, SDST = bits
// 22:16, the literal of s_setreg_imm32_b32 in the second dword), not from the printed text.
//
// Registers (IDs per LLVM's AMDGPU Hwreg table):
//   MODE (1), read/write. FP_ROUND[3:0], FP_DENORM[7:4] (f32 [5:4], f16/f64 [7:6]), DX10_CLAMP[8],
//     IEEE[9], LOD_CLAMPED[10], DEBUG[11], EXCP_EN[18:12], FP16_OVFL[23] (also the fp8 conversion
//     saturation bit on gfx942/gfx950; Triton writes hwreg(HW_REG_MODE, 23, 1)), POPS_PACKER[25:24],
//     DISABLE_PERF[26], GPR_IDX_EN[27], VSKIP[28], CSP[31:29]. Every bit is stored and read back.
//     A write that CHANGES a field to a behaviour the emulator does not implement stops the run
//     with an error naming it: a rounding mode other than round-to-nearest-even, f32 denormal modes
//     1/2 (only 0 = flush and 3 = keep are implemented), f16/f64 denormal modes other than 3 (keep),
//     enabling FP exception traps (EXCP_EN), DEBUG, GPR_IDX_EN or VSKIP. Writing back the same value
//     (save/restore) is always accepted. Changing the f32 denormal mode takes effect for the
//     following instructions (Wave::flush_f32).
//   STATUS (2), read-only here: SCC[0], EXECZ[9], VCCZ[10], VALID[16] = 1, other bits 0.
//   TRAPSTS (3), read-only here: 0 (no exception has been raised; traps are not modelled).
//   HW_ID (4), read-only: deterministic values, independent of --threads: WAVE_ID[3:0] = (wave
//     index in the workgroup) / 4, SIMD_ID[5:4] = (wave index) % 4 (waves of a workgroup spread
//     over the CU's 4 SIMDs), PIPE_ID, CU_ID, SH_ID, SE_ID, TG_ID, VM_ID, QUEUE_ID, STATE_ID, ME_ID
//     all 0 (every workgroup is reported on CU 0 of SE 0).
//   GPR_ALLOC (5), read-only: VGPR_SIZE[13:8] = (unified VGPRs allocated / 8) - 1, SGPR_SIZE[27:24]
//     = 6 (112 SGPRs, granule 16), bases 0.
//   XCC_ID (20, gfx942/gfx950 only), read-only: 0.
// Any other register (LDS_ALLOC, IB_STS, SH_MEM_BASES, TBA/TMA, ...) and writes to anything but
// MODE stop the run with "not modelled".
#include <fmt/format.h>

#include "emu/alu.h"
#include "emu/program.h"
#include "program/instruction.h"

namespace asmevo::emu::sem {
namespace {

enum HwId : unsigned { kMode = 1, kStatus = 2, kTrapsts = 3, kHwId = 4, kGprAlloc = 5, kXccId = 20 };

struct Field {
  unsigned id, offset, size;
  uint32_t mask() const { return (size >= 32 ? ~0u : ((1u << size) - 1)) << offset; }
};

Field decode(uint32_t simm16) { return {simm16 & 63, (simm16 >> 6) & 31, ((simm16 >> 11) & 31) + 1}; }

uint32_t word(const ExecInst& in, unsigned i) {
  const auto& b = in.raw->bytes;
  uint32_t v = 0;
  for (unsigned k = 0; k < 4 && 4 * i + k < b.size(); ++k) v |= static_cast<uint32_t>(b[4 * i + k]) << (8 * k);
  return v;
}

const char* name(unsigned id) {
  switch (id) {
    case 1: return "HW_REG_MODE";
    case 2: return "HW_REG_STATUS";
    case 3: return "HW_REG_TRAPSTS";
    case 4: return "HW_REG_HW_ID";
    case 5: return "HW_REG_GPR_ALLOC";
    case 6: return "HW_REG_LDS_ALLOC";
    case 7: return "HW_REG_IB_STS";
    case 15: return "HW_REG_SH_MEM_BASES";
    case 20: return "HW_REG_XCC_ID";
    default: return "hardware register";
  }
}

uint32_t read_hwreg(ExecContext& ctx, Wave& w, const ExecInst& in, unsigned id) {
  switch (id) {
    case kMode: return w.mode.bits;
    case kStatus:
      return (w.scc ? 1u : 0u) | (w.exec() == 0 ? 1u << 9 : 0u) | (w.vcc() == 0 ? 1u << 10 : 0u) | (1u << 16);
    case kTrapsts: return 0;
    case kHwId: return ((w.id_in_group / 4) & 15) | ((w.id_in_group % 4) << 4);
    case kGprAlloc: return (((w.num_vregs + 7) / 8 - 1) & 63) << 8 | (6u << 24);
    case kXccId:
      if (ctx.program && ctx.program->arch() != codeobj::Arch::gfx90a) return 0;
      break;
    default: break;
  }
  fail(ctx, w, in, fmt::format("s_getreg of {} (id {}) is not modelled by the emulator", name(id), id));
}

// Refuses a MODE write that changes a field to something the emulator does not implement.
void write_mode(ExecContext& ctx, Wave& w, const ExecInst& in, uint32_t nv) {
  const uint32_t ov = w.mode.bits;
  auto field = [](uint32_t v, unsigned lo, unsigned n) { return (v >> lo) & ((1u << n) - 1); };
  auto changed = [&](unsigned lo, unsigned n) { return field(ov, lo, n) != field(nv, lo, n); };
  auto refuse = [&](const std::string& what) {
    fail(ctx, w, in, "s_setreg sets " + what + ", which the emulator does not implement", -1, 0,
         "only round-to-nearest-even, f32 denormals flushed or kept, f16/f64 denormals kept, and no FP traps are modelled");
  };
  if (changed(0, 2) && field(nv, 0, 2) != 0) refuse(fmt::format("MODE.FP_ROUND f32 = {} (not round-to-nearest-even)", field(nv, 0, 2)));
  if (changed(2, 2) && field(nv, 2, 2) != 0) refuse(fmt::format("MODE.FP_ROUND f16/f64 = {} (not round-to-nearest-even)", field(nv, 2, 2)));
  if (changed(4, 2) && (field(nv, 4, 2) == 1 || field(nv, 4, 2) == 2))
    refuse(fmt::format("MODE.FP_DENORM f32 = {} (flush only inputs or only outputs)", field(nv, 4, 2)));
  if (changed(6, 2) && field(nv, 6, 2) != 3) refuse(fmt::format("MODE.FP_DENORM f16/f64 = {} (flushing f16/f64 denormals)", field(nv, 6, 2)));
  if (changed(12, 7) && field(nv, 12, 7) != 0) refuse(fmt::format("MODE.EXCP_EN = 0x{:x} (FP exception traps)", field(nv, 12, 7)));
  if (changed(11, 1) && field(nv, 11, 1)) refuse("MODE.DEBUG");
  if (changed(27, 1) && field(nv, 27, 1)) refuse("MODE.GPR_IDX_EN");
  if (changed(28, 1) && field(nv, 28, 1)) refuse("MODE.VSKIP");
  w.mode.bits = nv;
  w.flush_f32 = w.mode.denorm32() == 0;
}

void write_field(ExecContext& ctx, Wave& w, const ExecInst& in, uint32_t simm16, uint32_t value) {
  Field f = decode(simm16);
  if (f.id != kMode)
    fail(ctx, w, in, fmt::format("s_setreg of {} (id {}) is not modelled by the emulator (only HW_REG_MODE is writable)", name(f.id), f.id));
  uint32_t m = f.mask();
  write_mode(ctx, w, in, (w.mode.bits & ~m) | ((value << f.offset) & m));
}

// s_getreg_b32 sdst, hwreg(...)
void s_getreg_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint32_t w0 = word(in, 0);
  Field f = decode(w0 & 0xffff);
  uint32_t v = (read_hwreg(ctx, w, in, f.id) & f.mask()) >> f.offset;
  unsigned sdst = (w0 >> 16) & 0x7f;
  if (sdst < kNumScalarRegs && sdst != kNullSgpr) w.s[sdst] = v;
}
// s_setreg_b32 hwreg(...), ssrc  (the SGPR is in the SDST field)
void s_setreg_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint32_t w0 = word(in, 0);
  unsigned sreg = (w0 >> 16) & 0x7f;
  write_field(ctx, w, in, w0 & 0xffff, sreg < kNumScalarRegs ? w.s[sreg] : 0);
}
// s_setreg_imm32_b32 hwreg(...), imm32
void s_setreg_imm32_b32(ExecContext& ctx, Wave& w, const ExecInst& in) { write_field(ctx, w, in, word(in, 0) & 0xffff, word(in, 1)); }

}  // namespace

void register_hwreg(Registry& r) {
  custom(r, "s_getreg_b32", s_getreg_b32, Category::Scalar, {}, {}, kRawOperands);
  custom(r, "s_setreg_b32", s_setreg_b32, Category::Scalar, {}, {}, kRawOperands);
  custom(r, "s_setreg_imm32_b32", s_setreg_imm32_b32, Category::Scalar, {}, {}, kRawOperands);
}

}  // namespace asmevo::emu::sem
