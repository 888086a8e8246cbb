#include "codeobj/kernel_descriptor.h"

#include <llvm/Support/AMDHSAKernelDescriptor.h>

#include <cstring>

#include "support/error.h"

namespace asmevo::codeobj {
namespace {

using namespace llvm::amdhsa;

#define KD_FIELD(label, word, MASK, gfx90a_only) \
  KdBitField { label, KdWord::word, MASK##_SHIFT, MASK##_WIDTH, gfx90a_only }

// gfx9 view of the KD bit fields (AMDGPUUsage, "compute_pgm_rsrc1/2/3 for GFX6-GFX12").
constexpr KdBitField kFields[] = {
    KD_FIELD("compute_pgm_rsrc1.granulated_workitem_vgpr_count", Rsrc1, COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, false),
    KD_FIELD("compute_pgm_rsrc1.granulated_wavefront_sgpr_count", Rsrc1, COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, false),
    KD_FIELD("compute_pgm_rsrc1.priority", Rsrc1, COMPUTE_PGM_RSRC1_PRIORITY, false),
    KD_FIELD("compute_pgm_rsrc1.float_round_mode_32", Rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32, false),
    KD_FIELD("compute_pgm_rsrc1.float_round_mode_16_64", Rsrc1, COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64, false),
    KD_FIELD("compute_pgm_rsrc1.float_denorm_mode_32", Rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32, false),
    KD_FIELD("compute_pgm_rsrc1.float_denorm_mode_16_64", Rsrc1, COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64, false),
    KD_FIELD("compute_pgm_rsrc1.priv", Rsrc1, COMPUTE_PGM_RSRC1_PRIV, false),
    KD_FIELD("compute_pgm_rsrc1.enable_dx10_clamp", Rsrc1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP, false),
    KD_FIELD("compute_pgm_rsrc1.debug_mode", Rsrc1, COMPUTE_PGM_RSRC1_DEBUG_MODE, false),
    KD_FIELD("compute_pgm_rsrc1.enable_ieee_mode", Rsrc1, COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE, false),
    KD_FIELD("compute_pgm_rsrc1.bulky", Rsrc1, COMPUTE_PGM_RSRC1_BULKY, false),
    KD_FIELD("compute_pgm_rsrc1.cdbg_user", Rsrc1, COMPUTE_PGM_RSRC1_CDBG_USER, false),
    KD_FIELD("compute_pgm_rsrc1.fp16_ovfl", Rsrc1, COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL, false),
    KD_FIELD("compute_pgm_rsrc2.enable_private_segment", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT, false),
    KD_FIELD("compute_pgm_rsrc2.user_sgpr_count", Rsrc2, COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT, false),
    KD_FIELD("compute_pgm_rsrc2.enable_trap_handler", Rsrc2, COMPUTE_PGM_RSRC2_GFX6_GFX11_ENABLE_TRAP_HANDLER, false),
    KD_FIELD("compute_pgm_rsrc2.enable_sgpr_workgroup_id_x", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X, false),
    KD_FIELD("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y, false),
    KD_FIELD("compute_pgm_rsrc2.enable_sgpr_workgroup_id_z", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z, false),
    KD_FIELD("compute_pgm_rsrc2.enable_sgpr_workgroup_info", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO, false),
    KD_FIELD("compute_pgm_rsrc2.enable_vgpr_workitem_id", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_address_watch", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_ADDRESS_WATCH, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_memory", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_MEMORY, false),
    KD_FIELD("compute_pgm_rsrc2.granulated_lds_size", Rsrc2, COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_fp_denormal_source", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_FP_DENORMAL_SOURCE, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INEXACT, false),
    KD_FIELD("compute_pgm_rsrc2.enable_exception_int_divide_by_zero", Rsrc2, COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO, false),
    KD_FIELD("compute_pgm_rsrc3.accum_offset", Rsrc3, COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET, true),
    KD_FIELD("compute_pgm_rsrc3.tg_split", Rsrc3, COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT, true),
    KD_FIELD("kernel_code_properties.enable_sgpr_private_segment_buffer", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_dispatch_ptr", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_queue_ptr", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_kernarg_segment_ptr", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_dispatch_id", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_flat_scratch_init", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT, false),
    KD_FIELD("kernel_code_properties.enable_sgpr_private_segment_size", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE, false),
    KD_FIELD("kernel_code_properties.enable_wavefront_size32", CodeProperties, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32, false),
    KD_FIELD("kernel_code_properties.uses_dynamic_stack", CodeProperties, KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK, false),
    KD_FIELD("kernarg_preload.length", KernargPreload, KERNARG_PRELOAD_SPEC_LENGTH, true),
    KD_FIELD("kernarg_preload.offset", KernargPreload, KERNARG_PRELOAD_SPEC_OFFSET, true),
};
#undef KD_FIELD

// Reserved bits per word on gfx9 (AMDGPUUsage marks them "must be 0").
struct ReservedBits {
  KdWord word;
  uint32_t mask;
  const char* name;
};
constexpr ReservedBits kReserved[] = {
    {KdWord::Rsrc1, static_cast<uint32_t>(COMPUTE_PGM_RSRC1_GFX6_GFX120_RESERVED1 | COMPUTE_PGM_RSRC1_RESERVED2 | COMPUTE_PGM_RSRC1_GFX6_GFX9_RESERVED3), "compute_pgm_rsrc1 reserved bits"},
    {KdWord::Rsrc2, static_cast<uint32_t>(COMPUTE_PGM_RSRC2_RESERVED0), "compute_pgm_rsrc2 reserved bit 31"},
    {KdWord::Rsrc3, COMPUTE_PGM_RSRC3_GFX90A_RESERVED0 | static_cast<uint32_t>(COMPUTE_PGM_RSRC3_GFX90A_RESERVED1), "compute_pgm_rsrc3 reserved bits"},
    {KdWord::CodeProperties, KERNEL_CODE_PROPERTY_RESERVED0 | KERNEL_CODE_PROPERTY_RESERVED1, "kernel_code_properties reserved bits"},
};

uint32_t load_u32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
uint16_t load_u16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }

const KdBitField& find_field(const std::string& name) {
  for (const auto& f : kFields)
    if (name == f.name) return f;
  throw Error("unknown kernel-descriptor field '" + name + "'", "", "see `asmevo inspect --json` for field names");
}

}  // namespace

std::span<const KdBitField> kd_bit_fields() { return kFields; }

KernelDescriptor KernelDescriptor::decode(std::span<const uint8_t> b) {
  if (b.size() != kSize) throw Error("kernel descriptor must be 64 bytes, got " + std::to_string(b.size()));
  KernelDescriptor kd;
  kd.group_segment_fixed_size = load_u32(&b[GROUP_SEGMENT_FIXED_SIZE_OFFSET]);
  kd.private_segment_fixed_size = load_u32(&b[PRIVATE_SEGMENT_FIXED_SIZE_OFFSET]);
  kd.kernarg_size = load_u32(&b[KERNARG_SIZE_OFFSET]);
  std::memcpy(kd.reserved0.data(), &b[RESERVED0_OFFSET], 4);
  std::memcpy(&kd.kernel_code_entry_byte_offset, &b[KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET], 8);
  std::memcpy(kd.reserved1.data(), &b[RESERVED1_OFFSET], 20);
  kd.compute_pgm_rsrc3 = load_u32(&b[COMPUTE_PGM_RSRC3_OFFSET]);
  kd.compute_pgm_rsrc1 = load_u32(&b[COMPUTE_PGM_RSRC1_OFFSET]);
  kd.compute_pgm_rsrc2 = load_u32(&b[COMPUTE_PGM_RSRC2_OFFSET]);
  kd.kernel_code_properties = load_u16(&b[KERNEL_CODE_PROPERTIES_OFFSET]);
  kd.kernarg_preload = load_u16(&b[KERNARG_PRELOAD_OFFSET]);
  std::memcpy(kd.reserved3.data(), &b[RESERVED3_OFFSET], 4);
  return kd;
}

std::array<uint8_t, KernelDescriptor::kSize> KernelDescriptor::encode() const {
  std::array<uint8_t, kSize> b{};
  std::memcpy(&b[GROUP_SEGMENT_FIXED_SIZE_OFFSET], &group_segment_fixed_size, 4);
  std::memcpy(&b[PRIVATE_SEGMENT_FIXED_SIZE_OFFSET], &private_segment_fixed_size, 4);
  std::memcpy(&b[KERNARG_SIZE_OFFSET], &kernarg_size, 4);
  std::memcpy(&b[RESERVED0_OFFSET], reserved0.data(), 4);
  std::memcpy(&b[KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET], &kernel_code_entry_byte_offset, 8);
  std::memcpy(&b[RESERVED1_OFFSET], reserved1.data(), 20);
  std::memcpy(&b[COMPUTE_PGM_RSRC3_OFFSET], &compute_pgm_rsrc3, 4);
  std::memcpy(&b[COMPUTE_PGM_RSRC1_OFFSET], &compute_pgm_rsrc1, 4);
  std::memcpy(&b[COMPUTE_PGM_RSRC2_OFFSET], &compute_pgm_rsrc2, 4);
  std::memcpy(&b[KERNEL_CODE_PROPERTIES_OFFSET], &kernel_code_properties, 2);
  std::memcpy(&b[KERNARG_PRELOAD_OFFSET], &kernarg_preload, 2);
  std::memcpy(&b[RESERVED3_OFFSET], reserved3.data(), 4);
  return b;
}

uint32_t KernelDescriptor::word(KdWord w) const {
  switch (w) {
    case KdWord::Rsrc1: return compute_pgm_rsrc1;
    case KdWord::Rsrc2: return compute_pgm_rsrc2;
    case KdWord::Rsrc3: return compute_pgm_rsrc3;
    case KdWord::CodeProperties: return kernel_code_properties;
    case KdWord::KernargPreload: return kernarg_preload;
  }
  return 0;
}

uint32_t KernelDescriptor::get(const KdBitField& f) const {
  return (word(f.word) >> f.shift) & ((1u << f.width) - 1);
}

void KernelDescriptor::set(const KdBitField& f, uint32_t value) {
  uint32_t max = (1u << f.width) - 1;
  if (value > max)
    throw Error("value " + std::to_string(value) + " does not fit kernel-descriptor field " + f.name + " (max " +
                std::to_string(max) + ")");
  uint32_t mask = max << f.shift;
  auto apply = [&](auto& w) { w = static_cast<std::remove_reference_t<decltype(w)>>((w & ~mask) | (value << f.shift)); };
  switch (f.word) {
    case KdWord::Rsrc1: apply(compute_pgm_rsrc1); break;
    case KdWord::Rsrc2: apply(compute_pgm_rsrc2); break;
    case KdWord::Rsrc3: apply(compute_pgm_rsrc3); break;
    case KdWord::CodeProperties: apply(kernel_code_properties); break;
    case KdWord::KernargPreload: apply(kernarg_preload); break;
  }
}

uint32_t KernelDescriptor::get(const std::string& name) const { return get(find_field(name)); }
void KernelDescriptor::set(const std::string& name, uint32_t value) { set(find_field(name), value); }

std::vector<std::string> KernelDescriptor::reserved_violations(Arch arch) const {
  std::vector<std::string> out;
  auto nonzero = [](const auto& arr) {
    for (auto b : arr)
      if (b) return true;
    return false;
  };
  if (nonzero(reserved0)) out.push_back("reserved bytes 12..15");
  if (nonzero(reserved1)) out.push_back("reserved bytes 24..43");
  if (nonzero(reserved3)) out.push_back("reserved bytes 60..63");
  bool gfx90a_plus = arch == Arch::gfx90a || arch == Arch::gfx942 || arch == Arch::gfx950;
  for (const auto& r : kReserved) {
    if (r.word == KdWord::Rsrc3 && !gfx90a_plus) {
      if (compute_pgm_rsrc3 != 0) out.push_back("compute_pgm_rsrc3 (must be 0 before gfx90a)");
      continue;
    }
    if (word(r.word) & r.mask) out.push_back(r.name);
  }
  if (!gfx90a_plus && kernarg_preload != 0) out.push_back("kernarg_preload (must be 0 before gfx90a)");
  return out;
}

}  // namespace asmevo::codeobj
