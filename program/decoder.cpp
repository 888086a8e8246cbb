#include "program/decoder.h"

#include "support/error.h"

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MathExtras.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace asmevo::program {
namespace {

constexpr const char* kTriple = "amdgcn-amd-amdhsa";
constexpr size_t kMaxInstBytes = 12;  // bytes shown in errors: more than the longest gfx9 instruction (8)

// ---- LLVM register names -> RegRange -------------------------------------------------------
//
// AMDGPU's MCInstPrinter does not override printRegName (it prints the number), and the
// generated getRegisterName is private, so the ranges come from MCRegisterInfo::getName(): the
// TableGen record names, e.g. "SGPR4", "VGPR0_VGPR1_VGPR2_VGPR3", "AGPR7", "TTMP4_gfx9plus",
// "VGPR5_LO16", "VCC_LO", "M0_gfxpre11", "FLAT_SCR_vi", "SRC_SHARED_BASE_LO".

// Name tokens that select an encoding variant or a 16-bit half, not a different register.
bool is_variant_token(llvm::StringRef tok) {
  return tok == "vi" || tok == "ci" || tok.starts_with("gfx") || tok == "LO16" || tok == "HI16";
}

struct IndexedFile {
  llvm::StringRef prefix;
  RegFile file;
};
constexpr IndexedFile kIndexedFiles[] = {
    {"SGPR", RegFile::SGPR}, {"VGPR", RegFile::VGPR}, {"AGPR", RegFile::AGPR}, {"TTMP", RegFile::TTMP}};

struct SpecialReg {
  llvm::StringRef name;  // record name without variant tokens
  RegRange range;
};
constexpr SpecialReg kSpecialRegs[] = {
    {"VCC", {RegFile::VCC, 0, 2}},
    {"VCC_LO", {RegFile::VCC, 0, 1}},
    {"VCC_HI", {RegFile::VCC, 1, 1}},
    {"EXEC", {RegFile::EXEC, 0, 2}},
    {"EXEC_LO", {RegFile::EXEC, 0, 1}},
    {"EXEC_HI", {RegFile::EXEC, 1, 1}},
    {"FLAT_SCR", {RegFile::FlatScratch, 0, 2}},
    {"FLAT_SCR_LO", {RegFile::FlatScratch, 0, 1}},
    {"FLAT_SCR_HI", {RegFile::FlatScratch, 1, 1}},
    {"XNACK_MASK", {RegFile::XnackMask, 0, 2}},
    {"XNACK_MASK_LO", {RegFile::XnackMask, 0, 1}},
    {"XNACK_MASK_HI", {RegFile::XnackMask, 1, 1}},
    {"M0", {RegFile::M0, 0, 1}},
    {"SCC", {RegFile::SCC, 0, 1}},
    {"MODE", {RegFile::Mode, 0, 1}},
    // Zero flags read as sources: a dependency on the register they summarise.
    {"SRC_VCCZ", {RegFile::VCC, 0, 2}},
    {"SRC_EXECZ", {RegFile::EXEC, 0, 2}},
    {"SRC_SCC", {RegFile::SCC, 0, 1}},
};

// {file, index} of "VGPR12"-style tokens.
std::optional<std::pair<RegFile, unsigned>> indexed_token(llvm::StringRef tok) {
  for (const auto& f : kIndexedFiles) {
    if (!tok.starts_with(f.prefix)) continue;
    unsigned n = 0;
    if (tok.drop_front(f.prefix.size()).getAsInteger(10, n)) return std::nullopt;
    return std::make_pair(f.file, n);
  }
  return std::nullopt;
}

// The record name without its trailing variant tokens: "TTMP4_TTMP5_gfx9plus" -> "TTMP4_TTMP5",
// "FLAT_SCR_LO_vi_HI16" -> "FLAT_SCR_LO". (Variant tokens only ever trail the name.)
llvm::StringRef base_name(llvm::StringRef name) {
  while (true) {
    auto [head, tail] = name.rsplit('_');
    if (tail.empty() || !is_variant_token(tail)) return name;
    name = head;
  }
}

// nullopt for registers that are not in a modelled file. Runs for all ~21k AMDGPU registers (once
// per process), so it looks only at the first and last token of a tuple name.
std::optional<RegRange> range_from_record_name(llvm::StringRef name) {
  llvm::StringRef base = base_name(name);
  for (const auto& s : kSpecialRegs)
    if (base == s.name) return s.range;
  // A tuple is its consecutive 32-bit registers joined by '_': "VGPR4_VGPR5_VGPR6_VGPR7".
  auto head = indexed_token(base.split('_').first);
  auto tail = indexed_token(base.contains('_') ? base.rsplit('_').second : base);
  if (!head || !tail || head->first != tail->first || tail->second < head->second) return std::nullopt;
  unsigned count = tail->second - head->second + 1;
  if (count != base.count('_') + 1) return std::nullopt;
  return RegRange{head->first, head->second, count};
}

std::string hex_bytes(std::span<const uint8_t> bytes) {
  std::string s;
  char buf[4];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

std::string hex_address(uint64_t a) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
  return buf;
}

// Partial writes LLVM's MC descriptors do not mark with a tied operand (the real-encoding
// opcodes of FLAT/GLOBAL/SCRATCH d16 loads and buffer_load_format_d16_hi_x lack the tie their
// pseudos have; SDWA preservation is an operand value): the old destination value survives in
// the bits not written, so the destination is read too.
bool reads_own_destination(const Instruction& inst) {
  std::string_view m = inst.mnemonic;
  if (inst.may_load && m.find("_d16") != std::string_view::npos) return true;  // d16 loads
  if (m.ends_with("_sdwa") && inst.text.find("dst_unused:UNUSED_PRESERVE") != std::string::npos)
    return true;
  return false;
}

void add_unique(std::vector<RegRange>& v, const RegRange& r) {
  if (r.count && std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
}

}  // namespace

void initialize_llvm_amdgpu() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    LLVMInitializeAMDGPUAsmParser();
  });
}

namespace {

// Target-level LLVM objects: the same for every AMDGPU processor and read-only once built, so
// one copy per process serves all Decoders and threads. Building the register table parses
// ~21k register names, which is why this is not per Decoder.
struct AmdgpuMC {
  llvm::Triple triple{kTriple};
  const llvm::Target* target = nullptr;
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCSubtargetInfo> generic_sti;      // only to validate processor names
  std::vector<RegRange> regs;                              // by LLVM register number
  std::unordered_map<unsigned, std::string> other_names;   // RegFile::Other: lower-case name

  AmdgpuMC() {
    initialize_llvm_amdgpu();
    std::string err;
    target = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!target)
      throw Error("LLVM has no AMDGPU target: " + err, kTriple,
                  "use an LLVM 22 build with the AMDGPU target (scripts/setup.sh)", kExitInternal);
    mri.reset(target->createMCRegInfo(triple));
    if (mri) mai.reset(target->createMCAsmInfo(*mri, triple, options));
    mii.reset(target->createMCInstrInfo());
    generic_sti.reset(target->createMCSubtargetInfo(triple, "", ""));
    if (!mri || !mai || !mii || !generic_sti)
      throw Error("LLVM's AMDGPU target lacks MC support", kTriple, "", kExitInternal);

    regs.resize(mri->getNumRegs());
    for (unsigned r = 1; r < mri->getNumRegs(); ++r) {
      llvm::StringRef name = mri->getName(r);
      if (auto range = range_from_record_name(name)) {
        regs[r] = *range;
      } else {
        regs[r] = RegRange{RegFile::Other, r, 1};
        other_names.emplace(r, base_name(name).lower());
      }
    }
  }
};

const AmdgpuMC& amdgpu_mc() {
  static const AmdgpuMC mc;  // thread-safe initialisation; retried if it threw
  return mc;
}

}  // namespace

// Per Decoder: the subtarget. Per worker: the disassembler, the printer and the MCContext they
// write into, none of which may be shared between threads.
struct Decoder::Impl {
  struct Worker {
    std::unique_ptr<llvm::MCSubtargetInfo> sti;
    std::unique_ptr<llvm::MCContext> ctx;
    std::unique_ptr<llvm::MCDisassembler> disasm;
    std::unique_ptr<llvm::MCInstPrinter> printer;
    std::string text;  // print buffer, reused
  };

  // Returns its worker to the pool when done.
  class Lease {
   public:
    explicit Lease(const Impl& impl) : impl_(impl) {
      {
        std::lock_guard lock(impl_.pool_mutex);
        if (!impl_.pool.empty()) {
          worker_ = std::move(impl_.pool.back());
          impl_.pool.pop_back();
        }
      }
      if (!worker_) worker_ = impl_.make_worker();
    }
    ~Lease() {
      std::lock_guard lock(impl_.pool_mutex);
      impl_.pool.push_back(std::move(worker_));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Worker& operator*() const { return *worker_; }

   private:
    const Impl& impl_;
    std::unique_ptr<Worker> worker_;
  };

  const AmdgpuMC& mc;
  codeobj::TargetId target;
  std::string features;

  mutable std::mutex pool_mutex;
  mutable std::vector<std::unique_ptr<Worker>> pool;

  explicit Impl(const codeobj::TargetId& t);
  std::unique_ptr<Worker> make_worker() const;
  void decode(Worker& w, std::span<const uint8_t> bytes, uint64_t address, Instruction& out) const;
  [[noreturn]] void fail(std::span<const uint8_t> bytes, uint64_t address) const;
};

Decoder::Impl::Impl(const codeobj::TargetId& t) : mc(amdgpu_mc()), target(t), features(t.mc_features()) {
  // Validate here: LLVM itself would only warn on stderr and fall back to a generic processor.
  if (!mc.generic_sti->isCPUStringValid(target.processor))
    throw Error("LLVM 22 does not know the processor '" + target.processor + "'", target.str(),
                "use a gfx9 processor such as gfx90a, gfx942 or gfx950");
  pool.push_back(make_worker());  // fail early if LLVM cannot build a disassembler
}

std::unique_ptr<Decoder::Impl::Worker> Decoder::Impl::make_worker() const {
  auto w = std::make_unique<Worker>();
  w->sti.reset(mc.target->createMCSubtargetInfo(mc.triple, target.processor, features));
  if (!w->sti) throw Error("cannot create LLVM subtarget", target.str(), "", kExitInternal);
  w->ctx = std::make_unique<llvm::MCContext>(mc.triple, mc.mai.get(), mc.mri.get(), w->sti.get(),
                                             nullptr, &mc.options);
  w->disasm.reset(mc.target->createMCDisassembler(*w->sti, *w->ctx));
  w->printer.reset(
      mc.target->createMCInstPrinter(mc.triple, /*SyntaxVariant=*/0, *mc.mai, *mc.mii, *mc.mri));
  if (!w->disasm || !w->printer)
    throw Error("cannot create LLVM AMDGPU disassembler/printer", target.str(), "", kExitInternal);
  w->text.reserve(256);
  return w;
}

void Decoder::Impl::fail(std::span<const uint8_t> bytes, uint64_t address) const {
  auto shown = bytes.first(std::min(bytes.size(), kMaxInstBytes));
  std::string what = "cannot decode instruction bytes [" + hex_bytes(shown) + "] as " + target.str();
  if (bytes.size() < 8) what += " (only " + std::to_string(bytes.size()) + " bytes left: truncated?)";
  throw Error(what, "address " + hex_address(address),
              "check that the bytes are code (not data or padding) for this target");
}

void Decoder::Impl::decode(Worker& w, std::span<const uint8_t> bytes, uint64_t address,
                           Instruction& out) const {
  // LLVM 22's AMDGPU disassembler crashes (a dangling Twine while it reports the operand) on the VOP3 /
  // VOP3P encodings (first dword bits 31:26 = 110100) with the literal constant (255) in a source field, or
  // in a VOPC's SDST field. gfx9 has no VOP3 literals, so such bytes are never code: refuse them cleanly.
  if (bytes.size() >= 8) {
    auto dword = [&](size_t i) {
      return static_cast<uint32_t>(bytes[i]) | bytes[i + 1] << 8 | bytes[i + 2] << 16 | static_cast<uint32_t>(bytes[i + 3]) << 24;
    };
    const uint32_t w0 = dword(0), w1 = dword(4);
    if ((w0 >> 26) == 0x34) {
      bool literal = (w1 & 0x1ff) == 0xff || (w1 >> 9 & 0x1ff) == 0xff || (w1 >> 18 & 0x1ff) == 0xff;
      bool vopc_literal_dst = ((w0 >> 16) & 0x3ff) < 0x100 && (w0 & 0xff) == 0xff;  // VOPC opcodes are below 0x100
      if (literal || vopc_literal_dst) fail(bytes, address);
    }
  }
  llvm::MCInst mi;
  uint64_t size = 0;
  // SoftFail ("decoded but unpredictable") is accepted, as llvm-objdump does. LLVM 22's AMDGPU
  // disassembler crashes on some invalid encodings (MUBUF with a literal soffset, for one; found by
  // tests/emu/isa_decode_variants_test.cpp): it runs under crash recovery, and bytes it crashes on
  // are refused like any undecodable bytes instead of ending the process.
  static std::once_flag recovery;
  std::call_once(recovery, [] { llvm::CrashRecoveryContext::Enable(); });
  auto status = llvm::MCDisassembler::Fail;
  llvm::CrashRecoveryContext crc;
  const bool ran = crc.RunSafely([&] {
    status = w.disasm->getInstruction(mi, size, llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()), address, llvm::nulls());
  });
  if (!ran || status == llvm::MCDisassembler::Fail || size == 0 || size > bytes.size()) fail(bytes, address);

  out.address = address;
  out.size = static_cast<uint32_t>(size);
  out.bytes.assign(bytes.begin(), bytes.begin() + size);
  out.opcode = mi.getOpcode();

  w.text.clear();
  {
    llvm::raw_string_ostream os(w.text);
    w.printer->printInst(&mi, address, /*Annot=*/"", *w.sti, os);
  }
  std::string_view text = w.text;
  text.remove_prefix(std::min(text.find_first_not_of(" \t"), text.size()));
  out.text.assign(text);
  out.mnemonic.assign(text.substr(0, text.find_first_of(" \t")));
  out.cls = classify(out.mnemonic);

  const llvm::MCInstrDesc& desc = mc.mii->get(mi.getOpcode());
  out.is_branch = desc.isBranch();
  out.is_terminator = desc.isTerminator();
  out.is_call = desc.isCall();
  out.is_return = desc.isReturn();
  out.no_fallthrough = desc.isBarrier();
  out.may_load = desc.mayLoad();
  out.may_store = desc.mayStore();
  out.branch_target.reset();

  // The MCInst need not have exactly the descriptor's operands: LLVM's AMDGPU decoder omits
  // trailing ones it does not print (VOP3P op_sel_hi/neg_*, the tied vdst_in of d16 loads) and
  // appends extras (DS). Descriptor facts apply to the common prefix only.
  const unsigned n = mi.getNumOperands();
  const unsigned described = std::min<unsigned>(n, desc.getNumOperands());
  out.operands.clear();
  out.operands.resize(n);
  out.defs.clear();
  out.uses.clear();
  for (unsigned i = 0; i < n; ++i) {
    const llvm::MCOperand& mo = mi.getOperand(i);
    Operand& op = out.operands[i];
    if (i < described) {
      op.is_def = i < desc.getNumDefs();
      op.tied_to = desc.getOperandConstraint(i, llvm::MCOI::TIED_TO);
    }
    if (mo.isReg()) {
      op.kind = Operand::Reg;
      unsigned r = mo.getReg().id();
      if (r == 0 || r >= mc.regs.size()) continue;  // absent optional register: no range, no text
      op.reg = mc.regs[r];
      if (op.reg.file == RegFile::Other)
        op.text = mc.other_names.at(r);
      else
        op.text = to_string(op.reg);
      add_unique(op.is_def ? out.defs : out.uses, op.reg);
    } else if (mo.isImm()) {
      op.kind = Operand::Imm;
      op.imm = mo.getImm();
      if (i < described && desc.operands()[i].OperandType == llvm::MCOI::OPERAND_PCREL)
        // SOPP branches and s_call_b64: signed dword offset from the next instruction.
        out.branch_target = static_cast<int64_t>(address + size) + llvm::SignExtend64<16>(op.imm) * 4;
    } else if (mo.isSFPImm()) {
      op.kind = Operand::FPImm;
      op.fpimm = std::bit_cast<float>(mo.getSFPImm());
    } else if (mo.isDFPImm()) {
      op.kind = Operand::FPImm;
      op.fpimm = std::bit_cast<double>(mo.getDFPImm());
    } else if (mo.isExpr()) {
      op.kind = Operand::Expr;
      llvm::raw_string_ostream os(op.text);
      mc.mai->printExpr(os, *mo.getExpr());
    } else {
      op.kind = Operand::Expr;  // a nested MCInst (bundles): not used by AMDGPU
      op.text = "<inst>";
    }
  }
  // A tied source the decoder left out still reads its register (d16 loads keep the other half).
  for (unsigned j = n; j < desc.getNumOperands(); ++j) {
    int tied = desc.getOperandConstraint(j, llvm::MCOI::TIED_TO);
    if (tied >= 0 && static_cast<unsigned>(tied) < n && mi.getOperand(tied).isReg())
      add_unique(out.uses, out.operands[tied].reg);
  }
  if (reads_own_destination(out)) {
    for (const Operand& op : out.operands)
      if (op.kind == Operand::Reg && op.is_def) add_unique(out.uses, op.reg);
  }
  for (llvm::MCPhysReg r : desc.implicit_defs()) add_unique(out.defs, mc.regs[r]);
  for (llvm::MCPhysReg r : desc.implicit_uses()) add_unique(out.uses, mc.regs[r]);
}

Decoder::Decoder(const codeobj::TargetId& target) : impl_(std::make_unique<Impl>(target)) {}
Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

const codeobj::TargetId& Decoder::target() const { return impl_->target; }

Instruction Decoder::decode_one(std::span<const uint8_t> bytes, uint64_t address) const {
  Impl::Lease lease(*impl_);
  Instruction inst;
  impl_->decode(*lease, bytes, address, inst);
  return inst;
}

std::vector<Instruction> Decoder::decode_range(std::span<const uint8_t> bytes, uint64_t address) const {
  Impl::Lease lease(*impl_);
  std::vector<Instruction> out;
  out.reserve(bytes.size() / 4);  // every instruction has at least 4 bytes: never reallocates
  size_t offset = 0;
  while (offset < bytes.size()) {
    impl_->decode(*lease, bytes.subspan(offset), address + offset, out.emplace_back());
    offset += out.back().size;
  }
  return out;
}

}  // namespace asmevo::program
