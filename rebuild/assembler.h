// In-process assembler: AMDGPU assembly text -> ELF relocatable object, with LLVM's MC layer
// (SourceMgr + MCAsmParser + the AMDGPU target asm parser + an ELF MCObjectStreamer writing into
// memory). No external processes, no files.
//
// Thread safety: every call builds its own LLVM objects (MCContext, subtarget, parser, streamer,
// writer); nothing is shared between calls except LLVM's read-only target tables. Calls may run
// concurrently from any number of threads (tests/rebuild/assembler_test.cpp stress-tests this).
//
// Diagnostics: every LLVM error AND warning becomes one asmevo::Error (warnings from the assembler
// mean it ignored or changed something in the input, e.g. an ignored directive or a truncated
// value, which would give wrong code silently). `where` is "source_name:line:col" of the first
// diagnostic; `what` is its message, the offending line and a caret, then up to 9 further
// diagnostics, each with its own location.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codeobj/target.h"

namespace asmevo::rebuild {

// Assembles `asm_text` for `target` into an ELF64 relocatable object (ET_REL) and returns its
// bytes. The text may use everything LLVM 22's AMDGPU assembler accepts: `.amdgcn_target`,
// `.amdhsa_code_object_version N` (4, 5 or 6; absent: LLVM's default, 6), `.amdhsa_kernel`
// blocks, raw `.byte`/`.long`/`.quad` data, `.amdgpu_metadata` YAML or raw note sections,
// symbols, labels and sections. `source_name` names the text in diagnostics.
// Throws asmevo::Error (exit code 2) on any diagnostic.
//
// Limits: `.amdhsa_code_object_version` 2 or 3 written as a number is refused before assembling
// (LLVM 22 aborts on it: "Unsupported AMDHSA Code Object Version 3"). LLVM fatal errors and
// crashes inside the assembler are recovered (rebuild/llvm_recovery.h) and become an asmevo::Error
// carrying LLVM's message; the LLVM objects of that call are leaked.
std::vector<uint8_t> assemble_object(const std::string& asm_text, const codeobj::TargetId& target,
                                     const std::string& source_name);

// The machine-code bytes of one instruction (e.g. "v_add_f32_e32 v0, v1, v2"), as LLVM's
// MCCodeEmitter encodes it for `target`. The text must be a single statement (no newline);
// an instruction that needs a relocation (a symbol operand) is refused. A branch written with
// a plain number (`s_branch 3`) encodes that number as its simm16 offset, as the assembler does.
// Throws asmevo::Error.
std::vector<uint8_t> encode_instruction(const std::string& text, const codeobj::TargetId& target);

// The `.text` bytes of a relocatable object produced by assemble_object, and whether relocations
// apply to them. Throws asmevo::Error if `object` has no `.text`.
struct TextSection {
  std::vector<uint8_t> bytes;
  std::vector<std::string> relocated_symbols;  // symbols of the relocations against .text
};
TextSection text_section_of(const std::vector<uint8_t>& object, const std::string& name);

}  // namespace asmevo::rebuild
