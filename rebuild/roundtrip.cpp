#include "rebuild/roundtrip.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>

#include <chrono>
#include <map>

#include "rebuild/rebuild.h"
#include "program/decoder.h"
#include "program/recover.h"
#include "support/error.h"

namespace asmevo::rebuild {
namespace {

using namespace asmevo::codeobj;
namespace ELF = llvm::ELF;

std::string hex_bytes(std::span<const uint8_t> b, size_t max = 16) {
  std::string s;
  for (size_t i = 0; i < b.size() && i < max; ++i) s += fmt::format("{:02x}", b[i]);
  if (b.size() > max) s += "...";
  return s;
}

// First differing offsets between two byte ranges, as runs (at most `limit` runs).
std::vector<std::pair<size_t, size_t>> differing_runs(std::span<const uint8_t> a, std::span<const uint8_t> b, size_t limit) {
  std::vector<std::pair<size_t, size_t>> runs;
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n && runs.size() < limit;) {
    if (a[i] == b[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && a[j] != b[j]) ++j;
    runs.emplace_back(i, j - i);
    i = j;
  }
  return runs;
}

const ElfSymbol* find_symbol(const ElfFile& elf, const std::string& name) {
  // Prefer .symtab over .dynsym (same values; .symtab also holds locals).
  const ElfSymbol* found = nullptr;
  for (const auto& s : elf.symbols())
    if (s.name == name && (!found || elf.sections()[s.table_section].type == ELF::SHT_SYMTAB)) found = &s;
  return found;
}

std::string symbol_summary(const ElfFile& elf, const ElfSymbol& s) {
  std::string sec = s.section_index == ELF::SHN_ABS ? "ABS"
                    : s.section_index < elf.sections().size() ? elf.sections()[s.section_index].name
                                                               : std::to_string(s.section_index);
  uint64_t rel = (s.section_index < elf.sections().size() && s.section_index != ELF::SHN_UNDEF)
                     ? s.value - elf.sections()[s.section_index].address
                     : s.value;
  return fmt::format("type {} bind {} vis {} section {} +0x{:x} size {}", s.type, s.binding, s.visibility, sec, rel, s.size);
}

}  // namespace

nlohmann::json RoundtripResult::to_json() const {
  nlohmann::json d = nlohmann::json::array();
  for (const auto& x : differences)
    d.push_back({{"what", x.what}, {"where", x.where}, {"original", x.original}, {"rebuilt", x.rebuilt}, {"detail", x.detail}});
  return {{"identical", ok()}, {"differences", d}, {"instructions", instructions}, {"raw_instructions", raw_instructions},
          {"rebuild_passes", passes}, {"metadata_bytes_equal", metadata_bytes_equal},
          {"recover_ms", recover_ms}, {"rebuild_ms", rebuild_ms}};
}

std::vector<Difference> compare_code_objects(const CodeObject& a, const CodeObject& b) {
  std::vector<Difference> out;
  const auto& ea = a.elf();
  const auto& eb = b.elf();
  if (ea.flags() != eb.flags())
    out.push_back({"e_flags", "ELF header", fmt::format("0x{:x}", ea.flags()), fmt::format("0x{:x}", eb.flags()), ""});
  if (a.version() != b.version())
    out.push_back({"code object version", "ELF header", std::to_string(a.version()), std::to_string(b.version()), ""});

  // Allocated sections the compiler wrote (not the linker's own tables), byte for byte.
  program::Decoder dec(a.target());
  for (const auto& sa : ea.sections()) {
    if (!(sa.flags & ELF::SHF_ALLOC) || program::is_linker_generated_section(sa.name)) continue;
    const ElfSection* sb = eb.section(sa.name);
    if (!sb) {
      out.push_back({"section", sa.name, "present", "missing", ""});
      continue;
    }
    if (sa.size != sb->size) out.push_back({"section size", sa.name, std::to_string(sa.size), std::to_string(sb->size), ""});
    if (sa.address != sb->address)
      out.push_back({"section address", sa.name, fmt::format("0x{:x}", sa.address), fmt::format("0x{:x}", sb->address), ""});
    auto ba = ea.section_bytes(sa);
    auto bb = eb.section_bytes(*sb);
    for (auto [off, len] : differing_runs(ba, bb, 20)) {
      Difference d{sa.flags & ELF::SHF_EXECINSTR ? "text" : "section bytes", fmt::format("{}+0x{:x}", sa.name, off),
                   hex_bytes(ba.subspan(off, std::min<size_t>(len, ba.size() - off))),
                   hex_bytes(bb.subspan(off, std::min<size_t>(len, bb.size() - off))), ""};
      if (sa.flags & ELF::SHF_EXECINSTR) {
        // Name the instruction that covers the first differing byte.
        uint64_t pos = 0;
        while (pos < ba.size()) {
          try {
            auto in = dec.decode_one(ba.subspan(pos), sa.address + pos);
            if (pos + in.size > off) {
              d.detail = fmt::format("0x{:x}: {}", in.address, in.text);
              break;
            }
            pos += in.size;
          } catch (const Error&) {
            pos += 4;
          }
        }
      }
      out.push_back(d);
    }
  }

  // Kernel descriptors, every byte.
  for (const auto& ka : a.kernels()) {
    const Kernel* kb = b.kernel(ka.name);
    if (!kb) {
      out.push_back({"kernel", ka.name, "present", "missing", ""});
      continue;
    }
    auto ra = ka.kd.encode(), rb = kb->kd.encode();
    for (auto [off, len] : differing_runs(ra, rb, 8))
      out.push_back({"kernel descriptor", fmt::format("{}.kd+{}", ka.name, off), hex_bytes(std::span(ra).subspan(off, len)),
                     hex_bytes(std::span(rb).subspan(off, len)), ""});
  }
  if (b.kernels().size() != a.kernels().size())
    out.push_back({"kernel count", "", std::to_string(a.kernels().size()), std::to_string(b.kernels().size()), ""});

  // Metadata: semantic equality of the documents, then bytes of the note.
  if (a.metadata().has_value() != b.metadata().has_value()) {
    out.push_back({"metadata", "note", a.metadata() ? "present" : "absent", b.metadata() ? "present" : "absent", ""});
  } else if (a.metadata()) {
    auto ja = a.metadata()->to_json(), jb = b.metadata()->to_json();
    if (ja != jb) out.push_back({"metadata", "msgpack document", ja.dump().substr(0, 200), jb.dump().substr(0, 200), "documents differ"});
    else if (a.metadata()->original_blob() != b.metadata()->original_blob())
      out.push_back({"metadata bytes", "note", "", "", "same document, different msgpack bytes"});
  }

  // Symbols by name (the linker's own _DYNAMIC is not compared).
  std::map<std::string, const ElfSymbol*> sa_by_name;
  for (const auto& s : ea.symbols())
    if (!s.name.empty() && s.type != ELF::STT_SECTION && s.type != ELF::STT_FILE && s.name != "_DYNAMIC")
      sa_by_name.emplace(s.name, find_symbol(ea, s.name));
  for (const auto& [name, s] : sa_by_name) {
    const ElfSymbol* t = find_symbol(eb, name);
    if (!t) {
      out.push_back({"symbol", name, symbol_summary(ea, *s), "missing", ""});
      continue;
    }
    auto x = symbol_summary(ea, *s), y = symbol_summary(eb, *t);
    if (x != y) out.push_back({"symbol", name, x, y, ""});
  }
  for (const auto& s : eb.symbols())
    if (!s.name.empty() && s.type != ELF::STT_SECTION && s.type != ELF::STT_FILE && s.name != "_DYNAMIC" && !sa_by_name.count(s.name))
      out.push_back({"symbol", s.name, "missing", symbol_summary(eb, s), "extra symbol in the rebuilt object"});
  return out;
}

RoundtripResult roundtrip(const CodeObject& original, program::Listing* verified) {
  using clock = std::chrono::steady_clock;
  RoundtripResult r;
  program::RecoverOptions opts;
  for (int pass = 1; pass <= 3; ++pass) {
    r.passes = pass;
    auto t0 = clock::now();
    program::Listing listing = program::recover(original, opts);
    auto t1 = clock::now();
    std::vector<uint8_t> bytes = rebuild(listing, original.elf().name() + " (rebuilt)");
    auto t2 = clock::now();
    r.recover_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    r.rebuild_ms += std::chrono::duration<double, std::milli>(t2 - t1).count();
    CodeObject rebuilt = CodeObject::parse(std::move(bytes), original.elf().name() + " (rebuilt)");
    r.differences = compare_code_objects(original, rebuilt);
    r.instructions = r.raw_instructions = 0;
    for (const auto& s : listing.sections)
      for (const auto& l : s.lines) {
        r.instructions += l.is_instruction();
        r.raw_instructions += l.kind == program::Line::RawInstr;
      }
    if (original.metadata() && rebuilt.metadata())
      r.metadata_bytes_equal = original.metadata()->original_blob() == rebuilt.metadata()->original_blob();
    if (verified) *verified = listing;
    if (r.ok()) break;
    // Instructions whose text re-encoded differently are kept as raw bytes in the next pass.
    // Only same-size differences are safe to localize this way; others end the loop.
    bool changed = false;
    const ElfSection* ta = original.elf().section(".text");
    const ElfSection* tb = rebuilt.elf().section(".text");
    if (!ta || !tb || ta->size != tb->size) break;
    program::Decoder dec(original.target());
    auto ba = original.elf().section_bytes(*ta), bb = rebuilt.elf().section_bytes(*tb);
    uint64_t pos = 0;
    while (pos < ba.size()) {
      uint32_t size = 4;
      try {
        size = dec.decode_one(ba.subspan(pos), ta->address + pos).size;
      } catch (const Error&) {
      }
      if (!std::equal(ba.begin() + pos, ba.begin() + std::min<uint64_t>(pos + size, ba.size()), bb.begin() + pos)) {
        changed |= opts.raw_addresses.emplace(ta->address + pos, true).second;
      }
      pos += size;
    }
    if (!changed) break;
  }
  return r;
}

}  // namespace asmevo::rebuild
