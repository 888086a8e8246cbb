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

}  // namespace asmevo::search
