// Move: kernarg load hoisting. Compilers often sink scalar loads of kernel arguments into the block
// that uses them (after a bounds check, inside a loop), so the wave pays a second scalar-memory
// round trip there. The kernarg segment is always mapped, read-only and unchanged for the whole
// dispatch (AMDGPUUsage, "Kernarg segment"), so loading an argument earlier is always safe: each
// such load outside the entry block is moved to the kernel's first instruction, into SGPRs the
// kernel never uses, and its original place gets `s_mov_b64`/`s_mov_b32` copies into the registers
// the code expects, behind an `s_waitcnt lgkmcnt(0)`. Waitcnt refinement then removes or weakens
// the waits the move made needless (usually the entry's wait already covers the hoisted loads), in
// the same edit; the static waitcnt proof and verification decide as for every move.
//
// Refused (no edit): kernels with kernarg preloading (their entry is a firmware prologue), loads
// a write of the kernarg pointer SGPRs may reach, loads with modifiers or non-constant offsets, and when
// too few free SGPRs remain (the arch's addressable SGPRs, check/isa.h limits via update_resources).
#include <fmt/format.h>

#include "search/moves/kernarg.h"
#include "search/moves/moves.h"
#include "search/moves/waitcnt_refine.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

class KernargHoistMove final : public Move {
 public:
  std::string name() const override { return "kernarg-hoist"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f || !f->is_kernel || f->blocks.empty()) return {};
    const codeobj::KernelDescriptor& kd = p.kernel_descriptor(c.kernel);
    if (kd.kernarg_preload_length() > 0) return {};
    const std::optional<unsigned> pointer = kernarg_pointer_sgpr(kd);
    if (!pointer) return {};
    const unsigned kernarg_sgpr = *pointer;
    const std::vector<bool> intact = kernarg_pointer_intact(p, *f, kernarg_sgpr);
    if (intact.empty()) return {};
    // A load that overwrites the pointer itself stays where it is.
    auto pointer_intact = [&](size_t line, const ArgLoad& a) {
      return intact[line - f->begin] && (a.dest + a.dwords <= kernarg_sgpr || kernarg_sgpr + 2 <= a.dest);
    };
    // Loads of the window outside the entry block (the first block holds what runs first anyway).
    const program::BasicBlock& entry = f->blocks.front();
    std::vector<ArgLoad> loads;
    for (size_t i = std::max(c.window.first, entry.last + 1); i <= c.window.last; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind != program::Line::Instr) continue;
      if (auto a = parse_arg_load(l.text, kernarg_sgpr); a && pointer_intact(i, *a)) {
        a->line = i;
        loads.push_back(*a);
      }
    }
    if (loads.empty()) return {};
    // Fresh SGPRs above everything the kernel (and what it calls) uses, each tuple aligned to its
    // size up to 4 (the SMEM destination alignment rule of the GFX9 ISA guide, "Scalar Memory").
    unsigned next = static_cast<unsigned>(p.register_use(c.kernel).max_sgpr + 1);
    next = std::max(next, kd.user_sgpr_count() + 4u);  // past the user and system SGPRs in any case
    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    std::vector<std::string> hoisted;
    for (const ArgLoad& a : loads) {
      const unsigned align = std::min(a.dwords, 4u);
      next = (next + align - 1) / align * align;
      const unsigned fresh = next;
      next += a.dwords;
      hoisted.push_back(fmt::format("s_load_dword{} {}, s[{}:{}], {}", a.dwords == 1 ? "" : fmt::format("x{}", a.dwords), sgpr_operand(fresh, a.dwords),
                                    kernarg_sgpr, kernarg_sgpr + 1, fmt::format("{:#x}", a.offset)));
      // A wait in front of the copies: the hoisted load may not be covered by any wait on every
      // path to here. Refinement below removes it where the entry's wait already covers the load.
      std::vector<std::string> copies{"s_waitcnt lgkmcnt(0)"};
      for (unsigned k = 0; k + 1 < a.dwords; k += 2) copies.push_back(fmt::format("s_mov_b64 {}, {}", sgpr_operand(a.dest + k, 2), sgpr_operand(fresh + k, 2)));
      if (a.dwords % 2) copies.push_back(fmt::format("s_mov_b32 s{}, s{}", a.dest + a.dwords - 1, fresh + a.dwords - 1));
      e.hunks.push_back(make_hunk(p, a.line, a.line, copies));
    }
    // Insert before the kernel's first instruction.
    size_t first = f->begin;
    while (first < f->end && p.text_line(first).kind != program::Line::Instr) ++first;
    if (first >= f->end || first >= loads.front().line) return {};
    e.hunks.push_back(make_insertion(first, hoisted));
    // The waits that waited for the moved loads now wait for nothing there: refine them in the same
    // edit (alone, such a change is often below the optimizer's minimum gain).
    program::Program hoisted_program = apply_edit(p, e);
    const size_t window_end = std::min(c.window.last + hoisted.size(), hoisted_program.text_line_count() - 1);
    WaitcntRefinement tidy{hoisted_program, {}, 0};
    try {
      tidy = refine_waitcnts(hoisted_program, c.kernel, std::pair{f->begin, window_end});
    } catch (const Error&) {
      // Static findings (K0's own, or of the hoisted program): refinement needs a clean kernel; the
      // unrefined edit goes to the cascade, whose static gate decides.
    }
    Edit result = tidy.changes.empty() ? e : diff_edit(p, tidy.program, c.kernel);
    result.move = name();
    result.proposer = proposer();
    result.description = fmt::format("{} kernarg load(s) hoisted to the kernel entry, copied where they were{}", loads.size(),
                                     tidy.changes.empty() ? "" : fmt::format("; {} wait(s) refined", tidy.changes.size()));
    return {result};
  }
};

}  // namespace

std::unique_ptr<Move> make_kernarg_hoist_move() { return std::make_unique<KernargHoistMove>(); }

}  // namespace asmevo::search
