// Move: DPP instead of ds_bpermute_b32 / ds_swizzle_b32. A cross-lane read through the DS unit
// costs an LDS-pipeline round trip and an lgkmcnt wait (≈ 50 cycles measured, against 4–12 for a
// DPP move: notes/mi300x-measured.md F; the calibration's ds_swizzle→DPP A/B pair models +523 %
// vs +525 % measured). Where the lane permutation is one that DPP row controls express, each such
// instruction becomes one or two `v_mov_b32_dpp` (plus the wait states DPP needs).
//
// The permutation: ds_swizzle_b32's comes from its OFFSET field; ds_bpermute_b32's from its address
// register, evaluated for each of the 64 lanes over its backward slice inside the basic block. The
// slice may only use lane-local integer VALU operations of constants and of v_mbcnt_lo/hi(-1, ..)
// (the lane id), and v_cmp / v_cndmask / v_addc over those (the table `eval_op` below); anything
// else (an SGPR, a load, a register defined before the block, an EXEC write inside the slice) makes
// the move refuse. Such an address is the same function of the lane in every launch.
//
// Why every launch: the replacement reproduces what the DS instruction writes on *every* lane, so no
// used-lanes analysis is needed (and none is attempted: hipcc's __shfl_down trees, whose later steps
// DPP can only reproduce on the lanes that feed lane 0, are refused, because which lanes reach memory
// there depends on threadIdx, i.e. on the launch's workgroup shape).
//   * DS semantics (CDNA3 ISA, DS_BPERMUTE_B32 / DS_SWIZZLE_B32; emu/semantics/ds.cpp): each active
//     lane i receives lane src(i) of the data, or 0 when that lane is inactive; inactive lanes are not
//     written.
//   * DPP (emu/semantics/dpp.cpp, one definition shared through emu/semantics/lane_maps.h): with
//     bound_ctrl set, an active lane i whose row/bank is enabled receives lane dpp(i) of the source,
//     or 0 when that lane is inactive; disabled rows/banks and inactive lanes are not written.
//   * The plan is one control whose source lane equals src(i) for every lane and is never out of
//     range, or two controls each enabled on a complementary set of banks (or rows) where it does.
//     Two moves write disjoint lanes, so each lane is written once, with src(i)'s value or 0 as the
//     DS instruction did; the source register is not the destination (or there is one move).
//   * Timing of the write: the DS result arrived no earlier than the lgkmcnt wait that follows it;
//     the DPP result is there at once. Required: the next s_waitcnt with an lgkmcnt field in the
//     block is lgkmcnt(0) and nothing between reads or writes the destination (else refused); so no
//     instruction can observe the difference, and removing one DS operation from the count cannot
//     make a later lgkmcnt(N>0) release earlier than another access it waited for.
//   * Wait states: `s_nop` in front as the static checker's DPP rules demand (GCNHazardRecognizer
//     checkDPPHazards: VGPR write → DPP read 2, VALU EXEC write → DPP 5): the fewest of 0/1/4 that
//     rebuilds clean.
// Not expressible on gfx942 (refused): xor 16 / xor 32 and other cross-row moves that are not a
// broadcast or a one-lane wave shift (gfx950's v_permlane16/32_swap could; not done).
#include <fmt/format.h>

#include <array>
#include <bit>
#include <map>
#include <set>
#include <optional>

#include "check/isa.h"
#include "emu/semantics/lane_maps.h"
#include "search/moves/dpp_permute.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;
using Lanes = std::array<uint32_t, 64>;
constexpr size_t kMaxSlice = 40;  // instructions of an address slice evaluated at most

std::vector<std::string> operand_texts(const program::Instruction& in) { return split_operands(in.text, in.mnemonic.size()); }

std::optional<uint32_t> constant(const std::string& t) {
  if (t.empty() || t.find_first_not_of("-0123456789abcdefxABCDEF") != std::string::npos) return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(t, &used, 0);
    if (used != t.size()) return std::nullopt;
    return static_cast<uint32_t>(v);
  } catch (...) {
    return std::nullopt;
  }
}

// Per-lane values of registers inside one basic block, evaluated backwards from a use.
class LaneEvaluator {
 public:
  LaneEvaluator(const program::Program& p, size_t block_first) : p_(p), first_(block_first) {}
  size_t earliest() const { return earliest_; }

  // The value of VGPR `r` on every lane just before line `at`.
  std::optional<Lanes> vgpr(const RegRange& r, size_t at) {
    auto def = last_def(r, at);
    if (!def) return std::nullopt;
    if (auto it = cache_.find(*def); it != cache_.end()) return it->second;
    if (++steps_ > kMaxSlice) return std::nullopt;
    auto v = eval_op(*def);
    if (v) cache_[*def] = *v;
    return v;
  }

 private:
  std::optional<size_t> last_def(const RegRange& r, size_t at) {
    for (size_t i = at; i-- > first_;) {
      const program::Line& l = p_.text_line(i);
      if (!l.inst) return std::nullopt;
      if (l.inst->writes(r)) {
        earliest_ = std::min(earliest_, i);
        return i;
      }
    }
    return std::nullopt;  // defined before the block: unknown here
  }

  std::optional<Lanes> operand(const std::string& t, size_t at) {
    if (auto c = constant(t)) {
      Lanes v;
      v.fill(*c);
      return v;
    }
    auto r = program::parse_reg(t);
    if (!r || r->file != RegFile::VGPR || r->count != 1) return std::nullopt;
    return vgpr(*r, at);
  }

  // A lane mask (vcc or an SGPR pair) written by a v_cmp of the table, just before `at`.
  std::optional<uint64_t> mask(const std::string& t, size_t at) {
    auto r = program::parse_reg(t);
    if (!r) return std::nullopt;
    auto def = last_def(*r, at);
    if (!def) return std::nullopt;
    const program::Instruction& in = *p_.text_line(*def).inst;
    static const std::map<std::string, int> kCmp = {{"eq", 0}, {"ne", 1}, {"lt", 2}, {"le", 3}, {"gt", 4}, {"ge", 5}};
    const std::string& m = in.mnemonic;
    if (m.rfind("v_cmp_", 0) != 0) return std::nullopt;
    const std::string rel = m.substr(6, 2);
    const bool u32 = m.find("_u32_") != std::string::npos, i32 = m.find("_i32_") != std::string::npos;
    if (!kCmp.count(rel) || !(u32 || i32)) return std::nullopt;
    auto ops = operand_texts(in);
    if (ops.size() != 3 || ops[0] != t) return std::nullopt;
    auto a = operand(ops[1], *def), b = operand(ops[2], *def);
    if (!a || !b) return std::nullopt;
    uint64_t out = 0;
    for (unsigned l = 0; l < 64; ++l) {
      const int64_t x = i32 ? static_cast<int32_t>((*a)[l]) : static_cast<int64_t>((*a)[l]);
      const int64_t y = i32 ? static_cast<int32_t>((*b)[l]) : static_cast<int64_t>((*b)[l]);
      const bool c = std::array<bool, 6>{x == y, x != y, x < y, x <= y, x > y, x >= y}[kCmp.at(rel)];
      out |= static_cast<uint64_t>(c) << l;
    }
    return out;
  }

  // The operations a lane-id address slice may use: each as the ISA defines it (CDNA3 ISA, VOP1/VOP2/
  // VOP3), on u32 lanes; the result of one instruction writing exactly one VGPR.
  std::optional<Lanes> eval_op(size_t line) {
    const program::Instruction& in = *p_.text_line(line).inst;
    std::string m = in.mnemonic;
    for (const char* s : {"_e32", "_e64"})
      if (m.size() > 4 && m.compare(m.size() - 4, 4, s) == 0) m.resize(m.size() - 4);
    auto ops = operand_texts(in);
    auto reg0 = ops.empty() ? std::nullopt : program::parse_reg(ops[0]);
    if (!reg0 || reg0->file != RegFile::VGPR || reg0->count != 1) return std::nullopt;
    auto src = [&](size_t k) { return k < ops.size() ? operand(ops[k], line) : std::nullopt; };
    Lanes out{};
    using F2 = uint32_t (*)(uint32_t, uint32_t);
    using F3 = uint32_t (*)(uint32_t, uint32_t, uint32_t);
    static const std::map<std::string, F2> kTwo = {
        {"v_and_b32", [](uint32_t a, uint32_t b) { return a & b; }},
        {"v_or_b32", [](uint32_t a, uint32_t b) { return a | b; }},
        {"v_xor_b32", [](uint32_t a, uint32_t b) { return a ^ b; }},
        {"v_add_u32", [](uint32_t a, uint32_t b) { return a + b; }},
        {"v_sub_u32", [](uint32_t a, uint32_t b) { return a - b; }},
        {"v_subrev_u32", [](uint32_t a, uint32_t b) { return b - a; }},
        {"v_lshlrev_b32", [](uint32_t a, uint32_t b) { return b << (a & 31); }},
        {"v_lshrrev_b32", [](uint32_t a, uint32_t b) { return b >> (a & 31); }},
    };
    static const std::map<std::string, F3> kThree = {
        {"v_add_lshl_u32", [](uint32_t a, uint32_t b, uint32_t c) { return (a + b) << (c & 31); }},
        {"v_lshl_add_u32", [](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) + c; }},
        {"v_lshl_or_b32", [](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) | c; }},
        {"v_and_or_b32", [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; }},
        {"v_or3_b32", [](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }},
        {"v_xad_u32", [](uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }},
        {"v_add3_u32", [](uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }},
    };
    if (in.defs.size() != 1 && m != "v_addc_co_u32") return std::nullopt;
    if (m == "v_mov_b32" && ops.size() == 2) {
      return src(1);
    } else if (auto f = kTwo.find(m); f != kTwo.end() && ops.size() == 3) {
      auto a = src(1), b = src(2);
      if (!a || !b) return std::nullopt;
      for (unsigned l = 0; l < 64; ++l) out[l] = f->second((*a)[l], (*b)[l]);
    } else if (auto g = kThree.find(m); g != kThree.end() && ops.size() == 4) {
      auto a = src(1), b = src(2), c = src(3);
      if (!a || !b || !c) return std::nullopt;
      for (unsigned l = 0; l < 64; ++l) out[l] = g->second((*a)[l], (*b)[l], (*c)[l]);
    } else if ((m == "v_mbcnt_lo_u32_b32" || m == "v_mbcnt_hi_u32_b32") && ops.size() == 3) {
      // acc + popcount(mask & lanes below this one in the low / high half); depends on no EXEC.
      auto mk = constant(ops[1]);
      auto acc = src(2);
      if (!mk || !acc) return std::nullopt;
      const bool hi = m == "v_mbcnt_hi_u32_b32";
      for (unsigned l = 0; l < 64; ++l) {
        const unsigned below = hi ? (l > 32 ? l - 32 : 0) : std::min(l, 32u);
        const uint64_t lanes = below >= 32 ? 0xffffffffull : ((1ull << below) - 1);
        out[l] = (*acc)[l] + static_cast<uint32_t>(std::popcount(*mk & lanes));
      }
    } else if (m == "v_cndmask_b32" && (ops.size() == 4 || (ops.size() == 3 && in.mnemonic.ends_with("_e32")))) {
      auto a = src(1), b = src(2);
      auto c = mask(ops.size() == 4 ? ops[3] : "vcc", line);
      if (!a || !b || !c) return std::nullopt;
      for (unsigned l = 0; l < 64; ++l) out[l] = (*c >> l & 1) ? (*b)[l] : (*a)[l];
    } else if (m == "v_addc_co_u32" && ops.size() == 5 && ops[1] == "vcc") {
      auto a = src(2), b = src(3);
      auto c = mask(ops[4], line);
      if (!a || !b || !c) return std::nullopt;
      for (unsigned l = 0; l < 64; ++l) out[l] = (*a)[l] + (*b)[l] + static_cast<uint32_t>(*c >> l & 1);
    } else {
      return std::nullopt;
    }
    return out;
  }

  const program::Program& p_;
  size_t first_;
  size_t earliest_ = SIZE_MAX;
  size_t steps_ = 0;
  std::map<size_t, Lanes> cache_;
};

// One DPP control with its text and the emulator's description of it.
struct Control {
  std::string text;
  emu::DppMods mods;
};

std::vector<Control> controls() {
  std::vector<Control> out;
  auto add = [&](std::string t, emu::DppMods::Ctrl c, unsigned shift = 0) {
    emu::DppMods d;
    d.present = true, d.ctrl = c, d.shift = static_cast<uint8_t>(shift);
    out.push_back({std::move(t), d});
  };
  for (unsigned q = 0; q < 256; ++q) {
    emu::DppMods d;
    d.present = true, d.ctrl = emu::DppMods::QuadPerm;
    for (unsigned k = 0; k < 4; ++k) d.quad_perm[k] = static_cast<uint8_t>(q >> (2 * k) & 3);
    out.push_back({fmt::format("quad_perm:[{},{},{},{}]", q & 3, q >> 2 & 3, q >> 4 & 3, q >> 6 & 3), d});
  }
  for (unsigned n = 1; n < 16; ++n) {
    add(fmt::format("row_shl:{}", n), emu::DppMods::RowShl, n);
    add(fmt::format("row_shr:{}", n), emu::DppMods::RowShr, n);
    add(fmt::format("row_ror:{}", n), emu::DppMods::RowRor, n);
  }
  add("row_mirror", emu::DppMods::RowMirror);
  add("row_half_mirror", emu::DppMods::RowHalfMirror);
  add("row_bcast:15", emu::DppMods::RowBcast15);
  add("row_bcast:31", emu::DppMods::RowBcast31);
  add("wave_shl:1", emu::DppMods::WaveShl);
  add("wave_shr:1", emu::DppMods::WaveShr);
  add("wave_rol:1", emu::DppMods::WaveRol);
  add("wave_ror:1", emu::DppMods::WaveRor);
  return out;
}

// Lanes (bit l) where `c` reads exactly src[l] and in range.
uint64_t matches(const Control& c, const std::array<int, 64>& src) {
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l)
    if (emu::sem::dpp_source_lane(c.mods, l) == src[l]) m |= 1ull << l;
  return m;
}

uint64_t bank_lanes(unsigned banks) {
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l)
    if (banks >> ((l >> 2) & 3) & 1) m |= 1ull << l;
  return m;
}

uint64_t row_lanes(unsigned rows) {
  uint64_t m = 0;
  for (unsigned l = 0; l < 64; ++l)
    if (rows >> (l / 16) & 1) m |= 1ull << l;
  return m;
}

// The DPP moves that reproduce permutation `src` on every lane: "ctrl row_mask:R bank_mask:B" each.
std::optional<std::vector<std::string>> plan(const std::array<int, 64>& src) {
  static const std::vector<Control> kControls = controls();
  std::vector<uint64_t> match;
  for (const Control& c : kControls) {
    match.push_back(matches(c, src));
    if (match.back() == ~0ull) return std::vector<std::string>{c.text + " row_mask:0xf bank_mask:0xf"};
  }
  for (unsigned part = 1; part < 15; ++part) {
    for (const bool by_bank : {true, false}) {
      const uint64_t a = by_bank ? bank_lanes(part) : row_lanes(part), b = ~a;
      for (size_t i = 0; i < kControls.size(); ++i) {
        if ((match[i] & a) != a) continue;
        for (size_t j = 0; j < kControls.size(); ++j) {
          if ((match[j] & b) != b) continue;
          auto masks = [&](unsigned p) {
            return by_bank ? fmt::format("row_mask:0xf bank_mask:0x{:x}", p) : fmt::format("row_mask:0x{:x} bank_mask:0xf", p);
          };
          return std::vector<std::string>{kControls[i].text + " " + masks(part), kControls[j].text + " " + masks(15 - part)};
        }
      }
    }
  }
  return std::nullopt;
}

struct Site {
  size_t line = 0;
  std::vector<std::string> lines;  // the replacement, without wait states
  std::string what;
};

// "" when every path from the line after `line` reaches an s_waitcnt lgkmcnt(0) (or the end of the
// program) before any partial lgkmcnt wait and before any instruction that reads or writes `dst`;
// else why not. Paths follow the kernel's CFG (blocks of `f`); a block already examined is not
// examined again (a loop back to it adds no new instruction).
std::string waits_before_use(const program::Program& p, size_t line, const RegRange& dst) {
  const codeobj::Arch arch = p.original().target().arch;
  const unsigned lgkm_max = check::counter_limits(arch).max[check::kLgkmCnt];
  const program::Function* f = nullptr;
  for (const program::Function& g : p.functions())
    if (line >= g.begin && line < g.end) f = &g;
  if (!f) return "not in a function";
  auto block_of = [&](size_t l) -> std::optional<size_t> {
    for (size_t b = 0; b < f->blocks.size(); ++b)
      if (l >= f->blocks[b].first && l <= f->blocks[b].last) return b;
    return std::nullopt;
  };
  auto start = block_of(line);
  if (!start) return "not in a block";
  std::vector<std::pair<size_t, size_t>> todo{{*start, line + 1}};  // (block, first line to scan)
  std::set<size_t> seen;
  while (!todo.empty()) {
    auto [b, from] = todo.back();
    todo.pop_back();
    const program::BasicBlock& blk = f->blocks[b];
    bool waited = false;
    for (size_t i = from; i <= blk.last && !waited; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::Label) continue;
      if (!l.inst) return "an undecoded line follows";
      if (l.inst->is_call) return "a call follows before the wait";
      if (l.inst->cls == program::InstClass::Waitcnt) {
        auto w = check::decode_waitcnt(*l.inst, arch);
        if (!w) return "an unusual wait follows";
        const unsigned n = w->count[check::kLgkmCnt];
        if (n < lgkm_max) {
          if (n != 0) return "a partial lgkmcnt wait follows";
          waited = true;
          break;
        }
      }
      if (l.inst->reads(dst) || l.inst->writes(dst)) return "the destination is touched before its wait";
    }
    if (waited) continue;
    const program::Instruction* last = p.text_line(blk.last).inst ? &*p.text_line(blk.last).inst : nullptr;
    if (last && last->is_branch && !last->branch_target) return "an indirect branch follows";
    for (size_t s : blk.succs)
      if (seen.insert(s).second) todo.push_back({s, f->blocks[s].first});
  }
  return "";
}

// The DPP replacement of the ds_bpermute_b32 / ds_swizzle_b32 at `line`, or why not.
std::optional<Site> site_at(const program::Program& p, const program::BasicBlock& b, size_t line, std::string& why) {
  const program::Instruction& in = *p.text_line(line).inst;
  const bool bperm = in.mnemonic == "ds_bpermute_b32", swz = in.mnemonic == "ds_swizzle_b32";
  if (!bperm && !swz) return std::nullopt;
  if (in.bytes.size() < 8) return why = "unexpected encoding", std::nullopt;
  const uint32_t offset = in.bytes[0] | (static_cast<uint32_t>(in.bytes[1]) << 8);
  if (in.text.find(" gds") != std::string::npos) return why = "GDS form", std::nullopt;
  // Operands without the modifiers (swizzle(SWAP,16) has a comma of its own).
  auto ops = split_operands(in.text.substr(0, in.text.find(" offset:")), in.mnemonic.size());
  for (std::string& o : ops) o = o.substr(0, o.find(' '));
  if (ops.size() != (bperm ? 3u : 2u)) return why = "unexpected operands", std::nullopt;
  auto dst = program::parse_reg(ops[0]), data = program::parse_reg(ops.back());
  if (!dst || !data) return why = "unexpected operands", std::nullopt;
  std::array<int, 64> src{};
  if (swz) {
    for (unsigned l = 0; l < 64; ++l)
      if ((src[l] = emu::sem::swizzle_source_lane(offset, l)) < 0) return why = "swizzle rotate/FFT mode", std::nullopt;
  } else {
    auto addr = program::parse_reg(ops[1]);
    if (!addr || addr->file != RegFile::VGPR) return why = "unexpected operands", std::nullopt;
    LaneEvaluator ev(p, b.first);
    auto a = ev.vgpr(*addr, line);
    if (!a) return why = "the address is not a function of the lane id computed in this block", std::nullopt;
    const RegRange exec{RegFile::EXEC, 0, 2};
    for (size_t i = ev.earliest(); i < line; ++i)
      if (p.text_line(i).inst->writes(exec)) return why = "EXEC changes inside the address slice", std::nullopt;
    for (unsigned l = 0; l < 64; ++l) src[l] = static_cast<int>((((*a)[l] + offset) >> 2) & 63);
  }
  auto moves = plan(src);
  if (!moves) return why = "the permutation is not a DPP row/bank pattern", std::nullopt;
  if (moves->size() > 1 && program::overlaps(*dst, *data)) return why = "two DPP moves would overwrite their own source", std::nullopt;
  // On every path from here the next lgkmcnt wait must be lgkmcnt(0), nothing before it touching dst.
  if (std::string w = waits_before_use(p, line, *dst); !w.empty()) return why = w, std::nullopt;
  Site s;
  s.line = line;
  for (const std::string& m : *moves) {
    // The second move keeps the first one's lanes: it reads its destination (DPP `old`), which the
    // first just wrote — 2 wait states (the dpp-vgpr hazard).
    if (!s.lines.empty()) s.lines.push_back("s_nop 1");
    s.lines.push_back(fmt::format("v_mov_b32_dpp {}, {} {} bound_ctrl:1", ops[0], ops.back(), m));
  }
  s.what = fmt::format("{} as {}", in.text, (*moves)[0] + (moves->size() > 1 ? " + " + (*moves)[1] : ""));
  return s;
}

class DppPermuteMove final : public Move {
 public:
  std::string name() const override { return "dpp-permute"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const program::Function& f = kernel_function(p, c.kernel);
    std::vector<std::pair<Site, std::string>> sites;  // with its wait states
    for (const program::BasicBlock& b : f.blocks) {
      for (size_t i = std::max(b.first, c.window.first); i <= std::min(b.last, c.window.last); ++i) {
        if (!p.text_line(i).inst) continue;
        std::string why;
        auto s = site_at(p, b, i, why);
        if (!s) continue;
        // The fewest wait states that satisfy the DPP hazard rules.
        for (const char* nop : {"", "s_nop 1", "s_nop 4"}) {
          std::vector<std::string> lines = s->lines;
          if (*nop) lines.insert(lines.begin(), nop);
          program::Program q = p;
          q.replace(i, i, lines);
          if (rebuilds_clean(q, c.kernel)) {
            sites.push_back({*s, nop});
            break;
          }
        }
      }
    }
    std::vector<Edit> out;
    auto lines_of = [](const std::pair<Site, std::string>& s) {
      std::vector<std::string> l = s.first.lines;
      if (!s.second.empty()) l.insert(l.begin(), s.second);
      return l;
    };
    if (sites.size() > 1) {
      Edit all;
      all.kernel = c.kernel, all.move = name(), all.proposer = proposer();
      for (const auto& s : sites) all.hunks.push_back(make_hunk(p, s.first.line, s.first.line, lines_of(s)));
      all.description = fmt::format("{} cross-lane DS reads as DPP moves", sites.size());
      out.push_back(std::move(all));
    }
    for (const auto& s : sites) {
      if (out.size() >= c.max_edits) break;
      Edit e;
      e.kernel = c.kernel, e.move = name(), e.proposer = proposer();
      e.hunks.push_back(make_hunk(p, s.first.line, s.first.line, lines_of(s)));
      e.description = "line " + std::to_string(s.first.line) + ": " + s.first.what;
      out.push_back(std::move(e));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_dpp_permute_move() { return std::make_unique<DppPermuteMove>(); }

// For tests: why the move refuses the DS cross-lane read at `line` ("" when it accepts it).
std::string dpp_permute_refusal(const program::Program& p, const std::string& kernel, size_t line) {
  const program::Function& f = kernel_function(p, kernel);
  for (const program::BasicBlock& b : f.blocks) {
    if (line < b.first || line > b.last) continue;
    std::string why = "not a ds_bpermute_b32 / ds_swizzle_b32";
    return site_at(p, b, line, why) ? "" : why;
  }
  return "not in the kernel";
}

}  // namespace asmevo::search
