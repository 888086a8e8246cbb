// AMDGPU HSA metadata (the NT_AMDGPU_METADATA msgpack note): the whole document, kept
// losslessly, plus typed read access to kernels and their arguments (AMDGPUUsage, "Code
// Object V3+ Metadata"). Objects whose ELF ABI says v5/v6 but whose note still uses the
// v3 layout (amdhsa.version [1,0]) are read the same way; `version()` reports what the note says.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace llvm::msgpack {
class Document;
}

namespace asmevo::codeobj {

struct KernelArg {
  std::string name, type_name;  // optional in the note: empty when absent
  uint64_t offset = 0, size = 0;
  std::string value_kind;       // "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string address_space;    // "global", "constant", "local", ... (empty when absent)
  std::string access, actual_access;
  std::optional<uint64_t> pointee_align;
  bool is_const = false, is_restrict = false, is_volatile = false, is_pipe = false;
  bool is_hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

struct KernelMetadata {
  std::string name, symbol;  // source name and "<name>.kd"
  std::vector<KernelArg> args;
  uint64_t group_segment_fixed_size = 0, private_segment_fixed_size = 0;
  uint64_t kernarg_segment_size = 0, kernarg_segment_align = 0;
  uint64_t wavefront_size = 0, sgpr_count = 0, vgpr_count = 0, max_flat_workgroup_size = 0;
  std::optional<uint64_t> agpr_count, sgpr_spill_count, vgpr_spill_count;
  bool uniform_work_group_size = false, uses_dynamic_stack = false;
  std::optional<std::array<uint64_t, 3>> reqd_workgroup_size, workgroup_size_hint;
  std::string language;  // optional
  size_t explicit_arg_count() const;
  // Bytes from the kernarg base to the end of the last argument or of .kernarg_segment_size, whichever
  // is further: what a dispatch must provide so that every argument the metadata lists has its bytes.
  uint64_t kernarg_extent() const;
};

// Inconsistencies in the argument layout that loaders accept (so AsmEvo reads the object) but that a
// user should know of: explicit arguments beyond .kernarg_segment_size. One message per run of them.
std::vector<std::string> kernarg_layout_warnings(const KernelMetadata& k);

class Metadata {
 public:
  Metadata();
  ~Metadata();
  Metadata(const Metadata&);
  Metadata& operator=(const Metadata&);
  Metadata(Metadata&&) noexcept;
  Metadata& operator=(Metadata&&) noexcept;

  // Parses the note descriptor; `where` names it in errors. Throws asmevo::Error.
  static Metadata parse(std::span<const uint8_t> blob, const std::string& where);

  std::array<uint64_t, 2> version() const { return version_; }  // amdhsa.version
  const std::string& target() const { return target_; }          // amdhsa.target (v4+ notes)
  const std::vector<KernelMetadata>& kernels() const { return kernels_; }
  const KernelMetadata* kernel(const std::string& name) const;

  // Sets an unsigned integer key in kernel `kernel_name`'s map (e.g. ".vgpr_count") and
  // refreshes the typed view. Throws if the kernel does not exist.
  void set_kernel_uint(const std::string& kernel_name, const std::string& key, uint64_t value);

  // Re-encodes the document as msgpack. Unedited documents encode to the bytes they were
  // read from when the producer used canonical msgpack (LLVM does).
  std::vector<uint8_t> encode() const;
  const std::vector<uint8_t>& original_blob() const { return blob_; }

  // The whole document as JSON (maps → objects, arrays → arrays, binary → hex string).
  nlohmann::json to_json() const;

 private:
  void refresh(const std::string& where);
  std::unique_ptr<llvm::msgpack::Document> doc_;
  std::vector<uint8_t> backing_;  // the bytes doc_'s strings point into; never reassigned after parse
  std::vector<uint8_t> blob_;     // the note as it was read (a copy keeps its original's)
  std::array<uint64_t, 2> version_{0, 0};
  std::string target_;
  std::vector<KernelMetadata> kernels_;
};

}  // namespace asmevo::codeobj
