// Move workgroup-remap (search/moves/workgroup_remap.cpp): renumbers a 2-D tile grid's workgroups so
// that the ones each XCD runs at the same time form a compact block of tiles (L2 locality on
// multi-XCD devices: gfx942/gfx950 send linear workgroup id i to XCD i mod 8, each XCD with its own L2).
//
// The edit, in two parts: at the kernel's first instruction, load hidden_block_count_x/y (code object v5 hidden kernargs; their offsets from the metadata) or,
// where the metadata lists none (clang lists them only where the kernel uses them), count them from
// the AQL packet, ceil(grid_size / workgroup_size), enabling the dispatch pointer (Edit::dispatch_ptr;
// the user and system SGPRs after it arrive 2 higher and are moved back first, as lds-forward's guard
// does); then, before the entry block's first line that reads or writes an id SGPR, writes EXEC, waits
// or branches (so that the loads overlap the kernel's own), per z slice, from the linear id
// L = x + gx * y of T = gx * gy workgroups:
//   1. XCD swizzle: n = xcd * per + local - max(0, xcd - tall), with xcd = L mod X, local = L / X,
//      per = ceil(T / X), tall = T mod X (X when 0): XCD c's workgroups get the consecutive ids
//      [c * per - max(0, c - tall), ...). A bijection of [0, T) for every T (each XCD c < tall has per
//      ids, the others per - 1).
//   2. Grouped ordering (Triton's GROUP_SIZE_M): groups of Gc = min(G, gy) tile rows, numbered
//      column-major inside a group: group = n / (Gc * gx), first = group * Gc, size = min(gy - first, Gc),
//      y' = first + (n mod (Gc * gx)) mod size, x' = (n mod (Gc * gx)) / size. A bijection of the grid
//      for every gx, gy. G is the power of two nearest the square root of the workgroups one XCD
//      holds at once (the perf launch's occupancy), so those form a block of about G x G tiles.
//   When gx * gy does not fit 32 bits the ids are left as they are (identity for that launch).
//   The divisions are LLVM's exact 32-bit unsigned division expansion (float reciprocal, one
//   Newton step, two corrections), the float part in one VGPR not live at the entry, read back with
//   v_readfirstlane. The results overwrite the id SGPRs; z is not touched.
//
// Why it keeps the results: a kernel whose workgroups do not communicate except through
// order-independent means (plain stores to disjoint places, integer atomics) computes the same set of
// per-workgroup results whatever the order its workgroups are numbered in, as long as each original id
// is produced exactly once: the renumbering is a bijection of the grid, and a workgroup sees only its
// (new) ids. A 1-D kernel (id x only) would get the XCD swizzle of x alone;
// it is not proposed (see the refusal). Refused, with the reason (workgroup_remap_refusal): no
// workgroup id x, a 1-D grid (the corpus's 1-D kernels read disjoint data or preload), ids read
// other than through the id SGPRs (TTMP registers, s_getreg:
// HW_ID/XCC_ID tell where a workgroup runs), global/flat float atomics (a float sum's bits follow its
// order) and returning global atomics (a returned value is the order: tickets, look-back chains, which
// a renumbering could also deadlock), kernarg preloading (its entry is a firmware prologue: all of
// Triton's kernels), no kernarg pointer, no hidden block counts and no room for the dispatch pointer,
// calls, a device whose XCD count is not a power of two, no free VGPR or SCC live at the entry.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "program/program.h"

namespace asmevo::search {

// Why workgroup-remap proposes nothing for `kernel` ("" when it proposes an edit).
std::string workgroup_remap_refusal(const program::Program& p, const std::string& kernel);

// The order the prologue computes: `xcds` a power of two; group_rows 0 for a 1-D kernel (only id x
// is read: the XCD swizzle of x alone, y untouched).
struct WorkgroupOrder {
  unsigned xcds = 1, group_rows = 0;
};
// The mapping the prologue computes, on the host (the specification; the tests check it is a
// bijection): the new (x, y) of workgroup (x, y) in a gx x gy grid (one z slice), and its inverse.
std::array<uint32_t, 2> remapped_workgroup(std::array<uint32_t, 2> id, std::array<uint32_t, 2> grid, const WorkgroupOrder& order);
std::array<uint32_t, 2> original_workgroup(std::array<uint32_t, 2> id, std::array<uint32_t, 2> grid, const WorkgroupOrder& order);

// The move's name (Edit::move of its edits).
inline constexpr const char* kWorkgroupRemapMove = "workgroup-remap";

// The order of a kernel that starts with this move's prologue (its first instruction loads
// hidden_block_count_x; G from its s_min_u32), else nullopt.
std::optional<WorkgroupOrder> recognize_workgroup_remap(const program::Program& k1, const std::string& kernel);

// For verify::VerifyOptions::candidate_sample: when `k1` starts with the prologue, the workgroups of
// k1 that compute the original's sampled workgroups of a run (their preimage under k1's order); null
// otherwise. A sampled perf run of a renumbered kernel started at the same ids as the original would
// compute other tiles and differ everywhere.
std::function<std::vector<uint64_t>(const emu::LaunchSpec&)> workgroup_remap_sampler(const codeobj::CodeObject& k1, const std::string& kernel);

// G for a kernel: the power of two nearest sqrt(workgroups one XCD holds at once) on the first perf
// launch (or the metadata's largest workgroup size when there is none); at least 1.
unsigned workgroup_remap_group_rows(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>* perf_runs);

}  // namespace asmevo::search
