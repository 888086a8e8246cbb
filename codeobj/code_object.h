// One AMDGPU code object: its ELF, target, code-object version, metadata, kernels (each with
// its kernel descriptor, code range and derived resources) and device functions.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codeobj/elf.h"
#include "codeobj/kernel_descriptor.h"
#include "codeobj/metadata.h"
#include "codeobj/resources.h"
#include "codeobj/target.h"

namespace asmevo::codeobj {

struct Kernel {
  std::string name;            // kernel function symbol
  std::optional<size_t> metadata_index;  // into Metadata::kernels()
  uint64_t kd_address = 0;     // address of "<name>.kd"
  KernelDescriptor kd;
  uint64_t code_address = 0;   // kd_address + kernel_code_entry_byte_offset
  uint64_t code_size = 0;      // from the symbol size, or up to the next function symbol
  std::optional<Resources> resources;  // for modeled processors only
};

// A function symbol in .text that is not a kernel entry (called with s_swappc / s_setpc).
struct DeviceFunction {
  std::string name;
  uint64_t address = 0, size = 0;
};

class CodeObject {
 public:
  // Parses and validates a bare AMDGPU code object. `name` is used in messages.
  static CodeObject parse(std::vector<uint8_t> bytes, const std::string& name);

  const ElfFile& elf() const { return elf_; }
  ElfFile& elf() { return elf_; }
  const TargetId& target() const { return target_; }
  unsigned version() const { return version_; }  // code object version 2..6 from the ELF ABI version
  const std::optional<Metadata>& metadata() const { return metadata_; }
  const std::vector<Kernel>& kernels() const { return kernels_; }
  const std::vector<DeviceFunction>& device_functions() const { return functions_; }
  const Kernel* kernel(const std::string& name) const;
  const KernelMetadata* kernel_metadata(const Kernel& k) const;

  // Bytes of a kernel's code.
  std::span<const uint8_t> code_bytes(const Kernel& k) const;

  // In-place edits written back into the ELF image (same layout; see ElfFile::overwrite).
  void write_kernel_descriptor(const std::string& kernel, const KernelDescriptor& kd);
  // Re-encodes `md` into the metadata note; it must encode to exactly the note's current size.
  void write_metadata(const Metadata& md);
  std::vector<uint8_t> write() const { return elf_.write(); }

 private:
  void discover_kernels();
  ElfFile elf_;
  TargetId target_;
  unsigned version_ = 0;
  std::optional<Metadata> metadata_;
  std::optional<size_t> metadata_note_;  // index into elf_.notes()
  std::vector<Kernel> kernels_;
  std::vector<DeviceFunction> functions_;
};

}  // namespace asmevo::codeobj
