#include "program/program.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>

#include <algorithm>
#include <cctype>

#include "codeobj/arch_params.h"
#include "codeobj/initial_sgprs.h"
#include "support/error.h"

namespace asmevo::program {
namespace {

using namespace asmevo::codeobj;


// Registers named in an instruction's text: "v[4:7]", "-|v2|", "s[0:1]", "vcc", "a3", ...
std::vector<RegRange> registers_in_text(const std::string& text) {
  std::vector<RegRange> out;
  size_t start = text.find(' ');
  if (start == std::string::npos) return out;
  std::string token;
  auto flush = [&] {
    if (!token.empty()) {
      if (auto r = parse_reg(token)) out.push_back(*r);
      token.clear();
    }
  };
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == ']' || c == ':')
      token += c;
    else
      flush();
  }
  flush();
  return out;
}

// The branch-target label of an instruction line, if it has one.
std::optional<std::string> branch_label(const Line& l) {
  if (l.kind != Line::Instr) return std::nullopt;
  bool is_branch = l.inst ? l.inst->branch_target.has_value()
                          : (l.text.rfind("s_branch", 0) == 0 || l.text.rfind("s_cbranch", 0) == 0 || l.text.rfind("s_call_b64", 0) == 0);
  if (!is_branch) return std::nullopt;
  auto pos = l.text.find_last_of(" ,");
  return l.text.substr(pos + 1);
}

bool is_terminator(const Line& l) {
  if (l.inst) return l.inst->is_terminator || l.inst->is_branch;
  return l.text.rfind("s_branch", 0) == 0 || l.text.rfind("s_cbranch", 0) == 0 || l.text.rfind("s_endpgm", 0) == 0 ||
         l.text.rfind("s_setpc", 0) == 0;
}

bool falls_through(const Line& l) {
  if (l.inst) return !l.inst->no_fallthrough && !l.inst->is_return;
  return !(l.text.rfind("s_branch", 0) == 0 || l.text.rfind("s_endpgm", 0) == 0 || l.text.rfind("s_setpc", 0) == 0);
}

size_t reg_unit(RegFile f, unsigned i) {
  switch (f) {
    case RegFile::SGPR: return RegSet::kSgpr + i;
    case RegFile::VGPR: return RegSet::kVgpr + i;
    case RegFile::AGPR: return RegSet::kAgpr + i;
    case RegFile::VCC: return RegSet::kVcc + i;
    case RegFile::EXEC: return RegSet::kExec + i;
    case RegFile::SCC: return RegSet::kScc;
    case RegFile::M0: return RegSet::kM0;
    default: return RegSet::kSize;
  }
}

// Lines for instructions given as text by an edit (one instruction each, no labels).
// A new local label ".Lname:" (moves that copy code, e.g. guarded specialization, need branch
// targets of their own); it must not name a label the listing already has.
bool is_new_label_text(const std::string& t) {
  if (t.size() < 4 || t.rfind(".L", 0) != 0 || t.back() != ':') return false;
  for (size_t i = 2; i + 1 < t.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(t[i])) && t[i] != '_' && t[i] != '.' && t[i] != '$') return false;
  return true;
}

std::vector<Line> new_instruction_lines(const std::vector<std::string>& instructions, uint64_t address, const std::vector<Line>& existing) {
  std::vector<Line> fresh;
  std::set<std::string> labels;
  for (const auto& t : instructions) {
    if (is_new_label_text(t)) {
      std::string name = t.substr(0, t.size() - 1);
      bool taken = !labels.insert(name).second;
      for (const Line& l : existing) taken |= l.kind == Line::Label && l.text == name;
      if (taken) throw Error("label '" + name + "' already exists", "", "give each new label a name the listing does not use");
      fresh.push_back({Line::Label, name, address, std::nullopt});
      continue;
    }
    if (t.empty() || t.find('\n') != std::string::npos || t.back() == ':')
      throw Error("'" + t + "' is not a single instruction", "", "give one instruction or new local label (.Lname:) per entry");
    fresh.push_back({Line::Instr, t, address, std::nullopt});
  }
  return fresh;
}

}  // namespace

void RegSet::add(const RegRange& r) {
  for (unsigned i = 0; i < r.count; ++i) {
    size_t u = reg_unit(r.file, r.first + i);
    if (u < kSize) bits.set(u);
  }
}

bool RegSet::contains(const RegRange& r) const {
  for (unsigned i = 0; i < r.count; ++i) {
    size_t u = reg_unit(r.file, r.first + i);
    if (u < kSize && bits.test(u)) return true;
  }
  return false;
}

std::string RegSet::to_string() const {
  std::string s;
  auto range = [&](const char* p, size_t base, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (bits.test(base + i)) s += fmt::format("{}{}{} ", p, i, "");
  };
  range("s", kSgpr, 128);
  range("v", kVgpr, 256);
  range("a", kAgpr, 256);
  if (bits.test(kVcc) || bits.test(kVcc + 1)) s += "vcc ";
  if (bits.test(kExec) || bits.test(kExec + 1)) s += "exec ";
  if (bits.test(kScc)) s += "scc ";
  if (bits.test(kM0)) s += "m0 ";
  if (!s.empty()) s.pop_back();
  return s;
}

Program Program::recover(const CodeObject& co) {
  Program p;
  p.original_ = co;
  p.listing_ = program::recover(co);
  for (const auto& k : co.kernels()) p.kds_[k.name] = k.kd;
  p.metadata_ = co.metadata();
  p.analyze();
  return p;
}

ListingSection& Program::text() {
  ListingSection* s = listing_.section(".text");
  if (!s) throw Error("the code object has no .text section", original_.elf().name());
  return *s;
}
const ListingSection& Program::text() const { return const_cast<Program*>(this)->text(); }

const Function* Program::function(const std::string& name) const {
  for (const auto& f : functions_)
    if (f.name == name) return &f;
  return nullptr;
}

size_t Program::text_line_count() const { return text().lines.size(); }
const Line& Program::text_line(size_t i) const { return text().lines.at(i); }

size_t Program::line_of_address(uint64_t address) const {
  const auto& lines = text().lines;
  for (size_t i = 0; i < lines.size(); ++i)
    // (An attached decoding of an edit has no address of its own: attach_decoding.)
    if (lines[i].is_instruction() && lines[i].inst && lines[i].address == address && lines[i].inst->address == address) return i;
  throw Error(fmt::format("no original instruction at address 0x{:x}", address), original_.elf().name(),
              "addresses are those `asmevo disasm` prints in its comments");
}

void Program::analyze() {
  functions_.clear();
  const auto& lines = text().lines;
  std::set<std::string> kernel_names;
  for (const auto& k : original_.kernels()) kernel_names.insert(k.name);
  std::set<std::string> function_names;
  for (const auto& s : original_.elf().symbols())
    if (s.type == llvm::ELF::STT_FUNC) function_names.insert(s.name);
  // Functions: from a function label to its end label.
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].kind != Line::Label || !function_names.count(lines[i].text)) continue;
    Function f;
    f.name = lines[i].text;
    f.is_kernel = kernel_names.count(f.name) > 0;
    f.begin = i + 1;
    f.end = f.begin;
    const std::string end_label = ".Lend_" + f.name;
    while (f.end < lines.size() && !(lines[f.end].kind == Line::Label && lines[f.end].text == end_label)) ++f.end;
    functions_.push_back(std::move(f));
  }
  // Blocks: leaders are the first instruction, labelled instructions, and instructions after terminators.
  for (auto& f : functions_) {
    std::map<std::string, size_t> label_block;
    bool new_block = true;
    for (size_t i = f.begin; i < f.end; ++i) {
      const Line& l = lines[i];
      if (l.kind == Line::Label) {
        new_block = true;
        continue;
      }
      if (!l.is_instruction()) continue;
      if (new_block) {
        f.blocks.push_back({i, i, {}, {}});
        new_block = false;
      }
      f.blocks.back().last = i;
      if (is_terminator(l)) new_block = true;
      // Remember which labels open this block.
      for (size_t k = i; k > f.begin && lines[k - 1].kind == Line::Label; --k)
        if (f.blocks.back().first == i) label_block[lines[k - 1].text] = f.blocks.size() - 1;
      // Callees: getpc-materialized function addresses and s_call targets.
      for (const auto& name : function_names)
        if (l.text.find(name + "@rel32") != std::string::npos) f.callees.insert(name);
    }
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      const Line& last = lines[f.blocks[b].last];
      if (auto target = branch_label(last)) {
        auto it = label_block.find(*target);
        if (it != label_block.end()) f.blocks[b].succs.push_back(it->second);
      }
      if (falls_through(last) && b + 1 < f.blocks.size()) f.blocks[b].succs.push_back(b + 1);
    }
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (size_t s : f.blocks[b].succs) f.blocks[s].preds.push_back(b);
  }
}

LineRegisters Program::registers_of(const Line& l) const {
  // An original instruction (its text may differ only by symbolic branch/rel32 operands).
  if (l.inst) return {l.inst->defs, l.inst->uses};
  // An edited line: every register it names is treated as both read and written (conservative).
  auto regs = registers_in_text(l.text);
  return {regs, regs};
}

std::vector<RegSet> Program::live_in(const Function& f, bool vector_writes_kill) const {
  return live_in_partial(f, [vector_writes_kill](const Line&) { return !vector_writes_kill; });
}

std::vector<std::vector<size_t>> Program::successor_lines(const Function& f) const {
  const auto& lines = text().lines;
  std::vector<std::vector<size_t>> succ(f.end - f.begin);
  std::vector<size_t> first_instruction(f.blocks.size(), SIZE_MAX);
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i)
      if (lines[i].is_instruction()) {
        first_instruction[b] = i;
        break;
      }
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    size_t prev = SIZE_MAX;
    for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) {
      if (!lines[i].is_instruction()) continue;
      if (prev != SIZE_MAX) succ[prev - f.begin].push_back(i);
      prev = i;
    }
    if (prev != SIZE_MAX)
      for (size_t s : f.blocks[b].succs)
        if (first_instruction[s] != SIZE_MAX) succ[prev - f.begin].push_back(first_instruction[s]);
  }
  return succ;
}

std::vector<RegSet> Program::live_in_partial(const Function& f, const std::function<bool(const Line&)>& keeps_part) const {
  const auto& lines = text().lines;
  std::vector<char> partial_vector_write(f.end - f.begin, 0);  // asked once per line, not per iteration
  for (size_t i = f.begin; i < f.end; ++i)
    if (lines[i].is_instruction()) partial_vector_write[i - f.begin] = keeps_part(lines[i]);
  std::vector<RegSet> in(f.end - f.begin);
  std::vector<RegSet> block_in(f.blocks.size()), block_out(f.blocks.size());
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t bi = f.blocks.size(); bi-- > 0;) {
      const auto& b = f.blocks[bi];
      RegSet live;
      for (size_t s : b.succs) live.bits |= block_in[s].bits;
      // A block that leaves the function (return, s_setpc, s_endpgm) keeps nothing live, except
      // through calls, which are handled as uses of their argument registers by the decoder.
      block_out[bi] = live;
      for (size_t i = b.last + 1; i-- > b.first;) {
        const Line& l = lines[i];
        if (!l.is_instruction()) continue;
        auto regs = registers_of(l);
        const bool partial_scalar =
            l.inst && (l.inst->mnemonic.rfind("s_cmov", 0) == 0 || l.inst->mnemonic.rfind("s_bitset", 0) == 0);
        const bool partial_vector = partial_vector_write[i - f.begin];
        for (const auto& d : regs.defs) {
          if (partial_scalar && d.file == RegFile::SGPR) continue;
          if (partial_vector && (d.file == RegFile::VGPR || d.file == RegFile::AGPR)) continue;
          RegSet kill;
          kill.add(d);
          live.bits &= ~kill.bits;
        }
        for (const auto& u : regs.uses) live.add(u);
        in[i - f.begin] = live;
      }
      if (live.bits != block_in[bi].bits) {
        block_in[bi] = live;
        changed = true;
      }
    }
  }
  return in;
}

RegisterUse Program::register_use(const std::string& kernel) const {
  RegisterUse use;
  std::set<std::string> todo = {kernel}, done;
  const auto& lines = text().lines;
  while (!todo.empty()) {
    std::string name = *todo.begin();
    todo.erase(todo.begin());
    if (!done.insert(name).second) continue;
    const Function* f = function(name);
    if (!f) continue;
    for (const auto& c : f->callees) todo.insert(c);
    for (size_t i = f->begin; i < f->end; ++i) {
      if (!lines[i].is_instruction()) continue;
      auto regs = registers_of(lines[i]);
      for (const auto* list : {&regs.defs, &regs.uses})
        for (const auto& r : *list) {
          int top = static_cast<int>(r.first + r.count) - 1;
          if (r.file == RegFile::SGPR) use.max_sgpr = std::max(use.max_sgpr, top);
          if (r.file == RegFile::VGPR) use.max_vgpr = std::max(use.max_vgpr, top);
          if (r.file == RegFile::AGPR) use.max_agpr = std::max(use.max_agpr, top);
          if (r.file == RegFile::VCC) use.uses_vcc = true;
          if (r.file == RegFile::FlatScratch) use.uses_flat_scratch = true;
        }
    }
  }
  return use;
}

void Program::mark_dirty(size_t line) {
  for (const auto& f : functions_) {
    if (line < f.begin || line > f.end) continue;
    if (f.is_kernel) dirty_.insert(f.name);
    // A device function's callers all change.
    for (const auto& g : functions_)
      if (g.is_kernel && (g.callees.count(f.name) || g.name == f.name)) dirty_.insert(g.name);
  }
}

void Program::replace(size_t first, size_t last, const std::vector<std::string>& instructions) {
  auto& lines = text().lines;
  if (first > last || last >= lines.size())
    throw Error(fmt::format("edit range [{}, {}] is outside the {} lines of .text", first, last, lines.size()));
  for (size_t i = first; i <= last; ++i)
    if (!lines[i].is_instruction())
      throw Error(fmt::format("edit range [{}, {}] contains '{}', which is not an instruction", first, last, lines[i].text), "",
                  "edit only runs of instructions; labels and symbols stay where they are");
  std::vector<Line> fresh = new_instruction_lines(instructions, lines[first].address, lines);
  lines.erase(lines.begin() + first, lines.begin() + last + 1);
  lines.insert(lines.begin() + first, fresh.begin(), fresh.end());
  analyze();
  mark_dirty(first);
}

void Program::insert_before(size_t line, const std::vector<std::string>& instructions) {
  auto& lines = text().lines;
  if (line >= lines.size() || !lines[line].is_instruction())
    throw Error(fmt::format("line {} is not an instruction of .text", line));
  // New lines take the anchor's address (they sit where it was); the anchor keeps its decoded form.
  std::vector<Line> fresh = new_instruction_lines(instructions, lines[line].address, lines);
  lines.insert(lines.begin() + line, fresh.begin(), fresh.end());
  analyze();
  mark_dirty(line);
}

void Program::remove(size_t first, size_t last) { replace(first, last, {}); }

void Program::attach_decoding(size_t line, Instruction inst) {
  auto& lines = text().lines;
  if (line >= lines.size() || lines[line].kind != Line::Instr || lines[line].inst)
    throw Error(fmt::format("line {} of .text is not an edited instruction line", line), "",
                "attach a decoding only to a line an edit inserted or replaced");
  if (inst.text != lines[line].text)
    throw Error(fmt::format("the decoded text '{}' is not line {}'s '{}'", inst.text, line, lines[line].text), "",
                "write the line in the decoder's printed form");
  inst.address = UINT64_MAX;  // an edit has no address of its own (line_of_address skips it)
  lines[line].inst = std::move(inst);
}

const KernelDescriptor& Program::kernel_descriptor(const std::string& kernel) const {
  auto it = kds_.find(kernel);
  if (it == kds_.end()) throw Error("no kernel named '" + kernel + "'");
  return it->second;
}

void Program::set_lds_size(const std::string& kernel, uint32_t bytes) {
  const ArchParams* ap = arch_params(original_.target().arch);
  if (ap && bytes > ap->lds_bytes_per_cu)
    throw Error(fmt::format("LDS size {} exceeds the {} bytes a workgroup can have on {}", bytes, ap->lds_bytes_per_cu, ap->name));
  kds_.at(kernel).group_segment_fixed_size = bytes;
  if (metadata_) metadata_->set_kernel_uint(kernel, ".group_segment_fixed_size", bytes);
  dirty_.insert(kernel);
}

void Program::set_scratch_size(const std::string& kernel, uint32_t bytes) {
  kds_.at(kernel).private_segment_fixed_size = bytes;
  if (metadata_) metadata_->set_kernel_uint(kernel, ".private_segment_fixed_size", bytes);
  dirty_.insert(kernel);
}

void Program::set_kernarg_preload(const std::string& kernel, unsigned dwords) {
  const Arch arch = original_.target().arch;
  if (arch != Arch::gfx942 && arch != Arch::gfx950)
    throw Error("kernarg preloading needs gfx942 or gfx950, not " + original_.target().processor, kernel);
  KernelDescriptor& kd = kds_.at(kernel);
  if (kd.kernarg_preload_length() != 0) throw Error("kernel " + kernel + " already preloads kernel arguments");
  // 16 user SGPRs at most (AMDGPUUsage, "Initial Kernel Execution State": the USER_SGPR field).
  if (kd.user_sgpr_count() + dwords > 16)
    throw Error(fmt::format("kernel {}: {} user SGPRs + {} preloaded exceed the 16 the hardware sets up", kernel, kd.user_sgpr_count(), dwords));
  if (4 * dwords > kd.kernarg_size)
    throw Error(fmt::format("kernel {}: preloading {} bytes of a {}-byte kernarg segment", kernel, 4 * dwords, kd.kernarg_size));
  kd.set("kernarg_preload.length", dwords);
  kd.set("kernarg_preload.offset", 0);
  kd.set("compute_pgm_rsrc2.user_sgpr_count", kd.user_sgpr_count() + dwords);
  dirty_.insert(kernel);
}

void Program::enable_dispatch_ptr(const std::string& kernel) {
  KernelDescriptor& kd = kds_.at(kernel);
  if (kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr")) throw Error("kernel " + kernel + " already has the dispatch pointer");
  if (kd.kernarg_preload_length() != 0) throw Error("kernel " + kernel + " preloads kernel arguments: its user SGPRs cannot move");
  if (kd.user_sgpr_count() + 2 > 16)  // AMDGPUUsage, "Initial Kernel Execution State": the USER_SGPR field
    throw Error(fmt::format("kernel {}: {} user SGPRs + the dispatch pointer exceed the 16 the hardware sets up", kernel, kd.user_sgpr_count()));
  kd.set("kernel_code_properties.enable_sgpr_dispatch_ptr", 1);
  kd.set("compute_pgm_rsrc2.user_sgpr_count", kd.user_sgpr_count() + 2);
  dirty_.insert(kernel);
}

void Program::update_resources() {
  const ArchParams* ap = arch_params(original_.target().arch);
  if (!ap && !dirty_.empty())
    throw Error("resource recomputation needs a modeled processor (gfx90a, gfx942, gfx950), not " + original_.target().processor);
  for (const auto& name : dirty_) {
    KernelDescriptor& kd = kds_.at(name);
    RegisterUse use = register_use(name);
    // Registers the hardware initializes count as used even if the code never names them.
    unsigned numbered_sgprs = std::max<unsigned>(use.max_sgpr + 1, codeobj::initialized_sgpr_count(kd));
    unsigned workitem_vgprs = original_.target().arch == Arch::Other ? kd.workitem_id_vgprs() + 1 : 1;  // packed in v0 on gfx90a+
    unsigned arch_vgprs = std::max<unsigned>(use.max_vgpr + 1, workitem_vgprs);
    unsigned agprs = use.max_agpr + 1;
    if (arch_vgprs > ap->max_arch_vgprs)
      throw Error(fmt::format("kernel {} needs {} VGPRs; {} allows {}", name, arch_vgprs, ap->name, ap->max_arch_vgprs), "",
                  "use fewer VGPRs in the edit");
    if (agprs > ap->max_agprs)
      throw Error(fmt::format("kernel {} needs {} AGPRs; {} allows {}", name, agprs, ap->name, ap->max_agprs));
    if (numbered_sgprs > ap->max_addressable_sgprs)
      throw Error(fmt::format("kernel {} needs {} SGPRs; {} allows {}", name, numbered_sgprs, ap->name, ap->max_addressable_sgprs));
    // Unified file: AGPRs start at accum_offset, a multiple of 4 (AMDGPUUsage, compute_pgm_rsrc3).
    unsigned accum_offset = (std::max(arch_vgprs, 1u) + ap->accum_offset_granule - 1) / ap->accum_offset_granule * ap->accum_offset_granule;
    unsigned total_vgprs = agprs ? accum_offset + agprs : arch_vgprs;
    if (total_vgprs > ap->vgprs_per_simd_lane)
      throw Error(fmt::format("kernel {} needs {} VGPRs+AGPRs; {} allows {}", name, total_vgprs, ap->name, ap->vgprs_per_simd_lane));
    // Extra SGPRs (VCC, flat scratch, XNACK mask) as LLVM's getNumExtraSGPRs counts them for gfx9.
    bool architected_flat_scratch = original_.target().arch == Arch::gfx942 || original_.target().arch == Arch::gfx950;
    bool xnack = original_.target().xnack == FeatureSetting::On || original_.target().xnack == FeatureSetting::Any;
    unsigned extra = use.uses_vcc ? 2 : 0;
    if (xnack) extra = 4;
    if (use.uses_flat_scratch || architected_flat_scratch) extra = 6;
    unsigned sgpr_count = numbered_sgprs + extra;
    kd.set("compute_pgm_rsrc1.granulated_workitem_vgpr_count", (std::max(total_vgprs, 1u) + ap->vgpr_encoding_granule - 1) / ap->vgpr_encoding_granule - 1);
    kd.set("compute_pgm_rsrc1.granulated_wavefront_sgpr_count", (std::max(sgpr_count, 1u) + ap->sgpr_encoding_granule - 1) / ap->sgpr_encoding_granule - 1);
    kd.set("compute_pgm_rsrc3.accum_offset", accum_offset / ap->accum_offset_granule - 1);
    if (metadata_ && metadata_->kernel(name)) {
      metadata_->set_kernel_uint(name, ".vgpr_count", total_vgprs);
      metadata_->set_kernel_uint(name, ".sgpr_count", sgpr_count);
      if (metadata_->kernel(name)->agpr_count) metadata_->set_kernel_uint(name, ".agpr_count", agprs);
    }
    rewrite_kd_lines(name);
  }
  if (!dirty_.empty()) rewrite_note_lines();
}

void Program::rewrite_kd_lines(const std::string& kernel) {
  const Kernel* k = original_.kernel(kernel);
  ListingSection* sec = nullptr;
  for (auto& s : listing_.sections)
    if (s.address <= k->kd_address && k->kd_address < s.address + s.size && !s.executable) sec = &s;
  if (!sec) throw Error("kernel descriptor of " + kernel + " not found in the listing");
  auto& lines = sec->lines;
  // The descriptor's lines: its field comments and its data (symbols and labels stay).
  auto is_kd_data = [&](const Line& l) {
    return l.address >= k->kd_address && l.address < k->kd_address + KernelDescriptor::kSize &&
           (l.kind == Line::Comment ||
            (l.kind == Line::Directive && (l.text.rfind("\t.byte", 0) == 0 || l.text.rfind("\t.quad", 0) == 0)));
  };
  auto first = std::find_if(lines.begin(), lines.end(), is_kd_data);
  if (first == lines.end()) throw Error("kernel descriptor lines of " + kernel + " not found in the listing");
  size_t pos = first - lines.begin();
  lines.erase(std::remove_if(lines.begin(), lines.end(), is_kd_data), lines.end());
  auto fresh = kernel_descriptor_lines(kernel, kds_.at(kernel), k->kd_address);
  lines.insert(lines.begin() + pos, fresh.begin(), fresh.end());
}

void Program::rewrite_note_lines() {
  if (!metadata_) return;
  ListingSection* sec = listing_.section(".note");
  if (!sec) throw Error("the listing has no .note section to hold the metadata");
  std::vector<ElfNote> notes = original_.elf().notes();
  for (auto& n : notes)
    if (n.owner == "AMDGPU" && n.type == llvm::ELF::NT_AMDGPU_METADATA) n.desc = metadata_->encode();
  auto& lines = sec->lines;
  auto is_data = [](const Line& l) { return l.kind == Line::Directive && l.text.rfind("\t.byte", 0) == 0; };
  auto first = std::find_if(lines.begin(), lines.end(), is_data);
  size_t pos = first - lines.begin();
  lines.erase(std::remove_if(lines.begin(), lines.end(), is_data), lines.end());
  auto fresh = note_section_lines(notes, sec->address);
  lines.insert(lines.begin() + pos, fresh.begin(), fresh.end());
}

}  // namespace asmevo::program
