// Move: packed f32 math. Two independent f32 FMAs, multiplies or adds of one basic block whose
// destinations are the two halves of an even-aligned VGPR pair v[2k:2k+1] become one VOP3P
// instruction (v_pk_fma_f32 / v_pk_mul_f32 / v_pk_add_f32, gfx90a+): one VALU issue instead of two.
// MI300X's packed-FP32 peak is twice its non-packed FP32 peak (AMD CDNA3 white paper, "FP32
// vector 163.4 TFLOPs" packed vs 81.7); the timing model charges a VOP3P like any VALU issue.
//
// Why every launch: each half of v_pk_*_f32 is the same IEEE binary32 operation (fused for fma,
// round to nearest even, the f32 denormal mode of MODE) as v_fma_f32 / v_mul_f32 / v_add_f32 on
// the registers op_sel / op_sel_hi select (AMD CDNA3 ISA, VOP3P: op_sel bit n picks the high or low
// dword of source n for the low result, op_sel_hi for the high result), so the pair computes the
// two values the two instructions computed from the same inputs, provided
//   * the two are of one opcode, plain (no neg/abs/clamp/omod, no literal or inline constant: packed
//     f32 constants are not replicated per half like registers), and each source pair is one
//     64-bit register pair the selects can address: (v2m, v2m+1), (v2m+1, v2m), or one register
//     read by both halves (the pair holding it; an SGPR likewise, at most one scalar pair: the
//     constant bus carries one on gfx9);
//   * the merged instruction sits at the later one's place (B), the earlier (A) is deleted, and
//     between them nothing reads or writes A's destination, writes A's sources, writes EXEC or
//     MODE (s_setreg, s_denorm_mode, s_round_mode), and there is no label, branch or undecoded
//     line; B does not read A's destination (independence);
//   * (or, symmetrically, at A's place with B hoisted: nothing in between reads or writes B's
//     destination or writes B's sources). Either way the packed instruction reads all its sources
//     before it writes, so a half that read the other's destination before it was written still
//     does.
// A partner register a pair names but the program never touches could raise the VGPR count: such
// pairs are refused (the partner must be at most the highest VGPR already used).
// Refused, with a test: pairs whose sources do not form one addressable pair per operand.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

constexpr size_t kMaxDistance = 24;  // lines between the two halves examined at most

struct Op {
  std::string packed;  // v_pk_fma_f32 ...
  unsigned sources;    // sources of the packed form
  bool accumulates;    // v_fmac: src2 is the destination
};

std::optional<Op> packable(const std::string& mnemonic) {
  if (mnemonic == "v_fma_f32") return Op{"v_pk_fma_f32", 3, false};
  if (mnemonic == "v_fmac_f32_e32" || mnemonic == "v_fmac_f32_e64") return Op{"v_pk_fma_f32", 3, true};
  if (mnemonic == "v_mul_f32_e32" || mnemonic == "v_mul_f32_e64") return Op{"v_pk_mul_f32", 2, false};
  if (mnemonic == "v_add_f32_e32" || mnemonic == "v_add_f32_e64") return Op{"v_pk_add_f32", 2, false};
  return std::nullopt;
}

// One candidate half: "v_fma_f32 v1, v2, v3, v4" with its destination and sources (registers only).
struct Half {
  size_t line = 0;
  Op op;
  std::string base;  // the unsuffixed opcode ("v_fmac_f32" and "v_fma_f32" are one opcode here)
  RegRange dst;
  std::vector<RegRange> src;
};

std::optional<Half> parse_half(const program::Line& l, size_t line) {
  if (l.kind != program::Line::Instr || !l.inst) return std::nullopt;
  const program::Instruction& in = *l.inst;
  auto op = packable(in.mnemonic);
  if (!op) return std::nullopt;
  // "v_fma_f32 v1, v2, v3, v4": operands only, no modifier token (neg/abs print as -v2, |v2|, neg(...)).
  const std::vector<std::string> parts = split_operands(in.text, in.mnemonic.size());
  for (const std::string& part : parts)
    if (part.empty() || part.find(' ') != std::string::npos) return std::nullopt;  // clamp, mul:2, ...
  const unsigned written = op->accumulates ? 3 : op->sources + 1;
  if (parts.size() != written) return std::nullopt;
  Half h;
  h.line = line, h.op = *op;
  h.base = op->packed;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto r = program::parse_reg(parts[i]);
    if (!r || r->count != 1 || (r->file != RegFile::VGPR && r->file != RegFile::SGPR)) return std::nullopt;
    if (i == 0) {
      if (r->file != RegFile::VGPR) return std::nullopt;
      h.dst = *r;
    } else {
      h.src.push_back(*r);
    }
  }
  if (op->accumulates) h.src.push_back(h.dst);
  return h;
}

// The 64-bit operand and the two select bits that give `lo` to the low half and `hi` to the high one.
struct Source {
  std::string text;
  bool sel = false, sel_hi = true;
  bool scalar = false;
  RegRange pair;
};

std::optional<Source> pair_source(const RegRange& lo, const RegRange& hi) {
  if (lo.file != hi.file) return std::nullopt;
  const char* f = lo.file == RegFile::VGPR ? "v" : "s";
  Source s;
  s.scalar = lo.file == RegFile::SGPR;
  unsigned base = 0;
  if (lo.first == hi.first) {
    base = lo.first & ~1u;
    s.sel = s.sel_hi = (lo.first & 1) != 0;
  } else if (lo.first % 2 == 0 && hi.first == lo.first + 1) {
    base = lo.first, s.sel = false, s.sel_hi = true;
  } else if (hi.first % 2 == 0 && lo.first == hi.first + 1) {
    base = hi.first, s.sel = true, s.sel_hi = false;
  } else {
    return std::nullopt;
  }
  s.pair = {lo.file, base, 2};
  s.text = fmt::format("{}[{}:{}]", f, base, base + 1);
  return s;
}

bool is_mode_write(const program::Instruction& in) {
  const std::string& m = in.mnemonic;
  return m.rfind("s_setreg", 0) == 0 || m == "s_denorm_mode" || m == "s_round_mode";
}

// Lines strictly between `a` and `b` leave `kept`'s destination and sources alone (and EXEC/MODE).
bool undisturbed(const program::Program& p, size_t a, size_t b, const Half& kept) {
  const RegRange exec{RegFile::EXEC, 0, 2};
  for (size_t i = a + 1; i < b; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind != program::Line::Instr || !l.inst) return false;
    const program::Instruction& in = *l.inst;
    if (in.is_branch || in.is_terminator || in.is_call || is_mode_write(in) || in.writes(exec)) return false;
    if (in.reads(kept.dst) || in.writes(kept.dst)) return false;
    for (const RegRange& s : kept.src)
      if (in.writes(s)) return false;
  }
  return true;
}

class PkMathMove final : public Move {
 public:
  std::string name() const override { return "pk-math"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function& f = kernel_function(p, c.kernel);
    const int max_vgpr = p.register_use(c.kernel).max_vgpr;
    std::vector<Edit> out;
    std::vector<std::pair<size_t, size_t>> used;  // merged pairs (lines), to keep edits disjoint
    auto taken = [&](size_t line) {
      return std::any_of(used.begin(), used.end(), [&](auto& u) { return u.first == line || u.second == line; });
    };
    Edit all;
    all.kernel = c.kernel, all.move = name(), all.proposer = proposer();
    for (const program::BasicBlock& b : f.blocks) {
      const size_t lo = std::max(b.first, c.window.first), hi = std::min(b.last, c.window.last);
      for (size_t i = lo; i <= hi && lo <= hi; ++i) {
        if (taken(i)) continue;
        auto first = parse_half(p.text_line(i), i);
        if (!first) continue;
        for (size_t j = i + 1; j <= std::min(hi, i + kMaxDistance); ++j) {
          if (taken(j)) continue;
          auto second = parse_half(p.text_line(j), j);
          if (!second || second->base != first->base || second->dst.first == first->dst.first) continue;
          if ((first->dst.first ^ second->dst.first) != 1) continue;  // the two halves of one pair
          std::optional<std::string> merged = merge(*first, *second, p, max_vgpr);
          if (!merged) continue;
          // Place: at B (A delayed) or at A (B hoisted).
          const bool b_reads_a = std::any_of(second->src.begin(), second->src.end(), [&](auto& s) { return program::overlaps(s, first->dst); });
          if (b_reads_a) continue;
          const bool at_b = undisturbed(p, i, j, *first);
          if (!at_b && !undisturbed(p, i, j, *second)) continue;
          // gfx940+: a VOP3P with op_sel_hi[0] set writes through a destination select, and the next
          // VALU touching its destination needs 1 wait state (the checker's dst-sel-forwarding rule).
          Edit e;
          e.kernel = c.kernel, e.move = name(), e.proposer = proposer();
          bool clean = false;
          for (const bool nop : {false, true}) {
            std::vector<std::string> lines{*merged};
            if (nop) lines.push_back("s_nop 0");
            e.hunks = {make_hunk(p, i, i, at_b ? std::vector<std::string>{} : lines), make_hunk(p, j, j, at_b ? lines : std::vector<std::string>{})};
            if ((clean = rebuilds_clean(apply_edit(p, e), c.kernel))) break;
          }
          if (!clean) continue;
          used.push_back({i, j});
          const Hunk h1 = e.hunks[0], h2 = e.hunks[1];
          e.description = fmt::format("lines {} and {} ({} / {}) as one {}", i, j, p.text_line(i).text, p.text_line(j).text, first->op.packed);
          all.hunks.push_back(h1), all.hunks.push_back(h2);
          if (out.size() + 1 < c.max_edits) out.push_back(std::move(e));
          break;
        }
      }
    }
    if (out.size() > 1) {
      all.description = fmt::format("{} pairs of f32 operations as packed VOP3P instructions", all.hunks.size() / 2);
      out.insert(out.begin(), std::move(all));
    }
    return out;
  }

 private:
  static std::optional<std::string> merge(const Half& a, const Half& b, const program::Program&, int max_vgpr) {
    const Half& lo = a.dst.first % 2 == 0 ? a : b;
    const Half& hi = a.dst.first % 2 == 0 ? b : a;
    std::string ops, sel, sel_hi;
    unsigned scalars = 0;
    for (size_t k = 0; k < lo.src.size(); ++k) {
      auto s = pair_source(lo.src[k], hi.src[k]);
      if (!s) return std::nullopt;
      if (!s->scalar && static_cast<int>(s->pair.first + 1) > max_vgpr) return std::nullopt;
      if (s->scalar && ++scalars > 1) return std::nullopt;
      ops += ", " + s->text;
      sel += std::string(k ? "," : "") + (s->sel ? "1" : "0");
      sel_hi += std::string(k ? "," : "") + (s->sel_hi ? "1" : "0");
    }
    return fmt::format("{} v[{}:{}]{} op_sel:[{}] op_sel_hi:[{}]", lo.op.packed, lo.dst.first, lo.dst.first + 1, ops, sel, sel_hi);
  }
};

}  // namespace

std::unique_ptr<Move> make_pk_math_move() { return std::make_unique<PkMathMove>(); }

}  // namespace asmevo::search
