// A typed model of an ELF64 little-endian file as AMDGPU code objects (and host ELFs that carry
// them) use it. Reading is validated by LLVM's Object library; every malformation becomes an
// asmevo::Error naming the file part. The model keeps the original image so that unedited
// parts are reproduced bit for bit; `write()` emits the image with in-place edits applied.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace asmevo::codeobj {

struct ElfSection {
  unsigned index = 0;
  std::string name;
  uint32_t type = 0;     // SHT_*
  uint64_t flags = 0;    // SHF_*
  uint64_t address = 0;  // sh_addr
  uint64_t offset = 0;   // sh_offset (file)
  uint64_t size = 0;     // sh_size
  uint32_t link = 0, info = 0;
  uint64_t alignment = 0, entry_size = 0;
  bool has_file_data() const;  // not SHT_NOBITS and size > 0
};

struct ElfSegment {
  uint32_t type = 0, flags = 0;  // PT_*, PF_*
  uint64_t offset = 0, vaddr = 0, paddr = 0, file_size = 0, mem_size = 0, alignment = 0;
};

struct ElfSymbol {
  unsigned index = 0;          // index in its symbol table
  unsigned table_section = 0;  // .symtab or .dynsym section index
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0, binding = 0, visibility = 0;  // STT_*, STB_*, STV_*
  uint16_t section_index = 0;                     // st_shndx
};

struct ElfRelocation {
  unsigned section = 0;         // the SHT_REL/SHT_RELA section
  unsigned target_section = 0;  // the section the relocations apply to (sh_info)
  uint64_t offset = 0;
  uint32_t type = 0, symbol = 0;
  int64_t addend = 0;
  bool has_addend = false;
};

struct ElfNote {
  unsigned section = 0;  // section holding it (0 when found only through a PT_NOTE segment)
  std::string owner;
  uint32_t type = 0;
  uint64_t desc_offset = 0;  // file offset of the descriptor
  std::vector<uint8_t> desc;
};

class ElfFile {
 public:
  // Parses `bytes`; `name` is used in error messages. Throws asmevo::Error on malformed input.
  static ElfFile parse(std::vector<uint8_t> bytes, const std::string& name);

  const std::string& name() const { return name_; }
  const std::vector<uint8_t>& image() const { return image_; }

  uint8_t os_abi() const { return image_[7]; }
  uint8_t abi_version() const { return image_[8]; }
  uint16_t type() const { return e_type_; }
  uint16_t machine() const { return e_machine_; }
  uint32_t flags() const { return e_flags_; }
  uint64_t entry() const { return e_entry_; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  const std::vector<ElfRelocation>& relocations() const { return relocations_; }
  const std::vector<ElfNote>& notes() const { return notes_; }

  const ElfSection* section(const std::string& name) const;
  const ElfSymbol* symbol(const std::string& name) const;
  // File bytes of a section (empty for NOBITS).
  std::span<const uint8_t> section_bytes(const ElfSection& s) const;
  // The section containing virtual address `addr` (allocated sections only).
  const ElfSection* section_at_address(uint64_t addr) const;
  // Bytes at a virtual address, within one allocated section with file data; nullopt if the
  // range is not wholly inside one.
  std::optional<std::span<const uint8_t>> bytes_at_address(uint64_t addr, uint64_t size) const;
  std::optional<uint64_t> file_offset_of_address(uint64_t addr) const;

  // In-place edit: overwrite `data.size()` bytes at file offset `offset`. The range must lie
  // inside one section with file data (or the header); layout never changes here.
  void overwrite(uint64_t offset, std::span<const uint8_t> data, const std::string& what);
  std::vector<uint8_t> write() const { return image_; }

 private:
  std::string name_;
  std::vector<uint8_t> image_;
  uint16_t e_type_ = 0, e_machine_ = 0;
  uint32_t e_flags_ = 0;
  uint64_t e_entry_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  std::vector<ElfSymbol> symbols_;
  std::vector<ElfRelocation> relocations_;
  std::vector<ElfNote> notes_;
};

bool is_elf(std::span<const uint8_t> bytes);

}  // namespace asmevo::codeobj
