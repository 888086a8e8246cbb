#include "codeobj/elf.h"

#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <cstring>

#include "support/error.h"

namespace asmevo::codeobj {
namespace {

using ELFT = llvm::object::ELF64LE;

// Unwraps an llvm::Expected, turning its error into an asmevo::Error.
template <class T>
T take(llvm::Expected<T> value, const std::string& where, const std::string& what) {
  if (!value) {
    std::string msg = llvm::toString(value.takeError());
    throw Error(what + ": " + msg, where, "the file is not a valid ELF64 object; re-extract or rebuild it");
  }
  return std::move(*value);
}

}  // namespace

bool ElfSection::has_file_data() const { return type != llvm::ELF::SHT_NOBITS && size > 0; }

bool is_elf(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0;
}

ElfFile ElfFile::parse(std::vector<uint8_t> bytes, const std::string& name) {
  ElfFile f;
  f.name_ = name;
  f.image_ = std::move(bytes);
  const auto& img = f.image_;
  if (!is_elf(img)) throw Error("not an ELF file (bad magic)", name, "pass a code object (.co/.hsaco), an offload bundle or a host ELF");
  if (img.size() < sizeof(ELFT::Ehdr)) throw Error("truncated ELF header", name);
  if (img[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 || img[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    throw Error("only 64-bit little-endian ELF is supported", name, "AMDGPU code objects are ELF64 LE");

  llvm::StringRef ref(reinterpret_cast<const char*>(img.data()), img.size());
  auto elf = take(llvm::object::ELFFile<ELFT>::create(ref), name, "cannot parse ELF");
  const auto& eh = elf.getHeader();
  f.e_type_ = eh.e_type;
  f.e_machine_ = eh.e_machine;
  f.e_flags_ = eh.e_flags;
  f.e_entry_ = eh.e_entry;

  auto shdrs = take(elf.sections(), name, "cannot read section headers");
  for (unsigned i = 0; i < shdrs.size(); ++i) {
    const auto& sh = shdrs[i];
    ElfSection s;
    s.index = i;
    s.name = take(elf.getSectionName(sh), name + ": section " + std::to_string(i), "bad section name").str();
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.address = sh.sh_addr;
    s.offset = sh.sh_offset;
    s.size = sh.sh_size;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    s.alignment = sh.sh_addralign;
    s.entry_size = sh.sh_entsize;
    if (s.has_file_data() && (s.offset > img.size() || s.size > img.size() - s.offset))
      throw Error("section '" + s.name + "' extends past the end of the file (offset " + std::to_string(s.offset) +
                      ", size " + std::to_string(s.size) + ", file " + std::to_string(img.size()) + ")",
                  name, "the file is truncated; re-extract or rebuild it");
    f.sections_.push_back(std::move(s));
  }

  auto phdrs = take(elf.program_headers(), name, "cannot read program headers");
  for (const auto& ph : phdrs) {
    ElfSegment g{ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_paddr, ph.p_filesz, ph.p_memsz, ph.p_align};
    if (g.file_size > 0 && (g.offset > img.size() || g.file_size > img.size() - g.offset))
      throw Error("program header extends past the end of the file", name, "the file is truncated");
    f.segments_.push_back(g);
  }

  for (unsigned i = 0; i < shdrs.size(); ++i) {
    const auto& sh = shdrs[i];
    const std::string where = name + ": section '" + f.sections_[i].name + "'";
    if (sh.sh_type == llvm::ELF::SHT_SYMTAB || sh.sh_type == llvm::ELF::SHT_DYNSYM) {
      auto syms = take(elf.symbols(&sh), where, "cannot read symbols");
      auto strtab = take(elf.getStringTableForSymtab(sh, shdrs), where, "cannot read symbol names");
      for (unsigned k = 0; k < syms.size(); ++k) {
        const auto& es = syms[k];
        ElfSymbol s;
        s.index = k;
        s.table_section = i;
        s.name = take(es.getName(strtab), where + " symbol " + std::to_string(k), "bad symbol name").str();
        s.value = es.st_value;
        s.size = es.st_size;
        s.type = es.getType();
        s.binding = es.getBinding();
        s.visibility = es.getVisibility();
        s.section_index = es.st_shndx;
        f.symbols_.push_back(std::move(s));
      }
    } else if (sh.sh_type == llvm::ELF::SHT_RELA) {
      for (const auto& r : take(elf.relas(sh), where, "cannot read relocations"))
        f.relocations_.push_back({i, sh.sh_info, r.r_offset, r.getType(false), r.getSymbol(false), r.r_addend, true});
    } else if (sh.sh_type == llvm::ELF::SHT_REL) {
      for (const auto& r : take(elf.rels(sh), where, "cannot read relocations"))
        f.relocations_.push_back({i, sh.sh_info, r.r_offset, r.getType(false), r.getSymbol(false), 0, false});
    } else if (sh.sh_type == llvm::ELF::SHT_NOTE) {
      llvm::Error err = llvm::Error::success();
      for (const auto& note : elf.notes(sh, err)) {
        ElfNote n;
        n.section = i;
        n.owner = note.getName().str();
        n.type = note.getType();
        auto desc = note.getDesc(sh.sh_addralign);
        n.desc.assign(desc.begin(), desc.end());
        n.desc_offset = static_cast<uint64_t>(desc.data() - img.data());
        f.notes_.push_back(std::move(n));
      }
      if (err) throw Error("malformed note: " + llvm::toString(std::move(err)), where, "the note section is corrupt");
    }
  }
  // Objects without section headers still carry notes through PT_NOTE.
  if (shdrs.empty()) {
    for (const auto& ph : phdrs) {
      if (ph.p_type != llvm::ELF::PT_NOTE) continue;
      llvm::Error err = llvm::Error::success();
      for (const auto& note : elf.notes(ph, err)) {
        ElfNote n;
        n.owner = note.getName().str();
        n.type = note.getType();
        auto desc = note.getDesc(ph.p_align);
        n.desc.assign(desc.begin(), desc.end());
        n.desc_offset = static_cast<uint64_t>(desc.data() - img.data());
        f.notes_.push_back(std::move(n));
      }
      if (err) throw Error("malformed note segment: " + llvm::toString(std::move(err)), name, "the file is corrupt");
    }
  }
  return f;
}

const ElfSection* ElfFile::section(const std::string& name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

const ElfSymbol* ElfFile::symbol(const std::string& name) const {
  for (const auto& s : symbols_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const uint8_t> ElfFile::section_bytes(const ElfSection& s) const {
  if (!s.has_file_data()) return {};
  return std::span<const uint8_t>(image_).subspan(s.offset, s.size);
}

const ElfSection* ElfFile::section_at_address(uint64_t addr) const {
  for (const auto& s : sections_)
    if ((s.flags & llvm::ELF::SHF_ALLOC) && s.size > 0 && addr >= s.address && addr - s.address < s.size) return &s;
  return nullptr;
}

std::optional<uint64_t> ElfFile::file_offset_of_address(uint64_t addr) const {
  const ElfSection* s = section_at_address(addr);
  if (!s || !s->has_file_data()) return std::nullopt;
  return s->offset + (addr - s->address);
}

std::optional<std::span<const uint8_t>> ElfFile::bytes_at_address(uint64_t addr, uint64_t size) const {
  const ElfSection* s = section_at_address(addr);
  if (!s || !s->has_file_data()) return std::nullopt;
  uint64_t rel = addr - s->address;
  if (size > s->size - rel) return std::nullopt;
  return std::span<const uint8_t>(image_).subspan(s->offset + rel, size);
}

void ElfFile::overwrite(uint64_t offset, std::span<const uint8_t> data, const std::string& what) {
  bool inside = false;
  for (const auto& s : sections_)
    if (s.has_file_data() && offset >= s.offset && offset - s.offset <= s.size && data.size() <= s.size - (offset - s.offset))
      inside = true;
  if (!inside)
    throw Error("in-place write of " + std::to_string(data.size()) + " bytes at file offset " + std::to_string(offset) +
                    " does not fit inside one section (" + what + ")",
                name_, "this edit needs a full rebuild, not an in-place patch");
  std::memcpy(image_.data() + offset, data.data(), data.size());
}

}  // namespace asmevo::codeobj
