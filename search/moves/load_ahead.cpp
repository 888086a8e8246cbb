// Move: load-ahead (issue 17). hipcc's MFMA matmul K-loop (corpus/hip/matmul_mfma_*.hip) is rotated:
//
//   H:  L_i   the tile's loads: per element a bounds test, s_and_saveexec, s_cbranch_execz over the
//             address code and one global_load, s_or_b64 exec; the last block branches to T
//   T:  restore; w: s_waitcnt vmcnt(0); X: v_perm/MFMA of tile i with S (k0 += 16, address steps,
//       s_cmp) interleaved; br: s_cbranch_scc EXIT          (falls into H)
//
// With one wave per CU-SIMD nothing hides the memory latency at w: 67 % of the modeled wave-cycles of
// matmul_mfma_16x16x16_f16 wait there (`asmevo profile`, decode_b64). register-double-buffer cannot help:
// X is ten instructions, so loads issued before X are still a full latency away at the next w. This move
// keeps two tiles in flight: tile i+1's loads issue into a second set of VGPRs before the wait for tile
// i, which becomes vmcnt(n) (n: the loads of one tile); the loop is unrolled by two so the sets alternate:
//
//   T:  restore; s_cmp_eq_u64 exec, -1; s_cbranch_scc1 TOP     (the guard; else the original loop)
//       w; X; br                                               (unchanged)
//   H:  L (unchanged), ending in its branch to T
//   TOP:   S; s_cbranch_scc(exit) LAST_A; L_B; s_waitcnt vmcnt(n); X_A
//          S; s_cbranch_scc(exit) LAST_B; L_A; s_waitcnt vmcnt(n); X_B; s_branch TOP
//   LAST_A: s_waitcnt vmcnt(0); X_A; s_cmp; s_branch EXIT   LAST_B: the same with X_B
//
// X_A is X without S (each S line's slot an s_nop 0, so every hazard distance inside X stays what it
// was), X_B the same with every VGPR L writes renamed to its fresh B register; L_A is L straight-line
// (its s_cbranch_execz and its final branch dropped, labels dropped), L_B the same renamed.
//
// Why the result is the same for every launch (per wave; workgroups share nothing here):
//  - Order. The original runs L_0 X_0 L_1 X_1 ... L_{m-1} X_{m-1}, the exit test at the end of each X.
//    The copy runs L_0 (in H, unchanged), then per iteration i: S_i, the exit test (S holds the s_cmp;
//    no S line after it writes SCC), L_{i+1} when the original runs it (the same test decides), X_i
//    without S. S_i moves above X_i's other lines (loop_slice: each commutes with the non-S lines it
//    crosses) and L_{i+1} above X_i \ S: L writes no unit X reads or writes other than VGPRs (renamed by
//    alternation, below), SCC (written before read in X, refused otherwise, and recomputed by the s_cmp
//    before EXIT) and EXEC (restored inside L); S writes no unit L writes and reads none (so S needs no
//    loaded value: it may run before the wait). L reads no unit L writes before writing it (EXEC aside),
//    so L_{i+1} reads only what S_i and code before the loop computed: its inputs are the original's.
//    The last L to run is L_{m-1} in both, so every non-VGPR unit L writes leaves with the same value;
//    the VGPRs L writes (both sets) are not live at EXIT (refused otherwise).
//  - Buffers. Iteration i reads tile i from set A (i even) or B (i odd) and issues tile i+1 into the
//    other: L_B and X_B are L and X with each VGPR L writes mapped to a fresh register (the kernel names
//    none of them; ranges map whole, parity kept for 64-bit alignment), so X_B computes on B what X
//    computes on A. A set is rewritten only by the L two iterations on, after X has read it (its VALU
//    reads happen at issue; MFMA source hazards are the static checker's). EXEC: the guard enters the
//    copy only with EXEC = all 64 lanes, so every VGPR X reads from L is written in every lane at
//    L's entry EXEC on every path (refused otherwise): no lane of a B register carries a value its A
//    register would not (MFMA reads every lane; partly written registers would differ there).
//  - Straight-line L. Each dropped `s_cbranch_execz` skipped, when EXEC = 0, only VALU/VOP3P code
//    that writes VGPRs alone, global/buffer loads and s_nop (refused otherwise): with EXEC = 0 these
//    write no lane and access no memory, so running them changes nothing, and the path through L is
//    the layout order whichever branches the original takes. Each of the n vector loads then issues on
//    every path and counts in vmcnt. ASSUMPTION (not in a public ISA table): a VMEM instruction issued
//    with EXEC = 0 increments vmcnt and returns like any other; LLVM's SIInsertWaitcnts counts every
//    VMEM whatever EXEC is, and SIPreEmitPeephole keeps skip branches over VMEM because such
//    instructions are "potentially expensive even if EXEC = 0" (they issue); the emulator does the same.
//  - Waits. vmcnt returns in issue order (check/waitcnt.h); when X_i runs, the n youngest vector memory
//    operations are L_{i+1}'s loads, so vmcnt(n) has completed L_i's loads and everything older, which
//    is what vmcnt(0) completed before X_i in the original (X has no memory access and no wait). The
//    last iteration waits vmcnt(0), so EXIT is reached with nothing outstanding, as before.
//  - Memory. L has only loads and X no memory access: moving loads earlier past ALU code changes no
//    value any of them reads (nothing in the loop writes memory, and nothing orders this wave with
//    other agents' writes at those points).
// The cascade's static checks (hazards, waitcnt proof) and differential verification check every edit.
//
// Refused (no edit), with the reason: see the refuse() calls in plan(); in short, a back branch that
// exits by its fallthrough, no load region ending at T's vmcnt(0), X with anything but SALU/VALU/VOP3P/
// MFMA/s_nop (memory, waits, EXEC writes, labels), an unrecognized slice or exit test, the unit
// conditions above, a VGPR L writes named inside a range that also names registers L does not write,
// AGPR kernels, no free VGPRs below the occupancy limit, more than 63 loads, an L whose last block
// falls through, and a loop this move edited already.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "check/isa.h"
#include "search/moves/load_ahead.h"
#include "search/moves/loops.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "search/moves/register_compact.h"
#include "search/moves/register_double_buffer.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

RegUnits units_in(const std::vector<RegRange>& list) {
  RegUnits u;
  for (const RegRange& r : list)
    for (unsigned q = 0; q < r.count; ++q) u.insert({r.file, r.first + q});
  return u;
}
bool intersects(const RegUnits& a, const RegUnits& b) {
  return std::any_of(a.begin(), a.end(), [&](const RegUnit& x) { return b.count(x) != 0; });
}
bool writes_file(const program::Instruction& in, RegFile f) {
  return std::any_of(in.defs.begin(), in.defs.end(), [&](const RegRange& d) { return d.file == f; });
}
bool has_side_effects(const program::Instruction& in) {
  const std::string& m = in.mnemonic;
  return m.rfind("s_setreg", 0) == 0 || m.rfind("s_getpc", 0) == 0 || m.rfind("s_setpc", 0) == 0 || m.rfind("s_set_gpr_idx", 0) == 0 ||
         m.find("movrel") != std::string::npos || m.rfind("s_sendmsg", 0) == 0 || m.rfind("s_dcache", 0) == 0 || in.is_call || in.is_return;
}
// An instruction that does nothing when EXEC = 0: it writes VGPRs only (or nothing) and touches memory
// only through its lanes.
bool inert_without_lanes(const program::Instruction& in) {
  using program::InstClass;
  if (has_side_effects(in)) return false;
  const bool vgpr_defs_only = std::all_of(in.defs.begin(), in.defs.end(), [](const RegRange& d) { return d.file == RegFile::VGPR; });
  switch (in.cls) {
    case InstClass::Nop: return true;
    case InstClass::VALU:
    case InstClass::VOP3P: return vgpr_defs_only;
    case InstClass::GLOBAL:
    case InstClass::VMEMLoad: return vgpr_defs_only && !in.may_store && in.text.find(" lds") == std::string::npos;
    default: return false;
  }
}

class LoadAheadMove final : public Move {
 public:
  std::string name() const override { return "load-ahead"; }
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
    return LoadAheadMove().plan(p, *f, kernel, branch_line, &why) ? "" : why;
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
    const unsigned exit_scc = br.mnemonic == "s_cbranch_scc1" ? 1 : 0;
    size_t t = SIZE_MAX;
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (f.blocks[b].last == br_line) t = b;
    if (t == SIZE_MAX || f.blocks[t].succs.size() != 2 || t + 1 >= f.blocks.size()) return refuse("the branch does not end a block with two successors");
    const program::BasicBlock& tb = f.blocks[t];
    const size_t h = t + 1;  // the fallthrough: the loop header
    if (std::find(tb.succs.begin(), tb.succs.end(), h) == tb.succs.end()) return refuse("the branch's fallthrough is not a successor");
    const std::vector<std::string> br_ops = split_operands(p.text_line(br_line).text, br.mnemonic.size());
    if (br_ops.size() != 1) return refuse("the branch has no label target");
    const std::string exit_label = br_ops[0];
    size_t exit_block = SIZE_MAX;
    for (size_t s : tb.succs)
      if (s != h) exit_block = s;
    if (exit_block == SIZE_MAX || exit_block == t) return refuse("the loop does not exit by its back branch (a fallthrough exit or a self-loop)");
    for (size_t i = tb.first; i <= tb.last; ++i)
      if (p.text_line(i).kind == program::Line::Label && p.text_line(i).text.rfind(".Lahead", 0) == 0) return refuse("this loop was edited by load-ahead already");

    std::string rwhy;
    const std::optional<LoadRegion> region = load_region_from(p, f, h, arch, &rwhy);
    if (!region) return refuse("the loop header does not start a load region: " + rwhy);
    if (region->terminal != t) return refuse("the load region ends at a vmcnt(0) in another block");
    const LoadRegion& L = *region;
    std::vector<size_t> body;
    for (size_t b : L.blocks)
      if (b != t) body.push_back(b);
    std::sort(body.begin(), body.end());
    if (body.empty() || body.front() != h) return refuse("the load region does not start its layout at the loop header");
    for (size_t k = 1; k < body.size(); ++k)
      if (body[k] != body[k - 1] + 1) return refuse("the load region's blocks are not contiguous");
    for (size_t pred : f.blocks[h].preds)
      if (std::find(body.begin(), body.end(), pred) != body.end()) return refuse("the loop header is entered from inside the load region");
    const size_t last_line = f.blocks[body.back()].last;
    const program::Instruction* last = inst_at(last_line);
    if (!last || last->mnemonic != "s_branch" || !last->no_fallthrough) return refuse("the load region's last block does not end in an s_branch to the wait's block");

    // L's lines: the body's, then T's before w. The straight-line copy drops labels, the execz skips
    // (each checked: what it skips is inert with EXEC = 0) and the final branch.
    std::map<std::string, size_t> label_line;
    for (size_t i = f.begin; i < f.end; ++i)
      if (p.text_line(i).kind == program::Line::Label) label_line[p.text_line(i).text] = i;
    std::vector<size_t> l_lines;
    unsigned loads = 0;
    std::vector<size_t> region_lines;  // layout: T comes before H (the loop is rotated)
    for (size_t i = f.blocks[body.front()].first; i <= last_line; ++i) region_lines.push_back(i);
    for (size_t i = tb.first; i < L.w; ++i) region_lines.push_back(i);
    for (size_t i : region_lines) {
      const program::Line& l = p.text_line(i);
      if (!l.is_instruction()) continue;
      const program::Instruction* in = inst_at(i);
      if (!in) return refuse("an undecoded instruction in the load region");
      if (i == last_line) continue;
      if (in->is_branch) {
        if (in->mnemonic != "s_cbranch_execz") return refuse("a branch in the load region other than s_cbranch_execz (" + in->text + ")");
        const std::vector<std::string> o = split_operands(l.text, in->mnemonic.size());
        if (o.size() != 1 || !label_line.count(o[0])) return refuse("an s_cbranch_execz without a label target (" + l.text + ")");
        // What it skips: the region's lines after it up to its target label (T's label: to the end of L's body).
        const size_t to = label_line.at(o[0]);
        const bool to_t = to < tb.first && to + 1 >= tb.first;  // the label right before T's first line
        if (!to_t && (to < i || to > last_line)) return refuse("an s_cbranch_execz that does not skip forward inside the load region (" + l.text + ")");
        const size_t skip_end = to_t ? last_line + 1 : to;
        for (size_t j = i + 1; j < skip_end; ++j)
          if (const program::Instruction* s = inst_at(j); p.text_line(j).is_instruction() && j != last_line && (!s || !inert_without_lanes(*s)))
            return refuse("an s_cbranch_execz skips '" + p.text_line(j).text + "', which acts with EXEC = 0");
        continue;
      }
      if (in->cls == program::InstClass::GLOBAL || in->cls == program::InstClass::VMEMLoad) ++loads;
      l_lines.push_back(i);
    }
    if (loads == 0) return refuse("the load region has no vector load");
    if (loads > check::counter_limits(arch).max[check::kVmCnt]) return refuse(fmt::format("{} loads per iteration do not fit in vmcnt", loads));

    // X: after w up to br; straight-line ALU and MFMA code.
    std::vector<size_t> x;
    for (size_t i = L.w + 1; i < br_line; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::Label) return refuse("a label inside the loop's compute");
      if (!l.is_instruction()) continue;
      const program::Instruction* in = inst_at(i);
      if (!in) return refuse("an undecoded instruction in the loop's compute");
      using program::InstClass;
      const bool alu = in->cls == InstClass::SALU || in->cls == InstClass::VALU || in->cls == InstClass::VOP3P || in->cls == InstClass::MFMA || in->cls == InstClass::Nop;
      if (!alu || has_side_effects(*in)) return refuse("the loop's compute has '" + in->text + "' (only ALU and MFMA code)");
      if (writes_file(*in, RegFile::EXEC)) return refuse("the loop's compute writes EXEC (" + in->text + ")");
      x.push_back(i);
    }
    LoopSlice slice;
    if (std::string w = loop_slice(p, x, L.reads_in, slice); !w.empty()) return refuse(w);
    const size_t cmp_line = *slice.cmp_line;
    const RegUnits cmp_uses = units_in(inst_at(cmp_line)->uses);
    RegUnits s_uses, s_defs, rest_uses, rest_defs;
    bool scc_written = false;
    for (size_t i : x) {
      const program::Instruction& in = *inst_at(i);
      const RegUnits u = units_in(in.uses), d = units_in(in.defs);
      if (i > cmp_line && intersects(d, cmp_uses)) return refuse("the exit test's inputs change after it (" + in.text + ")");
      if (slice.lines.count(i)) {
        if (i > cmp_line && d.count({RegFile::SCC, 0})) return refuse("a line after the exit test writes SCC (" + in.text + ")");
        s_uses.insert(u.begin(), u.end());
        s_defs.insert(d.begin(), d.end());
        continue;
      }
      if (!scc_written && u.count({RegFile::SCC, 0})) return refuse("the loop's compute reads SCC before writing it (" + in.text + ")");
      scc_written |= d.count({RegFile::SCC, 0}) != 0;
      rest_uses.insert(u.begin(), u.end());
      rest_defs.insert(d.begin(), d.end());
    }
    // The units L writes: VGPRs alternate between the two sets; the others X must not touch, S must not
    // write; S reads none of L's results and L none of its own before writing them.
    std::set<unsigned> vgprs;
    if (s_uses.count({RegFile::SCC, 0})) return refuse("the loop's counter code reads SCC");
    for (const RegUnit& u : L.writes) {
      if (u.first == RegFile::EXEC) continue;
      if (u.first == RegFile::SCC) continue;  // S's SCC is read by the guard before L; X writes SCC before reading it (checked); the s_cmp is re-run before EXIT
      if (s_defs.count(u)) return refuse("the loop's counter code writes " + program::to_string(RegRange{u.first, u.second, 1}) + ", which the loads write");
      if (s_uses.count(u)) return refuse("the loop's counter code reads " + program::to_string(RegRange{u.first, u.second, 1}) + ", which the loads write");
      if (L.reads_in.count(u)) return refuse("the loads read " + program::to_string(RegRange{u.first, u.second, 1}) + " before they write it");
      if (u.first == RegFile::VGPR) {
        vgprs.insert(u.second);
        continue;
      }
      if (rest_uses.count(u) || rest_defs.count(u))
        return refuse("the loads write " + program::to_string(RegRange{u.first, u.second, 1}) + ", which the loop's compute uses");
    }
    // X's reads of L's VGPRs before X writes them: written in every lane at L's entry EXEC.
    {
      std::set<unsigned> written;
      for (size_t i : x) {
        const program::Instruction& in = *inst_at(i);
        for (const RegRange& r : in.uses)
          if (r.file == RegFile::VGPR)
            for (unsigned q = r.first; q < r.first + r.count; ++q)
              if (vgprs.count(q) && !written.count(q) && !L.defined_at_entry_exec.count(q))
                return refuse(fmt::format("v{} is read by the compute but not written in every lane of the header's EXEC on every path through the loads", q));
        for (const RegRange& r : in.defs)
          if (r.file == RegFile::VGPR)
            for (unsigned q = r.first; q < r.first + r.count; ++q) written.insert(q);
      }
    }
    // Not live at EXIT.
    {
      const std::vector<program::RegSet> live = p.live_in(f);
      const program::RegSet& at_exit = live.at(f.blocks[exit_block].first - f.begin);
      for (unsigned v : vgprs)
        if (at_exit.contains(RegRange{RegFile::VGPR, v, 1})) return refuse(fmt::format("v{} (written by the loads) is live after the loop", v));
    }
    // The renaming: components of L's VGPRs joined by the ranges that name them (in L and X), each a
    // contiguous span mapped whole to fresh registers, parity kept.
    std::map<unsigned, unsigned> comp_lo, comp_hi;  // VGPR -> its span
    for (unsigned v : vgprs) comp_lo[v] = comp_hi[v] = v;
    std::vector<size_t> named_lines = l_lines;
    named_lines.insert(named_lines.end(), x.begin(), x.end());
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i : named_lines)
        for (const auto* list : {&inst_at(i)->defs, &inst_at(i)->uses})
          for (const RegRange& r : *list) {
            if (r.file != RegFile::VGPR || r.count == 1) continue;
            bool any = false, all = true;
            for (unsigned q = r.first; q < r.first + r.count; ++q) {
              if (vgprs.count(q)) any = true;
              else all = false;
            }
            if (!any) continue;
            if (!all) return refuse(fmt::format("the range v[{}:{}] names registers the loads write and others ({})", r.first, r.first + r.count - 1, inst_at(i)->text));
            unsigned lo = r.first, hi = r.first + r.count - 1;
            for (unsigned q = r.first; q <= r.first + r.count - 1; ++q) lo = std::min(lo, comp_lo[q]), hi = std::max(hi, comp_hi[q]);
            for (unsigned q = lo; q <= hi; ++q) {
              if (!vgprs.count(q)) return refuse(fmt::format("v{} lies inside a register range of the loads' registers but is not written by them", q));
              if (comp_lo[q] != lo || comp_hi[q] != hi) changed = true;
              comp_lo[q] = lo, comp_hi[q] = hi;
            }
          }
    }
    VgprRoom room;
    if (const std::string w = fresh_vgpr_room(p, kernel, room); !w.empty()) return refuse(w);
    std::vector<std::pair<RegRange, unsigned>> renames;  // span -> fresh first register
    for (unsigned v : vgprs) {
      if (comp_lo[v] != v) continue;
      const unsigned lo = v, hi = comp_hi[v];
      const bool odd = lo % 2 == 1 && hi > lo;
      const std::optional<unsigned> r = room.take(hi - lo + 1 + (odd ? 1 : 0));
      if (!r) return refuse(fmt::format("no free VGPRs below v{} (the occupancy limit) for the second buffer", room.limit));
      renames.push_back({RegRange{RegFile::VGPR, lo, hi - lo + 1}, *r + (odd ? 1 : 0)});
    }
    auto renamed = [&](size_t i) {
      std::string text = p.text_line(i).text;
      for (const auto& [from, to] : renames) text = rename_registers(text, from, to);
      return text;
    };

    // The edit.
    const std::string tag = fmt::format(".Lahead{:x}", p.text_line(L.w).address);
    const std::string top = tag + "_top", last_a = tag + "_last_a", last_b = tag + "_last_b";
    const std::string exit_branch = fmt::format("s_cbranch_scc{} ", exit_scc);
    const std::string wait_n = fmt::format("s_waitcnt vmcnt({})", loads);
    auto compute = [&](bool b_set, std::vector<std::string>& out) {
      for (size_t i : x) out.push_back(slice.lines.count(i) ? "s_nop 0" : (b_set ? renamed(i) : p.text_line(i).text));
    };
    auto loads_copy = [&](bool b_set, std::vector<std::string>& out) {
      for (size_t i : l_lines) out.push_back(b_set ? renamed(i) : p.text_line(i).text);
    };
    std::vector<std::string> s_text;
    for (size_t i : x)
      if (slice.lines.count(i)) s_text.push_back(p.text_line(i).text);
    std::vector<std::string> pipe{p.text_line(last_line).text, top + ":"};
    for (bool b_set : {false, true}) {
      pipe.insert(pipe.end(), s_text.begin(), s_text.end());
      pipe.push_back(exit_branch + (b_set ? last_b : last_a));
      loads_copy(!b_set, pipe);
      pipe.push_back(wait_n);
      compute(b_set, pipe);
    }
    pipe.push_back("s_branch " + top);
    for (bool b_set : {false, true}) {
      pipe.push_back((b_set ? last_b : last_a) + ":");
      pipe.push_back("s_waitcnt vmcnt(0)");
      compute(b_set, pipe);
      pipe.push_back(p.text_line(cmp_line).text);
      pipe.push_back("s_branch " + exit_label);
    }
    Edit e;
    e.kernel = kernel;
    e.move = name();
    e.proposer = proposer();
    e.hunks.push_back(make_hunk(p, L.w, L.w, {"s_cmp_eq_u64 exec, -1", "s_cbranch_scc1 " + top, p.text_line(L.w).text}));
    e.hunks.push_back(make_hunk(p, last_line, last_line, pipe));
    std::string names;
    for (const auto& [from, to] : renames)
      names += fmt::format("{}{}->v{}", names.empty() ? "" : ", ", program::to_string(from), to);
    e.description = fmt::format("loop at 0x{:x}: the next tile's {} loads issue before this tile's wait (vmcnt({})) into a second register set, "
                                "unrolled by 2, behind an EXEC = all-lanes guard; second set {}",
                                p.text_line(L.w).address, loads, loads, names);
    return e;
  }
};

}  // namespace

std::unique_ptr<Move> make_load_ahead_move() { return std::make_unique<LoadAheadMove>(); }

std::string load_ahead_refusal(const program::Program& p, const std::string& kernel, size_t branch_line) {
  return LoadAheadMove::refusal(p, kernel, branch_line);
}

}  // namespace asmevo::search
