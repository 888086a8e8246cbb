// search/moves/waitcnt_sink.cpp: a wait sinks past independent instructions, splits into a weaker
// wait in front of an instruction that needs only part of what it waits for, never passes a
// consumer, and every edit verifies EQUIVALENT on the emulator.
#include <gtest/gtest.h>

#include <random>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "search/moves/moves.h"
#include "support/file_io.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"
#include "tests/support/corpus_files.h"

using namespace asmevo;

namespace {

std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
// The corpus spec without its perf: list: moves are verified on the small adversarial launches
// (sampled perf runs are covered by tests/verify/perf_verify_test.cpp).
std::string spec(const std::string& kernel) { return asmevo::testing::spec_without_perf(corpus::hip_spec(kernel)); }

codeobj::CodeObject rebuilt(program::Program p) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), "edited"), "edited");
}

// vector_add with `lines` inserted in front of its v_add_f32 (right after `s_waitcnt vmcnt(0)`).
program::Program vector_add_with(const std::vector<std::string>& lines) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add");
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).text.rfind("v_add_f32", 0) == 0) {
      p.insert_before(i, lines);
      break;
    }
  return program::Program::recover(rebuilt(p));
}

std::vector<search::Edit> propose(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  std::mt19937_64 rng(1);
  search::MoveContext c{p, kernel, {f->begin, f->end - 1, 0, ""}, rng, 8};
  return search::make_waitcnt_sink_move()->propose(c);
}

std::vector<std::string> kernel_text(const program::Program& p, const std::string& kernel) {
  std::vector<std::string> out;
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).kind == program::Line::Instr) out.push_back(p.text_line(i).text);
  return out;
}

verify::Verdict verdict(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& kernel) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec(kernel))});
  return verify::verify_candidate(ref, k1).verdict;
}

}  // namespace

TEST(WaitcntSinkTest, SinksPastIndependentWorkAndStopsAtTheConsumer) {
  auto p = vector_add_with({"v_mov_b32_e32 v9, 1.0", "v_mov_b32_e32 v10, 2.0"});
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  auto after = search::apply_edit(p, edits[0]);
  auto text = kernel_text(after, "vector_add");
  auto at = [&](const std::string& s) { return std::find(text.begin(), text.end(), s) - text.begin(); };
  EXPECT_LT(at("v_mov_b32_e32 v10, 2.0"), at("s_waitcnt vmcnt(0)")) << edits[0].diff();
  EXPECT_EQ(at("s_waitcnt vmcnt(0)") + 1, at("v_add_f32_e32 v2, v6, v7")) << "the wait stops right before the add";
  auto k1 = rebuilt(after);
  check::CheckOptions opts;
  opts.kernel = "vector_add";
  EXPECT_TRUE(check::check_code_object(k1, opts).clean());
  EXPECT_EQ(verdict(rebuilt(p), k1, "vector_add"), verify::Verdict::Equivalent);
}

TEST(WaitcntSinkTest, SplitsAWaitInFrontOfAPartialConsumer) {
  // v_mul reads only the first load (v6): a vmcnt(1) suffices there; the full wait sinks past the
  // independent v_mov to the add, which reads both.
  auto p = vector_add_with({"v_mul_f32_e32 v8, 1.0, v6", "v_mov_b32_e32 v9, 1.0"});
  auto edits = propose(p, "vector_add");
  ASSERT_EQ(edits.size(), 1u);
  auto text = kernel_text(search::apply_edit(p, edits[0]), "vector_add");
  auto at = [&](const std::string& s) { return std::find(text.begin(), text.end(), s) - text.begin(); };
  ASSERT_LT(at("s_waitcnt vmcnt(1)"), static_cast<long>(text.size())) << edits[0].diff();
  EXPECT_EQ(at("s_waitcnt vmcnt(1)") + 1, at("v_mul_f32_e32 v8, 1.0, v6"));
  EXPECT_LT(at("v_mov_b32_e32 v9, 1.0"), at("s_waitcnt vmcnt(0)"));
  EXPECT_EQ(at("s_waitcnt vmcnt(0)") + 1, at("v_add_f32_e32 v2, v6, v7"));
  EXPECT_EQ(verdict(rebuilt(p), rebuilt(search::apply_edit(p, edits[0])), "vector_add"), verify::Verdict::Equivalent);
}

TEST(WaitcntSinkTest, LeavesAWaitThatIsAlreadyInPlace) {
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip("vector_add.co")), "vector_add.co");
  EXPECT_TRUE(propose(program::Program::recover(k0), "vector_add").empty()) << "clang places vector_add's waits right before their consumers";
}

TEST(WaitcntSinkTest, EveryEditOnCorpusKernelsChecksCleanAndVerifiesEquivalent) {
  size_t edits_total = 0;
  for (const auto& [file, kernel] : std::vector<std::pair<std::string, std::string>>{
           {"softmax.co", "softmax_rows_f32"}, {"matmul_tiled.co", "matmul_tiled_f32"}, {"layernorm.co", "layernorm_f32"},
           {"attention_decode.co", "attention_decode_f32"}, {"conv2d.co", "conv2d_3x3_f32"}}) {
    auto k0 = codeobj::CodeObject::parse(read_file_bytes(hip(file)), file);
    auto p = program::Program::recover(k0);
    for (const auto& e : propose(p, kernel)) {
      ++edits_total;
      auto k1 = rebuilt(search::apply_edit(p, e));
      check::CheckOptions opts;
      opts.kernel = kernel;
      EXPECT_TRUE(check::check_code_object(k1, opts).clean()) << kernel << "\n" << e.diff();
      EXPECT_EQ(verdict(k0, k1, kernel), verify::Verdict::Equivalent) << kernel << "\n" << e.diff();
    }
  }
  RecordProperty("edits", static_cast<int>(edits_total));
}
