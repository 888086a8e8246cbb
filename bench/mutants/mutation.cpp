#include "bench/mutants/mutation.h"

#include <algorithm>
#include <fmt/format.h>
#include <regex>
#include <set>

#include "rebuild/rebuild.h"
#include "check/code.h"
#include "check/waitcnt.h"
#include "support/error.h"

namespace asmevo::mutants {
namespace {

using program::Instruction;
using program::Line;
using program::RegFile;
using program::RegRange;

struct Parsed {
  std::string mnemonic;
  std::vector<std::string> ops;  // comma-separated operands; the last may carry modifiers after a space
};

Parsed parse(const std::string& text) {
  Parsed p;
  size_t sp = text.find(' ');
  p.mnemonic = text.substr(0, sp);
  if (sp == std::string::npos) return p;
  std::string cur;
  int depth = 0;
  for (size_t i = sp + 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      p.ops.push_back(cur);
      cur.clear();
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) p.ops.push_back(cur);
  return p;
}

std::string join(const Parsed& p) {
  std::string t = p.mnemonic;
  for (size_t i = 0; i < p.ops.size(); ++i) t += (i ? ", " : " ") + p.ops[i];
  return t;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Instructions whose operands mutants leave alone: control flow and counters.
bool is_control(const Instruction& in) {
  const std::string& m = in.mnemonic;
  return in.is_branch || in.is_terminator || in.is_call || m == "s_waitcnt" || m == "s_nop" || m == "s_barrier" ||
         starts_with(m, "s_getpc") || starts_with(m, "s_setpc") || starts_with(m, "s_swappc") || starts_with(m, "s_sleep") ||
         starts_with(m, "s_setprio") || starts_with(m, "s_sendmsg") || starts_with(m, "s_endpgm") || starts_with(m, "s_dcache") ||
         starts_with(m, "s_waitcnt") || starts_with(m, "s_trap") || starts_with(m, "s_icache");
}

std::optional<long long> parse_int(const std::string& s) {
  static const std::regex re("^-?(0x[0-9a-fA-F]+|[0-9]+)$");
  if (!std::regex_match(s, re)) return std::nullopt;
  return std::stoll(s, nullptr, 0);
}

std::string format_like(const std::string& original, long long v) {
  bool hex = contains(original, "0x");
  if (hex && v >= 0) return fmt::format("0x{:x}", v);
  return std::to_string(v);
}

// "v5" -> {VGPR,5,1}, "s[4:5]" -> {SGPR,4,2}; nullopt for anything else (exec, vcc, constants...).
std::optional<RegRange> gpr(const std::string& op) {
  auto r = program::parse_reg(op);
  if (!r || (r->file != RegFile::VGPR && r->file != RegFile::SGPR)) return std::nullopt;
  return r;
}

std::string shifted(const RegRange& r, unsigned by) {
  RegRange s = r;
  s.first += by;
  return program::to_string(s);
}

unsigned reg_limit(RegFile f) { return f == RegFile::VGPR ? 256 : 102; }

bool overlap_any(const std::vector<RegRange>& a, const std::vector<RegRange>& b, bool ignore_exec_mode) {
  for (const auto& x : a)
    for (const auto& y : b) {
      if (ignore_exec_mode && (x.file == RegFile::EXEC || x.file == RegFile::Mode)) continue;
      if (program::overlaps(x, y)) return true;
    }
  return false;
}

struct Ctx {
  const program::Program& p;
  const program::Function& f;
  std::vector<Mutant> out;
  const Line& line(size_t i) const { return p.text_line(i); }
  bool editable(size_t i) const { return i < p.text_line_count() && line(i).kind == Line::Instr && line(i).inst; }
  void add(const std::string& op, bool preserving, std::vector<LineEdit> edits) {
    Mutant m;
    m.op = op;
    m.preserving = preserving;
    for (auto& e : edits) e.before = line(e.line).text;
    m.address = line(edits.front().line).address;
    m.edits = std::move(edits);
    out.push_back(std::move(m));
  }
  void replace(const std::string& op, size_t i, const std::string& text) {
    if (text != line(i).text) add(op, false, {{i, text, false, {}}});
  }
};

void op_imm(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  if (is_control(in)) return;
  const std::string& text = c.line(i).text;
  static const std::regex offset_re("offset:(-?(0x[0-9a-fA-F]+|[0-9]+))");
  std::smatch m;
  if (std::regex_search(text, m, offset_re)) {
    long long v = std::stoll(m[1].str(), nullptr, 0);
    long long nv = v >= 4 ? v - 4 : v + 4;
    c.replace("imm", i, m.prefix().str() + "offset:" + format_like(m[1].str(), nv) + m.suffix().str());
    return;
  }
  Parsed p = parse(text);
  // Scalar memory ignores the low two address bits: move its offset by a dword.
  const bool smem = starts_with(in.mnemonic, "s_load") || starts_with(in.mnemonic, "s_buffer_load") || starts_with(in.mnemonic, "s_store");
  for (size_t k = 1; k < p.ops.size(); ++k) {
    if (auto v = parse_int(p.ops[k])) {
      Parsed q = p;
      q.ops[k] = format_like(p.ops[k], smem ? (*v >= 4 ? *v - 4 : *v + 4) : *v + 1);
      c.replace("imm", i, join(q));
      return;
    }
    if (p.ops[k] == "1.0" || p.ops[k] == "0.5" || p.ops[k] == "2.0" || p.ops[k] == "-1.0" || p.ops[k] == "4.0") {
      Parsed q = p;
      q.ops[k] = p.ops[k] == "2.0" ? "4.0" : "2.0";
      c.replace("imm", i, join(q));
      return;
    }
  }
}

void op_swap_operands(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  if (is_control(in)) return;
  static const char* kNonCommutative[] = {"sub", "lshl", "lshr", "ashr", "_lt_", "_le_", "_gt_", "_ge_", "cndmask", "bfe", "ldexp", "_div"};
  Parsed p = parse(c.line(i).text);
  bool nc = false;
  for (const char* s : kNonCommutative) nc |= contains(p.mnemonic, s);
  if (!nc || p.ops.empty() || contains(p.ops.back(), " ")) return;
  size_t a = 1;
  if (p.ops.size() == 4 && (p.ops[1] == "vcc" || starts_with(p.ops[1], "s["))) a = 2;  // carry-out first
  else if (p.ops.size() != 3) return;
  if (p.ops[a] == p.ops[a + 1]) return;
  std::swap(p.ops[a], p.ops[a + 1]);
  c.replace("swap-operands", i, join(p));
}

void op_sibling(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  static const std::pair<const char*, const char*> kPairs[] = {
      {"_add_", "_sub_"},   {"_sub_", "_add_"},     {"_addc_", "_subb_"},  {"_subb_", "_addc_"}, {"_lt_", "_le_"},
      {"_le_", "_lt_"},     {"_gt_", "_ge_"},       {"_ge_", "_gt_"},      {"_eq_", "_ne_"},     {"_ne_", "_eq_"},
      {"_neq_", "_eq_"},    {"_lg_", "_eq_"},       {"_min_", "_max_"},    {"_max_", "_min_"},   {"_lshl", "_lshr"},
      {"_lshr", "_lshl"},   {"_ashr", "_lshr"},     {"_and_", "_or_"},     {"_or_", "_and_"},    {"_xor_", "_or_"},
      {"_mul_lo_", "_mul_hi_"}, {"_mul_hi_", "_mul_lo_"}, {"_u32", "_i32"}, {"_i32", "_u32"},  {"_scc0", "_scc1"},
      {"_scc1", "_scc0"},   {"_vccz", "_vccnz"},    {"_vccnz", "_vccz"},   {"_execz", "_execnz"}, {"_execnz", "_execz"},
      {"_f32_e", "_i32_e"}, {"_i32_e", "_f32_e"},   {"_max3_", "_min3_"},  {"_fma_f32", "_mul_f32"}};
  if (in.mnemonic == "s_waitcnt" || in.mnemonic == "s_nop" || in.mnemonic == "s_endpgm") return;
  Parsed p = parse(c.line(i).text);
  for (const auto& [from, to] : kPairs) {
    size_t at = p.mnemonic.find(from);
    if (at == std::string::npos) continue;
    if ((std::string(from) == "_f32_e" || std::string(from) == "_i32_e") && !starts_with(p.mnemonic, "v_cmp")) continue;
    if (std::string(from) == "_fma_f32") {  // fma(a, b, c) -> mul(a, b)
      if (p.ops.size() != 4) continue;
      Parsed q = p;
      q.mnemonic = p.mnemonic.substr(0, at) + to + p.mnemonic.substr(at + std::string(from).size());
      q.ops.pop_back();
      c.replace("sibling", i, join(q));
      return;
    }
    Parsed q = p;
    q.mnemonic = p.mnemonic.substr(0, at) + to + p.mnemonic.substr(at + std::string(from).size());
    c.replace("sibling", i, join(q));
    return;  // one sibling per instruction
  }
}

// compare-flip: a compare's strictness or equality flipped (gt<->ge, lt<->le, eq<->ne): a bounds
// mask that admits one element too many, a tie broken the other way.
void op_compare_flip(Ctx& c, size_t i) {
  Parsed p = parse(c.line(i).text);
  if (!starts_with(p.mnemonic, "v_cmp_") && !starts_with(p.mnemonic, "v_cmpx_") && !starts_with(p.mnemonic, "s_cmp_")) return;
  static const std::pair<const char*, const char*> kFlips[] = {{"_gt_", "_ge_"}, {"_ge_", "_gt_"}, {"_lt_", "_le_"},
                                                               {"_le_", "_lt_"}, {"_eq_", "_ne_"}, {"_ne_", "_eq_"},
                                                               {"_lg_", "_eq_"}, {"_neq_", "_eq_"}};
  for (const auto& [from, to] : kFlips) {
    size_t at = p.mnemonic.find(from);
    if (at == std::string::npos) continue;
    p.mnemonic = p.mnemonic.substr(0, at) + to + p.mnemonic.substr(at + std::string(from).size());
    c.replace("compare-flip", i, join(p));
    return;
  }
}

// mul-add: v_mul_f32 -> v_add_f32 where the product feeds a range check or an estimate that later
// steps refine: read (before it is overwritten, within 8 instructions) by a compare, a
// float-to-integer conversion (the reciprocal of integer division), or inside a division sequence
// (a v_div_fmas follows). Such a wrong product often changes the result only for extreme inputs.
void op_mul_add(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  if (in.mnemonic != "v_mul_f32_e32" && in.mnemonic != "v_mul_f32_e64") return;
  if (contains(c.line(i).text, "row_") || contains(c.line(i).text, "_sel:")) return;
  bool check = false, refined = false, division = false, live = true;
  for (size_t k = i + 1; k < c.f.end && k <= i + 8; ++k) {
    if (!c.editable(k)) continue;
    const Instruction& r = *c.line(k).inst;
    const std::string& m = r.mnemonic;
    division |= starts_with(m, "v_div_fmas");
    if (live && overlap_any(in.defs, r.uses, true)) {
      check |= starts_with(m, "v_cmp") || starts_with(m, "v_cvt_u32_f32") || starts_with(m, "v_cvt_i32_f32");
      refined |= starts_with(m, "v_fma");
    }
    if (overlap_any(in.defs, r.defs, true)) live = false;
  }
  const bool feeds = check || (refined && division);
  if (!feeds) return;
  Parsed p = parse(c.line(i).text);
  p.mnemonic.replace(0, 9, "v_add_f32");
  c.replace("mul-add", i, join(p));
}

void op_delete(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  const std::string& m = in.mnemonic;
  const char* op = nullptr;
  if (m == "s_waitcnt") op = "delete-waitcnt";
  else if (m == "s_nop") op = "delete-nop";
  else if (m == "s_barrier") op = "delete-barrier";
  else if (in.may_store && !in.may_load && !starts_with(m, "s_")) op = "delete-store";
  else if ((m == "s_or_b64" || m == "s_mov_b64") && c.line(i).text.rfind(m + " exec,", 0) == 0) op = "delete-exec-restore";
  if (op) c.add(op, false, {{i, "", false, {}}});
}

void op_retarget(Ctx& c, size_t i) {
  const Instruction& in = *c.line(i).inst;
  if (is_control(in)) return;
  Parsed p = parse(c.line(i).text);
  // The destination if it is a GPR, else the first GPR source.
  for (size_t k = 0; k < p.ops.size() && k < 3; ++k) {
    std::string op = p.ops[k];
    std::string suffix;
    if (size_t sp = op.find(' '); sp != std::string::npos) suffix = op.substr(sp), op = op.substr(0, sp);
    auto r = gpr(op);
    if (!r) continue;
    unsigned by = r->count > 1 ? 2 : 1;  // keep 64-bit register pairs even-aligned
    if (r->first + r->count + by > reg_limit(r->file)) continue;
    Parsed q = p;
    q.ops[k] = shifted(*r, by) + suffix;
    c.replace("retarget", i, join(q));
    return;
  }
}

bool dependent(const Instruction& a, const Instruction& b) {
  return overlap_any(a.defs, b.uses, false) || overlap_any(a.uses, b.defs, false) || overlap_any(a.defs, b.defs, false);
}

void op_swap_adjacent(Ctx& c, size_t i) {
  if (!c.editable(i + 1) || i + 1 >= c.f.end) return;
  const Instruction& a = *c.line(i).inst;
  const Instruction& b = *c.line(i + 1).inst;
  if (a.is_branch || a.is_terminator || b.is_branch || b.is_terminator || a.is_call || b.is_call) return;
  if (starts_with(a.mnemonic, "s_getpc") || starts_with(b.mnemonic, "s_getpc")) return;
  if (!dependent(a, b)) return;
  c.add("swap-adjacent", false, {{i, c.line(i + 1).text, false, {}}, {i + 1, c.line(i).text, false, {}}});
}

// --- semantics-preserving rewrites ---

bool plain_valu(const Instruction& in, const std::string& text) {
  const std::string& m = in.mnemonic;
  if (!starts_with(m, "v_") || contains(m, "mfma") || contains(m, "smfmac") || contains(m, "readlane") ||
      contains(m, "readfirstlane") || contains(m, "writelane") || starts_with(m, "v_cmp") || contains(m, "permlane") ||
      contains(m, "_dot") || in.may_load || in.may_store)
    return false;
  static const char* kTrans[] = {"v_exp", "v_log", "v_rcp", "v_rsq", "v_sqrt", "v_sin", "v_cos"};
  for (const char* t : kTrans)
    if (starts_with(m, t)) return false;
  if (contains(text, "row_") || contains(text, "quad_perm") || contains(text, "_sel:") || contains(text, "bank_mask")) return false;
  for (const auto& d : in.defs)
    if (d.file != RegFile::VGPR) return false;  // writes VCC or an SGPR: later readers have hazards
  return true;
}

bool plain_salu(const Instruction& in) {
  const std::string& m = in.mnemonic;
  if (!starts_with(m, "s_") || in.may_load || in.may_store || contains(m, "setreg") || contains(m, "getreg")) return false;
  for (const auto& d : in.defs)
    if (d.file == RegFile::EXEC || d.file == RegFile::M0 || d.file == RegFile::VCC) return false;
  return !(in.is_branch || in.is_terminator || in.is_call);
}

void rw_swap_independent(Ctx& c, size_t i) {
  if (!c.editable(i + 1) || i + 1 >= c.f.end) return;
  const Instruction& a = *c.line(i).inst;
  const Instruction& b = *c.line(i + 1).inst;
  if (is_control(a) || is_control(b)) return;
  bool valu = plain_valu(a, c.line(i).text) && plain_valu(b, c.line(i + 1).text);
  bool salu = plain_salu(a) && plain_salu(b);
  if (!valu && !salu) return;
  // Independent: no register written by one is read or written by the other (EXEC and MODE are
  // only read by plain VALU instructions).
  if (overlap_any(a.defs, b.uses, true) || overlap_any(a.uses, b.defs, true) || overlap_any(a.defs, b.defs, true)) return;
  // "With correct waits": the swap moves B one instruction closer to the producers of what it
  // reads and A one closer to the consumers of what it writes; manually inserted wait states count
  // exactly those distances. Keep every producer of B and consumer of A at least 5 instructions
  // away (more than any VALU/SALU wait state), and MFMAs (up to 19 wait states) out of a 24-line
  // window, so the rewrite is correct on hardware and not only in the emulator.
  auto is_mfma = [](const Instruction& x) { return contains(x.mnemonic, "mfma") || contains(x.mnemonic, "smfmac"); };
  for (size_t d = 1; d <= 24; ++d) {
    if (i >= c.f.begin + d && c.editable(i - d)) {
      const Instruction& p = *c.line(i - d).inst;
      if (overlap_any(p.defs, b.uses, true) && (d <= 4 || is_mfma(p))) return;
    }
    if (i + 1 + d < c.f.end && c.editable(i + 1 + d)) {
      const Instruction& q = *c.line(i + 1 + d).inst;
      if (overlap_any(a.defs, q.uses, true) && (d <= 4 || is_mfma(q))) return;
    }
  }
  c.add("swap-independent", true, {{i, c.line(i + 1).text, false, {}}, {i + 1, c.line(i).text, false, {}}});
}

void rw_insert_nop(Ctx& c, size_t i) {
  // Not between s_getpc_b64 and the adds that use its result: their displacements count bytes.
  for (size_t k = i > c.f.begin + 3 ? i - 3 : c.f.begin; k < i; ++k)
    if (c.editable(k) && starts_with(c.line(k).inst->mnemonic, "s_getpc")) return;
  c.add("insert-nop", true, {{i, "s_nop 1", true, {}}});
}

void rw_rename(Ctx& c) {
  // A VGPR that appears only as a single register (never inside a range), is not live at entry
  // (work-item IDs), renamed in the whole function to a VGPR the function never touches.
  if (!c.f.callees.empty()) return;
  std::set<unsigned> used, in_range;
  for (size_t i = c.f.begin; i < c.f.end; ++i) {
    const Line& l = c.line(i);
    if (!l.inst) continue;
    if (l.kind != Line::Instr) return;  // raw lines cannot be renamed
    for (const auto* list : {&l.inst->defs, &l.inst->uses})
      for (const auto& r : *list) {
        if (r.file == RegFile::AGPR) return;  // unified VGPR/AGPR file: keep it simple
        if (r.file != RegFile::VGPR) continue;
        for (unsigned k = 0; k < r.count; ++k) used.insert(r.first + k), r.count > 1 ? (void)in_range.insert(r.first + k) : (void)0;
      }
  }
  if (used.empty()) return;
  auto live = c.p.live_in(c.f);
  unsigned target = 0;
  while (used.count(target)) ++target;
  if (target >= 256) return;
  int renamed = 0;
  for (unsigned v : used) {
    if (in_range.count(v) || live.front().contains(RegRange{RegFile::VGPR, v, 1})) continue;
    std::regex token("\\bv" + std::to_string(v) + "\\b(?![:\\]])");
    std::vector<LineEdit> edits;
    for (size_t i = c.f.begin; i < c.f.end; ++i) {
      const Line& l = c.line(i);
      if (l.kind != Line::Instr) continue;
      std::string t = std::regex_replace(l.text, token, "v" + std::to_string(target));
      if (t != l.text) edits.push_back({i, t, false, {}});
    }
    if (edits.empty()) continue;
    c.add("rename-register", true, std::move(edits));
    if (++renamed == 3) return;  // a few renamings per kernel
  }
}

}  // namespace

std::string Mutant::diff() const {
  std::string d;
  for (const auto& e : edits) {
    if (e.insert) d += fmt::format("+{}\n", e.text);
    else {
      d += fmt::format("-{}\n", e.before);
      if (!e.text.empty()) d += fmt::format("+{}\n", e.text);
    }
  }
  return d;
}

const std::vector<std::string>& mutation_operators() {
  static const std::vector<std::string> ops{"imm", "swap-operands", "sibling", "compare-flip", "mul-add", "delete-store", "delete-waitcnt", "delete-nop",
                                            "delete-barrier", "delete-exec-restore", "retarget", "swap-adjacent"};
  return ops;
}
const std::vector<std::string>& rewrite_operators() {
  static const std::vector<std::string> ops{"rename-register", "insert-nop", "swap-independent"};
  return ops;
}

std::vector<Mutant> generate_mutants(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f) throw Error("no function named " + kernel);
  Ctx c{p, *f, {}};
  for (size_t i = f->begin; i < f->end; ++i) {
    if (!c.editable(i)) continue;
    op_imm(c, i);
    op_swap_operands(c, i);
    op_sibling(c, i);
    op_compare_flip(c, i);
    op_mul_add(c, i);
    op_delete(c, i);
    op_retarget(c, i);
    op_swap_adjacent(c, i);
  }
  return c.out;
}

std::vector<Mutant> generate_rewrites(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f) throw Error("no function named " + kernel);
  Ctx c{p, *f, {}};
  rw_rename(c);
  for (size_t i = f->begin; i < f->end; ++i) {
    if (!c.editable(i)) continue;
    rw_insert_nop(c, i);
    rw_swap_independent(c, i);
  }
  return c.out;
}

std::string known_equivalent(const program::Program& p, const std::string& kernel, const Mutant& m) {
  const program::Function* f = p.function(kernel);
  if (!f || m.edits.empty()) return "";
  const size_t line = m.edits.front().line;
  const Line& l = p.text_line(line);
  if (!l.inst) return "";
  if (m.op == "imm" || m.op == "sibling" || m.op == "swap-operands" || m.op == "compare-flip" || m.op == "mul-add") {
    // Live-out of the line: live-in of the next instruction in its block, or of its successors.
    auto live = p.live_in(*f, /*vector_writes_kill=*/false);  // a vector write reaches only EXEC's lanes
    program::RegSet out;
    for (const auto& b : f->blocks) {
      if (line < b.first || line > b.last) continue;
      size_t next = line + 1;
      while (next <= b.last && !p.text_line(next).inst) ++next;
      if (next <= b.last) out = live[next - f->begin];
      else
        for (size_t s : b.succs) out.bits |= live[f->blocks[s].first - f->begin].bits;
    }
    for (const auto& d : l.inst->defs)
      if (d.file != RegFile::Other && out.contains(d)) return "";
    return "dead result";
  }
  if (m.op == "delete-exec-restore") {
    for (size_t i = line + 1; i < f->end; ++i) {
      const Line& n = p.text_line(i);
      if (n.kind == Line::Label) continue;
      if (!n.inst) continue;
      if (n.inst->mnemonic == "s_endpgm") return "restore at the end";
      if (!starts_with(n.inst->mnemonic, "s_") || n.inst->is_branch || n.inst->may_load || n.inst->may_store) return "";
    }
    return "";
  }
  if (m.op == "delete-waitcnt") {
    // The waitcnt dataflow (check/waitcnt.h) proves some waits complete nothing on any path.
    check::WaitcntOptions opts;
    opts.arch = p.original().target().arch;
    for (const auto& fn : check::functions_of(p.original()))
      if (fn.name == kernel) {
        auto noops = check::noop_waits(fn, opts);
        if (std::binary_search(noops.begin(), noops.end(), l.address)) return "no-op wait";
      }
    return "";
  }
  if (m.op == "delete-barrier") {
    for (size_t i = line + 1; i < f->end; ++i) {
      const Line& n = p.text_line(i);
      if (!n.inst) continue;
      if (starts_with(n.inst->mnemonic, "ds_") || n.inst->is_call) return "";
      if (n.inst->branch_target) {
        // A branch back over the barrier makes earlier LDS accesses follow it.
        for (size_t k = f->begin; k <= line; ++k)
          if (p.text_line(k).kind == Line::Label && p.text_line(k).address == static_cast<uint64_t>(*n.inst->branch_target)) return "";
      }
    }
    return "trailing barrier";
  }
  return "";
}

std::vector<uint8_t> build_mutant(const program::Program& base, const Mutant& m) {
  program::Program p = base;
  std::vector<LineEdit> edits = m.edits;
  // From the last line up, so earlier line indices stay valid.
  std::sort(edits.begin(), edits.end(), [](const LineEdit& a, const LineEdit& b) { return a.line > b.line; });
  for (const auto& e : edits) {
    if (e.insert) p.insert_before(e.line, {e.text});
    else if (e.text.empty()) p.remove(e.line, e.line);
    else p.replace(e.line, e.line, {e.text});
  }
  p.update_resources();
  return rebuild::rebuild(p.listing(), "mutant");
}

}  // namespace asmevo::mutants
