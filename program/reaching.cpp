#include "program/reaching.h"

#include <utility>
#include <vector>

namespace asmevo::program {

std::set<size_t> reaching_definitions(const Program& p, const Function& f, size_t line, const RegRange& reg,
                                      const std::function<bool(size_t)>& hides) {
  std::set<size_t> out;
  size_t b0 = f.blocks.size();
  for (size_t b = 0; b < f.blocks.size() && b0 == f.blocks.size(); ++b)
    if (f.blocks[b].first <= line && line <= f.blocks[b].last) b0 = b;
  if (b0 == f.blocks.size()) return out;
  std::set<size_t> visited;                     // blocks scanned from their last line
  std::vector<std::pair<size_t, size_t>> todo;  // (block, scan from this line up to the block's first)
  auto push_preds = [&](size_t b) {
    if (b == 0) out.insert(kEntryValue);
    for (size_t pb : f.blocks[b].preds)
      if (visited.insert(pb).second) todo.push_back({pb, f.blocks[pb].last});
  };
  if (line > f.blocks[b0].first) todo.push_back({b0, line - 1});
  else push_preds(b0);
  while (!todo.empty()) {
    auto [b, from] = todo.back();
    todo.pop_back();
    bool stopped = false;
    for (size_t i = from + 1; i-- > f.blocks[b].first;) {
      const Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      bool writes = false;
      for (const RegRange& d : p.registers_of(l).defs) writes |= overlaps(d, reg);
      if (!writes) continue;
      out.insert(i);
      if (!hides || hides(i)) {
        stopped = true;
        break;
      }
    }
    if (!stopped) push_preds(b);
  }
  return out;
}

bool only_definition(const Program& p, const Function& f, size_t line, const RegRange& reg, size_t def) {
  const std::set<size_t> defs = reaching_definitions(p, f, line, reg);
  return defs.size() == 1 && *defs.begin() == def;
}

}  // namespace asmevo::program
