// Recovery: turns a code object into a reassemblable listing — every instruction with its exact
// encoding, labels for branch targets, symbolic PC-relative address arithmetic, symbols with
// their binding/visibility/type/size, raw kernel descriptors with a symbolic code entry, the
// notes (metadata) byte for byte, and every other allocated section's data. Rebuilding the
// listing with LLVM's assembler and lld gives back the same .text, KD bytes, metadata, e_flags
// and symbols (see rebuild/rebuild.h and `asmevo roundtrip`).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "program/instruction.h"

namespace asmevo::program {

// One line of the listing.
struct Line {
  enum Kind : uint8_t {
    Instr,      // an instruction: `text` is what the assembler reads (branch targets as labels)
    RawInstr,   // an instruction kept as raw bytes (its text does not re-encode identically)
    Label,      // `text` is the label name
    Directive,  // any assembler directive (.byte, .p2align, .globl, .quad expr, ...)
    Comment,
  };
  Kind kind = Directive;
  std::string text;
  uint64_t address = 0;               // original address (for instructions, labels and data)
  std::optional<Instruction> inst;    // Instr / RawInstr

  bool is_instruction() const { return kind == Instr || kind == RawInstr; }
};

struct ListingSection {
  std::string name;            // ".text", ".rodata", ".note", ...
  std::string header;          // the `.section` directive that opens it
  uint64_t address = 0, size = 0;
  bool executable = false;
  std::vector<Line> lines;
};

// A PC-relative address computation recovered from s_getpc_b64 + s_add_u32/s_addc_u32.
struct PcRelative {
  uint64_t getpc_address = 0;
  uint64_t target = 0;          // the absolute address it computes
  std::string target_expr;      // symbol or label the listing uses
};

struct Listing {
  codeobj::TargetId target;
  unsigned code_object_version = 0;
  std::vector<std::string> preamble;  // .amdgcn_target, .amdhsa_code_object_version, absolute symbols
  std::vector<ListingSection> sections;
  std::vector<PcRelative> pc_relative;
  std::vector<std::string> notes;  // things recovery noticed (printed as comments at the top)

  // The whole listing as assembly text. With `annotate`, instructions carry their original
  // address and bytes as comments (ignored by the assembler).
  std::string to_assembly(bool annotate = true) const;
  ListingSection* section(const std::string& name);
  const ListingSection* section(const std::string& name) const;
};

struct RecoverOptions {
  // Instructions whose text does not re-encode to the original bytes, by address: these are
  // emitted as raw bytes (found by the rebuild's verification pass).
  std::map<uint64_t, bool> raw_addresses;
};

// Throws asmevo::Error naming what cannot be recovered (unsupported relocations, undecodable
// code inside a function, ...).
Listing recover(const codeobj::CodeObject& co, const RecoverOptions& opts = {});

// Data lines for a kernel descriptor at `kd_address`: raw bytes, with the code entry offset as
// the symbolic `.quad K-K.kd` so that code may move.
std::vector<Line> kernel_descriptor_lines(const std::string& kernel, const codeobj::KernelDescriptor& kd, uint64_t kd_address);
// Data lines for a whole ELF note section holding `notes` (name, type, descriptor; 4-byte padding).
std::vector<Line> note_section_lines(const std::vector<codeobj::ElfNote>& notes, uint64_t address);

// Names sections whose contents the linker creates; recovery leaves them out.
bool is_linker_generated_section(const std::string& name);

}  // namespace asmevo::program
