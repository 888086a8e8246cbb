// Shared by the rule moves: the static-check oracle (a candidate Program is rebuilt into a code
// object and checked by check::check_code_object, so the answer is about what the hardware would
// run), and the window helpers every move needs.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/isa.h"
#include "codeobj/arch_params.h"
#include "program/program.h"

namespace asmevo::search {

// True when `p`, with the kernel's resources recomputed, rebuilds and checks free of static
// findings (waitcnt, hazards, resources) for `kernel` and what it may call. False, not an
// exception, when it does not rebuild.
bool rebuilds_clean(const program::Program& p, const std::string& kernel);

// Gives every edited instruction line of `kernel` its decoded form (in the decoder's spelling), so
// that liveness, renaming and the moves that parse decoded instructions (widen) read their exact
// registers. Throws asmevo::Error for text that does not assemble.
void decode_edited_lines(program::Program& q, const std::string& kernel);

// A copy of `p` with .text line `line` replaced by `text` (empty: the line removed).
program::Program with_line(const program::Program& p, size_t line, const std::string& text);

// The weakest wait reachable from `start` (counts clamped to `limits`): each counter it waits on is
// raised, by bisection, to the largest count for which `clean` still holds — a larger count is a
// weaker wait, and if a count is clean every smaller one is. Counters `start` does not wait on stay
// so. `clean(start)` is assumed.
check::Wait weakest_clean_wait(check::Wait start, const check::CounterLimits& limits,
                               const std::function<bool(const check::Wait&)>& clean);

// The comma-separated operands of `text` after its first `mnemonic_size` characters, each trimmed of
// spaces (modifiers stay on the last one: "v_fma_f32 v1, v2, v3, v4" -> {"v1", "v2", "v3", "v4"}).
std::vector<std::string> split_operands(const std::string& text, size_t mnemonic_size);

// The kernel's function; throws asmevo::Error when `kernel` is not a kernel of `p`.
const program::Function& kernel_function(const program::Program& p, const std::string& kernel);

// The line of the kernel's last instruction when no path falls through it (s_endpgm, s_branch): code
// placed after it runs only when branched to (the guarded fallbacks of widen-short and buffer-bounds).
// nullopt when the kernel has no instruction or its last one may fall through.
std::optional<size_t> closing_instruction(const program::Program& p, const program::Function& f);

// Lines [first, last] of the window, or the whole kernel when none is given; throws asmevo::Error
// when the window does not lie inside the kernel.
std::pair<size_t, size_t> window_lines(const program::Program& p, const std::string& kernel,
                                       std::optional<std::pair<size_t, size_t>> window);

// Every VGPR `in` reads or writes, one entry per register (ranges expanded).
std::set<unsigned> vgprs_of(const program::Instruction& in);

// The VGPR count a kernel that now uses `vgprs_now` may grow to without losing waves per SIMD by
// VGPRs (the same allocation granule's occupancy, codeobj::compute_occupancy): fresh registers taken
// below it leave the kernel's occupancy, and so the timing model's, as it is.
unsigned vgpr_occupancy_limit(const codeobj::ArchParams& ap, unsigned vgprs_now);

// The room a move has for fresh VGPRs in `kernel`: every VGPR referenced anywhere in it, and the
// count below which fresh ones keep its occupancy (vgpr_occupancy_limit). Returns "" when known, else
// why not: AGPRs in use (the unified register file is split), no resource table for the arch, or an
// undecoded instruction (its registers are unknown).
struct VgprRoom {
  std::set<unsigned> referenced;
  unsigned limit = 0;
  std::set<unsigned> taken;  // the referenced ones and those take() has handed out
  // The lowest `count` consecutive VGPRs below `limit` none of which is taken, now taken; a range of
  // several starts at an even register (gfx90a+ VGPR tuples are 64-bit aligned, SIRegisterInfo.td
  // *_Align2). nullopt when there is none.
  std::optional<unsigned> take(unsigned count);
};
std::string fresh_vgpr_room(const program::Program& p, const std::string& kernel, VgprRoom& room);

// A wait for vmcnt(0) and nothing else.
bool vmcnt0_alone(const program::Instruction& in, codeobj::Arch arch);

}  // namespace asmevo::search
