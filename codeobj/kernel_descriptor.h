// The 64-byte AMDHSA kernel descriptor (KD): decoded into named fields and re-encoded.
// Layout and bit fields come from llvm/Support/AMDHSAKernelDescriptor.h (the public header);
// which fields exist on which processors follows AMDGPUUsage "Kernel Descriptor".
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codeobj/target.h"

namespace asmevo::codeobj {

// The five packed words of a KD that hold bit fields.
enum class KdWord { Rsrc1, Rsrc2, Rsrc3, CodeProperties, KernargPreload };

// One named bit field of the KD, e.g. {"compute_pgm_rsrc2.user_sgpr_count", Rsrc2, 1, 5}.
struct KdBitField {
  const char* name;
  KdWord word;
  unsigned shift, width;
  bool gfx90a_plus_only;  // exists on gfx90a/gfx942/gfx950 but not earlier gfx9
};

// Every bit field AsmEvo decodes, in display order (gfx9 meanings).
std::span<const KdBitField> kd_bit_fields();

struct KernelDescriptor {
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;
  std::array<uint8_t, 4> reserved0{};
  int64_t kernel_code_entry_byte_offset = 0;
  std::array<uint8_t, 20> reserved1{};
  uint32_t compute_pgm_rsrc3 = 0;
  uint32_t compute_pgm_rsrc1 = 0;
  uint32_t compute_pgm_rsrc2 = 0;
  uint16_t kernel_code_properties = 0;
  uint16_t kernarg_preload = 0;
  std::array<uint8_t, 4> reserved3{};

  static constexpr size_t kSize = 64;
  static KernelDescriptor decode(std::span<const uint8_t> bytes);  // bytes.size() must be 64
  std::array<uint8_t, kSize> encode() const;

  uint32_t word(KdWord w) const;
  uint32_t get(const KdBitField& f) const;
  void set(const KdBitField& f, uint32_t value);
  // Field by name (as in kd_bit_fields()); throws asmevo::Error for an unknown name.
  uint32_t get(const std::string& name) const;
  void set(const std::string& name, uint32_t value);

  // Frequently used fields, named.
  unsigned user_sgpr_count() const { return get("compute_pgm_rsrc2.user_sgpr_count"); }
  unsigned vgpr_blocks() const { return get("compute_pgm_rsrc1.granulated_workitem_vgpr_count"); }
  unsigned sgpr_blocks() const { return get("compute_pgm_rsrc1.granulated_wavefront_sgpr_count"); }
  unsigned accum_offset_field() const { return get("compute_pgm_rsrc3.accum_offset"); }
  unsigned kernarg_preload_length() const { return get("kernarg_preload.length"); }
  unsigned kernarg_preload_offset() const { return get("kernarg_preload.offset"); }
  unsigned workitem_id_vgprs() const { return get("compute_pgm_rsrc2.enable_vgpr_workitem_id"); }

  // Nonzero reserved bytes or reserved bits; a well-formed KD has none. Each entry names one.
  std::vector<std::string> reserved_violations(Arch arch) const;

  bool operator==(const KernelDescriptor&) const = default;
};

}  // namespace asmevo::codeobj
