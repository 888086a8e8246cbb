// Move: register double-buffering of a tiled loop's global loads (issue 17). hipcc's LDS-tiled GEMM
// loop (after tile-load-batch, which puts the A and B loads in flight together) runs, per iteration i:
//
//   H:  L_i   the tile loads: bounds tests, s_and_saveexec/restore, global_load into v14 and vF
//   T:  w     s_waitcnt vmcnt(0)
//       W     ds_write v11, v14; ds_write v11, vF offset:1024; s_waitcnt lgkmcnt(0)
//       b1    s_barrier
//       X     ds_reads + FMAs of tile i, interleaved with S: s_add s7 (k0 += 16), address steps, s_cmp_ge s7, s6
//       b2    s_barrier
//       br    s_cbranch_scc1 EXIT          (falls into H)
//
// so every iteration waits a full memory latency at w with nothing in flight. The edit issues tile i+1's
// loads into fresh VGPRs during tile i's compute, and enters the next iteration at w:
//
//   H:  L_i (v14 renamed to vR)   entered only from before the loop: the first tile
//   T:  TOP: w; W (v14 renamed to vR up to its next write); b1
//       S                          the lines of X that L and br need, moved up (they commute with what they cross)
//       s_cbranch_scc1 SKIP        the guard: br's own test; iteration i+1 does not run
//       L'                         a copy of L (renamed, fresh labels): tile i+1's loads
//   SKIP:
//       X without S; b2
//       s_cmp_ge s7, s6            the exit test again (L' wrote SCC); s_cbranch_scc1 EXIT; s_branch TOP
//
// Why the result is the same for every launch (per wave; every wave runs the same code):
//  - Registers. S is the backward slice within X of what L reads before writing it (its upward-exposed
//    reads, on every path through L) and of the SCC br reads; S is ALU code, each S line commutes with
//    every X line it moves above (neither writes a register, SCC/VCC/EXEC/M0 included, the other reads
//    or writes), so X keeps its results and S computes, right after b1, the values L_{i+1} reads at H:
//    nothing of X outside S writes them. L' is L with the same inputs, so it computes the same values;
//    every register L' writes is one that X outside S neither reads nor writes (SCC: only written there),
//    so X is unaffected and at the back edge every register holds what X_i then L_{i+1} leave in the
//    original, except SCC, which is recomputed by the same s_cmp (its inputs are written by nothing after
//    it) before br, and which nothing from w on reads before writing it. VGPRs that L writes and X
//    touches (v14, which the LDS reads reuse) are renamed in L, L' and W's reads up to their next write
//    in W/X, to VGPRs the kernel never names, below the kernel's occupancy limit (probe.h
//    vgpr_occupancy_limit): each renamed register's first access on every path through L is a write at
//    L's entry EXEC E (not inside the saveexec), W and X do not change EXEC, so the same lanes hold the
//    same values in the copy as in the original, and the original register is written by its next
//    write in W/X as before (lanes outside E: never written by L in either version).
//  - EXEC. L changes EXEC only by `s_and_saveexec_b64 P, Q` ... `s_or_b64 exec, exec, P` with P not
//    written between, so EXEC after L is EXEC before it (E | (E & Q) = E); X does not write EXEC.
//  - Control. The guard is br's test, computed by S from the same inputs: L' runs exactly when the
//    original goes on to iteration i+1 and runs L_{i+1}; with a trip count of 0 the loop is not entered
//    (the code before H is unchanged), with 1 the guard skips L' and br exits as before. So no load is
//    issued that the original does not issue, each with the same address and EXEC, and none is missing.
//  - Memory. The moved loads (L_{i+1}) now issue after b1_i instead of after b2_i, crossing X's LDS
//    accesses and lgkmcnt waits and b2_i. The loop (L, W, X) has no global, flat, scratch or scalar-memory
//    store, atomic or load other than L's global/buffer loads, so no wave of the workgroup writes global
//    memory between the two issue points (all run the same loop the same number of times: its test reads
//    only SGPRs, and s_barrier needs every wave at the same barrier). s_barrier orders execution only:
//    every wave of the workgroup arrives before any passes; it makes no memory access complete (that is
//    the s_waitcnt before it). Stores before the loop are ordered before b1_0 ≤ b1_i by the same barriers
//    and waits as before; stores after the loop come after b2 of the last iteration, and each moved load
//    still completes at w of iteration i+1, before b1_{i+1}, as in the original. Other workgroups are
//    not ordered with this one by anything, in either version. LDS: L has no LDS access, so the LDS
//    operations keep their order and barrier intervals. VGPR reuse: W's LDS writes read vR/vF before L'
//    writes them, and W ends with lgkmcnt(0) after its last LDS access, so they have completed.
//  - Counters: w waits vmcnt(0), X has no vector memory and no vmcnt wait, so L''s loads are the only
//    ones in flight and w waits for all of them before W reads them.
// The cascade's static checks (hazards, waitcnt proof) and differential verification check every edit.
//
// Refused (no edit), with the reason: a block not ending in s_cbranch_scc0/1 with one successor H that
// starts a load region L (single-entry, acyclic, only ALU code, branches and global/buffer loads, ending
// at this block's first vmcnt(0) wait, EXEC changed only by one saveexec/restore pair; tile-load-batch
// first where the region has an LDS write and a second wait); no s_barrier after w, or W with anything
// but waits, LDS writes and ALU code, or no lgkmcnt(0) after its last LDS access; X with memory other than
// LDS, vmcnt waits, EXEC writes, state or scalar-memory instructions; an S line that is not ALU code or does
// not commute; no s_cmp producing br's SCC in X; a register L writes that X (outside S) reads or writes
// and that cannot be renamed (not a VGPR, in a register range, read before its next write, or not
// rewritten in W/X); SCC read from w on before written; AGPR kernels; no free VGPR below the occupancy
// limit; a loop this move edited already.
#include "search/moves/register_double_buffer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "check/isa.h"
#include "codeobj/arch_params.h"
#include "search/moves/loops.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

constexpr long kFull = -1;  // lanes written: all of the loop header's EXEC

using Unit = RegUnit;
using Units = RegUnits;
Units units_of(const std::vector<RegRange>& list) {
  Units u;
  for (const RegRange& r : list)
    for (unsigned q = 0; q < r.count; ++q) u.insert({r.file, r.first + q});
  return u;
}
bool meets(const Units& a, const Units& b) {
  return std::any_of(a.begin(), a.end(), [&](const Unit& x) { return b.count(x) != 0; });
}
std::string unit_name(const Unit& u) { return program::to_string(RegRange{u.first, u.second, 1}); }

bool has_side_effects(const program::Instruction& in) {
  const std::string& m = in.mnemonic;
  return m.rfind("s_setreg", 0) == 0 || m.rfind("s_getpc", 0) == 0 || m.rfind("s_setpc", 0) == 0 || m.rfind("s_set_gpr_idx", 0) == 0 ||
         m.find("movrel") != std::string::npos || m.rfind("s_sendmsg", 0) == 0 || m.rfind("s_dcache", 0) == 0 || in.is_call || in.is_return;
}

// Why an instruction cannot be in the load region L ("" when it can).
std::string not_in_loads(const program::Instruction& in) {
  using program::InstClass;
  if (has_side_effects(in)) return "an instruction with side effects or indirect control (" + in.mnemonic + ")";
  switch (in.cls) {
    case InstClass::SALU:
    case InstClass::VALU:
    case InstClass::VOP3P:
    case InstClass::Nop: return "";
    case InstClass::Branch: return in.branch_target ? "" : "an indirect branch (" + in.mnemonic + ")";
    case InstClass::GLOBAL:
    case InstClass::VMEMLoad:
      if (in.may_store) return "a store or atomic (" + in.mnemonic + ")";
      if (in.text.find(" lds") != std::string::npos) return "a load into LDS (" + in.mnemonic + ")";
      return "";
    case InstClass::Waitcnt: return "another wait (" + in.text + ")";
    case InstClass::DS: return "an LDS access (" + in.mnemonic + ")";
    case InstClass::Barrier: return "a barrier";
    default: return "an instruction the move does not reorder (" + in.mnemonic + ")";
  }
}

// Why an instruction cannot be in the compute X after the first barrier ("" when it can).
std::string not_in_compute(const program::Instruction& in, codeobj::Arch arch) {
  using program::InstClass;
  if (has_side_effects(in)) return "an instruction with side effects (" + in.mnemonic + ")";
  if (std::any_of(in.defs.begin(), in.defs.end(), [](const RegRange& d) { return d.file == RegFile::EXEC; })) return "an EXEC write (" + in.text + ")";
  switch (in.cls) {
    case InstClass::SALU:
    case InstClass::VALU:
    case InstClass::VOP3P:
    case InstClass::MFMA:
    case InstClass::DS:
    case InstClass::Barrier:
    case InstClass::Nop: return "";
    case InstClass::Waitcnt: {
      const auto w = check::decode_waitcnt(in, arch);
      if (!w) return "a wait the move cannot read (" + in.text + ")";
      if (w->count[check::kVmCnt] < check::counter_limits(arch).max[check::kVmCnt]) return "a vmcnt wait (" + in.text + ")";
      return "";
    }
    default: return "memory other than LDS (" + in.mnemonic + ")";
  }
}

// Operands of an instruction's text (after the mnemonic); registers only (branch targets: the line's text).
std::vector<std::string> operands_of(const program::Instruction& in) { return split_operands(in.text, in.mnemonic.size()); }

class RegisterDoubleBufferMove final : public Move {
 public:
  std::string name() const override { return "register-double-buffer"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<Edit> out;
    const program::Function* f = c.program.function(c.kernel);
    if (!f || f->blocks.empty()) return out;
    for (size_t branch : scc_branch_block_ends(c.program, *f, c.window.first, c.window.last)) {
      if (out.size() >= c.max_edits) break;
      std::string why;
      if (auto e = plan(c.program, *f, c.kernel, branch, &why)) out.push_back(std::move(*e));
    }
    return out;
  }

  static std::string refusal(const program::Program& p, const std::string& kernel, size_t branch_line) {
    const program::Function* f = p.function(kernel);
    if (!f) return "no function " + kernel;
    std::string why;
    return RegisterDoubleBufferMove().plan(p, *f, kernel, branch_line, &why) ? "" : why;
  }

 private:
  std::optional<Edit> plan(const program::Program& p, const program::Function& f, const std::string& kernel, size_t br_line, std::string* why) const {
    auto refuse = [&](std::string reason) -> std::optional<Edit> {
      *why = std::move(reason);
      return std::nullopt;
    };
    const codeobj::Arch arch = p.original().target().arch;
    auto inst_at = [&](size_t i) -> const program::Instruction* {
      const program::Line& l = p.text_line(i);
      return l.kind == program::Line::Instr && l.inst ? &*l.inst : nullptr;
    };
    if (br_line < f.begin || br_line >= f.end || !inst_at(br_line)) return refuse("the line is not an instruction of the kernel");
    const program::Instruction& br = *inst_at(br_line);
    if ((br.mnemonic != "s_cbranch_scc0" && br.mnemonic != "s_cbranch_scc1") || !br.branch_target) return refuse("the line is not an s_cbranch_scc0/scc1");
    const unsigned branch_scc = br.mnemonic == "s_cbranch_scc1" ? 1 : 0;
    size_t t = SIZE_MAX;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (f.blocks[b].last == br_line) t = b;
    if (t == SIZE_MAX || f.blocks[t].succs.size() != 2) return refuse("the branch does not end a block with two successors");
    const program::BasicBlock& tb = f.blocks[t];
    // Labels: name -> block (the block whose first instruction follows the label).
    std::map<std::string, size_t> block_of_label;
    std::map<size_t, std::vector<std::string>> labels_of_block;
    for (size_t i = f.begin; i < f.end; ++i)
      if (p.text_line(i).kind == program::Line::Label)
        for (size_t b = 0; b < f.blocks.size(); ++b)
          if (f.blocks[b].first > i) {
            bool only_labels = true;
            for (size_t j = i + 1; j < f.blocks[b].first; ++j) only_labels &= !p.text_line(j).is_instruction();
            if (only_labels) {
              block_of_label[p.text_line(i).text] = b;
              labels_of_block[b].push_back(p.text_line(i).text);
            }
            break;
          }
    const std::vector<std::string> br_ops = split_operands(p.text_line(br_line).text, br.mnemonic.size());
    if (br_ops.size() != 1 || !block_of_label.count(br_ops[0])) return refuse("the branch target is not a label of the kernel");
    const size_t target = block_of_label.at(br_ops[0]);
    // H: the successor that starts a load region ending in this block.
    std::optional<LoadRegion> region;
    size_t h = 0;
    std::string reasons;
    for (size_t s : tb.succs) {
      if (s == t) continue;
      std::string w;
      auto r = load_region_from(p, f, s, arch, &w);
      if (r && r->terminal == t) {
        region = std::move(r);
        h = s;
        break;
      }
      reasons += fmt::format("{}from block {}: {}", reasons.empty() ? "" : "; ", s,
                             r ? "the load region ends at a vmcnt(0) in another block (LDS writes and waits inside the loads: apply tile-load-batch first)" : w);
    }
    if (!region) return refuse("no successor of the branch starts a load region that ends at this block's vmcnt(0) (" + reasons + ")");
    const LoadRegion& L = *region;
    for (const std::string& lab : labels_of_block[t])
      if (lab.rfind(".Ldbuf", 0) == 0) return refuse("this loop was double-buffered already");
    for (size_t pred : f.blocks[h].preds)
      if (pred != t && std::find(L.blocks.begin(), L.blocks.end(), pred) != L.blocks.end()) return refuse("the loop header is entered from inside the load region");
    const bool continue_on_branch = target == h;  // else br exits and the fallthrough is H
    if (!continue_on_branch && br_line + 1 < f.end) {
      size_t next = SIZE_MAX;
      for (size_t b = 0; b < f.blocks.size(); ++b)
        if (f.blocks[b].first > br_line) {
          next = b;
          break;
        }
      if (next != h) return refuse("the branch's fallthrough is not the loop header");
    }
    const unsigned continue_scc = continue_on_branch ? branch_scc : 1 - branch_scc;
    // The region's blocks other than T must lie contiguously from H; the last one's fallthrough (if any) is T.
    std::vector<size_t> body;
    for (size_t b : L.blocks)
      if (b != t) body.push_back(b);
    std::sort(body.begin(), body.end());
    if (body.empty() || body.front() != h) return refuse("the load region does not start its layout at the loop header");
    for (size_t k = 1; k < body.size(); ++k)
      if (body[k] != body[k - 1] + 1) return refuse("the load region's blocks are not contiguous");
    {
      const program::Instruction* last = inst_at(f.blocks[body.back()].last);
      const bool falls = !last || !last->no_fallthrough;
      if (falls && body.back() + 1 != t) return refuse("the load region's last block falls through to a block other than the wait's");
    }

    // W: from w to the first s_barrier b1; X: after b1 to br.
    size_t b1 = 0;
    for (size_t i = L.w + 1; i < br_line && !b1; ++i)
      if (const program::Instruction* in = inst_at(i); in && in->cls == program::InstClass::Barrier) b1 = i;
    if (!b1) return refuse("no s_barrier after the wait in the loop's block");
    bool lgkm_done = true;
    for (size_t i = L.w + 1; i < b1; ++i) {
      const program::Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      if (!l.inst || l.kind == program::Line::RawInstr) return refuse("an undecoded instruction in the loop");
      const program::Instruction& in = *l.inst;
      using program::InstClass;
      if (in.cls == InstClass::DS) {
        if (in.may_load || !in.defs.empty()) return refuse("an LDS access other than a write before the barrier (" + in.text + ")");
        lgkm_done = false;
      } else if (in.cls == InstClass::Waitcnt) {
        const auto wc = check::decode_waitcnt(in, arch);
        if (wc && wc->count[check::kLgkmCnt] == 0) lgkm_done = true;
      } else if (std::string u = not_in_compute(in, arch); !u.empty() || in.cls == InstClass::Barrier) {
        return refuse("the LDS writes before the barrier come with " + (u.empty() ? std::string("a barrier") : u));
      }
    }
    if (!lgkm_done) return refuse("no s_waitcnt lgkmcnt(0) after the last LDS write before the barrier");
    std::vector<size_t> x;
    for (size_t i = b1 + 1; i < br_line; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::Label) return refuse("a label inside the loop's compute");
      if (!l.is_instruction()) continue;
      if (!l.inst || l.kind == program::Line::RawInstr) return refuse("an undecoded instruction in the loop's compute");
      if (std::string u = not_in_compute(*l.inst, arch); !u.empty()) return refuse("the loop's compute has " + u);
      x.push_back(i);
    }
    // S: the backward slice of X for L's upward-exposed reads and br's SCC.
    LoopSlice slice;
    if (std::string w = loop_slice(p, x, L.reads_in, slice); !w.empty()) return refuse(w);
    const std::set<size_t>& s_lines = slice.lines;
    const std::optional<size_t> cmp_line = slice.cmp_line;
    // What X outside S touches, and what the re-emitted s_cmp reads.
    Units rest_uses, rest_defs;
    for (size_t i : x)
      if (!s_lines.count(i)) {
        const Units u = units_of(inst_at(i)->uses), d = units_of(inst_at(i)->defs);
        rest_uses.insert(u.begin(), u.end());
        rest_defs.insert(d.begin(), d.end());
      }
    const Units cmp_uses = units_of(inst_at(*cmp_line)->uses);
    for (size_t i : x)
      if (i > *cmp_line && meets(units_of(inst_at(i)->defs), cmp_uses)) return refuse("the exit test's inputs change after it (" + inst_at(i)->text + ")");
    // Units L writes that X outside S touches: VGPRs renamed; anything else refuses.
    std::set<unsigned> renamed;
    for (const Unit& u : L.writes) {
      if (cmp_uses.count(u)) return refuse("the loads' code writes " + unit_name(u) + ", which the exit test reads");
      if (u.first == RegFile::EXEC) continue;  // restored by L (its saveexec/restore pair)
      const bool conflict = rest_uses.count(u) || (rest_defs.count(u) && u.first != RegFile::SCC);
      if (!conflict) continue;
      if (u.first != RegFile::VGPR) return refuse("the loads' code writes " + unit_name(u) + ", which the loop's compute uses");
      if (L.reads_in.count(u)) return refuse(fmt::format("v{} is read by the loads' code in lanes it has not written there", u.second));
      renamed.insert(u.second);
    }
    // Registers L names inside a range are renamed with the whole range (one range per register, every
    // register of it renamed), to fresh registers as aligned as the range (gfx90a+: 64-bit aligned tuples).
    std::map<unsigned, RegRange> group_of;  // renamed VGPR -> its range in L
    for (unsigned v : renamed) {
      const auto it = L.ranges_naming.find(v);
      if (it == L.ranges_naming.end()) continue;
      if (it->second.size() != 1) return refuse(fmt::format("v{} is named inside different register ranges by the loads' code", v));
      const auto [first, count] = *it->second.begin();
      for (unsigned q = first; q < first + count; ++q)
        if (!renamed.count(q) || L.ranges_naming.at(q).size() != 1)
          return refuse(fmt::format("v{} is named inside the range v[{}:{}], not all of which can be renamed", v, first, first + count - 1));
      group_of[v] = RegRange{RegFile::VGPR, first, count};
    }
    // From w on: SCC written before read; each renamed register only read (single operand) in W until its
    // next write in W/X; no read in X before that write.
    std::map<size_t, std::set<unsigned>> w_reads;  // W line -> renamed registers it reads
    {
      bool scc_written = false;
      std::set<unsigned> pending = renamed;
      for (size_t i = L.w; i < br_line; ++i) {
        const program::Instruction* in = inst_at(i);
        if (!in) continue;
        const Units u = units_of(in->uses), d = units_of(in->defs);
        if (!scc_written && u.count({RegFile::SCC, 0})) return refuse("SCC is read after the wait before it is written (" + in->text + ")");
        scc_written |= d.count({RegFile::SCC, 0}) != 0;
        std::set<unsigned> done;
        for (unsigned v : pending) {
          const bool reads = u.count({RegFile::VGPR, v}) != 0, writes = d.count({RegFile::VGPR, v}) != 0;
          if (reads && (i > b1 || writes)) return refuse(fmt::format("v{} (written by the loads' code) is read by the compute ({})", v, in->text));
          if (reads && !L.defined_at_entry_exec.count(v))
            return refuse(fmt::format("v{} is read after the wait but not written at the header's EXEC on every path through the loads", v));
          if (reads) {
            for (const RegRange& g : in->uses)
              if (g.contains(RegFile::VGPR, v) && g.count != 1) return refuse(fmt::format("v{} is read inside a register range ({})", v, in->text));
            w_reads[i].insert(v);
          }
          if (writes) done.insert(v);
        }
        for (unsigned v : done) pending.erase(v);
      }
      if (!pending.empty()) return refuse(fmt::format("v{} (written by the loads' code) is not rewritten in the loop's block", *pending.begin()));
    }

    // Fresh VGPRs.
    VgprRoom room;
    if (const std::string why = fresh_vgpr_room(p, kernel, room); !why.empty()) return refuse(why);
    std::map<unsigned, unsigned> fresh;
    std::map<unsigned, unsigned> group_base;  // a range's first register -> its fresh first register
    for (unsigned v : renamed) {
      if (fresh.count(v)) continue;
      const RegRange g = group_of.count(v) ? group_of.at(v) : RegRange{RegFile::VGPR, v, 1};
      const std::optional<unsigned> r = room.take(g.count);
      if (!r) return refuse(fmt::format("no free VGPR below v{} (the occupancy limit) to rename v{}", room.limit, v));
      for (unsigned q = 0; q < g.count; ++q) fresh[g.first + q] = *r + q;
      if (g.count != 1) group_base[g.first] = *r;
    }
    auto renamed_text = [&](size_t i, const std::set<unsigned>& regs) {
      std::string text = p.text_line(i).text;
      std::set<unsigned> groups_done;
      for (unsigned v : regs)
        if (auto it = group_of.find(v); it != group_of.end() && groups_done.insert(it->second.first).second)
          text = rename_registers(text, it->second, group_base.at(it->second.first));  // the range and its single registers
      for (unsigned v : regs)
        if (!group_of.count(v)) text = rename_registers(text, RegRange{RegFile::VGPR, v, 1}, fresh.at(v));
      return text;
    };
    auto regs_named = [&](size_t i) {
      std::set<unsigned> regs;
      if (const program::Instruction* in = inst_at(i))
        for (unsigned v : renamed)
          if (vgprs_of(*in).count(v)) regs.insert(v);
      return regs;
    };

    // The edit.
    const std::string tag = fmt::format(".Ldbuf{:x}", p.text_line(L.w).address);
    const std::string top = tag + "_top", skip = tag + "_skip", tseg = tag + "_wait";
    Edit e;
    e.kernel = kernel;
    e.move = name();
    e.proposer = proposer();
    // L itself, renamed (blocks of the body and T's lines before w).
    std::vector<size_t> l_lines;
    for (size_t i = f.blocks[body.front()].first; i <= f.blocks[body.back()].last; ++i) l_lines.push_back(i);
    std::vector<size_t> t_prefix;
    for (size_t i = tb.first; i < L.w; ++i) t_prefix.push_back(i);
    for (const std::vector<size_t>* part : {&l_lines, &t_prefix})
      for (size_t i : *part)
        if (p.text_line(i).is_instruction())
          if (auto regs = regs_named(i); !regs.empty()) e.hunks.push_back(make_hunk(p, i, i, {renamed_text(i, regs)}));
    // TOP before w.
    e.hunks.push_back(make_hunk(p, L.w, L.w, {top + ":", p.text_line(L.w).text}));
    for (const auto& [i, regs] : w_reads) e.hunks.push_back(make_hunk(p, i, i, {renamed_text(i, regs)}));
    // After b1: S, the guard, L', SKIP.
    std::vector<std::string> after_b1{p.text_line(b1).text};
    for (size_t i : s_lines) after_b1.push_back(p.text_line(i).text);
    after_b1.push_back(fmt::format("s_cbranch_scc{} {}", 1 - continue_scc, skip));
    auto copy_label = [&](const std::string& lab) {
      if (block_of_label.count(lab) && block_of_label.at(lab) == t) return tseg;
      return tag + "_" + lab.substr(lab.rfind('.') + 1);
    };
    for (size_t i : l_lines) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::Label) {
        if (i >= f.blocks[body.front()].first) after_b1.push_back(copy_label(l.text) + ":");
        continue;
      }
      if (!l.is_instruction()) continue;
      std::string text = renamed_text(i, regs_named(i));
      if (l.inst->is_branch) {
        const std::vector<std::string> o = split_operands(l.text, l.inst->mnemonic.size());
        if (o.size() != 1 || !block_of_label.count(o[0])) return refuse("a branch in the load region without a label target (" + l.text + ")");
        text = l.inst->mnemonic + " " + copy_label(o[0]);
      }
      after_b1.push_back(text);
    }
    after_b1.push_back(tseg + ":");
    for (size_t i : t_prefix)
      if (p.text_line(i).is_instruction()) after_b1.push_back(renamed_text(i, regs_named(i)));
    after_b1.push_back(skip + ":");
    e.hunks.push_back(make_hunk(p, b1, b1, after_b1));
    for (size_t i : s_lines) e.hunks.push_back(make_hunk(p, i, i, {}));
    std::vector<std::string> tail{p.text_line(*cmp_line).text};
    if (continue_on_branch) {
      tail.push_back(br.mnemonic + " " + top);
    } else {
      tail.push_back(p.text_line(br_line).text);
      tail.push_back("s_branch " + top);
    }
    e.hunks.push_back(make_hunk(p, br_line, br_line, tail));
    std::sort(e.hunks.begin(), e.hunks.end(), [](const Hunk& a, const Hunk& b) { return a.first < b.first; });
    std::string names;
    for (const auto& [v, r] : fresh) names += fmt::format("{}v{}->v{}", names.empty() ? "" : ", ", v, r);
    e.description = fmt::format("loop at 0x{:x}: the next tile's loads ({} lines) issue after the barrier at 0x{:x}, before this tile's compute, "
                                "guarded by the loop's exit test; {} line(s) of address/counter code moved up; {} renamed",
                                p.text_line(L.w).address, l_lines.size() + t_prefix.size(), p.text_line(b1).address, s_lines.size(),
                                names.empty() ? "nothing" : names);
    return e;
  }
};

}  // namespace

std::string loop_slice(const program::Program& p, const std::vector<size_t>& x, const RegUnits& reads, LoopSlice& out) {
  auto inst_at = [&](size_t i) -> const program::Instruction* {
    const program::Line& l = p.text_line(i);
    return l.kind == program::Line::Instr && l.inst ? &*l.inst : nullptr;
  };
  Units need = reads;
  need.insert({RegFile::SCC, 0});
  std::set<size_t>& s_lines = out.lines;
  std::optional<size_t>& cmp_line = out.cmp_line;
  for (size_t k = x.size(); k-- > 0;) {
    const program::Instruction& in = *inst_at(x[k]);
    const Units defs = units_of(in.defs);
    if (!cmp_line && defs.count({RegFile::SCC, 0})) {
      if (in.mnemonic.rfind("s_cmp", 0) != 0 || defs.size() != 1) return "the branch's SCC comes from something other than an s_cmp (" + in.text + ")";
      cmp_line = x[k];
    }
    if (!meets(defs, need)) continue;
    if (in.cls != program::InstClass::SALU && in.cls != program::InstClass::VALU && in.cls != program::InstClass::VOP3P)
      return "what the loads' code reads is computed by other than ALU code in the loop (" + in.text + ")";
    s_lines.insert(x[k]);
    for (const Unit& u : defs) need.erase(u);
    const Units uses = units_of(in.uses);
    need.insert(uses.begin(), uses.end());
  }
  if (!cmp_line) return "no s_cmp computes the branch's SCC in the loop's block";
  // Each S line commutes with every non-S line of X before it.
  for (size_t k = 0; k < x.size(); ++k) {
    if (!s_lines.count(x[k])) continue;
    const program::Instruction& s = *inst_at(x[k]);
    const Units sd = units_of(s.defs), su = units_of(s.uses);
    for (size_t j = 0; j < k; ++j) {
      if (s_lines.count(x[j])) continue;
      const program::Instruction& o = *inst_at(x[j]);
      const Units od = units_of(o.defs), ou = units_of(o.uses);
      if (meets(sd, od) || meets(sd, ou) || meets(su, od)) return "'" + s.text + "' does not commute with '" + o.text + "'";
    }
  }
  return "";
}

std::optional<LoadRegion> load_region_from(const program::Program& p, const program::Function& f, size_t h, codeobj::Arch arch, std::string* why) {
  auto refuse = [&](std::string r) -> std::optional<LoadRegion> {
    *why = std::move(r);
    return std::nullopt;
  };
  auto inst_at = [&](size_t i) -> const program::Instruction* {
    const program::Line& l = p.text_line(i);
    return l.kind == program::Line::Instr && l.inst ? &*l.inst : nullptr;
  };
  LoadRegion r;
  // Blocks reachable from h up to the first vmcnt(0) wait; one block ends the region.
  std::map<size_t, size_t> end_of;  // block -> last line inside the region
  std::vector<size_t> stack{h};
  std::optional<size_t> terminal;
  while (!stack.empty()) {
    const size_t b = stack.back();
    stack.pop_back();
    if (end_of.count(b)) continue;
    if (end_of.size() >= 64) return refuse("the load region has more than 64 blocks");
    const program::BasicBlock& blk = f.blocks[b];
    std::optional<size_t> wait;
    for (size_t i = blk.first; i <= blk.last; ++i) {
      const program::Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      if (!l.inst || l.kind == program::Line::RawInstr) return refuse("an undecoded instruction in the load region");
      if (vmcnt0_alone(*l.inst, arch)) {
        wait = i;
        break;
      }
      if (std::string u = not_in_loads(*l.inst); !u.empty()) return refuse("the load region has " + u);
    }
    if (wait) {
      if (terminal) return refuse("paths from the loop header end at different waits");
      terminal = b;
      r.w = *wait;
      end_of[b] = *wait;  // exclusive
      continue;
    }
    end_of[b] = blk.last + 1;
    if (blk.succs.empty()) return refuse("a path from the loop header leaves the kernel before a vmcnt(0) wait");
    for (size_t s : blk.succs) {
      if (s == h) return refuse("a path from the loop header comes back to it before a vmcnt(0) wait");
      stack.push_back(s);
    }
  }
  if (!terminal) return refuse("no vmcnt(0) wait after the loop header");
  r.terminal = *terminal;
  for (const auto& [b, e] : end_of)
    if (b != h)
      for (size_t pred : f.blocks[b].preds)
        if (!end_of.count(pred) || pred == r.terminal) return refuse("the load region has a second entry");
  // Topological order and the walk: EXEC state and what is defined on every path.
  struct State {
    std::optional<unsigned> saved;
    Units defined;
    // VGPR -> the lanes written: kFull (EXEC = E) or those of the saveexec opened at that line (its
    // EXEC, until the restore): a read is covered when it reads no lane L has not written.
    std::map<unsigned, long> vdefined;
    long region = kFull;
    bool set = false;
  };
  std::map<size_t, size_t> indegree;
  for (const auto& [b, e] : end_of) indegree[b] = b == h ? 0 : f.blocks[b].preds.size();
  std::map<size_t, State> in_state;
  in_state[h].set = true;
  std::vector<size_t> ready{h};
  size_t visited = 0;
  while (!ready.empty()) {
    const size_t b = ready.back();
    ready.pop_back();
    ++visited;
    State st = in_state[b];
    for (size_t i = f.blocks[b].first; i < end_of[b]; ++i) {
      const program::Instruction* in = inst_at(i);
      if (!in) continue;
      const Units uses = units_of(in->uses), defs = units_of(in->defs);
      for (const Unit& u : uses) {
        bool def = st.defined.count(u) != 0;
        if (u.first == RegFile::VGPR) {
          const auto it = st.vdefined.find(u.second);
          def = it != st.vdefined.end() && (it->second == kFull || it->second == st.region);
        }
        if (!def) r.reads_in.insert(u);
      }
      r.writes.insert(defs.begin(), defs.end());
      for (const auto* list : {&in->defs, &in->uses})
        for (const RegRange& g : *list)
          if (g.file == RegFile::VGPR && g.count != 1)
            for (unsigned q = 0; q < g.count; ++q) r.ranges_naming[g.first + q].insert({g.first, g.count});
      // EXEC: one saveexec and its restore.
      const bool writes_exec = std::any_of(in->defs.begin(), in->defs.end(), [](const RegRange& d) { return d.file == RegFile::EXEC; });
      const std::vector<std::string> ops = operands_of(*in);
      if (st.saved)
        for (const RegRange& d : in->defs)
          if (d.file == RegFile::SGPR && program::overlaps(d, RegRange{RegFile::SGPR, *st.saved, 2}) && !(in->mnemonic == "s_or_b64" && writes_exec))
            return refuse("the load region writes the saved EXEC (" + in->text + ")");
      std::optional<unsigned> opens;
      if (writes_exec) {
        const auto saved = ops.empty() ? std::nullopt : program::parse_reg(ops[0]);
        const RegRange pair{RegFile::SGPR, st.saved.value_or(0), 2};
        if (in->mnemonic == "s_and_saveexec_b64" && !st.saved && saved && saved->file == RegFile::SGPR && saved->count == 2) {
          opens = saved->first;
        } else if (in->mnemonic == "s_or_b64" && st.saved && ops.size() == 3 && ops[0] == "exec" &&
                   ((ops[1] == "exec" && program::parse_reg(ops[2]) == pair) || (ops[2] == "exec" && program::parse_reg(ops[1]) == pair))) {
          st.saved.reset();
        } else {
          return refuse("the load region changes EXEC other than by one saveexec and its restore (" + in->text + ")");
        }
      }
      for (const Unit& u : defs) {
        if (u.first == RegFile::VGPR) {
          if (!st.saved && !opens) st.vdefined[u.second] = kFull;
          else if (!st.vdefined.count(u.second) || st.vdefined.at(u.second) != kFull) st.vdefined[u.second] = st.region;
        } else {
          st.defined.insert(u);
        }
      }
      if (opens) {
        st.saved = opens;
        st.region = static_cast<long>(i);
      } else if (writes_exec) {
        st.region = kFull;
      }
    }
    if (b == r.terminal) {
      if (st.saved) return refuse("EXEC at the wait is not EXEC at the loop header");
      for (const auto& [v, lanes] : st.vdefined)
        if (lanes == kFull) r.defined_at_entry_exec.insert(v);
      continue;
    }
    for (size_t s : f.blocks[b].succs) {
      State& n = in_state[s];
      if (!n.set) {
        n = st;
        n.set = true;
      } else {
        if (n.saved != st.saved || n.region != st.region) return refuse("paths through the load region join with different EXEC states");
        Units both;
        std::set_intersection(n.defined.begin(), n.defined.end(), st.defined.begin(), st.defined.end(), std::inserter(both, both.begin()));
        n.defined = both;
        // Lanes written on both paths: the same, or the saveexec's where one path wrote all of E.
        std::map<unsigned, long> vboth;
        for (const auto& [v, lanes] : n.vdefined)
          if (auto it = st.vdefined.find(v); it != st.vdefined.end()) {
            if (lanes == it->second) vboth[v] = lanes;
            else if (lanes == kFull || it->second == kFull) vboth[v] = lanes == kFull ? it->second : lanes;
          }
        n.vdefined = vboth;
      }
      if (--indegree[s] == 0) ready.push_back(s);
    }
  }
  if (visited != end_of.size()) return refuse("the load region has a cycle");
  for (const auto& [b, e] : end_of) r.blocks.push_back(b);  // std::map: layout order
  return r;
}

std::unique_ptr<Move> make_register_double_buffer_move() { return std::make_unique<RegisterDoubleBufferMove>(); }

std::string register_double_buffer_refusal(const program::Program& p, const std::string& kernel, size_t branch_line) {
  return RegisterDoubleBufferMove::refusal(p, kernel, branch_line);
}

}  // namespace asmevo::search
