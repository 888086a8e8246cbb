// Move: register compaction (issue 7). Renames the highest registers a kernel uses into holes
// below them — registers the kernel never names — so that its register allocation (KD
// granulated counts, recomputed by Program::update_resources) drops and more waves fit on a SIMD.
// A whole-kernel move: a window only triggers it.
//
// A register (unit) may be renamed only if it is not live at the kernel's entry (its value then
// comes from inside the kernel) and is not an ABI register: v0 (work-item IDs; packed into v0 on
// gfx90a+, LLVM FeaturePackedTID / AMDGPUUsage "VGPR register set up order") and the user and
// system SGPRs the KD enables (kernarg pointer, preloaded kernargs, workgroup IDs: AMDGPUUsage
// "SGPR register set up order"). Registers named together in a tuple (v[4:7]) move together, by a
// distance that keeps every tuple's alignment: VGPR and AGPR tuples even on gfx90a+ (LLVM
// SIRegisterInfo.td *_Align2 classes, required by the gfx90a+ encodings), SGPR pairs even and
// larger SGPR tuples 4-aligned (SIRegisterInfo.td SGPR_128 and up). Each move takes the highest
// movable group to the lowest hole that fits; the target registers are never named anywhere in
// the kernel, so no interference analysis is needed. Every occurrence is renamed in the
// instruction text (operands only; `v[4:7]` as one token).
//
// VGPRs, AGPRs (the AGPR block starts at accum_offset, recomputed from the VGPR count) and SGPRs
// are compacted. A result is proposed only when the waves per SIMD the registers allow
// (codeobj::compute_occupancy by_vgprs/by_sgprs) rise; the renames are then trimmed to the fewest
// that reach the same occupancy.
//
// Refused (no proposal): kernels that call device functions or jump through s_setpc (the callee's
// register use and ABI are outside the kernel), that index registers through M0 (s_movrel*,
// v_movrel*, s_set_gpr_idx_*), or that hold edited lines (their implicit registers are unknown).
// Registers named by raw-byte instructions, or whose text spelling does not match the decoded
// operands, stay where they are.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "program/instruction.h"
#include "program/program.h"

namespace asmevo::search {

struct RegisterRename {
  program::RegRange from;  // the group of registers moved (e.g. v[200:201])
  unsigned to = 0;         // its new first register
};

struct RegisterCompaction {
  // Renamed, resources updated (the parent when nothing is proposed). Move it rather than copy
  // it: a copy of a Program whose metadata changed length is not faithful (register_compact.cpp).
  program::Program program;
  std::vector<RegisterRename> renames;  // empty: nothing proposed (see `refused`)
  std::vector<size_t> lines;            // parent .text lines rewritten
  // Allocation per the KD (unified VGPR+AGPR per lane, SGPRs per wave) and register-limited
  // waves per SIMD; "before" is the parent with its resources recomputed.
  unsigned vgprs_before = 0, vgprs_after = 0, sgprs_before = 0, sgprs_after = 0;
  unsigned waves_before = 0, waves_after = 0;
  std::string refused;  // why nothing is proposed
};

// Throws asmevo::Error for an unknown kernel or a processor AsmEvo does not model.
RegisterCompaction compact_registers(const program::Program& p, const std::string& kernel);

// Calls `visit(begin, length, range)` for each operand token of `text` (after the mnemonic) that
// names a VGPR, AGPR or SGPR; `v[4:7]` is one token. Shared by the renaming moves.
void for_each_register_token(const std::string& text, const std::function<void(size_t, size_t, const program::RegRange&)>& visit);

// The partial-write rule of the renaming moves' liveness (Program::live_in_partial): true when
// a VGPR write of `line` may leave part of the old value in place beyond what its decoded uses
// already say (the decoder lists a destination it only partly writes as a use too: tied DPP `old`,
// v_writelane's vdst_in, d16 loads, SDWA UNUSED_PRESERVE). Those left are the 16-bit results that
// keep the other half of the register (the emulator's table, emu/registry.h kKeepHigh16, from LLVM's
// zeroesHigh16BitsOfDest: the gfx9 op_sel-capable VOP3 ops and v_mac/madak/madmk_f16), and, assumed
// the worst, instructions the emulator does not know and edited lines (no decoded form).
bool may_write_part(const program::Line& line);

// `text` with every register of `file` inside [from.first, from.first + from.count) shifted to
// start at `to` (operands only; the mnemonic is left alone). Exposed for tests.
std::string rename_registers(const std::string& text, const program::RegRange& from, unsigned to);

}  // namespace asmevo::search
