// A guarded copy of a kernel's code (issue 17): the machinery of the moves that keep the original code
// for every launch their guard does not admit (specialize, lds-forward). The edit inserts, before line
// G of the parent:
//   guard:  the move's run-time test, branching to PREFIXorig where the copy's assumption fails;
//   copy:   the kernel's code from G to its end with every label renamed (PREFIX + label), changed
//           only where the move's argument holds under the guard;
//   PREFIXorig:  the original code from G on, unchanged.
// The copy is refused (nullopt) where copying code is not sound: raw instructions, data directives,
// M0-relative register indexing (s_movrel*, s_set_gpr_idx), s_getpc/s_setpc, non-branch instructions
// that name symbols (PC-relative arithmetic), branches to a label before G or to a number, and code
// that can fall off the end (the last instruction must be s_endpgm or s_branch), since a copy that ran
// into the original code would run it twice.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "program/program.h"
#include "search/edit.h"

namespace asmevo::search {

struct CopiedLine {
  size_t source = 0;  // the parent's .text line
  bool label = false;
  std::string text;   // the copy's statement: a renamed label with its ':', or the instruction (branch targets renamed)
};

struct GuardedCopy {
  std::string prefix;  // ".L<move><address of G>_"
  std::vector<CopiedLine> lines;
  std::string renamed(const std::string& label) const;  // a label of the original, as the copy names it
  std::string orig() const { return prefix + "orig"; }  // the label of the original code (the guard's target)
};

// The copy of `f` from line `g` (an instruction of f) to f's end; `tag` names the move in the labels.
std::optional<GuardedCopy> copy_from(const program::Program& p, const program::Function& f, size_t g, const std::string& tag);

// The hunk that inserts `guard`, the copy's lines (`lines`, after the move's changes; empty strings are
// dropped) and the orig label before line g.
Hunk guarded_copy_hunk(size_t g, const std::vector<std::string>& guard, const std::vector<std::string>& lines, const GuardedCopy& copy);

bool is_branch_mnemonic(const std::string& m);

// A guard that admits only one-dimensional workgroups (workgroup size y = z = 1), for a copy placed at
// the kernel's first instruction g. The workgroup size is not in any register and not in a kernel
// without hidden arguments, so the guard reads the AQL dispatch packet (hsa_kernel_dispatch_packet_t:
// workgroup_size_x/y/z, u16 at bytes 4/6/8; HSA Platform System Architecture spec 1.2, 2.9.6): the
// edit enables the KD's dispatch pointer (Edit::dispatch_ptr), which the hardware puts after the
// private segment buffer and so moves every later user and system SGPR up by 2; the guard first
// saves the pointer to a free pair and moves those SGPRs back, so both the copy and the original start
// with exactly the registers they started with before. Every wave of a workgroup reads the same packet,
// so all take the same path (the copy and the original can each hold barriers). Free SGPRs: above
// every hardware-initialized one, not live at g; SCC must be dead at g. Sets `why` and returns
// nullopt when it cannot be built (the KD already has the pointer, preloads arguments, has 15 or 16
// user SGPRs, or a label precedes g: a branch back to the entry would run the shuffle twice).
std::optional<std::vector<std::string>> one_dimensional_workgroup_guard(const program::Program& p, const program::Function& f,
                                                                        size_t g, const std::string& orig, std::string& why);

}  // namespace asmevo::search
