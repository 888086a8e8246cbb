// Containers that carry code objects: a bare code object, a clang offload bundle
// ("__CLANG_OFFLOAD_BUNDLE__", uncompressed), and a host ELF (executable or shared library)
// whose .hip_fatbin section holds bundles. `extract_code_objects` lists every AMDGPU code
// object inside, with where it came from.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace asmevo::codeobj {

enum class ContainerKind { CodeObject, OffloadBundle, HostElf };

struct EmbeddedCodeObject {
  std::string origin;  // e.g. "lib.so:.hip_fatbin+0x1000:hipv4-amdgcn-amd-amdhsa--gfx942"
  std::string bundle_id;  // offload bundle entry id, empty for a bare code object
  uint64_t offset = 0;    // byte offset inside the input file
  uint64_t bundle_offset = 0;  // where its offload bundle starts in the input file (bundles only)
  std::vector<uint8_t> bytes;
};

struct BundleEntry {
  std::string id;
  uint64_t offset = 0, size = 0;  // relative to the bundle start
};

// Parses an uncompressed offload bundle starting at bytes[0]. Throws asmevo::Error.
std::vector<BundleEntry> parse_offload_bundle(std::span<const uint8_t> bytes, const std::string& where);
bool is_offload_bundle(std::span<const uint8_t> bytes);
bool is_compressed_offload_bundle(std::span<const uint8_t> bytes);

ContainerKind detect_container(std::span<const uint8_t> bytes, const std::string& name);

// Every AMDGPU code object in `bytes` (host entries of bundles are skipped).
// Throws asmevo::Error when the input is none of the supported containers or is malformed.
std::vector<EmbeddedCodeObject> extract_code_objects(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace asmevo::codeobj
