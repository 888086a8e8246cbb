// Move: LDS swizzle. Every LDS access of the kernel goes to π(address) instead of its address, where
//   π(a) = a XOR (((a >> s) & 3) << 4),  s = log2(LDS banks x 4 bytes) - 1 .. + 1
// permutes the four 16-byte chunks of each 64-byte block by two higher address bits. A tile read
// down a column (lane t reads row t of a 64-byte-stride tile: `Ws[tx][k]` in the KernelBench-style
// X·Wᵀ GEMMs, four lanes of every ds_read_b128 phase on the same four banks) then spreads over all
// banks; the model charges LDS by the busiest bank per phase (timing/trace.cpp, S11's measured
// phases), so the conflict-free layout shortens the LDS pipe's occupancy.
//
// Why every launch: π is a bijection of addresses (an involution: the bits it XORs in, s and s+1,
// are >= 6 and are not changed) that maps each 16-byte chunk onto one 16-byte chunk, keeping the
// byte order, and each 64-byte block onto itself. So, provided
//   * every LDS access of the kernel is a DS read/write the move rewrites: single-address, or a
//     read2/write2 (st64 too) whose two addresses x and x + D one base register can still address
//     after π, i.e. π(x + D) = π(x) + D in every lane (span_swizzle_refusal says when; the pair is then
//     issued from π(x) with its offsets relative to the lower one). No FLAT, which may address the LDS
//     aperture, no LDS DMA, atomics, transposing reads (ds_read_b64_tr_*), addtid or GDS ops;
//     ds_bpermute/ds_permute/ds_swizzle touch no LDS memory and stay; the kernel calls nothing;
//   * each access lies inside one 16-byte chunk for every lane: the known zero bits of its address
//     register plus offset show (address mod 16) + width <= 16;
//   * the address register plus its largest offset stays below 2^32 (a known bound on the register),
//     so the hoisted 32-bit sum is the address the DS unit forms;
//   * the LDS allocation is a multiple of 64 bytes (the static size is checked; the hardware
//     allocates LDS in blocks of 128 dwords on gfx90a/gfx942 and 320 on gfx950, AMDGPUUsage
//     compute_pgm_rsrc2.GRANULATED_LDS_SIZE; that the DS range check uses the allocated blocks is
//     assumed [U]; the emulator checks against static + dynamic bytes, so a launch whose dynamic LDS
//     is not a multiple of 64 and whose accesses reach its last partial block could differ there), so
//     an access is in range after π exactly when it was before;
// every LDS byte the original stores or loads at logical address a is stored or loaded at π(a)
// instead, and each load returns what the original's returned. LDS starts undefined and dies with
// the workgroup, so the layout is not observable.
// The new address of each (register r, offset o) is computed once, right after the one definition
// of r that every path to the access passes last (so r holds the same value, in every lane, at the
// access): v_add o, r; three VALU ops for π, into a register the kernel never used, under a full
// EXEC (saved and restored in a fresh SGPR pair) so that every lane the access may run holds it.
// The known bits (which bits are 0, and a bound) come from the definitions reaching the register:
// shifts, and/or/xor (also or3, xad), adds (an OR where no bit may be 1 in both), mul_lo, bfe_u32,
// cndmask (either source), and on entry the packed work-item ids in v0, each below the kernel's
// .max_flat_workgroup_size and 0 where not enabled (work_item_id_bits, the ABI). A definition that
// may run under a narrowed EXEC does not hide older ones, and the kernel's EXEC writes must only
// narrow or restore (no s_or_saveexec with constants, as whole-wave code does).
// Refused (no edit): any of the above failing; no LDS access in the window.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "program/reaching.h"
#include "search/moves/lds_swizzle.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"
#include "timing/hw_params.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

constexpr uint64_t kU32Max = 0xffffffffull;
constexpr size_t kEntry = program::kEntryValue;  // "the value on kernel entry"

// The DS accesses the move rewrites: bytes per address, addresses per lane, and the byte unit of the
// offset fields (read2/write2: offset0/offset1 count elements, st64 64 of them). bytes 0: touches no
// LDS memory; nullopt: an LDS access it cannot rewrite.
struct DsShape {
  unsigned bytes = 0, addresses = 1, unit = 1;
};
std::optional<DsShape> ds_shape(const std::string& m) {
  static const std::map<std::string, DsShape> kShapes = {
      {"ds_read_b32", {4}},   {"ds_read_b64", {8}},    {"ds_read_b96", {12}},   {"ds_read_b128", {16}}, {"ds_read_u8", {1}},
      {"ds_read_i8", {1}},    {"ds_read_u16", {2}},    {"ds_read_i16", {2}},    {"ds_write_b8", {1}},   {"ds_write_b16", {2}},
      {"ds_write_b32", {4}},  {"ds_write_b64", {8}},   {"ds_write_b96", {12}},  {"ds_write_b128", {16}},
      {"ds_read2_b32", {4, 2, 4}},        {"ds_read2_b64", {8, 2, 8}},        {"ds_write2_b32", {4, 2, 4}},
      {"ds_write2_b64", {8, 2, 8}},       {"ds_read2st64_b32", {4, 2, 256}},  {"ds_read2st64_b64", {8, 2, 512}},
      {"ds_write2st64_b32", {4, 2, 256}}, {"ds_write2st64_b64", {8, 2, 512}},
      {"ds_bpermute_b32", {0}}, {"ds_permute_b32", {0}}, {"ds_swizzle_b32", {0}}, {"ds_nop", {0}}};
  auto it = kShapes.find(m);
  if (it == kShapes.end()) return std::nullopt;
  return it->second;
}

struct Access {
  size_t line = 0;
  DsShape shape;
  bool write = false;
  std::string data;  // destination (read) or data (write) operand text: "v[0:1]", "v5, v6"
  unsigned addr = 0; // address VGPR
  unsigned offset0 = 0, offset1 = 0;  // the offset fields as written (offset: is offset0)
  // The lowest of the access's addresses is addr + base_offset(); a pair's other one is span() above it.
  unsigned base_offset() const { return shape.addresses == 2 ? std::min(offset0, offset1) * shape.unit : offset0; }
  unsigned span() const { return shape.addresses == 2 ? (std::max(offset0, offset1) - std::min(offset0, offset1)) * shape.unit : 0; }
};

// "ds_read_b128 v[40:43], v10 offset:48" / "ds_write_b32 v5, v12" / "ds_read2_b32 v[0:1], v4 offset0:1 offset1:17" /
// "ds_write2st64_b64 v11, v[12:13], v[16:17] offset1:8": nullopt for other modifiers.
std::optional<Access> parse_access(const program::Instruction& in, size_t line, const DsShape& shape) {
  std::string rest = in.text.substr(in.mnemonic.size());
  std::replace(rest.begin(), rest.end(), ',', ' ');
  std::vector<std::string> tok;
  std::stringstream ss(rest);
  for (std::string t; ss >> t;) tok.push_back(t);
  Access a;
  a.line = line, a.shape = shape, a.write = in.mnemonic.starts_with("ds_write");
  auto number = [](const std::string& t, size_t from) { return static_cast<unsigned>(std::stoul(t.substr(from))); };
  while (!tok.empty()) {
    const std::string& t = tok.back();
    if (shape.addresses == 1 && t.starts_with("offset:")) a.offset0 = number(t, 7);
    else if (shape.addresses == 2 && t.starts_with("offset0:")) a.offset0 = number(t, 8);
    else if (shape.addresses == 2 && t.starts_with("offset1:")) a.offset1 = number(t, 8);
    else break;
    tok.pop_back();
  }
  const size_t operands = a.write ? 1 + shape.addresses : 2;
  if (tok.size() != operands) return std::nullopt;
  auto addr = program::parse_reg(a.write ? tok[0] : tok[1]);
  if (!addr || addr->file != RegFile::VGPR || addr->count != 1) return std::nullopt;
  a.addr = addr->first;
  a.data = a.write ? tok[1] + (shape.addresses == 2 ? ", " + tok[2] : "") : tok[0];
  return a;
}

// What is known of a 32-bit value in every lane: the bits known to be 0 and an upper bound.
struct Bits {
  uint32_t zero = 0;
  uint64_t max = kU32Max;
  // The bound clears the bits above it; the known zeros bound the value.
  static Bits of(uint32_t zero, uint64_t max) {
    max = std::min<uint64_t>(max, kU32Max);
    zero |= ~static_cast<uint32_t>((1ull << std::bit_width(max)) - 1);
    return {zero, std::min<uint64_t>(max, static_cast<uint32_t>(~zero))};
  }
  static Bits constant(uint64_t v) { return of(~static_cast<uint32_t>(v), v & kU32Max); }
  static Bits meet(const Bits& a, const Bits& b) { return of(a.zero & b.zero, std::max(a.max, b.max)); }
  unsigned trailing_zeros() const { return static_cast<unsigned>(std::countr_one(zero)); }
  uint32_t low_mask() const { return static_cast<uint32_t>((1ull << trailing_zeros()) - 1); }
};

Bits shl(Bits a, uint64_t s) {
  s &= 31;  // shift counts use their low 5 bits (ISA: S1[4:0])
  const uint32_t zero = (a.zero << s) | static_cast<uint32_t>((1ull << s) - 1);
  return Bits::of(zero, a.max << s);  // a bound past 2^32 is dropped by of(); the known zeros stay
}
Bits either(Bits a, Bits b) {  // a | b and a ^ b: 0 where both are, at most a + b
  return Bits::of(a.zero & b.zero, a.max + b.max);
}
Bits add(Bits a, Bits b) {
  if ((~a.zero & ~b.zero) == 0) return either(a, b);  // no bit may be 1 in both: no carry, the sum is the OR
  const unsigned tz = std::min(a.trailing_zeros(), b.trailing_zeros());  // may wrap: the low zero bits stay
  return Bits::of(static_cast<uint32_t>((1ull << tz) - 1), a.max + b.max);
}

class Analysis {
 public:
  // `work_item_ids`: the known bits of v0 on entry (the packed work-item ids).
  Analysis(const program::Program& p, const program::Function& f, Bits work_item_ids) : p_(p), f_(f), work_item_ids_(work_item_ids) {
    const RegRange exec{RegFile::EXEC, 0, 2};
    // Lines no EXEC write can precede: a definition there writes every lane the kernel runs.
    std::vector<bool> narrowed_in(f.blocks.size(), false);
    exec_prefix_.assign(f.end, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 0; b < f.blocks.size(); ++b) {
        bool n = narrowed_in[b];
        for (size_t i = f.blocks[b].first; i <= f.blocks[b].last && !n; ++i) {
          const program::Line& l = p.text_line(i);
          n = l.kind == program::Line::Instr && l.inst && l.inst->writes(exec);
        }
        for (size_t s : f.blocks[b].succs)
          if (n && !narrowed_in[s]) narrowed_in[s] = changed = true;
      }
    }
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      bool n = narrowed_in[b];
      for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) {
        exec_prefix_[i] = !n;
        const program::Line& l = p.text_line(i);
        if (l.kind == program::Line::Instr && l.inst && l.inst->writes(exec)) n = true;
      }
    }
  }

  // The definitions of `reg` the value at `line` may come from (kEntry: the kernel's entry value).
  // With `through_partial`, a definition that may run under a narrowed EXEC does not hide older ones.
  std::set<size_t> reaching(size_t line, const RegRange& reg, bool through_partial) const {
    return program::reaching_definitions(p_, f_, line, reg, [&](size_t i) { return !through_partial || exec_prefix_[i]; });
  }

  // Known bits of `reg` (one VGPR or SGPR) as read by `line`.
  Bits value(size_t line, const RegRange& reg, unsigned depth = 0) const {
    if (depth > 8 || reg.count != 1) return {};
    std::optional<Bits> b;
    for (size_t d : reaching(line, reg, true)) {
      Bits x = d == kEntry ? entry(reg) : defined(d, reg, depth);
      b = b ? Bits::meet(*b, x) : x;
    }
    return b.value_or(Bits{});
  }

  bool exec_writes_only_narrow_or_restore() const {
    const RegRange exec{RegFile::EXEC, 0, 2};
    for (size_t i = f_.begin; i < f_.end; ++i) {
      const program::Line& l = p_.text_line(i);
      if (l.kind != program::Line::Instr || !l.inst || !l.inst->writes(exec)) continue;
      const program::Instruction& in = *l.inst;
      const std::string& m = in.mnemonic;
      if (m == "s_and_saveexec_b64" || m == "s_andn2_saveexec_b64") continue;  // exec & x
      const bool restore = m == "s_or_b64" || m == "s_mov_b64" || m == "s_xor_b64";
      const bool narrow = m == "s_and_b64" || m == "s_andn2_b64";
      if (!restore && !narrow) return false;
      // exec & x narrows; the source of a restore must hold an EXEC a saveexec saved (a subset of the
      // entry EXEC, by induction).
      if (narrow && !in.reads(exec)) return false;
      for (const program::Operand& o : in.operands) {
        if (o.is_def) continue;
        if (o.kind != program::Operand::Reg) return false;
        if (o.reg.file == RegFile::EXEC) continue;
        if (narrow) continue;
        if (o.reg.file != RegFile::SGPR || o.reg.count != 2) return false;
        for (size_t d : reaching(i, o.reg, false)) {
          if (d == kEntry) return false;
          const program::Instruction* di = p_.text_line(d).inst ? &*p_.text_line(d).inst : nullptr;
          if (!di || !(di->mnemonic == "s_and_saveexec_b64" || di->mnemonic == "s_andn2_saveexec_b64" ||
                       (di->mnemonic == "s_xor_b64" && di->reads(RegRange{RegFile::EXEC, 0, 2}))))
            return false;
        }
      }
    }
    return true;
  }

 private:
  Bits entry(const RegRange& reg) const {
    if (reg.file == RegFile::VGPR && reg.first == 0) return work_item_ids_;
    return {};
  }

  Bits operand(size_t line, const program::Operand& o, unsigned depth) const {
    if (o.kind == program::Operand::Imm) return Bits::constant(static_cast<uint64_t>(o.imm));
    if (o.kind == program::Operand::Reg && (o.reg.file == RegFile::VGPR || o.reg.file == RegFile::SGPR)) return value(line, o.reg, depth + 1);
    return {};
  }

  Bits defined(size_t d, const RegRange& reg, unsigned depth) const {
    const program::Line& l = p_.text_line(d);
    if (!l.inst) return {};
    const program::Instruction& in = *l.inst;
    std::vector<const program::Operand*> src;
    const program::Operand* dst = nullptr;
    for (const program::Operand& o : in.operands) {
      if (!o.is_def) src.push_back(&o);
      else if (!dst) dst = &o;
    }
    if (!dst || dst->kind != program::Operand::Reg || dst->reg.file != reg.file || dst->reg.first != reg.first || dst->reg.count != 1) return {};
    std::string m = in.mnemonic;
    for (const char* suffix : {"_e32", "_e64"})
      if (m.ends_with(suffix)) m.resize(m.size() - 4);
    auto arg = [&](size_t k) { return k < src.size() ? operand(d, *src[k], depth) : Bits{}; };
    auto imm = [&](size_t k) -> std::optional<uint64_t> {
      if (k < src.size() && src[k]->kind == program::Operand::Imm) return static_cast<uint64_t>(src[k]->imm) & kU32Max;
      return std::nullopt;
    };
    // Source registers or literals as the text spells them (VOP3 operand lists also hold modifier immediates).
    auto spelled = [&](size_t k) -> Bits {
      std::string rest = in.text.substr(in.mnemonic.size());
      std::replace(rest.begin(), rest.end(), ',', ' ');
      std::stringstream ss(rest);
      std::vector<std::string> tok;
      for (std::string t; ss >> t;) tok.push_back(t);
      if (k + 1 >= tok.size()) return {};
      if (auto r = program::parse_reg(tok[k + 1]); r && (r->file == RegFile::VGPR || r->file == RegFile::SGPR))
        return value(d, *r, depth + 1);
      try {
        size_t used = 0;
        const long long v = std::stoll(tok[k + 1], &used, 0);
        if (used == tok[k + 1].size()) return Bits::constant(static_cast<uint64_t>(v));
      } catch (const std::exception&) {
      }
      return {};
    };
    auto mul = [](Bits a, Bits b) -> Bits {
      const unsigned tz = std::min(32u, a.trailing_zeros() + b.trailing_zeros());  // the low zero bits of a product survive the wrap
      const bool fits = a.max == 0 || b.max <= kU32Max / a.max;
      return Bits::of(static_cast<uint32_t>((1ull << tz) - 1), fits ? a.max * b.max : kU32Max);
    };
    if (m == "v_mov_b32" || m == "s_mov_b32") return arg(0);
    if (m == "v_xor_b32" || m == "s_xor_b32" || m == "v_or_b32" || m == "s_or_b32") return either(arg(0), arg(1));
    if (m == "v_or3_b32") return either(either(arg(0), arg(1)), arg(2));
    if (m == "v_add3_u32") return add(add(arg(0), arg(1)), arg(2));
    if (m == "v_xad_u32") return add(either(arg(0), arg(1)), arg(2));  // (a ^ b) + c
    if (m == "v_lshrrev_b32" && imm(0)) {
      const unsigned sh = static_cast<unsigned>(*imm(0) & 31);
      const Bits a = arg(1);
      return Bits::of((a.zero >> sh) | ~(0xffffffffu >> sh), a.max >> sh);
    }
    if (m == "v_mul_lo_u32" || m == "s_mul_i32") return mul(arg(0), arg(1));
    if (m == "v_cndmask_b32") return Bits::meet(spelled(0), spelled(1));  // either source, per lane
    if (m == "v_lshlrev_b32" && imm(0)) return shl(arg(1), *imm(0));
    if (m == "s_lshl_b32" && imm(1)) return shl(arg(0), *imm(1));
    if (m == "v_add_u32" || m == "s_add_u32") return add(arg(0), arg(1));
    if (m == "v_and_b32" || m == "s_and_b32") {
      const Bits a = arg(0), b = arg(1);
      return Bits::of(a.zero | b.zero, std::min(a.max, b.max));
    }
    if (m == "v_bfe_u32" && imm(2)) return Bits::of(0, (1ull << (*imm(2) & 31)) - 1);  // width S2[4:0]
    if (m == "v_lshl_add_u32" && imm(1)) return add(shl(arg(0), *imm(1)), arg(2));
    if (m == "v_lshl_or_b32" && imm(1)) return either(shl(arg(0), *imm(1)), arg(2));
    if (m == "v_add_lshl_u32" && imm(2)) return shl(add(arg(0), arg(1)), *imm(2));
    return {};
  }

  const program::Program& p_;
  const program::Function& f_;
  std::vector<bool> exec_prefix_;
  Bits work_item_ids_;
};

// What the ABI says of v0 on entry (AMDGPUUsage, "Initial Kernel Execution State"): gfx90a+ pack the
// work-item ids, x in bits 0-9, y in 10-19, z in 20-29, only those compute_pgm_rsrc2.enable_vgpr_workitem_id
// enables (the others are 0; the emulator's dispatch does the same); each id is below the kernel's
// .max_flat_workgroup_size (1024 when absent), which no launch may exceed. The compilers rely on the
// same facts: Triton's code uses v0 unmasked as the x id.
Bits work_item_id_bits(const program::Program& p, const std::string& kernel) {
  uint64_t flat = 1024;
  if (const codeobj::Metadata* md = p.metadata())
    if (const codeobj::KernelMetadata* k = md->kernel(kernel); k && k->max_flat_workgroup_size)
      flat = std::min<uint64_t>(k->max_flat_workgroup_size, 1024);
  const unsigned ids = p.kernel_descriptor(kernel).workitem_id_vgprs();  // 0: x, 1: x and y, 2: x, y and z
  uint64_t max = flat - 1;
  if (ids >= 1) max = ((flat - 1) << 10) | 1023;
  if (ids >= 2) max = ((flat - 1) << 20) | ((1ull << 20) - 1);
  return Bits::of(0, max);
}

bool is_vector_alu(const program::Instruction& in) {
  return in.cls == program::InstClass::VALU || in.cls == program::InstClass::VOP3P;
}

// What the edit needs: the accesses, and the (definition, register, offset) of each hoisted address.
struct Plan {
  std::vector<Access> accesses;
  std::vector<std::tuple<size_t, unsigned, unsigned>> hoisted;
  std::vector<unsigned> slot_of;  // per access, its hoisted address
  std::vector<Bits> base_bits;    // per access, the known bits of its lowest address
};

// The plan, or why there is none (`why`).
std::optional<Plan> plan(const program::Program& p, const std::string& kernel, std::string& why) {
  const program::Function& f = kernel_function(p, kernel);
  auto refuse = [&](std::string reason) -> std::optional<Plan> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (!f.callees.empty()) return refuse("the kernel calls functions");
  if (const uint32_t lds = p.kernel_descriptor(kernel).group_segment_fixed_size; lds % 64)
    return refuse(fmt::format("the static LDS size {} is not a multiple of 64 bytes", lds));
  Plan plan;
  for (size_t i = f.begin; i < f.end; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind != program::Line::Instr) continue;
    if (!l.inst) return refuse(fmt::format("line {} is not decoded (it might access LDS)", i));
    const program::Instruction& in = *l.inst;
    const std::string& m = in.mnemonic;
    if (in.cls == program::InstClass::FLAT) return refuse(fmt::format("{} may address LDS through the flat aperture", in.text));
    if (m.find("_lds") != m.npos || in.text.find(" lds") != std::string::npos) return refuse(fmt::format("{} writes LDS by DMA", in.text));
    if (!m.starts_with("ds_")) continue;
    auto shape = ds_shape(m);
    if (!shape) return refuse(fmt::format("{}: not an LDS read or write the move rewrites", in.text));
    if (shape->bytes == 0) continue;
    auto a = parse_access(in, i, *shape);
    if (!a) return refuse(fmt::format("{}: an operand or modifier the move does not rewrite", in.text));
    plan.accesses.push_back(*a);
  }
  if (plan.accesses.empty()) return refuse("no LDS access");
  Analysis an(p, f, work_item_id_bits(p, kernel));
  if (!an.exec_writes_only_narrow_or_restore()) return refuse("an EXEC write that may enable lanes (not a saveexec narrowing or its restore)");

  // Per access: the one definition of its address register every path passes last, and the proof
  // that the access stays in one 16-byte chunk below 2^32.
  std::map<std::pair<size_t, std::pair<unsigned, unsigned>>, unsigned> slot;  // (def, (reg, offset)) -> index
  for (const Access& a : plan.accesses) {
    const std::string& text = p.text_line(a.line).inst->text;
    const RegRange r{RegFile::VGPR, a.addr, 1};
    auto defs = an.reaching(a.line, r, false);
    if (defs.size() != 1 || *defs.begin() == kEntry) return refuse(fmt::format("{}: its address has no single last definition", text));
    const size_t d = *defs.begin();
    const program::Line& dl = p.text_line(d);
    if (!dl.inst || !is_vector_alu(*dl.inst))
      return refuse(fmt::format("{}: its address comes from {}, not a VALU result", text, dl.inst ? dl.inst->text : dl.text));
    const Bits b = an.value(a.line, r);
    const uint64_t low = a.base_offset();
    if (b.max + low + a.span() > kU32Max) return refuse(fmt::format("{}: no bound keeps the address below 2^32", text));
    // A pair's second address has the first's low bits (span_swizzle_refusal requires the span to be a
    // multiple of 64), so the check of the first covers both.
    const Bits x = add(b, Bits::constant(low));
    const unsigned worst = ~x.zero & 15;  // the largest the address may be mod 16
    if (worst + a.shape.bytes > 16)
      return refuse(fmt::format("{}: the address is known {}-byte aligned only: the access may straddle 16-byte chunks", text,
                                1u << std::min(x.trailing_zeros(), 4u)));
    plan.base_bits.push_back(x);
    auto key = std::make_pair(d, std::make_pair(a.addr, static_cast<unsigned>(low)));
    auto [it, fresh] = slot.emplace(key, static_cast<unsigned>(plan.hoisted.size()));
    if (fresh) plan.hoisted.emplace_back(d, a.addr, static_cast<unsigned>(low));
    plan.slot_of.push_back(it->second);
  }
  return plan;
}

// Why π with source bits `shift`, shift + 1 cannot keep a read2/write2 one instruction ("" when it can):
// its two addresses x and x + D are rewritten through one base register, so π(x + D) must be π(x) + D for
// every lane. With D a multiple of 64 (no bit below 6, so adding it commutes with XORing bits 4-5) it is
// when x + D has x's bits shift and shift + 1: when L = D mod 2^(shift + 2) is 0 (no carry reaches them),
// or when L < 2^shift and every bit of L is known 0 in x (x + L = x | L, no carry at all). Otherwise the two
// may take different terms; no split into two single-address accesses (a split write would order two
// writes the pair issues at once, and the model's pairing of a read2's addresses in one phase is not
// sourced: what a split would gain there is not known).
std::string span_swizzle_refusal(const program::Program& p, const Plan& plan, unsigned shift) {
  for (size_t k = 0; k < plan.accesses.size(); ++k) {
    const Access& a = plan.accesses[k];
    const uint64_t span = a.span(), low_bits = span % (1ull << (shift + 2));
    const uint32_t known_zero = plan.base_bits[k].zero;
    if (span % 64 == 0 && (low_bits == 0 || (low_bits < (1ull << shift) && (known_zero & low_bits) == low_bits))) continue;
    return fmt::format("{}: its two addresses are {} bytes apart and may take different XOR terms ((address >> {}) & 3)",
                       p.text_line(a.line).inst->text, span, shift);
  }
  return "";
}

// The source bits of π's XOR term, in the order the move tries them: first those just above one pass over
// the banks (32 banks x 4 B = 128 B: bits 7-8; gfx950's 64: bits 8-9; timing/hw_params.h, S11), where
// rows of a 64-byte-stride tile that share banks differ; then the neighbouring choices. Timing decides.
std::vector<unsigned> swizzle_shifts(const program::Program& p) {
  const unsigned banks = timing::hw_params(p.original().target().arch).lds_banks;
  const unsigned above = static_cast<unsigned>(std::bit_width(banks * 4u) - 1);
  return {above, above - 1, above + 1};
}

class LdsSwizzleMove final : public Move {
 public:
  std::string name() const override { return "lds-swizzle"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Program& p = c.program;
    std::string why;
    const std::optional<Plan> pl = plan(p, c.kernel, why);
    if (!pl) return {};
    if (std::none_of(pl->accesses.begin(), pl->accesses.end(), [&](const Access& a) { return c.window.first <= a.line && a.line <= c.window.last; }))
      return {};
    const auto& accesses = pl->accesses;
    const auto& hoisted = pl->hoisted;
    const auto& slot_of = pl->slot_of;
    const program::RegisterUse use = p.register_use(c.kernel);
    const unsigned first_new = static_cast<unsigned>(use.max_vgpr + 1);
    const unsigned temp = first_new + static_cast<unsigned>(hoisted.size());
    const unsigned saved = static_cast<unsigned>((use.max_sgpr + 2) & ~1);  // an even SGPR pair above every used one

    std::vector<Edit> out;
    for (const unsigned shift : swizzle_shifts(p)) {
      if (out.size() >= c.max_edits) break;
      if (!span_swizzle_refusal(p, *pl, shift).empty()) continue;
      Edit e;
      e.kernel = c.kernel, e.move = name(), e.proposer = proposer();
      // Hoisted address computations, grouped per definition line.
      std::map<size_t, std::vector<std::string>> after;
      for (size_t k = 0; k < hoisted.size(); ++k) {
        auto [d, reg, off] = hoisted[k];
        auto& lines = after[d];
        const unsigned v = first_new + static_cast<unsigned>(k);
        lines.push_back(off ? fmt::format("v_add_u32_e32 v{}, {}, v{}", v, off, reg) : fmt::format("v_mov_b32_e32 v{}, v{}", v, reg));
        lines.push_back(fmt::format("v_lshrrev_b32_e32 v{}, {}, v{}", temp, shift - 4, v));
        lines.push_back(fmt::format("v_and_b32_e32 v{}, 0x30, v{}", temp, temp));
        lines.push_back(fmt::format("v_xor_b32_e32 v{}, v{}, v{}", v, v, temp));
      }
      for (auto& [d, lines] : after) {
        std::vector<std::string> all{p.text_line(d).inst->text, fmt::format("s_mov_b64 s[{}:{}], exec", saved, saved + 1), "s_mov_b64 exec, -1"};
        all.insert(all.end(), lines.begin(), lines.end());
        all.push_back(fmt::format("s_mov_b64 exec, s[{}:{}]", saved, saved + 1));
        e.hunks.push_back(make_hunk(p, d, d, all));
      }
      for (size_t k = 0; k < accesses.size(); ++k) {
        const Access& a = accesses[k];
        const std::string& m = p.text_line(a.line).inst->mnemonic;
        const unsigned v = first_new + slot_of[k];
        std::string offsets;  // a pair's offsets relative to its lower address, now the base
        if (a.shape.addresses == 2) {
          const unsigned low = std::min(a.offset0, a.offset1);
          if (a.offset0 != low) offsets += fmt::format(" offset0:{}", a.offset0 - low);
          if (a.offset1 != low) offsets += fmt::format(" offset1:{}", a.offset1 - low);
        }
        e.hunks.push_back(make_hunk(p, a.line, a.line,
                                    {a.write ? fmt::format("{} v{}, {}{}", m, v, a.data, offsets) : fmt::format("{} {}, v{}{}", m, a.data, v, offsets)}));
      }
      try {
        if (!rebuilds_clean(apply_edit(p, e), c.kernel)) continue;
      } catch (const Error&) {
        continue;  // more registers than the arch has
      }
      e.description = fmt::format("{} LDS accesses at address ^ ((address >> {}) & 3) << 4 (16-byte chunks permuted per 64-byte block); "
                                  "{} addresses computed once after their definitions",
                                  accesses.size(), shift, hoisted.size());
      out.push_back(std::move(e));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Move> make_lds_swizzle_move() { return std::make_unique<LdsSwizzleMove>(); }

std::string lds_swizzle_refusal(const program::Program& p, const std::string& kernel) {
  std::string why;
  const std::optional<Plan> pl = plan(p, kernel, why);
  if (!pl) return why;
  for (const unsigned shift : swizzle_shifts(p)) {
    const std::string span = span_swizzle_refusal(p, *pl, shift);
    if (span.empty()) return "";
    if (why.empty()) why = span;  // the first (bank-aware) shift's reason
  }
  return why;
}

}  // namespace asmevo::search
