// Instruction facts the static checks need beyond program::Instruction: LLVM's own
// instruction categories (isVALU, isTRANS, isDGEMM, isXDL, ...), MFMA pass counts per
// processor, s_waitcnt decoding with the gfx9 counter widths, wait-state counting, and a few
// operand roles (store data, lane select, MFMA SrcA/B/C) read from LLVM's operand order and
// printed text. Every table cites its source; docs/checks.md collects them.
//
// The facts are keyed by LLVM's MC opcode *name* (MCInstrInfo::getName, e.g.
// "V_MFMA_F32_32X32X8F16_gfx940_acd"): real-encoding names start with the pseudo-instruction
// name that LLVM's scheduling model (SISchedule.td) and MAI table (VOP3PInstructions.td) use,
// so their regular expressions apply unchanged. Instructions must therefore come from
// program::Decoder in this process (the opcode number is only meaningful within one LLVM build).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codeobj/target.h"
#include "program/instruction.h"

namespace asmevo::check {

// LLVM's MC opcode name of a decoded instruction ("S_WAITCNT_gfx6_gfx7", "V_MFMA_..._gfx940_acd").
std::string_view opcode_name(unsigned opcode);

// ---- Counters ------------------------------------------------------------------------------

enum Counter : uint8_t { kVmCnt = 0, kLgkmCnt = 1, kExpCnt = 2 };
inline constexpr int kNumCounters = 3;
const char* counter_name(Counter c);  // "vmcnt", "lgkmcnt", "expcnt"

// Largest encodable wait value per counter on gfx9 (gfx90a, gfx942, gfx950 are all major 9):
// vmcnt 6 bits (simm16[3:0] | simm16[15:14] << 4), expcnt 3 bits ([6:4]), lgkmcnt 4 bits
// ([11:8]). Source: LLVM Utils/AMDGPUBaseInfo.cpp getVmcntBitWidthLo/Hi, getExpcntBitWidth,
// getLgkmcntBitWidth for major version 9; the gfx9 ISA guides' S_WAITCNT description.
struct CounterLimits {
  std::array<unsigned, kNumCounters> max{63, 15, 7};
};
CounterLimits counter_limits(codeobj::Arch arch);

// A decoded s_waitcnt: the largest number of events of each counter allowed to be outstanding
// after it. A field at its maximum is "no wait" (see waitcnt.h for why that is conservative).
struct Wait {
  std::array<unsigned, kNumCounters> count{~0u, ~0u, ~0u};
};
// The wait an instruction performs: s_waitcnt simm16 on gfx9; nullopt for anything else.
std::optional<Wait> decode_waitcnt(const program::Instruction& inst, codeobj::Arch arch);
// simm16 encoding of a wait on gfx9 (fields left at ~0u become their maximum).
uint16_t encode_waitcnt(const Wait& w);
// The wait written as text ("s_waitcnt vmcnt(1) lgkmcnt(0)", or a bare simm16 "s_waitcnt 0x3f70"):
// for edited lines, which carry no decoded instruction. Absent fields do not wait (their maximum).
// nullopt when the text is not an s_waitcnt.
std::optional<Wait> parse_waitcnt_text(std::string_view text, const CounterLimits& limits);
// LLVM's spelling of a wait: only the fields below their maximum (`limits`), in the order vmcnt,
// expcnt, lgkmcnt — "s_waitcnt vmcnt(1) lgkmcnt(0)"; "" when it waits for nothing.
std::string waitcnt_text(const Wait& w, const CounterLimits& limits);

// ---- Wait states -----------------------------------------------------------------------------

// Wait states an instruction provides to the instructions after it: s_nop N gives N+1 with N
// its 4 significant bits (LLVM GCNSubtarget::getSNopBits: 4 on VI..GFX11, so 1..16 wait
// states), every other instruction 1 (LLVM SIInstrInfo::getNumWaitStates).
int wait_states(const program::Instruction& inst);

// ---- Categories (as LLVM's SIInstrInfo predicates) -------------------------------------------

// SIInstrInfo::isVALU: every vector ALU instruction, including VOP3P, MFMA, v_accvgpr_*,
// v_readlane/v_writelane/v_readfirstlane.
bool is_valu(const program::Instruction& i);
bool is_salu(const program::Instruction& i);  // SALU class (not SOPP control, waitcnt, nop, ...)
// Vector memory (SIInstrInfo::isVMEM in LLVM 22, which includes FLAT/GLOBAL/SCRATCH).
bool is_vmem(const program::Instruction& i);
bool is_flat(const program::Instruction& i);  // flat_* (may access LDS: counts in lgkmcnt too)
bool is_ds(const program::Instruction& i);
bool is_smem(const program::Instruction& i);
bool is_gds(const program::Instruction& i);      // ds_* with the gds bit, ds_gws_*, ds_ordered_count
bool is_lds_dma(const program::Instruction& i);  // buffer/global load with `lds`: VMEM writing LDS
// DS instructions that read or write LDS memory at an address (not ds_permute/bpermute/swizzle,
// GDS, GWS, append/consume, ordered_count, addtid).
bool ds_accesses_lds_memory(const program::Instruction& i);
bool is_export(const program::Instruction& i);   // exp (none on gfx940+)
// SIInstrInfo::isTRANS (VOP1Instructions.td `TRANS = 1`): v_exp/log/rcp/rcp_iflag/rsq/sqrt/sin/cos
// _f32, _f16, v_rcp/rsq/sqrt_f64, v_exp/log_legacy_f32.
bool is_trans(const program::Instruction& i);
bool is_dpp(const program::Instruction& i);
bool is_sdwa(const program::Instruction& i);
bool is_dot(const program::Instruction& i);   // SIInstrInfo::isDOT: v_dot*
bool is_mai(const program::Instruction& i);   // SIInstrInfo::isMAI: MFMA, SMFMAC, v_accvgpr_*
bool is_mfma(const program::Instruction& i);  // SIInstrInfo::isMFMA: MAI except v_accvgpr_*
bool is_vcmpx(const program::Instruction& i);  // v_cmpx_* (writes EXEC)

// ---- MFMA -------------------------------------------------------------------------------------

struct MfmaInfo {
  bool dgemm = false;   // V_MFMA_F64_* (MAIInst is_dgemm)
  bool xdl = false;     // GCNHazardRecognizer isXDL: gfx90a every non-DGEMM MFMA; gfx940+ the
                        // MAIInst is_gfx940_xdl set (all but the F32-input SGEMMs and DGEMMs)
  bool smfmac = false;
  int passes = 0;       // scheduling-model latency (SISchedule.td Write*PassMAI / *PassDGEMM)
};
// nullopt for non-MFMA instructions. Pass counts follow SISchedule.td's per-processor models:
// gfx90a SIDPFullSpeedModel, gfx942 SIDPGFX942FullSpeedModel, gfx950 SIDPGFX950FullSpeedModel.
std::optional<MfmaInfo> mfma_info(const program::Instruction& i, codeobj::Arch arch);
// The same from an LLVM opcode name and the printed text (cbsz/blgp select gfx950 f8f6f4 passes).
std::optional<MfmaInfo> mfma_info_by_name(std::string_view opcode_name, std::string_view text,
                                          codeobj::Arch arch);

// Operand roles of an MFMA/SMFMAC: the destination and the A, B and C sources (C is the
// accumulator; for SMFMAC it is the source tied to the destination, and `idx` is the index).
struct MfmaOperands {
  program::RegRange dst, a, b, c, idx;
};
MfmaOperands mfma_operands(const program::Instruction& i);

// ---- Operand helpers ---------------------------------------------------------------------------

// Register operands the instruction reads explicitly (MCInst operands that are not defs),
// in LLVM operand order; index i of the returned vector is the operand's position among them.
std::vector<program::RegRange> explicit_uses(const program::Instruction& i);
// Explicit register defs.
std::vector<program::RegRange> explicit_defs(const program::Instruction& i);
// The first explicit register def (vdst / sdst), if any.
std::optional<program::RegRange> first_def(const program::Instruction& i);

// The data register of a vector-memory store or atomic (vdata), from the printed operand order
// (buffer_*: first; flat/global/scratch without return: second; with return: third).
std::optional<program::RegRange> store_data(const program::Instruction& i);
// MUBUF/MTBUF soffset is a register (not an inline constant).
bool buffer_soffset_is_register(const program::Instruction& i);
// v_readlane/v_writelane lane select (src1) when it is an SGPR (or M0/VCC/EXEC, any scalar).
std::optional<program::RegRange> lane_select(const program::Instruction& i);
// v_readlane/v_readfirstlane src0 (the VGPR read).
std::optional<program::RegRange> readlane_source(const program::Instruction& i);

// Printed modifier lists: "op_sel:[0,1,1]" -> {0,1,1}; empty when absent.
std::vector<int> modifier_list(std::string_view text, std::string_view name);
// "cbsz:2" -> 2; nullopt when absent.
std::optional<int64_t> modifier_value(std::string_view text, std::string_view name);
// s_getreg/s_setreg hardware register id (HwregEncoding id field, simm16[5:0]); nullopt otherwise.
std::optional<unsigned> hwreg_id(const program::Instruction& i);

// A register written through a "forwarded" destination (SDWA dst_sel != DWORD, VOP3 op_sel
// on the destination, fp8/fp4 conversion byte selects): GCNHazardRecognizer
// getDstSelForwardingOperand (gfx940+ hasDstSelForwardingHazard; gfx950 hasCvtScaleForwardingHazard).
std::optional<program::RegRange> dst_sel_forwarded(const program::Instruction& i, codeobj::Arch arch);

bool is_vector_file(program::RegFile f);  // VGPR or AGPR
bool is_scalar_file(program::RegFile f);  // SGPR, VCC, EXEC, M0, FlatScratch, XnackMask, TTMP

}  // namespace asmevo::check
