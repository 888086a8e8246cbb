// Move: loop pipelining (issue 17). A loop whose body is one block with a back edge to itself and one
// load in flight per iteration (load; wait vmcnt(0); use) waits one memory latency per iteration. The
// edit puts, before the loop, a copy of it unrolled by k in which the k iterations' loads are issued
// first and their uses follow with partial waits, so k loads are in flight:
//
//   .LpipeA_kK:  guard: the next K iterations all run, else s_cbranch ... HEADER (the original loop)
//                A_0 L_0 A_1 L_1 ... A_{K-1} L_{K-1}     each iteration's address/counter code and loads
//                C_0 C_1 ... C_{K-1}                     each iteration's uses, waits vmcnt(c + loads after)
//                the original exit test, back to .LpipeA_kK; s_branch EXIT
//   HEADER:      the original loop, unchanged (runs the < K iterations left, and every launch the guard sends)
//   EXIT:
//
// Why the result is bit-identical for every launch. Write B_j for the body's instructions in iteration j.
// The original runs B_0 B_1 ... (each taken back branch goes to HEADER, so K iterations are the
// straight-line concatenation of K bodies) whenever at least K iterations remain; the guard enters the
// copy only then (uniform loops: the trip counter's remaining count, computed exactly with the same
// 32-bit wrap the loop's own test uses; divergent loops: a replay of the exit test on copies of the
// per-lane induction registers, checking that no active lane leaves within K-1 iterations, so EXEC is
// the same in all K). The copy runs the same instructions, each with the same inputs:
//  - A_j L_j C_j are B_j split: L the loads, C every instruction that reads (transitively, within the
//    iteration) a loaded register, plus the waits; A the rest (address and counter updates, exit test).
//  - Values one iteration defines (not coming in from the previous iteration, not going out at HEADER)
//    that C touches are renamed in iterations 0..K-2 (modulo variable expansion): VGPRs to fresh VGPRs,
//    SGPRs (a scalar load's result) and lane masks (VCC or an SGPR pair a v_cmp writes and v_cndmask
//    reads) to fresh SGPRs; iteration K-1 writes the originals, so every register leaves the copy as it
//    leaves K original iterations. A renamed register must be named in the instruction's text (an
//    implicit operand cannot be renamed); a VCC renamed in a 32-bit VOPC or v_cndmask becomes its VOP3
//    form, which reads and writes the same bits (refused where a source is a literal, which gfx9 VOP3
//    cannot encode, or for any other 32-bit encoding). EXEC is constant within an iteration, so a
//    renamed VGPR carries exactly the active lanes' values its original would, and the original's
//    inactive lanes are untouched in both; a renamed lane mask is written whole by its v_cmp (0 for
//    inactive lanes) as VCC was.
//  - The order is a permutation of the concatenation in which every pair of instructions that changes
//    order commutes: checked pairwise on the registers each reads and writes (SCC, VCC, EXEC, M0
//    included, after renaming); a pair that does not commute refuses the edit. In particular a load
//    whose address depends on a loaded value (C_j before A_{j+1}) or a compute that writes what the
//    address code reads refuses.
//  - Loads only move above other loads, register-disjoint instructions and stores of earlier
//    iterations; the body has no atomics, LDS or barriers. Without stores no memory value any load
//    (vector or scalar) reads can change by the move. With plain global stores (every store after
//    every load and wait of its iteration; no scalar loads), a later iteration's load passing an
//    earlier iteration's store reads the same bytes only where they do not overlap, which an alias
//    guard checks at run time for the wave (alias_guard below: one shared 64-bit offset, stepped by a
//    uniform stride or recomputed as sext(i) << s from an index stepped by a lane-uniform add; uniform
//    bases; the original loop otherwise). Stores keep their order among
//    themselves and after the loads of their own and earlier iterations. Same addresses, same
//    iterations: the same values into the (renamed) registers and into memory.
//  - Waits: VMEM operations complete in issue order (check/waitcnt.h), so a wait vmcnt(c) that followed
//    L_j in iteration j and now also follows L_{j+1}..L_{K-1} (m more vector loads) and the stores of
//    iterations 0..j-1 (s more: stores count in vmcnt on gfx9) waits for the same loads as
//    vmcnt(c + m + s); with stores, c must be below the loads per iteration (the c youngest are then
//    this iteration's loads in both orders). A store's registers are read at issue, so no wait is
//    needed before the next iteration overwrites them. Waits must come after all loads of their iteration, and c + m must fit in
//    vmcnt. Scalar loads return out of order, so a body with one may only wait lgkmcnt(0) (or not on
//    lgkm at all): lgkmcnt(0) in C_j waits for L_{j+1}..'s scalar loads too, a superset of what it
//    waited for; a partial lgkmcnt is refused.
//  - The compute keeps its order (C_0 before C_1 ..., each C_j in its original order), so float sums,
//    max and argmax chains associate exactly as before.
// The cascade's static checks (hazards, waitcnt proof) and differential verification check every edit.
//
// Refused (no edit): a body with atomics, stores other than global_store, stores with scalar loads, a
// load or wait after a store, stores whose addresses the alias guard cannot read (not vA + offset with
// vA = sB + vO, one vO for all, stepped once by an SGPR pair or sext(i) << s with i stepped once by an
// add of loop invariants), LDS, scalar loads other than s_load/s_buffer_load,
// flat/scratch, barriers, messages, raw instructions, s_setreg/s_getpc, calls; a wait before a load of
// its iteration; a partial lgkmcnt wait with scalar loads in the body; loads into partially written
// registers; AGPR kernels; not enough free VGPRs without lowering the VGPR occupancy, or free SGPRs up
// to s84 (below the 8-waves SGPR limit); a renamed register the text does not name or a VCC in an
// encoding that cannot take an SGPR pair; SCC live
// at HEADER (the guard writes it); an exit test the move does not recognize (uniform: an SGPR counter
// stepped by ±1 compared with eq/lg against an unchanged SGPR or constant, or stepped by a constant
// S > 0 and going on while `counter < bound`, signed or unsigned (uniform_guard); divergent: an exit mask
// or-accumulated from one v_cmp on per-lane inductions stepped by loop-invariant values, then
// s_andn2_b64 exec and s_cbranch_execnz; the exit compare's result live at HEADER); loops of more than
// one block (irreducible shapes included); a loop whose copy this move made already. Factors 16, 8,
// 4, 3 and 2 are proposed, in that order, for every loop in the window (3 and 2: loops of fewer than 4
// iterations, as a 3x3 convolution's rows, and loops where 4 iterations' registers do not fit).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "check/isa.h"
#include "codeobj/arch_params.h"
#include "codeobj/resources.h"
#include "search/moves/loop_pipeline.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;
using program::RegSet;


enum class Role { Address, Load, Compute, Wait, ExitGroup };

struct BodyInst {
  size_t line = 0;
  const program::Instruction* inst = nullptr;
  Role role = Role::Address;
};

// Register unit index in RegSet of one 32-bit register (nullopt: a file liveness does not track).
std::optional<size_t> unit_of(RegFile f, unsigned i) {
  switch (f) {
    case RegFile::SGPR: return i < 128 ? std::optional<size_t>(RegSet::kSgpr + i) : std::nullopt;
    case RegFile::VGPR: return i < 256 ? std::optional<size_t>(RegSet::kVgpr + i) : std::nullopt;
    case RegFile::AGPR: return i < 256 ? std::optional<size_t>(RegSet::kAgpr + i) : std::nullopt;
    case RegFile::VCC: return RegSet::kVcc + i;
    case RegFile::EXEC: return RegSet::kExec + i;
    case RegFile::SCC: return RegSet::kScc;
    case RegFile::M0: return RegSet::kM0;
    default: return std::nullopt;
  }
}

// Operands of an instruction's text ("s_add_i32 s5, s5, -1" -> {"s5", "s5", "-1"}).
std::vector<std::string> operands(const std::string& text) {
  std::vector<std::string> ops;
  const size_t space = text.find(' ');
  if (space == std::string::npos) return ops;
  const std::string rest = text.substr(space + 1);
  for (size_t at = 0; at <= rest.size();) {
    const size_t comma = rest.find(", ", at);
    ops.push_back(rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return ops;
}
// A renaming: register unit (RegSet index) -> the unit it becomes. VGPRs go to VGPRs; SGPRs and VCC
// (a lane mask) go to SGPRs.
using UnitMap = std::map<size_t, size_t>;

// The registers of `ranges` renamed by `umap`. Files liveness does not track (MODE, flat_scratch, ...)
// are put in `other` so that two instructions touching one conflict.
struct Regs {
  RegSet set;
  std::set<std::pair<int, unsigned>> other;
};
Regs regs_of(const std::vector<RegRange>& ranges, const UnitMap& umap) {
  Regs r;
  for (const RegRange& g : ranges)
    for (unsigned k = 0; k < g.count; ++k) {
      if (auto u = unit_of(g.file, g.first + k)) {
        auto it = umap.find(*u);
        r.set.bits.set(it == umap.end() ? *u : it->second);
      } else {
        r.other.insert({static_cast<int>(g.file), g.first + k});
      }
    }
  return r;
}
bool intersects(const Regs& a, const Regs& b) {
  if ((a.set.bits & b.set.bits).any()) return true;
  for (const auto& o : a.other)
    if (b.other.count(o)) return true;
  return false;
}

// An inline constant of a VOP3 source (gfx9 VOP3 has no literal): integers -16..64 and the float
// constants of the ISA guide's operand table.
bool inline_constant(const std::string& op) {
  static const std::set<std::string> floats{"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494"};
  if (floats.count(op)) return true;
  static const std::regex dec(R"(^-?\d+$)"), hex(R"(^0x[0-9a-fA-F]+$)");
  if (std::regex_match(op, dec)) return std::stoll(op) >= -16 && std::stoll(op) <= 64;
  if (std::regex_match(op, hex)) return std::stoull(op, nullptr, 16) <= 64;
  return true;  // a register or a modifier-wrapped register
}

// `text` with every VGPR, SGPR and VCC operand renamed by `umap` (one map for defs and uses: a register an
// instruction reads and writes is one web, so both agree). A VCC renamed to an SGPR pair in a 32-bit
// VOPC/v_cndmask encoding, which names VCC implicitly, becomes the VOP3 (_e64) form. nullopt when a
// register is renamed only in part or not onto consecutive units, or the encoding cannot name the pair.
std::optional<std::string> rename_registers(const std::string& text, const UnitMap& umap) {
  if (umap.empty()) return text;
  static const std::regex reg(R"((^|[^A-Za-z0-9_])(?:([vs])(?:(\d+)|\[(\d+):(\d+)\])|vcc(_lo|_hi)?)(?![A-Za-z0-9_]))");
  const size_t space = text.find(' ');
  if (space == std::string::npos) return std::nullopt;  // only implicit operands
  std::string mnemonic = text.substr(0, space), out;
  const std::string ops = text.substr(space);
  bool vcc_renamed = false;
  std::set<size_t> named;  // renamed units the text names (an implicit operand, as v_div_fmas's VCC, cannot be renamed)
  auto begin = ops.cbegin();
  std::smatch m;
  while (std::regex_search(begin, ops.cend(), m, reg)) {
    out.append(begin, m[0].first);
    out += m[1].str();
    size_t lo, hi;
    if (m[2].matched) {
      const size_t base = m[2] == "v" ? RegSet::kVgpr : RegSet::kSgpr;
      lo = base + (m[3].matched ? std::stoul(m[3]) : std::stoul(m[4]));
      hi = base + (m[3].matched ? std::stoul(m[3]) : std::stoul(m[5]));
    } else {
      lo = RegSet::kVcc + (m[6] == "_hi" ? 1 : 0);
      hi = RegSet::kVcc + (m[6].matched ? lo - RegSet::kVcc : 1);
    }
    size_t renamed = 0;
    for (size_t u = lo; u <= hi; ++u) renamed += umap.count(u);
    if (renamed == 0) {
      out += m[0].str().substr(m[1].length());
    } else {
      if (renamed != hi - lo + 1) return std::nullopt;
      for (size_t u = lo; u <= hi; ++u)
        if (umap.at(u) != umap.at(lo) + (u - lo)) return std::nullopt;
      for (size_t u = lo; u <= hi; ++u) named.insert(u);
      const size_t a = umap.at(lo), z = umap.at(hi);
      const bool v = a >= RegSet::kVgpr;
      const size_t base = v ? RegSet::kVgpr : RegSet::kSgpr;
      out += a == z && !(lo >= RegSet::kVcc && !m[6].matched) ? fmt::format("{}{}", v ? 'v' : 's', a - base)
                                                               : fmt::format("{}[{}:{}]", v ? 'v' : 's', a - base, z - base);
      vcc_renamed |= lo >= RegSet::kVcc;
    }
    begin = m[0].second;
  }
  out.append(begin, ops.cend());
  for (const auto& [from, to] : umap)
    if (!named.count(from)) return std::nullopt;
  if (vcc_renamed && mnemonic.rfind("s_", 0) != 0 && !mnemonic.ends_with("_e64")) {
    const bool vopc = mnemonic.rfind("v_cmp_", 0) == 0 || mnemonic.rfind("v_cmp_class", 0) == 0;
    if (!(mnemonic.ends_with("_e32") && (vopc || mnemonic == "v_cndmask_b32_e32"))) return std::nullopt;
    for (const std::string& o : operands(text))
      if (!inline_constant(o)) return std::nullopt;  // VOP3 takes no literal on gfx9
    mnemonic = mnemonic.substr(0, mnemonic.size() - 4) + "_e64";
  }
  return mnemonic + out;
}
// VGPRs only (old index -> new index), for the divergent guard's replay.
std::optional<std::string> rename_vgprs(const std::string& text, const std::map<unsigned, unsigned>& vmap) {
  UnitMap u;
  for (const auto& [from, to] : vmap) u[RegSet::kVgpr + from] = RegSet::kVgpr + to;
  return rename_registers(text, u);
}

std::optional<int64_t> integer(const std::string& s) {
  static const std::regex re(R"(^-?(0x[0-9a-fA-F]+|\d+)$)");
  if (!std::regex_match(s, re)) return std::nullopt;
  return std::stoll(s, nullptr, 0);
}
std::optional<unsigned> single_sgpr(const std::string& s) {
  static const std::regex re(R"(^s(\d+)$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::nullopt;
  return std::stoul(m[1]);
}

// A scalar-cache load (s_load_dword*, s_buffer_load_dword*): its results return out of order, so only
// lgkmcnt(0) waits for one (check/waitcnt.h).
bool is_scalar_load(const program::Instruction& in) {
  return in.may_load && (in.mnemonic.rfind("s_load_dword", 0) == 0 || in.mnemonic.rfind("s_buffer_load_dword", 0) == 0);
}

// A plain vector store to global memory (no atomic, no LDS): the stores the alias guard admits.
bool is_global_store(const program::Instruction& in) { return in.may_store && !in.may_load && in.mnemonic.rfind("global_store_", 0) == 0; }

// Why a body instruction cannot be in a pipelined loop ("" when it can).
std::string unsupported(const program::Line& l) {
  if (l.kind == program::Line::RawInstr || !l.inst) return "a raw instruction";
  const program::Instruction& in = *l.inst;
  const std::string& m = in.mnemonic;
  if (m.rfind("ds_", 0) == 0 || m == "s_barrier") return "LDS or a barrier (" + m + ")";
  if (in.may_store && (in.may_load || !is_global_store(in))) return "a store or atomic (" + m + ") that may alias a later iteration's loads";
  if (m.rfind("flat_", 0) == 0 || m.rfind("scratch_", 0) == 0) return "flat or scratch memory (" + m + ")";
  if (in.may_load && m.rfind("global_load", 0) != 0 && m.rfind("buffer_load", 0) != 0 && !is_scalar_load(in)) return "a load the move does not handle (" + m + ")";
  if (in.may_load && (in.text.find(" lds") != std::string::npos || m.find("_d16") != std::string::npos)) return "a partial or LDS-writing load (" + m + ")";
  if (in.is_call || m.rfind("s_setreg", 0) == 0 || m.rfind("s_getpc", 0) == 0 || m.rfind("s_sendmsg", 0) == 0 || m == "s_sethalt" ||
      m.rfind("s_set_gpr_idx", 0) == 0 || m.find("movrel") != std::string::npos || m.rfind("s_dcache", 0) == 0 || m.rfind("buffer_wbinvl", 0) == 0 ||
      m.rfind("buffer_inv", 0) == 0 || m.rfind("buffer_wbl2", 0) == 0)
    return "an instruction with side effects (" + m + ")";
  if (in.text.find(".L") != std::string::npos && !in.is_branch) return "a symbol operand";
  return "";
}

// The highest SGPR the copy may take (guard scratch and renamed scalar values): the SGPR count stays
// below what would lower occupancy (gfx9: 800 SGPRs per SIMD in granules of 16, codeobj/arch_params.h,
// so 8 waves up to 96 allocated, VCC/flat_scratch/XNACK's 6 included).
constexpr unsigned kSgprTop = 84;
// The SGPRs the loop body reads or writes (the copy's fresh SGPRs must avoid them).
std::set<unsigned> body_sgprs(const std::vector<BodyInst>& body) {
  std::set<unsigned> referenced;
  for (const BodyInst& bi : body)
    for (const auto* list : {&bi.inst->defs, &bi.inst->uses})
      for (const RegRange& r : *list)
        if (r.file == RegFile::SGPR)
          for (unsigned q = 0; q < r.count; ++q) referenced.insert(r.first + q);
  return referenced;
}
// Takes `count` free registers (lowest first), or nullopt. The second argument: for VGPRs the parity
// of the first register, for SGPRs its alignment.
using Take = std::function<std::optional<unsigned>(unsigned count, unsigned where)>;

struct Guard {
  std::vector<std::string> lines;  // ending with the branch to the original loop
  std::string why_not;             // non-empty: refused
};
Guard refused(std::string why) {
  Guard g;
  g.why_not = std::move(why);
  return g;
}

class LoopPipelineMove final : public Move {
 public:
  std::string name() const override { return "loop-pipeline"; }
  std::string proposer() const override { return "rules"; }
  // The copy's loads, stepped through an address register, become one base with offsets and merge
  // (address_fold.h): where more loads in flight alone do not pay (a loop bound by the address unit).
  std::vector<std::string> enables() const override { return {"address-fold"}; }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::vector<Edit> out;
    const program::Function* f = c.program.function(c.kernel);
    if (!f || f->blocks.empty()) return out;
    // Factor-major, largest first: the modeled gain grows with the loads in flight (bench/moves), and a
    // short search evaluates only the first few; 16 falls back to 8 and 4 where its VGPRs do not fit.
    // Factors 3 and 2 last: for loops whose trip count is below 4 (a 3x3 convolution's rows) and loops
    // where 4 iterations' renamed registers do not fit.
    for (unsigned k : {16u, 8u, 4u, 3u, 2u})
      for (size_t b = 0; b < f->blocks.size(); ++b) {
        const program::BasicBlock& blk = f->blocks[b];
        if (std::find(blk.succs.begin(), blk.succs.end(), b) == blk.succs.end()) continue;
        if (blk.last < c.window.first || blk.first > c.window.last) continue;
        if (out.size() >= c.max_edits) return out;
        std::string why;
        if (auto e = pipeline(c, *f, b, k, &why)) out.push_back(std::move(*e));
      }
    return out;
  }

  // Why the self-loop block `b` of `kernel` is not pipelined by `k` ("" when it is): for the tests.
  static std::string refusal(const program::Program& p, const std::string& kernel, size_t b, unsigned k) {
    std::mt19937_64 rng(1);
    const program::Function* f = p.function(kernel);
    MoveContext c{p, kernel, Window{f->begin, f->end - 1, 0, kernel}, rng};
    std::string why;
    LoopPipelineMove m;
    return m.pipeline(c, *f, b, k, &why) ? "" : why;
  }

 private:
  std::optional<Edit> pipeline(const MoveContext& c, const program::Function& f, size_t b, unsigned k, std::string* why) const {
    const program::Program& p = c.program;
    const program::BasicBlock& blk = f.blocks[b];
    auto refuse = [&](std::string reason) -> std::optional<Edit> {
      *why = std::move(reason);
      return std::nullopt;
    };
    // The header label and the back branch.
    size_t label_line = blk.first;
    while (label_line > f.begin && p.text_line(label_line - 1).kind != program::Line::Instr && p.text_line(label_line - 1).kind != program::Line::RawInstr &&
           p.text_line(label_line - 1).kind != program::Line::Label)
      --label_line;
    if (label_line == f.begin || p.text_line(label_line - 1).kind != program::Line::Label) return refuse("the loop header has no label");
    const std::string header = p.text_line(label_line - 1).text;
    const program::Line& back = p.text_line(blk.last);
    if (!back.inst || !back.inst->is_branch || back.inst->no_fallthrough) return refuse("the loop does not end in a conditional back branch");
    const std::vector<std::string> back_ops = operands(back.text);
    if (back_ops.size() != 1 || back_ops[0] != header) return refuse("the back branch does not go to the header");
    const std::string& back_m = back.inst->mnemonic;
    const bool uniform = back_m == "s_cbranch_scc0" || back_m == "s_cbranch_scc1";
    if (!uniform && back_m != "s_cbranch_execnz") return refuse("the loop's exit test (" + back_m + ") is not an SCC or EXEC branch");

    // A loop this move pipelined already (its copy's guard falls back here): the copy is the fast path.
    for (size_t pred : blk.preds)
      if (pred != b && f.blocks[pred].first > f.begin && p.text_line(f.blocks[pred].first - 1).kind == program::Line::Label &&
          p.text_line(f.blocks[pred].first - 1).text.rfind(".Lpipe", 0) == 0)
        return refuse("the loop is pipelined already");

    // The body, the instructions it cannot hold refused.
    std::vector<BodyInst> body;
    for (size_t i = blk.first; i < blk.last; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::Label) return refuse("a label inside the loop body");
      if (l.kind == program::Line::Directive || l.kind == program::Line::Comment) continue;
      if (std::string u = unsupported(l); !u.empty()) return refuse("the body has " + u);
      if (l.inst->is_branch || l.inst->is_terminator) return refuse("a branch inside the loop body");
      body.push_back({i, &*l.inst, Role::Address});
    }
    if (body.size() > 96) return refuse("the body is too long for the pairwise check");
    const codeobj::Arch arch = p.original().target().arch;
    const codeobj::ArchParams* ap = codeobj::arch_params(arch);
    if (!ap) return refuse("no resource table for the arch");
    const program::RegisterUse use = p.register_use(c.kernel);
    if (use.max_agpr >= 0) return refuse("the kernel uses AGPRs (unified register file split)");

    const std::vector<RegSet> live = p.live_in(f, true);
    const std::vector<RegSet> live_no_kill = p.live_in(f, false);
    const RegSet& at_header = live[blk.first - f.begin];
    if (at_header.bits.test(RegSet::kScc)) return refuse("SCC is live at the loop header");

    // Roles. Divergent loops: the trailing `s_andn2_b64 exec, exec, M` stays with the branch.
    std::optional<size_t> exec_write;
    for (size_t i = 0; i < body.size(); ++i)
      for (const RegRange& d : body[i].inst->defs)
        if (d.file == RegFile::EXEC) {
          if (uniform || exec_write) return refuse("the body writes EXEC");
          exec_write = i;
        }
    if (!uniform) {
      if (!exec_write || *exec_write + 1 != body.size()) return refuse("the EXEC update is not the body's last instruction before the branch");
      body[*exec_write].role = Role::ExitGroup;
    }
    // Compute: what reads a loaded value or a value computed from one, in this iteration or (through
    // loop-carried registers) an earlier one; so the classification runs to a fixpoint over the body.
    size_t loads = 0;
    RegSet carried_in;  // loaded-derived registers at the header (from the previous iteration)
    for (int pass = 0;; ++pass) {
      if (pass == 16) return refuse("the classification of the body does not settle");
      bool changed = false;
      loads = 0;
      RegSet loaded = carried_in;
      for (BodyInst& bi : body) {
        if (bi.role == Role::ExitGroup || bi.role == Role::Wait) continue;
        const program::Instruction& in = *bi.inst;
        if (in.mnemonic == "s_waitcnt") {
          bi.role = Role::Wait;
          continue;
        }
        bool reads_loaded = false;
        for (const RegRange& u : in.uses)
          for (unsigned r = 0; r < u.count; ++r)
            if (auto unit = unit_of(u.file, u.first + r); unit && loaded.bits.test(*unit)) reads_loaded = true;
        const Role before = bi.role;
        if (in.may_load) {
          if (reads_loaded) return refuse("a load's address depends on a loaded value");
          bi.role = Role::Load;
          ++loads;
        } else if (reads_loaded || in.may_store) {
          bi.role = Role::Compute;  // stores stay in the uses phase, in order, after every load of the copy
        }
        changed |= bi.role != before;
        const bool derived = bi.role == Role::Load || bi.role == Role::Compute;
        for (const RegRange& d : in.defs)
          for (unsigned r = 0; r < d.count; ++r)
            if (auto unit = unit_of(d.file, d.first + r)) loaded.bits.set(*unit, derived);
      }
      changed |= loaded.bits != carried_in.bits;
      carried_in = loaded;
      if (!changed) break;
    }
    if (loads == 0) return refuse("the body has no load");
    // s_nop pads for the instruction after it: same role.
    for (size_t i = body.size(); i-- > 0;)
      if (body[i].inst->mnemonic == "s_nop")
        body[i].role = i + 1 < body.size() && body[i + 1].role != Role::ExitGroup && body[i + 1].role != Role::Wait ? body[i + 1].role : Role::Compute;
    for (size_t i = 0, seen_loads = 0; i < body.size(); ++i) {
      if (body[i].role == Role::Load) ++seen_loads;
      if (body[i].role == Role::Wait && seen_loads < loads) return refuse("a wait comes before a load of its iteration");
    }
    // vmcnt counts the vector loads only. Scalar loads return out of order, so a wait for one is
    // lgkmcnt(0), which in the copy waits for the later iterations' scalar loads too (more than the
    // original waited for, never less); a partial lgkmcnt would count other loads and is refused.
    const check::CounterLimits limits = check::counter_limits(arch);
    size_t vector_loads = 0, scalar_loads = 0;
    for (const BodyInst& bi : body)
      if (bi.role == Role::Load) ++(is_scalar_load(*bi.inst) ? scalar_loads : vector_loads);
    size_t stores = 0;
    for (const BodyInst& bi : body) stores += bi.inst->may_store;
    if (stores > 0) {
      // Stores: after every load and wait of their iteration, and waits for this iteration's loads only
      // (vmcnt below the loads per iteration), so that the recount below waits for the same loads.
      bool store_seen = false;
      for (const BodyInst& bi : body) {
        if (bi.inst->may_store) store_seen = true;
        else if (store_seen && (bi.role == Role::Load || bi.role == Role::Wait)) return refuse("a load or wait after a store of the iteration");
        if (bi.role != Role::Wait) continue;
        auto w = check::decode_waitcnt(*bi.inst, arch);
        if (!w) return refuse("an s_waitcnt the move cannot read");
        if (w->count[check::kVmCnt] < limits.max[check::kVmCnt] && w->count[check::kVmCnt] >= vector_loads)
          return refuse("a vmcnt wait that reaches past its iteration's loads in a body with stores");
      }
      if (scalar_loads > 0) return refuse("scalar loads in a body with stores (the scalar cache does not see vector stores)");
    }
    if (scalar_loads > 0)
      for (const BodyInst& bi : body) {
        if (bi.role != Role::Wait) continue;
        auto w = check::decode_waitcnt(*bi.inst, arch);
        if (!w) return refuse("an s_waitcnt the move cannot read");
        if (w->count[check::kLgkmCnt] != 0 && w->count[check::kLgkmCnt] < limits.max[check::kLgkmCnt])
          return refuse("a partial lgkmcnt wait with scalar loads in the body (they return out of order)");
      }

    // Webs: per VGPR, the values one iteration defines (a def and the uses it reaches; a def that also
    // reads its register, as v_fmac does, continues the web it reads). A web is renamed in iterations
    // 0..K-2 when a compute instruction touches it and it neither comes in from the previous iteration
    // (ENTRY) nor is the register's last value while the register is live at HEADER (it goes out).
    constexpr size_t kEntry = SIZE_MAX;
    // Units a web may hold and be renamed in: VGPRs, SGPRs and VCC (renamed to an SGPR pair).
    auto renameable = [](const RegRange& g) { return g.file == RegFile::VGPR || g.file == RegFile::SGPR || g.file == RegFile::VCC; };
    std::vector<std::map<size_t, size_t>> def_web(body.size()), use_web(body.size());  // unit -> web (def position)
    std::map<size_t, std::pair<size_t, unsigned>> web_range;  // web -> the def operand's units (first, count)
    std::map<size_t, size_t> current;
    std::set<unsigned> referenced;  // VGPRs
    for (size_t i = 0; i < body.size(); ++i) {
      const program::Instruction& in = *body[i].inst;
      for (const RegRange& g : in.uses)
        if (renameable(g))
          for (unsigned q = 0; q < g.count; ++q)
            if (auto r = unit_of(g.file, g.first + q)) {
              if (g.file == RegFile::VGPR) referenced.insert(g.first + q);
              use_web[i][*r] = current.count(*r) ? current[*r] : kEntry;
            }
      for (const RegRange& g : in.defs)
        if (renameable(g))
          for (unsigned q = 0; q < g.count; ++q)
            if (auto r = unit_of(g.file, g.first + q)) {
              if (g.file == RegFile::VGPR) referenced.insert(g.first + q);
              if (use_web[i].count(*r)) {
                def_web[i][*r] = use_web[i][*r];
              } else {
                const size_t first = *unit_of(g.file, g.first);
                def_web[i][*r] = i * RegSet::kSize + first;  // one web per def operand
                web_range[def_web[i][*r]] = {first, g.count};
              }
              current[*r] = def_web[i][*r];
            }
    }
    std::set<size_t> renamed_webs;
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i].role != Role::Compute) continue;
      for (const auto* m : {&def_web[i], &use_web[i]})
        for (const auto& [r, w] : *m)
          if (w != kEntry && !(current[r] == w && at_header.bits.test(r))) renamed_webs.insert(w);
    }
    // A web whose def operand holds a unit that cannot be renamed (it goes out) stays as it is.
    for (auto it = renamed_webs.begin(); it != renamed_webs.end();) {
      if (!web_range.count(*it)) {
        it = renamed_webs.erase(it);
        continue;
      }
      const auto [first, count] = web_range.at(*it);
      bool out = false;
      for (size_t r = first; r < first + count; ++r) out |= current[r] == *it && at_header.bits.test(r);
      it = out ? renamed_webs.erase(it) : std::next(it);
    }
    // Fresh registers: not referenced by the loop, not live there on any lane, below the VGPR count that
    // keeps the kernel's occupancy by VGPRs (SGPRs: up to kSgprTop).
    const unsigned limit = vgpr_occupancy_limit(*ap, static_cast<unsigned>(use.max_vgpr + 1));
    const RegSet& carried = live_no_kill[blk.first - f.begin];
    std::vector<bool> taken(limit, false), staken(kSgprTop + 1, false);
    for (unsigned r = 0; r < limit; ++r) taken[r] = referenced.count(r) || carried.bits.test(RegSet::kVgpr + r);
    const std::set<unsigned> body_s = body_sgprs(body);
    for (unsigned r = 0; r <= kSgprTop; ++r) staken[r] = body_s.count(r) || carried.bits.test(RegSet::kSgpr + r);
    // `count` free registers of `pool` from `start` in steps of `step`, marked taken.
    auto take = [](std::vector<bool>& pool, unsigned count, unsigned start, unsigned step) -> std::optional<unsigned> {
      for (unsigned r = start; r + count <= pool.size(); r += step) {
        bool free = true;
        for (unsigned q = r; q < r + count; ++q) free &= !pool[q];
        if (!free) continue;
        for (unsigned q = r; q < r + count; ++q) pool[q] = true;
        return r;
      }
      return std::nullopt;
    };
    // The guard; its scratch registers come from the same pools as the renamed registers.
    const Take take_vgpr = [&](unsigned count, unsigned parity) { return take(taken, count, parity, 2); };
    const Take take_sgpr = [&](unsigned count, unsigned align) { return take(staken, count, 0, align); };
    Guard guard = uniform ? uniform_guard(p, f, blk, body, k, header, take_sgpr) : divergent_guard(p, f, blk, body, k, header, take_vgpr, take_sgpr);
    if (!guard.why_not.empty()) return refuse(guard.why_not);
    if (stores > 0) {
      Guard alias = alias_guard(p, body, k, header, take_vgpr, take_sgpr);
      if (!alias.why_not.empty()) return refuse(alias.why_not);
      guard.lines.insert(guard.lines.end(), alias.lines.begin(), alias.lines.end());
    }
    // Fresh registers per iteration and renamed web: VGPR webs keep the def operand's parity (64-bit
    // alignment); SGPR and VCC webs go to SGPRs aligned as SMEM and 64-bit scalar operands need.
    std::vector<std::map<size_t, size_t>> fresh(k);  // iteration -> web -> first unit
    size_t renamed_registers = 0, renamed_sgprs = 0;
    const size_t exit_line = blk.last + 1;
    std::set<size_t> blocked;  // webs whose registers the blocks gave
    std::vector<std::string> copy_back;
    const std::vector<bool> taken_by_guards = taken, staken_by_guards = staken;
    // A vector load's web gets one block of consecutive VGPRs across the iterations (iteration j at
    // first + j * count, the block at an even register), so that the loads of consecutive iterations
    // that read consecutive addresses (once address-fold has given them one base) write consecutive
    // registers, which widen needs to merge them. Iteration K-1 takes the block's last slot too, and
    // where the original register may be read after the copy (live at HEADER, or at EXIT with vector
    // writes never ending liveness: any lane), `v_mov_b32 original, slot` after the copy's compute
    // gives it the value iteration K-1 would have written (the same EXEC, so the same lanes; its wait
    // is C_{K-1}'s, and the static checks refuse a copy that reads the slot too early). A block that
    // does not fit falls back to iterations 0..K-2 (K-1 writing the original), then to the
    // per-iteration allocation below.
    // Where the blocks (K slots each, at even registers) leave too few registers for the other webs, the
    // per-iteration allocation alone is tried (the loads then stay unmerged; the factor stays: Triton's
    // argmax_kernel keeps factor 4). allocate returns "" or why the registers do not fit.
    auto allocate = [&](bool blocks) -> std::string {
      taken = taken_by_guards, staken = staken_by_guards;
      fresh.assign(k, {});
      renamed_registers = renamed_sgprs = 0;
      blocked.clear(), copy_back.clear();
      if (blocks)
        for (size_t w : renamed_webs) {
          const size_t def = w / RegSet::kSize;
          const auto [first, count] = web_range.at(w);
          const bool vgpr = first >= RegSet::kVgpr && first < RegSet::kAgpr;
          if (!vgpr || def >= body.size() || body[def].role != Role::Load || is_scalar_load(*body[def].inst)) continue;
          if (count > 1 && count % 2) continue;  // an odd tuple size would put every other iteration's tuple at an odd register
          bool read_after = exit_line >= f.end;
          for (size_t r = first; r < first + count && !read_after; ++r)
            read_after = at_header.bits.test(r) || live_no_kill[exit_line - f.begin].bits.test(r);
          for (const unsigned iterations : {k, k - 1}) {
            const std::optional<unsigned> at = take(taken, count * iterations, 0, 2);
            if (!at) continue;
            for (unsigned j = 0; j < iterations; ++j) fresh[j][w] = RegSet::kVgpr + *at + j * count;
            if (iterations == k && read_after)
              for (unsigned q = 0; q < count; ++q)
                copy_back.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", first - RegSet::kVgpr + q, *at + (k - 1) * count + q));
            renamed_registers += count;
            blocked.insert(w);
            break;
          }
        }
      for (unsigned j = 0; j + 1 < k; ++j)
        for (size_t w : renamed_webs) {
          if (blocked.count(w)) continue;
          const auto [first, count] = web_range.at(w);
          const bool vgpr = first >= RegSet::kVgpr && first < RegSet::kAgpr;
          std::optional<unsigned> at;
          if (vgpr) {
            at = take(taken, count, (first - RegSet::kVgpr) % 2, 2);
            if (!at) return fmt::format("not enough free VGPRs for {} iterations below v{} (the occupancy limit)", k, limit);
          } else {
            at = take(staken, count, 0, count == 1 ? 1 : count == 2 ? 2 : 4);
            if (!at) return fmt::format("not enough free SGPRs for {} iterations up to s{}", k, kSgprTop);
          }
          fresh[j][w] = (vgpr ? RegSet::kVgpr : RegSet::kSgpr) + *at;
          if (j == 0) (vgpr ? renamed_registers : renamed_sgprs) += count;
        }
      return "";
    };
    if (const std::string why_not = allocate(true); !why_not.empty())
      if (const std::string plain = allocate(false); !plain.empty()) return refuse(plain);
    // Per iteration and instruction: the renaming of its units.
    auto rename_map = [&](unsigned j, const std::map<size_t, size_t>& webs) {
      UnitMap m;
      for (const auto& [r, w] : webs)
        if (auto it = fresh[j].find(w); it != fresh[j].end()) m[r] = it->second + (r - web_range.at(w).first);
      return m;
    };
    // The concatenation U (iteration-major) and the new order P; every swapped pair must commute.
    struct Unrolled {
      unsigned iteration;
      size_t index;  // in body
      Regs defs, uses;
    };
    std::vector<Unrolled> u;
    for (unsigned j = 0; j < k; ++j)
      for (size_t i = 0; i < body.size(); ++i) {
        if (body[i].role == Role::ExitGroup && j + 1 < k) continue;  // EXEC unchanged (the guard)
        u.push_back({j, i, regs_of(body[i].inst->defs, rename_map(j, def_web[i])), regs_of(body[i].inst->uses, rename_map(j, use_web[i]))});
      }
    auto phase = [&](const Unrolled& x) {
      const Role r = body[x.index].role;
      return r == Role::Address || r == Role::Load ? 0 : r == Role::ExitGroup ? 2 : 1;
    };
    std::vector<size_t> order(u.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return phase(u[x]) < phase(u[y]); });
    std::vector<size_t> position(u.size());
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    for (size_t x = 0; x < u.size(); ++x)
      for (size_t y = x + 1; y < u.size(); ++y) {
        if (position[y] > position[x]) continue;
        const bool waits = body[u[x].index].role == Role::Wait || body[u[y].index].role == Role::Wait;
        if (waits) continue;  // recounted below
        if (intersects(u[x].defs, u[y].uses) || intersects(u[x].defs, u[y].defs) || intersects(u[x].uses, u[y].defs))
          return refuse(fmt::format("'{}' (iteration {}) and '{}' (iteration {}) do not commute", body[u[x].index].inst->text, u[x].iteration,
                                    body[u[y].index].inst->text, u[y].iteration));
      }

    // Text of the copy.
    std::vector<std::string> lines;
    const std::string pipe = fmt::format(".Lpipe{:x}_k{}", p.text_line(blk.first).address, k);
    lines.push_back(pipe + ":");
    for (const std::string& g : guard.lines) lines.push_back(g);
    bool copied_back = false;
    for (size_t o : order) {
      const Unrolled& x = u[o];
      const program::Instruction& in = *body[x.index].inst;
      if (phase(x) == 2 && !copied_back) lines.insert(lines.end(), copy_back.begin(), copy_back.end()), copied_back = true;
      std::string text;
      if (body[x.index].role == Role::Wait) {
        auto w = check::decode_waitcnt(in, arch);
        if (!w) return refuse("an s_waitcnt the move cannot read");
        unsigned& vm = w->count[check::kVmCnt];
        if (vm < limits.max[check::kVmCnt]) {
          // Issued after this iteration's loads in the copy: the later iterations' loads and the
          // earlier iterations' stores (stores count in vmcnt on gfx9).
          vm += static_cast<unsigned>(vector_loads * (k - 1 - x.iteration) + stores * x.iteration);
          if (vm >= limits.max[check::kVmCnt]) return refuse(fmt::format("vmcnt cannot count {} loads in flight", vm));
        }
        text = check::waitcnt_text(*w, limits);
        if (text.empty()) continue;
      } else {
        UnitMap both = rename_map(x.iteration, def_web[x.index]);
        both.merge(rename_map(x.iteration, use_web[x.index]));  // a unit in both maps to the same (one web)
        auto t = rename_registers(p.text_line(body[x.index].line).text, both);
        if (!t) return refuse("'" + in.text + "' names a renamed register in part, or cannot name an SGPR pair for VCC");
        text = *t;
      }
      lines.push_back(text);
    }
    if (!copied_back) lines.insert(lines.end(), copy_back.begin(), copy_back.end());
    lines.push_back(back_m + " " + pipe);
    // EXIT: the line after the loop (a label there, or a new one).
    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    std::string exit_label;
    if (blk.last + 1 < f.end && p.text_line(blk.last + 1).kind == program::Line::Label) {
      exit_label = p.text_line(blk.last + 1).text;
    } else if (blk.last + 1 < f.end && p.text_line(blk.last + 1).is_instruction()) {
      exit_label = pipe + "_exit";
      e.hunks.push_back(make_insertion(blk.last + 1, {exit_label + ":"}));
    } else {
      return refuse("the loop is not followed by an instruction or label");
    }
    lines.push_back("s_branch " + exit_label);
    // The copy goes right after X, the instruction before the header label (edits insert before
    // instructions only): X's fall-through, if it has one, enters the copy; every predecessor that
    // branches to the header branches to the copy instead.
    size_t x_line = label_line - 1;
    while (x_line > f.begin && !p.text_line(x_line).is_instruction()) --x_line;
    if (!p.text_line(x_line).is_instruction() || p.text_line(x_line).kind == program::Line::RawInstr) return refuse("no instruction before the loop");
    auto retargeted = [&](size_t line) -> std::optional<std::string> {
      const program::Line& l = p.text_line(line);
      if (!l.inst || !l.inst->is_branch) return std::nullopt;
      const std::vector<std::string> o = operands(l.text);
      if (o.size() != 1 || o[0] != header) return std::nullopt;
      return l.inst->mnemonic + " " + pipe;
    };
    std::vector<std::string> at_x{retargeted(x_line).value_or(p.text_line(x_line).text)};
    at_x.insert(at_x.end(), lines.begin(), lines.end());
    e.hunks.push_back(make_hunk(p, x_line, x_line, at_x));
    for (size_t pred : blk.preds) {
      if (pred == b || f.blocks[pred].last == x_line) continue;
      if (auto t = retargeted(f.blocks[pred].last)) e.hunks.push_back(make_hunk(p, f.blocks[pred].last, f.blocks[pred].last, {*t}));
    }
    std::sort(e.hunks.begin(), e.hunks.end(), [](const Hunk& x, const Hunk& y) { return x.first < y.first; });
    e.description = fmt::format("loop at {} pipelined by {}: {} load(s) per iteration ({} scalar) issued {} iterations ahead under a {} guard{}, {} VGPR(s) "
                                "and {} SGPR(s) renamed per iteration; the original loop for the rest",
                                header, k, loads, scalar_loads, k, uniform ? "trip-count" : "per-wave no-lane-exits",
                                stores ? fmt::format(" and an alias guard ({} store(s) after the later iterations' loads)", stores) : "", renamed_registers,
                                renamed_sgprs);
    return e;
  }

  // Bodies with stores: the later iterations' loads go above the earlier iterations' stores, which is
  // the original order only where no such store writes a byte such a load reads. The guard proves that
  // for the wave at run time, for one address shape: every vector access of the body reaches
  // `vA + offset:I`, vA computed in its iteration by `v_lshl_add_u64 vA, sB, 0, vO` (either source
  // order), sB an SGPR pair the body does not write, vO one VGPR pair shared by every access, read
  // before its one update `vO = vO + sT` (sT an SGPR pair the body does not write). So in copy
  // iteration j, lane a accesses B + I + o(a) + j*T (mod 2^64), o(a) = vO at the copy's entry. The
  // guard checks (1) o(a) - o(f) in [-W, W] for every active lane a (f: the first active lane), so
  // two lanes' o differ by at most 2W, and (2) for every store s, load l and m = 1..K-1, that
  // E = (Bs + Is) - (Bl + Il) - m*T is not within [-R, R] modulo 2^64, R = 2W + 16 (accesses are at
  // most 16 bytes). A store of iteration j (lane a) and a load of iteration j + m (lane b) overlap only
  // where E = o(b) - o(a) + v - u for some byte offsets u < size(s), v < size(l): |E| <= 2W + 15.
  // Otherwise the original loop runs. Stores of other waves are not ordered with this wave's loads in
  // the original either (no barrier or fence in the body).
  Guard alias_guard(const program::Program& p, const std::vector<BodyInst>& body, unsigned k, const std::string& header, const Take& take_vgpr,
                    const Take& take_sgpr) const {
    constexpr int64_t kLaneSpread = 4096;                         // W: 64 lanes of 16-byte accesses, 4 times over
    constexpr int64_t kReach = 2 * kLaneSpread + 16;              // R
    auto writes = [&](size_t i, const RegRange& r) {
      for (const RegRange& d : body[i].inst->defs)
        if (program::overlaps(d, r)) return true;
      return false;
    };
    auto written = [&](const RegRange& r) {
      for (size_t i = 0; i < body.size(); ++i)
        if (writes(i, r)) return true;
      return false;
    };
    auto sgpr_pair = [](const std::optional<RegRange>& r) { return r && r->file == RegFile::SGPR && r->count == 2 && r->first % 2 == 0; };
    auto vgpr_pair = [](const std::optional<RegRange>& r) { return r && r->file == RegFile::VGPR && r->count == 2; };
    struct Access {
      RegRange base;
      int64_t offset = 0;
      bool store = false;
    };
    std::vector<Access> accesses;
    std::optional<RegRange> shared;    // vO
    std::optional<size_t> offset_def;  // shape B: vO's def in the iteration
    static const std::regex offset_re(R"((?:^|\s)offset:(-?(?:0x[0-9a-fA-F]+|\d+)))");
    for (size_t i = 0; i < body.size(); ++i) {
      const program::Instruction& in = *body[i].inst;
      if (!in.may_load && !in.may_store) continue;
      const std::vector<std::string> ops = operands(p.text_line(body[i].line).text);
      if (ops.size() < 3 || !(ops[2] == "off" || ops[2].rfind("off ", 0) == 0))
        return refused("a memory access with an SGPR base (the alias guard reads 64-bit vector addresses)");
      const std::string& address = in.may_store ? ops[0] : ops[1];
      const std::optional<RegRange> a = program::parse_reg(address);
      if (!vgpr_pair(a)) return refused("a memory address not in a VGPR pair");
      Access x;
      x.store = in.may_store;
      std::smatch m;
      if (std::regex_search(ops[2], m, offset_re)) x.offset = std::stoll(m[1], nullptr, 0);
      std::optional<size_t> def;
      for (size_t d = i; d-- > 0 && !def;)
        if (writes(d, *a)) def = d;
      if (!def) return refused("a memory address not computed in its iteration");
      const std::vector<std::string> dops = operands(p.text_line(body[*def].line).text);
      if (body[*def].inst->mnemonic != "v_lshl_add_u64" || dops.size() != 4 || program::parse_reg(dops[0]) != a || dops[2] != "0")
        return refused("a memory address not computed as base + offset (v_lshl_add_u64 vA, sB, 0, vO)");
      const std::optional<RegRange> s0 = program::parse_reg(dops[1]), s2 = program::parse_reg(dops[3]);
      const bool base_first = sgpr_pair(s0) && vgpr_pair(s2);
      if (!base_first && !(vgpr_pair(s0) && sgpr_pair(s2))) return refused("a memory address not computed as base + offset (v_lshl_add_u64 vA, sB, 0, vO)");
      x.base = base_first ? *s0 : *s2;
      const RegRange o = base_first ? *s2 : *s0;
      if (written(x.base)) return refused("a memory base the loop changes");
      if (shared && !(*shared == o)) return refused("memory addresses with different offset registers");
      shared = o;
      // The last write of vO before the address: none (shape A) or the same in-iteration def (shape B).
      std::optional<size_t> last;
      for (size_t d = 0; d < *def; ++d)
        if (writes(d, o)) last = d;
      if (!accesses.empty() && last != offset_def) return refused("a memory address computed after the offset's update");
      offset_def = last;
      accesses.push_back(x);
    }
    if (!shared) return refused("no memory access");
    auto pair = [](char file, unsigned r) { return fmt::format("{}[{}:{}]", file, r, r + 1); };
    Guard g;
    std::string vo, step_lo, step_hi;  // o(a) at the copy's entry (a VGPR pair) and T (two SGPRs)
    if (!offset_def) {
      // Shape A: vO loop-carried, stepped once by a loop-invariant SGPR pair.
      std::optional<RegRange> step;
      size_t updates = 0;
      for (size_t i = 0; i < body.size(); ++i) {
        if (!writes(i, *shared)) continue;
        ++updates;
        const std::vector<std::string> uops = operands(p.text_line(body[i].line).text);
        if (body[i].inst->mnemonic != "v_lshl_add_u64" || uops.size() != 4 || program::parse_reg(uops[0]) != shared || uops[2] != "0") continue;
        const std::optional<RegRange> u0 = program::parse_reg(uops[1]), u2 = program::parse_reg(uops[3]);
        if (u0 == shared && sgpr_pair(u2)) step = *u2;
        if (u2 == shared && sgpr_pair(u0)) step = *u0;
      }
      if (updates != 1 || !step) return refused("the shared address offset is not stepped once by an SGPR pair (vO = vO + sT)");
      if (written(*step)) return refused("the address step changes in the loop");
      vo = pair('v', shared->first);
      step_lo = fmt::format("s{}", step->first);
      step_hi = fmt::format("s{}", step->first + 1);
    } else {
      // Shape B: vO = sext(vI) << s in the iteration (`v_ashrrev_i32 vH, 31, vI`, `v_lshlrev_b64 vO,
      // s, v[I:H]`, s = 0..4), vI a 32-bit induction written once, after the offset's def, by an instruction
      // whose other sources the loop does not write (its step X per lane: i_j = i_0 + j*X mod 2^32).
      // The guard checks X is the same on every active lane and i_0 + (K-1)*X does not leave the
      // int32 range; then sext(i_j) = sext(i_0) + j*sext(X) exactly, and o = sext(i_0) << s with
      // T = sext(X) << s is shape A's affine form (mod 2^64).
      const std::vector<std::string> wops = operands(p.text_line(body[*offset_def].line).text);
      const std::optional<RegRange> src = wops.size() == 3 ? program::parse_reg(wops[2]) : std::nullopt;
      const std::optional<int64_t> shift = wops.size() == 3 ? integer(wops[1]) : std::nullopt;
      if (body[*offset_def].inst->mnemonic != "v_lshlrev_b64" || !shift || *shift < 0 || *shift > 4 || !vgpr_pair(src) || program::parse_reg(wops[0]) != shared)
        return refused("the shared address offset is neither stepped nor sext(i) << s");
      const RegRange lo{RegFile::VGPR, src->first, 1}, hi{RegFile::VGPR, src->first + 1, 1};
      std::optional<size_t> sext;
      for (size_t d = 0; d < *offset_def; ++d)
        if (writes(d, hi)) sext = d;
      const std::vector<std::string> sops = sext ? operands(p.text_line(body[*sext].line).text) : std::vector<std::string>{};
      if (!sext || body[*sext].inst->mnemonic != "v_ashrrev_i32_e32" || sops.size() != 3 || sops[1] != "31" || program::parse_reg(sops[2]) != lo ||
          program::parse_reg(sops[0]) != hi)
        return refused("the address offset's high word is not the index's sign");
      std::vector<size_t> index_writes;
      for (size_t i = 0; i < body.size(); ++i)
        if (writes(i, lo)) index_writes.push_back(i);
      if (index_writes.size() != 1 || index_writes[0] < *offset_def) return refused("the address index is not stepped once after the offset's def");
      const program::Instruction& up = *body[index_writes[0]].inst;
      if (up.may_load || up.defs.size() != 1 || !(up.defs[0] == lo)) return refused("the address index's update writes more than the index");
      // An add of loop invariants to the whole index (the SDWA form selecting all of it), no clamp: then
      // every iteration adds the same X.
      const std::string& ut = p.text_line(body[index_writes[0]].line).text;
      const std::vector<std::string> uo = operands(ut);
      const std::string iname = fmt::format("v{}", lo.first);
      const bool plain = up.mnemonic == "v_add_u32_e32" || up.mnemonic == "v_add_u32_e64";
      const bool sdwa = up.mnemonic == "v_add_u32_sdwa" && ut.find("dst_sel:DWORD") != std::string::npos &&
                        ut.find(uo.size() > 1 && uo[1] == iname ? "src0_sel:DWORD" : "src1_sel:DWORD") != std::string::npos;
      if (!(plain || sdwa) || ut.find("clamp") != std::string::npos || uo.size() < 3 || uo[0] != iname ||
          (uo[1] != iname && uo[2].substr(0, uo[2].find(' ')) != iname))
        return refused("the address index's update is not an add of loop invariants");
      for (const RegRange& r : up.uses)
        if (r.file != RegFile::EXEC && !(r == lo) && written(r)) return refused("the address index steps by a value the loop changes");
      const auto index = take_vgpr(1, 0), delta = take_vgpr(1, 0), wide = take_vgpr(2, 0), sum = take_vgpr(2, 0);
      const auto x = take_sgpr(2, 2), bad = take_sgpr(2, 2), carry = take_sgpr(2, 2);
      if (!index || !delta || !wide || !sum || !x || !bad || !carry) return refused("no free registers for the alias guard");
      auto replay = rename_vgprs(p.text_line(body[index_writes[0]].line).text, {{lo.first, *index}});
      if (!replay) return refused("the address index's update cannot be replayed");
      g.lines.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", *index, lo.first));
      g.lines.push_back(*replay);                                                            // i_1
      g.lines.push_back(fmt::format("v_sub_u32_e32 v{0}, v{1}, v{2}", *delta, *index, lo.first));  // X
      g.lines.push_back("s_nop 0");  // VALU writes a VGPR -> v_readfirstlane reads it: 1 wait state
      g.lines.push_back(fmt::format("v_readfirstlane_b32 s{}, v{}", *x, *delta));
      g.lines.push_back("s_nop 1");  // VALU writes an SGPR -> VALU reads it: 2 wait states (gfx940+)
      g.lines.push_back(fmt::format("v_cmp_ne_u32_e64 {}, s{}, v{}", pair('s', *bad), *x, *delta));
      g.lines.push_back(fmt::format("s_and_b64 {0}, exec, {0}", pair('s', *bad)));
      g.lines.push_back("s_cbranch_scc1 " + header);  // X differs between lanes
      g.lines.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", *wide, lo.first));
      g.lines.push_back(fmt::format("v_ashrrev_i32_e32 v{}, 31, v{}", *wide + 1, lo.first));  // sext(i_0)
      g.lines.push_back(fmt::format("v_mad_i64_i32 {}, {}, s{}, {}, {}", pair('v', *sum), pair('s', *carry), *x, k - 1, pair('v', *wide)));
      g.lines.push_back(fmt::format("v_ashrrev_i32_e32 v{}, 31, v{}", *delta, *sum));
      g.lines.push_back(fmt::format("v_cmp_ne_u32_e64 {}, v{}, v{}", pair('s', *bad), *delta, *sum + 1));
      g.lines.push_back(fmt::format("s_and_b64 {0}, exec, {0}", pair('s', *bad)));
      g.lines.push_back("s_cbranch_scc1 " + header);  // i_0 + (K-1)*X leaves int32 on some lane
      g.lines.push_back(fmt::format("v_lshlrev_b64 {0}, {1}, {0}", pair('v', *wide), *shift));  // o = sext(i_0) << s
      g.lines.push_back(fmt::format("s_ashr_i32 s{}, s{}, 31", *x + 1, *x));
      g.lines.push_back(fmt::format("s_lshl_b64 {0}, {0}, {1}", pair('s', *x), *shift));  // T = sext(X) << s
      vo = pair('v', *wide);
      step_lo = fmt::format("s{}", *x);
      step_hi = fmt::format("s{}", *x + 1);
    }
    const auto first = take_sgpr(2, 2), limit = take_sgpr(2, 2), failing = take_sgpr(2, 2), e = take_sgpr(2, 2), flag = take_sgpr(1, 1);
    const auto spread = take_vgpr(2, 0);
    if (!first || !limit || !failing || !e || !flag || !spread) return refused("no free registers for the alias guard");
    const unsigned vo_first = static_cast<unsigned>(std::stoul(vo.substr(2)));
    // (1) Every active lane's offset within W of the first active lane's.
    g.lines.push_back("s_nop 0");  // VALU writes a VGPR -> v_readfirstlane reads it: 1 wait state
    g.lines.push_back(fmt::format("v_readfirstlane_b32 s{}, v{}", *first, vo_first));
    g.lines.push_back(fmt::format("v_readfirstlane_b32 s{}, v{}", *first + 1, vo_first + 1));
    g.lines.push_back(fmt::format("s_sub_u32 s{0}, {1:#x}, s{0}", *first, kLaneSpread));
    g.lines.push_back(fmt::format("s_subb_u32 s{0}, 0, s{0}", *first + 1));
    g.lines.push_back(fmt::format("v_lshl_add_u64 {}, {}, 0, {}", pair('v', *spread), vo, pair('s', *first)));  // o(a) - o(f) + W
    g.lines.push_back(fmt::format("s_mov_b32 s{}, {:#x}", *limit, 2 * kLaneSpread + 1));
    g.lines.push_back(fmt::format("s_mov_b32 s{}, 0", *limit + 1));
    g.lines.push_back(fmt::format("v_cmp_gt_u64_e64 {}, {}, {}", pair('s', *failing), pair('s', *limit), pair('v', *spread)));
    g.lines.push_back(fmt::format("s_andn2_b64 {0}, exec, {0}", pair('s', *failing)));
    g.lines.push_back("s_cbranch_scc1 " + header);
    // (2) Every store against every load, m = 1..K-1 iterations later.
    for (const Access& s : accesses)
      for (const Access& l : accesses) {
        if (!s.store || l.store) continue;
        const uint64_t c = static_cast<uint64_t>(s.offset - l.offset + kReach);
        g.lines.push_back(fmt::format("s_add_u32 s{}, s{}, {:#x}", *e, s.base.first, static_cast<uint32_t>(c)));
        g.lines.push_back(fmt::format("s_addc_u32 s{}, s{}, {}", *e + 1, s.base.first + 1, static_cast<int32_t>(c >> 32)));
        g.lines.push_back(fmt::format("s_sub_u32 s{0}, s{0}, s{1}", *e, l.base.first));
        g.lines.push_back(fmt::format("s_subb_u32 s{0}, s{0}, s{1}", *e + 1, l.base.first + 1));
        for (unsigned m = 1; m < k; ++m) {
          g.lines.push_back(fmt::format("s_sub_u32 s{0}, s{0}, {1}", *e, step_lo));
          g.lines.push_back(fmt::format("s_subb_u32 s{0}, s{0}, {1}", *e + 1, step_hi));
          g.lines.push_back(fmt::format("s_cmp_gt_u32 s{}, {:#x}", *e, 2 * kReach));  // E + R > 2R, unsigned 64-bit:
          g.lines.push_back(fmt::format("s_cselect_b32 s{}, 1, 0", *flag));           //   low word above 2R, or high word nonzero
          g.lines.push_back(fmt::format("s_or_b32 s{0}, s{0}, s{1}", *flag, *e + 1));
          g.lines.push_back("s_cbranch_scc0 " + header);
        }
      }
    return g;
  }

  // Uniform loops: an SGPR counter c stepped once per iteration before the exit test, compared with B
  // (an SGPR the body does not write, or a constant):
  //  - stepped by ±1, the exit test `c == B`: iterations left at the header, this one included, are
  //    (B - c) or (c - B) mod 2^32 (0 meaning 2^32, which the guard sends to the original loop);
  //  - stepped by a constant S > 0, the loop going on while `c < B` (signed or unsigned, as Triton's
  //    `for off in range(start, n, BLOCK)`): iterations 0..K-2 take the back branch iff
  //    wrap(c + j*S) < B for j = 1..K-1. The guard computes c + (K-1)*S with the compare's own
  //    overflow flag (s_add_i32: signed overflow, s_add_u32: carry) and enters the copy only without
  //    overflow and with c + (K-1)*S < B; without overflow c + j*S increases with j and equals its
  //    wrapped value, so all K-1 tests pass. Otherwise (any overflow, or fewer iterations) the original
  //    loop runs.
  Guard uniform_guard(const program::Program& p, const program::Function& f, const program::BasicBlock& blk, const std::vector<BodyInst>& body,
                      unsigned k, const std::string& header, const Take& take_sgpr) const {
    Guard g;
    const std::string& back_m = p.text_line(blk.last).inst->mnemonic;
    std::optional<size_t> cmp;
    for (size_t i = body.size(); i-- > 0 && !cmp;)
      for (const RegRange& d : body[i].inst->defs)
        if (d.file == RegFile::SCC) cmp = i;
    if (!cmp) return refused("no SCC write before the back branch");
    const std::string cm = body[*cmp].inst->mnemonic;
    const bool eq = cm == "s_cmp_eq_u32" || cm == "s_cmp_eq_i32", lg = cm == "s_cmp_lg_u32" || cm == "s_cmp_lg_i32";
    // `c < B` as s_cmp_lt c, B or s_cmp_gt B, c; going on while it holds (s_cbranch_scc1 back).
    const bool less = cm == "s_cmp_lt_i32" || cm == "s_cmp_lt_u32", greater = cm == "s_cmp_gt_i32" || cm == "s_cmp_gt_u32";
    const bool ordered = (less || greater) && back_m == "s_cbranch_scc1";
    const bool is_signed = cm.back() == '2' && cm[cm.size() - 3] == 'i';
    if (!((eq && back_m == "s_cbranch_scc0") || (lg && back_m == "s_cbranch_scc1") || ordered))
      return refused("the exit test is neither an equality test on a counter nor `counter < bound` going on while it holds");
    const std::vector<std::string> ops = operands(body[*cmp].inst->text);
    if (ops.size() != 2) return refused("the exit compare has no two operands");
    auto writes_sgpr = [&](const BodyInst& bi, unsigned r) {
      for (const RegRange& d : bi.inst->defs)
        if (d.contains(RegFile::SGPR, r)) return true;
      return false;
    };
    for (int side = 0; side < 2; ++side) {
      if (ordered && side != (less ? 0 : 1)) continue;  // the counter is the smaller side of `c < B`
      auto counter = single_sgpr(ops[side]);
      if (!counter) continue;
      const std::string bound = ops[1 - side];
      bool bound_changes = false;
      if (auto bs = single_sgpr(bound))
        for (const BodyInst& bi : body) bound_changes |= writes_sgpr(bi, *bs);
      if (bound_changes || (!single_sgpr(bound) && !integer(bound))) continue;
      std::optional<int64_t> step;
      size_t writers = 0;
      for (size_t i = 0; i < body.size(); ++i) {
        if (!writes_sgpr(body[i], *counter)) continue;
        ++writers;
        const std::string& m = body[i].inst->mnemonic;
        const std::vector<std::string> o = operands(body[i].inst->text);
        const std::string cs = ops[side];
        // The step as the hardware adds it: a 32-bit operand wraps (0xfffffc00 is -1024), and s_addk_i32's
        // simm16 is sign-extended (0xfc00 is -1024), however the disassembler printed it.
        auto as_i32 = [](std::optional<int64_t> v) -> std::optional<int64_t> {
          if (!v || *v < INT32_MIN || *v > UINT32_MAX) return std::nullopt;
          return static_cast<int32_t>(static_cast<uint32_t>(*v));
        };
        std::optional<int64_t> imm;
        if ((m == "s_add_i32" || m == "s_add_u32") && o.size() == 3 && o[0] == cs) imm = as_i32(o[1] == cs ? integer(o[2]) : o[2] == cs ? integer(o[1]) : std::nullopt);
        if ((m == "s_sub_i32" || m == "s_sub_u32") && o.size() == 3 && o[0] == cs && o[1] == cs && as_i32(integer(o[2])) && *as_i32(integer(o[2])) != INT32_MIN)
          imm = -*as_i32(integer(o[2]));
        if (m == "s_addk_i32" && o.size() == 2 && o[0] == cs)
          if (auto v = integer(o[1]); v && *v >= INT16_MIN && *v <= UINT16_MAX) imm = static_cast<int16_t>(static_cast<uint16_t>(*v));
        if (imm && i < *cmp) step = *imm;
      }
      if (writers != 1 || !step) continue;
      const std::string cs = ops[side];
      if (ordered) {
        const int64_t ahead = static_cast<int64_t>(k - 1) * *step;
        if (*step <= 0 || ahead > INT32_MAX) continue;
        const auto t = take_sgpr(1, 1);
        if (!t) return refused("no free SGPR for the guard's last counter value");
        g.lines = {fmt::format("{} s{}, {}, {}", is_signed ? "s_add_i32" : "s_add_u32", *t, cs, ahead), "s_cbranch_scc1 " + header,
                   fmt::format("{} s{}, {}", is_signed ? "s_cmp_lt_i32" : "s_cmp_lt_u32", *t, bound), "s_cbranch_scc0 " + header};
        return g;
      }
      if (*step != 1 && *step != -1) continue;
      if (*step < 0 && integer(bound) == 0) {
        g.lines = {fmt::format("s_cmp_lt_u32 {}, {}", cs, k), "s_cbranch_scc1 " + header};
        return g;
      }
      // A scratch SGPR for the count: dead at the header, unused by the loop.
      const auto t = take_sgpr(1, 1);
      if (!t) return refused("no free SGPR for the trip count");
      g.lines = {*step > 0 ? fmt::format("s_sub_u32 s{}, {}, {}", *t, bound, cs) : fmt::format("s_sub_u32 s{}, {}, {}", *t, cs, bound),
                 fmt::format("s_cmp_lt_u32 s{}, {}", *t, k), "s_cbranch_scc1 " + header};
      return g;
    }
    return refused(ordered ? "no SGPR counter stepped once by a constant S > 0 (with (K-1)*S below 2^31) in the exit test"
                           : "no SGPR counter stepped by 1 in the exit test");
  }

  // Divergent loops: the body ends `s_andn2_b64 exec, exec, M; s_cbranch_execnz HEADER`, M is
  // or-accumulated once per iteration from the result X of one v_cmp, whose operands are loop-invariant
  // or per-lane inductions (a VGPR the body writes once, from itself and invariants only). The guard
  // replays the inductions and the compare K-1 times on copies and falls back to the original loop when
  // an active lane would leave within K-1 iterations, or when M already holds an active lane. Then X is
  // 0 on every active lane (a v_cmp writes 0 for inactive ones) in iterations 0..K-2, M does not change
  // there, and `exec & ~M` is EXEC: the copy drops those iterations' EXEC updates and branches.
  Guard divergent_guard(const program::Program& p, const program::Function& f, const program::BasicBlock& blk, const std::vector<BodyInst>& body,
                        unsigned k, const std::string& header, const Take& take_vgpr, const Take& take_sgpr) const {
    const std::vector<std::string> eops = operands(body.back().inst->text);
    if (body.back().inst->mnemonic != "s_andn2_b64" || eops.size() != 3 || eops[0] != "exec" || eops[1] != "exec") return refused("the EXEC update is not exec &= ~mask");
    const std::optional<RegRange> mask = program::parse_reg(eops[2]);
    if (!mask || mask->file != RegFile::SGPR || mask->count != 2) return refused("the exit mask is not an SGPR pair");
    auto writers = [&](const RegRange& r) {
      std::vector<size_t> w;
      for (size_t i = 0; i + 1 < body.size(); ++i)
        for (const RegRange& d : body[i].inst->defs)
          if (program::overlaps(d, r)) {
            w.push_back(i);
            break;
          }
      return w;
    };
    const std::vector<size_t> mw = writers(*mask);
    if (mw.size() != 1) return refused("the exit mask is written more than once");
    const BodyInst& acc = body[mw[0]];
    const std::vector<std::string> aops = operands(acc.inst->text);
    if (acc.inst->mnemonic != "s_or_b64" || aops.size() != 3 || aops[0] != eops[2] || (aops[1] != eops[2] && aops[2] != eops[2]))
      return refused("the exit mask is not or-accumulated");
    const std::string x_text = aops[1] == eops[2] ? aops[2] : aops[1];
    const std::optional<RegRange> x = program::parse_reg(x_text);
    if (!x || (x->file != RegFile::VCC && !(x->file == RegFile::SGPR && x->count == 2))) return refused("the exit condition is not a lane mask");
    // The compare whose result the accumulation reads: the last writer of X before it (gfx90a's address
    // carries also write VCC, earlier in the body; the replay needs only this one).
    std::vector<size_t> xw = writers(*x);
    std::erase_if(xw, [&](size_t i) { return i > mw[0]; });
    if (xw.empty() || body[xw.back()].inst->mnemonic.rfind("v_cmp_", 0) != 0) return refused("the exit condition is not one v_cmp");
    xw = {xw.back()};
    const BodyInst& cmp = body[xw[0]];
    const std::vector<RegSet> live = p.live_in(f, true);
    const RegSet& at = live[blk.first - f.begin];
    for (unsigned q = 0; q < x->count; ++q)
      if (at.bits.test(*unit_of(x->file, x->first + q))) return refused("the exit condition is live at the header");
    // The inductions the compare reads.
    std::vector<std::pair<size_t, RegRange>> inductions;  // body index of the update, its VGPR (or 64-bit pair)
    for (const RegRange& u : cmp.inst->uses) {
      if (u.file == RegFile::EXEC) continue;
      const std::vector<size_t> uw = writers(u);
      if (uw.empty()) continue;  // invariant
      if (u.file != RegFile::VGPR || u.count > 2 || uw.size() != 1) return refused("the exit compare reads a value the loop changes other than an induction");
      const program::Instruction& up = *body[uw[0]].inst;
      if (up.may_load || up.defs.size() != 1 || !(up.defs[0] == u)) return refused("an induction update writes more than its register");
      for (const RegRange& r : up.uses)
        if (r.file != RegFile::EXEC && !(r == u) && !writers(r).empty()) return refused("an induction steps by a value the loop changes");
      inductions.push_back({uw[0], u});
    }
    if (inductions.empty()) return refused("the exit compare reads no induction");
    const std::optional<unsigned> acc_sgpr = take_sgpr(2, 2);
    if (!acc_sgpr) return refused("no free SGPR pair for the guard");
    const std::string accr = fmt::format("s[{}:{}]", *acc_sgpr, *acc_sgpr + 1);
    Guard g;
    g.lines.push_back(fmt::format("s_and_b64 {}, exec, {}", accr, eops[2]));
    std::map<unsigned, unsigned> copies;
    for (const auto& [line, v] : inductions) {
      const auto t = take_vgpr(v.count, v.first % 2);
      if (!t) return refused("no free VGPR for the guard's induction copy");
      for (unsigned q = 0; q < v.count; ++q) {
        copies[v.first + q] = *t + q;
        g.lines.push_back(fmt::format("v_mov_b32_e32 v{}, v{}", *t + q, v.first + q));
      }
    }
    std::vector<size_t> replay;
    for (const auto& [line, v] : inductions) replay.push_back(line);
    replay.push_back(xw[0]);
    std::sort(replay.begin(), replay.end());
    for (unsigned j = 0; j + 1 < k; ++j) {
      for (size_t i : replay) {
        auto t = rename_vgprs(p.text_line(body[i].line).text, copies);
        if (!t) return refused("the exit test cannot be replayed");
        g.lines.push_back(*t);
      }
      g.lines.push_back(fmt::format("s_or_b64 {}, {}, {}", accr, accr, x_text));
    }
    g.lines.push_back("s_cbranch_scc1 " + header);  // SCC: some active lane leaves early
    (void)header;
    return g;
  }
};

}  // namespace

std::unique_ptr<Move> make_loop_pipeline_move() { return std::make_unique<LoopPipelineMove>(); }

std::string loop_pipeline_refusal(const program::Program& p, const std::string& kernel, size_t block, unsigned k) {
  return LoopPipelineMove::refusal(p, kernel, block, k);
}

}  // namespace asmevo::search
