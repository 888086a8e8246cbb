// Test helpers: assemble a kernel body for gfx90a/gfx942/gfx950 into a code object at test time
// (llvm-mc-22 + ld.lld-22), run it on the emulator with one output buffer, read the results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu::test {

// Builds a code object holding kernel "k" with `body` between a prologue and an epilogue:
//   prologue: s[0:1] = kernarg pointer; s[2:3] = out (after s_waitcnt); v0 = work-item id x.
//   epilogue: EXEC = the lanes live at entry (saved in s[92:93]); stores v10 .. v(10+results-1) of every lane to
//             out[(lane * results + k)] (dwords), then s_endpgm.
// The body may use s4..s63 and v1..v99 (not v0). Throws std::runtime_error with the assembler's message.
// `agprs` > 0 adds that many AGPRs after the 128 VGPRs (accum_offset 128).
std::vector<uint8_t> assemble_kernel(const std::string& arch, const std::string& body, unsigned results,
                                     const std::string& extra_text = {}, unsigned agprs = 0);

struct SnippetRun {
  std::vector<uint32_t> out;  // 64 * results dwords
  uint32_t at(unsigned lane, unsigned k, unsigned results) const { return out[lane * results + k]; }
};
// Assembles and runs one wave of 64 lanes; throws asmevo::Error when the emulator stops the run.
SnippetRun run_snippet(const std::string& arch, const std::string& body, unsigned results, unsigned block = 64,
                       unsigned agprs = 0);

// The error message run_snippet(arch, body, 1) stops with (asmevo::Error::format()), or "(no error)".
std::string expect_error(const std::string& arch, const std::string& body);

// Snippet prologue: v[30:31] = out + lane * 4 (the first result dword of each lane when results == 1).
extern const char* const kLaneAddr;

std::string corpus_hip_dir();  // build/corpus/hip (code objects)

// Runs the HIP corpus launch spec corpus/hip/launch/<spec_name>.yaml (with `seed` instead of the
// spec's) on `arch`'s corpus object holding its kernel, runs the host reference on the same inputs,
// and records a test failure for every buffer element outside the reference's tolerance (inputs
// must come back unchanged). `outputs`, when given, receives every buffer after the run.
void run_corpus_kernel(const std::string& arch, const std::string& spec_name, uint64_t seed, unsigned threads,
                       std::vector<std::vector<uint8_t>>* outputs = nullptr);
std::string source_dir();

}  // namespace asmevo::emu::test
