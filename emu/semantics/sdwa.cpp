// SDWA (sub-dword addressing) for VOP1/VOP2/VOPC `_sdwa` instructions, as the framework hooks
// `Hooks::sdwa_src` / `Hooks::sdwa_dst` (emu/alu.h applies them around the ordinary VALU units).
//
// gfx9 rules (Vega/CDNA ISA "SDWA"; LLVM AMDGPUModifierSyntax "src0_sel", "dst_sel", "dst_unused", "sext"):
//   * src0_sel/src1_sel BYTE_0..3 / WORD_0..1 take bits [8k+7:8k] / [16k+15:16k] of the source and
//     zero-extend them to 32 bits, or sign-extend with sext(x) (integer operands); DWORD uses the
//     whole register. Selection happens before float abs/neg. gfx9 SDWA sources may be SGPRs or
//     constants; they are selected the same way. A 16-bit op reads bits [15:0] of the selection.
//   * dst_sel places the result's low 8/16 bits in the selected byte/word (DWORD: the whole result).
//     dst_unused: UNUSED_PAD zeroes the other bits, UNUSED_SEXT sign-extends the field into the bits
//     above it (bits below are zero), UNUSED_PRESERVE keeps the other bits of the old destination.
//     A 16-bit result is zero-extended first (so dst_sel:DWORD with a 16-bit op zeroes bits 31:16).
//   * SDWA VOPC (v_cmp_*_sdwa) writes a lane mask to VCC or an SGPR pair: no dst_sel (the framework's
//     compare path).
#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

struct Field {
  unsigned shift, width;
};
inline Field field(SdwaMods::Sel s) {
  switch (s) {
    case SdwaMods::Byte0: return {0, 8};
    case SdwaMods::Byte1: return {8, 8};
    case SdwaMods::Byte2: return {16, 8};
    case SdwaMods::Byte3: return {24, 8};
    case SdwaMods::Word0: return {0, 16};
    case SdwaMods::Word1: return {16, 16};
    case SdwaMods::Dword: break;
  }
  return {0, 32};
}

void sdwa_src(const ExecInst& in, unsigned idx, uint32_t* lanes) {
  const SdwaMods::Sel sel = idx == 0 ? in.mods.sdwa.src0_sel : idx == 1 ? in.mods.sdwa.src1_sel : SdwaMods::Dword;
  if (sel == SdwaMods::Dword) return;
  const Field f = field(sel);
  const bool sext = idx < in.nsrc && in.src[idx].sext;
  const unsigned up = 32 - f.width;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    uint32_t v = lanes[l] >> f.shift << up;  // field in the top bits
    lanes[l] = sext ? static_cast<uint32_t>(static_cast<int32_t>(v) >> up) : v >> up;
  }
}

void sdwa_dst(const ExecInst& in, const uint32_t* old, uint32_t* result) {
  const SdwaMods& s = in.mods.sdwa;
  if (s.dst_sel == SdwaMods::Dword) return;
  const Field f = field(s.dst_sel);
  const uint32_t fmask = ((1u << f.width) - 1) << f.shift;
  const unsigned top = f.shift + f.width;  // first bit above the field
  const uint32_t above = top >= 32 ? 0u : ~0u << top;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    uint32_t placed = (result[l] << f.shift) & fmask;
    switch (s.dst_unused) {
      case SdwaMods::Pad: result[l] = placed; break;
      case SdwaMods::Sext: result[l] = placed | ((result[l] >> (f.width - 1) & 1) ? above : 0u); break;
      case SdwaMods::Preserve: result[l] = (old[l] & ~fmask) | placed; break;
    }
  }
}

}  // namespace

void register_sdwa(Registry& r) {
  r.hooks().sdwa_src = &sdwa_src;
  r.hooks().sdwa_dst = &sdwa_dst;
}

}  // namespace asmevo::emu::sem
