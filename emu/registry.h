// The semantic table: mnemonic stem ("v_add_f32", "s_load_dword") -> semantic unit + operand
// signature. Built once per process from every file in emu/semantics/ (each defines
// `void register_<file stem>(Registry&)`; CMake generates the list, see emu/CMakeLists.txt), then
// read-only. Pre-decoding (emu/program.h) looks up each instruction's stem here once per kernel.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "emu/inst.h"

namespace asmevo::emu {

// What an executed instruction counts as in the run summary.
enum class Category : uint8_t { Scalar, Vector, Memory, MFMA, Control };

enum EntryFlags : uint32_t {
  kFlagNone = 0,
  kDstIsSrc0 = 1u << 0,      // text's first operand is both the destination and source 0 (s_addk_i32)
  kVariadic = 1u << 1,       // don't check the operand count (memory, SOPP): semantic reads what it needs
  kIntClampOk = 1u << 2,     // the unit implements integer clamp (saturation) itself
  kGlobalAtomic = 1u << 3,   // read-modify-write of global memory (executor orders workgroups)
  kAllowDpp = 1u << 4,       // the unit accepts DPP/SDWA forms (VALU units: the framework applies them)
  kDstIsAccum = 1u << 6,     // the destination is also the last source (v_fmac/v_mac: D = S0 * S1 + D)
  kWritesExec = 1u << 7,     // VOPC v_cmpx_*: the compare result is written to EXEC as well
  kRawOperands = 1u << 5,    // don't parse the text operands at all (SOPP: the unit reads ExecInst::simm)
  // 16-bit result that keeps the other half of the destination VGPR (gfx9 VOP3 op_sel-capable ops such as
  // v_mad_u16/v_fma_f16, and v_mac_f16/v_madak_f16/v_madmk_f16); without it a 16-bit result written to the
  // low half zeroes bits 31:16 (the gfx9 rule for VOP1/VOP2/VOPC-era 16-bit ops); see emu/semantics/vop16.cpp.
  kKeepHigh16 = 1u << 12,
  // Set by valu<> for units whose result is an integer: the framework's output modifiers only know
  // float clamp, so `clamp` (integer saturation) on such a unit is refused at pre-decode unless the
  // unit also says kIntClampOk.
  kIntResult = 1u << 13,
  // VOP3/DPP/SDWA abs/neg on the unit's B32 sources are sign-bit operations on the raw bits, not float
  // ones (v_cndmask_b32: a move; emu/generic.h sign_bit_mods). Without it they are refused on integer slots.
  kSignBitSourceMods = 1u << 14,
  // Set by valu<>/salu<> (emu/alu.h): the unit is a pure function of its operands (VALU: per lane, with
  // the framework's modifiers; SALU: of its operands, SCC and EXEC). The prover may model such a unit
  // it has no generic definition of as an uninterpreted function (prove/, docs/prove.md).
  kFrameworkAlu = 1u << 20,
};

struct SemanticEntry {
  std::string stem;
  ExecFn fn = nullptr;
  uint8_t ndst = 0, nsrc = 0;
  std::array<Ty, 2> dst{};
  std::array<Ty, 5> src{};
  Category cat = Category::Scalar;
  uint8_t counters = 0;  // CounterBits (waitcnt.h) of memory instructions; 0 for ALU
  uint32_t flags = 0;
};

// Framework hooks that later families provide (null until a family file sets them). Pre-decoding
// refuses an instruction that needs a hook nobody provided, naming it.
struct Hooks {
  // DPP source read: fills out[count*64] (register-major) with src0's lanes after the DPP lane
  // movement, and returns the lanes that may be written (row_mask/bank_mask, bound_ctrl rules).
  // `out` may be null: then only the write mask is computed (emu/semantics/dpp.cpp).
  uint64_t (*dpp_read)(const struct Wave&, const ExecInst&, const Operand&, uint32_t* out) = nullptr;
  // SDWA: select/extend a source's lanes in place (src0_sel/src1_sel, sext); merge a result into the
  // destination (dst_sel, dst_unused) — emu/semantics/sdwa.cpp. VALU sources 0 and 1 only, VGPR or
  // scalar (gfx9 SDWA accepts SGPRs and constants); a 16-bit result is passed zero-extended.
  void (*sdwa_src)(const ExecInst&, unsigned src_index, uint32_t* lanes) = nullptr;
  void (*sdwa_dst)(const ExecInst&, const uint32_t* old, uint32_t* result) = nullptr;
};

class Registry {
 public:
  static const Registry& get();  // builds the table on first use (thread-safe)

  void add(SemanticEntry e);
  const SemanticEntry* find(std::string_view stem) const;
  const std::map<std::string, SemanticEntry, std::less<>>& entries() const { return table_; }
  Hooks& hooks() { return hooks_; }
  const Hooks& hooks() const { return hooks_; }

 private:
  std::map<std::string, SemanticEntry, std::less<>> table_;
  Hooks hooks_;
};

// "v_add_f32_e32" -> "v_add_f32" (drops _e32/_e64/_dpp/_sdwa); `encoding` gets 0/1/2/3/4.
std::string_view mnemonic_stem(std::string_view mnemonic, uint8_t* encoding = nullptr);

}  // namespace asmevo::emu
