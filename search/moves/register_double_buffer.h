// The register double-buffer move's refusal reasons, for tests, and the loop analysis it shares with
// load-ahead (register_double_buffer.cpp has the move and its argument, load_ahead.cpp the other).
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codeobj/target.h"
#include "program/program.h"

namespace asmevo::search {

// Why the move leaves the loop whose back branch (s_cbranch_scc0/scc1) is .text line `branch_line` of
// `kernel` as it is, or "" when it would issue the next tile's loads during this tile's compute.
std::string register_double_buffer_refusal(const program::Program& p, const std::string& kernel, size_t branch_line);

// A register unit: (file, 32-bit index), one per unit of a range.
using RegUnit = std::pair<program::RegFile, unsigned>;
using RegUnits = std::set<RegUnit>;

// The load region L of a loop, from its header block h to the first `s_waitcnt vmcnt(0)` (w): its
// blocks (layout order), the wait, EXEC well nested (one saveexec and its restore), its upward-exposed
// reads, every unit it writes, and the VGPRs it writes first at entry EXEC on every path.
struct LoadRegion {
  std::vector<size_t> blocks;  // h first, the terminal block last
  size_t terminal = 0, w = 0;
  RegUnits reads_in, writes;
  std::set<unsigned> defined_at_entry_exec;  // VGPRs written at EXEC = E on every path to w
  std::map<unsigned, std::set<std::pair<unsigned, unsigned>>> ranges_naming;  // VGPR -> the ranges (first, count) of L naming it
};
// nullopt (and *why) when the code from block h is not such a region: single entry, acyclic, only ALU
// code, branches and global/buffer loads (no stores, atomics, LDS, waits) up to one block's vmcnt(0).
std::optional<LoadRegion> load_region_from(const program::Program& p, const program::Function& f, size_t h, codeobj::Arch arch, std::string* why);

// S: the backward slice, within the loop's straight-line compute X (its lines `x`, in order), of the
// units `reads` (what the loads read) and of the SCC the back branch reads; `cmp_line` is the s_cmp
// that computes that SCC. Every S line is ALU code and commutes with every non-S line of X before it,
// so S may run first. Returns "" or why not.
struct LoopSlice {
  std::set<size_t> lines;
  std::optional<size_t> cmp_line;
};
std::string loop_slice(const program::Program& p, const std::vector<size_t>& x, const RegUnits& reads, LoopSlice& out);

}  // namespace asmevo::search
