#include "codeobj/container.h"

#include <llvm/BinaryFormat/ELF.h>

#include <cstdio>
#include <cstring>

#include "codeobj/elf.h"
#include "support/error.h"

namespace asmevo::codeobj {
namespace {

constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";  // 24 bytes, no terminator in the file
constexpr size_t kBundleMagicSize = sizeof(kBundleMagic) - 1;
constexpr char kCompressedMagic[] = "CCOB";

uint64_t load_u64(std::span<const uint8_t> b, uint64_t off) {
  uint64_t v;
  std::memcpy(&v, b.data() + off, 8);
  return v;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool is_amdgpu_elf(std::span<const uint8_t> b) {
  return is_elf(b) && b.size() >= 20 && (b[18] | (b[19] << 8)) == llvm::ELF::EM_AMDGPU;
}

// AMDGPU code objects in one bundle located at `base` inside the whole file.
void extract_from_bundle(std::span<const uint8_t> file, uint64_t base, uint64_t limit, const std::string& where,
                         std::vector<EmbeddedCodeObject>& out) {
  auto bundle = file.subspan(base, limit - base);
  for (const auto& e : parse_offload_bundle(bundle, where + "+" + hex(base))) {
    if (e.id.rfind("host-", 0) == 0 || e.size == 0) continue;
    auto bytes = bundle.subspan(e.offset, e.size);
    if (!is_amdgpu_elf(bytes))
      throw Error("bundle entry '" + e.id + "' is not an AMDGPU ELF code object", where + "+" + hex(base + e.offset),
                  "AsmEvo reads bundles of device code objects (hipv4-/hip-/openmp- entries)");
    out.push_back({where + "+" + hex(base) + ":" + e.id, e.id, base + e.offset, base, {bytes.begin(), bytes.end()}});
  }
}

}  // namespace

bool is_offload_bundle(std::span<const uint8_t> b) {
  return b.size() >= kBundleMagicSize && std::memcmp(b.data(), kBundleMagic, kBundleMagicSize) == 0;
}

bool is_compressed_offload_bundle(std::span<const uint8_t> b) {
  return b.size() >= 4 && std::memcmp(b.data(), kCompressedMagic, 4) == 0;
}

std::vector<BundleEntry> parse_offload_bundle(std::span<const uint8_t> b, const std::string& where) {
  if (!is_offload_bundle(b)) throw Error("not a clang offload bundle (bad magic)", where);
  const std::string fix = "the offload bundle is truncated or corrupt; re-extract it";
  uint64_t pos = kBundleMagicSize;
  if (b.size() < pos + 8) throw Error("truncated bundle header", where, fix);
  uint64_t count = load_u64(b, pos);
  pos += 8;
  // Each entry header is at least 24 bytes; reject counts that cannot fit before allocating.
  if (count > (b.size() - pos) / 24) throw Error("bundle claims " + std::to_string(count) + " entries, more than fit", where, fix);
  std::vector<BundleEntry> entries;
  for (uint64_t i = 0; i < count; ++i) {
    if (b.size() - pos < 24) throw Error("truncated bundle entry header " + std::to_string(i), where, fix);
    BundleEntry e;
    e.offset = load_u64(b, pos);
    e.size = load_u64(b, pos + 8);
    uint64_t id_len = load_u64(b, pos + 16);
    pos += 24;
    if (id_len > b.size() - pos) throw Error("bundle entry " + std::to_string(i) + " id runs past the end", where, fix);
    e.id.assign(reinterpret_cast<const char*>(b.data() + pos), id_len);
    pos += id_len;
    if (e.offset > b.size() || e.size > b.size() - e.offset)
      throw Error("bundle entry '" + e.id + "' (offset " + std::to_string(e.offset) + ", size " + std::to_string(e.size) +
                      ") lies outside the bundle (" + std::to_string(b.size()) + " bytes)",
                  where, fix);
    entries.push_back(std::move(e));
  }
  return entries;
}

ContainerKind detect_container(std::span<const uint8_t> b, const std::string& name) {
  if (is_offload_bundle(b)) return ContainerKind::OffloadBundle;
  if (is_compressed_offload_bundle(b))
    throw Error("compressed offload bundles (CCOB) are not supported yet", name,
                "decompress it first: clang-offload-bundler --unbundle, or build with --no-offload-compress");
  if (!is_elf(b)) throw Error("not an ELF file or offload bundle (unrecognized magic)", name,
                              "pass a code object (.co/.hsaco), an offload bundle, or a host program/library with .hip_fatbin");
  if (is_amdgpu_elf(b)) return ContainerKind::CodeObject;
  return ContainerKind::HostElf;
}

std::vector<EmbeddedCodeObject> extract_code_objects(std::span<const uint8_t> b, const std::string& name) {
  std::vector<EmbeddedCodeObject> out;
  switch (detect_container(b, name)) {
    case ContainerKind::CodeObject:
      out.push_back({name, "", 0, 0, {b.begin(), b.end()}});
      return out;
    case ContainerKind::OffloadBundle:
      extract_from_bundle(b, 0, b.size(), name, out);
      return out;
    case ContainerKind::HostElf: break;
  }
  ElfFile host = ElfFile::parse(std::vector<uint8_t>(b.begin(), b.end()), name);
  const ElfSection* fatbin = host.section(".hip_fatbin");
  if (!fatbin)
    throw Error("host ELF has no .hip_fatbin section, so no embedded AMDGPU code objects", name,
                "pass a HIP program or library built with clang/hipcc, or the code object itself");
  if (!fatbin->has_file_data()) throw Error(".hip_fatbin has no file data", name);
  // The section holds one or more bundles, each aligned (4096 by clang); find each magic.
  auto sec = host.section_bytes(*fatbin);
  const std::string where = name + ":.hip_fatbin";
  size_t found = 0;
  for (uint64_t pos = 0; pos + kBundleMagicSize <= sec.size();) {
    auto rest = sec.subspan(pos);
    if (is_compressed_offload_bundle(rest))
      throw Error("compressed offload bundle (CCOB) in .hip_fatbin is not supported yet", where + "+" + hex(pos),
                  "rebuild with --no-offload-compress or unbundle it with clang-offload-bundler");
    if (is_offload_bundle(rest)) {
      extract_from_bundle(b, fatbin->offset + pos, fatbin->offset + sec.size(), name, out);
      ++found;
      // Skip past this bundle's entries before looking for the next magic.
      uint64_t end = 0;
      for (const auto& e : parse_offload_bundle(rest, where)) end = std::max(end, e.offset + e.size);
      pos += std::max<uint64_t>(end, kBundleMagicSize);
    } else {
      pos += 8;  // bundles start 8-byte aligned at least
    }
  }
  if (!found) throw Error("no offload bundle found inside .hip_fatbin", where, "the section may be compressed or corrupt");
  return out;
}

}  // namespace asmevo::codeobj
