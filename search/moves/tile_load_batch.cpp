// Move: tile-load batching (issue 17). A tiled GEMM's K loop, as hipcc compiles the straightforward
// "As[ty][tx] = A[..]; Bs[ty][tx] = B[..]; __syncthreads()" with bounds tests, loads one tile element,
// waits for it, writes it to LDS, and only then computes the next load's condition and issues it:
//
//   W1:  s_waitcnt vmcnt(0)          <- the A load                     W1, G deleted
//   G:   ds_write_b32 v11, v14       (A into LDS)
//   R:   v_add/v_cmp/s_and_saveexec  (B's bounds test)      ==>      R with v14 renamed to a fresh vF
//        v_mov v14, 0; global_load_dword v14, ...; s_or_b64 exec, exec, s[2:3]
//   W2:  s_waitcnt vmcnt(0)          <- the B load                     W2, then G
//   T:   ds_write_b32 v11, v14 offset:1024; ...                        T with v14 renamed to vF up to its
//                                                                      next full write (or copied back)
//
// so two memory latencies per iteration become one: the B load issues while the A load is in flight.
//
// Why the result is the same for every launch (per wave; every wave runs the same code):
//  - Nothing but G moves: R's instructions run in the same order, with the same inputs, at the same EXEC.
//    G (a run of LDS writes) runs after R instead of before it, at W2, which every path from G reaches
//    (R is a single-entry, acyclic region of the CFG whose paths all end at W2; no exit, no back edge).
//  - G reads the same values there. R writes no register G reads, except (a) EXEC, which R changes only
//    by `s_and_saveexec_b64 S, X` ... `s_or_b64 exec, exec, S` with S untouched between, so EXEC at W2
//    is EXEC at G (E | (E & X) = E) on every path, and (b) VGPRs that R defines before reading them:
//    those are renamed in R, and in T up to the register's next full write, to VGPRs the kernel never
//    references. Each renamed register's first access on every path through R is a write at EXEC = E
//    (not under the saveexec), so every lane R or T reads of it was written in R, in the original as in
//    the copy; the original register keeps G's value for G; after its next full write (at EXEC = E, T
//    has no EXEC write before it) it holds the same value in every lane as in the original (lanes
//    outside E: neither version wrote them in R). Where T does not rewrite it, `v_mov_b32 v, vF` after
//    T's last read (at EXEC = E) gives back the lanes R wrote; the others hold what they held before R,
//    in both versions. The fresh registers are never read elsewhere. A renamed register that R reads as
//    one half of a 64-bit pair (hipcc: `v_ashrrev_i32 v5, 31, v4; v_lshl_add_u64 v[12:13], v[4:5], ...`)
//    takes one half of a fresh even-aligned pair (gfx90a+ tuples are 64-bit aligned); the other half is
//    copied into the pair's other register right before that instruction (`v_mov_b32 vP, v4`, at its
//    EXEC, nothing between), so it reads the same 64 bits in every lane it reads.
//  - Registers R reads or writes are not the destination of a load in flight at W1 (a backward walk
//    from W1 to the previous vmcnt(0) collects them), so deleting W1 lets no read see a stale value and
//    no write race a load's return; G itself reads its loaded registers after W2's vmcnt(0), which waits
//    for every load W1 waited for (VMEM counts complete in issue order, check/waitcnt.h; vmcnt(0) is
//    all of them). No store or atomic may be in flight at W1 (its completion could matter to R's loads).
//  - Memory: R has no LDS access, store, atomic, scalar memory, flat/scratch access, barrier, message or
//    wait, so G's LDS writes move only across global/buffer loads and ALU code. LDS and global memory are
//    disjoint address spaces, so no load of R can read what G writes, and no access of this wave changes
//    order relative to any other access of the same memory. G stays in the same barrier interval (R has
//    no s_barrier), and before every later lgkmcnt wait, in the same order among the wave's other LDS
//    operations (R has none), so what any other wave can observe of G through a barrier is unchanged.
//    A barrier orders nothing about when G is performed within the interval; other waves reading G's
//    LDS words inside the interval without a barrier would race in the original too. The global loads
//    do not move at all relative to barriers or to global stores of any wave; only their issue no longer
//    waits for the A load's return, which no memory operation depends on.
// The cascade's static checks (hazards, waitcnt proof) and differential verification check every edit.
//
// Refused (no edit), with the reason: a wait that is not vmcnt(0) alone; no LDS write right after it;
// a region from G that does not end in one vmcnt(0) wait on every path (another wait, an exit, a back
// edge, a second entry); anything in R but ALU code, branches and global/buffer loads (no LDS DMA);
// EXEC changed other than by one saveexec/restore pair; R writing a register G reads that cannot be
// renamed (an SGPR, a VGPR read before R writes it, or written only on some paths or in a range, or read
// in a range wider than 64 bits, or in a pair whose other half is renamed too); a
// renamed VGPR read inside a range, or read and written, after W2; a load in flight at W1 whose
// register R touches, or a store in flight; AGPR kernels; no free VGPR below the occupancy limit.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "check/isa.h"
#include "codeobj/arch_params.h"
#include "codeobj/resources.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"
#include "search/moves/tile_load_batch.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;


// Why an instruction cannot be in the region between the two waits ("" when it can).
std::string not_in_region(const program::Instruction& in) {
  using program::InstClass;
  const std::string& m = in.mnemonic;
  if (m.rfind("s_setreg", 0) == 0 || m.rfind("s_getpc", 0) == 0 || m.rfind("s_setpc", 0) == 0 || m.rfind("s_set_gpr_idx", 0) == 0 ||
      m.find("movrel") != std::string::npos || in.is_call || in.is_return)
    return "an instruction with side effects or indirect control (" + m + ")";
  switch (in.cls) {
    case InstClass::SALU:
    case InstClass::VALU:
    case InstClass::VOP3P:
    case InstClass::Nop: return "";
    case InstClass::Branch: return in.branch_target ? "" : "an indirect branch (" + m + ")";
    case InstClass::GLOBAL:
    case InstClass::VMEMLoad:
      if (in.may_store) return "a store or atomic (" + m + ")";
      if (in.text.find(" lds") != std::string::npos) return "a load into LDS (" + m + ")";
      return "";
    case InstClass::Waitcnt: return "another wait (" + in.text + ")";
    case InstClass::DS: return "an LDS access (" + m + ")";
    case InstClass::Barrier: return "a barrier";
    default: return "an instruction the move does not reorder across (" + m + ")";
  }
}

// Whether `list` names VGPR v, and whether only as a single-register operand.
struct Mention {
  bool any = false, in_range = false;
};
Mention mentions(const std::vector<RegRange>& list, unsigned v) {
  Mention m;
  for (const RegRange& r : list)
    if (r.contains(RegFile::VGPR, v)) {
      m.any = true;
      m.in_range |= r.count != 1;
    }
  return m;
}

class TileLoadBatchMove final : public Move {
 public:
  std::string name() const override { return "tile-load-batch"; }
  std::string proposer() const override { return "rules"; }
  std::vector<std::string> enables() const override { return {"register-double-buffer"}; }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<Edit> out;
    const program::Function* f = c.program.function(c.kernel);
    if (!f || f->blocks.empty()) return out;
    const codeobj::Arch arch = c.program.original().target().arch;
    for (size_t i = std::max(c.window.first, f->begin); i <= c.window.last && i < f->end; ++i) {
      const program::Line& l = c.program.text_line(i);
      if (l.kind != program::Line::Instr || !l.inst || !vmcnt0_alone(*l.inst, arch)) continue;
      if (out.size() >= c.max_edits) break;
      std::string why;
      if (auto e = batch(c.program, *f, c.kernel, i, &why)) out.push_back(std::move(*e));
    }
    return out;
  }

  static std::string refusal(const program::Program& p, const std::string& kernel, size_t wait_line) {
    const program::Function* f = p.function(kernel);
    if (!f) return "no function " + kernel;
    std::string why;
    return TileLoadBatchMove().batch(p, *f, kernel, wait_line, &why) ? "" : why;
  }

 private:
  std::optional<Edit> batch(const program::Program& p, const program::Function& f, const std::string& kernel, size_t w1, std::string* why) const {
    auto refuse = [&](std::string reason) -> std::optional<Edit> {
      *why = std::move(reason);
      return std::nullopt;
    };
    const codeobj::Arch arch = p.original().target().arch;
    std::vector<size_t> block_of(f.end - f.begin, SIZE_MAX);
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) block_of[i - f.begin] = b;
    auto inst_at = [&](size_t i) -> const program::Instruction* {
      const program::Line& l = p.text_line(i);
      return l.kind == program::Line::Instr && l.inst ? &*l.inst : nullptr;
    };
    if (w1 < f.begin || w1 >= f.end || !inst_at(w1) || !vmcnt0_alone(*inst_at(w1), arch)) return refuse("the line is not an s_waitcnt vmcnt(0) alone");
    const size_t b0 = block_of[w1 - f.begin];

    // G: the LDS writes right after the wait, in its block.
    size_t g_end = w1;
    while (g_end + 1 <= f.blocks[b0].last && inst_at(g_end + 1) && inst_at(g_end + 1)->mnemonic.rfind("ds_write", 0) == 0) ++g_end;
    if (g_end == w1) return refuse("no LDS write follows the wait");
    std::vector<RegRange> g_uses;
    for (size_t i = w1 + 1; i <= g_end; ++i) {
      const program::Instruction& in = *inst_at(i);
      if (!in.defs.empty()) return refuse("an LDS write after the wait writes a register (" + in.text + ")");
      for (const RegRange& u : in.uses) g_uses.push_back(u);
    }

    // R: the region from G's end to the next vmcnt(0) wait W2, block by block in topological order.
    struct Seg {
      size_t from = 0, to = 0;  // lines [from, to] of the block inside R
    };
    std::map<size_t, Seg> seg;
    size_t terminal = SIZE_MAX, w2 = 0;
    std::vector<size_t> stack{b0};
    while (!stack.empty()) {
      const size_t b = stack.back();
      stack.pop_back();
      if (seg.count(b)) continue;
      if (seg.size() >= 16) return refuse("the region to the next vmcnt(0) wait has more than 16 blocks");
      const program::BasicBlock& blk = f.blocks[b];
      Seg s{b == b0 ? g_end + 1 : blk.first, blk.last};
      std::optional<size_t> wait;
      for (size_t i = s.from; i <= blk.last && !wait; ++i)
        if (const program::Instruction* in = inst_at(i); in && vmcnt0_alone(*in, arch)) wait = i;
      if (b == b0 && g_end == blk.last) s.from = blk.last + 1;  // G ends the block: R starts in its successors
      for (size_t i = s.from; i <= (wait ? *wait - 1 : blk.last) && i <= blk.last; ++i)
        if (const program::Instruction* in = inst_at(i))
          if (std::string u = not_in_region(*in); !u.empty()) return refuse("the region to the next vmcnt(0) wait has " + u);
      if (wait) {
        if (terminal != SIZE_MAX) return refuse("paths from the LDS writes end at different waits");
        terminal = b;
        w2 = *wait;
        s.to = *wait - 1;
        seg[b] = s;
        continue;
      }
      seg[b] = s;
      if (blk.succs.empty()) return refuse("a path from the LDS writes leaves the kernel before a vmcnt(0) wait");
      for (size_t succ : blk.succs) {
        if (succ == b0) return refuse("a path from the LDS writes comes back to the wait (a loop) before a vmcnt(0) wait");
        stack.push_back(succ);
      }
    }
    if (terminal == SIZE_MAX) return refuse("no vmcnt(0) wait after the LDS writes");
    for (const auto& [b, s] : seg)
      if (b != b0)
        for (size_t pred : f.blocks[b].preds)
          if (!seg.count(pred) || pred == terminal) return refuse("the region to the next wait has a second entry");
    std::vector<size_t> order;
    {
      std::map<size_t, size_t> indegree;
      for (const auto& [b, s] : seg) indegree[b] = b == b0 ? 0 : f.blocks[b].preds.size();
      std::vector<size_t> ready{b0};
      while (!ready.empty()) {
        const size_t b = ready.back();
        ready.pop_back();
        order.push_back(b);
        if (b == terminal) continue;
        for (size_t succ : f.blocks[b].succs)
          if (--indegree[succ] == 0) ready.push_back(succ);
      }
      if (order.size() != seg.size()) return refuse("the region to the next wait has a cycle");
    }

    // Registers G reads that R writes: EXEC (checked below), or VGPRs renamed; anything else refuses.
    std::set<unsigned> candidates;  // G's single VGPRs
    for (const RegRange& u : g_uses)
      if (u.file == RegFile::VGPR)
        for (unsigned q = 0; q < u.count; ++q) candidates.insert(u.first + q);
    // Walk R: EXEC state (nullopt: EXEC is E; a value: inside saveexec into that SGPR pair), the
    // candidates written at EXEC = E on every path so far, and what R writes and touches.
    struct State {
      std::optional<unsigned> saved;
      std::set<unsigned> defined;
      bool set = false;
    };
    std::map<size_t, State> in_state;
    in_state[b0].set = true;
    std::set<unsigned> renamed, touched_vgprs;
    std::map<unsigned, unsigned> pair_half;              // renamed VGPR read as a half of a 64-bit pair -> which half
    std::map<size_t, std::vector<RegRange>> pair_reads;  // line -> the pairs it reads that hold a renamed VGPR
    std::optional<State> at_w2;
    for (size_t b : order) {
      State st = in_state[b];
      const Seg& s = seg[b];
      for (size_t i = s.from; i <= s.to; ++i) {
        const program::Line& l = p.text_line(i);
        if (!l.is_instruction()) continue;
        if (l.kind == program::Line::RawInstr || !l.inst) return refuse("an undecoded instruction in the region");
        const program::Instruction& in = *l.inst;
        if (std::string u = not_in_region(in); !u.empty()) return refuse("the region to the next wait has " + u);
        // EXEC.
        const bool writes_exec = std::any_of(in.defs.begin(), in.defs.end(), [](const RegRange& d) { return d.file == RegFile::EXEC; });
        const std::vector<std::string> ops = [&] {
          std::vector<std::string> o;
          const size_t sp = in.text.find(' ');
          for (size_t at = sp == std::string::npos ? in.text.size() : sp + 1; at < in.text.size();) {
            const size_t comma = in.text.find(", ", at);
            o.push_back(in.text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
            if (comma == std::string::npos) break;
            at = comma + 2;
          }
          return o;
        }();
        std::optional<unsigned> opens;
        if (st.saved) {
          for (const RegRange& d : in.defs)
            if (d.file == RegFile::SGPR && program::overlaps(d, RegRange{RegFile::SGPR, *st.saved, 2}) &&
                !(in.mnemonic == "s_or_b64" && writes_exec))
              return refuse("the region writes the saved EXEC (" + in.text + ")");
        }
        if (writes_exec) {
          const auto saved = ops.empty() ? std::nullopt : program::parse_reg(ops[0]);
          if (in.mnemonic == "s_and_saveexec_b64" && !st.saved && saved && saved->file == RegFile::SGPR && saved->count == 2) {
            opens = saved->first;
          } else if (in.mnemonic == "s_or_b64" && st.saved && ops.size() == 3 && ops[0] == "exec" &&
                     ((ops[1] == "exec" && program::parse_reg(ops[2]) == RegRange{RegFile::SGPR, *st.saved, 2}) ||
                      (ops[2] == "exec" && program::parse_reg(ops[1]) == RegRange{RegFile::SGPR, *st.saved, 2}))) {
            st.saved.reset();
          } else {
            return refuse("the region changes EXEC other than by one saveexec and its restore (" + in.text + ")");
          }
        }
        // Candidates: read only after a write at EXEC = E; written only as single registers.
        for (unsigned v : candidates) {
          const Mention r = mentions(in.uses, v), w = mentions(in.defs, v);
          if (!r.any && !w.any) continue;
          if (w.in_range) return refuse(fmt::format("the region writes v{} inside a register range ({})", v, in.text));
          if (r.any && !st.defined.count(v)) return refuse(fmt::format("the region reads v{} before writing it ({})", v, in.text));
          if (r.in_range)
            for (const RegRange& u : in.uses) {
              if (u.file != RegFile::VGPR || u.count == 1 || !u.contains(RegFile::VGPR, v)) continue;
              if (u.count != 2) return refuse(fmt::format("the region reads v{} inside a register range wider than 64 bits ({})", v, in.text));
              const unsigned pos = v - u.first, partner = u.first + 1 - pos;
              if (candidates.count(partner)) return refuse(fmt::format("the region reads v{} and v{} as one 64-bit pair ({})", u.first, u.first + 1, in.text));
              if (pair_half.count(v) && pair_half.at(v) != pos) return refuse(fmt::format("the region reads v{} as both halves of 64-bit pairs", v));
              pair_half[v] = pos;
              pair_reads[i].push_back(u);
            }
          renamed.insert(v);
          if (w.any && !st.saved && !opens) st.defined.insert(v);
        }
        if (opens) st.saved = opens;
        // Other registers G reads must not change.
        for (const RegRange& d : in.defs)
          for (const RegRange& u : g_uses)
            if (d.file != RegFile::EXEC && d.file != RegFile::VGPR && program::overlaps(d, u))
              return refuse("the region writes " + program::to_string(u) + ", which the LDS writes read (" + in.text + ")");
        for (unsigned v : vgprs_of(in))
          if (!candidates.count(v)) touched_vgprs.insert(v);
      }
      if (b == terminal) {
        at_w2 = st;
        continue;
      }
      for (size_t succ : f.blocks[b].succs) {
        State& n = in_state[succ];
        if (!n.set) {
          n = st;
          n.set = true;
        } else {
          if (n.saved != st.saved) return refuse("paths through the region join with different EXEC states");
          std::set<unsigned> both;
          std::set_intersection(n.defined.begin(), n.defined.end(), st.defined.begin(), st.defined.end(), std::inserter(both, both.begin()));
          n.defined = both;
        }
      }
    }
    if (!at_w2 || at_w2->saved) return refuse("EXEC at the second wait is not EXEC at the LDS writes");
    for (unsigned v : renamed)
      if (!at_w2->defined.count(v)) return refuse(fmt::format("v{} is not written at full EXEC on every path to the second wait", v));
    // No VGPR G reads and R writes is left unrenamed (written-only candidates are in `renamed` too).

    // Loads (and stores) in flight at W1: a backward walk to the previous vmcnt(0) on every path.
    std::set<unsigned> in_flight;
    {
      std::set<size_t> seen;
      std::vector<std::pair<size_t, size_t>> work{{b0, w1}};  // block, scan from the line before this
      while (!work.empty()) {
        auto [b, before] = work.back();
        work.pop_back();
        bool stopped = false;
        for (size_t i = before; i-- > f.blocks[b].first && !stopped;) {
          const program::Instruction* in = inst_at(i);
          if (!in) {
            if (p.text_line(i).kind == program::Line::RawInstr) return refuse("an undecoded instruction before the wait");
            continue;
          }
          if (in->cls == program::InstClass::Waitcnt) {
            const auto w = check::decode_waitcnt(*in, arch);
            if (w && w->count[check::kVmCnt] == 0) stopped = true;
            continue;
          }
          if (!program::is_vmem(in->cls)) continue;
          if (in->may_store) return refuse("a store or atomic may be in flight at the wait (" + in->text + ")");
          if (in->text.find(" lds") != std::string::npos) return refuse("a load into LDS may be in flight at the wait");
          for (const RegRange& d : in->defs)
            if (d.file == RegFile::VGPR)
              for (unsigned q = 0; q < d.count; ++q) in_flight.insert(d.first + q);
        }
        if (stopped) continue;
        for (size_t pred : f.blocks[b].preds)
          if (seen.insert(pred).second) {
            if (seen.size() > 64) return refuse("too many blocks before the wait to find the loads in flight");
            work.push_back({pred, f.blocks[pred].last + 1});
          }
      }
    }
    for (unsigned v : touched_vgprs)
      if (in_flight.count(v)) return refuse(fmt::format("the region touches v{}, a load's destination in flight at the wait", v));

    // T: after W2 in its block, reads renamed up to each register's next full write at EXEC = E.
    std::map<size_t, std::set<unsigned>> t_lines;  // lines of T -> the renamed registers they read
    std::set<unsigned> pending = renamed;
    for (size_t i = w2 + 1; i <= f.blocks[terminal].last && !pending.empty(); ++i) {
      const program::Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      if (!l.inst) return refuse("an undecoded instruction after the second wait");
      const program::Instruction& in = *l.inst;
      if (std::any_of(in.defs.begin(), in.defs.end(), [](const RegRange& d) { return d.file == RegFile::EXEC; }) || in.is_branch || in.is_terminator)
        break;
      std::set<unsigned> done;
      for (unsigned v : pending) {
        const Mention r = mentions(in.uses, v), w = mentions(in.defs, v);
        if (r.any && (r.in_range || w.any)) return refuse(fmt::format("v{} is read inside a range or read and written after the second wait ({})", v, in.text));
        if (r.any) t_lines[i].insert(v);
        else if (w.any) done.insert(v);
      }
      for (unsigned v : done) pending.erase(v);
    }
    // A register T does not rewrite gets its value back from the fresh one after T's last read of it
    // (`v_mov_b32 v, vF` at EXEC = E: the lanes R wrote; the others keep what they held before R, as in
    // the original), so what runs after T sees every lane of it as the original leaves it.
    std::map<size_t, std::vector<unsigned>> copy_back;  // after this line (w2: after G) -> registers
    for (unsigned v : pending) {
      size_t last = w2;
      for (const auto& [i, regs] : t_lines)
        if (regs.count(v)) last = i;
      copy_back[last].push_back(v);
    }

    // Fresh VGPRs: referenced nowhere in the kernel, below the count that keeps its occupancy.
    VgprRoom room;
    if (const std::string why = fresh_vgpr_room(p, kernel, room); !why.empty()) return refuse(why);
    // A register read as half of a 64-bit pair gets a fresh even-aligned pair: it takes the same half;
    // the other half is a copy.
    std::map<unsigned, unsigned> fresh, partner_copy;  // renamed VGPR -> fresh one; -> the fresh other half of its pair
    for (unsigned v : renamed) {
      const bool pair = pair_half.count(v) != 0;
      const std::optional<unsigned> r = room.take(pair ? 2 : 1);
      if (!r) return refuse(fmt::format("no free VGPR {}below v{} (the occupancy limit) to rename v{}", pair ? "pair " : "", room.limit, v));
      fresh[v] = pair ? *r + pair_half.at(v) : *r;
      if (pair) partner_copy[v] = *r + 1 - pair_half.at(v);
    }

    // The edit: W1 and G deleted; R's and T's renamed lines; G after W2. In R every mention of a renamed
    // register is renamed; in T only reads (T's lines that mention one read it and do not write it).
    std::map<size_t, std::vector<std::string>> rewritten;  // line -> new text
    std::map<size_t, std::set<unsigned>> lines = t_lines;
    for (const auto& [b, s] : seg)
      for (size_t i = s.from; i <= s.to; ++i)
        if (const program::Instruction* in = inst_at(i))
          for (unsigned v : renamed)
            if (mentions(in->uses, v).any || mentions(in->defs, v).any) lines[i].insert(v);
    for (const auto& [i, regs] : lines) {
      std::string t = p.text_line(i).text;
      std::vector<std::string> copies;
      // A pair holding a renamed VGPR: renamed whole to its fresh pair, the other half copied into it just
      // before, at the same EXEC, so the instruction reads the same 64 bits in every lane it reads.
      if (auto it = pair_reads.find(i); it != pair_reads.end())
        for (const RegRange& u : it->second) {
          const unsigned v = regs.count(u.first) ? u.first : u.first + 1;
          const unsigned partner = v == u.first ? u.first + 1 : u.first;
          t = rename_registers(t, u, fresh.at(v) - pair_half.at(v));
          copies.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", partner_copy.at(v), partner));
        }
      for (unsigned v : regs) t = rename_registers(t, RegRange{RegFile::VGPR, v, 1}, fresh.at(v));  // the single-register operands left
      copies.push_back(t);
      rewritten[i] = copies;
    }
    auto copies_after = [&](size_t line) {
      std::vector<std::string> out;
      if (auto it = copy_back.find(line); it != copy_back.end())
        for (unsigned v : it->second) out.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", v, fresh.at(v)));
      return out;
    };
    for (const auto& [line, regs] : copy_back)
      if (line != w2)
        for (const std::string& c : copies_after(line)) rewritten[line].push_back(c);
    Edit e;
    e.kernel = kernel;
    e.move = name();
    e.proposer = proposer();
    e.hunks.push_back(make_hunk(p, w1, g_end, {}));
    std::vector<std::string> moved{p.text_line(w2).text};
    for (size_t i = w1 + 1; i <= g_end; ++i) moved.push_back(p.text_line(i).text);
    for (const std::string& c : copies_after(w2)) moved.push_back(c);
    e.hunks.push_back(make_hunk(p, w2, w2, moved));
    for (const auto& [i, t] : rewritten)
      if (t != std::vector<std::string>{p.text_line(i).text}) e.hunks.push_back(make_hunk(p, i, i, t));
    std::sort(e.hunks.begin(), e.hunks.end(), [](const Hunk& x, const Hunk& y) { return x.first < y.first; });
    std::string names;
    for (const auto& [v, r] : fresh) names += fmt::format("{}v{}->v{}", names.empty() ? "" : ", ", v, r);
    e.description = fmt::format("vmcnt(0) at 0x{:x} removed: its {} LDS write(s) moved after the next vmcnt(0) (0x{:x}), so the loads between issue while "
                                "the earlier ones are in flight; {} renamed",
                                p.text_line(w1).address, g_end - w1, p.text_line(w2).address, names.empty() ? "nothing" : names);
    return e;
  }

};

}  // namespace

std::unique_ptr<Move> make_tile_load_batch_move() { return std::make_unique<TileLoadBatchMove>(); }

std::string tile_load_batch_refusal(const program::Program& p, const std::string& kernel, size_t wait_line) {
  return TileLoadBatchMove::refusal(p, kernel, wait_line);
}

}  // namespace asmevo::search
