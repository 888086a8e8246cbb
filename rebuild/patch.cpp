#include "rebuild/patch.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "codeobj/code_object.h"
#include "program/decoder.h"
#include "rebuild/assembler.h"
#include "support/error.h"

namespace asmevo::rebuild {
namespace {

using codeobj::CodeObject;
using codeobj::Kernel;
using program::Instruction;
using program::RegFile;


std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }
std::string rel(uint64_t v) { return fmt::format("+0x{:x}", v); }

// An instruction as LLVM prints it, plus its kernel-relative target for direct branches
// ("s_cbranch_execz 15 (-> +0x98)": the printed operand is the raw simm16).
std::string describe(const Instruction& i, uint64_t kernel_start) {
  if (!i.branch_target) return i.text;
  int64_t t = *i.branch_target - static_cast<int64_t>(kernel_start);
  return t >= 0 ? fmt::format("{} (-> +0x{:x})", i.text, t) : fmt::format("{} (-> -0x{:x})", i.text, -t);
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// One replacement statement, as the user wrote it.
struct Statement {
  std::string text;
};

std::vector<Statement> split_statements(const std::string& text) {
  std::vector<Statement> out;
  std::string current;
  auto flush = [&] {
    std::string t = trim(current);
    current.clear();
    if (!t.empty()) out.push_back({t});
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {  // comment to end of line
      while (i < text.size() && text[i] != '\n') ++i;
      flush();
      continue;
    }
    if (c == ';' || c == '\n') {
      flush();
      continue;
    }
    current += c;
  }
  flush();
  return out;
}

// Replaces each `@OFFSET` operand (kernel-relative branch target) of a statement that will sit
// at kernel offset `pos` with the simm16 a 4-byte SOPP/SOPK branch needs: (OFFSET - pos - 4) / 4.
// The encoded instruction is decoded afterwards and its target checked, so a different encoding
// size cannot slip through. Returns the rewritten text; `targets` receives the offsets.
std::string resolve_targets(const std::string& t, uint64_t pos, std::vector<uint64_t>& targets,
                            const std::string& where) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    bool operand_start = i == 0 || t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == ',';
    if (t[i] == '@' && operand_start && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]))) {
      size_t j = i + 1;
      while (j < t.size() && (std::isxdigit(static_cast<unsigned char>(t[j])) || t[j] == 'x' || t[j] == 'X')) ++j;
      uint64_t off = parse_number(t.substr(i + 1, j - i - 1), where + ": branch target");
      int64_t delta = static_cast<int64_t>(off) - static_cast<int64_t>(pos) - 4;
      if (delta % 4 != 0)
        throw Error(fmt::format("branch target @0x{:x} is not a multiple of 4 bytes away from the branch", off), where,
                    "branch to an instruction boundary");
      int64_t simm = delta / 4;
      if (simm < -32768 || simm > 32767)
        throw Error(fmt::format("branch target @0x{:x} is out of a 16-bit branch's range", off), where,
                    "use a full rebuild");
      out += std::to_string(simm);
      targets.push_back(off);
      i = j - 1;
    } else {
      out += t[i];
    }
  }
  return out;
}

// Bytes an AMDGPU relocation writes (llvm/BinaryFormat/ELFRelocs/AMDGPU.def): R_AMDGPU_ABS64 (3),
// REL64 (5) and RELATIVE64 (13) write 8, REL16 (14) writes 2, the others 4.
uint64_t relocation_size(uint32_t type) {
  switch (type) {
    case 3: case 5: case 13: return 8;
    case 14: return 2;
    default: return 4;
  }
}

struct Usage {
  int max_vgpr = -1, max_agpr = -1, max_sgpr = -1;
  bool vcc = false, flat_scratch = false;
  void add(const program::RegRange& r) {
    if (!r.count) return;
    int last = static_cast<int>(r.first + r.count) - 1;
    switch (r.file) {
      case RegFile::VGPR: max_vgpr = std::max(max_vgpr, last); break;
      case RegFile::AGPR: max_agpr = std::max(max_agpr, last); break;
      case RegFile::SGPR: max_sgpr = std::max(max_sgpr, last); break;
      case RegFile::VCC: vcc = true; break;
      case RegFile::FlatScratch: flat_scratch = true; break;
      default: break;
    }
  }
};

Usage usage_of(const std::vector<Instruction>& insts) {
  Usage u;
  for (const auto& i : insts) {
    for (const auto& r : i.defs) u.add(r);
    for (const auto& r : i.uses) u.add(r);
  }
  return u;
}

// Registers the hardware allocates for a kernel, from its KD (gfx90a/gfx942/gfx950).
struct Allocation {
  unsigned vgprs = 0;         // unified VGPR+AGPR file per lane
  unsigned accum_offset = 0;  // first AGPR's position in the unified file
  unsigned sgprs = 0;         // (granulated_wavefront_sgpr_count + 1) * 8, including VCC etc.
};

// SGPRs LLVM adds above the highest one used for VCC, FLAT_SCRATCH and XNACK_MASK
// (AMDGPU::IsaInfo::getNumExtraSGPRs for gfx9: 6 whenever flat scratch is used or architected,
// as on gfx942/gfx950; else 4 with XNACK on or any; else 2 if VCC is used).
unsigned extra_sgprs(const codeobj::TargetId& t, const codeobj::KernelDescriptor& kd, const Usage& u) {
  bool architected_flat_scratch = t.arch == codeobj::Arch::gfx942 || t.arch == codeobj::Arch::gfx950;
  bool flat = u.flat_scratch || kd.get("kernel_code_properties.enable_sgpr_flat_scratch_init") != 0;
  if (architected_flat_scratch || flat) return 6;
  if (t.xnack == codeobj::FeatureSetting::On || t.xnack == codeobj::FeatureSetting::Any) return 4;
  return u.vcc ? 2 : 0;
}

struct Needs {
  unsigned vgprs = 0, agprs = 0, sgprs = 0;  // counts (highest index + 1), SGPRs with extras
  bool uses_agprs = false;
};

Needs needs_of(const codeobj::TargetId& t, const codeobj::KernelDescriptor& kd, const Usage& u) {
  Needs n;
  n.vgprs = static_cast<unsigned>(u.max_vgpr + 1);
  n.agprs = static_cast<unsigned>(u.max_agpr + 1);
  n.uses_agprs = u.max_agpr >= 0;
  n.sgprs = static_cast<unsigned>(u.max_sgpr + 1) + extra_sgprs(t, kd, u);
  return n;
}

class Patcher {
 public:
  Patcher(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& kernel)
      : name_(name), co_(CodeObject::parse(bytes, name)), original_(bytes) {
    const Kernel* k = co_.kernel(kernel);
    if (!k) {
      std::string known;
      for (const auto& kk : co_.kernels()) known += (known.empty() ? "" : ", ") + kk.name;
      throw Error("no kernel named '" + kernel + "' (kernels: " + (known.empty() ? "none" : known) + ")", name,
                  "pass one of the kernel names with --kernel");
    }
    kernel_ = *k;
    where_ = name + ": kernel " + kernel;
    if (!codeobj::arch_params(co_.target().arch))
      throw Error("patch supports gfx90a, gfx942 and gfx950, not " + co_.target().str(), where_,
                  "use a code object for a modeled processor");
    decoder_.emplace(co_.target());
    alloc_.vgprs = (kernel_.kd.vgpr_blocks() + 1) * 8;
    alloc_.accum_offset = std::min((kernel_.kd.accum_offset_field() + 1) * 4, alloc_.vgprs);
    alloc_.sgprs = (kernel_.kd.sgpr_blocks() + 1) * 8;
    nop_ = encode_instruction("s_nop 0", co_.target());
    auto off = co_.elf().file_offset_of_address(kernel_.code_address);
    if (!off) throw Error("kernel code has no file data", where_, "the object is malformed");
    code_file_offset_ = *off;
    insts_ = decode();
    original_needs_ = needs_of(co_.target(), kernel_.kd, usage_of(insts_));
  }

  void apply(const PatchEdit& e, PatchResult& result);

  std::vector<uint8_t> finish(PatchResult& result) {
    std::vector<uint8_t> out = co_.write();
    // Self-check: nothing outside the recorded ranges changed, and the output still parses.
    if (out.size() != original_.size())
      throw Error("patched image changed size", where_, "please report this", kExitInternal);
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == original_[i]) continue;
      bool inside = std::any_of(result.ranges.begin(), result.ranges.end(), [&](const PatchedRange& r) {
        return i >= r.file_offset && i < r.file_offset + r.new_bytes.size();
      });
      if (!inside)
        throw Error("patch changed byte " + hex(i) + " outside the patched ranges", where_, "please report this",
                    kExitInternal);
    }
    (void)CodeObject::parse(out, name_ + " (patched)");
    return out;
  }

 private:
  std::vector<Instruction> decode() const {
    auto code = co_.code_bytes(kernel_);
    try {
      return decoder_->decode_range(code, kernel_.code_address);
    } catch (const Error& e) {
      throw Error("cannot decode the kernel's code, so it cannot be patched safely: " + e.what_text(),
                  where_ + (e.where().empty() ? "" : " (" + e.where() + ")"), "use a full rebuild");
    }
  }
  uint64_t start() const { return kernel_.code_address; }
  uint64_t end() const { return kernel_.code_address + kernel_.code_size; }

  // Branch targets (and symbol addresses) inside the kernel: address -> who refers to it.
  std::map<uint64_t, std::string> targets() const {
    std::map<uint64_t, std::string> t;
    for (const auto& i : insts_)
      if (i.branch_target && static_cast<uint64_t>(*i.branch_target) >= start() &&
          static_cast<uint64_t>(*i.branch_target) < end())
        t.emplace(static_cast<uint64_t>(*i.branch_target),
                  "target of '" + describe(i, start()) + "' at " + rel(i.address - start()));
    for (const auto& s : co_.elf().symbols())
      if (s.section_index != 0 && s.value > start() && s.value < end() && !s.name.empty())
        t.emplace(s.value, "address of symbol '" + s.name + "'");
    return t;
  }

  // Instructions whose bytes PC-relative code depends on: s_getpc_b64 and the s_add_u32 /
  // s_addc_u32 that add a constant offset to its result; and bytes that relocations patch.
  std::map<uint64_t, std::string> pc_relative() const {
    std::map<uint64_t, std::string> p;
    for (size_t i = 0; i < insts_.size(); ++i) {
      const Instruction& g = insts_[i];
      if (g.mnemonic != "s_getpc_b64" || g.defs.empty() || g.defs[0].file != RegFile::SGPR) continue;
      unsigned lo = g.defs[0].first, hi = lo + 1;
      const std::string why = "s_getpc_b64 at " + rel(g.address - start());
      p.emplace(g.address, why + " (its result is the PC that constant offsets after it are relative to)");
      bool lo_done = false, hi_done = false;
      for (size_t j = i + 1; j < insts_.size() && j <= i + 16 && !(lo_done && hi_done); ++j) {
        const Instruction& x = insts_[j];
        bool w_lo = x.writes({RegFile::SGPR, lo, 1}), w_hi = x.writes({RegFile::SGPR, hi, 1});
        if (!w_lo && !w_hi) continue;
        if (!lo_done && w_lo && x.mnemonic == "s_add_u32" && x.reads({RegFile::SGPR, lo, 1})) {
          p.emplace(x.address, "'" + x.text + "' adds a PC-relative offset to the result of " + why);
          lo_done = true;
        } else if (!hi_done && w_hi && x.mnemonic == "s_addc_u32" && x.reads({RegFile::SGPR, hi, 1})) {
          p.emplace(x.address, "'" + x.text + "' adds a PC-relative offset to the result of " + why);
          hi_done = true;
        } else {
          break;  // the PC value is overwritten or used otherwise: the sequence ends
        }
      }
    }
    // Relocations (dynamic ones, e.g. text relocations linked with -z notext): in a shared object
    // r_offset is a virtual address. Every instruction overlapping the relocated bytes is protected.
    for (const auto& r : co_.elf().relocations()) {
      uint64_t size = relocation_size(r.type);
      for (const auto& i : insts_)
        if (r.offset < i.address + i.size && i.address < r.offset + size)
          p.emplace(i.address, fmt::format("a relocation (type {}) at {} applies to the bytes of '{}'", r.type,
                                           rel(r.offset - start()), i.text));
    }
    return p;
  }

  std::string name_;
  CodeObject co_;
  const std::vector<uint8_t>& original_;
  Kernel kernel_;
  std::string where_;
  std::optional<program::Decoder> decoder_;
  Allocation alloc_;
  std::vector<uint8_t> nop_;
  uint64_t code_file_offset_ = 0;
  std::vector<Instruction> insts_;
  Needs original_needs_;
};

void Patcher::apply(const PatchEdit& e, PatchResult& result) {
  const std::string ew = where_ + ": " + (e.where.empty() ? std::string("edit") : e.where);
  // 1. Where: an instruction boundary inside the kernel.
  uint64_t addr = e.absolute ? e.at : start() + e.at;
  if (addr < start() || addr >= end() || (!e.absolute && e.at >= kernel_.code_size))
    throw Error(fmt::format("{} {} is outside the kernel's code ({} .. {}, {} bytes at {})",
                            e.absolute ? "address" : "offset", e.absolute ? hex(e.at) : rel(e.at), rel(0),
                            rel(kernel_.code_size), kernel_.code_size, hex(start())),
                ew, "give an offset relative to the kernel's code start (or --absolute with an address)");
  auto it = std::find_if(insts_.begin(), insts_.end(), [&](const Instruction& i) { return i.address == addr; });
  if (it == insts_.end()) {
    auto after = std::upper_bound(insts_.begin(), insts_.end(), addr,
                                  [](uint64_t a, const Instruction& i) { return a < i.address; });
    const Instruction& inside = *(after - 1);
    throw Error(fmt::format("offset {} is not on an instruction boundary: it is inside '{}' ({} .. {})",
                            rel(addr - start()), inside.text, rel(inside.address - start()),
                            rel(inside.address + inside.size - start())),
                ew, fmt::format("use {} or {}", rel(inside.address - start()), rel(inside.address + inside.size - start())));
  }
  size_t first = static_cast<size_t>(it - insts_.begin());
  unsigned count = e.delete_count ? *e.delete_count : e.replace;
  if (count == 0) throw Error("an edit must replace at least one instruction", ew, "use replace: 1 or more");
  if (first + count > insts_.size())
    throw Error(fmt::format("the edit replaces {} instructions but only {} remain in the kernel from {}", count,
                            insts_.size() - first, rel(addr - start())),
                ew, "replace fewer instructions");
  uint64_t range_size = 0;
  PatchedRange pr;
  pr.address = addr;
  pr.offset = addr - start();
  pr.file_offset = code_file_offset_ + (addr - start());
  for (size_t i = first; i < first + count; ++i) {
    range_size += insts_[i].size;
    pr.old_bytes.insert(pr.old_bytes.end(), insts_[i].bytes.begin(), insts_[i].bytes.end());
    pr.old_text.push_back(describe(insts_[i], start()));
  }
  const uint64_t range_end = addr + range_size;

  // 2. PC-relative code and relocations.
  auto pcrel = pc_relative();
  for (size_t i = first; i < first + count; ++i) {
    auto p = pcrel.find(insts_[i].address);
    if (p != pcrel.end())
      throw Error("the edit touches PC-relative code at " + rel(insts_[i].address - start()) + ": " + p->second +
                      "; changing it would break the address it computes",
                  ew, "leave the s_getpc_b64 sequence alone, or use a full rebuild that re-resolves symbols");
  }

  // 3. Encode the replacement, one statement (one instruction) at a time, at its final address.
  std::vector<uint8_t> replacement;
  std::vector<Instruction> new_insts;
  std::vector<std::pair<uint64_t, std::string>> new_targets;  // absolute target, the branch's text
  if (!e.delete_count) {
    auto statements = split_statements(e.asm_text);
    if (statements.empty()) throw Error("the replacement text has no instructions", ew, "give --asm TEXT or use delete");
    for (size_t si = 0; si < statements.size(); ++si) {
      const Statement& st = statements[si];
      const std::string sw = ew + ": statement " + std::to_string(si + 1) + " '" + st.text + "'";
      if (st.text[0] == '.' || st.text.back() == ':')
        throw Error("directives and labels are not allowed in a patch, only instructions", sw,
                    "write instructions only; branch targets are @OFFSET");
      uint64_t pos = addr + replacement.size();
      std::vector<uint64_t> targets;
      std::string resolved = resolve_targets(st.text, pos - start(), targets, sw);
      std::vector<uint8_t> bytes;
      try {
        bytes = encode_instruction(resolved, co_.target());
      } catch (const Error& err) {
        throw Error(err.what_text(), sw, "write one LLVM 22 AMDGPU instruction per statement (no symbol operands)",
                    err.exit_code());
      }
      std::vector<Instruction> decoded;
      try {
        decoded = decoder_->decode_range(bytes, pos);
      } catch (const Error& err) {
        throw Error("the encoded bytes do not decode back: " + err.what_text(), sw, "", kExitInternal);
      }
      if (decoded.size() != 1)
        throw Error(fmt::format("the statement encodes to {} instructions, not one", decoded.size()), sw,
                    "write one instruction per statement");
      const Instruction& ni = decoded[0];
      if (ni.is_branch || ni.is_call) {
        if (!ni.branch_target)
          throw Error("indirect branches and calls ('" + ni.mnemonic + "') are not allowed in a patch: their target "
                      "cannot be checked", sw, "use a full rebuild");
        if (targets.size() != 1)
          throw Error("branch target must be given explicitly as @OFFSET (relative to the kernel's code start), "
                      "e.g. '" + ni.mnemonic + " @0x40'", sw, "write the target as @OFFSET");
        if (static_cast<uint64_t>(*ni.branch_target) != start() + targets[0])
          throw Error(fmt::format("internal: the encoded branch targets {}, not @0x{:x}", hex(*ni.branch_target),
                                  targets[0]), sw, "", kExitInternal);
        new_targets.emplace_back(static_cast<uint64_t>(*ni.branch_target), describe(ni, start()));
      } else if (!targets.empty()) {
        throw Error("@OFFSET is only for the targets of direct branches and calls", sw, "write the operand as a number");
      }
      replacement.insert(replacement.end(), bytes.begin(), bytes.end());
      new_insts.push_back(ni);
    }
    if (replacement.size() > range_size) {
      std::string replaced;
      for (const auto& t : pr.old_text) replaced += (replaced.empty() ? "'" : ", '") + t + "'";
      throw Error(fmt::format("too large: the replacement is {} bytes, but the {} instruction(s) it replaces at {} "
                              "are {} bytes ({})", replacement.size(), count, rel(addr - start()), range_size, replaced),
                  ew, "replace more whole instructions (--replace N / replace: N), shorten the replacement (e.g. "
                      "_e32 encodings), or use a full rebuild");
    }
  }
  // 4. Pad with s_nop 0.
  if ((range_size - replacement.size()) % nop_.size() != 0)
    throw Error("internal: padding is not a multiple of s_nop's size", ew, "", kExitInternal);
  while (replacement.size() < range_size) {
    uint64_t pos = addr + replacement.size();
    new_insts.push_back(decoder_->decode_one(nop_, pos));
    replacement.insert(replacement.end(), nop_.begin(), nop_.end());
  }

  // 5. Instruction boundaries: no branch target or symbol inside the range may disappear, and new
  //    branches must land on a boundary of the patched kernel.
  std::set<uint64_t> boundaries;
  for (const auto& i : insts_)
    if (i.address < addr || i.address >= range_end) boundaries.insert(i.address);
  for (const auto& i : new_insts) boundaries.insert(i.address);
  boundaries.insert(end());
  for (const auto& [t, why] : targets()) {
    if (t <= addr || t >= range_end) continue;
    if (!boundaries.count(t))
      throw Error(fmt::format("the edit crosses a branch target: {} ({}) would no longer start an instruction",
                              rel(t - start()), why),
                  ew, "patch fewer bytes so that the target keeps its instruction boundary, or use a full rebuild");
  }
  for (const auto& [t, text] : new_targets) {
    if (t < start() || t >= end() || !boundaries.count(t))
      throw Error(fmt::format("the new branch '{}' targets {}, which is not an instruction boundary of the "
                              "kernel (code {} .. {})",
                              text, t >= start() ? rel(t - start()) : hex(t), rel(0), rel(kernel_.code_size)),
                  ew, "branch to an instruction start inside the kernel");
  }

  // 6. Write, decode the patched kernel again and check its registers against the KD.
  co_.elf().overwrite(pr.file_offset, replacement, "patch of kernel " + kernel_.name);
  insts_ = decode();
  pr.new_bytes = replacement;
  for (const auto& i : new_insts) pr.new_text.push_back(describe(i, start()));

  const auto& t = co_.target();
  Needs n = needs_of(t, kernel_.kd, usage_of(insts_));
  const Needs& o = original_needs_;
  unsigned vgpr_limit = n.uses_agprs ? alloc_.accum_offset : alloc_.vgprs;
  unsigned agpr_limit = alloc_.vgprs - alloc_.accum_offset;
  auto refuse = [&](unsigned need, unsigned have, const char* what, const std::string& detail) {
    throw Error(fmt::format("patch needs {} {}, the kernel descriptor allocates {}{}; use a full rebuild", need, what,
                            have, detail),
                ew, "use registers the kernel already allocates, or a full rebuild that updates the KD");
  };
  // The original code is valid by definition, so what it already uses is never refused.
  if (n.vgprs > vgpr_limit && n.vgprs > o.vgprs)
    refuse(n.vgprs, vgpr_limit, "VGPRs",
           n.uses_agprs ? fmt::format(" (v0..v{} below accum_offset {})", vgpr_limit - 1, alloc_.accum_offset) : "");
  if (n.agprs > agpr_limit && n.agprs > o.agprs)
    refuse(n.agprs, agpr_limit, "AGPRs",
           fmt::format(" ({} unified VGPRs from accum_offset {})", alloc_.vgprs, alloc_.accum_offset));
  if (n.sgprs > alloc_.sgprs && n.sgprs > o.sgprs)
    refuse(n.sgprs, alloc_.sgprs, "SGPRs",
           fmt::format(" (including {} for VCC/FLAT_SCRATCH/XNACK_MASK)", extra_sgprs(t, kernel_.kd, usage_of(insts_))));
  if (const auto* md = co_.kernel_metadata(kernel_)) {
    unsigned unified = n.uses_agprs ? (std::max(n.vgprs, 1u) + 3) / 4 * 4 + n.agprs : n.vgprs;
    if (unified > md->vgpr_count && unified > (o.uses_agprs ? (o.vgprs + 3) / 4 * 4 + o.agprs : o.vgprs))
      result.notes.push_back(fmt::format("the patched code uses {} VGPRs (unified), the metadata's .vgpr_count says "
                                         "{}; the KD allocates {}, the metadata is left unchanged",
                                         unified, md->vgpr_count, alloc_.vgprs));
  }
  result.ranges.push_back(std::move(pr));
}

}  // namespace

uint64_t parse_number(const std::string& text, const std::string& what) {
  std::string t = trim(text);
  bool ok = !t.empty();
  uint64_t v = 0;
  if (ok) {
    errno = 0;
    char* endp = nullptr;
    bool hexnum = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
    if (!hexnum && !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      ok = false;
    if (ok) {
      v = std::strtoull(t.c_str(), &endp, hexnum ? 16 : 10);
      ok = errno == 0 && endp && *endp == '\0';
    }
  }
  if (!ok) throw Error("'" + text + "' is not a number", what, "write a decimal number or 0x hex");
  return v;
}

PatchResult patch_kernel(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& kernel,
                         const std::vector<PatchEdit>& edits) {
  if (edits.empty()) throw Error("no edits given", name, "give --at/--asm or --edits");
  Patcher p(bytes, name, kernel);
  PatchResult result;
  for (const auto& e : edits) p.apply(e, result);
  result.image = p.finish(result);
  return result;
}

std::vector<PatchEdit> parse_edits_yaml(const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(std::string("invalid YAML: ") + e.what(), source_name, "write a YAML list of {at, asm} entries");
  }
  if (root.IsMap() && root["edits"]) root = root["edits"];
  if (!root.IsSequence())
    throw Error("expected a YAML list of edits", source_name, "write e.g.\n  - {at: 0x40, asm: \"s_nop 1\"}");
  std::vector<PatchEdit> edits;
  size_t index = 0;
  for (const auto& node : root) {
    ++index;
    PatchEdit e;
    int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    e.where = fmt::format("edit {} ({}:{})", index, source_name, line);
    if (!node.IsMap()) throw Error("an edit must be a map {at: OFFSET, asm: TEXT}", e.where, "");
    static const std::set<std::string> kKeys = {"at", "address", "asm", "replace", "delete"};
    for (const auto& kv : node) {
      std::string key = kv.first.as<std::string>();
      if (!kKeys.count(key))
        throw Error("unknown key '" + key + "' (known: at, address, asm, replace, delete)", e.where, "");
    }
    auto scalar = [&](const char* key) { return node[key].as<std::string>(); };
    if (node["at"] && node["address"]) throw Error("give either at: or address:, not both", e.where, "");
    if (node["at"]) {
      e.at = parse_number(scalar("at"), e.where + ": at");
    } else if (node["address"]) {
      e.at = parse_number(scalar("address"), e.where + ": address");
      e.absolute = true;
    } else {
      throw Error("the edit has no at: (offset in the kernel) or address:", e.where, "add at: OFFSET");
    }
    if (node["delete"]) {
      if (node["asm"] || node["replace"]) throw Error("delete: cannot be combined with asm: or replace:", e.where, "");
      e.delete_count = static_cast<unsigned>(parse_number(scalar("delete"), e.where + ": delete"));
    } else {
      if (!node["asm"]) throw Error("the edit has neither asm: nor delete:", e.where, "add asm: TEXT or delete: N");
      e.asm_text = scalar("asm");
      if (node["replace"]) e.replace = static_cast<unsigned>(parse_number(scalar("replace"), e.where + ": replace"));
    }
    edits.push_back(std::move(e));
  }
  if (edits.empty()) throw Error("the edits file lists no edits", source_name, "");
  return edits;
}

}  // namespace asmevo::rebuild
