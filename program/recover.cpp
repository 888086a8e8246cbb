#include "program/recover.h"

#include <llvm/BinaryFormat/ELF.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <cstring>
#include <fmt/format.h>
#include <set>

#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::program {
namespace {

using namespace asmevo::codeobj;
namespace ELF = llvm::ELF;

constexpr uint32_t kSNop0 = 0xBF800000;  // s_nop 0: the filler LLVM's assembler writes for .p2align in code

bool is_s_nop0(const Instruction& in) {
  uint32_t w = 0;
  if (in.size != 4) return false;
  std::memcpy(&w, in.bytes.data(), 4);
  return w == kSNop0;
}

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

std::string label_for(uint64_t addr) { return fmt::format(".L_{:x}", addr); }

std::string bytes_directive(std::span<const uint8_t> b) {
  std::string s = "\t.byte ";
  for (size_t i = 0; i < b.size(); ++i) s += fmt::format("{}0x{:02x}", i ? "," : "", b[i]);
  return s;
}

// Emits `data` as .byte lines of at most 16 bytes, never crossing an address in `breaks`.
void emit_bytes(std::vector<Line>& out, std::span<const uint8_t> data, uint64_t address) {
  for (size_t i = 0; i < data.size(); i += 16) {
    size_t n = std::min<size_t>(16, data.size() - i);
    out.push_back({Line::Directive, bytes_directive(data.subspan(i, n)), address + i, std::nullopt});
  }
}

std::string section_header(const ElfSection& s) {
  std::string flags;
  if (s.flags & ELF::SHF_ALLOC) flags += 'a';
  if (s.flags & ELF::SHF_WRITE) flags += 'w';
  if (s.flags & ELF::SHF_EXECINSTR) flags += 'x';
  if (s.flags & ELF::SHF_MERGE) flags += 'M';
  if (s.flags & ELF::SHF_STRINGS) flags += 'S';
  const char* type = s.type == ELF::SHT_NOBITS ? "@nobits" : s.type == ELF::SHT_NOTE ? "@note" : "@progbits";
  std::string h = fmt::format("\t.section {},\"{}\",{}", s.name, flags, type);
  if (s.flags & ELF::SHF_MERGE) h += fmt::format(",{}", s.entry_size);
  return h;
}

unsigned log2_align(uint64_t a) {
  unsigned l = 0;
  while (a > 1) a >>= 1, ++l;
  return l;
}

bool is_emitted_symbol(const ElfSymbol& s) {
  if (s.name.empty() || s.type == ELF::STT_SECTION || s.type == ELF::STT_FILE) return false;
  return true;
}

// Symbol directives placed before a symbol's label.
void emit_symbol_head(std::vector<Line>& out, const ElfSymbol& s) {
  if (s.binding == ELF::STB_GLOBAL) out.push_back({Line::Directive, "\t.globl " + s.name, s.value, {}});
  if (s.binding == ELF::STB_WEAK) out.push_back({Line::Directive, "\t.weak " + s.name, s.value, {}});
  if (s.visibility == ELF::STV_PROTECTED) out.push_back({Line::Directive, "\t.protected " + s.name, s.value, {}});
  if (s.visibility == ELF::STV_HIDDEN) out.push_back({Line::Directive, "\t.hidden " + s.name, s.value, {}});
  const char* type = s.type == ELF::STT_FUNC ? "@function" : s.type == ELF::STT_OBJECT ? "@object" : nullptr;
  if (type) out.push_back({Line::Directive, fmt::format("\t.type {},{}", s.name, type), s.value, {}});
  out.push_back({Line::Label, s.name, s.value, {}});
}

struct SymbolIndex {
  // Symbols (the .symtab copy, or .dynsym when stripped) that recovery re-creates, by address.
  std::multimap<uint64_t, const ElfSymbol*> by_address;
  std::vector<const ElfSymbol*> absolute;
};

SymbolIndex index_symbols(const CodeObject& co) {
  SymbolIndex idx;
  const auto& elf = co.elf();
  bool has_symtab = false;
  for (const auto& sec : elf.sections()) has_symtab |= sec.type == ELF::SHT_SYMTAB;
  std::set<std::string> seen;
  for (const auto& s : elf.symbols()) {
    const ElfSection& table = elf.sections()[s.table_section];
    if ((table.type == ELF::SHT_SYMTAB) != has_symtab) continue;
    if (!is_emitted_symbol(s)) continue;
    if (s.section_index == ELF::SHN_UNDEF) continue;
    if (s.section_index == ELF::SHN_ABS) {
      idx.absolute.push_back(&s);
      continue;
    }
    if (s.section_index >= elf.sections().size())
      throw Error("symbol '" + s.name + "' has section index " + std::to_string(s.section_index) + " (special sections are unsupported)",
                  elf.name(), "recovery handles symbols in regular sections and absolute symbols");
    if (is_linker_generated_section(elf.sections()[s.section_index].name)) continue;
    if (!seen.insert(s.name).second)
      throw Error("symbol name '" + s.name + "' appears twice; recovery needs unique names", elf.name(),
                  "this object links several translation units with clashing local names");
    idx.by_address.emplace(s.value, &s);
  }
  return idx;
}

}  // namespace

std::vector<Line> kernel_descriptor_lines(const std::string& kernel, const KernelDescriptor& kd, uint64_t kd_address) {
  auto raw = kd.encode();
  std::vector<Line> v;
  // The descriptor is kept as raw bytes (exact for every producer); its fields, for people:
  std::string fields = fmt::format("kernel descriptor: group_segment_fixed_size={} private_segment_fixed_size={} kernarg_size={}",
                                   kd.group_segment_fixed_size, kd.private_segment_fixed_size, kd.kernarg_size);
  v.push_back({Line::Comment, fields, kd_address, {}});
  for (const auto& f : kd_bit_fields())
    if (kd.get(f)) v.push_back({Line::Comment, fmt::format("  {} = {}", f.name, kd.get(f)), kd_address, {}});
  emit_bytes(v, std::span<const uint8_t>(raw).subspan(0, 16), kd_address);
  v.push_back({Line::Directive, fmt::format("\t.quad {}-{}.kd", kernel, kernel), kd_address + 16, {}});
  emit_bytes(v, std::span<const uint8_t>(raw).subspan(24), kd_address + 24);
  return v;
}

std::vector<Line> note_section_lines(const std::vector<ElfNote>& notes, uint64_t address) {
  std::vector<uint8_t> b;
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto pad4 = [&] {
    while (b.size() % 4) b.push_back(0);
  };
  for (const auto& n : notes) {
    put32(static_cast<uint32_t>(n.owner.size() + 1));
    put32(static_cast<uint32_t>(n.desc.size()));
    put32(n.type);
    b.insert(b.end(), n.owner.begin(), n.owner.end());
    b.push_back(0);
    pad4();
    b.insert(b.end(), n.desc.begin(), n.desc.end());
    pad4();
  }
  std::vector<Line> v;
  emit_bytes(v, b, address);
  return v;
}

bool is_linker_generated_section(const std::string& name) {
  static const std::set<std::string> kGenerated = {".dynsym", ".gnu.hash", ".hash", ".dynstr", ".dynamic",
                                                    ".relro_padding", ".rela.dyn", ".rel.dyn", ".got", ".got.plt",
                                                    ".symtab", ".strtab", ".shstrtab", ".comment", ""};
  return kGenerated.count(name) > 0;
}

ListingSection* Listing::section(const std::string& name) {
  for (auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}
const ListingSection* Listing::section(const std::string& name) const {
  for (const auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Listing::to_assembly(bool annotate) const {
  std::string o;
  o += fmt::format("// Recovered by asmevo from a {} code object (v{}). Reassemble with `asmevo rebuild`.\n", target.full(),
                   code_object_version);
  for (const auto& n : notes) o += "// note: " + n + "\n";
  for (const auto& p : preamble) o += p + "\n";
  for (const auto& s : sections) {
    o += "\n" + s.header + "\n";
    for (const auto& l : s.lines) {
      switch (l.kind) {
        case Line::Label: o += l.text + ":\n"; break;
        case Line::Comment: o += "\t// " + l.text + "\n"; break;
        case Line::Directive: o += l.text + "\n"; break;
        case Line::Instr:
        case Line::RawInstr: {
          std::string t = l.kind == Line::Instr ? "\t" + l.text : bytes_directive(l.inst->bytes);
          if (annotate) {
            std::string bytes;
            for (size_t i = 0; i + 3 < l.inst->bytes.size(); i += 4) {
              uint32_t w;
              std::memcpy(&w, l.inst->bytes.data() + i, 4);
              bytes += fmt::format(" {:08X}", w);
            }
            std::string note = l.kind == Line::RawInstr ? " " + l.inst->text + " (kept as raw bytes)" : "";
            if (t.size() < 56) t.append(56 - t.size(), ' ');
            t += fmt::format(" // {:012X}:{}{}", l.address, bytes, note);
          }
          o += t + "\n";
          break;
        }
      }
    }
  }
  return o;
}

Listing recover(const CodeObject& co, const RecoverOptions& opts) {
  const auto& elf = co.elf();
  Listing L;
  L.target = co.target();
  L.code_object_version = co.version();
  L.preamble.push_back(fmt::format("\t.amdgcn_target \"{}\"", co.target().full()));
  L.preamble.push_back(fmt::format("\t.amdhsa_code_object_version {}", co.version()));

  SymbolIndex syms = index_symbols(co);
  for (const ElfSymbol* s : syms.absolute) L.preamble.push_back(fmt::format("\t.set {}, {}", s->name, hex(s->value)));

  // Dynamic relocations: only RELATIVE64 (a pointer to somewhere in this object) is recovered.
  std::map<uint64_t, uint64_t> relative64;  // address -> target
  for (const auto& r : elf.relocations()) {
    const ElfSection& rs = elf.sections()[r.section];
    if (!(rs.flags & ELF::SHF_ALLOC)) continue;
    if (r.type != ELF::R_AMDGPU_RELATIVE64 || !r.has_addend)
      throw Error(fmt::format("dynamic relocation type {} at {} in {} is not supported by recovery", r.type, hex(r.offset), rs.name),
                  elf.name(), "only R_AMDGPU_RELATIVE64 data pointers are recovered");
    relative64[r.offset] = static_cast<uint64_t>(r.addend);
  }

  Decoder dec(co.target());
  // Decode every executable section; remember branch targets and getpc address arithmetic.
  struct CodeSection {
    const ElfSection* sec;
    std::vector<Instruction> insts;
  };
  std::vector<CodeSection> code;
  std::set<uint64_t> labels;      // addresses that need a .L label
  std::map<uint64_t, std::string> addr_expr;  // address -> symbol or label to refer to it
  for (const auto& [addr, s] : syms.by_address) addr_expr.emplace(addr, s->name);

  for (const auto& sec : elf.sections()) {
    if (!(sec.flags & ELF::SHF_EXECINSTR) || !sec.has_file_data()) continue;
    CodeSection cs{&sec, {}};
    auto bytes = elf.section_bytes(sec);
    uint64_t pos = 0;
    while (pos < bytes.size()) {
      try {
        cs.insts.push_back(dec.decode_one(bytes.subspan(pos), sec.address + pos));
      } catch (const Error&) {
        // Bytes that do not decode are kept raw, 4 at a time (only legal outside functions).
        Instruction raw;
        raw.address = sec.address + pos;
        raw.size = static_cast<uint32_t>(std::min<uint64_t>(4, bytes.size() - pos));
        raw.bytes.assign(bytes.begin() + pos, bytes.begin() + pos + raw.size);
        raw.mnemonic = "<data>";
        raw.text = "<undecodable>";
        cs.insts.push_back(std::move(raw));
      }
      pos += cs.insts.back().size;
    }
    for (const auto& i : cs.insts)
      if (i.branch_target) labels.insert(static_cast<uint64_t>(*i.branch_target));
    code.push_back(std::move(cs));
  }

  // s_getpc_b64 sX + s_add_u32 sX, sX, lit + s_addc_u32 sX+1, sX+1, lit: an address computation.
  struct PcFixup {
    size_t add_index, addc_index;
    uint64_t base, target;
  };
  std::map<const CodeSection*, std::vector<PcFixup>> fixups;
  for (const auto& cs : code) {
    for (size_t i = 0; i < cs.insts.size(); ++i) {
      const auto& g = cs.insts[i];
      if (g.mnemonic != "s_getpc_b64" || g.defs.empty()) continue;
      const RegRange pair = g.defs[0];
      std::optional<size_t> add, addc;
      for (size_t k = i + 1; k < cs.insts.size() && k < i + 16; ++k) {
        const auto& in = cs.insts[k];
        bool is_add = in.mnemonic == "s_add_u32" && in.size == 8 && in.operands.size() == 3 &&
                      in.operands[0].kind == Operand::Reg && in.operands[0].reg == RegRange{RegFile::SGPR, pair.first, 1};
        bool is_addc = in.mnemonic == "s_addc_u32" && in.size == 8 && in.operands.size() == 3 &&
                       in.operands[0].kind == Operand::Reg && in.operands[0].reg == RegRange{RegFile::SGPR, pair.first + 1, 1};
        if (is_add && !add) { add = k; continue; }
        if (is_addc && add && !addc) { addc = k; break; }
        if (in.writes(pair) || in.is_branch || in.is_terminator) break;
      }
      if (!add || !addc) continue;
      uint32_t lo, hi;
      std::memcpy(&lo, cs.insts[*add].bytes.data() + 4, 4);
      std::memcpy(&hi, cs.insts[*addc].bytes.data() + 4, 4);
      uint64_t base = g.address + 4;
      uint64_t target = base + ((uint64_t(hi) << 32) | lo);
      if (!elf.section_at_address(target)) {
        L.notes.push_back(fmt::format("s_getpc_b64 at {} computes {}, outside every section: left as constants", hex(g.address), hex(target)));
        continue;
      }
      fixups[&cs].push_back({*add, *addc, base, target});
      if (!addr_expr.count(target)) labels.insert(target);
    }
  }
  for (uint64_t a : labels)
    if (!addr_expr.count(a)) addr_expr[a] = label_for(a);
  for (const auto& [addr, target] : relative64)
    if (!addr_expr.count(target)) {
      labels.insert(target);
      addr_expr[target] = label_for(target);
    }

  // Emit every allocated section (in address order) and non-allocated ones with content.
  std::vector<const ElfSection*> order;
  for (const auto& s : elf.sections())
    if (!is_linker_generated_section(s.name) && s.type != ELF::SHT_SYMTAB && s.type != ELF::SHT_STRTAB &&
        s.type != ELF::SHT_RELA && s.type != ELF::SHT_REL && s.type != ELF::SHT_NULL)
      order.push_back(&s);
  // Allocated sections by address, then the others in file order.
  std::sort(order.begin(), order.end(), [](const ElfSection* a, const ElfSection* b) {
    bool aa = a->flags & ELF::SHF_ALLOC, ba = b->flags & ELF::SHF_ALLOC;
    if (aa != ba) return aa;
    if (aa && a->address != b->address) return a->address < b->address;
    return a->index < b->index;
  });

  std::map<uint64_t, const Kernel*> kds;
  for (const auto& k : co.kernels()) kds[k.kd_address] = &k;

  for (const ElfSection* sec : order) {
    ListingSection out;
    out.name = sec->name;
    out.header = section_header(*sec);
    out.address = sec->address;
    out.size = sec->size;
    out.executable = sec->flags & ELF::SHF_EXECINSTR;
    auto& lines = out.lines;
    if (sec->alignment > 1) lines.push_back({Line::Directive, fmt::format("\t.p2align {}", log2_align(sec->alignment)), sec->address, {}});
    bool alloc = sec->flags & ELF::SHF_ALLOC;
    uint64_t start = sec->address, end = sec->address + sec->size;

    auto symbols_at = [&](uint64_t a) {
      std::vector<const ElfSymbol*> v;
      if (!alloc) return v;
      auto [lo, hi] = syms.by_address.equal_range(a);
      for (auto it = lo; it != hi; ++it)
        if (it->second->section_index == sec->index) v.push_back(it->second);
      return v;
    };
    // Symbol sizes close with end labels.
    std::multimap<uint64_t, const ElfSymbol*> ends;
    auto open_symbols_at = [&](uint64_t a) {
      for (const ElfSymbol* s : symbols_at(a)) {
        emit_symbol_head(lines, *s);
        if (s->size) ends.emplace(a + s->size, s);
      }
      if (labels.count(a) && addr_expr[a] == label_for(a)) lines.push_back({Line::Label, label_for(a), a, {}});
    };
    auto close_symbols_at = [&](uint64_t a) {
      auto [lo, hi] = ends.equal_range(a);
      for (auto it = lo; it != hi; ++it) {
        std::string end_label = ".Lend_" + it->second->name;
        lines.push_back({Line::Label, end_label, a, {}});
        lines.push_back({Line::Directive, fmt::format("\t.size {}, {}-{}", it->second->name, end_label, it->second->name), a, {}});
      }
      ends.erase(lo, hi);
    };

    if (out.executable && sec->has_file_data()) {
      CodeSection* cs = nullptr;
      for (auto& c : code)
        if (c.sec == sec) cs = &c;
      std::map<size_t, std::string> rewritten;
      for (const auto& f : fixups[cs]) {
        const std::string& sym = addr_expr[f.target];
        const auto& add = cs->insts[f.add_index];
        const auto& addc = cs->insts[f.addc_index];
        int64_t a1 = int64_t(add.address + 4 - f.base), a2 = int64_t(addc.address + 4 - f.base);
        rewritten[f.add_index] = fmt::format("s_add_u32 {}, {}, {}@rel32@lo+{}", add.operands[0].text, add.operands[1].text, sym, a1);
        rewritten[f.addc_index] = fmt::format("s_addc_u32 {}, {}, {}@rel32@hi+{}", addc.operands[0].text, addc.operands[1].text, sym, a2);
        L.pc_relative.push_back({cs->insts[f.add_index].address, f.target, sym});
      }
      // Function starts, for alignment: a run of s_nop 0 before a 256-aligned function that
      // merely pads to it becomes `.p2align 8`, which the assembler fills the same way.
      std::set<uint64_t> function_starts;
      // Bytes outside every function's [start, start + size) are not code anyone runs: clang pads
      // between HIP kernels with zero words, which decode as `v_cndmask_b32 v0, s0, v0, vcc`, an
      // instruction the assembler rightly rejects (two constant-bus reads). Such words are kept as
      // raw bytes; the fillers the assembler itself writes (s_nop 0, s_code_end) stay instructions.
      // Only where every function has a size: otherwise nothing is known to lie outside.
      // covered_until: start -> the furthest end of any function starting at or before it (the
      // symbols come in address order), so one lookup answers "does a function cover this word".
      std::map<uint64_t, uint64_t> covered_until;
      bool all_sized = true;
      for (const auto& [a, s] : syms.by_address)
        if (s->section_index == sec->index && s->type == ELF::STT_FUNC) {
          function_starts.insert(a);
          all_sized &= s->size > 0;
          const uint64_t end = std::max(a + s->size, covered_until.empty() ? 0 : covered_until.rbegin()->second);
          covered_until[a] = std::max(covered_until[a], end);
        }
      auto outside_functions = [&](const Instruction& in) {
        if (!all_sized || covered_until.empty() || labels.count(in.address)) return false;
        auto it = covered_until.upper_bound(in.address + in.size - 1);  // first function starting after the word
        return it == covered_until.begin() || std::prev(it)->second <= in.address;
      };
      size_t i = 0;
      while (i < cs->insts.size()) {
        const auto& in = cs->insts[i];
        // Padding run?
        if (symbols_at(in.address).empty() && !labels.count(in.address) && is_s_nop0(in)) {
          size_t j = i;
          // The run may start where a function ends (its end label comes first), not inside one.
          while (j < cs->insts.size() && is_s_nop0(cs->insts[j]) && symbols_at(cs->insts[j].address).empty() &&
                 !labels.count(cs->insts[j].address) && (j == i || !ends.count(cs->insts[j].address)))
            ++j;
          uint64_t next = j < cs->insts.size() ? cs->insts[j].address : end;
          // Also padding: unreachable s_nop 0 after an unconditional branch up to a 256-byte boundary
          // (the kernarg-preload prologue pads to entry + 256, where preloading firmware starts).
          const bool after_jump = i > 0 && cs->insts[i - 1].no_fallthrough && cs->insts[i - 1].is_branch;
          if ((function_starts.count(next) || (after_jump && labels.count(next))) && next % 256 == 0 && next - in.address < 256) {
            close_symbols_at(in.address);
            lines.push_back({Line::Directive, "\t.p2align 8", in.address, {}});
            i = j;
            continue;
          }
        }
        // A 256-aligned function that needs no padding gets its `.p2align 8` too (it emits nothing
        // here), so that an edit which grows the code before it keeps the entry aligned. Only in
        // sections aligned to 256 already, where the directive cannot change the section header.
        if (i > 0 && sec->alignment >= 256 && function_starts.count(in.address) && in.address % 256 == 0 &&
            !(lines.back().kind == Line::Directive && lines.back().text == "\t.p2align 8")) {
          close_symbols_at(in.address);
          lines.push_back({Line::Directive, "\t.p2align 8", in.address, {}});
        }
        close_symbols_at(in.address);
        open_symbols_at(in.address);
        Line l;
        l.address = in.address;
        if (in.mnemonic == "<data>") {
          l.kind = Line::RawInstr;
        } else if (opts.raw_addresses.count(in.address)) {
          l.kind = Line::RawInstr;
        } else if (outside_functions(in) && !is_s_nop0(in) && in.mnemonic != "s_code_end") {
          l.kind = Line::RawInstr;
        } else if (auto it = rewritten.find(i); it != rewritten.end()) {
          l.kind = Line::Instr;
          l.text = it->second;
        } else if (in.branch_target) {
          // Replace the PC-relative immediate (the last operand) with the target's label.
          l.kind = Line::Instr;
          auto pos = in.text.find_last_of(" ,");
          l.text = in.text.substr(0, pos + 1) + addr_expr[static_cast<uint64_t>(*in.branch_target)];
        } else {
          l.kind = Line::Instr;
          l.text = in.text;
        }
        if (l.kind == Line::RawInstr && in.branch_target)
          throw Error(fmt::format("branch at {} ({}) does not re-encode from its text", hex(in.address), in.text), elf.name(),
                      "report this instruction; recovery cannot keep a branch as raw bytes");
        l.inst = std::move(cs->insts[i]);  // the decoded code is not needed after this line
        lines.push_back(std::move(l));
        ++i;
      }
      close_symbols_at(end);
      if (labels.count(end)) lines.push_back({Line::Label, label_for(end), end, {}});
    } else if (sec->type == ELF::SHT_NOBITS) {
      // Zero-filled: labels and symbols, with .zero between them.
      std::set<uint64_t> marks = {start, end};
      for (const auto& [a, s] : syms.by_address)
        if (s->section_index == sec->index) marks.insert(a), marks.insert(a + s->size);
      for (uint64_t a : labels)
        if (a >= start && a < end) marks.insert(a);
      uint64_t prev = start;
      for (uint64_t m : marks) {
        if (m < start || m > end) continue;
        if (m > prev) lines.push_back({Line::Directive, fmt::format("\t.zero {}", m - prev), prev, {}});
        close_symbols_at(m);
        if (m < end) open_symbols_at(m);
        prev = m;
      }
    } else {
      // Data: bytes, with symbols, labels, kernel descriptors and pointers made symbolic.
      auto bytes = elf.section_bytes(*sec);
      std::set<uint64_t> marks = {start, end};
      if (alloc) {
        for (const auto& [a, s] : syms.by_address)
          if (s->section_index == sec->index) marks.insert(a), marks.insert(a + s->size);
        for (uint64_t a : labels)
          if (a >= start && a < end) marks.insert(a);
        for (const auto& [a, k] : kds)
          if (a >= start && a < end) marks.insert(a), marks.insert(a + KernelDescriptor::kSize);
        for (const auto& [a, t] : relative64)
          if (a >= start && a < end) marks.insert(a), marks.insert(a + 8);
      }
      uint64_t prev = start;
      for (uint64_t m : marks) {
        if (m < start || m > end) continue;
        if (m > prev) {
          uint64_t from = prev;
          // A kernel descriptor's code entry offset, or a recovered pointer.
          auto kd_here = kds.find(from);
          if (kd_here != kds.end() && m == from + KernelDescriptor::kSize) {
            const Kernel* k = kd_here->second;
            for (auto& l : kernel_descriptor_lines(k->name, k->kd, k->kd_address)) lines.push_back(std::move(l));
          } else if (relative64.count(from) && m == from + 8) {
            lines.push_back({Line::Directive, "\t.quad " + addr_expr[relative64[from]], from, {}});
          } else {
            emit_bytes(lines, bytes.subspan(from - start, m - from), from);
          }
        }
        close_symbols_at(m);
        if (m < end) open_symbols_at(m);
        prev = m;
      }
    }
    if (!ends.empty())
      throw Error("symbol '" + ends.begin()->second->name + "' extends past the end of section " + sec->name, elf.name(),
                  "the symbol table is inconsistent");
    L.sections.push_back(std::move(out));
  }
  return L;
}

}  // namespace asmevo::program
