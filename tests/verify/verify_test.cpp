// verify/verify.h on real code objects: the corpus vector_add (gfx942) and edits of it made with
// the program editor, one per verdict; guard zones, poison, counterexamples, the CLI's exit codes.
#include <gtest/gtest.h>

#include <set>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "tests/verify/edited_kernel.h"
#include "verify/counterexample.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
namespace fs = std::filesystem;
using verify::Verdict;

namespace {

const std::string kObject = corpus::hip_object("gfx942", "vector_add.co");

const char* const kSpec = asmevo::testing::kVectorAddSmallSpec;

codeobj::CodeObject original() { return codeobj::CodeObject::parse(read_file_bytes(kObject), kObject); }

// K0 with the line containing `find` replaced by `replacement` (empty: deleted).
codeobj::CodeObject edited(const std::vector<std::pair<std::string, std::string>>& edits) {
  return verify_test::edited(original(), "vector_add", edits, verify_test::Match::Part);
}

struct Fixture {
  codeobj::CodeObject k0 = original();
  std::unique_ptr<verify::Backend> backend = verify::make_emulator_backend(2);
  std::unique_ptr<verify::Reference> ref;
  explicit Fixture(const std::string& spec = kSpec, verify::VerifyOptions o = {}) {
    ref = std::make_unique<verify::Reference>(*backend, k0, std::vector<emu::LaunchSpec>{emu::parse_launch_spec_text(spec, "spec.yaml")}, o);
  }
  verify::VerifyReport check(const codeobj::CodeObject& k1, verify::VerifyOptions o = {}) { return verify::verify_candidate(*ref, k1, o); }
};

std::string error_of_reference(const std::string& spec) {
  try {
    Fixture f(spec);
  } catch (const Error& e) {
    return e.format();
  }
  return "no error";
}

}  // namespace

TEST(VerifyTest, OriginalIsEquivalentToItself) {
  Fixture f;
  EXPECT_EQ(f.ref->runs().size(), 26u);  // 2 launch shapes x (2 random + 2 special + 5 magnitude + 1 signed tiny + 3 literal) sets
  auto r = f.check(f.k0);
  EXPECT_EQ(r.verdict, Verdict::Equivalent) << r.to_text();
  EXPECT_EQ(r.runs_done, 26u);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.figure_kind, "emulated");
}

TEST(VerifyTest, RebuiltOriginalIsEquivalent) {
  Fixture f;
  auto same = edited({{"v_add_f32_e32 v2, v6, v7", "v_add_f32_e32 v2, v7, v6"}});  // commutative
  EXPECT_EQ(f.check(same).verdict, Verdict::Equivalent);
}

TEST(VerifyTest, WrongArithmeticIsDifferentWithTheFirstMismatch) {
  Fixture f;
  auto r = f.check(edited({{"v_add_f32_e32 v2, v6, v7", "v_sub_f32_e32 v2, v6, v7"}}));
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  EXPECT_EQ(r.exit_code(), 10);
  ASSERT_FALSE(r.mismatches.empty());
  const auto& m = r.mismatches[0];
  EXPECT_EQ(m.buffer, "out");
  EXPECT_EQ(m.kind, "output");
  EXPECT_EQ(m.index, 0);
  EXPECT_EQ(m.run_label, "launch full, input set 0");
  EXPECT_NE(m.k0, m.k1);
  EXPECT_EQ(r.differing_runs.size(), 26u);  // the CLI default: every run is tried
  EXPECT_LE(r.mismatches.size(), 10u);
  EXPECT_GT(r.mismatch_count, 4000u);
}

TEST(VerifyTest, MismatchesAreCountedElementByElementAcrossEqualAndDifferingBlocks) {
  // Outputs are compared in 4 KiB blocks, element by element only where a block's bytes differ: a
  // candidate whose bounds check stops at 3840 of 4321 elements leaves 3840..4320 unwritten (poison),
  // which spans the end of the fourth block (3840..4095) and the partial block after the last whole
  // one (4096..4320), while blocks 0-2 are equal. Every element past 3840 is counted, none before.
  Fixture f;
  verify::VerifyOptions o;
  o.stop_at_first_difference = true;
  auto r = f.check(edited({{"v_cmp_gt_i32_e32 vcc, s4, v0", "v_cmp_gt_i32_e32 vcc, 0xf00, v0"}}), o);
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  EXPECT_EQ(r.runs_done, 1u);
  EXPECT_EQ(r.mismatch_count, 4321u - 3840u) << r.to_text();
  ASSERT_EQ(r.mismatches.size(), 10u);
  for (size_t i = 0; i < r.mismatches.size(); ++i) EXPECT_EQ(r.mismatches[i].index, static_cast<int64_t>(3840 + i));
  EXPECT_EQ(r.mismatches[0].kind, "output");
}

TEST(VerifyTest, StopAtFirstDifference) {
  Fixture f;
  verify::VerifyOptions o;
  o.stop_at_first_difference = true;
  auto r = f.check(edited({{"v_add_f32_e32 v2, v6, v7", "v_sub_f32_e32 v2, v6, v7"}}), o);
  EXPECT_EQ(r.verdict, Verdict::Different);
  EXPECT_EQ(r.runs_done, 1u);
}

TEST(VerifyTest, DifferenceOnlyOnEdgeValuesIsFound) {
  // min(a + b, FLT_MAX) before the store equals a + b unless the sum is +Inf or NaN (IEEE-mode
  // v_min_f32 returns the non-NaN operand): random normal inputs cannot expose it, the special
  // sets (with infinities and NaNs mixed in) must.
  Fixture f;
  auto p = program::Program::recover(f.k0);
  const program::Function* fn = p.function("vector_add");
  size_t store = 0;
  for (size_t i = fn->begin; i < fn->end; ++i)
    if (p.text_line(i).inst && p.text_line(i).text.find("global_store_dword") != std::string::npos) store = i;
  mutants::Mutant m;
  m.edits.push_back({store, "v_min_f32_e32 v2, 0x7f7fffff, v2", true, {}});
  auto clamped = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "clamped.co");
  std::string random_only = kSpec;
  random_only.replace(random_only.find("special: true"), 13, "special: false");
  verify::VerifyOptions no_aim;  // the magnitude sets' top-of-range inputs overflow a + b too
  no_aim.aimed_inputs = false;
  Fixture weak(random_only, no_aim);
  EXPECT_EQ(weak.check(clamped).verdict, Verdict::Equivalent) << "random sets alone cannot see it";
  auto r = f.check(clamped);
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  EXPECT_NE(r.mismatches[0].run_label.find("special"), std::string::npos);
  EXPECT_EQ(r.mismatches[0].k1, "3.4028234663852886e+38 (0x7f7fffff)");
}

TEST(VerifyTest, StoreOutsideTheBufferIsAFault) {
  Fixture f;
  auto r = f.check(edited({{"global_store_dword v[0:1], v2, off", "global_store_dword v[0:1], v2, off offset:16"}}));
  ASSERT_EQ(r.verdict, Verdict::Fault) << r.to_text();
  ASSERT_TRUE(r.out_of_bounds) << r.to_text();
  EXPECT_TRUE(r.out_of_bounds->write);
  EXPECT_NE(r.out_of_bounds->region.find("(out)"), std::string::npos);
  EXPECT_GE(r.out_of_bounds->lowest, 4321 * 4);
  EXPECT_EQ(r.evidence.kind, "out-of-bounds");
  // Without the emulator's access log (another backend), the canary still shows it.
  // (The canary check stays as the second line of defence: docs/verify.md.)
}

TEST(VerifyTest, MissingStoreLeavesPoisonThatIsCaught) {
  Fixture f;
  auto r = f.check(edited({{"global_store_dword v[0:1], v2, off", "s_nop 0"}}));
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  EXPECT_EQ(r.mismatches[0].k1, "-nan (0xffffffff)");  // first run's poison
  // The second run uses the other poison byte.
  bool second_poison = false;
  for (const auto& m : r.mismatches) second_poison |= m.k1.find("0xa5a5a5a5") != std::string::npos;
  verify::VerifyOptions all;
  all.max_mismatches = 100000;
  auto full = f.check(edited({{"global_store_dword v[0:1], v2, off", "s_nop 0"}}), all);
  for (const auto& m : full.mismatches) second_poison |= m.k1.find("0xa5a5a5a5") != std::string::npos;
  EXPECT_TRUE(second_poison);
}

TEST(VerifyTest, WritingAnInputIsDifferent) {
  Fixture f;
  // Store into a (v[4:5] holds &a[i]) instead of out.
  auto r = f.check(edited({{"global_store_dword v[0:1], v2, off", "global_store_dword v[4:5], v2, off"}}));
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  bool input = false;
  for (const auto& m : r.mismatches) input |= m.kind == "input modified" && m.buffer == "a";
  EXPECT_TRUE(input) << r.to_text();
}

TEST(VerifyTest, MissingWaitIsUnsafeBeforeAnyRun) {
  Fixture f;
  auto r = f.check(edited({{"s_waitcnt vmcnt(0)", ""}}));
  ASSERT_EQ(r.verdict, Verdict::Unsafe) << r.to_text();
  EXPECT_EQ(r.exit_code(), 11);
  EXPECT_EQ(r.runs_done, 0u);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].rule, "waitcnt.raw");
  EXPECT_NE(r.violations[0].text.find("v_add_f32"), std::string::npos);
  // Without the static gate the emulator's strict waitcnt model faults at run time.
  verify::VerifyOptions no_static;
  no_static.static_checks = false;
  auto dyn = f.check(edited({{"s_waitcnt vmcnt(0)", ""}}), no_static);
  EXPECT_EQ(dyn.verdict, Verdict::Fault) << dyn.to_text();
  EXPECT_NE(dyn.fault.find("waitcnt violation"), std::string::npos);
}

TEST(VerifyTest, AnotherKernelBreaksTheAbi) {
  Fixture f;
  const std::string relu = corpus::hip_object("gfx942", "relu.co");
  auto other = codeobj::CodeObject::parse(read_file_bytes(relu), relu);
  auto r = f.check(other);
  EXPECT_EQ(r.verdict, Verdict::Unsafe) << r.to_text();
  ASSERT_FALSE(r.abi_breaks.empty());
}

TEST(VerifyTest, WildStoreFaults) {
  Fixture f;
  auto r = f.check(edited({{"global_store_dword v[0:1], v2, off", "global_store_dword v[0:1], v2, off offset:-4000"}}));
  ASSERT_EQ(r.verdict, Verdict::Fault) << r.to_text();
  EXPECT_EQ(r.exit_code(), 12);
  EXPECT_NE(r.fault.find("memory fault"), std::string::npos);
  EXPECT_EQ(r.fault_run, "launch full, input set 0");
}

TEST(VerifyTest, EndlessLoopHitsTheStepLimit) {
  Fixture f;
  auto p = program::Program::recover(f.k0);
  const program::Function* fn = p.function("vector_add");
  size_t end = 0;
  std::string label;
  for (size_t i = fn->begin; i < fn->end; ++i) {
    if (p.text_line(i).kind == program::Line::Label) label = p.text_line(i).text;
    if (p.text_line(i).inst && p.text_line(i).text == "s_endpgm") {
      end = i;
      break;
    }
  }
  ASSERT_FALSE(label.empty());
  mutants::Mutant m;
  m.edits.push_back({end, "s_branch " + label, false, "s_endpgm"});
  auto loop = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "loop.co");
  auto r = f.check(loop);
  ASSERT_EQ(r.verdict, Verdict::Fault) << r.to_text();
  EXPECT_NE(r.summary.find("step limit"), std::string::npos);
}

TEST(VerifyTest, BadSpecsAreErrors) {
  std::string no_output = kSpec;
  no_output.replace(no_output.find("output: true"), 12, "init: zeros");
  EXPECT_NE(error_of_reference(no_output).find("nothing to compare"), std::string::npos);

  std::string out_as_input = kSpec;  // out declared input, but it has an output elsewhere: make a an output
  out_as_input.replace(out_as_input.find("{name: out, buffer: f32, count: 4321, output: true}"), 51,
                       "{name: out, buffer: f32, count: 4321, init: zeros}");
  out_as_input.replace(out_as_input.find("{name: b, buffer: f32, count: 4321, init: {uniform: [-1, 1]}}"), 61,
                       "{name: b, buffer: f32, count: 4321, output: true}");
  EXPECT_NE(error_of_reference(out_as_input).find("which the spec declares as an input"), std::string::npos);

  std::string too_small = kSpec;
  too_small.replace(too_small.find("{name: out, buffer: f32, count: 4321"), 36, "{name: out, buffer: f32, count: 4300");
  EXPECT_NE(error_of_reference(too_small).find("writes outside buffer out"), std::string::npos);

  std::string zeros = kSpec;
  zeros.replace(zeros.find("init: {normal: [0, 1]}"), 22, "init: zeros");
  zeros.replace(zeros.find("init: {uniform: [-1, 1]}"), 24, "init: zeros");
  zeros.replace(zeros.find("special: true"), 13, "special: false");
  EXPECT_NE(error_of_reference(zeros).find("all zeros"), std::string::npos);

  std::string wrong_args = kSpec;
  wrong_args += "  - {name: extra, value: 1, type: i32}\n";
  EXPECT_NE(error_of_reference(wrong_args).find("the spec lists 5 arguments"), std::string::npos);
}

TEST(VerifyTest, CounterexamplesAreSavedAndReusable) {
  fs::path dir = asmevo::testing::scratch_dir("verify", "counterexamples");
  fs::remove_all(dir);
  Fixture f;
  verify::VerifyOptions o;
  o.counterexample_dir = dir.string();
  auto sub = edited({{"v_add_f32_e32 v2, v6, v7", "v_sub_f32_e32 v2, v6, v7"}});
  auto r = f.check(sub, o);
  ASSERT_EQ(r.verdict, Verdict::Different);
  ASSERT_EQ(r.counterexamples.size(), 26u);
  fs::path first = r.counterexamples[0];
  EXPECT_TRUE(fs::exists(first / "spec.yaml"));
  EXPECT_TRUE(fs::exists(first / "inputs" / "a.npy"));
  EXPECT_TRUE(fs::exists(first / "inputs" / "b.npy"));
  EXPECT_FALSE(fs::exists(first / "inputs" / "out.npy"));  // outputs are poisoned, not inputs
  EXPECT_TRUE(fs::exists(first / "expected" / "out.npy"));
  EXPECT_TRUE(fs::exists(first / "candidate" / "out.npy"));
  // Saved again: the same folders, nothing new.
  auto again = f.check(sub, o);
  EXPECT_EQ(again.counterexamples, r.counterexamples);
  size_t folders = 0;
  for (const auto& e : fs::directory_iterator(dir)) folders += e.is_directory();
  EXPECT_EQ(folders, 26u);
  // The saved spec reproduces the difference on its own, with the exact inputs.
  emu::LaunchSpec saved = emu::load_launch_spec((first / "spec.yaml").string());
  auto backend = verify::make_emulator_backend(2);
  verify::Reference regression(*backend, f.k0, {saved});
  EXPECT_EQ(regression.runs().size(), 1u);
  EXPECT_EQ(regression.outcomes()[0].buffers[0].before, f.ref->outcomes()[0].buffers[0].before);
  EXPECT_EQ(verify::verify_candidate(regression, sub).verdict, Verdict::Different);
  EXPECT_EQ(verify::verify_candidate(regression, f.k0).verdict, Verdict::Equivalent);
  // Added to a reference, it becomes one more run for every later candidate.
  size_t before = f.ref->runs().size();
  f.ref->add_spec(saved);
  EXPECT_EQ(f.ref->runs().size(), before + 1);
}

TEST(VerifyTest, CliExitCodesAndJson) {
  fs::path dir = asmevo::testing::scratch_dir("verify", "cli");
  std::string spec = (dir / "spec.yaml").string();
  write_file_atomic(spec, std::string(kSpec));
  auto sub = edited({{"v_add_f32_e32 v2, v6, v7", "v_sub_f32_e32 v2, v6, v7"}});
  std::string k1 = (dir / "sub.co").string();
  write_file_atomic(k1, sub.elf().image());
  auto run = [&](const std::string& args, std::string* out) {
    return asmevo::testing::run_shell(std::string(ASMEVO_CLI) + " verify " + args + " 2>&1", out);
  };
  std::string out;
  EXPECT_EQ(run(kObject + " " + kObject + " --launch " + spec, &out), 0) << out;
  EXPECT_NE(out.find("verdict: EQUIVALENT"), std::string::npos) << out;
  EXPECT_EQ(run(kObject + " " + k1 + " --launch " + spec + " --json", &out), 10) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "asmevo.verify/1");
  EXPECT_EQ(j["verdict"], "DIFFERENT");
  EXPECT_EQ(j["figures"], "emulated");
  EXPECT_EQ(j["mismatches"][0]["buffer"], "out");
  std::string cex = (dir / "cex").string();
  fs::remove_all(cex);
  EXPECT_EQ(run(kObject + " " + k1 + " --launch " + spec + " --counterexamples " + cex, &out), 10) << out;
  EXPECT_EQ(run(kObject + " " + kObject + " --launch " + spec + " --json", &out), 0) << out;
  const int spec_runs = nlohmann::json::parse(out)["runs_total"];
  EXPECT_EQ(run(kObject + " " + kObject + " --launch " + spec + " --regressions " + cex + " --json", &out), 0) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["runs_total"], spec_runs + 26);  // one run per saved counterexample
  EXPECT_EQ(run(kObject + " " + k1 + " --launch " + dir.string() + "/missing.yaml", &out), 2) << out;
  EXPECT_NE(out.find("verdict: ERROR"), std::string::npos) << out;
}

TEST(VerifyTest, KernargPreloadPrologueIsVerifiedToo) {
  // Triton's gfx942 kernels preload kernel arguments into SGPRs. Firmware that preloads starts
  // the wave at code entry + 256; older firmware runs the first 256 bytes, which load the same
  // SGPRs from the kernarg segment. A wrong prologue is only visible on the second path, which
  // every other candidate run takes.
  const std::string path = corpus::triton_object("gfx942", "vector_add_kernel");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(path), path);
  ASSERT_GT(k0.kernel("vector_add_kernel")->kd.kernarg_preload_length(), 0u);
  auto p = program::Program::recover(k0);
  const program::Function* fn = p.function("vector_add_kernel");
  mutants::Mutant m;
  for (size_t i = fn->begin; i < fn->end && m.edits.empty(); ++i)
    if (p.text_line(i).inst && p.text_line(i).text.rfind("s_load_dwordx", 0) == 0) {
      std::string t = p.text_line(i).text;
      t.replace(t.rfind("0x0"), 3, "0x8");  // load the arguments from the wrong kernarg offset
      m.edits.push_back({i, t, false, p.text_line(i).text});
    }
  ASSERT_FALSE(m.edits.empty());
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "prologue.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(corpus::triton_spec("vector_add_kernel"))});
  EXPECT_FALSE(ref.preload_sensitive());
  EXPECT_EQ(verify::verify_candidate(ref, k0).verdict, Verdict::Equivalent);
  auto r = verify::verify_candidate(ref, k1);
  ASSERT_NE(r.verdict, Verdict::Equivalent) << r.to_text();
  const std::string& where = r.verdict == Verdict::Fault ? r.fault_run : r.mismatches.at(0).run_label;
  EXPECT_NE(where.find("without kernarg preload"), std::string::npos) << r.to_text();
  verify::VerifyOptions fixed;
  fixed.vary_run_conditions = false;
  EXPECT_EQ(verify::verify_candidate(ref, k1, fixed).verdict, Verdict::Equivalent) << "invisible on the preloading path";
}

TEST(VerifyTest, DroppedLdsInitialisationIsFound) {
  // histogram_u8 zeroes its LDS bins before counting. The emulator zeroes LDS at workgroup start
  // by default, which would hide a candidate that drops that initialisation; LDS is undefined on
  // hardware, so candidate runs also start with LDS filled with 0xa5.
  const std::string path = corpus::hip_object("gfx942", "histogram.co");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto p = program::Program::recover(k0);
  const program::Function* fn = p.function("histogram_u8");
  mutants::Mutant m;
  // Every LDS store before the first barrier (the zeroing loop, in all its unrolled forms).
  for (size_t i = fn->begin; i < fn->end && p.text_line(i).text != "s_barrier"; ++i)
    if (p.text_line(i).inst && p.text_line(i).text.rfind("ds_write", 0) == 0) m.edits.push_back({i, "", false, p.text_line(i).text});
  ASSERT_FALSE(m.edits.empty());
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "no_init.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(corpus::hip_spec("histogram_u8"))});
  EXPECT_FALSE(ref.lds_sensitive());
  auto r = verify::verify_candidate(ref, k1);
  ASSERT_EQ(r.verdict, Verdict::Different) << r.to_text();
  EXPECT_NE(r.mismatches.at(0).run_label.find("LDS filled with 0x"), std::string::npos) << r.to_text();  // 0x7f or 0xa5
}

TEST(VerifyTest, ReferenceRecordsWhichInstructionsTheSpecExercises) {
  Fixture f;
  auto p = program::Program::recover(f.k0);
  const program::Function* fn = p.function("vector_add");
  size_t ran = 0, total = 0;
  for (size_t i = fn->begin; i < fn->end; ++i) {
    const auto& l = p.text_line(i);
    if (!l.inst) continue;
    ++total;
    bool executed = f.ref->executed().count(l.address) > 0;
    ran += executed;
    if (l.text.rfind("global_store_dword", 0) == 0 || l.text == "s_endpgm") EXPECT_TRUE(executed) << l.text;
  }
  EXPECT_EQ(ran, total) << "every instruction of vector_add runs under a launch with a partial last workgroup";
  EXPECT_FALSE(f.ref->executed().count(0));
}

TEST(VerifyTest, DroppedAddressCarryIsFound) {
  // out + 4 * i computed with a 32-bit add of the low halves (the carry into the high half is
  // dropped) is right while no buffer crosses a 4 GiB boundary, as in the default packed layout;
  // one candidate run in four places every buffer across such a boundary.
  Fixture f;
  auto p = program::Program::recover(f.k0);
  const program::Function* fn = p.function("vector_add");
  mutants::Mutant m;
  for (size_t i = fn->begin; i < fn->end && m.edits.empty(); ++i)
    if (p.text_line(i).inst && p.text_line(i).text == "v_lshl_add_u64 v[0:1], s[2:3], 0, v[0:1]") {
      m.edits.push_back({i, "v_add_u32_e32 v0, s2, v0", false, p.text_line(i).text});
      m.edits.push_back({i + 1, "v_mov_b32_e32 v1, s3", true, {}});
    }
  ASSERT_EQ(m.edits.size(), 2u);
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "no_carry.co");
  auto r = f.check(k1);
  ASSERT_NE(r.verdict, Verdict::Equivalent) << r.to_text();
  const std::string& where = r.verdict == Verdict::Fault ? r.fault_run : r.mismatches.at(0).run_label;
  EXPECT_NE(where.find("4 GiB"), std::string::npos) << r.to_text();
  EXPECT_FALSE(f.ref->address_sensitive());
}

TEST(VerifyTest, ReadOfAnUndefinedRegisterIsFound) {
  // vector_add sign-extends the element index into v1 (`v_ashrrev_i32 v1, 31, v0`) for the 64-bit
  // address. Writing v2 instead leaves v1 as the wave started, which the kernel descriptor does not
  // define: the emulator zeroes it, so only a run that fills undefined registers tells the
  // candidate apart (the mutant bench's last unexplained vector_add survivor).
  Fixture f;
  auto k1 = edited({{"v_ashrrev_i32_e32 v1, 31, v0", "v_ashrrev_i32_e32 v2, 31, v0"}});
  auto r = f.check(k1);
  ASSERT_NE(r.verdict, Verdict::Equivalent) << r.to_text();
  const std::string& where = r.verdict == Verdict::Fault ? r.fault_run : r.mismatches.at(0).run_label;
  EXPECT_NE(where.find("undefined registers filled with 0x7f25a5a5"), std::string::npos) << r.to_text();
  EXPECT_FALSE(f.ref->register_sensitive());
  EXPECT_EQ(f.check(original()).verdict, Verdict::Equivalent);
  verify::VerifyOptions fixed;
  fixed.vary_run_conditions = false;
  EXPECT_EQ(verify::verify_candidate(*f.ref, k1, fixed).verdict, Verdict::Equivalent) << "invisible with zeroed registers";
}

TEST(VerifyTest, SwappedKernargPointerCarryIsFound) {
  // axpy_f32 points s[8:9] at its hidden arguments, kernarg + 32, with s_add_u32 / s_addc_u32.
  // Swapped, the high word adds whatever SCC held before instead of the carry: the same until the
  // segment's low word carries, which the packed layout never makes and a loader may (AQL asks only
  // 16-byte alignment of kernarg_address). Straddling runs start the segment 16 bytes below a 4 GiB
  // boundary.
  const std::string path = corpus::hip_object("gfx942", "axpy.co");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto p = program::Program::recover(k0);
  const program::Function* fn = p.function("axpy_f32");
  mutants::Mutant m;
  for (size_t i = fn->begin; i + 1 < fn->end && m.edits.empty(); ++i)
    if (p.text_line(i).inst && p.text_line(i).text == "s_add_u32 s8, s0, 32" && p.text_line(i + 1).text == "s_addc_u32 s9, s1, 0") {
      m.edits.push_back({i, p.text_line(i + 1).text, false, p.text_line(i).text});
      m.edits.push_back({i + 1, p.text_line(i).text, false, p.text_line(i + 1).text});
    }
  ASSERT_EQ(m.edits.size(), 2u);
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "swapped_carry.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(corpus::hip_spec("axpy_f32"))});
  EXPECT_FALSE(ref.address_sensitive());
  EXPECT_EQ(verify::verify_candidate(ref, k0).verdict, Verdict::Equivalent);
  auto r = verify::verify_candidate(ref, k1);
  ASSERT_NE(r.verdict, Verdict::Equivalent) << r.to_text();
  const std::string& where = r.verdict == Verdict::Fault ? r.fault_run : r.mismatches.at(0).run_label;
  EXPECT_NE(where.find("4 GiB"), std::string::npos) << r.to_text();
}

TEST(VerifyTest, EmptyBuffersWithoutGuardZones) {
  // A launch with n = 0 and empty buffers (no guard zones either) runs and compares nothing.
  std::string spec = R"(kernel: vector_add
grid: [1, 1, 1]
block: [64, 1, 1]
launches:
  - {name: some, values: {n: 5}, counts: {a: 5, b: 5, out: 5}}
  - {name: empty, values: {n: 0}, counts: {a: 0, b: 0, out: 0}}
args:
  - {name: a, buffer: f32, count: 5, init: {normal: [0, 1]}, guard: 0}
  - {name: b, buffer: f32, count: 5, init: {normal: [0, 1]}, guard: 0}
  - {name: out, buffer: f32, count: 5, output: true, guard: 0}
  - {name: n, value: 5, type: i32}
)";
  Fixture f(spec);
  // The spec says nothing about inputs: each shape gets the safe default of 3 random + 2 special sets,
  // and the non-empty one 5 magnitude, 1 signed tiny and 3 literal sets.
  EXPECT_EQ(f.ref->runs().size(), 19u);
  EXPECT_EQ(f.check(f.k0).verdict, Verdict::Equivalent);
}

TEST(VerifyTest, AnOutOfBoundsStoreOfCombinedGuardBytesIsCaught) {
  // Found by the optimizer's opcode mutation: in vector_add_f16x2, `v_or_b32 v1, 1, v0` (i + 1)
  // became `v_add_f16 v1, 1, v0`, which equals i + 1 for small i but i for large even i, so the
  // last work-item takes the pair path: it loads a[n], b[n] from the guard zones and stores their
  // f16 sum to out[n]. With one canary for every buffer whose first two bytes were a quiet f16 NaN,
  // NaN + NaN rewrote out's guard with its own canary and the candidate verified EQUIVALENT.
  const std::string object = corpus::hip_object("gfx942", "vector_add_f16x2.co");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(object), object);
  auto p = program::Program::recover(k0);
  const program::Function* f = p.function("vector_add_f16x2");
  mutants::Mutant m;
  for (size_t i = f->begin; i < f->end && m.edits.empty(); ++i)
    if (p.text_line(i).text == "v_or_b32_e32 v1, 1, v0") m.edits.push_back({i, "v_add_f16_e32 v1, 1, v0", false, p.text_line(i).text});
  ASSERT_EQ(m.edits.size(), 1u);
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "k1.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(corpus::hip_spec("vector_add_f16x2"))});
  auto r = verify::verify_candidate(ref, k1);
  // Its first access outside a buffer is the read of a[n]: a FAULT naming lane and address.
  EXPECT_EQ(r.verdict, verify::Verdict::Fault) << r.to_text();
  ASSERT_TRUE(r.out_of_bounds) << r.to_text();
  EXPECT_FALSE(r.out_of_bounds->write);
  EXPECT_GE(r.out_of_bounds->lane, 0);
  EXPECT_NE(r.fault.find("guard zone"), std::string::npos) << r.fault;
}

TEST(VerifyTest, GuardCanariesDifferBetweenBuffersAndRuns) {
  auto runs = emu::expand_runs(emu::parse_launch_spec_text(kSpec, "spec.yaml"));
  ASSERT_GE(runs.size(), 2u);
  std::set<uint32_t> salts;
  for (const auto& run : runs) {
    std::set<uint32_t> in_run;
    for (size_t arg = 0; arg < 3; ++arg) in_run.insert(emu::guard_salt(run, arg)), salts.insert(emu::guard_salt(run, arg));
    EXPECT_EQ(in_run.size(), 3u) << run.label;
  }
  EXPECT_GT(salts.size(), 3u * 2) << "input sets have their own canaries";
  // The first bytes of two buffers' canaries differ (a copy from one guard into another shows).
  const uint32_t a = emu::guard_salt(runs[0], 0), out = emu::guard_salt(runs[0], 2);
  int same = 0;
  for (uint64_t i = 0; i < 256; ++i) same += emu::guard_canary(i, a) == emu::guard_canary(i, out);
  EXPECT_LT(same, 16);
}

namespace {
// Only the spec's own runs: no boundary launches, perf launches or aimed sets (fast).
emu::LaunchSpec own_runs_only(emu::LaunchSpec s) {
  s.perf.clear();
  for (auto& a : s.args) a.vary.reset();
  return s;
}
verify::VerifyOptions without_aimed_sets() {
  verify::VerifyOptions o;
  o.aimed_inputs = false;
  return o;
}
}  // namespace

TEST(VerifyTest, FloatAtomicOrderMakesTheReferenceScheduleSensitiveWhateverTheSeed) {
  // cross_entropy_rows_f32: lane 0 of each of a workgroup's 4 waves does atomicAdd(total, loss / rows).
  // Whether the reversed schedule's total differs in its last bit depends on the values (with seed 12
  // it did not, with 11 and 13 it did); the order of the atomic adds changes with every seed, and the
  // reference now looks at that.
  const std::string path = corpus::hip_object("gfx942", "cross_entropy.co");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto backend = verify::make_emulator_backend(1);
  for (uint64_t seed : {11, 12, 13}) {
    emu::LaunchSpec s = own_runs_only(emu::load_launch_spec(corpus::hip_spec("cross_entropy_rows_f32")));
    s.seed = seed, s.inputs = 1, s.special = false;
    verify::Reference ref(*backend, k0, {s}, without_aimed_sets());
    EXPECT_TRUE(ref.schedule_sensitive()) << "seed " << seed;
    bool noted = false;
    for (const auto& n : ref.notes()) noted |= n.find("atomic") != std::string::npos;
    EXPECT_TRUE(noted || seed != 12) << "seed 12's values round alike: the note must name the atomic order";
  }
  // A kernel whose atomics do not depend on order (integer histogram) stays schedule-varied.
  const std::string hist = corpus::hip_object("gfx942", "histogram.co");
  auto h0 = codeobj::CodeObject::parse(read_file_bytes(hist), hist);
  verify::Reference href(*backend, h0, {own_runs_only(emu::load_launch_spec(corpus::hip_spec("histogram_u8")))}, without_aimed_sets());
  EXPECT_FALSE(href.schedule_sensitive());
}

TEST(VerifyTest, DeletedBarrierIsNamedAsAnLdsRace) {
  // reduce_max_rows_f32's s_barrier at 0x1a14 orders every thread's smem[tid] = m before the tree
  // reads smem[tid + s] of other waves. The race check stops the candidate at the first such pair
  // (evidence "lds race", the two instructions named) even with the schedules not varied; without
  // it, only the wrong result shows.
  const std::string path = corpus::hip_object("gfx942", "reduce_max.co");
  auto k0 = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto p = program::Program::recover(k0);
  const program::Function* fn = p.function("reduce_max_rows_f32");
  ASSERT_NE(fn, nullptr);
  mutants::Mutant m;
  for (size_t i = fn->begin; i < fn->end && m.edits.empty(); ++i)
    if (p.text_line(i).inst && p.text_line(i).inst->address == 0x1a14 && p.text_line(i).text == "s_barrier")
      m.edits.push_back({i, "", false, p.text_line(i).text});
  ASSERT_EQ(m.edits.size(), 1u) << "the s_barrier at 0x1a14 moved: update the test";
  auto k1 = codeobj::CodeObject::parse(mutants::build_mutant(p, m), "no_barrier.co");
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {own_runs_only(emu::load_launch_spec(corpus::hip_spec("reduce_max_rows_f32")))},
                        without_aimed_sets());
  verify::VerifyOptions in_order;
  in_order.vary_run_conditions = false;
  EXPECT_EQ(verify::verify_candidate(ref, k0, in_order).verdict, Verdict::Equivalent) << "K0 itself is race-free";
  auto r = verify::verify_candidate(ref, k1, in_order);
  EXPECT_EQ(r.verdict, Verdict::Fault) << r.to_text();
  EXPECT_EQ(r.evidence.kind, "lds race") << r.to_text();
  EXPECT_NE(r.fault.find("LDS race"), std::string::npos) << r.fault;
  in_order.lds_race_check = false;
  EXPECT_EQ(verify::verify_candidate(ref, k1, in_order).verdict, Verdict::Different) << "without the check: the wrong maximum";
}
