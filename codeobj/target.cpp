#include "codeobj/target.h"

#include <llvm/BinaryFormat/ELF.h>

#include <array>
#include <string_view>

namespace asmevo::codeobj {
namespace {

struct MachEntry {
  uint32_t mach;
  const char* processor;
  Arch arch;
};

// EF_AMDGPU_MACH values (llvm/BinaryFormat/ELF.h) for the gfx9 family, the ISA AsmEvo reads.
constexpr std::array kMachTable = {
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX900, "gfx900", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX902, "gfx902", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX904, "gfx904", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX906, "gfx906", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX908, "gfx908", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX909, "gfx909", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90C, "gfx90c", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A, "gfx90a", Arch::gfx90a},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942, "gfx942", Arch::gfx942},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950, "gfx950", Arch::gfx950},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX9_GENERIC, "gfx9-generic", Arch::Other},
    MachEntry{llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX9_4_GENERIC, "gfx9-4-generic", Arch::Other},
};

void append_feature(std::string& s, const char* name, FeatureSetting f) {
  if (f == FeatureSetting::On) s += std::string(":") + name + "+";
  if (f == FeatureSetting::Off) s += std::string(":") + name + "-";
}

FeatureSetting v4_setting(uint32_t bits, uint32_t any, uint32_t off, uint32_t on) {
  if (bits == on) return FeatureSetting::On;
  if (bits == off) return FeatureSetting::Off;
  if (bits == any) return FeatureSetting::Any;
  return FeatureSetting::Unsupported;
}

}  // namespace

std::string TargetId::str() const {
  // LLVM orders features alphabetically in target IDs: sramecc before xnack.
  std::string s = processor;
  append_feature(s, "sramecc", sramecc);
  append_feature(s, "xnack", xnack);
  return s;
}

std::string TargetId::mc_features() const {
  std::string s;
  auto add = [&](const char* name, FeatureSetting f) {
    if (f != FeatureSetting::On && f != FeatureSetting::Off) return;
    if (!s.empty()) s += ",";
    s += (f == FeatureSetting::On ? "+" : "-");
    s += name;
  };
  add("xnack", xnack);
  add("sramecc", sramecc);
  return s;
}

std::optional<TargetId> target_from_eflags(uint32_t e_flags, uint8_t abi_version) {
  uint32_t mach = e_flags & llvm::ELF::EF_AMDGPU_MACH;
  TargetId t;
  bool found = false;
  for (const auto& e : kMachTable) {
    if (e.mach == mach) {
      t.processor = e.processor;
      t.arch = e.arch;
      found = true;
    }
  }
  if (!found) return std::nullopt;
  using namespace llvm::ELF;
  if (abi_version == ELFABIVERSION_AMDGPU_HSA_V3) {
    t.xnack = (e_flags & EF_AMDGPU_FEATURE_XNACK_V3) ? FeatureSetting::On : FeatureSetting::Any;
    t.sramecc = (e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3) ? FeatureSetting::On : FeatureSetting::Any;
  } else if (abi_version >= ELFABIVERSION_AMDGPU_HSA_V4) {
    t.xnack = v4_setting(e_flags & EF_AMDGPU_FEATURE_XNACK_V4, EF_AMDGPU_FEATURE_XNACK_ANY_V4,
                         EF_AMDGPU_FEATURE_XNACK_OFF_V4, EF_AMDGPU_FEATURE_XNACK_ON_V4);
    t.sramecc = v4_setting(e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4, EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                           EF_AMDGPU_FEATURE_SRAMECC_OFF_V4, EF_AMDGPU_FEATURE_SRAMECC_ON_V4);
  }
  if (abi_version >= ELFABIVERSION_AMDGPU_HSA_V6)
    t.generic_version = (e_flags & EF_AMDGPU_GENERIC_VERSION) >> EF_AMDGPU_GENERIC_VERSION_OFFSET;
  return t;
}

std::optional<TargetId> parse_target_id(const std::string& text) {
  std::string_view s = text;
  constexpr std::string_view kTriple = "amdgcn-amd-amdhsa--";
  if (s.substr(0, kTriple.size()) == kTriple) s.remove_prefix(kTriple.size());
  size_t colon = s.find(':');
  std::string processor(s.substr(0, colon));
  TargetId t;
  bool found = false;
  for (const auto& e : kMachTable) {
    if (processor == e.processor) {
      t.processor = e.processor;
      t.arch = e.arch;
      found = true;
    }
  }
  if (!found) return std::nullopt;
  t.xnack = t.sramecc = FeatureSetting::Any;
  while (colon != std::string_view::npos) {
    s.remove_prefix(colon + 1);
    colon = s.find(':');
    std::string_view feat = s.substr(0, colon);
    if (feat.size() < 2) return std::nullopt;
    char sign = feat.back();
    if (sign != '+' && sign != '-') return std::nullopt;
    std::string_view name = feat.substr(0, feat.size() - 1);
    FeatureSetting v = sign == '+' ? FeatureSetting::On : FeatureSetting::Off;
    if (name == "xnack") t.xnack = v;
    else if (name == "sramecc") t.sramecc = v;
    else return std::nullopt;
  }
  return t;
}

const char* to_string(Arch a) {
  switch (a) {
    case Arch::gfx90a: return "gfx90a";
    case Arch::gfx942: return "gfx942";
    case Arch::gfx950: return "gfx950";
    case Arch::Other: return "other";
  }
  return "?";
}

const char* to_string(FeatureSetting f) {
  switch (f) {
    case FeatureSetting::Unsupported: return "unsupported";
    case FeatureSetting::Any: return "any";
    case FeatureSetting::Off: return "off";
    case FeatureSetting::On: return "on";
  }
  return "?";
}

}  // namespace asmevo::codeobj
