// Every encoding variant LLVM decodes for an implemented mnemonic must pre-decode into the operand
// signature its semantic unit expects. Issue 15: `v_accvgpr_read_b32 v118, a16` stopped the emulator
// because the printed register "a16" was taken for MIMG's a16 flag; the corpus never used AGPR 16
// there. This sweeps many encodings per opcode (program::encoding_variants: v0/s0 fields, every field
// 16, random fields with AGPR bits, constants and literals) on gfx90a, gfx942 and gfx950.
//
// Allowed outcomes of pre-decode: success, or a loud refusal (an unsupported form, integer clamp, an
// operand the parser refuses by name). Not allowed: a signature mismatch (exit 3) or a modifier the
// parser does not know (it would be misread as part of an operand) — decoding blind spots.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "codeobj/target.h"
#include "emu/program.h"
#include "emu/registry.h"
#include "program/isa_enum.h"
#include "support/error.h"

namespace asmevo::emu {
namespace {

class DecodeVariants : public ::testing::TestWithParam<const char*> {};

TEST_P(DecodeVariants, EveryImplementedEncodingFitsItsSemanticUnit) {
  auto target = codeobj::parse_target_id(GetParam());
  ASSERT_TRUE(target);
  auto insts = program::encoding_variants(*target, 24, 15);
  const Registry& reg = Registry::get();
  std::map<std::string, std::string> gaps;  // mnemonic -> first failing text and message
  std::set<std::string> checked;
  std::map<std::string, size_t> refused;  // loud operand refusals by message kind
  size_t predecoded = 0;
  for (const auto& raw : insts) {
    if (!reg.find(mnemonic_stem(raw.mnemonic))) continue;
    checked.insert(std::string(mnemonic_stem(raw.mnemonic)));
    try {
      predecode(raw, 512, 256, "variants");
      ++predecoded;
    } catch (const Error& e) {
      const std::string& what = e.what_text();
      // A signature mismatch (exit 3) or an unknown modifier is a decoding blind spot. Operands the parser
      // refuses loudly (special registers such as src_flat_scratch_base_lo or null, registers LLVM itself
      // prints as invalid, input modifiers on integer slots) are counted, not failed: refused, not guessed.
      bool gap = e.exit_code() == kExitInternal || what.find("unknown modifier") != std::string::npos ||
                 what.find("cannot read modifier") != std::string::npos;
      if (gap && !gaps.count(raw.mnemonic)) gaps[raw.mnemonic] = raw.text + "  ->  " + what;
      if (!gap) ++refused[what.substr(0, std::min(what.find('\''), what.find(" in ")))];
    }
  }
  for (const auto& [m, why] : gaps) ADD_FAILURE() << GetParam() << ": " << why;
  EXPECT_GT(predecoded, 10000u) << "the sweep must exercise many encodings";
  EXPECT_GT(checked.size(), 500u);
  std::cout << fmt::format("{}: {} decoded variants, {} pre-decoded, {} implemented stems covered\n", GetParam(),
                           insts.size(), predecoded, checked.size());
  for (const auto& [kind, n] : refused) std::cout << fmt::format("  refused {:6} x {}\n", n, kind);
}

INSTANTIATE_TEST_SUITE_P(Archs, DecodeVariants, ::testing::Values("gfx90a", "gfx942", "gfx950"));

}  // namespace
}  // namespace asmevo::emu
