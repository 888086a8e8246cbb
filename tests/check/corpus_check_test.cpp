// The static checks on the whole corpus: every HIP and Triton corpus file must check clean (the
// compiler's output is correct by construction, so any violation is a false positive of the
// analysis), and weakening the corpus must be caught: every s_waitcnt replaced by s_nop 0, and
// every s_nop N (N > 0) reduced to s_nop 0.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "check/check.h"
#include "check/code.h"
#include "check/isa.h"
#include "check/waitcnt.h"
#include "codeobj/container.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"

namespace asmevo::check {
namespace {

std::vector<codeobj::CodeObject> objects_of(const testing::CorpusFile& f) {
  auto bytes = read_file_bytes(f.path);
  std::vector<codeobj::CodeObject> out;
  for (auto& o : codeobj::extract_code_objects(bytes, f.path)) out.push_back(codeobj::CodeObject::parse(std::move(o.bytes), o.origin));
  return out;
}

std::vector<testing::CorpusFile> corpus() { return testing::corpus_files(ASMEVO_SOURCE_DIR, ASMEVO_BINARY_DIR); }

TEST(CorpusCheckTest, EveryCorpusFileChecksClean) {
  size_t files = 0, objects = 0, functions = 0, insts = 0;
  for (const auto& f : corpus()) {
    ++files;
    for (const auto& co : objects_of(f)) {
      ++objects;
      auto rep = check_code_object(co);
      EXPECT_TRUE(rep.clean()) << f.label << ":\n" << rep.to_text();
      for (const auto& fn : rep.functions) {
        ++functions;
        insts += fn.instructions;
      }
    }
  }
  EXPECT_GT(files, 40u);
  std::printf("checked %zu files, %zu code objects, %zu functions, %zu instructions: all clean\n", files, objects,
              functions, insts);
}

// The corpus files the mutation tests use: every bare code object (bundles and host libraries
// repeat them) and every Triton kernel.
std::vector<testing::CorpusFile> mutation_corpus() {
  std::vector<testing::CorpusFile> out;
  for (const auto& f : corpus())
    if (f.kind == "co" || f.kind == "triton") out.push_back(f);
  return out;
}

// Replaces the 4-byte instruction at `address` by s_nop 0 in a copy of `co`.
codeobj::CodeObject with_nop(const codeobj::CodeObject& co, uint64_t address) {
  codeobj::CodeObject copy = co;
  auto off = copy.elf().file_offset_of_address(address);
  if (!off) throw std::runtime_error("no file offset");
  const uint8_t nop[4] = {0x00, 0x00, 0x80, 0xBF};  // s_nop 0 = 0xBF800000
  copy.elf().overwrite(*off, nop, "test mutation");
  return copy;
}

TEST(CorpusCheckTest, RemovedWaitcntsAreCaughtUnlessTheyWereNoOps) {
  size_t total = 0, caught = 0, noop = 0;
  std::map<std::string, size_t> by_rule;
  for (const auto& f : mutation_corpus()) {
    for (const auto& co : objects_of(f)) {
      WaitcntOptions wopts;
      wopts.arch = co.target().arch;
      for (const auto& fn : functions_of(co)) {
        auto noops = noop_waits(fn, wopts);
        for (const auto& i : fn.insts) {
          if (i.mnemonic != "s_waitcnt") continue;
          ++total;
          auto rep = check_code_object(with_nop(co, i.address));
          if (!rep.clean()) {
            ++caught;
            ++by_rule[rep.violations.front().rule];
            continue;
          }
          bool was_noop = std::binary_search(noops.begin(), noops.end(), i.address);
          EXPECT_TRUE(was_noop) << f.label << " " << fn.name << fmt::format(" 0x{:x} ", i.address) << i.text
                                << ": removing it is accepted but the wait was not a no-op";
          noop += was_noop;
        }
      }
    }
  }
  std::string rules;
  for (const auto& [r, n] : by_rule) rules += fmt::format(" {} {}", r, n);
  std::printf("s_waitcnt removals: %zu, caught %zu (%.1f%%; first violation:%s), accepted %zu (all no-op waits)\n", total,
              caught, 100.0 * caught / std::max<size_t>(total, 1), rules.c_str(), total - caught);
  EXPECT_GT(total, 1000u);
  EXPECT_EQ(caught + noop, total);
}

TEST(CorpusCheckTest, ReducedHazardNopsAreCaught) {
  size_t total = 0, caught = 0;
  std::map<std::string, size_t> by_rule;
  std::string missed;
  for (const auto& f : mutation_corpus()) {
    for (const auto& co : objects_of(f)) {
      for (const auto& fn : functions_of(co)) {
        for (size_t k = 0; k + 1 < fn.insts.size(); ++k) {
          const auto& i = fn.insts[k];
          if (i.mnemonic != "s_nop" || wait_states(i) == 1) continue;
          ++total;
          auto rep = check_code_object(with_nop(co, i.address));
          if (!rep.clean()) {
            ++caught;
            ++by_rule[rep.violations.front().rule];
          } else {
            missed += fmt::format("  {} {} 0x{:x} {} before {}\n", f.label, fn.name, i.address, i.text, fn.insts[k + 1].text);
          }
        }
      }
    }
  }
  std::string rules;
  for (const auto& [r, n] : by_rule) rules += fmt::format(" {} {}", r, n);
  std::printf("s_nop N -> s_nop 0: %zu, caught %zu (%s)\n%s", total, caught, rules.c_str(), missed.c_str());
  EXPECT_GT(total, 100u);
  // Every s_nop LLVM's hazard recognizer inserted answers one of the rules.
  EXPECT_EQ(caught, total) << missed;
}

}  // namespace
}  // namespace asmevo::check
