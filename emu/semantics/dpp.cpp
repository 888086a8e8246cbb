// DPP (data-parallel primitives): the lane movement of a VOP1/VOP2 `_dpp` instruction's src0, the
// row/bank write masks and the bound_ctrl rule, as the framework hook `Hooks::dpp_read` (the VALU
// units themselves are the ordinary ones; emu/alu.h applies this hook to src0 and the write mask).
//
// gfx9 rules (Vega/CDNA ISA "DPP"; LLVM AMDGPUModifierSyntax "dpp_ctrl", "bound_ctrl", "fi"):
//   * The wave is 4 rows of 16 lanes; a row is 4 banks of 4 lanes (bank = lane[3:2]).
//   * Source lane of lane i (r = i % 16, row base R = i - r):
//       quad_perm:[a,b,c,d]  (i & ~3) | perm[i & 3]
//       row_shl:n            i + n       (invalid when r + n > 15)   — reads higher lanes
//       row_shr:n            i - n       (invalid when r < n)        — reads lower lanes
//       row_ror:n            R + ((r - n) mod 16)
//       wave_shl:1 / wave_rol:1   i + 1 (invalid / wraps at lane 63)
//       wave_shr:1 / wave_ror:1   i - 1 (invalid / wraps at lane 0)
//       row_mirror           R + 15 - r;   row_half_mirror   (i & ~7) + 7 - (i & 7)
//       row_bcast:15         lane 15 of the previous row (row 0: invalid)
//       row_bcast:31         lane 31 for rows 2 and 3 (rows 0, 1: invalid)
//       row_newbcast:n       R + n (gfx90a+; the only control 64-bit "DP ALU" DPP accepts)
//   * A source lane is *invalid* when it is out of range or inactive (EXEC bit 0; gfx9 has no `fi`,
//     LLVM refuses fi on gfx9 — if present, fi:1 fetches inactive lanes as on gfx10).
//   * bound_ctrl (the encoding bit; LLVM 22 prints it `bound_ctrl:1`, older LLVM and sp3 `bound_ctrl:0`,
//     both mean the bit is set on gfx9): invalid sources read as 0 and the lane is written. Without it,
//     a lane whose source is invalid is not written (keeps its old destination value).
//   * Lanes whose row_mask bit (lane / 16) or bank_mask bit (lane[3:2]) is 0 are not written.
// The ALU lambda still runs for every lane (emu/alu.h): only the write is masked.
#include "emu/semantics/lane_maps.h"

#include "emu/alu.h"

namespace asmevo::emu::sem {

int dpp_source_lane(const DppMods& d, unsigned lane) {
  const unsigned r = lane & 15, base = lane & ~15u;
  switch (d.ctrl) {
    case DppMods::QuadPerm: return static_cast<int>((lane & ~3u) | (d.quad_perm[lane & 3] & 3u));
    case DppMods::RowShl: return r + d.shift <= 15 ? static_cast<int>(lane + d.shift) : -1;
    case DppMods::RowShr: return r >= d.shift ? static_cast<int>(lane - d.shift) : -1;
    case DppMods::RowRor: return static_cast<int>(base | ((r - d.shift) & 15u));
    case DppMods::WaveShl: return lane + 1 < kWaveSize ? static_cast<int>(lane + 1) : -1;
    case DppMods::WaveRol: return static_cast<int>((lane + 1) % kWaveSize);
    case DppMods::WaveShr: return lane >= 1 ? static_cast<int>(lane - 1) : -1;
    case DppMods::WaveRor: return static_cast<int>((lane + kWaveSize - 1) % kWaveSize);
    case DppMods::RowMirror: return static_cast<int>(base | (15 - r));
    case DppMods::RowHalfMirror: return static_cast<int>((lane & ~7u) | (7 - (lane & 7)));
    case DppMods::RowBcast15: return base >= 16 ? static_cast<int>(base - 1) : -1;
    case DppMods::RowBcast31: return lane >= 32 ? 31 : -1;
    case DppMods::RowNewBcast: return static_cast<int>(base | (d.shift & 15u));
  }
  return -1;
}

namespace {

uint64_t dpp_read(const Wave& w, const ExecInst& in, const Operand& o, uint32_t* out) {
  const DppMods& d = in.mods.dpp;
  const uint64_t exec = w.exec();
  const unsigned regs = o.count ? o.count : 1;
  uint64_t write = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const bool enabled = (d.row_mask >> (l / 16) & 1) && (d.bank_mask >> ((l >> 2) & 3) & 1);
    const int s = dpp_source_lane(d, l);
    const bool valid = s >= 0 && (d.fi || (exec >> s & 1));
    if (enabled && (valid || d.bound_ctrl)) write |= 1ull << l;
    if (out)
      for (unsigned k = 0; k < regs; ++k) out[k * kWaveSize + l] = valid ? w.v[o.index + k].lane[s] : 0u;
  }
  return write;
}

}  // namespace

void register_dpp(Registry& r) { r.hooks().dpp_read = &dpp_read; }

}  // namespace asmevo::emu::sem
