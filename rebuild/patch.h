// In-place patching of one kernel's machine code: the fallback for objects that cannot be fully
// rebuilt, or when nothing but the edited bytes may change. Replacement instructions are encoded
// with LLVM MC (rebuild/assembler.h) and written over whole instructions; the file layout, every
// other byte, the kernel descriptor and the metadata stay exactly as they were.
//
// An edit is refused (asmevo::Error, exit code 2, with the reason) when:
//  - the kernel does not exist, or the offset is outside its code or not on an instruction boundary;
//  - the replacement is larger than the instruction(s) it replaces ("too large"; `replace` widens
//    the edit to more whole instructions);
//  - an instruction boundary that is a branch target (or a symbol) inside the replaced bytes would
//    disappear ("crosses a branch target");
//  - it touches PC-relative code: an `s_getpc_b64`, or the `s_add_u32`/`s_addc_u32` pair that adds
//    a constant (rel32-style) offset to its result; or bytes a relocation applies to;
//  - the replacement contains a branch or call whose target is not written as `@OFFSET` (kernel-
//    relative, see below), whose target is not an instruction boundary of the patched kernel, or an
//    indirect branch/call (s_setpc_b64, s_swappc_b64), whose target cannot be checked;
//  - a statement is not exactly one instruction (directives, labels, symbol operands);
//  - the patched kernel uses more VGPRs/AGPRs/SGPRs than its kernel descriptor allocates
//    ("patch needs N VGPRs, the kernel descriptor allocates M; use a full rebuild").
// Unused replaced bytes are filled with `s_nop 0`.
//
// Replacement text: instructions separated by ';' or newlines ('//' starts a comment). Branch
// and call targets are written `@OFFSET`, OFFSET relative to the kernel's code start (decimal or
// 0x hex), e.g. `s_cbranch_scc1 @0x40`; the encoder computes the PC-relative simm16.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::rebuild {

struct PatchEdit {
  uint64_t at = 0;        // offset from the kernel's code start; a virtual address if `absolute`
  bool absolute = false;
  std::string asm_text;   // replacement instructions (ignored when delete_count is set)
  unsigned replace = 1;   // number of whole original instructions replaced
  std::optional<unsigned> delete_count;  // "delete N": the next N instructions become s_nop 0
  std::string where;      // names the edit in messages ("edit 2", "--at 0x40")
};

struct PatchedRange {
  uint64_t address = 0;    // virtual address of the first replaced byte
  uint64_t offset = 0;     // the same, relative to the kernel's code start
  uint64_t file_offset = 0;
  std::vector<uint8_t> old_bytes, new_bytes;
  std::vector<std::string> old_text, new_text;  // instructions as LLVM prints them
};

struct PatchResult {
  std::vector<uint8_t> image;          // the patched code object
  std::vector<PatchedRange> ranges;    // one per edit, in order
  std::vector<std::string> notes;      // facts worth telling the user (metadata counts, ...)
};

// Applies `edits` in order to kernel `kernel` of the code object `bytes` (named `name` in
// messages); each edit sees the code as the previous edits left it and obeys the same rules.
// The input is not modified. Throws asmevo::Error on any refusal.
PatchResult patch_kernel(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& kernel,
                         const std::vector<PatchEdit>& edits);

// Parses an edits file: a YAML list (or a map with an `edits:` list) of
//   {at: OFFSET, asm: TEXT [, replace: N]}   replace N (default 1) whole instructions with TEXT
//   {at: OFFSET, delete: N}                   replace the next N instructions with s_nop 0
// where `address: ADDR` may stand for `at:` to give an absolute virtual address. Numbers may be
// decimal or 0x hex. Throws asmevo::Error naming the entry.
std::vector<PatchEdit> parse_edits_yaml(const std::string& text, const std::string& source_name);

// Parses "64", "0x40": throws asmevo::Error naming `what` otherwise.
uint64_t parse_number(const std::string& text, const std::string& what);

}  // namespace asmevo::rebuild
