// Move: guarded specialization on the perf launch's scalar arguments (issue 17). A kernel's sizes
// and strides are kernel arguments it loads with s_load at its start; at the perf launch they have
// one value each (a KernelBench problem size). The edit inserts, right after the entry block's
// first `s_waitcnt lgkmcnt(0)` (point G, where those loads have arrived):
//   guard:  s_cmp_lg_u32 sR, VALUE ; s_cbranch_scc1 .Lspec<G>_orig     (one pair per value relied on)
//   copy:   the kernel's code from G to its end, with its labels renamed, in which every scalar
//           value computable from the guarded SGPRs alone is known (SALU folding below), so that
//           uniform compares of known values disappear and the branches on them become s_branch or
//           nothing (the loop guards `K < 1`, the tail checks `N % 4 != 0`, ...);
//   .Lspec<G>_orig:  the original code from G on, unchanged.
// Why every launch: the guard compares the very SGPRs the copy relies on, after the loads wrote
// them, with the values the copy assumed; any launch with another value takes the original code.
// On the guarded path every instruction of the copy computes what its original does: a folded
// compare is deleted only where SCC is dead after its branch, a folded branch goes where the
// original's goes for that SCC, every other instruction is copied unchanged (values are not
// substituted into instructions: a literal costs as much as the register it replaces). The guard
// writes only SCC, which must be dead at G. Known values follow SGPRs through straight-line code
// (dropped at every label) and, for guarded SGPRs no instruction after G writes, everywhere (G
// dominates the copy). Verification runs both paths: the small verification launches mostly take
// the original, the perf launch (sampled workgroups, full-size buffers) takes the copy.
//
// Which values: kernel-argument dwords the perf launch fixes (emu::LaunchSpec): explicit by-value
// arguments, and the hidden block counts, group sizes, remainders, global offsets and grid dims
// (as HIP fills them: the guard checks the real values, so a runtime that fills them otherwise only
// misses the specialization). Buffer addresses are never specialized.
//
// Refused (no edit): no perf launch, kernels with calls, raw instructions, M0-relative register
// indexing, non-branch instructions that name labels (PC-relative arithmetic), data directives in
// the code, no entry-block wait with loads of known dwords before it, SCC live at G, code that can
// fall off the end, and copies in which nothing folds (a copy without a removed instruction only adds
// the guard).
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "emu/launch_spec.h"
#include "search/moves/guarded_copy.h"
#include "search/moves/kernarg.h"
#include "search/moves/moves.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

// Kernarg bytes a launch fixes before it runs (nullopt: unknown, e.g. buffer addresses).
std::vector<std::optional<uint8_t>> known_kernarg_bytes(const codeobj::KernelMetadata& md, const emu::LaunchSpec& run) {
  std::vector<std::optional<uint8_t>> out(md.kernarg_extent());
  auto put = [&](uint64_t offset, uint64_t value, uint64_t size) {
    for (uint64_t k = 0; k < size && k < 8 && offset + k < out.size(); ++k) out[offset + k] = static_cast<uint8_t>(value >> (8 * k));
  };
  uint64_t items[3];
  for (int d = 0; d < 3; ++d) items[d] = uint64_t{run.grid[d]} * run.block[d];
  size_t explicit_index = 0;
  for (const codeobj::KernelArg& a : md.args) {
    if (!a.is_hidden()) {
      const size_t i = explicit_index++;
      if (i < run.args.size() && run.args[i].kind == emu::ArgSpec::Value && run.args[i].dtype != "pad" && emu::dtype_size(run.args[i].dtype) == a.size)
        put(a.offset, emu::scalar_bits(run, i), a.size);
      continue;
    }
    const std::string& k = a.value_kind;
    const int d = k.empty() ? -1 : k.back() == 'x' ? 0 : k.back() == 'y' ? 1 : k.back() == 'z' ? 2 : -1;
    if (d >= 0 && k.rfind("hidden_block_count_", 0) == 0) put(a.offset, run.grid[d], a.size);
    else if (d >= 0 && k.rfind("hidden_group_size_", 0) == 0) put(a.offset, run.block[d], a.size);
    else if (d >= 0 && k.rfind("hidden_remainder_", 0) == 0) put(a.offset, items[d] % run.block[d], a.size);
    else if (d >= 0 && k.rfind("hidden_global_offset_", 0) == 0) put(a.offset, 0, a.size);
    else if (k == "hidden_grid_dims") put(a.offset, items[2] > 1 ? 3 : items[1] > 1 ? 2 : 1, a.size);
  }
  return out;
}

// Which argument a kernarg byte belongs to, for the description: the spec's name of an explicit
// argument (HIP's metadata has none), the value kind of a hidden one.
std::string argument_at(const codeobj::KernelMetadata& md, const emu::LaunchSpec& run, uint64_t offset) {
  size_t explicit_index = 0;
  for (const codeobj::KernelArg& a : md.args) {
    const bool here = a.offset <= offset && offset < a.offset + a.size;
    if (a.is_hidden()) {
      if (here) return a.value_kind;
      continue;
    }
    const size_t i = explicit_index++;
    if (here) return !a.name.empty() ? a.name : i < run.args.size() && !run.args[i].name.empty() ? run.args[i].name : fmt::format("argument {}", i);
  }
  return "padding";
}

struct Known {
  uint32_t value = 0;
  std::set<unsigned> roots;  // the guarded SGPRs it was computed from
};

std::string constant(uint32_t v) {
  const int32_t s = static_cast<int32_t>(v);
  return s >= -16 && s <= 64 ? std::to_string(s) : fmt::format("{:#x}", v);
}

// The SALU operations folded: result and SCC (nullopt: SCC not written), from the ISA reference
// (AMD Instinct MI300 ISA, SOP1/SOP2/SOPK/SOPC).
struct Folded {
  uint32_t value = 0;
  std::optional<bool> scc;
};
std::optional<Folded> fold(const std::string& m, uint32_t a, uint32_t b, bool scc_in) {
  const int64_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
  auto nz = [](uint32_t r) { return Folded{r, r != 0}; };
  auto signed_overflow = [](int64_t r) { return r < INT32_MIN || r > INT32_MAX; };
  if (m == "s_mov_b32") return Folded{a, std::nullopt};
  if (m == "s_movk_i32") return Folded{static_cast<uint32_t>(static_cast<int16_t>(a)), std::nullopt};
  if (m == "s_not_b32") return nz(~a);
  if (m == "s_add_u32") return Folded{a + b, uint64_t{a} + b > 0xffffffffull};
  if (m == "s_addc_u32") return Folded{a + b + scc_in, uint64_t{a} + b + scc_in > 0xffffffffull};
  if (m == "s_sub_u32") return Folded{a - b, b > a};
  if (m == "s_subb_u32") return Folded{a - b - scc_in, uint64_t{b} + scc_in > a};
  if (m == "s_add_i32") return Folded{a + b, signed_overflow(sa + sb)};
  if (m == "s_sub_i32") return Folded{a - b, signed_overflow(sa - sb)};
  if (m == "s_mul_i32") return Folded{a * b, std::nullopt};
  if (m == "s_mul_hi_u32") return Folded{static_cast<uint32_t>((uint64_t{a} * b) >> 32), std::nullopt};
  if (m == "s_mul_hi_i32") return Folded{static_cast<uint32_t>(static_cast<uint64_t>(sa * sb) >> 32), std::nullopt};
  if (m == "s_and_b32") return nz(a & b);
  if (m == "s_or_b32") return nz(a | b);
  if (m == "s_xor_b32") return nz(a ^ b);
  if (m == "s_andn2_b32") return nz(a & ~b);
  if (m == "s_orn2_b32") return nz(a | ~b);
  if (m == "s_lshl_b32") return nz(a << (b & 31));
  if (m == "s_lshr_b32") return nz(a >> (b & 31));
  if (m == "s_ashr_i32") return nz(static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31)));
  if (m == "s_min_i32") return Folded{sa < sb ? a : b, sa < sb};
  if (m == "s_min_u32") return Folded{a < b ? a : b, a < b};
  if (m == "s_max_i32") return Folded{sa > sb ? a : b, sa > sb};
  if (m == "s_max_u32") return Folded{a > b ? a : b, a > b};
  for (unsigned n = 1; n <= 4; ++n)
    if (m == fmt::format("s_lshl{}_add_u32", n)) {
      const uint64_t r = (uint64_t{a} << n) + b;
      return Folded{static_cast<uint32_t>(r), r > 0xffffffffull};
    }
  if (m == "s_bfe_u32") {
    const unsigned offset = b & 31, width = (b >> 16) & 127;
    const uint32_t r = width == 0 ? 0 : width >= 32 ? a >> offset : (a >> offset) & ((1u << width) - 1);
    return nz(r);
  }
  return std::nullopt;
}

std::optional<bool> compare(const std::string& m, uint32_t a, uint32_t b) {
  static const std::regex re(R"(^s_cmp_(eq|lg|gt|ge|lt|le)_(i32|u32)$)");
  std::smatch x;
  if (!std::regex_match(m, x, re)) return std::nullopt;
  const bool is_signed = x[2] == "i32";
  const int64_t l = is_signed ? int64_t{static_cast<int32_t>(a)} : int64_t{a}, r = is_signed ? int64_t{static_cast<int32_t>(b)} : int64_t{b};
  const std::string op = x[1];
  return op == "eq" ? l == r : op == "lg" ? l != r : op == "gt" ? l > r : op == "ge" ? l >= r : op == "lt" ? l < r : l <= r;
}

bool is_branch(const std::string& m) { return is_branch_mnemonic(m); }

class SpecializeMove final : public Move {
 public:
  std::string name() const override { return "specialize"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    if (!c.perf_runs || c.perf_runs->empty()) return {};
    std::vector<Edit> out;
    std::set<std::string> seen;
    for (const emu::LaunchSpec& run : *c.perf_runs) {
      if (run.kernel != c.kernel || out.size() >= c.max_edits) continue;
      std::optional<Edit> e = specialize(c, run);
      if (e && seen.insert(e->to_json()["hunks"].dump()).second) out.push_back(std::move(*e));
    }
    return out;
  }

 private:
  std::optional<Edit> specialize(const MoveContext& c, const emu::LaunchSpec& run) const {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f || !f->is_kernel || f->blocks.empty() || !f->callees.empty() || !p.metadata()) return std::nullopt;
    const codeobj::KernelMetadata* md = p.metadata()->kernel(c.kernel);
    if (!md) return std::nullopt;
    const std::optional<unsigned> pointer = kernarg_pointer_sgpr(p.kernel_descriptor(c.kernel));
    if (!pointer) return std::nullopt;
    const std::vector<bool> intact = kernarg_pointer_intact(p, *f, *pointer);
    if (intact.empty()) return std::nullopt;
    const std::vector<std::optional<uint8_t>> bytes = known_kernarg_bytes(*md, run);

    // G: after the entry block's first full scalar wait; the SGPRs loaded before it with known dwords.
    const program::BasicBlock& entry = f->blocks[0];
    std::map<unsigned, std::pair<uint32_t, uint64_t>> loaded;  // SGPR -> value, kernarg offset
    size_t g = 0;
    for (size_t i = entry.first; i < entry.last && !g; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind != program::Line::Instr) {
        if (l.kind == program::Line::RawInstr) return std::nullopt;
        continue;
      }
      for (const program::RegRange& d : p.registers_of(l).defs)
        if (d.file == program::RegFile::SGPR)
          for (unsigned r = d.first; r < d.first + d.count; ++r) loaded.erase(r);
      if (auto a = parse_arg_load(l.text, *pointer); a && intact[i - f->begin])
        for (unsigned j = 0; j < a->dwords; ++j) {
          const uint64_t offset = a->offset + 4ull * j;
          uint32_t v = 0;
          bool known = offset + 4 <= bytes.size();
          for (unsigned k = 0; k < 4 && known; ++k) known = bytes[offset + k].has_value(), v |= known ? uint32_t{*bytes[offset + k]} << (8 * k) : 0;
          if (known) loaded[a->dest + j] = {v, offset};
        }
      if (l.text.rfind("s_waitcnt", 0) == 0 && l.text.find("lgkmcnt(0)") != std::string::npos) g = i + 1;
    }
    if (!g || loaded.empty()) return std::nullopt;
    while (g <= entry.last && p.text_line(g).kind != program::Line::Instr) ++g;
    if (g > entry.last) return std::nullopt;
    const std::vector<program::RegSet> live = p.live_in(*f);
    auto live_at = [&](size_t line, size_t unit) { return line < f->end && live[line - f->begin].bits.test(unit); };
    if (live_at(g, program::RegSet::kScc)) return std::nullopt;

    // The copy (guarded_copy.h refuses code that cannot be copied), and which loaded SGPRs hold their
    // value everywhere after G (nothing after G writes them).
    const std::optional<GuardedCopy> original = copy_from(p, *f, g, "spec");
    if (!original) return std::nullopt;
    std::set<unsigned> written_after;
    for (const CopiedLine& cl : original->lines)
      if (!cl.label)
        for (const program::RegRange& d : p.registers_of(p.text_line(cl.source)).defs)
          if (d.file == program::RegFile::SGPR)
            for (unsigned r = d.first; r < d.first + d.count; ++r) written_after.insert(r);
    std::map<unsigned, Known> invariant, facts;
    for (const auto& [r, vo] : loaded)
      if (live_at(g, program::RegSet::kSgpr + r)) {
        facts[r] = Known{vo.first, {r}};
        if (!written_after.count(r)) invariant[r] = facts[r];
      }
    if (facts.empty()) return std::nullopt;

    // The copy, folding as it goes.
    std::vector<std::string> copy;
    std::vector<bool> deleted;
    std::optional<Known> scc;
    std::optional<size_t> scc_compare;  // index in `copy` of the s_cmp that set `scc`, while nothing read it
    std::set<unsigned> guarded;
    size_t folded_branches = 0, removed_compares = 0;
    auto value_of = [&](const std::string& op) -> std::optional<Known> {
      static const std::regex sgpr(R"(^s(\d+)$)"), integer(R"(^-?(0x[0-9a-fA-F]+|\d+)$)");
      std::smatch m;
      if (std::regex_match(op, m, sgpr)) {
        auto it = facts.find(std::stoul(m[1]));
        if (it == facts.end()) return std::nullopt;
        return it->second;
      }
      if (std::regex_match(op, integer)) return Known{static_cast<uint32_t>(std::stoll(op, nullptr, 0)), {}};
      return std::nullopt;
    };
    auto live_after = [&](size_t i, size_t unit) {
      for (const program::BasicBlock& b : f->blocks)
        if (b.first <= i && i <= b.last) {
          if (i < b.last) {
            size_t next = i + 1;
            while (p.text_line(next).kind != program::Line::Instr) ++next;
            return live_at(next, unit);
          }
          for (size_t s : b.succs)
            if (live_at(f->blocks[s].first, unit)) return true;
          return false;
        }
      return true;
    };
    for (const CopiedLine& cl : original->lines) {
      const size_t i = cl.source;
      const program::Line& l = p.text_line(i);
      if (cl.label) {
        copy.push_back(cl.text);
        deleted.push_back(false);
        facts = invariant;
        scc.reset();
        scc_compare.reset();
        continue;
      }
      const size_t space = l.text.find(' ');
      const std::string m = l.text.substr(0, space);
      std::vector<std::string> ops;
      if (space != std::string::npos) {
        std::string rest = l.text.substr(space + 1);
        for (size_t at = 0; at <= rest.size();) {
          size_t comma = rest.find(", ", at);
          ops.push_back(rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
          if (comma == std::string::npos) break;
          at = comma + 2;
        }
      }
      const std::string& text = cl.text;
      const program::LineRegisters regs = p.registers_of(l);
      bool reads_scc = false, writes_scc = false;
      for (const program::RegRange& u : regs.uses) reads_scc |= u.file == program::RegFile::SCC;
      for (const program::RegRange& d : regs.defs) writes_scc |= d.file == program::RegFile::SCC;

      if ((m == "s_cbranch_scc0" || m == "s_cbranch_scc1") && scc) {
        const bool taken = scc->value == (m == "s_cbranch_scc1");
        guarded.insert(scc->roots.begin(), scc->roots.end());
        ++folded_branches;
        if (scc_compare && !live_after(i, program::RegSet::kScc)) {
          deleted[*scc_compare] = true;
          ++removed_compares;
        }
        copy.push_back(taken ? text : "");
        deleted.push_back(!taken);
        if (taken) copy.back() = "s_branch " + original->renamed(ops[0]);
        scc.reset();
        scc_compare.reset();
        continue;
      }
      copy.push_back(text);
      deleted.push_back(false);
      if (reads_scc) scc_compare.reset();
      // What this instruction leaves known.
      std::optional<Known> result;
      std::optional<Known> scc_out;
      if (auto cmp_ops = ops.size() == 2 && m.rfind("s_cmp_", 0) == 0; cmp_ops) {
        auto a = value_of(ops[0]), b = value_of(ops[1]);
        std::optional<bool> r = a && b ? compare(m, a->value, b->value) : std::nullopt;
        if (r) {
          Known k{*r, a->roots};
          k.roots.insert(b->roots.begin(), b->roots.end());
          scc_out = k;
        }
      } else if (m == "s_cselect_b32" && ops.size() == 3 && scc) {
        result = value_of(scc->value ? ops[1] : ops[2]);
        if (result) result->roots.insert(scc->roots.begin(), scc->roots.end());
      } else if (!ops.empty() && ops.size() <= 3) {
        auto a = ops.size() >= 2 ? value_of(ops[1]) : std::nullopt;
        auto b = ops.size() == 3 ? value_of(ops[2]) : std::optional<Known>(Known{});
        if (m == "s_addk_i32" || m == "s_mulk_i32") {
          a = value_of(ops[0]), b = ops.size() == 2 ? value_of(ops[1]) : std::nullopt;
          if (b) b->value = static_cast<uint32_t>(static_cast<int16_t>(b->value));
        }
        const bool needs_scc = m == "s_addc_u32" || m == "s_subb_u32";
        if (a && b && (!needs_scc || scc)) {
          const std::string base = m == "s_addk_i32" ? "s_add_i32" : m == "s_mulk_i32" ? "s_mul_i32" : m;
          if (auto r = fold(base, a->value, b->value, needs_scc && scc->value)) {
            Known k{r->value, a->roots};
            k.roots.insert(b->roots.begin(), b->roots.end());
            if (needs_scc) k.roots.insert(scc->roots.begin(), scc->roots.end());
            result = k;
            if (r->scc) scc_out = Known{*r->scc, k.roots};
          }
        }
      }
      for (const program::RegRange& d : regs.defs)
        if (d.file == program::RegFile::SGPR)
          for (unsigned r = d.first; r < d.first + d.count; ++r) facts.erase(r);
      static const std::regex single_sgpr(R"(^s(\d+)$)");
      std::smatch dm;
      if (result && !ops.empty() && std::regex_match(ops[0], dm, single_sgpr)) facts[std::stoul(dm[1])] = *result;
      if (writes_scc) {
        scc = scc_out;
        scc_compare = scc_out && m.rfind("s_cmp_", 0) == 0 ? std::optional<size_t>(copy.size() - 1) : std::nullopt;
      }
      if (is_branch(m)) scc.reset(), scc_compare.reset();
    }
    // The window must lie in the code the edit specializes (every such window proposes this one edit;
    // the cascade's cache answers the repeats).
    if (folded_branches == 0 || c.window.last < g) return std::nullopt;

    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    std::vector<std::string> guard, lines;
    std::string values;
    for (unsigned r : guarded) {
      const auto& [v, offset] = loaded.at(r);
      guard.push_back(fmt::format("s_cmp_lg_u32 s{}, {}", r, constant(v)));
      guard.push_back("s_cbranch_scc1 " + original->orig());
      values += fmt::format("{}{} = {} (s{}, kernarg {:#x})", values.empty() ? "" : ", ", argument_at(*md, run, offset), static_cast<int32_t>(v), r, offset);
    }
    size_t copied = 0;
    for (size_t k = 0; k < copy.size(); ++k)
      if (!deleted[k]) lines.push_back(copy[k]), copied += copy[k].back() != ':';
    e.hunks.push_back(guarded_copy_hunk(g, guard, lines, *original));
    e.description = fmt::format("specialized on perf launch '{}': {}; guard of {} compare(s), copy of {} instruction(s) with {} branch(es) folded and "
                                "{} compare(s) removed; the original code for every other launch",
                                run.perf_name, values, guarded.size(), copied, folded_branches, removed_compares);
    return e;
  }
};

}  // namespace

std::unique_ptr<Move> make_specialize_move() { return std::make_unique<SpecializeMove>(); }

}  // namespace asmevo::search
