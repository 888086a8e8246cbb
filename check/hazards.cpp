#include "check/hazards.h"

#include <fmt/format.h>

#include <deque>
#include <map>

#include "check/isa.h"

namespace asmevo::check {

using program::Instruction;

unsigned arch_bit(codeobj::Arch a) {
  switch (a) {
    case codeobj::Arch::gfx90a: return kGfx90a;
    case codeobj::Arch::gfx942: return kGfx942;
    case codeobj::Arch::gfx950: return kGfx950;
    default: return 0;
  }
}

namespace {

struct Finding {
  bool any = false;
  int need = 0, dist = 0;
  size_t producer = 0;
};

// Walks every path backwards from instruction `c` (exclusive), giving each instruction to the
// probe with the wait states between it and `c`; a path ends at the probe's producer, at the
// window, or at the function entry.
Finding search(const Function& f, size_t c, const Probe& probe) {
  Finding best;
  struct Item {
    size_t block;
    size_t pos;  // next instruction to look at is pos - 1 (pos == first: go to predecessors)
    int dist;
    uint8_t state;
  };
  // Smallest distance seen at the end of each (block, state): a later visit with a distance
  // at least as large cannot find anything closer.
  std::map<std::pair<size_t, uint8_t>, int> seen;
  std::deque<Item> work;
  work.push_back({f.block_of[c], c, 0, 0});
  while (!work.empty()) {
    Item it = work.front();
    work.pop_front();
    const Block& blk = f.blocks[it.block];
    int dist = it.dist;
    uint8_t state = it.state;
    bool stopped = false;
    for (size_t k = it.pos; k-- > blk.first;) {
      const Instruction& p = f.insts[k];
      int need = probe.match(p, state);
      if (need >= 0) {
        if (need - dist > (best.any ? best.need - best.dist : 0)) best = Finding{true, need, dist, k};
        stopped = true;
        break;
      }
      dist += wait_states(p);
      if (dist >= probe.window) {
        stopped = true;
        break;
      }
    }
    if (stopped) continue;
    for (size_t pred : blk.preds) {
      auto key = std::make_pair(pred, state);
      auto s = seen.find(key);
      if (s != seen.end() && s->second <= dist) continue;
      seen[key] = dist;
      work.push_back({pred, f.blocks[pred].last + 1, dist, state});
    }
  }
  return best;
}

}  // namespace

std::vector<Violation> check_hazards(const Function& f, const HazardContext& ctx) {
  std::vector<Violation> out;
  const unsigned bit = arch_bit(ctx.arch);
  std::map<std::string, const HazardRule*> by_id;
  for (const auto& r : hazard_rules()) by_id[r.id] = &r;
  std::vector<Probe> probes;
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const Instruction& c = f.insts[i];
    for (const auto& rule : hazard_rules()) {
      if (!(rule.archs & bit)) continue;
      if (rule.local) rule.local(ctx, f, i, out);
      if (!rule.probes) continue;
      probes.clear();
      rule.probes(ctx, c, probes);
      for (const Probe& probe : probes) {
        Finding fd = search(f, i, probe);
        if (!fd.any) continue;
        const Instruction& p = f.insts[fd.producer];
        Violation v;
        v.check = "hazard";
        v.rule = probe.rule;
        v.function = f.name;
        v.pc = c.address;
        v.text = c.text;
        if (probe.reg.count) v.reg = program::to_string(probe.reg);
        v.producer_pc = p.address;
        v.producer_text = p.text;
        v.needed = fd.need;
        v.found = fd.dist;
        auto it = by_id.find(probe.rule);
        std::string what = it != by_id.end() ? it->second->description : probe.rule;
        v.message = fmt::format("{}: needs {} wait states after `{}` at 0x{:x}, a path has {}", what, fd.need,
                                p.text, p.address, fd.dist);
        out.push_back(std::move(v));
      }
    }
  }
  return out;
}

}  // namespace asmevo::check
