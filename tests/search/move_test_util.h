// Helpers the rule-move tests share: corpus code objects with their launch specs, rebuild, static
// check and differential verification against the original on the emulator.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"
#include "search/edit.h"
#include "search/move.h"
#include "support/error.h"
#include "support/file_io.h"
#include "verify/verify.h"

namespace asmevo::movetest {

inline codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
inline std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
// Without the spec's perf: list: moves are verified on the small adversarial launches (sampled perf
// runs are covered by tests/verify/perf_verify_test.cpp).
inline std::string hip_spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::hip_spec(kernel)); }

inline codeobj::CodeObject rebuilt(program::Program p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), name), name);
}

// Assembles a listing's text after `edit` changed it (for cases the edit API cannot make, e.g. labels).
inline codeobj::CodeObject assembled(const std::string& assembly, const std::string& name) {
  return codeobj::CodeObject::parse(rebuild::rebuild_text(assembly, name), name);
}

inline check::CheckReport checked(const codeobj::CodeObject& co, const std::string& kernel) {
  check::CheckOptions opts;
  opts.kernel = kernel;
  return check::check_code_object(co, opts);
}

inline verify::Verdict verdict(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& spec) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec)});
  return verify::verify_candidate(ref, k1).verdict;
}

// The .text line of `kernel` whose text is `text` (the first), or 0.
inline size_t find_line(const program::Program& p, const std::string& kernel, const std::string& text) {
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).text == text) return i;
  return 0;
}

// The edits a move proposes for a whole kernel.
inline std::vector<search::Edit> propose_whole(search::Move& move, const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext ctx{p, kernel, search::Window{f->begin, f->end - 1, 0, kernel}, rng};
  return move.propose(ctx);
}

// A table of one-line variants of a loop and what a loop move says of each: `line` inserted before the
// first line whose text is `anchor`; an empty `reason` means the move still edits the variant (its one
// edit checks clean and verifies EQUIVALENT on `spec`), else `refusal(variant)` contains `reason`.
struct RefusalCase {
  std::string line, anchor, reason;
};
template <class Refusal>
void expect_refusals(const program::Program& p, const std::string& kernel, search::Move& move, const std::string& spec,
                     const std::vector<RefusalCase>& cases, Refusal refusal) {
  for (const auto& [line, anchor, reason] : cases) {
    const size_t at = find_line(p, kernel, anchor);
    ASSERT_NE(at, 0u) << anchor;
    search::Edit variant;
    variant.kernel = kernel;
    variant.hunks.push_back(search::make_insertion(at, {line}));
    const program::Program q = program::Program::recover(rebuilt(search::apply_edit(p, variant), "variant.co"));
    const std::string why = refusal(q);
    if (!reason.empty()) {
      EXPECT_NE(why.find(reason), std::string::npos) << line << ": " << why;
      continue;
    }
    EXPECT_EQ(why, "") << line;
    auto edits = propose_whole(move, q, kernel);
    ASSERT_EQ(edits.size(), 1u) << line;
    auto q0 = rebuilt(q, "q0.co"), q1 = rebuilt(search::apply_edit(q, edits[0]), "q1.co");
    EXPECT_TRUE(checked(q1, kernel).clean()) << line;
    EXPECT_EQ(verdict(q0, q1, spec), verify::Verdict::Equivalent) << line << "\n" << edits[0].diff();
  }
}

// The first `per_kernel` edits of `move` on each named gfx942 kernel: each checks clean and verifies
// EQUIVALENT on the spec's small launches. Returns how many edits were judged; `fired` (if given) lists
// the kernels that had some.
inline size_t judge_edits(search::Move& move, const std::vector<std::string>& kernels, size_t per_kernel,
                          std::string* fired = nullptr) {
  size_t n = 0;
  for (const corpus::Kernel& k : corpus::kernels("gfx942", kernels)) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(move, p, k.name);
    if (edits.size() > per_kernel) edits.resize(per_kernel);
    if (edits.empty()) continue;
    if (fired) *fired += k.name + " ";
    const std::string spec = asmevo::testing::spec_without_perf(k.spec);
    for (const search::Edit& e : edits) {
      ++n;
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << k.label() << "\n" << e.description << "\n" << e.diff() << report.to_text();
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << k.label() << "\n" << e.description << "\n" << e.diff();
    }
  }
  return n;
}

struct CorpusKernel {
  std::string path, kernel, spec, label;
};

// Every corpus kernel of `arch` with its spec (corpus/index/corpus.h), without the spec's perf: list:
// sampled perf runs at full size for every proposal on every corpus kernel would take minutes
// (tests/verify/perf_verify_test.cpp covers them).
inline std::vector<CorpusKernel> corpus_kernels(const std::string& arch = "gfx942") {
  std::vector<CorpusKernel> out;
  for (const auto& k : corpus::kernels(arch))
    out.push_back({k.code_object, k.name, asmevo::testing::spec_without_perf(k.spec), k.label()});
  return out;
}

// Runs `move` on every corpus kernel of `arch`; each proposal is applied, rebuilt, checked clean and
// verified EQUIVALENT against the original. Returns the labels of the kernels it changed.
inline std::vector<std::string> run_on_corpus(search::Move& move, const std::string& arch = "gfx942") {
  std::vector<std::string> changed, refused;
  size_t total = 0;
  for (const auto& c : corpus_kernels(arch)) {
    ++total;
    auto k0 = load(c.path);
    auto p = program::Program::recover(k0);
    std::vector<search::Edit> edits;
    try {
      edits = propose_whole(move, p, c.kernel);
    } catch (const Error& e) {
      refused.push_back(c.label + " (" + e.what() + ")");
      continue;
    }
    if (edits.empty()) continue;
    changed.push_back(c.label);
    for (const auto& edit : edits) {
      std::cout << "[" << move.name() << "] " << c.label << ": " << edit.description << "\n" << edit.diff();
      EXPECT_EQ(edit.move, move.name());
      auto k1 = rebuilt(search::apply_edit(p, edit), "k1.co");
      auto report = checked(k1, c.kernel);
      EXPECT_TRUE(report.clean()) << c.label << ": " << report.to_text() << "\n" << edit.diff();
      EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent) << c.label << "\n" << edit.diff();
    }
  }
  std::cout << "[" << move.name() << "] changed " << changed.size() << " of " << total << " " << arch << " corpus kernels:";
  for (const auto& l : changed) std::cout << " " << l;
  std::cout << "\n";
  for (const auto& r : refused) std::cout << "[" << move.name() << "] refused " << r << "\n";
  return changed;
}

}  // namespace asmevo::movetest
