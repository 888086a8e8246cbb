// Move: kernarg preload (gfx942/gfx950). A kernel compiled without preloading starts by loading
// its arguments with s_load from the kernarg segment and waiting for them (a scalar-memory round
// trip on every wave's critical path). With the KD's kernarg_preload length N (offset 0), firmware
// that supports preloading puts the first N kernarg dwords into the user SGPRs after the enabled
// ones before the wave starts, and enters the kernel 256 bytes after its start (AMDGPUUsage,
// "Preloaded Kernel Arguments"). The edit, as Triton's gfx942 kernels have it:
//   1. the KD: kernarg_preload.length N, offset 0, user_sgpr_count U -> U + N;
//   2. every SGPR from U up in the kernel's code is renamed s -> s + N: the hardware now puts the
//      system SGPRs (workgroup ids, private segment offset) N registers higher, and s[U, U+N) hold
//      the preloaded arguments, which nothing else writes;
//   3. each kernarg load wholly inside the first N dwords, at a point the kernarg pointer still
//      holds its address, becomes s_mov copies of the preloaded SGPRs (the same bytes: the kernarg
//      segment is constant for the dispatch);
//   4. the 256-byte compatibility prologue for firmware without preloading: s_loads of s[U, U+N)
//      from the kernarg pointer, s_waitcnt lgkmcnt(0), s_branch to the original first
//      instruction, s_nop 0 padding to exactly 256 bytes;
//   5. waits made needless by the removed loads are refined (waitcnt_refine) in the same edit.
// Why every launch: the launch interface (kernarg segment, the user SGPRs below U) is unchanged;
// on either firmware the SGPRs s[U, U+N) hold kernarg dwords [0, N) when the original first
// instruction runs, and every other SGPR holds what its unrenamed counterpart held, so each
// instruction computes what it did. Verification runs both entries (every other run without
// preloading firmware) and the static checker proves the waits.
//
// Refused (no edit): other archs, kernels that already preload or do not enable the kernarg
// pointer, kernels that call functions (their SGPRs follow a calling convention) or hold raw
// instructions or M0-relative SGPR moves (s_movrels/s_movreld index SGPRs by number), a first
// instruction that is a branch target, an SGPR tuple straddling U, no kernarg load to replace, and
// when the shifted registers exceed the arch's SGPRs.
#include <fmt/format.h>

#include <regex>

#include "search/moves/kernarg.h"
#include "search/moves/moves.h"
#include "search/moves/waitcnt_refine.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

constexpr unsigned kPrologueBytes = 256;  // where preloading firmware enters (AMDGPUUsage)
constexpr unsigned kMaxUserSgprs = 16;    // compute_pgm_rsrc2.user_sgpr_count limit

// `text` with every SGPR numbered >= from shifted by `by`; nullopt when a tuple straddles `from`.
// Also reports the widest alignment the shifted tuples need (2 for pairs, 4 for 4+ dwords: the
// GFX9 operand alignment rule for SGPR tuples).
std::optional<std::string> shift_sgprs(const std::string& text, unsigned from, unsigned by, unsigned& alignment) {
  static const std::regex operand(R"(\bs(\d+)\b|\bs\[(\d+):(\d+)\])");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), operand), end; it != end; ++it) {
    const std::smatch& m = *it;
    out.append(last, m[0].first);
    last = m[0].second;
    if (m[1].matched) {
      unsigned r = std::stoul(m[1]);
      out += fmt::format("s{}", r >= from ? r + by : r);
    } else {
      unsigned a = std::stoul(m[2]), b = std::stoul(m[3]);
      if (a < from && b >= from) return std::nullopt;
      if (a >= from) {
        alignment = std::max(alignment, b - a + 1 >= 4 ? 4u : 2u);
        a += by, b += by;
      }
      out += fmt::format("s[{}:{}]", a, b);
    }
  }
  out.append(last, text.cend());
  return out;
}

// s_mov copies of preloaded dwords [source, source + count) into the load's destination dwords,
// each renamed as the shift renames it (a destination may straddle `user`: s[0:3] over the
// kernarg pointer); b64 where both pairs are even and contiguous.
std::vector<std::string> copies(unsigned dest, unsigned source, unsigned count, unsigned user, unsigned shift) {
  auto renamed = [&](unsigned r) { return r >= user ? r + shift : r; };
  std::vector<std::string> out;
  for (unsigned k = 0; k < count;) {
    const unsigned d = renamed(dest + k);
    if (k + 1 < count && renamed(dest + k + 1) == d + 1 && d % 2 == 0 && (source + k) % 2 == 0) {
      out.push_back(fmt::format("s_mov_b64 {}, {}", sgpr_operand(d, 2), sgpr_operand(source + k, 2)));
      k += 2;
    } else {
      out.push_back(fmt::format("s_mov_b32 s{}, s{}", d, source + k));
      ++k;
    }
  }
  return out;
}

// The compatibility prologue: loads of s[user, user + n) in the widest aligned pieces, the wait,
// the branch over the padding, s_nop 0 up to 256 bytes (SMEM 8 bytes, SOPP 4).
std::vector<std::string> prologue(unsigned user, unsigned n, unsigned kernarg_sgpr) {
  std::vector<std::string> out;
  unsigned bytes = 0;
  for (unsigned i = 0; i < n;) {
    const unsigned r = user + i;
    unsigned size = 1;
    for (unsigned s : {16u, 8u, 4u, 2u})
      if (i + s <= n && r % std::min(s, 4u) == 0) {
        size = s;
        break;
      }
    out.push_back(fmt::format("s_load_dword{} {}, s[{}:{}], {:#x}", size == 1 ? "" : fmt::format("x{}", size), sgpr_operand(r, size), kernarg_sgpr,
                              kernarg_sgpr + 1, 4 * i));
    bytes += 8;
    i += size;
  }
  out.push_back("s_waitcnt lgkmcnt(0)");
  bytes += 4;
  // s_branch simm16: target = PC + 4 + 4 * simm16.
  out.push_back(fmt::format("s_branch {}", (kPrologueBytes - bytes - 4) / 4));
  bytes += 4;
  while (bytes < kPrologueBytes) out.push_back("s_nop 0"), bytes += 4;
  return out;
}

class KernargPreloadMove final : public Move {
 public:
  std::string name() const override { return "kernarg-preload"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    const codeobj::Arch arch = p.original().target().arch;
    if (arch != codeobj::Arch::gfx942 && arch != codeobj::Arch::gfx950) return {};
    const program::Function* f = p.function(c.kernel);
    if (!f || !f->is_kernel || f->blocks.empty() || !f->callees.empty()) return {};
    const codeobj::KernelDescriptor& kd = p.kernel_descriptor(c.kernel);
    if (kd.kernarg_preload_length() > 0) return {};
    const std::optional<unsigned> pointer = kernarg_pointer_sgpr(kd);
    if (!pointer) return {};
    const unsigned user = kd.user_sgpr_count();
    if (user >= kMaxUserSgprs) return {};
    const std::vector<bool> intact = kernarg_pointer_intact(p, *f, *pointer);
    if (intact.empty()) return {};

    // The first instruction, not a branch target (the prologue goes before it).
    size_t first = f->begin;
    while (first < f->end && p.text_line(first).kind != program::Line::Instr) {
      if (p.text_line(first).kind == program::Line::RawInstr) return {};
      if (p.text_line(first).kind == program::Line::Label && p.text_line(first).text != f->name) return {};
      ++first;
    }
    if (first >= f->end) return {};

    // Kernarg loads the pointer still addresses; the window must hold the first of them (the move
    // is the same edit from every window: propose it once, where it starts).
    std::vector<ArgLoad> loads;
    bool in_window = false;
    unsigned needed = 0, alignment = 1;
    for (size_t i = f->begin; i < f->end; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::RawInstr) return {};
      if (l.kind != program::Line::Instr) continue;
      if (l.text.rfind("s_movrel", 0) == 0) return {};
      auto a = parse_arg_load(l.text, *pointer);
      const bool convertible = a && intact[i - f->begin] && a->offset % 4 == 0;
      // A destination straddling `user` is only fine on a load that becomes copies (checked below);
      // a load that becomes copies needs no alignment of its own.
      unsigned own = 1;
      if (!shift_sgprs(l.text, user, 0, convertible ? own : alignment) && !(convertible && a->dest < user)) return {};
      if (!convertible) continue;
      a->line = i;
      loads.push_back(*a);
      if (loads.size() == 1) in_window = c.window.first <= i && i <= c.window.last;
      needed = std::max(needed, a->offset / 4 + a->dwords);
    }
    if (loads.empty() || !in_window) return {};
    // N: the largest that covers at most the loads, fits 16 user SGPRs and the kernarg segment, is
    // a multiple of the shifted tuples' alignment, and of the alignment of every load it does not
    // cover (that one stays a load, shifted); a straddling load must be covered.
    auto valid = [&](unsigned n) {
      if (n % alignment) return false;
      for (const ArgLoad& a : loads) {
        if (a.offset / 4 + a.dwords <= n) continue;
        if (a.dest < user && a.dest + a.dwords > user) return false;
        if (a.dest >= user && a.dwords > 1 && n % (a.dwords >= 4 ? 4 : 2)) return false;
      }
      return true;
    };
    unsigned n = std::min({kMaxUserSgprs - user, kd.kernarg_size / 4, needed});
    while (n > 0 && !valid(n)) --n;
    if (n == 0) return {};

    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    e.kernarg_preload = n;
    size_t replaced = 0, added = 0, last_replaced = first;
    for (size_t i = first; i < f->end; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind != program::Line::Instr) continue;
      unsigned unused = 1;
      std::optional<std::string> shifted = shift_sgprs(l.text, user, n, unused);
      std::vector<std::string> lines{shifted.value_or(l.text)};
      for (const ArgLoad& a : loads)
        if (a.line == i && a.offset / 4 + a.dwords <= n) {
          lines = copies(a.dest, user + a.offset / 4, a.dwords, user, n);
          ++replaced;
          last_replaced = i;
        }
      if (lines.size() > 1) added += lines.size() - 1;
      if (i == first) {
        std::vector<std::string> entry = prologue(user, n, *pointer);
        added += entry.size();
        entry.insert(entry.end(), lines.begin(), lines.end());
        e.hunks.push_back(make_hunk(p, i, i, entry));
      } else if (lines.size() != 1 || lines[0] != l.text) {
        e.hunks.push_back(make_hunk(p, i, i, lines));
      }
    }
    if (replaced == 0) return {};
    std::optional<program::Program> edited;
    try {
      edited.emplace(apply_edit(p, e));
    } catch (const Error&) {
      return {};  // e.g. the shifted registers exceed the arch's SGPRs
    }
    // The waits for the removed loads now wait for less: refine them in the same edit.
    // Only the waits up to a little after the last replaced load (in the edited lines).
    const program::Function* g = edited->function(c.kernel);
    WaitcntRefinement tidy{*edited, {}, 0};
    try {
      tidy = refine_waitcnts(*edited, c.kernel, std::pair{g->begin, std::min(g->end - 1, last_replaced + added + 32)});
    } catch (const Error&) {
      // Static findings: the unrefined edit goes to the cascade, whose static gate decides.
    }
    // The refined waits as hunks of their own (a wait inside one of the edit's hunks keeps its
    // strength: a stronger wait is always safe, and later refinements only assumed weaker ones).
    Edit result = e;
    size_t refined = 0;
    for (const WaitcntChange& ch : tidy.changes) {
      size_t line = 0;
      try {
        line = p.line_of_address(ch.address);
      } catch (const Error&) {
        continue;
      }
      bool covered = false;
      for (const Hunk& h : e.hunks) covered |= h.first <= line && line < h.first + std::max<size_t>(h.count, 1);
      if (covered || p.text_line(line).text != ch.before) continue;
      result.hunks.push_back(make_hunk(p, line, line, ch.after.empty() ? std::vector<std::string>{} : std::vector<std::string>{ch.after}));
      ++refined;
    }
    result.description = fmt::format("{} kernarg dword(s) preloaded into s[{}:{}] ({} load(s) became copies), SGPRs from s{} shifted by {}, "
                                     "256-byte compatibility prologue{}",
                                     n, user, user + n - 1, replaced, user, n,
                                     refined ? fmt::format("; {} wait(s) refined", refined) : "");
    return {result};
  }
};

}  // namespace

std::unique_ptr<Move> make_kernarg_preload_move() { return std::make_unique<KernargPreloadMove>(); }

}  // namespace asmevo::search
