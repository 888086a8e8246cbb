#include "emu/program.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "emu/operands.h"
#include "emu/registry.h"
#include "emu/waitcnt.h"
#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::emu {
namespace {

const char* kFix = "implement it in emu/semantics (docs/emulator.md, \"How to add an instruction family\")";

void to_reg_uses(const std::vector<program::RegRange>& in, unsigned accum_offset, std::vector<RegUse>& out) {
  using program::RegFile;
  for (const auto& r : in) {
    RegUse u;
    u.count = static_cast<uint16_t>(r.count);
    switch (r.file) {
      case RegFile::VGPR: u.file = 0, u.first = static_cast<uint16_t>(r.first); break;
      case RegFile::AGPR: u.file = 0, u.first = static_cast<uint16_t>(accum_offset + r.first); break;
      case RegFile::SGPR: u.file = 1, u.first = static_cast<uint16_t>(r.first); break;
      case RegFile::VCC: u.file = 1, u.first = static_cast<uint16_t>(kVccLo + r.first); break;
      case RegFile::EXEC: u.file = 1, u.first = static_cast<uint16_t>(kExecLo + r.first); break;
      case RegFile::M0: u.file = 1, u.first = kM0; break;
      case RegFile::FlatScratch: u.file = 1, u.first = static_cast<uint16_t>(kFlatScratchLo + r.first); break;
      case RegFile::TTMP: u.file = 1, u.first = static_cast<uint16_t>(kTtmp0 + r.first); break;
      default: continue;
    }
    if (u.count) out.push_back(u);
  }
}

// Source modifiers LLVM assembles and prints but the emulator gives no meaning, refused rather than ignored.
void refuse_undefined_source_mods(const ExecInst& in, const SemanticEntry& e, const std::string& where) {
  // VOP3P NEG_LO/NEG_HI negate float elements; llvm-mc-22 also takes them on the integer packed units
  // (v_pk_mov_b32, v_pk_add_u16, v_dot4_i32_i8, ...), where the ISA says nothing of what they do.
  if (in.mods.neg_lo || in.mods.neg_hi) {
    bool float_source = false;
    for (unsigned j = 0; j < e.nsrc; ++j) float_source |= ty_is_float(e.src[j]);
    if (!float_source)
      throw Error(fmt::format("unsupported modifier: neg_lo/neg_hi on {}, whose sources are integers, at 0x{:x}", in.raw->mnemonic,
                              in.raw->address),
                  where, "the ISA defines NEG_LO/NEG_HI for float sources only (LLVM folds fneg into packed float units only): drop the modifier, or report the kernel that has it");
  }
  // SDWA: whether a sign-bit modifier acts before or after a sub-dword select (and its zero extension)
  // is not documented for v_cndmask_b32; a whole-dword source is unambiguous.
  if ((e.flags & kSignBitSourceMods) && in.mods.sdwa.present)
    for (unsigned j = 0; j < 2 && j < in.nsrc; ++j)
      if ((in.src[j].abs || in.src[j].neg) && (j ? in.mods.sdwa.src1_sel : in.mods.sdwa.src0_sel) != SdwaMods::Dword)
        throw Error(fmt::format("unsupported: an abs/neg source with a sub-dword src{}_sel on {} at 0x{:x}", j, in.raw->mnemonic,
                                in.raw->address),
                    where, "the order of the SDWA select and the sign-bit modifier is not documented; select DWORD or drop the modifier");
}

}  // namespace

ExecInst predecode(const program::Instruction& raw, unsigned num_vregs, unsigned accum_offset, const std::string& kernel) {
  const Registry& reg = Registry::get();
  ExecInst in;
  in.raw = &raw;
  in.address = raw.address;
  in.size = raw.size;
  std::string where = fmt::format("kernel {}, 0x{:x}: {}", kernel, raw.address, raw.text);
  uint8_t enc = 0;
  std::string_view stem = mnemonic_stem(raw.mnemonic, &enc);
  const SemanticEntry* e = reg.find(stem);
  if (!e)
    throw Error(fmt::format("unsupported instruction {} at 0x{:x} in kernel {}", raw.mnemonic, raw.address, kernel), where,
                kFix);
  in.entry = e;
  in.fn = e->fn;
  in.encoding = enc;
  in.category = static_cast<uint8_t>(e->cat);
  // LLVM prints operands it decoded but the processor cannot use ("v[33:34]/*Invalid register, operand has
  // 'VReg_64_Align2' register class*/": a misaligned pair on gfx90a+, src_lds_direct in an SALU): not code
  // this processor runs.
  if (raw.text.find("/*Invalid register") != std::string::npos)
    throw Error(fmt::format("invalid operand in {} at 0x{:x} in kernel {}: LLVM decodes a register this processor cannot use",
                            raw.mnemonic, raw.address, kernel),
                where, "these bytes are not valid code for the target processor (check the code object's target)");
  SplitText st = split_instruction_text(raw.text);
  for (const auto& m : st.modifiers) {
    std::string err;
    if (!parse_modifier(m, in.mods, err)) throw Error(err, where, "report this instruction: the operand parser needs it");
  }
  if (in.mods.clamp && (e->flags & kIntResult) && !(e->flags & kIntClampOk))
    throw Error(fmt::format("unsupported modifier: clamp (integer saturation) on {} at 0x{:x} in kernel {}", raw.mnemonic,
                            raw.address, kernel),
                where, "implement integer clamp for this unit (flag kIntClampOk) in emu/semantics");
  if (enc == 3) {
    in.mods.dpp.present = true;
    if (!(e->flags & kAllowDpp) || !reg.hooks().dpp_read)
      throw Error(fmt::format("unsupported instruction {} at 0x{:x} in kernel {} (DPP form)", raw.mnemonic, raw.address, kernel),
                  where, kFix);
  }
  if (enc == 4) {
    in.mods.sdwa.present = true;
    if (!(e->flags & kAllowDpp) || !reg.hooks().sdwa_src)
      throw Error(fmt::format("unsupported instruction {} at 0x{:x} in kernel {} (SDWA form)", raw.mnemonic, raw.address, kernel),
                  where, kFix);
  }
  std::vector<std::string> ops = (e->flags & kRawOperands) ? std::vector<std::string>{} : st.operands;
  if ((e->flags & kDstIsSrc0) && !ops.empty()) ops.insert(ops.begin() + 1, ops[0]);
  if ((e->flags & kDstIsAccum) && !ops.empty()) ops.push_back(ops[0]);
  if (!(e->flags & (kVariadic | kRawOperands)) && ops.size() != static_cast<size_t>(e->ndst + e->nsrc))
    throw Error(fmt::format("{} has {} operands, the semantic unit for {} expects {} destination(s) and {} source(s)",
                            raw.mnemonic, ops.size(), e->stem, e->ndst, e->nsrc),
                where, "fix the operand signature in emu/semantics", kExitInternal);
  OperandEnv env{accum_offset};
  env.sign_bit_mods = (e->flags & kSignBitSourceMods) != 0;
  size_t k = 0;
  for (; k < ops.size() && k < e->ndst; ++k) {
    std::string err;
    if (!parse_operand(ops[k], e->dst[k], env, in.dst[k], err)) throw Error(err, where, kFix);
  }
  in.ndst = static_cast<uint8_t>(k);
  for (size_t j = 0; k < ops.size(); ++k, ++j) {
    if (j >= in.src.size()) throw Error("too many operands", where, kFix, kExitInternal);
    std::string err;
    Ty ty = j < e->nsrc ? e->src[j] : Ty::Any;
    if (!parse_operand(ops[k], ty, env, in.src[j], err)) throw Error(err, where, kFix);
    in.nsrc = static_cast<uint8_t>(j + 1);
  }
  refuse_undefined_source_mods(in, *e, where);
  // Register bounds (the wave only has the registers its kernel descriptor allocates).
  auto check = [&](const Operand& o) {
    if (o.kind == Operand::VGPR && o.index + o.count > num_vregs)
      throw Error(fmt::format("{} uses v{} but the kernel descriptor allocates {} vector registers per lane", raw.mnemonic,
                              o.index + o.count - 1, num_vregs),
                  where, "check the KD's granulated_workitem_vgpr_count / accum_offset");
  };
  for (unsigned i = 0; i < in.ndst; ++i) check(in.dst[i]);
  for (unsigned i = 0; i < in.nsrc; ++i) check(in.src[i]);
  for (const auto& op : raw.operands)
    if (op.kind == program::Operand::Imm) {
      in.simm = op.imm;
      break;
    }
  to_reg_uses(raw.uses, accum_offset, in.uses);
  to_reg_uses(raw.defs, accum_offset, in.defs);
  return in;
}

std::unique_ptr<Program> Program::build(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                        const program::Decoder& decoder) {
  auto p = std::make_unique<Program>();
  p->kernel_ = kernel.name;
  p->arch_ = co.target().arch;
  const auto& kd = kernel.kd;
  unsigned vgprs = (kd.vgpr_blocks() + 1) * 8;
  bool gfx90a_plus = p->arch_ != codeobj::Arch::Other;
  p->accum_offset_ = gfx90a_plus ? (kd.accum_offset_field() + 1) * 4 : vgprs;
  p->num_vregs_ = std::min(vgprs, 512u);
  // Decode the kernel and every device function.
  struct Range {
    uint64_t addr, size;
  };
  std::vector<Range> ranges{{kernel.code_address, kernel.code_size}};
  for (const auto& f : co.device_functions())
    if (f.size) ranges.push_back({f.address, f.size});
  for (const auto& k : co.kernels())
    if (k.name != kernel.name) ranges.push_back({k.code_address, k.code_size});
  std::sort(ranges.begin(), ranges.end(), [](auto& a, auto& b) { return a.addr < b.addr; });
  std::set<std::string> missing;
  for (const auto& r : ranges) {
    auto bytes = co.elf().bytes_at_address(r.addr, r.size);
    if (!bytes) throw Error(fmt::format("code at 0x{:x} (+{}) is not in the file", r.addr, r.size), kernel.name);
    for (auto& ins : decoder.decode_range(*bytes, r.addr)) {
      if (p->by_address_.count(ins.address)) continue;
      p->by_address_[ins.address] = static_cast<uint32_t>(p->raw_.size());
      p->raw_.push_back(std::move(ins));
    }
  }
  // Only this kernel's own code must be fully supported; other kernels' code may be unsupported
  // (an instruction there that is reached at run time then stops the run).
  p->insts_.reserve(p->raw_.size());
  for (const auto& raw : p->raw_) {
    bool own = raw.address - kernel.code_address < kernel.code_size;
    bool other_kernel = !own && std::any_of(co.kernels().begin(), co.kernels().end(), [&](const auto& k) {
      return raw.address - k.code_address < k.code_size;
    });
    try {
      p->insts_.push_back(predecode(raw, p->num_vregs_, p->accum_offset_, kernel.name));
    } catch (const Error&) {
      if (!other_kernel) throw;
      ExecInst stub;
      stub.raw = &raw;
      stub.address = raw.address;
      stub.size = raw.size;
      stub.fn = nullptr;  // executor reports it if reached
      p->insts_.push_back(std::move(stub));
    }
  }
  for (size_t i = 0; i < p->insts_.size(); ++i) {
    ExecInst& in = p->insts_[i];
    if (in.raw->branch_target) {
      auto it = p->by_address_.find(static_cast<uint64_t>(*in.raw->branch_target));
      if (it == p->by_address_.end())
        throw Error(fmt::format("branch target 0x{:x} is not an instruction", *in.raw->branch_target),
                    fmt::format("kernel {}, 0x{:x}: {}", kernel.name, in.address, in.raw->text));
      in.target = static_cast<int32_t>(it->second);
    }
    if (in.entry && (in.entry->flags & kGlobalAtomic)) p->has_global_atomics_ = true;
  }
  // Device PCs: the code object is mapped at kCodeBase.
  std::unordered_map<uint64_t, uint32_t> dev;
  for (auto& [a, i] : p->by_address_) dev[kCodeBase + a] = i;
  p->by_address_ = std::move(dev);
  for (auto& in : p->insts_) in.address += kCodeBase;
  uint64_t entry = kernel.code_address + (kd.kernarg_preload_length() ? 256 : 0);
  auto it = p->by_address_.find(kCodeBase + entry);
  if (it == p->by_address_.end()) throw Error(fmt::format("kernel entry 0x{:x} is not an instruction", entry), kernel.name);
  p->entry_ = it->second;
  auto legacy = p->by_address_.find(kCodeBase + kernel.code_address);
  if (legacy == p->by_address_.end()) throw Error(fmt::format("kernel code entry 0x{:x} is not an instruction", kernel.code_address), kernel.name);
  p->legacy_entry_ = legacy->second;
  return p;
}

std::vector<std::string> unsupported_mnemonics(const std::vector<program::Instruction>& insts) {
  const Registry& reg = Registry::get();
  std::set<std::string> out;
  for (const auto& i : insts) {
    uint8_t enc = 0;
    const SemanticEntry* e = reg.find(mnemonic_stem(i.mnemonic, &enc));
    if (!e) out.insert(i.mnemonic);
    else if (enc == 3 && (!(e->flags & kAllowDpp) || !reg.hooks().dpp_read)) out.insert(i.mnemonic);
    else if (enc == 4 && (!(e->flags & kAllowDpp) || !reg.hooks().sdwa_src)) out.insert(i.mnemonic);
  }
  return {out.begin(), out.end()};
}

}  // namespace asmevo::emu
