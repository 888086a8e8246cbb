// The instruction model every later stage (inspect, rebuild, emulator, timing, static checks) reads:
// one decoded AMDGPU machine instruction with its exact bytes, LLVM's printed form, its operands,
// the registers it reads and writes (explicit and implicit) and a coarse class.
//
// Instructions are produced by program::Decoder (decoder.h); this header has no LLVM dependency.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace asmevo::program {

// What kind of work an instruction is: the hardware unit or counter it occupies, not its encoding.
// Decided from the printed mnemonic by one prefix table (classify(), instruction.cpp).
enum class InstClass : uint8_t {
  SALU,        // scalar ALU: s_add_u32, s_and_saveexec_b64, s_getpc_b64, s_setreg_b32, ...
  VALU,        // vector ALU, any encoding (e32/e64/dpp/sdwa): v_add_f32, v_cmp_*, v_accvgpr_*, v_readlane
  VOP3P,       // packed and mixed-precision vector math: v_pk_*, v_dot*, v_fma_mix*, v_mad_mix*
  MFMA,        // matrix cores: v_mfma_*, v_smfmac_* (sources/result may be AGPRs or VGPRs)
  SMEM,        // scalar memory (lgkmcnt): s_load_*, s_buffer_load_*, s_store_*, s_atomic_*, s_dcache_*,
               // s_memtime, s_memrealtime
  VMEMLoad,    // buffer loads (vmcnt): buffer_load_*, tbuffer_load_*
  VMEMStore,   // buffer stores: buffer_store_*, tbuffer_store_*
  VMEMAtomic,  // buffer atomics, with or without return: buffer_atomic_*
  VMEMCache,   // vector-memory cache control, moves no data but is counted like VMEM:
               // buffer_wbl2, buffer_inv, buffer_wbinvl1*
  FLAT,        // flat_* (address may be global, LDS or scratch; counts in vmcnt and lgkmcnt)
  GLOBAL,      // global_* (load/store/atomic: see may_load/may_store)
  SCRATCH,     // scratch_* (private memory)
  DS,          // LDS/GDS: ds_read*, ds_write*, ds atomics, ds_swizzle, ds_permute
  Branch,      // changes or ends the wave's control flow: s_branch, s_cbranch_*, s_setpc_b64,
               // s_swappc_b64, s_call_b64, s_endpgm*, s_rfe_b64
  Waitcnt,     // s_waitcnt* (waits on memory counters)
  Barrier,     // s_barrier (workgroup barrier)
  Message,     // s_sendmsg*, s_trap (messages to the hardware / host)
  Nop,         // s_nop
  Other,       // wave-control handled by the sequencer, not an ALU (s_sleep, s_setprio, s_sethalt,
               // s_icache_inv, s_ttracedata, ...) and anything not matched above
};
inline constexpr int kNumInstClasses = static_cast<int>(InstClass::Other) + 1;

// "SALU", "VMEMLoad", ...: stable names, used in JSON and summaries.
const char* class_name(InstClass c);
std::optional<InstClass> class_from_name(std::string_view name);
// The class of an instruction with this printed mnemonic ("v_add_f32_e32" -> VALU).
InstClass classify(std::string_view mnemonic);
// Vector-memory classes: everything counted by vmcnt (FLAT also by lgkmcnt).
bool is_vmem(InstClass c);

// Register files. Every file is indexed in 32-bit units, so ranges in one file overlap iff their
// index intervals intersect. The 64-bit special registers are two units: unit 0 is the low half.
enum class RegFile : uint8_t {
  SGPR,         // s0..s105
  VGPR,         // v0..v511 (gfx90a+: 512 in the unified file)
  AGPR,         // a0..a255 (accumulation registers, MFMA)
  VCC,          // vcc = {VCC,0,2}, vcc_lo = {VCC,0,1}, vcc_hi = {VCC,1,1}
  EXEC,         // exec = {EXEC,0,2}, exec_lo, exec_hi likewise
  SCC,          // scc = {SCC,0,1}
  M0,           // m0 = {M0,0,1}
  FlatScratch,  // flat_scratch = {FlatScratch,0,2}, flat_scratch_lo/_hi
  XnackMask,    // xnack_mask = {XnackMask,0,2}, xnack_mask_lo/_hi
  TTMP,         // trap temporaries ttmp0..ttmp15
  Mode,         // the MODE register (FP rounding/denormals): read by FP VALU ops, written by s_setreg
  Other,        // anything else (src_shared_base, lds_direct, tba, ...): `first` is LLVM's register
                // number (unique per register within one LLVM build), count 1
};
const char* regfile_name(RegFile f);

// A contiguous range of 32-bit registers in one file: s[4:7] = {SGPR,4,4}, v3 = {VGPR,3,1}.
// A 16-bit half of a register (true16 names, unused on gfx9) is modelled as the whole register.
// Reading src_vccz / src_execz / src_scc is modelled as reading vcc / exec / scc, which they
// summarise, so that dependencies stay correct.
struct RegRange {
  RegFile file = RegFile::Other;
  unsigned first = 0;
  unsigned count = 0;  // 0 only for an absent optional register operand
  bool operator==(const RegRange&) const = default;
  bool contains(RegFile f, unsigned index) const { return file == f && index >= first && index - first < count; }
};
bool overlaps(const RegRange& a, const RegRange& b);
// Assembly spelling: "s4", "v[0:3]", "a[0:15]", "ttmp[4:5]", "vcc", "exec_lo", "scc", "m0",
// "flat_scratch", "mode"; Other as "other#<llvm-reg-number>".
std::string to_string(const RegRange& r);
// Inverse of to_string (also accepts "s[4]" and is case-insensitive); nullopt if not a register.
std::optional<RegRange> parse_reg(std::string_view text);

// One operand of the MCInst, in LLVM's operand order: the explicit defs come first, then the
// sources, then modifier immediates (src modifiers, offsets, cache policy, DPP/SDWA controls).
// The order and the modifier operands are LLVM's (they differ per encoding); use `text` and
// Instruction::text for what the assembler spells.
struct Operand {
  enum Kind : uint8_t { Reg, Imm, FPImm, Expr } kind = Imm;
  RegRange reg{};        // Reg only
  int64_t imm = 0;       // Imm: the raw value. AMDGPU FP inline constants and literals are bit
                         // patterns here (1.0f = 0x3f800000, 1.0 in an f64 operand = 0x3ff0...).
  double fpimm = 0;      // FPImm only (LLVM 22's AMDGPU disassembler does not produce these)
  std::string text;      // Reg: to_string(reg), or LLVM's lower-case name for RegFile::Other;
                         // Expr: the printed expression; empty for Imm/FPImm.
  bool is_def = false;   // one of the MCInstrDesc's explicit defs
  int tied_to = -1;      // index of the def operand this source is tied to (reads the old value)
};

struct Instruction {
  uint64_t address = 0;
  uint32_t size = 0;
  std::vector<uint8_t> bytes;  // exact encoding, `size` bytes
  unsigned opcode = 0;         // LLVM MC opcode number (stable within one LLVM build only)
  std::string mnemonic;        // first word of `text`: "v_add_f32_e32", "s_load_dword"
  std::string text;            // LLVM AMDGPU InstPrinter output without the leading tab
  std::vector<Operand> operands;
  // Registers written / read: explicit operands first, then MCInstrDesc's implicit ones (exec,
  // vcc, scc, m0, mode, flat_scratch). No range appears twice in one list. A destination that
  // is only partly written is also a use: sources tied to a def (DPP `old`, v_mac/v_dot2c src2,
  // atomics with return), d16 loads (keep the other half) and SDWA with
  // dst_unused:UNUSED_PRESERVE.
  std::vector<RegRange> defs, uses;
  InstClass cls = InstClass::Other;
  // From MCInstrDesc. A conditional branch is `is_branch && !no_fallthrough`.
  bool is_branch = false;       // s_branch, s_cbranch_*, s_setpc_b64
  bool is_terminator = false;   // ends a basic block (branches, s_endpgm)
  bool is_call = false;         // s_swappc_b64, s_call_b64
  bool is_return = false;       // s_endpgm (LLVM marks s_setpc_b64 as a branch, not a return)
  bool no_fallthrough = false;  // MCInstrDesc::isBarrier: never continues to the next instruction
  bool may_load = false;        // reads memory (atomics: both may_load and may_store)
  bool may_store = false;
  // (MCInstrDesc::hasUnmodeledSideEffects is not copied: AMDGPU's real-encoding opcodes set it
  // inconsistently, e.g. on v_add_f32_e32 but not v_add_f32_sdwa.)
  // Absolute target of a direct PC-relative branch or call (s_branch, s_cbranch_*, s_call_b64):
  // address + size + 4 * simm16.
  std::optional<int64_t> branch_target;

  bool reads(const RegRange& r) const;   // some use overlaps r
  bool writes(const RegRange& r) const;  // some def overlaps r
  // {"address","size","encoding":"C00200C0 00000024","opcode","mnemonic","text","class",
  //  "operands":[...],"defs":["s3"],"uses":["s[0:1]"],"flags":["load",...],"branch_target"}
  nlohmann::json to_json() const;
};

// nlohmann::json ADL hooks (so `json j = inst;` works); same layout as Instruction::to_json().
void to_json(nlohmann::json& j, const RegRange& r);
void to_json(nlohmann::json& j, const Operand& op);
void to_json(nlohmann::json& j, const Instruction& inst);

}  // namespace asmevo::program
