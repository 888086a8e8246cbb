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

#include <regex>

#include "search/moves/moves.h"
#include "search/moves/waitcnt_refine.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

struct ArgLoad {
  size_t line = 0;
  unsigned dwords = 0;
  unsigned dest = 0;  // first SGPR
  std::string offset;
};

// s_load_dword{,x2,x4,x8,x16} sD / s[D:E], s[K:K+1], OFFSET — nothing else.
std::optional<ArgLoad> parse_arg_load(const std::string& text, unsigned kernarg_sgpr) {
  static const std::regex re(R"(^s_load_dword(x(2|4|8|16))? (s(\d+)|s\[(\d+):(\d+)\]), s\[(\d+):(\d+)\], (0x[0-9a-fA-F]+|\d+)$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  if (std::stoul(m[7]) != kernarg_sgpr || std::stoul(m[8]) != kernarg_sgpr + 1) return std::nullopt;
  ArgLoad a;
  a.dwords = m[2].matched ? std::stoul(m[2]) : 1;
  a.dest = m[4].matched ? std::stoul(m[4]) : std::stoul(m[5]);
  a.offset = m[9];
  return a;
}

std::string sgprs(unsigned first, unsigned count) { return count == 1 ? fmt::format("s{}", first) : fmt::format("s[{}:{}]", first, first + count - 1); }

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
    if (!kd.get("kernel_code_properties.enable_sgpr_kernarg_segment_ptr")) return {};
    const unsigned kernarg_sgpr = 4 * kd.get("kernel_code_properties.enable_sgpr_private_segment_buffer") +
                                  2 * kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr") +
                                  2 * kd.get("kernel_code_properties.enable_sgpr_queue_ptr");
    // The pointer holds the kernarg address at a load unless a write of it reaches the load: blocks
    // reachable from a writing block (past the write) are out. Compilers reuse s[0:1] once the
    // last argument is loaded, so this is common after the loads and harmless.
    auto block_of = [&](size_t line) {
      for (size_t b = 0; b < f->blocks.size(); ++b)
        if (f->blocks[b].first <= line && line <= f->blocks[b].last) return b;
      return f->blocks.size();
    };
    std::vector<bool> tainted(f->blocks.size(), false);
    std::vector<size_t> first_write(f->blocks.size(), SIZE_MAX);  // in a block: lines after it are tainted
    std::vector<size_t> work;
    for (size_t i = f->begin; i < f->end; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind != program::Line::Instr && l.kind != program::Line::RawInstr) continue;
      for (const program::RegRange& d : p.registers_of(l).defs)
        if (d.file == program::RegFile::SGPR && d.first < kernarg_sgpr + 2 && kernarg_sgpr < d.first + d.count) {
          size_t b = block_of(i);
          if (b == f->blocks.size()) return {};
          first_write[b] = std::min(first_write[b], i);
          for (size_t s : f->blocks[b].succs) work.push_back(s);
        }
    }
    while (!work.empty()) {
      size_t b = work.back();
      work.pop_back();
      if (tainted[b]) continue;
      tainted[b] = true;
      for (size_t s : f->blocks[b].succs) work.push_back(s);
    }
    auto pointer_intact = [&](size_t line) {
      size_t b = block_of(line);
      return b < f->blocks.size() && !tainted[b] && line < first_write[b];
    };
    // Loads of the window outside the entry block (the first block holds what runs first anyway).
    const program::BasicBlock& entry = f->blocks.front();
    std::vector<ArgLoad> loads;
    for (size_t i = std::max(c.window.first, entry.last + 1); i <= c.window.last; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind != program::Line::Instr) continue;
      if (auto a = parse_arg_load(l.text, kernarg_sgpr); a && pointer_intact(i)) {
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
      hoisted.push_back(fmt::format("s_load_dword{} {}, s[{}:{}], {}", a.dwords == 1 ? "" : fmt::format("x{}", a.dwords), sgprs(fresh, a.dwords),
                                    kernarg_sgpr, kernarg_sgpr + 1, a.offset));
      // A wait in front of the copies: the hoisted load may not be covered by any wait on every
      // path to here. Refinement below removes it where the entry's wait already covers the load.
      std::vector<std::string> copies{"s_waitcnt lgkmcnt(0)"};
      for (unsigned k = 0; k + 1 < a.dwords; k += 2) copies.push_back(fmt::format("s_mov_b64 {}, {}", sgprs(a.dest + k, 2), sgprs(fresh + k, 2)));
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
