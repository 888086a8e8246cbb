// The pre-decoded, executable form of one instruction (built once per kernel by emu/program.h).
// Operands are parsed once from LLVM's canonical assembly text (program::Instruction::text) into
// Operand records: which register file and index, or the constant's bits already encoded for the
// operand's type, plus input modifiers. Instruction-wide modifiers (clamp, omod, op_sel, DPP, SDWA,
// memory offset and cache bits, ...) land in Mods. See docs/emulator.md, "Operands".
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::program {
struct Instruction;
}

namespace asmevo::emu {

struct Wave;
struct ExecContext;
struct ExecInst;

// The semantic unit of an instruction: executes `inst` on `wave` (one call per wave, not per lane).
using ExecFn = void (*)(ExecContext& ctx, Wave& wave, const ExecInst& inst);

// How a value is typed in an operand slot; decides how constants are encoded, how many registers
// the operand spans, and which input modifiers (abs/neg) apply.
enum class Ty : uint8_t { None, B32, I32, F32, B64, I64, F64, F16, B16, I16, Mask, Any };
inline unsigned ty_dwords(Ty t) { return (t == Ty::B64 || t == Ty::I64 || t == Ty::F64 || t == Ty::Mask) ? 2 : 1; }
inline bool ty_is_float(Ty t) { return t == Ty::F32 || t == Ty::F64 || t == Ty::F16; }

// Scalar register space, indexed like the hardware's SSRC encoding: s0..s101 are 0..101.
enum SpecialSgpr : uint16_t {
  kFlatScratchLo = 102, kFlatScratchHi = 103, kXnackLo = 104, kXnackHi = 105, kVccLo = 106, kVccHi = 107,
  kTtmp0 = 108, kM0 = 124, kNullSgpr = 125, kExecLo = 126, kExecHi = 127, kNumScalarRegs = 128,
};

struct Operand {
  enum Kind : uint8_t {
    None,
    VGPR,   // index into the unified VGPR/AGPR file (AGPR aN is accum_offset + N)
    SGPR,   // index into Wave::s (SpecialSgpr for vcc/exec/m0/ttmp/flat_scratch)
    Const,  // inline constant or literal, `bits` already encoded for the slot's Ty
    SCC,    // src_scc
    VCCZ,   // src_vccz
    EXECZ,  // src_execz
    Off,    // "off" (no SGPR base / no address)
  } kind = None;
  Ty ty = Ty::None;
  uint16_t index = 0;
  uint8_t count = 0;  // 32-bit registers spanned
  bool is_agpr = false;
  bool neg = false, abs = false, sext = false;  // input modifiers (float neg/abs, SDWA sext)
  uint64_t bits = 0;  // Const
};

struct DppMods {
  bool present = false;
  enum Ctrl : uint8_t { QuadPerm, RowShl, RowShr, RowRor, WaveShl, WaveRol, WaveShr, WaveRor, RowMirror,
                        RowHalfMirror, RowBcast15, RowBcast31, RowNewBcast } ctrl = QuadPerm;
  uint8_t quad_perm[4] = {0, 1, 2, 3};
  uint8_t shift = 0;  // row_shl:n etc., row_newbcast:n
  uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false, fi = false;
};

struct SdwaMods {
  bool present = false;
  enum Sel : uint8_t { Byte0, Byte1, Byte2, Byte3, Word0, Word1, Dword };
  Sel dst_sel = Dword, src0_sel = Dword, src1_sel = Dword;
  enum Unused : uint8_t { Pad, Sext, Preserve } dst_unused = Pad;
};

struct Mods {
  bool clamp = false;
  uint8_t omod = 0;  // 0 none, 1 mul:2, 2 mul:4, 3 div:2 (the hardware encoding)
  uint8_t op_sel = 0, op_sel_hi = 0, neg_lo = 0, neg_hi = 0;  // bit i = printed element i (VOP3: the dst bit follows the sources)
  bool op_sel_hi_given = false;
  uint8_t cbsz = 0, abid = 0, blgp = 0;  // MFMA
  uint8_t bitop3 = 0;                    // v_bitop3_b16/b32 truth table (gfx950)
  DppMods dpp;
  SdwaMods sdwa;
  // Memory.
  int64_t offset = 0, offset1 = 0;  // offset:N (DS: offset0/offset1)
  bool glc = false, slc = false, nt = false, sc0 = false, sc1 = false, dlc = false, lds = false, gds = false;
  bool offen = false, idxen = false, addr64 = false, tfe = false, lwe = false, d16 = false;
  std::string other;  // modifiers the parser kept but no framework field holds (e.g. format:...)
};

// Reads/writes of register ranges, for the waitcnt checks. file: 0 = VGPR (unified index), 1 = scalar.
struct RegUse {
  uint8_t file = 0;
  uint16_t first = 0, count = 0;
};

struct ExecInst {
  ExecFn fn = nullptr;
  const struct SemanticEntry* entry = nullptr;
  uint8_t ndst = 0, nsrc = 0;
  std::array<Operand, 2> dst{};
  std::array<Operand, 5> src{};  // 5: the scaled MFMAs (D, A, B, C, scale A, scale B)
  Mods mods;
  uint64_t address = 0;    // device PC of this instruction
  uint32_t size = 0;       // bytes
  int32_t target = -1;     // branch target as an index into the program, -1 if none
  int64_t simm = 0;        // SOPP/SOPK immediate (raw operand 0 from LLVM), s_waitcnt's simm16
  uint8_t category = 0;    // emu::Category (stats)
  uint8_t encoding = 0;    // 0 native, 1 e32, 2 e64, 3 dpp, 4 sdwa
  std::vector<RegUse> uses, defs;
  const program::Instruction* raw = nullptr;  // mnemonic, text, bytes (owned by the Program)
};

}  // namespace asmevo::emu
