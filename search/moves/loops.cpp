#include "search/moves/loops.h"

namespace asmevo::search {

std::vector<bool> loop_blocks(const program::Function& f) {
  std::vector<bool> in_loop(f.blocks.size(), false);
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (size_t s : f.blocks[b].succs)
      if (s <= b)
        for (size_t k = s; k <= b; ++k) in_loop[k] = true;
  return in_loop;
}

std::vector<size_t> scc_branch_block_ends(const program::Program& p, const program::Function& f, size_t first, size_t last) {
  std::vector<size_t> ends;
  for (const program::BasicBlock& b : f.blocks) {
    if (b.last < first || b.last > last) continue;
    const program::Line& l = p.text_line(b.last);
    if (l.inst && (l.inst->mnemonic == "s_cbranch_scc0" || l.inst->mnemonic == "s_cbranch_scc1")) ends.push_back(b.last);
  }
  return ends;
}

}  // namespace asmevo::search
