// Move: masking by buffer bounds (issue 17; the shape it edits is in buffer_bounds.h). The site
//     s_and_saveexec_b64 S, M ; s_cbranch_execz L ; <address arithmetic> ; global_load_dword vD, vA, off
//   L: s_or_b64 exec, exec, S
// (M = `sN > vI` or `vI < sN`, signed or unsigned 32-bit; vA = sB + (v[I:H] << 2), H the sign (or
// zero) extension of vI; vD = 0 on every lane of EXEC before the saveexec) is replaced by
//     s_mov_b32 sK, 0x40000000
//     s_cmp_lt_u32 sN, sK              ; s_cbranch_scc0 orig     (0 <= n < 2^30)
//     s_cmp_lt_u32 sB+1, 0x10000       ; s_cbranch_scc0 orig     (the base fits the V#'s 48 bits)
//     v_cmp_gt_u32_e64 s[T:T+1], sK, vI
//     s_cmp_eq_u64 s[T:T+1], exec      ; s_cbranch_scc0 orig     (0 <= i < 2^30 on every active lane)
//     s_mov_b32 sQ, sB ; s_mov_b32 sQ+1, sB+1 ; s_lshl_b32 sQ+2, sN, 2 ; s_mov_b32 sQ+3, 0x27000
//     v_lshlrev_b32 vD, 2, vI
//     buffer_load_dword vD, vD, s[Q:Q+3], 0 offen
//   L:
// Where sN and sB are last written in a block W dominating the site (hoist_point: nothing on a path
// from W to the site writes them, no scalar load of them outstanding, SCC dead), the uniform part is
// computed once there instead (outside the loop for the two scans' chunk loops):
//     s_mov_b32 sQ.. (the V# as above) ; s_cmp_lt_u32 sN, 0x40000000 ; s_cselect_b32 sK, 0x40000000, 0
//     s_cmp_lt_u32 sB+1, 0x10000 ; s_cselect_b32 sK, sK, 0
// and the site keeps only the per-lane test, v_lshlrev_b32 and the buffer load. sK = 2^30 exactly when
// both uniform tests hold; sK = 0 makes the per-lane test fail on every wave with an active lane (no
// u32 is below 0), so such waves run the original, and a wave with no active lane changes nothing in
// either version. At the site sN and sB hold what the prelude read: every execution reaching it
// passed the prelude on its last visit to W (straight-line code dominating the site) and wrote
// neither since.
// In both forms the original lines (saveexec .. restore, L renamed) go after the kernel's last instruction,
// entered at `orig` and ending with `s_branch L`; L, where the restore was, is the join. sQ..sQ+3
// (4-aligned), T, T+1 and sK are SGPRs above every one the kernel names (8 more per further site of
// one edit); the KD's SGPR count is recomputed on rebuild. The prelude writes only those and SCC,
// where SCC is dead.
//
// Why every launch (E: EXEC at the saveexec; a lane is "active" when it is in E):
// - Lanes outside E: neither version writes a register or memory for them (v_cmp, v_lshlrev and the
//   buffer load act on E's lanes only; the SALU lines are uniform).
// - Guard failed: the original lines run unchanged (the guard writes only sK, T, T+1 and SCC; SCC is
//   written by the saveexec before any read in the original, so its value at the site is dead).
// - Guard passed: 0 <= n < 2^30 and 0 <= i < 2^30 on every active lane, so the signed and the
//   unsigned compare agree and M = (i < n) on E. H = 0 (sign or zero extension of a non-negative
//   32-bit value), so the original's address is sB + 4i in 64 bits, and 4i < 2^32 is exactly the
//   32-bit VGPR offset (no wrap). The V# is raw (stride 0: word1 = sB+1 < 0x10000 leaves
//   stride/swizzle zero; ADD_TID_ENABLE clear in word3; no idxen), base {word1[15:0], word0} = sB,
//   num_records = 4n (< 2^32, no wrap). The range check for a raw buffer (CDNA3 ISA "Buffer
//   Addressing / Range Checking"; AsmEvo's emulator, emu/semantics/buffer_addr.h `raw_in_range`,
//   and the header of emu/semantics/mubuf.cpp) is: out of range when soffset + offset + size >
//   num_records, summed without wrap; out-of-range loads return 0 and do not access memory. Here
//   soffset = 0, size = 4: lane i is in range iff 4i + 4 <= 4n iff i < n iff M. In range it reads the
//   dword at sB + 4i, the original's address; out of range it reads 0, what the original's masked-off
//   lane kept in vD (the v_mov_b32 vD, 0 before the saveexec, under the same EXEC, with no EXEC write
//   in between). So vD holds the same value on every active lane, and no lane touches memory the
//   original did not (an out-of-range lane touches none; an in-range lane the same dword).
// - Everything else the original wrote: S (the saved EXEC) and SCC are checked dead after the
//   restore; EXEC after the restore is E in both; the body's address registers (every VGPR it writes
//   but vD) hold other values on M's lanes in the new code, so each must be dead there: in the
//   restore's block it is fully written before any read and before any EXEC write (a write under E
//   covers M's lanes); past an EXEC write, no reachable read (loops included) may see a value not
//   written by a full write earlier in the read's own block with no EXEC write between (in a loop,
//   the next iteration's body writes the address and then reads it under the same EXEC).
//   M itself, vI, vH and sN stay as they were (the compare and the extension are kept before the site).
// - Memory order: one vector load in both, issued at the same place in program order; vmcnt counts it
//   the same way (a buffer load and a global load are both VMEM loads), so later waits keep covering it.
// - The V#'s 48-bit base is the full 64-bit base only when sB+1 < 0x10000 (the second guard); on a
//   wave where it is not (not a canonical user address on gfx942), the original runs.
// Refused, with the reason (buffer_bounds_sites): a mask built from two compares (`row < M && k < K`,
// the GEMM tiles and stencils: a two-sided or 2-D bound), 64-bit compares, a bound not in an SGPR, a
// body with other work than the address arithmetic and the one load (stores, atomics, waits, other
// loads, load offsets or cache bits), an address not sB + (i << 2) of the compared index, masked-off
// lanes not holding 0, a join with other predecessors or not `s_or_b64 exec, exec, S`, S or SCC live
// after it, an address register read after it, a kernel whose last instruction falls through, no free
// SGPRs, an arch other than gfx942 (dword3's flags are read from Triton's gfx942 objects only).
#include "search/moves/buffer_bounds.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

constexpr unsigned kLastAllocatableSgpr = 101;  // s0..s101 besides VCC (CDNA3 ISA, "SGPR allocation")

struct Compare {
  unsigned bound_id = 0, index_id = 0;  // value ids
  unsigned bound_sgpr = 0, index_vgpr = 0;
  unsigned mask_hi_id = 0;  // id of the mask's second unit (a 64-bit lane mask)
};

struct Address {
  unsigned lo_id = 0, hi_id = 0;        // the shifted 64-bit index
  unsigned base_lo = 0, base_hi = 0;    // value ids of the base pair
  unsigned dst_hi_id = 0;
};

// Value numbering over straight-line code: each register unit names a value id; a copy shares its
// source's id. Facts are kept per id.
struct Values {
  unsigned next = 1;
  std::map<std::pair<int, unsigned>, unsigned> id;
  std::set<unsigned> zero;
  std::map<unsigned, unsigned> sign_hi;  // id of `v_ashrrev_i32 31, x` -> id of x
  std::map<unsigned, Compare> compare;   // id of a mask's first unit -> the compare
  std::set<unsigned> two_sided;          // ids of masks that are an s_and_b64 of two masks
  std::set<unsigned> wide;               // ids of masks from a 64-bit compare
  std::set<unsigned> any_compare;        // ids of masks from any v_cmp
  std::map<unsigned, Address> address;   // id of an address pair's first unit
  unsigned of(RegFile f, unsigned i) {
    auto key = std::make_pair(static_cast<int>(f), i);
    if (auto it = id.find(key); it != id.end()) return it->second;
    return id[key] = next++;
  }
  void set(RegFile f, unsigned i, unsigned v) { id[{static_cast<int>(f), i}] = v; }
  // Names every SGPR and VGPR's value, so that a snapshot holds an id for each register.
  void touch_all() {
    for (unsigned i = 0; i < 106; ++i) of(RegFile::SGPR, i);
    for (unsigned i = 0; i < 256; ++i) of(RegFile::VGPR, i);
  }
};

std::optional<RegRange> reg(const std::vector<std::string>& ops, size_t i) {
  if (i >= ops.size()) return std::nullopt;
  return program::parse_reg(ops[i]);
}

void step(Values& v, const program::Instruction& in) {
  const std::string& m = in.mnemonic;
  const std::vector<std::string> ops = split_operands(in.text, m.size());
  // Facts are read before the defs get their new ids.
  std::optional<unsigned> alias;  // the single def takes this id
  bool zero = false;
  std::optional<unsigned> sign_of;
  std::optional<Compare> cmp;
  bool and_of_masks = false;
  const bool wide = m.rfind("v_cmp_", 0) == 0 && (m.find("_i64_") != std::string::npos || m.find("_u64_") != std::string::npos);
  std::optional<Address> addr;
  if (m == "v_mov_b32_e32" && ops.size() == 2) {
    if (ops[1] == "0") zero = true;
    else if (auto r = reg(ops, 1); r && r->count == 1 && (r->file == RegFile::VGPR || r->file == RegFile::SGPR)) alias = v.of(r->file, r->first);
  } else if (m == "v_ashrrev_i32_e32" && ops.size() == 3 && ops[1] == "31") {
    if (auto r = reg(ops, 2); r && r->file == RegFile::VGPR) sign_of = v.of(r->file, r->first);
  } else if (m.rfind("v_cmp_", 0) == 0 && ops.size() == 3) {
    const bool gt = m.rfind("v_cmp_gt_i32_", 0) == 0 || m.rfind("v_cmp_gt_u32_", 0) == 0;
    const bool lt = m.rfind("v_cmp_lt_i32_", 0) == 0 || m.rfind("v_cmp_lt_u32_", 0) == 0;
    auto a = reg(ops, 1), b = reg(ops, 2);
    if ((gt || lt) && a && b) {
      if (lt) std::swap(a, b);  // lt: vI < sN, i.e. sN > vI
      auto d = reg(ops, 0);
      if (a->file == RegFile::SGPR && a->count == 1 && b->file == RegFile::VGPR && b->count == 1 && d && d->count == 2)
        cmp = Compare{v.of(a->file, a->first), v.of(b->file, b->first), a->first, b->first, 0};
    }
  } else if (m == "s_and_b64" && ops.size() == 3) {
    auto a = reg(ops, 1), b = reg(ops, 2);
    auto is_mask = [&](const std::optional<RegRange>& r) {
      return r && r->count == 2 && (v.any_compare.count(v.of(r->file, r->first)) || v.two_sided.count(v.of(r->file, r->first)));
    };
    and_of_masks = is_mask(a) || is_mask(b);  // a compare and'ed with another mask: a conjunction of bounds
  } else if (m == "v_lshl_add_u64" && ops.size() == 4 && ops[2] == "2") {
    auto x = reg(ops, 1), base = reg(ops, 3);
    if (x && base && x->file == RegFile::VGPR && x->count == 2 && base->count == 2 && (base->file == RegFile::SGPR || base->file == RegFile::VGPR))
      addr = Address{v.of(x->file, x->first), v.of(x->file, x->first + 1), v.of(base->file, base->first), v.of(base->file, base->first + 1), 0};
  }
  std::vector<unsigned> fresh;
  for (const RegRange& d : in.defs)
    for (unsigned k = 0; k < d.count; ++k) {
      unsigned id = (alias && in.defs.size() == 1 && d.count == 1) ? *alias : v.next++;
      v.set(d.file, d.first + k, id);
      fresh.push_back(id);
    }
  if (in.defs.empty() || fresh.empty()) return;
  const unsigned first = fresh.front();
  if (zero && in.defs.size() == 1 && in.defs[0].count == 1) v.zero.insert(first);
  if (sign_of && in.defs.size() == 1 && in.defs[0].count == 1) v.sign_hi[first] = *sign_of;
  if (cmp && fresh.size() >= 2) cmp->mask_hi_id = fresh[1], v.compare[first] = *cmp;
  if (and_of_masks) v.two_sided.insert(first);
  if (wide) v.wide.insert(first);
  if (m.rfind("v_cmp_", 0) == 0) v.any_compare.insert(first);
  if (addr && fresh.size() == 2) addr->dst_hi_id = fresh[1], v.address[first] = *addr;
}

const RegRange kExec{RegFile::EXEC, 0, 2};
const RegRange kScc{RegFile::SCC, 0, 1};

// A planned site: everything the edit needs.
struct Plan {
  size_t saveexec = 0, load = 0, restore = 0;  // lines
  std::string label;                 // L
  unsigned bound = 0, index = 0, base = 0, dst = 0;  // sN, vI, sB (first), vD
  // Where the uniform part (sK and the V#) can be computed once: the line it goes before, or none
  // (then it is computed at the site).
  std::optional<size_t> prelude_at;
};

class Analysis {
 public:
  Analysis(const program::Program& p, const std::string& kernel)
      : p_(p), kernel_(kernel), f_(kernel_function(p, kernel)), live_(p.live_in(f_)) {
    for (size_t b = 0; b < f_.blocks.size(); ++b) block_of_first_[f_.blocks[b].first] = b;
  }

  std::vector<BufferBoundsSite> sites(std::vector<Plan>* plans) const {
    std::vector<BufferBoundsSite> out;
    for (size_t b = 0; b < f_.blocks.size(); ++b) {
      const program::BasicBlock& pre = f_.blocks[b];
      if (pre.last <= pre.first) continue;
      const program::Line& last = p_.text_line(pre.last);
      const program::Line& sv = p_.text_line(pre.last - 1);
      if (!last.inst || !sv.inst || last.inst->mnemonic != "s_cbranch_execz" || sv.inst->mnemonic != "s_and_saveexec_b64") continue;
      // The skipped block: the fall-through one.
      const size_t body_line = pre.last + 1;
      auto bi = block_at(body_line);
      if (!bi) continue;
      bool has_global_load = false;
      for (size_t i = f_.blocks[*bi].first; i <= f_.blocks[*bi].last; ++i)
        if (const auto& l = p_.text_line(i); l.inst && l.inst->mnemonic.rfind("global_load", 0) == 0) has_global_load = true;
      if (!has_global_load) continue;
      Plan plan;
      std::string why = analyse(b, *bi, plan);
      out.push_back({pre.last - 1, why});
      if (why.empty() && plans) plans->push_back(plan);
    }
    return out;
  }

 private:
  std::optional<size_t> block_at(size_t line) const {
    while (line < f_.end && !p_.text_line(line).is_instruction()) ++line;
    auto it = block_of_first_.find(line);
    if (it == block_of_first_.end()) return std::nullopt;
    return it->second;
  }

  // Whether `r`'s value on the lanes of EXEC at the restore may still be read at line `from` on. In
  // the restore's block, a full write before any read and before any EXEC write ends it (the write
  // covers those lanes). Past an EXEC write, a read counts unless a full write of `r` precedes it in
  // its own block with no EXEC write between (that write covers every lane the read sees): every line
  // reachable from there is searched, loops included.
  bool read_after(const RegRange& r, size_t from, size_t block) const {
    const program::BasicBlock& blk = f_.blocks[block];
    for (size_t i = from; i <= blk.last; ++i) {
      const program::Line& l = p_.text_line(i);
      if (!l.inst) return true;
      if (l.inst->reads(r)) return true;
      if (l.inst->writes(kExec)) return exposed_read(r, i + 1, block);
      if (l.inst->writes(r)) return false;  // not a read too, so the whole register (a partial write is listed as a use)
    }
    return exposed_read(r, blk.last + 1, block);
  }

  bool exposed_read(const RegRange& r, size_t from, size_t block) const {
    std::vector<std::pair<size_t, size_t>> work{{block, from}};  // (block, first line to scan)
    std::set<size_t> seen;
    while (!work.empty()) {
      auto [b, start] = work.back();
      work.pop_back();
      const program::BasicBlock& blk = f_.blocks[b];
      bool covered = false;
      for (size_t i = start; i <= blk.last; ++i) {
        const program::Line& l = p_.text_line(i);
        if (!l.inst) return true;
        if (l.inst->reads(r) && !covered) return true;
        if (l.inst->writes(kExec)) covered = false;
        else if (l.inst->writes(r) && !l.inst->reads(r)) covered = true;
      }
      for (size_t s : blk.succs)
        if (seen.insert(s).second) work.push_back({s, f_.blocks[s].first});
    }
    return false;
  }

  bool live_after(const RegRange& r, size_t line, const program::BasicBlock& blk) const {
    if (line < blk.last) return live_[line + 1 - f_.begin].contains(r);
    for (size_t s : blk.succs)
      if (live_[f_.blocks[s].first - f_.begin].contains(r)) return true;
    return false;
  }

  std::string analyse(size_t b, size_t bi, Plan& plan) const {
    const program::BasicBlock& pre = f_.blocks[b];
    const program::BasicBlock& body = f_.blocks[bi];
    const size_t sv = pre.last - 1;
    const program::Instruction& save = *p_.text_line(sv).inst;
    const auto sops = split_operands(save.text, save.mnemonic.size());
    auto S = reg(sops, 0), M = reg(sops, 1);
    if (!S || !M || S->count != 2 || M->count != 2) return "saveexec operands not two register pairs";
    const auto bops = split_operands(p_.text_line(pre.last).text, p_.text_line(pre.last).inst->mnemonic.size());  // the line names the label
    if (bops.size() != 1) return "execz branch without a label";
    const std::string label = bops[0];
    // Value facts over the block, from its last EXEC write on (a fact from before it may not hold on
    // lanes the write enabled).
    Values v;
    v.touch_all();
    for (size_t i = pre.first; i < sv; ++i) {
      const program::Line& l = p_.text_line(i);
      if (!l.inst) return "an undecoded line before the site";
      if (l.inst->writes(kExec)) v = Values{}, v.touch_all();
      else step(v, *l.inst);
    }
    const unsigned mask_id = v.of(M->file, M->first);
    if (v.two_sided.count(mask_id)) return "two-sided or 2-D bound: the mask is an s_and_b64 of a compare and another mask";
    if (v.wide.count(mask_id)) return "64-bit bound (v_cmp_*_i64/u64 of a 64-bit index): not covered";
    auto c = v.compare.find(mask_id);
    if (c == v.compare.end() || c->second.mask_hi_id != v.of(M->file, M->first + 1))
      return "mask is not one v_cmp_gt/lt_i32/u32 of an SGPR bound and a VGPR index in the block";
    const Compare cmp = c->second;
    if (v.of(RegFile::SGPR, cmp.bound_sgpr) != cmp.bound_id) return "the bound's SGPR is rewritten before the saveexec";
    if (v.of(RegFile::VGPR, cmp.index_vgpr) != cmp.index_id) return "the index VGPR is rewritten before the saveexec";
    const auto at_site = v.id;  // ids at the saveexec (the fast path's reads happen there)
    // The body: address arithmetic, then the load, its last line; its only predecessor the site.
    if (body.preds.size() != 1 || body.preds[0] != b) return "the skipped block has other predecessors";
    std::set<unsigned> body_vgprs;  // every VGPR the body writes
    std::optional<RegRange> dst;
    for (size_t i = body.first; i <= body.last; ++i) {
      const program::Line& l = p_.text_line(i);
      if (!l.inst) return "an undecoded line in the body";
      const program::Instruction& in = *l.inst;
      const std::string& m = in.mnemonic;
      if (i == body.last) {
        const auto ops = split_operands(in.text, m.size());
        if (m != "global_load_dword" || ops.size() != 3 || ops[2] != "off") return "the body does not end in a plain global_load_dword vD, v[A:A+1], off";
        auto d = reg(ops, 0), a = reg(ops, 1);
        if (!d || !a || d->file != RegFile::VGPR || a->file != RegFile::VGPR || a->count != 2) return "load operands";
        auto ad = v.address.find(v.of(a->file, a->first));
        if (ad == v.address.end() || ad->second.dst_hi_id != v.of(a->file, a->first + 1)) return "the load's address is not one v_lshl_add_u64 x, 2, base of the body or block";
        const Address& A = ad->second;
        if (A.lo_id != cmp.index_id) return "the address is not computed from the compared index";
        auto hi = v.sign_hi.find(A.hi_id);
        if (!v.zero.count(A.hi_id) && (hi == v.sign_hi.end() || hi->second != cmp.index_id)) return "the index's high half is not its sign or zero extension";
        // The base: an SGPR pair holding those values at the site.
        std::optional<unsigned> base;
        for (const auto& [key, id] : at_site)
          if (key.first == static_cast<int>(RegFile::SGPR) && id == A.base_lo && key.second % 2 == 0) {
            auto nx = at_site.find({key.first, key.second + 1});
            if (nx != at_site.end() && nx->second == A.base_hi) base = key.second;
          }
        if (!base) return "the address base is not an SGPR pair at the site";
        // vD: 0 on every active lane at the site.
        auto z = at_site.find({static_cast<int>(RegFile::VGPR), d->first});
        if (z == at_site.end() || !v.zero.count(z->second)) return "masked-off lanes do not hold 0 (no v_mov_b32 vD, 0 reaching the site)";
        dst = d;
        plan.base = *base;
        break;
      }
      const bool address_work = m == "v_mov_b32_e32" || m == "v_ashrrev_i32_e32" || m == "v_lshl_add_u64";
      if (!address_work) return "the body holds other work than the address arithmetic and one load (" + m + ")";
      for (const RegRange& d : in.defs) {
        if (d.file != RegFile::VGPR) return "the body writes a non-VGPR register";
        for (unsigned k = 0; k < d.count; ++k) body_vgprs.insert(d.first + k);
      }
      step(v, in);
    }
    if (!dst) return "no load";
    // The join.
    auto ji = block_at(body.last + 1);
    if (!ji) return "no join block after the body";
    const program::BasicBlock& join = f_.blocks[*ji];
    std::set<size_t> preds(join.preds.begin(), join.preds.end());
    if (preds != std::set<size_t>{b, bi}) return "the join has other predecessors";
    bool labelled = false;
    for (size_t i = body.last + 1; i < join.first; ++i)
      if (p_.text_line(i).kind == program::Line::Label && p_.text_line(i).text == label) labelled = true;
    if (!labelled) return "the execz target is not the join";
    const program::Instruction& rest = *p_.text_line(join.first).inst;
    const auto rops = split_operands(rest.text, rest.mnemonic.size());
    if (rest.mnemonic != "s_or_b64" || rops.size() != 3 || rops[0] != "exec" || rops[1] != "exec" || program::parse_reg(rops[2]) != S)
      return "the join does not start with s_or_b64 exec, exec, S";
    if (live_after(*S, join.first, join)) return "the saved EXEC is live after the join";
    if (live_after(kScc, join.first, join)) return "SCC is live after the join";
    body_vgprs.erase(dst->first);
    for (unsigned r : body_vgprs)
      if (read_after(RegRange{RegFile::VGPR, r, 1}, join.first + 1, *ji)) return fmt::format("v{} (address arithmetic) may be read after the join", r);
    for (size_t i = sv; i <= body.last; ++i)
      if (!p_.text_line(i).is_instruction()) return "a label or directive inside the site";
    plan.saveexec = sv;
    plan.load = body.last;
    plan.restore = join.first;
    plan.label = label;
    plan.bound = cmp.bound_sgpr;
    plan.index = cmp.index_vgpr;
    plan.dst = dst->first;
    plan.prelude_at = hoist_point(b, plan);
    return "";
  }

  // Blocks dominating each block (iterative; block 0 is the entry).
  std::vector<std::set<size_t>> dominators() const {
    const size_t n = f_.blocks.size();
    std::set<size_t> all;
    for (size_t b = 0; b < n; ++b) all.insert(b);
    std::vector<std::set<size_t>> dom(n, all);
    dom[0] = {0};
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 1; b < n; ++b) {
        std::set<size_t> d = all;
        bool any = false;
        for (size_t q : f_.blocks[b].preds) {
          std::set<size_t> x;
          for (size_t y : d)
            if (dom[q].count(y)) x.insert(y);
          d = x, any = true;
        }
        if (!any) d = all;
        d.insert(b);
        if (d != dom[b]) dom[b] = d, changed = true;
      }
    }
    return dom;
  }

  // The line P before which sK and the V# can be computed once for the site of block `pre`. P lies in
  // a block W dominating `pre`, after every write of sN, sB, sB+1 in W and, where a scalar load of
  // them may still be outstanding, after the next `s_waitcnt ... lgkmcnt(0)` (it waits for all),
  // at the first line from there where SCC is dead (the prelude writes it), before W's last line and at
  // or before the site when W is `pre`; and no block on a path from W to the site that does not pass W
  // again writes them. Every execution that reaches the site passed P on its last visit to W (W is
  // straight-line code and dominates the site) and wrote none of them since, so at the site they hold
  // the values the prelude read. Of the dominators that qualify, the one nearest the entry (outside
  // the most loops).
  // Whether a scalar load outside block `w` writes one of `regs`.
  template <class Regs>
  bool loaded_outside(size_t w, const Regs& regs) const {
    for (size_t i = f_.begin; i < f_.end; ++i) {
      if (i >= f_.blocks[w].first && i <= f_.blocks[w].last) continue;
      const program::Line& l = p_.text_line(i);
      if (!l.inst || !l.inst->may_load) continue;
      for (const RegRange& r : regs)
        if (l.inst->writes(r)) return true;
    }
    return false;
  }

  std::optional<size_t> hoist_point(size_t pre, const Plan& pl) const {
    const RegRange regs[] = {{RegFile::SGPR, pl.bound, 1}, {RegFile::SGPR, pl.base, 2}};
    auto writes = [&](size_t i) {
      const program::Line& l = p_.text_line(i);
      if (!l.is_instruction()) return false;
      if (!l.inst) return true;
      for (const RegRange& r : regs)
        if (l.inst->writes(r)) return true;
      return false;
    };
    const auto dom = dominators();
    std::optional<std::pair<size_t, size_t>> best;  // (dominator count of W, P)
    for (size_t w : dom[pre]) {
      const program::BasicBlock& W = f_.blocks[w];
      // From after W's last write of them; while a scalar load of them may be outstanding (one in W
      // not yet followed by an lgkmcnt(0) wait, or one outside W and no such wait in W yet), on to
      // the line after the next lgkmcnt(0) wait.
      auto full_lgkm_wait = [&](size_t i) {
        const program::Line& l = p_.text_line(i);
        return l.inst && l.inst->cls == program::InstClass::Waitcnt && l.text.find("lgkmcnt(0)") != std::string::npos;
      };
      size_t from = W.first;
      for (size_t i = W.first; i <= W.last; ++i)
        if (writes(i)) from = i + 1;
      bool pending = loaded_outside(w, regs);  // at `from`
      for (size_t i = W.first; i < from; ++i) {
        if (full_lgkm_wait(i)) pending = false;
        if (writes(i) && p_.text_line(i).inst->may_load) pending = true;
      }
      std::optional<size_t> at = from;
      if (pending) {
        at.reset();
        for (size_t i = from; i <= W.last && !at; ++i)
          if (full_lgkm_wait(i)) at = i + 1;
      }
      // The first line from there on (before the block's last line, and not past the site) where SCC is dead.
      const size_t stop = w == pre ? pl.saveexec : W.last;
      while (at && *at <= stop && live_[*at - f_.begin].contains(kScc)) ++*at;
      if (!at || *at > stop) continue;
      // Blocks on a path from W to the site that does not pass W again write none of them: those
      // reachable from W's successors without W that reach `pre` without W.
      auto walk = [&](std::vector<size_t> work, bool forward) {
        std::set<size_t> seen;
        while (!work.empty()) {
          const size_t b = work.back();
          work.pop_back();
          if (b == w || !seen.insert(b).second) continue;
          const auto& next = forward ? f_.blocks[b].succs : f_.blocks[b].preds;
          work.insert(work.end(), next.begin(), next.end());
        }
        return seen;
      };
      const std::set<size_t> from_w = walk(f_.blocks[w].succs, true), to_pre = walk({pre}, false);
      bool clean = true;
      for (size_t b : from_w)
        if (to_pre.count(b))
          for (size_t i = f_.blocks[b].first; i <= f_.blocks[b].last && clean; ++i) clean = !writes(i);
      if (!clean) continue;
      if (!best || dom[w].size() < best->first) best = std::pair{dom[w].size(), *at};
    }
    if (!best) return std::nullopt;
    return best->second;
  }

  const program::Program& p_;
  std::string kernel_;
  const program::Function& f_;
  std::vector<program::RegSet> live_;
  std::map<size_t, size_t> block_of_first_;
};

// The kernel-wide refusals, or "".
std::string kernel_refusal(const program::Program& p, const program::Function& f, unsigned& q) {
  if (p.original().target().arch != codeobj::Arch::gfx942) return "gfx942 only (the V#'s dword3 flags are read from Triton's gfx942 objects)";
  if (!closing_instruction(p, f)) return "the kernel's last instruction falls through";
  const int max_sgpr = p.register_use(f.name).max_sgpr;
  q = static_cast<unsigned>((max_sgpr + 4) & ~3);
  if (q + 6 > kLastAllocatableSgpr) return "no free SGPRs for the V# and the guard";  // 8 more per further site (propose)
  return "";
}

class BufferBoundsMove final : public Move {
 public:
  std::string name() const override { return "buffer-bounds"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function& f = kernel_function(p, c.kernel);
    unsigned q = 0;
    if (!kernel_refusal(p, f, q).empty()) return {};
    std::vector<Plan> plans;
    Analysis(p, c.kernel).sites(&plans);
    const auto [first, last] = window_lines(p, c.kernel, std::pair{c.window.first, c.window.last});
    std::vector<Plan> in_window;
    for (const Plan& pl : plans)
      if (pl.restore >= first && pl.saveexec <= last) in_window.push_back(pl);
    std::vector<Edit> out;
    for (const Plan& pl : in_window) {
      if (out.size() >= c.max_edits) break;
      if (auto e = build(p, f, c.kernel, {pl}, q)) out.push_back(*e);
    }
    if (in_window.size() > 1 && out.size() < c.max_edits)
      if (auto e = build(p, f, c.kernel, in_window, q)) out.push_back(*e);
    return out;
  }

 private:
  std::optional<Edit> build(const program::Program& p, const program::Function& f, const std::string& kernel, const std::vector<Plan>& plans,
                            unsigned q) const {
    if (q + 8 * (plans.size() - 1) + 6 > kLastAllocatableSgpr) return std::nullopt;
    const size_t tail = closing_instruction(p, f).value() + 1;  // kernel_refusal has checked there is one
    Edit e;
    e.kernel = kernel;
    e.move = name();
    e.proposer = proposer();
    std::vector<std::string> fallback{p.text_line(tail - 1).text};
    std::string lines_desc;
    std::map<size_t, std::pair<size_t, std::vector<std::string>>> replaced;  // first line -> (last line, lines)
    std::map<size_t, std::vector<std::string>> preludes;                     // line -> lines inserted before it
    size_t j = 0, hoisted = 0;
    for (const Plan& pl : plans) {
      const unsigned qj = q + 8 * static_cast<unsigned>(j++), t = qj + 4, k = qj + 6;
      const std::string pre = fmt::format(".Lbuffer_bounds_{}_", pl.saveexec);
      const std::vector<std::string> srd{
          fmt::format("s_mov_b32 s{}, s{}", qj, pl.base),
          fmt::format("s_mov_b32 s{}, s{}", qj + 1, pl.base + 1),
          fmt::format("s_lshl_b32 s{}, s{}, 2", qj + 2, pl.bound),
          fmt::format("s_mov_b32 s{}, 0x{:x}", qj + 3, kRawBufferWord3Gfx942),
      };
      std::vector<std::string> fast;
      if (pl.prelude_at) {
        // Computed once: sK = 2^30 when 0 <= n < 2^30 and the base fits 48 bits, else 0, which
        // fails the per-lane test below on every wave with an active lane (and a wave with none
        // changes nothing in either version).
        std::vector<std::string> prelude = srd;
        prelude.insert(prelude.end(), {
            fmt::format("s_cmp_lt_u32 s{}, 0x40000000", pl.bound),
            fmt::format("s_cselect_b32 s{}, 0x40000000, 0", k),
            fmt::format("s_cmp_lt_u32 s{}, 0x10000", pl.base + 1),
            fmt::format("s_cselect_b32 s{}, s{}, 0", k, k),
        });
        auto& at = preludes[*pl.prelude_at];
        at.insert(at.end(), prelude.begin(), prelude.end());
        ++hoisted;
      } else {
        fast = {
            fmt::format("s_mov_b32 s{}, 0x40000000", k),
            fmt::format("s_cmp_lt_u32 s{}, s{}", pl.bound, k),
            "s_cbranch_scc0 " + pre + "orig",
            fmt::format("s_cmp_lt_u32 s{}, 0x10000", pl.base + 1),
            "s_cbranch_scc0 " + pre + "orig",
        };
        fast.insert(fast.end(), srd.begin(), srd.end());
      }
      fast.insert(fast.end(), {
          fmt::format("v_cmp_gt_u32_e64 s[{}:{}], s{}, v{}", t, t + 1, k, pl.index),
          fmt::format("s_cmp_eq_u64 s[{}:{}], exec", t, t + 1),
          "s_cbranch_scc0 " + pre + "orig",
          fmt::format("v_lshlrev_b32_e32 v{}, 2, v{}", pl.dst, pl.index),
          fmt::format("buffer_load_dword v{}, v{}, s[{}:{}], 0 offen", pl.dst, pl.dst, qj, qj + 3),
      });
      // The site up to the load becomes the fast path; the restore goes. L stays where the restore
      // was, the join of both paths.
      replaced[pl.saveexec] = {pl.load, fast};
      replaced[pl.restore] = {pl.restore, {}};
      fallback.push_back(pre + "orig:");
      for (size_t i = pl.saveexec; i <= pl.restore; ++i) {
        const program::Line& l = p.text_line(i);
        if (l.kind == program::Line::Label) {
          if (l.text == pl.label) fallback.push_back(pre + "L:");
          continue;
        }
        if (!l.is_instruction()) continue;
        std::string text = l.text;
        if (l.inst && l.inst->mnemonic == "s_cbranch_execz") text = "s_cbranch_execz " + pre + "L";
        fallback.push_back(text);
      }
      fallback.push_back("s_branch " + pl.label);
      lines_desc += fmt::format("{}{}", lines_desc.empty() ? "" : ", ", pl.saveexec);
    }
    replaced[tail - 1] = {tail - 1, fallback};
    // A prelude before a replaced range's first line goes in front of its lines (the same thing); one
    // strictly inside a range has no place (not built).
    for (auto& [line, lines] : preludes) {
      if (auto it = replaced.find(line); it != replaced.end()) {
        it->second.second.insert(it->second.second.begin(), lines.begin(), lines.end());
        continue;
      }
      for (const auto& [first, r] : replaced)
        if (first < line && line <= r.first) return std::nullopt;
      e.hunks.push_back(make_insertion(line, lines));
    }
    for (const auto& [first, r] : replaced) e.hunks.push_back(make_hunk(p, first, r.first, r.second));
    e.description = fmt::format("{} exec-masked global_load_dword(s) (saveexec at line(s) {}) as buffer_load_dword with num_records = 4n "
                                "behind a per-wave guard (0 <= n < 2^30, 0 <= i < 2^30 on every lane, base < 2^48; {} of them with "
                                "the V# and the uniform tests computed once, where n and the base are last written), the original code otherwise",
                                plans.size(), lines_desc, hoisted);
    return e;
  }
};

}  // namespace

std::vector<BufferBoundsSite> buffer_bounds_sites(const program::Program& p, const std::string& kernel) {
  const program::Function& f = kernel_function(p, kernel);
  std::vector<BufferBoundsSite> sites = Analysis(p, kernel).sites(nullptr);
  unsigned q = 0;
  if (const std::string why = kernel_refusal(p, f, q); !why.empty())  // the kernel-wide reason first: no site of it is edited
    for (BufferBoundsSite& s : sites) s.reason = s.reason.empty() ? why : why + "; " + s.reason;
  return sites;
}

std::unique_ptr<Move> make_buffer_bounds_move() { return std::make_unique<BufferBoundsMove>(); }

}  // namespace asmevo::search
