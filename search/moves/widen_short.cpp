// Move: widen scalarized 16-bit buffer loads (issue 17). Triton's AMD backend scalarizes masked
// f16/bf16 loads it cannot prove aligned: each lane loads elements 4t+0..4t+3 of a row with one
// `buffer_load_ushort` each, at byte offsets (S + x + c) << 1, where x is a multiple of 4 (from
// `v_lshlrev_b32 2, v0`), c the element, S a scalar row base. A lane whose element is masked off
// (`col < n`) gets the out-of-range offset 0x80000000 by `v_cndmask`, so its load returns 0 through
// the buffer's range check (num_records 0x7ffffffe, stride 0, no swizzle: a raw buffer).
//
// The edit takes a run of consecutive lines of one block holding pairs (A, B) of such loads, B's
// element one after A's (same V#, soffset `0`, `offen`, no instruction offset, same S and x, c even
// for A), and replaces it by
//     guard:  s_cmp_eq_u64 mA, mB ; s_cbranch_scc0 orig          (per pair: per-lane masks equal)
//             s_bitcmp1_b32 S, 0 ; s_cbranch_scc1 orig           (per S: (S + x + c) even, dword-aligned)
//             s_and_b32 sK, srd[2], -4 ; v_cmp_ne_u32_e64 s[T], sK, vA_off ; s_cmp_eq_u64 s[T], exec ;
//             s_cbranch_scc0 orig                                 (per pair, when NR % 4 is 2 or 3)
//     fast:   the run, each pair as one `buffer_load_dword vA, vA_off, ...` at its earlier load,
//             then s_waitcnt vmcnt(0) ; v_lshrrev_b32 vB, 16, vA ; v_and_b32 vA, 0xffff, vA
//     join:   (the code after the run)
//     orig:   after the kernel's last instruction (s_endpgm: nothing falls into it), the run
//             unchanged, then s_branch join; so the fast path takes no branch
// Why every launch:
// - Masks: with mA == mB (whole wave, checked at run time), every active lane either has both
//   elements valid, so its two offsets are (S + x + c) << 1 and that + 2 (contiguity is read from
//   the address arithmetic below), or neither, so both offsets are the same out-of-range constant.
// - Range check (AsmEvo's emulator, emu/semantics/mubuf.cpp, and the CDNA3 ISA's raw-buffer rule):
//   a raw buffer access is out of range when soffset + offset + size > num_records, and then reads
//   0; a dword load is one component. A masked-off lane's dword at 0x80000000 (> NR) reads 0 = two
//   zero halves, as before. A valid lane's pair: the original read A in range iff off + 2 <= NR
//   and B iff off + 4 <= NR; the dword is in range iff off + 4 <= NR. They differ only when
//   off + 2 <= NR < off + 4 (A in, B out: "the pair straddles the range check"). off is a multiple
//   of 4, so that needs off == NR & ~3 with NR % 4 in {2, 3}; NR is a known constant of the V#
//   (an s_mov_b32 in the block), and when NR % 4 is 2 or 3 the per-lane test above refuses such a
//   wave (Triton's NR 0x7ffffffe: only a row reaching byte 2 GiB - 4 takes the original code).
// - Alignment: off is even by construction; the S parity test makes it a multiple of 4 (x is a
//   multiple of 4 and c even; the buffer base is the argument pointer, 16-byte divisible per the
//   launch's `tt.divisibility 16`, corpus/triton/build.py; the emulator does not require
//   alignment, the guard is about the hardware's dword access).
// - Data: little-endian, the dword's low half is A's element and its high half B's; the unpack
//   writes them zero-extended as buffer_load_ushort does. vmcnt(0) before the unpack waits for the
//   merged loads; the code after join waits as before (in the fast path nothing is outstanding).
// - No EXEC write in the block before the run's last line. Nothing in the run other than the pair's loads
//   touches vA/vB; the pairs' offset registers and V# hold
//   at the guard the values they have at their loads (value numbering over the block), and the
//   masks/S tested hold the values the v_cndmask / v_add_lshl_u32 read. SCC must be dead at the
//   run; the temporaries s[T:T+1], sK are fresh SGPRs above the kernel's highest.
// Refused (no edit): anything else (loads whose offsets are not in this form, runs with branches,
// waits, stores or labels, V# words not known in the block, swizzled or strided buffers).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <optional>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

// s0..s101 are addressable on gfx9 besides VCC (AMD CDNA3 ISA, "SGPR allocation": 102 user SGPRs).
constexpr unsigned kLastAllocatableSgpr = 101;

// A VGPR value as the address arithmetic builds it: (sbase + vbase + add) << shift, with
// vbase's low `tz` bits known zero; ids name opaque values (0: absent).
struct Affine {
  unsigned sbase = 0, vbase = 0, tz = 0;
  int64_t add = 0;
  unsigned shift = 0;
  bool shifted = false;  // the << has been applied (no further + allowed)
};

struct Masked {  // v_cndmask(oob, addr, mask)
  uint32_t oob = 0;
  Affine addr;
  RegRange mask;
  unsigned mask_id = 0;
};

struct BlockState {
  unsigned next_id = 1;
  std::map<std::pair<int, unsigned>, unsigned> id;  // (file, index) -> value id
  std::map<unsigned, Affine> affine;                // value id -> form
  std::map<unsigned, uint32_t> constant;
  std::map<unsigned, Masked> masked;
  std::map<unsigned, uint32_t> and_mask;  // value id -> c of an `s_and_b32 d, x, c` (the value's set bits lie in c)
  unsigned of(RegFile f, unsigned i) {
    auto key = std::make_pair(static_cast<int>(f), i);
    auto it = id.find(key);
    if (it != id.end()) return it->second;
    return id[key] = next_id++;
  }
  unsigned of(const RegRange& r) { return of(r.file, r.first); }
  unsigned pair_id(const RegRange& r) {  // a 64-bit mask: one id for the pair
    return of(r.file, r.first) * 100003u + (r.count > 1 ? of(r.file, r.first + 1) : 0);
  }
  unsigned fresh(const RegRange& r) {
    unsigned v = 0;
    for (unsigned k = 0; k < r.count; ++k) id[{static_cast<int>(r.file), r.first + k}] = v = next_id++;
    return v;
  }
};

std::optional<int64_t> imm(const std::string& s) {
  try {
    size_t used = 0;
    int64_t v = std::stoll(s, &used, 0);
    if (used == s.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
}

// Updates `st` for one instruction (its defs get fresh ids, some with a known form).
void step(BlockState& st, const program::Instruction& in) {
  const std::vector<std::string> ops = split_operands(in.text, in.mnemonic.size());
  const std::string& m = in.mnemonic;
  auto vreg = [&](size_t i) -> std::optional<RegRange> {
    if (i >= ops.size()) return std::nullopt;
    return program::parse_reg(ops[i]);
  };
  // Read the sources' ids before the defs get new ones.
  std::optional<Affine> form;
  std::optional<uint32_t> cst;
  std::optional<Masked> msk;
  std::optional<uint32_t> low_mask;
  auto affine_of = [&](const RegRange& r) -> std::optional<Affine> {
    if (r.file != RegFile::VGPR) return std::nullopt;
    unsigned v = st.of(r);
    if (auto it = st.affine.find(v); it != st.affine.end()) return it->second;
    return Affine{0, v, 0, 0, 0, false};
  };
  if ((m == "v_lshlrev_b32_e32" || m == "v_lshlrev_b32_e64") && ops.size() == 3) {
    auto k = imm(ops[1]);
    auto src = vreg(2);
    if (k && src && *k >= 0 && *k < 32)
      if (auto a = affine_of(*src); a && !a->shifted) {
        if (a->add == 0) form = Affine{0, st.next_id++, a->tz + static_cast<unsigned>(*k), 0, 0, false};  // a new opaque multiple of 2^k
        else a->shift = static_cast<unsigned>(*k), a->shifted = true, form = a;
      }
  } else if ((m == "v_or_b32_e32" || m == "v_add_u32_e32") && ops.size() == 3) {
    auto c = imm(ops[1]);
    auto src = vreg(2);
    if (c && src)
      if (auto a = affine_of(*src); a && !a->shifted && a->sbase == 0) {
        const bool disjoint = m == "v_add_u32_e32" || (*c >= 0 && *c < (int64_t{1} << a->tz) && (a->add & *c) == 0);
        if (disjoint && *c >= 0 && a->add + *c < (int64_t{1} << a->tz)) a->add += *c, form = a;
      }
  } else if (m == "v_add_lshl_u32" && ops.size() == 4) {
    auto k = imm(ops[3]);
    auto r1 = vreg(1), r2 = vreg(2);
    if (k && r1 && r2) {
      if (r1->file == RegFile::VGPR) std::swap(r1, r2);
      if (r1->file == RegFile::SGPR && r2->file == RegFile::VGPR)
        if (auto a = affine_of(*r2); a && !a->shifted && a->sbase == 0)
          a->sbase = st.of(*r1), a->shift = static_cast<unsigned>(*k), a->shifted = true, form = a;
    }
  } else if (m == "v_bfrev_b32_e32" && ops.size() == 2) {
    if (auto c = imm(ops[1])) {
      uint32_t x = static_cast<uint32_t>(*c), r = 0;
      for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
      cst = r;
    }
  } else if ((m == "s_mov_b32" || m == "v_mov_b32_e32") && ops.size() == 2) {
    if (auto c = imm(ops[1])) cst = static_cast<uint32_t>(*c);
  } else if (m == "s_and_b32" && ops.size() == 3) {
    if (auto c = imm(ops[2])) low_mask = static_cast<uint32_t>(*c);
  } else if ((m == "v_cndmask_b32_e64" && ops.size() == 4) || (m == "v_cndmask_b32_e32" && ops.size() == 3)) {
    auto oob = vreg(1), addr = vreg(2);
    std::optional<RegRange> mask = m == "v_cndmask_b32_e32" ? RegRange{RegFile::VCC, 0, 2} : program::parse_reg(ops[3]);
    if (oob && addr && mask && oob->file == RegFile::VGPR && addr->file == RegFile::VGPR && mask->count == 2) {
      auto c = st.constant.find(st.of(*oob));
      auto a = st.affine.find(st.of(*addr));
      if (c != st.constant.end() && a != st.affine.end() && a->second.shifted)
        msk = Masked{c->second, a->second, *mask, st.pair_id(*mask)};
    }
  }
  for (const RegRange& d : in.defs) {
    unsigned v = st.fresh(d);
    if (d.count != 1) continue;
    if (form) st.affine[v] = *form;
    if (cst) st.constant[v] = *cst;
    if (low_mask) st.and_mask[v] = *low_mask;
    if (msk) st.masked[v] = *msk;
  }
}

struct Load {
  size_t line = 0;
  RegRange dst, off;
  std::string srd;
  unsigned off_id = 0;
  Masked masked;
  std::vector<unsigned> srd_ids;
};

struct Pair {
  Load a, b;  // a: the lower element
};

class WidenShortMove final : public Move {
 public:
  std::string name() const override { return "widen-short"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function& f = kernel_function(p, c.kernel);
    const auto [first, last] = window_lines(p, c.kernel, std::pair{c.window.first, c.window.last});
    std::vector<Edit> out;
    const std::vector<program::RegSet> live = p.live_in(f);
    int max_sgpr = p.register_use(c.kernel).max_sgpr;
    for (const program::BasicBlock& b : f.blocks) {
      if (b.last < first || b.first > last) continue;
      BlockState st;
      std::vector<std::pair<size_t, std::map<std::pair<int, unsigned>, unsigned>>> ids_at;  // ids before each line
      std::vector<Load> loads;
      bool broken = false;
      for (size_t i = b.first; i <= b.last; ++i) {
        const program::Line& l = p.text_line(i);
        ids_at.push_back({i, st.id});
        if (!l.is_instruction() || !l.inst) { broken = true; break; }
        const program::Instruction& in = *l.inst;
        // Offsets are selected per lane under EXEC: loads after an EXEC write could run on lanes whose
        // offsets were never written, so the scan (and every run) ends there.
        if (in.writes(RegRange{RegFile::EXEC, 0, 2})) break;
        if (in.mnemonic == "buffer_load_ushort") {
          const auto ops = split_operands(in.text, in.mnemonic.size());
          // vdst, vaddr, srsrc, "0 offen"
          auto dst = ops.size() == 4 ? program::parse_reg(ops[0]) : std::nullopt;
          auto off = ops.size() == 4 ? program::parse_reg(ops[1]) : std::nullopt;
          auto srd = ops.size() == 4 ? program::parse_reg(ops[2]) : std::nullopt;
          if (dst && off && srd && ops[3] == "0 offen" && off->file == RegFile::VGPR && srd->count == 4) {
            unsigned oid = st.of(*off);
            auto mk = st.masked.find(oid);
            if (mk != st.masked.end()) {
              Load ld{i, *dst, *off, ops[2], oid, mk->second, {}};
              for (unsigned k = 0; k < 4; ++k) ld.srd_ids.push_back(st.of(RegFile::SGPR, srd->first + k));
              loads.push_back(ld);
            }
          }
        }
        step(st, in);
      }
      if (broken || loads.size() < 2) continue;
      auto ids_before = [&](size_t line) -> const std::map<std::pair<int, unsigned>, unsigned>& { return ids_at[line - b.first].second; };
      // Pairs: B's element one after A's, same everything else.
      std::vector<Pair> pairs;
      std::vector<bool> used(loads.size(), false);
      for (size_t i = 0; i < loads.size(); ++i)
        for (size_t j = 0; j < loads.size(); ++j) {
          if (i == j || used[i] || used[j]) continue;
          const Affine &x = loads[i].masked.addr, &y = loads[j].masked.addr;
          if (loads[i].srd != loads[j].srd || loads[i].srd_ids != loads[j].srd_ids) continue;
          if (x.sbase != y.sbase || x.vbase != y.vbase || x.shift != 1 || y.shift != 1 || x.tz < 2) continue;
          if (x.add % 2 != 0 || y.add != x.add + 1) continue;
          if (loads[i].masked.oob != loads[j].masked.oob) continue;
          pairs.push_back({loads[i], loads[j]});
          used[i] = used[j] = true;
        }
      if (pairs.empty()) continue;
      // The run: from the first to the last load of the pairs. All pairs under one guard first; where
      // that is refused, each pair alone, then the pairs that work alone together.
      auto attempt = [&](const std::vector<Pair>& set) -> std::optional<Edit> {
        size_t r0 = SIZE_MAX, r1 = 0;
        for (const Pair& q : set) r0 = std::min({r0, q.a.line, q.b.line}), r1 = std::max({r1, q.a.line, q.b.line});
        (void)first, (void)last;  // the loads usually precede the hot wait that starts the window: the block is enough
        return build(p, f, live, c.kernel, r0, r1, set, ids_before(r0), st, max_sgpr);
      };
      if (auto e = attempt(pairs)) {
        out.push_back(*e);
      } else if (pairs.size() > 1) {
        std::vector<Pair> good;
        std::vector<Edit> singles;
        for (const Pair& q : pairs)
          if (auto e1 = attempt({q})) good.push_back(q), singles.push_back(*e1);
        if (good.size() > 1)
          if (auto e2 = attempt(good)) out.push_back(*e2);
        for (Edit& e1 : singles) out.push_back(e1);
      }
      if (out.size() >= c.max_edits) break;
    }
    return out;
  }

 private:
  template <class Pairs>
  std::optional<Edit> build(const program::Program& p, const program::Function& f, const std::vector<program::RegSet>& live, const std::string& kernel,
                            size_t r0, size_t r1, const Pairs& pairs, const std::map<std::pair<int, unsigned>, unsigned>& at_r0,
                            BlockState& st, int max_sgpr) {
    auto id_at_r0 = [&](RegFile file, unsigned i) -> unsigned {
      auto it = at_r0.find({static_cast<int>(file), i});
      return it == at_r0.end() ? 0 : it->second;
    };
    // Every offset register, mask and S tested at r0 holds the value its load / cndmask used.
    std::vector<RegRange> merged_dsts;
    for (const auto& q : pairs) {
      for (const Load* ld : {&q.a, &q.b}) {
        if (id_at_r0(RegFile::VGPR, ld->off.first) != ld->off_id) return std::nullopt;
        const RegRange& mk = ld->masked.mask;
        const unsigned now = id_at_r0(mk.file, mk.first) * 100003u + id_at_r0(mk.file, mk.first + 1);
        if (now != ld->masked.mask_id) return std::nullopt;
        merged_dsts.push_back(ld->dst);
        // The V# words the guard and the fast path read hold at r0 what the loads use.
        auto srd = program::parse_reg(ld->srd);
        for (unsigned k = 0; srd && k < 4; ++k)
          if (id_at_r0(RegFile::SGPR, srd->first + k) != ld->srd_ids[k]) return std::nullopt;
      }
      if (q.a.dst == q.b.dst || q.a.dst.file != RegFile::VGPR || q.b.dst.file != RegFile::VGPR) return std::nullopt;
    }
    // The run holds only ALU instructions besides the pairs' loads, and none touches their destinations.
    std::set<size_t> pair_lines;
    for (const auto& q : pairs) pair_lines.insert(q.a.line), pair_lines.insert(q.b.line);
    for (size_t i = r0; i <= r1; ++i) {
      const program::Line& l = p.text_line(i);
      if (!l.is_instruction() || !l.inst) return std::nullopt;
      const program::Instruction& in = *l.inst;
      if (pair_lines.count(i)) continue;
      if (in.is_branch || in.is_terminator || in.may_load || in.may_store || in.cls == program::InstClass::Waitcnt) return std::nullopt;
      for (const RegRange& d : merged_dsts)
        if (in.reads(d) || in.writes(d)) return std::nullopt;
    }
    // The V#: word1 masked to the base (stride 0, no swizzle), word2 a constant NR, word3 without add_tid.
    auto srd = program::parse_reg(pairs.front().a.srd);
    const auto& ids = pairs.front().a.srd_ids;
    auto w2 = st.constant.find(ids[2]), w3 = st.constant.find(ids[3]);
    if (!srd || w2 == st.constant.end() || w3 == st.constant.end()) return std::nullopt;
    std::optional<uint32_t> w1_bits;  // bits word1 may have set: base[47:32] only means stride 0, no swizzle
    if (auto it = st.constant.find(ids[1]); it != st.constant.end()) w1_bits = it->second;
    if (auto it = st.and_mask.find(ids[1]); it != st.and_mask.end()) w1_bits = it->second;
    if (!w1_bits || *w1_bits > 0xffffu) return std::nullopt;
    const uint32_t nr = w2->second;
    if (w3->second & (1u << 23)) return std::nullopt;
    for (const auto& q : pairs)
      if (q.a.masked.oob <= nr || q.a.masked.oob > 0xfffffffbu) return std::nullopt;  // masked-off lanes must stay out of range
    // SCC dead at r0.
    if (live[r0 - f.begin].contains(RegRange{RegFile::SCC, 0, 1})) return std::nullopt;
    const bool straddle = (nr & 2u) != 0;
    const unsigned t = static_cast<unsigned>((max_sgpr + 2) & ~1);  // even, above every SGPR used
    if (straddle && t + 2 > kLastAllocatableSgpr) return std::nullopt;
    std::string label = fmt::format(".Lwiden_short_{}", r0);
    for (size_t i = f.begin; i < f.end; ++i)
      if (p.text_line(i).kind == program::Line::Label && p.text_line(i).text.rfind(label, 0) == 0) label += "x";
    std::vector<std::string> lines;
    std::set<unsigned> sbases;
    for (const auto& q : pairs) {
      lines.push_back(fmt::format("s_cmp_eq_u64 {}, {}", program::to_string(q.a.masked.mask), program::to_string(q.b.masked.mask)));
      lines.push_back("s_cbranch_scc0 " + label + "_orig");
    }
    for (const auto& q : pairs) {
      const unsigned sb = q.a.masked.addr.sbase;
      if (!sb || sbases.count(sb)) continue;
      sbases.insert(sb);
      std::optional<unsigned> reg;
      for (const auto& [key, v] : at_r0)
        if (v == sb && key.first == static_cast<int>(RegFile::SGPR)) reg = key.second;
      if (!reg) return std::nullopt;  // S overwritten before the run
      lines.push_back(fmt::format("s_bitcmp1_b32 s{}, 0", *reg));
      lines.push_back("s_cbranch_scc1 " + label + "_orig");
    }
    if (straddle) {
      // K = NR & ~3 read from the V# itself (not the constant), so the test holds for whatever NR the word has.
      lines.push_back(fmt::format("s_and_b32 s{}, s{}, -4", t + 2, srd->first + 2));
      for (const auto& q : pairs) {
        lines.push_back(fmt::format("v_cmp_ne_u32_e64 s[{}:{}], s{}, {}", t, t + 1, t + 2, program::to_string(q.a.off)));
        lines.push_back(fmt::format("s_cmp_eq_u64 s[{}:{}], exec", t, t + 1));
        lines.push_back("s_cbranch_scc0 " + label + "_orig");
      }
    }
    std::vector<std::string> fast, orig;
    for (size_t i = r0; i <= r1; ++i) {
      const std::string& text = p.text_line(i).text;
      orig.push_back(text);
      bool replaced = false;
      for (const auto& q : pairs) {
        const size_t at = std::min(q.a.line, q.b.line), gone = std::max(q.a.line, q.b.line);
        if (i == at) fast.push_back(fmt::format("buffer_load_dword {}, {}, {}, 0 offen", program::to_string(q.a.dst), program::to_string(q.a.off), q.a.srd)), replaced = true;
        if (i == gone) replaced = true;
      }
      if (!replaced) fast.push_back(text);
    }
    fast.push_back("s_waitcnt vmcnt(0)");
    for (const auto& q : pairs) {
      fast.push_back(fmt::format("v_lshrrev_b32_e32 {}, 16, {}", program::to_string(q.b.dst), program::to_string(q.a.dst)));
      fast.push_back(fmt::format("v_and_b32_e32 {}, 0xffff, {}", program::to_string(q.a.dst), program::to_string(q.a.dst)));
    }
    // The fallback goes after the kernel's last instruction (an s_endpgm or s_branch: nothing falls
    // into it) and branches back, so the fast path runs straight through (no taken branch).
    const std::optional<size_t> closing = closing_instruction(p, f);
    if (!closing || *closing < r1) return std::nullopt;
    const size_t tail = *closing + 1;
    lines.insert(lines.end(), fast.begin(), fast.end());
    lines.push_back(label + "_join:");
    std::vector<std::string> fallback{p.text_line(tail - 1).text, label + "_orig:"};  // the last instruction kept, then the fallback
    fallback.insert(fallback.end(), orig.begin(), orig.end());
    fallback.push_back("s_branch " + label + "_join");
    Edit e;
    e.kernel = kernel;
    e.move = name();
    e.proposer = proposer();
    e.hunks.push_back(make_hunk(p, r0, r1, lines));
    e.hunks.push_back(make_hunk(p, tail - 1, tail - 1, fallback));
    e.description = fmt::format("{} pair(s) of buffer_load_ushort at lines {}..{} merged into buffer_load_dword behind a per-wave guard "
                                "(masks equal, row base even{}), the original loads otherwise",
                                pairs.size(), r0, r1, straddle ? ", no lane at the range check's last dword" : "");
    return e;
  }
};

}  // namespace

std::unique_ptr<Move> make_widen_short_move() { return std::make_unique<WidenShortMove>(); }

}  // namespace asmevo::search
