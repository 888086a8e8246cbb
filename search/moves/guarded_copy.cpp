// The guarded copy (guarded_copy.h): the copied code with renamed labels, and the edit's one hunk.
#include "search/moves/guarded_copy.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "codeobj/initial_sgprs.h"

namespace asmevo::search {

bool is_branch_mnemonic(const std::string& m) { return m == "s_branch" || m.rfind("s_cbranch_", 0) == 0; }

std::string GuardedCopy::renamed(const std::string& label) const {
  std::string s = label;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return prefix + s;
}

std::optional<GuardedCopy> copy_from(const program::Program& p, const program::Function& f, size_t g, const std::string& tag) {
  if (g < f.begin || g >= f.end || p.text_line(g).kind != program::Line::Instr) return std::nullopt;
  GuardedCopy c;
  c.prefix = fmt::format(".L{}{:x}_", tag, p.text_line(g).address);
  std::set<std::string> labels_after;
  for (size_t i = g; i < f.end; ++i)
    if (p.text_line(i).kind == program::Line::Label) labels_after.insert(p.text_line(i).text);
  size_t last_instruction = 0;
  for (size_t i = g; i < f.end; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind == program::Line::RawInstr) return std::nullopt;
    if (l.kind == program::Line::Directive && l.text.rfind(".p2align", 0) != 0) return std::nullopt;
    if (l.kind == program::Line::Label) {
      c.lines.push_back({i, true, c.renamed(l.text) + ":"});
      continue;
    }
    if (l.kind != program::Line::Instr) continue;
    if (l.text.find("movrel") != std::string::npos || l.text.rfind("s_set_gpr_idx", 0) == 0 || l.text.rfind("s_setpc", 0) == 0 ||
        l.text.rfind("s_getpc", 0) == 0)
      return std::nullopt;
    last_instruction = i;
    const size_t space = l.text.find(' ');
    const std::string m = l.text.substr(0, space);
    std::string text = l.text;
    if (is_branch_mnemonic(m)) {
      if (space != std::string::npos) {
        const std::string target = l.text.substr(space + 1);
        if (!labels_after.count(target)) return std::nullopt;  // a target before G or a number
        text = m + " " + c.renamed(target);
      }
    } else if (l.text.find(".L") != std::string::npos || l.text.find('@') != std::string::npos) {
      return std::nullopt;  // a symbol operand (PC-relative arithmetic)
    }
    c.lines.push_back({i, false, text});
  }
  const std::string& last_text = p.text_line(last_instruction).text;
  if (!last_instruction || (last_text != "s_endpgm" && last_text.rfind("s_branch ", 0) != 0)) return std::nullopt;
  return c;
}

std::optional<std::vector<std::string>> one_dimensional_workgroup_guard(const program::Program& p, const program::Function& f,
                                                                        size_t g, const std::string& orig, std::string& why) {
  const codeobj::KernelDescriptor& kd = p.kernel_descriptor(f.name);
  if (kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr")) return why = "the kernel has the dispatch pointer already", std::nullopt;
  if (kd.kernarg_preload_length()) return why = "the kernel preloads kernel arguments", std::nullopt;
  if (kd.user_sgpr_count() + 2 > 16) return why = "no room for two more user SGPRs", std::nullopt;
  for (size_t i = f.begin; i < g; ++i)
    if (p.text_line(i).kind == program::Line::Label || p.text_line(i).kind == program::Line::Instr)
      return why = "the guard must come before the kernel's first instruction and no label", std::nullopt;
  const unsigned first_moved = 4 * kd.get("kernel_code_properties.enable_sgpr_private_segment_buffer");
  const unsigned initialized = codeobj::initialized_sgpr_count(kd);  // the old layout's hardware-set SGPRs: [0, initialized)
  const std::vector<program::RegSet> live = p.live_in(f);
  const program::RegSet& at_g = live[g - f.begin];
  if (at_g.bits.test(program::RegSet::kScc)) return why = "SCC is live at the kernel's entry", std::nullopt;
  auto free_sgpr = [&](unsigned r) { return r < 100 && !at_g.bits.test(program::RegSet::kSgpr + r); };
  unsigned pair = (initialized + 2 + 1) & ~1u;  // even (SGPR pairs are 64-bit aligned), above the new layout
  while (pair < 100 && !(free_sgpr(pair) && free_sgpr(pair + 1))) pair += 2;
  unsigned a = pair + 2;
  while (a < 100 && !free_sgpr(a)) ++a;
  unsigned b = a + 1;
  while (b < 100 && !free_sgpr(b)) ++b;
  if (b >= 100) return why = "no free SGPRs for the guard", std::nullopt;
  std::vector<std::string> out;
  out.push_back(fmt::format("s_mov_b64 s[{}:{}], s[{}:{}]", pair, pair + 1, first_moved, first_moved + 1));
  for (unsigned r = first_moved; r < initialized; ++r) out.push_back(fmt::format("s_mov_b32 s{}, s{}", r, r + 2));
  out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], 0x4", a, pair, pair + 1));  // workgroup_size_x | workgroup_size_y << 16
  out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], 0x8", b, pair, pair + 1));  // workgroup_size_z | reserved0 << 16
  out.push_back("s_waitcnt lgkmcnt(0)");
  out.push_back(fmt::format("s_lshr_b32 s{}, s{}, 16", a, a));
  out.push_back(fmt::format("s_cmp_lg_u32 s{}, 1", a));
  out.push_back("s_cbranch_scc1 " + orig);
  out.push_back(fmt::format("s_and_b32 s{}, s{}, 0xffff", b, b));
  out.push_back(fmt::format("s_cmp_lg_u32 s{}, 1", b));
  out.push_back("s_cbranch_scc1 " + orig);
  return out;
}

Hunk guarded_copy_hunk(size_t g, const std::vector<std::string>& guard, const std::vector<std::string>& lines, const GuardedCopy& copy) {
  std::vector<std::string> all = guard;
  for (const std::string& l : lines)
    if (!l.empty()) all.push_back(l);
  all.push_back(copy.orig() + ":");
  return make_insertion(g, all);
}

}  // namespace asmevo::search
