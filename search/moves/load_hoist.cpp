// Move: load hoist. Right after an s_barrier, a block's vector-memory loads (with the VALU/SALU
// instructions that compute their addresses and masks) move up to the barrier, ahead of the LDS reads,
// s_setprio brackets and lgkmcnt waits they followed. Triton's two-stage GEMMs issue the next tile's
// global loads after the current tile's LDS reads, inside `s_setprio 1`, and wait for them with
// vmcnt at the end of the body: the earlier they issue, the less of their latency the wait sees
// (docs/search.md, "Where Triton's two matmuls' modeled time goes"). reschedule/interleave cannot do
// this: s_setprio and waits end their regions.
//
// Why every launch: the new order is a permutation of the lines between the barrier and the last
// moved load; the moved lines H keep their order, the others R keep theirs, and each r in R that a
// moved h followed is
//   * a VALU/SALU/MFMA/packed op (not s_setreg/s_getreg or PC arithmetic), an LDS (DS) instruction
//     (not GWS/GDS), s_nop, s_setprio (no effect on values, GFX9 ISA) or an s_waitcnt that waits on
//     no vmcnt; never a branch, barrier, vector/flat/scalar memory op or message, so vector-memory operations keep their issue order (vmcnt is an in-order
//     count, every vmcnt wait covers the same operations) and no load moves across a barrier;
//   * register-independent of h: neither writes what the other reads or writes (implicit EXEC, VCC,
//     SCC, M0 included), so each computes from the same values, and each register ends with the same
//     last writer;
//   * an lgkmcnt wait only when the barrier's own wait is lgkmcnt(0): no LDS/scalar load issued
//     before the barrier is outstanding, and those issued after it are crossed instructions, which
//     share no register with h; so the wait guards nothing h reads or writes.
// h is a load from global memory (buffer/global, no LDS DMA, no atomic, no store): LDS and global
// memory do not alias, so crossing LDS reads and writes changes no value either. Hazard wait states
// are the static checker's (a moved slice holds only VALU/SALU ops, no s_getpc or hardware-state access,
// whose results do not depend on where they sit): the edit is rebuilt and checked (with `s_nop 1` after each moved VALU
// that writes an SGPR or VCC when the plain order needs it) before it is proposed.
// A load that cannot move alone (a line between its slice and it feeds the next load and the load
// overwrites it) is tried again together with the next one.
// Refused (no edit): a load whose slice reaches a memory result or that cannot move with the loads after
// it (and every load after it, to keep the vmcnt order), blocks without a barrier.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "search/moves/motion.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::InstClass;

bool crossable(const program::Instruction& in, bool lgkm_clear) {
  switch (in.cls) {
    case InstClass::DS: return in.mnemonic.find("gws") == std::string::npos && in.text.find(" gds") == std::string::npos;
    case InstClass::SALU: return !state_or_pc(in) && !in.is_branch;
    case InstClass::VALU: case InstClass::VOP3P: case InstClass::MFMA: case InstClass::Nop: return !in.is_branch;
    case InstClass::Waitcnt: return in.text.find("vmcnt") == std::string::npos && (lgkm_clear || in.text.find("lgkmcnt") == std::string::npos);
    case InstClass::Other: return in.mnemonic == "s_setprio";
    default: return false;
  }
}

class LoadHoistMove final : public Move {
 public:
  std::string name() const override { return "load-hoist"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f) return {};
    Edit e;
    e.kernel = c.kernel, e.move = name(), e.proposer = proposer();
    Edit padded = e;
    size_t loads = 0;
    for (const program::BasicBlock& b : f->blocks)
      for (size_t anchor = std::max(b.first, c.window.first); anchor <= std::min(b.last, c.window.last); ++anchor) {
        const program::Line& al = p.text_line(anchor);
        if (!al.inst || al.inst->cls != InstClass::Barrier) continue;
        const program::Line& before = p.text_line(anchor > b.first ? anchor - 1 : anchor);
        const bool lgkm_clear = anchor > b.first && before.inst && before.inst->cls == InstClass::Waitcnt &&
                                before.inst->text.find("lgkmcnt(0)") != std::string::npos;
        const auto [hoisted, end] = plan(p, anchor, b.last, lgkm_clear);
        if (hoisted.empty()) continue;
        loads += std::count_if(hoisted.begin(), hoisted.end(), [&](size_t i) { return global_vector_load(*p.text_line(i).inst); });
        for (const bool pad : {false, true}) {
          std::vector<std::string> lines;
          for (size_t i : hoisted) {
            const program::Instruction& in = *p.text_line(i).inst;
            lines.push_back(in.text);
            const bool sgpr_write = std::any_of(in.defs.begin(), in.defs.end(), [](const program::RegRange& r) {
              return r.file == program::RegFile::SGPR || r.file == program::RegFile::VCC;
            });
            if (pad && in.cls == InstClass::VALU && sgpr_write) lines.push_back("s_nop 1");
          }
          for (size_t i = anchor + 1; i <= end; ++i)
            if (!std::binary_search(hoisted.begin(), hoisted.end(), i)) lines.push_back(p.text_line(i).inst->text);
          (pad ? padded : e).hunks.push_back(make_hunk(p, anchor + 1, end, lines));
        }
      }
    if (e.hunks.empty()) return {};
    for (Edit* cand : {&e, &padded}) {
      if (!rebuilds_clean(apply_edit(p, *cand), c.kernel)) continue;
      cand->description = fmt::format("{} global loads and their address slices moved up to the s_barrier before them ({} blocks{})", loads,
                                      cand->hunks.size(), cand == &padded ? ", s_nop 1 after SGPR-writing VALU ops" : "");
      return {std::move(*cand)};
    }
    return {};
  }

 private:
  // The lines to move (sorted) and the last line of the permuted range, for the barrier at `anchor`.
  static std::pair<std::vector<size_t>, size_t> plan(const program::Program& p, size_t anchor, size_t last, bool lgkm_clear) {
    std::set<size_t> moved;
    std::set<size_t> pending;  // earlier loads (with slices) that can only move together with a later one
    size_t end = anchor;
    for (size_t j = anchor + 1; j <= last; ++j) {
      const program::Line& l = p.text_line(j);
      if (!l.inst) break;
      if (!global_vector_load(*l.inst)) continue;
      // The backward slice of this load and the pending ones among the lines not yet moved.
      std::set<size_t> take = pending;
      take.insert(j);
      std::vector<program::RegRange> needed;
      for (size_t t : take) needed.insert(needed.end(), p.text_line(t).inst->uses.begin(), p.text_line(t).inst->uses.end());
      bool ok = true, slice_ok = true;
      for (size_t k = j; k-- > anchor + 1 && slice_ok;) {
        if (moved.count(k) || take.count(k)) continue;
        const program::Instruction& in = *p.text_line(k).inst;
        const bool feeds = std::any_of(needed.begin(), needed.end(), [&](const program::RegRange& r) { return in.writes(r); });
        if (!feeds) continue;
        if (!pure_compute(in)) slice_ok = false;
        take.insert(k);
        needed.insert(needed.end(), in.uses.begin(), in.uses.end());
      }
      if (!slice_ok) break;  // this load and every later one stay (vmcnt order)
      // Every line left in place that a moved line followed must be crossable and independent of it.
      std::set<size_t> all = moved;
      all.insert(take.begin(), take.end());
      for (size_t r = anchor + 1; r < j && ok; ++r) {
        if (all.count(r)) continue;
        if (!p.text_line(r).inst) { ok = false; break; }
        const program::Instruction& ri = *p.text_line(r).inst;
        for (auto h = all.upper_bound(r); h != all.end() && ok; ++h)
          ok = crossable(ri, lgkm_clear) && register_independent(ri, *p.text_line(*h).inst);
      }
      if (!ok) {  // maybe together with the next load (a line between them feeds it and the load overwrites it)
        pending = std::move(take);
        continue;
      }
      moved = std::move(all);
      pending.clear();
      end = j;
    }
    // An s_nop between two moved lines keeps their wait states: it moves with them.
    for (size_t k = anchor + 2; k < end; ++k)
      if (!moved.count(k) && moved.count(k - 1) && moved.count(k + 1) && p.text_line(k).inst &&
          p.text_line(k).inst->cls == InstClass::Nop)
        moved.insert(k);
    // Nothing gained when every moved line already sat right after the barrier.
    std::vector<size_t> out(moved.begin(), moved.end());
    for (size_t k = 0; k < out.size(); ++k)
      if (out[k] != anchor + 1 + k) return {out, end};
    return {{}, anchor};
  }
};

}  // namespace

std::unique_ptr<Move> make_load_hoist_move() { return std::make_unique<LoadHoistMove>(); }

}  // namespace asmevo::search
