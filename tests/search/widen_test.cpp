// search/moves/widen.h: wide accesses split into narrow ones are merged back (the result checks
// clean and verifies EQUIVALENT), merges that would be wrong are not made, and over the whole corpus
// every edit the move proposes rebuilds, checks clean and verifies EQUIVALENT.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "build/rebuild.h"
#include "check/check.h"
#include "search/move.h"
#include "search/moves/widen.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "verify/verify.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
std::string hip(const std::string& file) { return std::string(ASMEVO_BINARY_DIR) + "/corpus/hip/gfx942/" + file; }
std::string spec(const std::string& kernel) { return std::string(ASMEVO_SOURCE_DIR) + "/corpus/hip/launch/" + kernel + ".yaml"; }

codeobj::CodeObject rebuilt(program::Program p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(build::rebuild(p.listing(), name), name);
}

bool clean(const codeobj::CodeObject& co, const std::string& kernel) {
  check::CheckOptions opts;
  opts.kernel = kernel;
  auto report = check::check_code_object(co, opts);
  if (!report.clean()) std::cerr << report.to_text();
  return report.clean();
}

verify::Verdict verdict(const codeobj::CodeObject& k0, const codeobj::CodeObject& k1, const std::string& spec_path) {
  auto backend = verify::make_emulator_backend(2);
  verify::Reference ref(*backend, k0, {emu::load_launch_spec(spec_path)});
  return verify::verify_candidate(ref, k1).verdict;
}

// The line of `kernel` whose text is exactly `text`.
size_t find_line(const program::Program& p, const std::string& kernel, const std::string& text) {
  const program::Function* f = p.function(kernel);
  for (size_t i = f->begin; i < f->end; ++i)
    if (p.text_line(i).text == text) return i;
  ADD_FAILURE() << "no line '" << text << "' in " << kernel;
  return 0;
}

std::vector<uint8_t> code(const codeobj::CodeObject& co, const std::string& kernel) {
  auto bytes = co.code_bytes(*co.kernel(kernel));
  return {bytes.begin(), bytes.end()};
}

// Replaces the line `text` of `kernel` in a copy of `file` by `lines`, rebuilds it and checks that the
// narrow version is itself clean and EQUIVALENT to the original (so that it is a fair starting point).
codeobj::CodeObject split(const codeobj::CodeObject& k0, const std::string& kernel, const std::string& text,
                          const std::vector<std::string>& lines, bool must_be_equivalent = true) {
  auto p = program::Program::recover(k0);
  size_t at = find_line(p, kernel, text);
  p.replace(at, at, lines);
  auto narrow = rebuilt(p, "narrow.co");
  EXPECT_TRUE(clean(narrow, kernel)) << "the split kernel itself has findings";
  if (must_be_equivalent) EXPECT_EQ(verdict(k0, narrow, spec(kernel)), verify::Verdict::Equivalent);
  return narrow;
}

// Splits `text` into `lines`, widens the whole kernel and expects exactly the original code back.
void expect_round_trip(const std::string& file, const std::string& kernel, const std::string& text,
                       const std::vector<std::string>& lines, size_t merges) {
  SCOPED_TRACE(kernel + ": " + text);
  auto k0 = load(hip(file));
  auto narrow = split(k0, kernel, text, lines);
  auto w = search::widen_accesses(program::Program::recover(narrow), kernel);
  ASSERT_EQ(w.changes.size(), merges);
  EXPECT_EQ(w.changes.back().after, text);
  EXPECT_EQ(w.rejected, 0u);
  auto wide = rebuilt(w.program, "wide.co");
  EXPECT_TRUE(clean(wide, kernel));
  // Same instructions as the compiler's, waits included: the counts were re-derived exactly.
  EXPECT_EQ(code(wide, kernel), code(k0, kernel));
  EXPECT_EQ(verdict(narrow, wide, spec(kernel)), verify::Verdict::Equivalent);
}

}  // namespace

TEST(WidenTest, GlobalLoadPairBecomesDwordx2) {
  expect_round_trip("axpy.co", "axpy_f64", "global_load_dwordx2 v[6:7], v[2:3], off",
                    {"global_load_dword v6, v[2:3], off", "global_load_dword v7, v[2:3], off offset:4"}, 1);
}

TEST(WidenTest, GlobalStorePairBecomesDwordx2) {
  // The stores end a loop body that has no wait after them: the loop head's vmcnt(0) and the exit's
  // s_endpgm settle the counter on every path.
  expect_round_trip("axpy.co", "axpy_f64", "global_store_dwordx2 v[2:3], v[6:7], off",
                    {"global_store_dword v[2:3], v6, off", "global_store_dword v[2:3], v7, off offset:4"}, 1);
}

TEST(WidenTest, FourStoresBecomeDwordx4) {
  expect_round_trip("sigmoid.co", "sigmoid_f32_vec4", "global_store_dwordx4 v[0:1], v[2:5], off",
                    {"global_store_dword v[0:1], v2, off", "global_store_dword v[0:1], v3, off offset:4",
                     "global_store_dword v[0:1], v4, off offset:8", "global_store_dword v[0:1], v5, off offset:12"},
                    3);
}

TEST(WidenTest, DsReadPairBecomesRead2AndLaterWaitsAreRederived) {
  // Eight ds_read2_b32 follow four ds_read_b128, then lgkmcnt(7), (6), (5)...: with one of them split
  // the narrow kernel issues one more LDS read; merging it back must give every count back.
  expect_round_trip("matmul_tiled.co", "matmul_tiled_f32", "ds_read2_b32 v[28:29], v10 offset1:16",
                    {"ds_read_b32 v28, v10", "ds_read_b32 v29, v10 offset:64"}, 1);
}

TEST(WidenTest, DsWritePairBecomesWrite2) {
  expect_round_trip("histogram.co", "histogram_u8", "ds_write2_b32 v3, v4, v4 offset0:2 offset1:3",
                    {"ds_write_b32 v3, v4 offset:8", "ds_write_b32 v3, v4 offset:12"}, 1);
}

TEST(WidenTest, ANonzeroWaitCountingThroughThePairIsDecremented) {
  // axpy_f64 with its second load split and a `vmcnt(2)` that waits for the first load only (v4 is
  // read): after the merge only two loads are outstanding, so the wait must become vmcnt(1).
  auto k0 = load(hip("axpy.co"));
  auto p = program::Program::recover(k0);
  size_t at = find_line(p, "axpy_f64", "global_load_dwordx2 v[6:7], v[2:3], off");
  p.replace(at, at, {"global_load_dword v6, v[2:3], off", "global_load_dword v7, v[2:3], off offset:4",
                     "s_waitcnt vmcnt(2)", "v_mov_b32_e32 v8, v4"});
  auto narrow = rebuilt(p, "narrow.co");
  ASSERT_TRUE(clean(narrow, "axpy_f64"));
  auto w = search::widen_accesses(program::Program::recover(narrow), "axpy_f64");
  ASSERT_EQ(w.changes.size(), 1u);
  bool decremented = false;
  for (const auto& h : w.edit.hunks)
    for (size_t i = 0; i < h.lines.size(); ++i) decremented |= h.lines[i] == "s_waitcnt vmcnt(1)";
  EXPECT_TRUE(decremented) << w.edit.diff();
  auto wide = rebuilt(w.program, "wide.co");
  EXPECT_TRUE(clean(wide, "axpy_f64"));
  EXPECT_EQ(verdict(narrow, wide, spec("axpy_f64")), verify::Verdict::Equivalent);
}

TEST(WidenTest, AReadOfTheSecondDestinationInBetweenSinksTheFirstLoad) {
  // The second load cannot rise above a read of v7's old value, but the first can sink below it.
  auto k0 = load(hip("axpy.co"));
  auto narrow = split(k0, "axpy_f64", "global_load_dwordx2 v[6:7], v[2:3], off",
                      {"global_load_dword v6, v[2:3], off", "v_mov_b32_e32 v8, v7", "global_load_dword v7, v[2:3], off offset:4"});
  auto w = search::widen_accesses(program::Program::recover(narrow), "axpy_f64");
  ASSERT_EQ(w.changes.size(), 1u);
  ASSERT_EQ(w.edit.hunks.size(), 1u);
  EXPECT_EQ(w.edit.hunks[0].lines, (std::vector<std::string>{"v_mov_b32_e32 v8, v7", "global_load_dwordx2 v[6:7], v[2:3], off"}));
  auto wide = rebuilt(w.program, "wide.co");
  EXPECT_TRUE(clean(wide, "axpy_f64"));
  EXPECT_EQ(verdict(narrow, wide, spec("axpy_f64")), verify::Verdict::Equivalent);
}

TEST(WidenTest, IllegalPairsAreNotMerged) {
  auto k0 = load(hip("axpy.co"));
  const std::string wide = "global_load_dwordx2 v[6:7], v[2:3], off";
  struct Case {
    const char* why;
    std::vector<std::string> lines;
  };
  const std::vector<Case> cases = {
      {"a store in between may alias the second load",
       {"global_load_dword v6, v[2:3], off", "s_nop 0", "global_store_dword v[2:3], v0, off offset:8", "global_load_dword v7, v[2:3], off offset:4"}},
      {"the address register is redefined in between",
       {"global_load_dword v6, v[2:3], off", "v_mov_b32_e32 v2, v2", "global_load_dword v7, v[2:3], off offset:4"}},
      {"registers in the opposite order to the offsets",
       {"global_load_dword v7, v[2:3], off", "global_load_dword v6, v[2:3], off offset:4"}},
      {"registers not consecutive",
       {"global_load_dword v6, v[2:3], off", "global_load_dword v8, v[2:3], off offset:4", "s_waitcnt vmcnt(0)", "v_mov_b32_e32 v7, v8"}},
      {"a tuple that would start at an odd register (gfx90a+ needs even)",
       {"global_load_dword v7, v[2:3], off", "global_load_dword v8, v[2:3], off offset:4", "s_waitcnt vmcnt(0)",
        "v_mov_b32_e32 v6, v7", "v_mov_b32_e32 v7, v8"}},
      {"offsets not contiguous", {"global_load_dword v6, v[2:3], off", "global_load_dword v7, v[2:3], off offset:8"}},
      {"the first destination read and the second's old value read in between (neither access can move)",
       {"global_load_dword v6, v[2:3], off", "s_waitcnt vmcnt(0)", "v_mov_b32_e32 v8, v6", "v_mov_b32_e32 v9, v7",
        "global_load_dword v7, v[2:3], off offset:4"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    auto narrow = split(k0, "axpy_f64", wide, c.lines, /*must_be_equivalent=*/false);
    auto w = search::widen_accesses(program::Program::recover(narrow), "axpy_f64");
    EXPECT_TRUE(w.changes.empty()) << w.edit.diff();
  }
  // DS: an LDS write between two LDS reads of the same base blocks the merge.
  auto t0 = load(hip("matmul_tiled.co"));
  auto narrow = split(t0, "matmul_tiled_f32", "ds_read2_b32 v[28:29], v10 offset1:16",
                      {"ds_read_b32 v28, v10", "ds_write_b32 v9, v5 offset:1024", "ds_read_b32 v29, v10 offset:64"},
                      /*must_be_equivalent=*/false);
  EXPECT_TRUE(search::widen_accesses(program::Program::recover(narrow), "matmul_tiled_f32").changes.empty());
}

TEST(WidenTest, MoveInterfaceAndErrors) {
  auto k0 = load(hip("axpy.co"));
  auto narrow = split(k0, "axpy_f64", "global_load_dwordx2 v[6:7], v[2:3], off",
                      {"global_load_dword v6, v[2:3], off", "global_load_dword v7, v[2:3], off offset:4"});
  auto p = program::Program::recover(narrow);
  std::unique_ptr<search::Move> move;
  for (auto& m : search::make_moves("rules"))
    if (m->name() == "widen") move = std::move(m);
  ASSERT_TRUE(move);
  EXPECT_EQ(move->proposer(), "rules");
  std::mt19937_64 rng(1);
  const std::string kernel = "axpy_f64";
  const program::Function* f = p.function(kernel);
  search::MoveContext all{p, kernel, {f->begin, f->end - 1, 0, ""}, rng};
  auto edits = move->propose(all);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].move, "widen");
  // The edit survives serialization and applies to the parent.
  auto again = search::Edit::from_json(edits[0].to_json());
  EXPECT_EQ(code(rebuilt(search::apply_edit(p, again), "wide.co"), kernel), code(k0, kernel));
  // A window that holds only the first of the two loads merges nothing.
  size_t first_load = find_line(p, kernel, "global_load_dword v6, v[2:3], off");
  search::MoveContext one{p, kernel, {first_load, first_load, 0, ""}, rng};
  EXPECT_TRUE(move->propose(one).empty());
  EXPECT_THROW(search::widen_accesses(p, "no_such_kernel"), Error);
}

namespace {

struct CorpusKernel {
  std::string object, kernel, spec;
};

// Every HIP gfx942 kernel with a launch spec and every Triton gfx942 kernel.
std::vector<CorpusKernel> corpus() {
  std::vector<CorpusKernel> out;
  std::map<std::string, std::string> object_of;
  for (const auto& e : fs::directory_iterator(std::string(ASMEVO_BINARY_DIR) + "/corpus/hip/gfx942")) {
    if (e.path().extension() != ".co") continue;
    auto co = load(e.path().string());
    for (const auto& k : co.kernels()) object_of[k.name] = e.path().string();
  }
  std::vector<fs::path> specs;
  for (const auto& e : fs::directory_iterator(std::string(ASMEVO_SOURCE_DIR) + "/corpus/hip/launch")) specs.push_back(e.path());
  std::sort(specs.begin(), specs.end());
  for (const auto& s : specs) {
    auto ls = emu::load_launch_spec(s.string());
    if (object_of.count(ls.kernel)) out.push_back({object_of[ls.kernel], ls.kernel, s.string()});
  }
  std::vector<fs::path> tspecs;
  for (const auto& e : fs::directory_iterator(std::string(ASMEVO_SOURCE_DIR) + "/corpus/triton/launch")) tspecs.push_back(e.path());
  std::sort(tspecs.begin(), tspecs.end());
  for (const auto& s : tspecs) {
    fs::path obj = fs::path(ASMEVO_SOURCE_DIR) / "corpus/triton/gfx942" / (s.stem().string() + ".hsaco");
    if (fs::exists(obj)) out.push_back({obj.string(), emu::load_launch_spec(s.string()).kernel, s.string()});
  }
  return out;
}

double modeled_us(const codeobj::CodeObject& co, const std::string& kernel, const std::string& spec_path) {
  auto ls = emu::load_launch_spec(spec_path);
  return timing::model_kernel({&co, co.kernel(kernel), &ls}, 2).timing().microseconds;
}

}  // namespace

TEST(WidenTest, CorpusSweepEveryEditIsSafeAndEquivalent) {
  auto kernels = corpus();
  ASSERT_GE(kernels.size(), 40u);
  auto move = search::make_moves("rules");
  search::Move* widen = nullptr;
  for (auto& m : move)
    if (m->name() == "widen") widen = m.get();
  ASSERT_NE(widen, nullptr);
  size_t edits = 0, changed = 0, faster = 0;
  std::mt19937_64 rng(1);
  for (const auto& c : kernels) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto p = program::Program::recover(k0);
    const program::Function* f = p.function(c.kernel);
    ASSERT_NE(f, nullptr);
    size_t kernel_edits = 0;
    for (const auto& b : f->blocks) {
      search::MoveContext ctx{p, c.kernel, {b.first, b.last, 0, ""}, rng};
      std::vector<search::Edit> proposed;
      try {
        proposed = widen->propose(ctx);
      } catch (const Error& e) {
        std::cout << "[widen] " << c.kernel << " refused: " << e.what_text() << "\n";
        break;
      }
      for (const auto& e : proposed) {
        ++edits, ++kernel_edits;
        auto k1 = rebuilt(search::apply_edit(p, e), "widened.co");
        EXPECT_TRUE(clean(k1, c.kernel)) << e.diff();
        EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent) << e.diff();
      }
    }
    if (!kernel_edits) continue;
    ++changed;
    // The whole kernel at once, timed by the model.
    auto w = search::widen_accesses(p, c.kernel);
    auto k1 = rebuilt(w.program, "widened.co");
    EXPECT_TRUE(clean(k1, c.kernel));
    EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent);
    double before = modeled_us(k0, c.kernel, c.spec), after = modeled_us(k1, c.kernel, c.spec);
    faster += after < before;
    std::cout << "[widen] " << c.kernel << ": " << w.changes.size() << " merge(s), modeled " << before << " us -> " << after
              << " us\n" << w.edit.diff();
  }
  std::cout << "[widen] " << kernels.size() << " corpus kernels, " << edits << " edit(s), " << changed
            << " kernel(s) changed, " << faster << " modeled faster\n";
}
