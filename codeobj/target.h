// The target a code object is built for: processor plus the xnack/sramecc feature settings,
// decoded from ELF e_flags and printable as an LLVM target ID ("gfx942:sramecc+:xnack-").
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace asmevo::codeobj {

// Instinct processors AsmEvo models. Other gfx9 processors decode and print, but are
// `Arch::Other` and are refused by stages that need a hardware model.
enum class Arch { gfx90a, gfx942, gfx950, Other };

enum class FeatureSetting { Unsupported, Any, Off, On };

struct TargetId {
  std::string processor;  // LLVM -mcpu name: "gfx942", "gfx9-4-generic", ...
  Arch arch = Arch::Other;
  FeatureSetting xnack = FeatureSetting::Unsupported;
  FeatureSetting sramecc = FeatureSetting::Unsupported;
  unsigned generic_version = 0;  // code object v6 generic targets only

  // "gfx942:sramecc+:xnack-" (features omitted when Unsupported or Any, as LLVM prints them).
  std::string str() const;
  // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  std::string full() const { return "amdgcn-amd-amdhsa--" + str(); }
  // Subtarget feature string for LLVM MC: "+xnack,-sramecc" etc. (empty settings omitted).
  std::string mc_features() const;
  bool operator==(const TargetId&) const = default;
};

// Decodes EF_AMDGPU_MACH and the feature bits. `abi_version` is e_ident[EI_ABIVERSION];
// v3 objects encode features as single bits, v4+ as two-bit settings.
// Returns nullopt for an unknown machine value.
std::optional<TargetId> target_from_eflags(uint32_t e_flags, uint8_t abi_version);

// Parses "gfx942", "gfx942:xnack-" or "amdgcn-amd-amdhsa--gfx942:sramecc+"; nullopt if unknown.
std::optional<TargetId> parse_target_id(const std::string& text);

const char* to_string(Arch a);
const char* to_string(FeatureSetting f);

}  // namespace asmevo::codeobj
