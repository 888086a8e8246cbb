// Drafts a launch spec (v2 YAML, docs/emulator.md "Drafting a spec: asmevo spec") for one kernel
// from what its code object says about it: the AMDGPU metadata (arguments, workgroup limits) and
// the kernel descriptor (static LDS, private segment). What the metadata cannot tell (problem
// sizes, element types it does not record, whether a buffer is written) is left as the placeholder
// FILL, which the launch spec parser rejects, so a draft cannot be run until a person completes it.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "codeobj/metadata.h"

namespace asmevo::verify {

// The placeholder for every value the draft cannot know.
inline constexpr const char* kFill = "FILL";

// Everything the draft is made from, so that it can also be drafted for metadata built in memory.
struct KernelFacts {
  codeobj::KernelMetadata metadata;
  uint64_t static_lds_bytes = 0;       // KD group_segment_fixed_size
  uint64_t private_segment_bytes = 0;  // KD private_segment_fixed_size, per work-item
  unsigned code_object_version = 0;    // from the ELF ABI version (4, 5, 6)
  std::string target;                  // e.g. "amdgcn-amd-amdhsa--gfx942"
  std::string origin;                  // the code object, for the header comment
};

// The launch spec draft for one kernel, as YAML text with explanatory comments.
std::string draft_launch_spec(const KernelFacts& facts);

struct SpecDraft {
  std::string kernel;  // the kernel drafted for
  std::string origin;  // the code object its metadata came from
  std::string yaml;
};

// Drafts for `kernel` in a file holding code objects (bare, offload bundle, host ELF). An empty
// `kernel` means "the only kernel in the file". Throws asmevo::Error (exit code 2) listing the
// kernels when `kernel` names none of them, or when it is empty and the file holds several.
// Several code objects holding the kernel (one per processor in a bundle): the first is drafted from.
SpecDraft draft_launch_spec_for_file(std::span<const uint8_t> file_bytes, const std::string& file_name,
                                     const std::string& kernel);

}  // namespace asmevo::verify
