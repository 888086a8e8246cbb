// Move: masking by buffer bounds (issue 17). An exec-masked `global_load_dword` whose mask is a
// one-sided in-bounds test `i < n` and whose masked-off lanes hold 0 becomes one `buffer_load_dword`
// whose V# range does the masking (out-of-range lanes read 0), behind a per-wave guard that falls
// back to the original code. The argument and what is refused are in buffer_bounds.cpp's header.
//
// The shape (the only one of issue 17's two the gfx942 HIP corpus has in this form: hipcc's
// `x = (i < n) ? p[i] : 0` in scan_blocks_exclusive_u32, prefix_scan_inclusive_i32, kb_cumsum_f32):
//     v_mov_b32 vD, 0                  (or a copy of a register holding 0)
//     v_cmp_gt_i32 M, sN, vI           (sN > vI; also lt with swapped operands, and u32)
//     v_ashrrev_i32 vH, 31, vI         (here or in the body; or vH = 0)
//     s_and_saveexec_b64 S, M
//     s_cbranch_execz L
//     [v_mov_b32 vB, sB ; v_mov_b32 vB+1, sB+1]
//     v_lshl_add_u64 vA, v[I:H], 2, sB (or vB)
//     global_load_dword vD, vA, off
//   L: s_or_b64 exec, exec, S
// The elementwise shape `if (i < n) y[i] = f(x[i])` (load, VALU and store all under the bound: the
// kb_* activations) is not built: its index and bound are 64-bit (`v_cmp_gt_i64`), and KernelBench's
// element counts (1.6e9 floats) do not fit a 32-bit num_records, so its guard would send the perf
// launches to the original code.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

// One exec-masked global load of a kernel: an `s_and_saveexec_b64` + `s_cbranch_execz` whose skipped
// block holds a global load. `reason` is empty where the move edits it, else why not.
struct BufferBoundsSite {
  size_t saveexec = 0;  // the .text line of the s_and_saveexec_b64
  std::string reason;
};
std::vector<BufferBoundsSite> buffer_bounds_sites(const program::Program& p, const std::string& kernel);

// dword3 of the V#: the raw-buffer flags Triton's AMD backend uses on gfx942
// (corpus/triton/gfx942/vector_add_kernel.hsaco: `s_mov_b32 s15, 0x27000`: DST_SEL/NUM_FORMAT/
// DATA_FORMAT bits, ADD_TID_ENABLE (bit 23) clear).
constexpr unsigned kRawBufferWord3Gfx942 = 0x27000;

}  // namespace asmevo::search
