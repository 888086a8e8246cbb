#include "codeobj/code_object.h"

#include <llvm/BinaryFormat/ELF.h>

#include <algorithm>
#include <map>

#include "support/error.h"

namespace asmevo::codeobj {
namespace {

constexpr const char* kKdSuffix = ".kd";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_function_symbol(const ElfSymbol& s) {
  return s.type == llvm::ELF::STT_FUNC || s.type == llvm::ELF::STT_AMDGPU_HSA_KERNEL;
}

}  // namespace

CodeObject CodeObject::parse(std::vector<uint8_t> bytes, const std::string& name) {
  CodeObject co;
  co.elf_ = ElfFile::parse(std::move(bytes), name);
  const auto& elf = co.elf_;
  if (elf.machine() != llvm::ELF::EM_AMDGPU)
    throw Error("ELF machine is " + std::to_string(elf.machine()) + ", not AMDGPU (224)", name,
                "pass an AMDGPU code object; for a host program or library AsmEvo extracts the embedded ones");
  if (elf.os_abi() != llvm::ELF::ELFOSABI_AMDGPU_HSA)
    throw Error("OS ABI " + std::to_string(elf.os_abi()) + " is not AMDGPU HSA (64); PAL and Mesa objects are unsupported",
                name, "AsmEvo reads HSA code objects (ROCm, hipcc, Triton)");
  uint8_t abi = elf.abi_version();
  if (abi < llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V3 || abi > llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    throw Error("code object ABI version " + std::to_string(abi) + " is unsupported (v3..v6 are read)", name,
                "rebuild with -mcode-object-version=4, 5 or 6");
  co.version_ = abi + 2u;  // ELFABIVERSION_AMDGPU_HSA_V3 == 1
  auto target = target_from_eflags(elf.flags(), abi);
  if (!target) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", elf.flags() & llvm::ELF::EF_AMDGPU_MACH);
    throw Error(std::string("unknown AMDGPU processor (EF_AMDGPU_MACH ") + buf + ")", name,
                "AsmEvo reads gfx9 code objects (gfx90a, gfx942, gfx950 are modeled)");
  }
  co.target_ = *target;

  const auto& notes = elf.notes();
  for (size_t i = 0; i < notes.size(); ++i) {
    if (notes[i].owner == "AMDGPU" && notes[i].type == llvm::ELF::NT_AMDGPU_METADATA) {
      if (co.metadata_note_) throw Error("more than one AMDGPU metadata note", name, "the object is malformed");
      co.metadata_note_ = i;
      co.metadata_ = Metadata::parse(notes[i].desc, name + ": metadata note");
    }
  }
  co.discover_kernels();
  return co;
}

void CodeObject::discover_kernels() {
  const auto& elf = elf_;
  const std::string& name = elf.name();
  // Kernel descriptor symbols: from the metadata when present, else every "*.kd" object symbol.
  std::vector<std::pair<std::string, std::optional<size_t>>> wanted;
  if (metadata_) {
    for (size_t i = 0; i < metadata_->kernels().size(); ++i) wanted.emplace_back(metadata_->kernels()[i].symbol, i);
  } else {
    for (const auto& s : elf.symbols())
      if (ends_with(s.name, kKdSuffix) && s.type == llvm::ELF::STT_OBJECT) wanted.emplace_back(s.name, std::nullopt);
  }

  // Function symbols by address, to bound code ranges.
  std::map<uint64_t, const ElfSymbol*> functions;
  for (const auto& s : elf.symbols())
    if (is_function_symbol(s) && s.section_index != llvm::ELF::SHN_UNDEF) functions.emplace(s.value, &s);

  for (const auto& [kd_symbol, md_index] : wanted) {
    const ElfSymbol* kds = elf.symbol(kd_symbol);
    const std::string where = name + ": kernel descriptor '" + kd_symbol + "'";
    if (!kds) throw Error("metadata names a kernel descriptor symbol that the symbol table lacks", where,
                          "the object is malformed or stripped; rebuild it without stripping symbols");
    auto bytes = elf.bytes_at_address(kds->value, KernelDescriptor::kSize);
    if (!bytes) throw Error("the 64-byte kernel descriptor at address " + std::to_string(kds->value) +
                                " is not inside an allocated section", where, "the object is malformed");
    Kernel k;
    k.name = kd_symbol.substr(0, kd_symbol.size() - std::string(kKdSuffix).size());
    k.metadata_index = md_index;
    k.kd_address = kds->value;
    k.kd = KernelDescriptor::decode(*bytes);
    k.code_address = k.kd_address + static_cast<uint64_t>(k.kd.kernel_code_entry_byte_offset);
    const ElfSection* text = elf.section_at_address(k.code_address);
    if (!text || !(text->flags & llvm::ELF::SHF_EXECINSTR) || !text->has_file_data())
      throw Error("kernel code entry (KD address + " + std::to_string(k.kd.kernel_code_entry_byte_offset) +
                      ") is not inside an executable section", where, "the kernel descriptor is corrupt");
    if (k.code_address % 256 != 0)
      throw Error("kernel code entry " + std::to_string(k.code_address) + " is not 256-byte aligned", where,
                  "the kernel descriptor's kernel_code_entry_byte_offset is corrupt");
    auto it = functions.find(k.code_address);
    uint64_t section_end = text->address + text->size;
    if (it != functions.end() && it->second->size > 0) {
      k.code_size = it->second->size;
    } else {
      auto next = functions.upper_bound(k.code_address);
      k.code_size = (next != functions.end() ? std::min(next->first, section_end) : section_end) - k.code_address;
    }
    if (k.code_size > section_end - k.code_address)
      throw Error("kernel code extends past the end of its section", where, "the symbol table is corrupt");
    if (const ArchParams* ap = arch_params(target_.arch))
      k.resources = derive_resources(*ap, k.kd, md_index ? &metadata_->kernels()[*md_index] : nullptr);
    kernels_.push_back(std::move(k));
  }

  for (const auto& [addr, s] : functions) {
    bool is_kernel = std::any_of(kernels_.begin(), kernels_.end(), [&](const Kernel& k) { return k.code_address == addr; });
    if (!is_kernel) functions_.push_back({s->name, s->value, s->size});
  }
}

const Kernel* CodeObject::kernel(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

const KernelMetadata* CodeObject::kernel_metadata(const Kernel& k) const {
  if (!metadata_ || !k.metadata_index) return nullptr;
  return &metadata_->kernels()[*k.metadata_index];
}

std::span<const uint8_t> CodeObject::code_bytes(const Kernel& k) const {
  auto b = elf_.bytes_at_address(k.code_address, k.code_size);
  return b ? *b : std::span<const uint8_t>{};
}

void CodeObject::write_kernel_descriptor(const std::string& kernel_name, const KernelDescriptor& kd) {
  for (auto& k : kernels_) {
    if (k.name != kernel_name) continue;
    auto off = elf_.file_offset_of_address(k.kd_address);
    if (!off) throw Error("kernel descriptor has no file data", elf_.name() + ": " + kernel_name);
    auto bytes = kd.encode();
    elf_.overwrite(*off, bytes, "kernel descriptor of " + kernel_name);
    k.kd = kd;
    return;
  }
  throw Error("no kernel named '" + kernel_name + "'", elf_.name(), "list kernels with `asmevo inspect`");
}

void CodeObject::write_metadata(const Metadata& md) {
  if (!metadata_note_) throw Error("the object has no metadata note to rewrite", elf_.name());
  const ElfNote& note = elf_.notes()[*metadata_note_];
  auto blob = md.encode();
  if (blob.size() != note.desc.size())
    throw Error("re-encoded metadata is " + std::to_string(blob.size()) + " bytes but the note holds " +
                    std::to_string(note.desc.size()),
                elf_.name(), "metadata that changes size needs a full rebuild (`asmevo rebuild`)");
  elf_.overwrite(note.desc_offset, blob, "metadata note");
  metadata_ = md;
}

}  // namespace asmevo::codeobj
