// The hazard rule table: one row per "manually inserted wait states" rule for gfx90a, gfx942 and
// gfx950, each with the producer/consumer predicates, the wait states it needs per processor and
// its source. Sources:
//   [HR]   LLVM llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp (PreEmitNoopsCommon and the
//          check*/fix* functions named per row; read at ROCm/llvm-project 03a2313, which carries
//          the gfx950 numbers), LLVM's implementation of the "Manually Inserted Wait States
//          (NOPs)" tables of the AMD Instinct MI200 (CDNA2, gfx90a) and MI300 (CDNA3, gfx940
//          family) ISA reference guides; gfx950 (CDNA4) numbers are its hasGFX950Insts() variants.
//   [ST]   GCNSubtarget.h predicates that select rows per processor (has12DWordStoreHazard,
//          hasVMEMReadSGPRVALUDefHazard (VI+), hasReadM0*Hazard (GFX9), hasTransForwardingHazard,
//          hasDstSelForwardingHazard, hasVDecCoExecHazard (gfx940+), hasCvtScaleForwardingHazard
//          (gfx950), hasShift64HighRegBug (gfx90a only), getSetRegWaitStates (2 on VI+),
//          hasRFEHazards (VI+), isXNACKEnabled (xnack on or any)).
//   [SCH]  SISchedule.td MFMA pass counts (check/isa.cpp), the "P" below.
#include <algorithm>
#include <fmt/format.h>

#include "check/hazards.h"
#include "check/isa.h"

namespace asmevo::check {

using program::Instruction;
using program::RegFile;
using program::RegRange;

namespace {

const RegRange kExec{RegFile::EXEC, 0, 2};
const RegRange kVcc{RegFile::VCC, 0, 2};
const RegRange kM0{RegFile::M0, 0, 1};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view base(std::string_view m) {
  for (std::string_view suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
    if (m.size() > suffix.size() && m.substr(m.size() - suffix.size()) == suffix) return m.substr(0, m.size() - suffix.size());
  return m;
}

bool gfx950(const HazardContext& ctx) { return ctx.arch == codeobj::Arch::gfx950; }
bool gfx940_plus(const HazardContext& ctx) { return ctx.arch != codeobj::Arch::gfx90a; }

bool def_overlaps(const Instruction& p, const RegRange& r) {
  auto d = first_def(p);
  return d && program::overlaps(*d, r);
}

bool any_overlap(const std::vector<RegRange>& a, const RegRange& r) {
  for (const auto& x : a)
    if (program::overlaps(x, r)) return true;
  return false;
}

void add(std::vector<Probe>& out, const char* rule, RegRange reg, int window,
         std::function<int(const Instruction&, uint8_t&)> match) {
  out.push_back(Probe{rule, reg, window, std::move(match)});
}

// ---- VALU/SALU/VMEM rows --------------------------------------------------------------------

// checkVMEMHazards: VALU writes an SGPR (any scalar register) -> VMEM reads it: 5.
void p_valu_sgpr_vmem(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_vmem(c)) return;
  for (const RegRange& r : c.uses) {
    if (!is_scalar_file(r.file)) continue;
    add(out, "valu-sgpr-vmem", r, 5, [r](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(r) ? 5 : -1; });
  }
}

// checkDivFMasHazards: VALU writes VCC -> v_div_fmas_f32/f64: 4.
void p_div_fmas(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  auto b = base(c.mnemonic);
  if (b != "v_div_fmas_f32" && b != "v_div_fmas_f64") return;
  add(out, "valu-vcc-div-fmas", kVcc, 4, [](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(kVcc) ? 4 : -1; });
}

bool is_setreg(const Instruction& p) { return starts_with(p.mnemonic, "s_setreg_"); }

// checkGetRegHazards: s_setreg -> s_getreg of the same hardware register: 2.
void p_getreg(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!starts_with(c.mnemonic, "s_getreg_")) return;
  auto id = hwreg_id(c);
  if (!id) return;
  add(out, "setreg-getreg", {}, 2, [id](const Instruction& p, uint8_t&) { return is_setreg(p) && hwreg_id(p) == id ? 2 : -1; });
}

// checkSetRegHazards: s_setreg -> s_setreg of the same hardware register: 2 (getSetRegWaitStates, VI+).
void p_setreg(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_setreg(c)) return;
  auto id = hwreg_id(c);
  if (!id) return;
  add(out, "setreg-setreg", {}, 2, [id](const Instruction& p, uint8_t&) { return is_setreg(p) && hwreg_id(p) == id ? 2 : -1; });
}

// checkRFEHazards: s_setreg of TRAPSTS (hwreg id 3) -> s_rfe_b64: 1.
void p_rfe(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (c.mnemonic != "s_rfe_b64") return;
  add(out, "setreg-trapsts-rfe", {}, 1, [](const Instruction& p, uint8_t&) { return is_setreg(p) && hwreg_id(p) == 3u ? 1 : -1; });
}

// checkReadM0Hazards (GFX9: hasReadM0MovRelInterpHazard, hasReadM0SendMsgHazard,
// hasReadM0LdsDmaHazard, hasReadM0LdsDirectHazard): SALU writes M0 -> s_movrel*, v_interp*,
// ds_{read,write}_addtid_b32, s_sendmsg*, s_ttracedata, GDS, LDS DMA, lds_direct readers: 1.
bool reads_m0_hazard_consumer(const Instruction& c) {
  std::string_view m = c.mnemonic;
  if (starts_with(m, "v_interp_") || starts_with(m, "s_movrels_") || starts_with(m, "s_movreld_") ||
      m == "ds_read_addtid_b32" || m == "ds_write_addtid_b32")
    return true;
  if (m == "s_sendmsg" || m == "s_sendmsghalt" || m == "s_ttracedata") return true;
  if (is_gds(c) && m != "ds_nop" && m != "ds_permute_b32" && m != "ds_bpermute_b32") return true;
  if (is_lds_dma(c)) return true;
  for (const auto& op : c.operands)
    if (op.kind == program::Operand::Reg && (op.text == "lds_direct" || op.text == "src_lds_direct")) return true;
  return false;
}
void p_m0(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!reads_m0_hazard_consumer(c)) return;
  add(out, "salu-m0-read", kM0, 1, [](const Instruction& p, uint8_t&) { return is_salu(p) && p.writes(kM0) ? 1 : -1; });
}

// checkRWLaneHazards: VALU writes an SGPR -> v_readlane/v_writelane lane select: 4.
void p_rwlane(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  auto sel = lane_select(c);
  if (!sel) return;
  RegRange r = *sel;
  add(out, "valu-sgpr-lane-select", r, 4, [r](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(r) ? 4 : -1; });
}

// checkDPPHazards: any instruction writes a VGPR -> DPP reads it: 2.
void p_dpp_vgpr(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_dpp(c)) return;
  for (const RegRange& r : c.uses) {
    if (r.file != RegFile::VGPR) continue;
    add(out, "dpp-vgpr", r, 2, [r](const Instruction& p, uint8_t&) { return p.writes(r) ? 2 : -1; });
  }
}

// checkDPPHazards: VALU writes EXEC -> DPP: 5.
void p_dpp_exec(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_dpp(c)) return;
  add(out, "dpp-exec", kExec, 5, [](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(kExec) ? 5 : -1; });
}

// createsVALUHazard: a store whose data (vdata) is wider than 64 bits: MUBUF/MTBUF without an
// SGPR soffset, or FLAT/GLOBAL/SCRATCH.
std::optional<RegRange> wide_store_data(const Instruction& p) {
  if (!p.may_store) return std::nullopt;
  auto vdata = store_data(p);
  if (!vdata || vdata->count <= 2) return std::nullopt;
  std::string_view m = p.mnemonic;
  if (starts_with(m, "buffer_") || starts_with(m, "tbuffer_"))
    return buffer_soffset_is_register(p) ? std::nullopt : vdata;
  return vdata;
}

// checkVALUHazards / checkVALUHazardsHelper (has12DWordStoreHazard): a VMEM store of more than
// 8 bytes -> VALU overwriting its data registers: 1 (gfx90a), 2 (gfx940+).
void p_store_data(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!is_valu(c)) return;
  int need = gfx940_plus(ctx) ? 2 : 1;
  for (const RegRange& r : c.defs) {
    if (!is_vector_file(r.file)) continue;
    add(out, "vmem-store-data-12dw", r, need, [r, need](const Instruction& p, uint8_t&) {
      auto vdata = wide_store_data(p);
      return vdata && program::overlaps(*vdata, r) ? need : -1;
    });
  }
}

// checkVALUHazards (hasTransForwardingHazard, gfx940+): TRANS writes a VGPR -> a non-TRANS VALU
// reads it explicitly: 1.
void p_trans(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!gfx940_plus(ctx) || !is_valu(c) || is_trans(c)) return;
  auto uses = explicit_uses(c);
  if (uses.empty()) return;
  add(out, "trans-forwarding", {}, 1, [uses](const Instruction& p, uint8_t&) {
    if (!is_trans(p)) return -1;
    auto d = first_def(p);
    return d && any_overlap(uses, *d) ? 1 : -1;
  });
}

// checkVALUHazards (hasDstSelForwardingHazard gfx940+, hasCvtScaleForwardingHazard gfx950):
// a VALU writing its destination through a byte/word select (SDWA dst_sel, op_sel on the
// destination, fp8/fp4 conversions) -> any VALU touching that register: 1.
void p_dst_sel(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!gfx940_plus(ctx) || !is_valu(c)) return;
  std::vector<RegRange> regs = c.uses;
  regs.insert(regs.end(), c.defs.begin(), c.defs.end());
  codeobj::Arch arch = ctx.arch;
  add(out, "dst-sel-forwarding", {}, 1, [regs, arch](const Instruction& p, uint8_t&) {
    auto d = dst_sel_forwarded(p, arch);
    return d && any_overlap(regs, *d) ? 1 : -1;
  });
}

// checkVALUHazards (hasVDecCoExecHazard, gfx940+): VALU writes an SGPR or VCC -> VALU reads it
// (explicit SGPR operands, and VCC however read): 2.
void p_valu_sgpr_valu(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!gfx940_plus(ctx) || !is_valu(c)) return;
  for (const RegRange& r : explicit_uses(c)) {
    if (!is_scalar_file(r.file)) continue;
    add(out, "valu-sgpr-valu", r, 2, [r](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(r) ? 2 : -1; });
  }
  if (c.reads(kVcc))
    add(out, "valu-sgpr-valu", kVcc, 2, [](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(kVcc) ? 2 : -1; });
}

// checkVALUHazards (hasVDecCoExecHazard, gfx940+): VALU writes a VGPR -> v_readlane /
// v_readfirstlane reads it as src0: 1.
void p_valu_vgpr_readlane(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!gfx940_plus(ctx)) return;
  auto src = readlane_source(c);
  if (!src) return;
  RegRange r = *src;
  add(out, "valu-vgpr-readlane", r, 1, [r](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(r) ? 1 : -1; });
}

// checkVALUHazards (hasVDecCoExecHazard, gfx940+): VALU writes EXEC -> v_readlane,
// v_readfirstlane, v_writelane: 4.
void p_valu_exec_rwlane(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!gfx940_plus(ctx)) return;
  auto b = base(c.mnemonic);
  if (b != "v_readlane_b32" && b != "v_readfirstlane_b32" && b != "v_writelane_b32") return;
  add(out, "valu-exec-rwlane", kExec, 4, [](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(kExec) ? 4 : -1; });
}

// ---- MFMA rows (gfx90a+) ---------------------------------------------------------------------

bool is_legacy_valu(const Instruction& p) { return is_valu(p) && !is_mfma(p); }

std::string_view mfma_name(const Instruction& p) { return opcode_name(p.opcode); }
bool is_dgemm_16x16(const Instruction& p) { return starts_with(mfma_name(p), "V_MFMA_F64_16X16X4F64"); }
bool is_dgemm_4x4(const Instruction& p) { return starts_with(mfma_name(p), "V_MFMA_F64_4X4X4F64"); }

// checkMAIHazards90A: a VALU (not MFMA) writes EXEC -> MFMA: 4.
void p_valu_exec_mfma(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_mfma(c)) return;
  add(out, "valu-exec-mfma", kExec, 4, [](const Instruction& p, uint8_t&) { return is_legacy_valu(p) && p.writes(kExec) ? 4 : -1; });
}

// checkMAIHazards90A: a VALU (not MFMA, not DOT) writes a register -> MFMA reads it: 2.
void p_valu_vgpr_mfma(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!is_mfma(c)) return;
  for (const RegRange& r : explicit_uses(c))
    add(out, "valu-vgpr-mfma", r, 2, [r](const Instruction& p, uint8_t&) {
      return is_legacy_valu(p) && !is_dot(p) && p.writes(r) ? 2 : -1;
    });
}

// Explicit uses of an MFMA with whether each is SrcC.
std::vector<std::pair<RegRange, bool>> mfma_uses(const Instruction& c) {
  auto ops = mfma_operands(c);
  std::vector<std::pair<RegRange, bool>> out;
  bool c_seen = false;
  for (const RegRange& r : explicit_uses(c)) {
    bool is_c = !c_seen && ops.c.count && r == ops.c;
    // SrcA/B may equal SrcC's range only by coincidence; the first match is taken as SrcC only
    // when it is in SrcC's operand position (A and B come first).
    if (is_c && (r == ops.a || r == ops.b) && out.size() < 2) is_c = false;
    c_seen |= is_c;
    out.emplace_back(r, is_c);
  }
  return out;
}

// checkMAIHazards90A: MFMA P writes a register -> MFMA C reads it.
int mfma_to_mfma(const HazardContext& ctx, const Instruction& p, const Instruction& c, const RegRange& r, bool src_c) {
  auto ip = mfma_info(p, ctx.arch), ic = mfma_info(c, ctx.arch);
  if (!ip || !ic) return 0;
  const int P = ip->passes;
  const bool g950 = gfx950(ctx);
  if (src_c) {
    if (!ic->dgemm && !gfx940_plus(ctx) && ip->dgemm) return 0;
    auto pd = first_def(p);
    bool full = pd && *pd == r;
    if (full) {
      if (is_dgemm_4x4(c) && is_dgemm_4x4(p)) return 4;  // DMFMA4x4WritesVGPRFullSrcCWaitStates
      if (gfx940_plus(ctx) && P == 2) return 2;           // GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates
      return 0;
    }
    if (is_dgemm_16x16(p)) return !ic->xdl ? (g950 ? 17 : 9) : 0;
    if (is_dgemm_4x4(p)) return !ic->xdl ? 4 : 0;
    if (gfx940_plus(ctx)) {
      if (ic->xdl && !ip->xdl) return 0;
      if (ip->xdl) return ic->xdl ? P + 1 + (g950 ? 1 : 0) : P + 1 + ((P != 2 && g950) ? 1 : 0);
      return P;  // GFX940_SMFMA_N_PassWritesVGPROverlappedSMFMASrcCWaitStates
    }
    switch (P) {  // gfx90a SMFMA{4x4,16x16,32x32}WritesVGPROverlapped{S,D}MFMASrcCWaitStates
      case 2: return ic->dgemm ? 3 : 2;
      case 8: return ic->dgemm ? 9 : 8;
      default: return ic->dgemm ? 17 : 16;
    }
  }
  if (is_dgemm_16x16(p)) return g950 ? 19 : 11;
  if (is_dgemm_4x4(p)) return 6;
  if (gfx940_plus(ctx)) return ip->xdl ? P + 3 + ((P != 2 && g950) ? 1 : 0) : P + 2;
  switch (P) {
    case 2: return 5;
    case 8: return 11;
    default: return 19;
  }
}

void p_mfma_mfma(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out, bool want_src_c) {
  if (!is_mfma(c)) return;
  for (const auto& [r, src_c] : mfma_uses(c)) {
    if (src_c != want_src_c) continue;
    RegRange reg = r;
    bool sc = src_c;
    HazardContext cx = ctx;
    const Instruction* cp = &c;
    add(out, sc ? "mfma-srcc" : "mfma-srcab", reg, 21, [cx, cp, reg, sc](const Instruction& p, uint8_t&) {
      if (!is_mfma(p) || !def_overlaps(p, reg)) return -1;
      return mfma_to_mfma(cx, p, *cp, reg, sc);
    });
  }
}
void p_mfma_srcc(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) { p_mfma_mfma(ctx, c, out, true); }
void p_mfma_srcab(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) { p_mfma_mfma(ctx, c, out, false); }

// checkMAIVALUHazards applies to VALU (not MFMA), VMEM, DS and export consumers.
bool mai_valu_consumer(const Instruction& c) {
  return (is_valu(c) && !is_mfma(c)) || is_vmem(c) || is_ds(c) || is_export(c);
}
bool is_mem_or_export(const Instruction& c) { return is_vmem(c) || is_ds(c) || is_export(c); }

// checkMAIVALUHazards: DOT writes a register -> a different VALU (or memory) reads it: 3; the same
// DOT opcode reading it as SrcA/B: 3; as SrcC: 0.
void p_dot_read(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!mai_valu_consumer(c)) return;
  auto uses = explicit_uses(c);
  std::string cb(base(c.mnemonic));
  for (size_t k = 0; k < uses.size(); ++k) {
    RegRange r = uses[k];
    bool src_c = k == 2;
    add(out, "dot-read", r, 3, [r, cb, src_c](const Instruction& p, uint8_t&) {
      if (!is_dot(p) || !def_overlaps(p, r)) return -1;
      if (base(p.mnemonic) == cb) return src_c ? 0 : 3;
      return 3;
    });
  }
}

// checkMAIVALUHazards (gfx90a only): VALU writes a VGPR, a DGEMM issues, then VMEM/DS reads the
// VGPR: 2 (hardware bug: the SQ omits its own two wait states).
void p_valu_dgemm_vmem(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (ctx.arch != codeobj::Arch::gfx90a || !(is_vmem(c) || is_ds(c))) return;
  codeobj::Arch arch = ctx.arch;
  for (const RegRange& r : explicit_uses(c)) {
    if (!is_vector_file(r.file)) continue;
    add(out, "valu-dgemm-vmem", r, 2, [r, arch](const Instruction& p, uint8_t& seen_dgemm) {
      auto mi = mfma_info(p, arch);
      if (mi && mi->dgemm) seen_dgemm = 1;
      return is_valu(p) && seen_dgemm && p.writes(r) ? 2 : -1;
    });
  }
}

int mfma_result_read(const HazardContext& ctx, const Instruction& p, bool mem_or_export) {
  auto ip = mfma_info(p, ctx.arch);
  if (!ip) return 0;
  const int P = ip->passes;
  if (ip->dgemm) {
    if (P == 4) return mem_or_export ? 9 : 6;
    return mem_or_export ? 18 : (gfx950(ctx) ? 19 : 11);
  }
  if (gfx940_plus(ctx)) return ip->xdl ? P + 3 + ((P != 2 && gfx950(ctx)) ? 1 : 0) : P + 2;
  switch (P) {
    case 2: return 5;
    case 8: return 11;
    default: return 19;
  }
}

// checkMAIVALUHazards: MFMA writes a register -> VALU, VMEM, DS or export reads it.
void p_mfma_read(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!mai_valu_consumer(c)) return;
  bool mem = is_mem_or_export(c);
  HazardContext cx = ctx;
  for (const RegRange& r : explicit_uses(c))
    add(out, "mfma-read", r, 21, [cx, r, mem](const Instruction& p, uint8_t&) {
      if (!is_mfma(p) || !def_overlaps(p, r)) return -1;
      return mfma_result_read(cx, p, mem);
    });
}

// checkMAIVALUHazards: DGEMM -> v_fma_f64 / v_fmac_f64: 2 (any registers).
void p_dgemm_fma64(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  auto b = base(c.mnemonic);
  if (b != "v_fma_f64" && b != "v_fmac_f64") return;
  codeobj::Arch arch = ctx.arch;
  add(out, "dgemm-fma64", {}, 2, [arch](const Instruction& p, uint8_t&) {
    auto mi = mfma_info(p, arch);
    return mi && mi->dgemm ? 2 : -1;
  });
}

// checkMAIVALUHazards: DOT writes a register -> a VALU/memory instruction of another opcode writes it: 3.
void p_dot_waw(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  if (!mai_valu_consumer(c)) return;
  std::string cb(base(c.mnemonic));
  for (const RegRange& r : c.defs)
    add(out, "dot-waw", r, 3, [r, cb](const Instruction& p, uint8_t&) {
      if (!is_dot(p) || !def_overlaps(p, r)) return -1;
      return base(p.mnemonic) == cb ? 0 : 3;
    });
}

// checkMAIVALUHazards: MFMA writes a register -> a VALU/memory instruction writes it (WAW).
void p_mfma_waw(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!mai_valu_consumer(c)) return;
  HazardContext cx = ctx;
  for (const RegRange& r : c.defs)
    add(out, "mfma-waw", r, 21, [cx, r](const Instruction& p, uint8_t&) {
      if (!is_mfma(p) || !def_overlaps(p, r)) return -1;
      auto ip = mfma_info(p, cx.arch);
      const int P = ip->passes;
      if (ip->dgemm) return P == 4 ? 6 : 11;
      if (gfx940_plus(cx)) return ip->xdl ? P + 3 + ((P != 2 && gfx950(cx)) ? 1 : 0) : P + 2;
      switch (P) {
        case 2: return 5;
        case 8: return 11;
        default: return 19;
      }
    });
}

// checkMAIVALUHazards: an MFMA (non-DGEMM; XDL on gfx940+) reads a register as SrcC -> a
// VALU/memory instruction overwrites it (WAR): 1/3/7/15 for 2/4/8/16 passes.
void p_mfma_srcc_war(const HazardContext& ctx, const Instruction& c, std::vector<Probe>& out) {
  if (!mai_valu_consumer(c)) return;
  HazardContext cx = ctx;
  for (const RegRange& r : c.defs)
    add(out, "mfma-srcc-war", r, 15, [cx, r](const Instruction& p, uint8_t&) {
      auto ip = mfma_info(p, cx.arch);
      if (!ip || ip->dgemm || (gfx940_plus(cx) && !ip->xdl)) return -1;
      auto ops = mfma_operands(p);
      if (!ops.c.count || !program::overlaps(ops.c, r)) return -1;
      switch (ip->passes) {
        case 2: return 1;
        case 4: return 3;
        case 8: return 7;
        default: return 15;
      }
    });
}

// checkPermlaneHazards (gfx950): VALU writes a VGPR -> v_permlane{16,32}_swap reads it: 2.
void p_permlane_vgpr(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  auto b = base(c.mnemonic);
  if (b != "v_permlane16_swap_b32" && b != "v_permlane32_swap_b32") return;
  for (const RegRange& r : explicit_uses(c)) {
    if (r.file != RegFile::VGPR) continue;
    add(out, "permlane-valu-vgpr", r, 2, [r](const Instruction& p, uint8_t&) { return is_valu(p) && p.writes(r) ? 2 : -1; });
  }
}

// checkPermlaneHazards (gfx950): v_cmpx writes EXEC -> v_permlane{16,32}_swap: 4.
void p_permlane_vcmpx(const HazardContext&, const Instruction& c, std::vector<Probe>& out) {
  auto b = base(c.mnemonic);
  if (b != "v_permlane16_swap_b32" && b != "v_permlane32_swap_b32") return;
  add(out, "permlane-vcmpx-exec", kExec, 4, [](const Instruction& p, uint8_t&) {
    bool vcmpx = is_vcmpx(p) || (starts_with(p.mnemonic, "v_cmp") && p.writes(kExec));
    return vcmpx ? 4 : -1;
  });
}

// ---- Local rules --------------------------------------------------------------------------------

Violation local_violation(const Function& f, size_t index, const char* rule, const std::string& message) {
  const Instruction& c = f.insts[index];
  Violation v;
  v.check = "hazard";
  v.rule = rule;
  v.function = f.name;
  v.pc = c.address;
  v.text = c.text;
  v.message = message;
  return v;
}

// checkSoftClauseHazards (isXNACKEnabled): a soft clause (consecutive SMEM, or consecutive VMEM,
// instructions) may be replayed, so no instruction in it may write a register another one (or
// itself) reads, and a store may not join a clause that writes registers: break it with 1 wait
// state (any other instruction, e.g. s_nop 0).
void l_soft_clause(const HazardContext& ctx, const Function& f, size_t index, std::vector<Violation>& out) {
  if (!ctx.xnack) return;
  const Instruction& c = f.insts[index];
  bool smem = is_smem(c);
  if (!smem && !is_vmem(c)) return;
  auto same_kind = [&](const Instruction& x) { return smem ? is_smem(x) : is_vmem(x); };
  std::vector<RegRange> defs, uses;
  size_t first = index;
  while (first > 0 && same_kind(f.insts[first - 1])) {
    --first;
    const auto& x = f.insts[first];
    defs.insert(defs.end(), x.defs.begin(), x.defs.end());
    uses.insert(uses.end(), x.uses.begin(), x.uses.end());
  }
  if (defs.empty()) return;
  auto report = [&](const std::string& why) {
    Violation v = local_violation(f, index, "xnack-soft-clause", why);
    v.needed = 1;
    v.found = 0;
    v.producer_pc = f.insts[first].address;
    v.producer_text = f.insts[first].text;
    out.push_back(std::move(v));
  };
  if (c.may_store) {
    report(fmt::format("a store joins the {} soft clause starting at 0x{:x} whose instructions write registers; "
                       "with XNACK the clause may be replayed: needs 1 wait state before it",
                       smem ? "SMEM" : "VMEM", f.insts[first].address));
    return;
  }
  defs.insert(defs.end(), c.defs.begin(), c.defs.end());
  uses.insert(uses.end(), c.uses.begin(), c.uses.end());
  for (const auto& d : defs)
    for (const auto& u : uses)
      if (program::overlaps(d, u)) {
        report(fmt::format("the {} soft clause starting at 0x{:x} writes {} which it also reads; with XNACK the "
                           "clause may be replayed: needs 1 wait state before this instruction",
                           smem ? "SMEM" : "VMEM", f.insts[first].address, program::to_string(d)));
        return;
      }
}

// fixShift64HighRegBug (gfx90a): a 64-bit shift whose shift amount is the last VGPR of its
// 8-register allocation block with the next VGPR not allocated reads a wrong amount; LLVM
// swaps registers around it. Not fixable by wait states.
void l_shift64(const HazardContext& ctx, const Function& f, size_t index, std::vector<Violation>& out) {
  const Instruction& c = f.insts[index];
  auto b = base(c.mnemonic);
  if (b != "v_lshlrev_b64" && b != "v_lshrrev_b64" && b != "v_ashrrev_i64") return;
  auto uses = explicit_uses(c);
  if (uses.empty() || uses[0].file != RegFile::VGPR) return;
  unsigned idx = uses[0].first;
  if ((idx & 7) != 7) return;
  bool last = idx == 255 || (ctx.arch_vgprs && idx + 1 >= ctx.arch_vgprs);
  if (!last) return;
  out.push_back(local_violation(
      f, index, "shift64-high-reg",
      fmt::format("the shift amount v{} is the last VGPR of an allocation block and v{} is not allocated (gfx90a "
                  "hardware bug): use another register for the amount",
                  idx, idx + 1)));
}

// clang-format off
const HazardRule kRules[] = {
  {"xnack-soft-clause", "SMEM or VMEM soft clause (consecutive instructions of the kind) that writes a register it also reads, or that a store joins",
   kAllGfx9, "1 (break the clause)", "[HR] checkSoftClauseHazards; [ST] isXNACKEnabled", nullptr, l_soft_clause},
  {"valu-sgpr-vmem", "VALU writes an SGPR/VCC/EXEC/M0 -> VMEM (buffer/global/scratch/flat) reads it",
   kAllGfx9, "5", "[HR] checkVMEMHazards (VmemSgprWaitStates)", p_valu_sgpr_vmem, nullptr},
  {"valu-vcc-div-fmas", "VALU writes VCC -> v_div_fmas_f32/f64",
   kAllGfx9, "4", "[HR] checkDivFMasHazards", p_div_fmas, nullptr},
  {"setreg-getreg", "s_setreg -> s_getreg of the same hardware register",
   kAllGfx9, "2", "[HR] checkGetRegHazards", p_getreg, nullptr},
  {"setreg-setreg", "s_setreg -> s_setreg of the same hardware register",
   kAllGfx9, "2", "[HR] checkSetRegHazards; [ST] getSetRegWaitStates", p_setreg, nullptr},
  {"setreg-trapsts-rfe", "s_setreg of TRAPSTS -> s_rfe_b64",
   kAllGfx9, "1", "[HR] checkRFEHazards; [ST] hasRFEHazards", p_rfe, nullptr},
  {"salu-m0-read", "SALU writes M0 -> s_movrel*, v_interp*, ds_{read,write}_addtid, s_sendmsg*, s_ttracedata, GDS, LDS DMA, lds_direct",
   kAllGfx9, "1", "[HR] checkReadM0Hazards; [ST] hasReadM0MovRelInterpHazard/SendMsg/LdsDma/LdsDirect (GFX9)", p_m0, nullptr},
  {"valu-sgpr-lane-select", "VALU writes an SGPR -> v_readlane/v_writelane uses it as lane select",
   kAllGfx9, "4", "[HR] checkRWLaneHazards", p_rwlane, nullptr},
  {"dpp-vgpr", "any instruction writes a VGPR -> DPP reads it",
   kAllGfx9, "2", "[HR] checkDPPHazards (DppVgprWaitStates)", p_dpp_vgpr, nullptr},
  {"dpp-exec", "VALU writes EXEC -> DPP",
   kAllGfx9, "5", "[HR] checkDPPHazards (DppExecWaitStates)", p_dpp_exec, nullptr},
  {"vmem-store-data-12dw", "VMEM store with more than 8 bytes of data (MUBUF/MTBUF without SGPR soffset, FLAT/GLOBAL/SCRATCH) -> VALU overwrites the data registers",
   kAllGfx9, "gfx90a 1, gfx942/gfx950 2", "[HR] checkVALUHazardsHelper, createsVALUHazard; [ST] has12DWordStoreHazard", p_store_data, nullptr},
  {"trans-forwarding", "TRANS (v_exp/log/rcp/rsq/sqrt/sin/cos) writes a VGPR -> non-TRANS VALU reads it",
   kGfx940Plus, "1", "[HR] checkVALUHazards; [ST] hasTransForwardingHazard", p_trans, nullptr},
  {"dst-sel-forwarding", "VALU writes through a destination select (SDWA dst_sel, op_sel dst bit incl. VOP3P op_sel_hi[0], fp8/fp4 conversions) -> VALU reads or writes that register",
   kGfx940Plus, "1", "[HR] checkVALUHazards, getDstSelForwardingOperand; [ST] hasDstSelForwardingHazard, hasCvtScaleForwardingHazard", p_dst_sel, nullptr},
  {"valu-sgpr-valu", "VALU writes an SGPR or VCC -> VALU reads it",
   kGfx940Plus, "2", "[HR] checkVALUHazards (VALUWriteSGPRVALUReadWaitstates); [ST] hasVDecCoExecHazard", p_valu_sgpr_valu, nullptr},
  {"valu-vgpr-readlane", "VALU writes a VGPR -> v_readlane/v_readfirstlane reads it",
   kGfx940Plus, "1", "[HR] checkVALUHazards (VALUWriteVGPRReadlaneRead); [ST] hasVDecCoExecHazard", p_valu_vgpr_readlane, nullptr},
  {"valu-exec-rwlane", "VALU writes EXEC -> v_readlane/v_readfirstlane/v_writelane",
   kGfx940Plus, "4", "[HR] checkVALUHazards (VALUWriteEXECRWLane); [ST] hasVDecCoExecHazard", p_valu_exec_rwlane, nullptr},
  {"valu-exec-mfma", "VALU (not MFMA) writes EXEC -> MFMA",
   kAllGfx9, "4", "[HR] checkMAIHazards90A (VALUWritesExecWaitStates)", p_valu_exec_mfma, nullptr},
  {"valu-vgpr-mfma", "VALU (not MFMA, not DOT) writes a register -> MFMA reads it",
   kAllGfx9, "2", "[HR] checkMAIHazards90A (LegacyVALUNotDotWritesVGPRWaitStates)", p_valu_vgpr_mfma, nullptr},
  {"mfma-srcc", "MFMA writes a register -> MFMA reads it as SrcC (same register: 0, except gfx940+ 2-pass 2 and DGEMM 4x4 4; overlapping: by passes P)",
   kAllGfx9, "gfx90a: 2/8/16 (SGEMM->DGEMM 3/9/17), DGEMM16 9, DGEMM4 4; gfx942: XDL P+1, non-XDL P, DGEMM16 9; gfx950: XDL->XDL P+2, XDL->SGEMM/DGEMM P+1 (+1 if P>2), DGEMM16 17",
   "[HR] checkMAIHazards90A, GFX940_XDL_N_PassWritesVGPROverlapped*SrcCWaitStates; [SCH]", p_mfma_srcc, nullptr},
  {"mfma-srcab", "MFMA writes a register -> MFMA reads it as SrcA/SrcB (or SMFMAC index)",
   kAllGfx9, "gfx90a 5/11/19, DGEMM16 11, DGEMM4 6; gfx942 XDL P+3, non-XDL P+2; gfx950 XDL P+3 (+1 if P>2), DGEMM16 19",
   "[HR] checkMAIHazards90A, GFX940_*_N_PassWritesVGPROverlappedSrcABWaitStates; [SCH]", p_mfma_srcab, nullptr},
  {"dot-read", "DOT writes a register -> VALU/VMEM/DS reads it (same DOT opcode as SrcC: 0)",
   kAllGfx9, "3", "[HR] checkMAIVALUHazards (DotWriteSameDotReadSrcAB, DotWriteDifferentVALURead)", p_dot_read, nullptr},
  {"dot-waw", "DOT writes a register -> an instruction of another opcode writes it",
   kAllGfx9, "3", "[HR] checkMAIVALUHazards (DotWriteDifferentVALUWrite)", p_dot_waw, nullptr},
  {"valu-dgemm-vmem", "VALU writes a VGPR, then a DGEMM, then VMEM/DS reads the VGPR",
   kGfx90a, "2", "[HR] checkMAIVALUHazards (DMFMABetweenVALUWriteVMEMRead, gfx90a only)", p_valu_dgemm_vmem, nullptr},
  {"mfma-read", "MFMA writes a register -> VALU, VMEM, DS or export reads it",
   kAllGfx9, "gfx90a 5/11/19; gfx942 XDL P+3, non-XDL P+2; gfx950 XDL P+3 (+1 if P>2); DGEMM4 6 (memory 9), DGEMM16 11 (gfx950 19; memory 18)",
   "[HR] checkMAIVALUHazards, GFX940_*_N_PassWriteVgprVALUMemExpReadWaitStates; [SCH]", p_mfma_read, nullptr},
  {"mfma-waw", "MFMA writes a register -> VALU or memory instruction writes it",
   kAllGfx9, "gfx90a 5/11/19; gfx942 XDL P+3, non-XDL P+2; gfx950 XDL P+3 (+1 if P>2); DGEMM4 6, DGEMM16 11",
   "[HR] checkMAIVALUHazards, GFX940_*_N_PassWriteVgprVALUWawWaitStates; [SCH]", p_mfma_waw, nullptr},
  {"mfma-srcc-war", "MFMA (not DGEMM; XDL on gfx940+) reads a register as SrcC -> VALU or memory instruction overwrites it",
   kAllGfx9, "1/3/7/15 for 2/4/8/16 passes", "[HR] checkMAIVALUHazards (SMFMA*ReadVgprVALUWarWaitStates)", p_mfma_srcc_war, nullptr},
  {"dgemm-fma64", "DGEMM -> v_fma_f64 / v_fmac_f64",
   kAllGfx9, "2", "[HR] checkMAIVALUHazards (DMFMAToFMA64WaitStates)", p_dgemm_fma64, nullptr},
  {"permlane-valu-vgpr", "VALU writes a VGPR -> v_permlane16_swap/v_permlane32_swap reads it",
   kGfx950, "2", "[HR] checkPermlaneHazards (VALUWritesVDstWaitStates)", p_permlane_vgpr, nullptr},
  {"permlane-vcmpx-exec", "v_cmpx writes EXEC -> v_permlane16_swap/v_permlane32_swap",
   kGfx950, "4", "[HR] checkPermlaneHazards (VCmpXWritesExecWaitStates)", p_permlane_vcmpx, nullptr},
  {"shift64-high-reg", "v_lshlrev_b64/v_lshrrev_b64/v_ashrrev_i64 with the shift amount in the last VGPR of an allocation block",
   kGfx90a, "not fixable by wait states", "[HR] fixShift64HighRegBug; [ST] hasShift64HighRegBug", nullptr, l_shift64},
};
// clang-format on

}  // namespace

std::span<const HazardRule> hazard_rules() { return kRules; }

}  // namespace asmevo::check
