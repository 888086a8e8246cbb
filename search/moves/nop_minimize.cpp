#include "search/moves/nop_minimize.h"

#include <fmt/format.h>

#include <algorithm>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

// Preloading kernels are entered 256 bytes after their start by firmware that preloads (the
// compatibility prologue before it loads the kernargs itself): AMDGPUUsage "Preloaded Kernel
// Arguments"; LLVM AMDGPUAsmPrinter emits the 256-byte prologue.
constexpr uint64_t kPreloadPrologueBytes = 256;

// Blocks reachable from the entry block (block 0 holds the kernel's first instruction).
std::vector<bool> reachable_blocks(const program::Function& f) {
  std::vector<bool> seen(f.blocks.size(), false);
  std::vector<size_t> todo;
  if (!f.blocks.empty()) todo.push_back(0), seen[0] = true;
  while (!todo.empty()) {
    size_t b = todo.back();
    todo.pop_back();
    for (size_t s : f.blocks[b].succs)
      if (!seen[s]) seen[s] = true, todo.push_back(s);
  }
  return seen;
}

// The count of an s_nop line (its simm16), or nullopt for any other line.
std::optional<unsigned> nop_count(const program::Line& l) {
  if (l.kind != program::Line::Instr || !l.inst || l.inst->mnemonic != "s_nop") return std::nullopt;
  for (const auto& op : l.inst->operands)
    if (op.kind == program::Operand::Imm) return static_cast<unsigned>(op.imm & 0xffff);
  return std::nullopt;
}

// Setting -1 is "removed", n >= 0 is "s_nop n".
std::string nop_text(int setting) { return setting < 0 ? "" : fmt::format("s_nop {}", setting); }

}  // namespace

NopMinimization minimize_nops(const program::Program& p, const std::string& kernel,
                              std::optional<std::pair<size_t, size_t>> window) {
  const auto [first, last] = window_lines(p, kernel, window);
  const program::Function& f = kernel_function(p, kernel);
  NopMinimization r{p, {}, 0};
  ++r.probes;
  if (!rebuilds_clean(p, kernel))
    throw Error("kernel " + kernel + " already has static findings; s_nop minimization needs a clean kernel",
                p.original().elf().name(), "run asmevo check on it");
  const codeobj::Kernel* k = p.original().kernel(kernel);
  const bool preloads = k && k->kd.kernarg_preload_length() > 0;
  // Candidate lines (parent indices) decided on the parent's CFG.
  std::vector<bool> reachable = reachable_blocks(f);
  std::vector<size_t> candidates;
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    if (!reachable[b]) continue;
    for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) {
      if (i < first || i > last || !nop_count(p.text_line(i))) continue;
      if (preloads && p.text_line(i).address < k->code_address + kPreloadPrologueBytes) continue;
      candidates.push_back(i);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  size_t removed = 0;  // lines removed so far: later lines moved up by this much
  for (size_t original_line : candidates) {
    const size_t line = original_line - removed;
    const program::Line& l = r.program.text_line(line);
    // The hardware reads 4 bits of the count (LLVM GCNSubtarget::getSNopBits), as check::wait_states does.
    const int effective = static_cast<int>(*nop_count(l) & 0xf);
    // Bisection for the smallest safe setting in [-1, effective]; `effective` is known safe.
    int lo = -1, hi = effective;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      ++r.probes;
      if (rebuilds_clean(with_line(r.program, line, nop_text(mid)), kernel)) hi = mid;
      else lo = mid + 1;
    }
    std::string after = nop_text(lo);
    if (after == l.text) continue;
    r.changes.push_back({l.address, l.text, after});
    r.program = with_line(r.program, line, after);
    removed += after.empty();
  }
  r.program.touch(kernel);
  r.program.update_resources();
  return r;
}

namespace {

class NopMinimizeMove final : public Move {
 public:
  std::string name() const override { return "nop-minimize"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    NopMinimization r = minimize_nops(c.program, c.kernel, std::pair{c.window.first, c.window.last});
    if (r.changes.empty()) return {};
    std::vector<std::pair<uint64_t, std::string>> changes;
    for (const NopChange& ch : r.changes) changes.push_back({ch.address, ch.after});
    Edit e = line_replacements(c.program, c.kernel, changes);
    e.move = name();
    e.proposer = proposer();
    e.description = fmt::format("{} s_nop lowered or removed to the wait states the hazard rules need", r.changes.size());
    return {e};
  }
};

}  // namespace

std::unique_ptr<Move> make_nop_minimize_move() { return std::make_unique<NopMinimizeMove>(); }

}  // namespace asmevo::search
