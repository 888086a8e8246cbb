// Launch facts: what the spec's launches fix about a window's live-in registers (docs/prove.md
// "Launch facts"). A window proof with free live-in values is stronger than needed: it also
// considers a workgroup id past the grid, a work-item id past the block, or a size argument outside
// what the spec ever launches with. Here the admitted launches (every verification run, boundary
// launches included, and every perf launch) give ranges:
//   - workgroup-id SGPRs:       [0, largest grid - 1] per dimension
//   - work-item ids (v0 lanes): x < block x (packed y, z likewise; bits 30..31 zero) — only when
//                               every launch's block is whole waves (a partial wave's idle lanes
//                               hold nothing defined)
//   - kernarg dwords:           [min, max] over the launches (and per 16-bit half), for dwords made
//                               only of by-value and launch-shape arguments (no pointer)
// A fact applies to a register only where it still holds that value at the window (a reaching-
// definitions check on the kernel's CFG): for an entry register (and a preloaded kernarg SGPR), no
// writer of it reaches the window; for a kernarg load (`s_load_dword*` through the kernarg pointer,
// itself holding its entry value there), the load dominates the window and no other writer reaches
// the window without passing the load again. The interval is the hull of the launches' values: for an argument with
// `vary: [lo, hi]` the runs include lo and hi, so every admitted value lies inside.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "program/program.h"

namespace asmevo::prove {

// Bits [lo_bit, lo_bit + width) of a live-in register are in [min, max] (every lane for a VGPR).
struct RegisterFact {
  bool vector = false;
  unsigned reg = 0;
  unsigned lo_bit = 0, width = 32;
  uint32_t min = 0, max = 0xffffffffu;
  std::string why;  // "workgroup id x < 8", "kernarg 0x10 (n) in [0, 5000]"
  int64_t kernarg_offset = -1;  // a kernarg dword's byte offset (a whole-dword fact), else -1
};
std::string fact_text(const RegisterFact& f);  // "s2 in [0, 7] (workgroup id x)"

// What the admitted launches of one kernel fix, independent of any window.
struct LaunchBounds {
  std::array<uint32_t, 3> max_grid{0, 0, 0};   // largest workgroup count per dimension
  std::array<uint32_t, 3> max_block{0, 0, 0};  // largest work-items per dimension
  bool whole_waves = true;                     // every launch's block is a multiple of 64 work-items
  struct Range {
    uint32_t min = 0xffffffffu, max = 0;
    std::string name;  // the argument(s) the dword holds
  };
  std::map<uint64_t, Range> kernarg_dwords;  // by byte offset: by-value / launch-shape dwords only
  std::map<uint64_t, Range> kernarg_halves;  // by byte offset of each 16-bit half of those dwords
  size_t launches = 0;
  // Where the kernel descriptor puts the entry values (emu::init_wave's layout): -1 when absent.
  int kernarg_ptr_sgpr = -1;
  std::array<int, 3> workgroup_id_sgpr{-1, -1, -1};
  unsigned preload_first_sgpr = 0, preload_dwords = 0, preload_offset_dwords = 0;
  bool packed_ids = true;       // gfx90a+: v0 = x | y << 10 | z << 20
  unsigned workitem_id_vgprs = 0;  // 0: x, 1: x and y, 2: x, y and z
};

// Bounds over `launches` (each prepared as the emulator would run it, to read its kernarg bytes).
// Throws asmevo::Error when a launch cannot be prepared.
LaunchBounds launch_bounds(const codeobj::CodeObject& co, const codeobj::Kernel& kernel, const std::vector<emu::LaunchSpec>& launches);

// The facts that hold at `window_first` (a .text line of `kernel`) under `bounds`.
std::vector<RegisterFact> launch_facts(const program::Program& parent, const std::string& kernel, size_t window_first,
                                       const LaunchBounds& bounds);

}  // namespace asmevo::prove
