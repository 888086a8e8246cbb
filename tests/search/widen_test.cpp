// search/moves/widen.h: wide accesses split into narrow ones are merged back (the result checks
// clean and verifies EQUIVALENT), merges that would be wrong are not made, and over the whole corpus
// every edit the move proposes rebuilds, checks clean and verifies EQUIVALENT.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "search/move.h"
#include "search/moves/widen.h"
#include "support/error.h"
#include "support/file_io.h"
#include "timing/backend.h"
#include "verify/verify.h"
#include "corpus/index/corpus.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }
std::string hip(const std::string& file) { return corpus::hip_object("gfx942", file); }
std::string spec(const std::string& kernel) { return corpus::hip_spec(kernel); }

codeobj::CodeObject rebuilt(program::Program p, const std::string& name) {
  p.update_resources();
  return codeobj::CodeObject::parse(rebuild::rebuild(p.listing(), name), name);
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

search::Move& widen_move() {
  static std::vector<std::unique_ptr<search::Move>> moves = search::make_moves("rules");
  for (auto& m : moves)
    if (m->name() == "widen") return *m;
  throw Error("no widen move registered");
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

TEST(WidenTest, AWaitForOnlyTheFirstHalfIsStrengthenedOnlyWhenAllowed) {
  // A `vmcnt(1)` after the pair that waits for the first load of the pair (v6 is read) but not the
  // second: merging makes it wait for both (vmcnt(0)), which may be slower, so the default refuses.
  auto k0 = load(hip("axpy.co"));
  auto narrow = split(k0, "axpy_f64", "global_load_dwordx2 v[6:7], v[2:3], off",
                      {"global_load_dword v6, v[2:3], off", "global_load_dword v7, v[2:3], off offset:4", "s_waitcnt vmcnt(1)",
                       "v_mov_b32_e32 v8, v6"});
  auto p = program::Program::recover(narrow);
  EXPECT_TRUE(search::widen_accesses(p, "axpy_f64").changes.empty());
  auto w = search::widen_accesses(p, "axpy_f64", std::nullopt, true);
  ASSERT_EQ(w.changes.size(), 1u);
  bool strengthened = false;
  for (const auto& h : w.edit.hunks)
    for (const auto& l : h.lines) strengthened |= l == "s_waitcnt vmcnt(0)";
  EXPECT_TRUE(strengthened) << w.edit.diff();
  auto wide = rebuilt(w.program, "wide.co");
  EXPECT_TRUE(clean(wide, "axpy_f64"));
  EXPECT_EQ(verdict(narrow, wide, spec("axpy_f64")), verify::Verdict::Equivalent);
  // The move proposes it as its only edit (there is no merge that keeps every wait as weak).
  std::mt19937_64 rng(1);
  const program::Function* f = p.function("axpy_f64");
  auto edits = widen_move().propose({p, "axpy_f64", {f->begin, f->end - 1, 0, ""}, rng});
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].hunks.size(), w.edit.hunks.size());
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
  // DS: two writes to the same address (ds_write2 does not order its two elements).
  auto h0 = load(hip("histogram.co"));
  auto same = split(h0, "histogram_u8", "ds_write2_b32 v3, v4, v4 offset0:2 offset1:3",
                    {"ds_write_b32 v3, v4 offset:8", "ds_write_b32 v3, v5 offset:8"}, /*must_be_equivalent=*/false);
  EXPECT_TRUE(search::widen_accesses(program::Program::recover(same), "histogram_u8").changes.empty());
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
std::vector<CorpusKernel> corpus_cases() {
  std::vector<CorpusKernel> out;
  for (const auto& k : corpus::kernels("gfx942")) out.push_back({k.code_object, k.name, k.spec});
  return out;
}

double modeled_us(const codeobj::CodeObject& co, const std::string& kernel, const std::string& spec_path) {
  auto ls = emu::load_launch_spec(spec_path);
  return timing::model_kernel({&co, co.kernel(kernel), &ls}, 2).timing().microseconds;
}

// Every edit the move proposes for one basic block of `p` at a time: rebuilt, clean, EQUIVALENT to
// `k0`. Returns how many there were.
size_t check_block_edits(search::Move& widen, const program::Program& p, const codeobj::CodeObject& k0, const CorpusKernel& c) {
  std::mt19937_64 rng(1);
  size_t edits = 0;
  for (const auto& b : p.function(c.kernel)->blocks) {
    search::MoveContext ctx{p, c.kernel, {b.first, b.last, 0, ""}, rng};
    for (const auto& e : widen.propose(ctx)) {
      ++edits;
      auto k1 = rebuilt(search::apply_edit(p, e), "widened.co");
      EXPECT_TRUE(clean(k1, c.kernel)) << e.diff();
      EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent) << e.diff();
    }
  }
  return edits;
}

// The narrow equivalent of a wide access, written independently of the move: dwordx2..x4 global and
// buffer accesses as dwords at consecutive offsets, ds_read2_b32 / ds_write2_b32 as two b32 accesses.
// Empty when the access is not one of these or cannot be split (a load into its own address).
std::vector<std::string> narrow_form(const std::string& text) {
  std::istringstream in(text);
  std::string mnemonic;
  in >> mnemonic;
  std::string rest;
  std::getline(in, rest);
  std::vector<std::string> ops;
  std::string tail;
  {
    std::string cur;
    for (char ch : rest) {
      if (ch == ',') ops.push_back(cur), cur.clear();
      else cur += ch;
    }
    std::istringstream last(cur);
    std::string t;
    last >> t;
    ops.push_back(t);
    std::getline(last, tail);
    for (auto& o : ops) o.erase(0, o.find_first_not_of(' '));
  }
  std::vector<std::string> mods;
  int64_t offset = 0, offset0 = 0, offset1 = 0;
  {
    std::istringstream t(tail);
    std::string m;
    while (t >> m) {
      if (m.rfind("offset:", 0) == 0) offset = std::stoll(m.substr(7));
      else if (m.rfind("offset0:", 0) == 0) offset0 = std::stoll(m.substr(8));
      else if (m.rfind("offset1:", 0) == 0) offset1 = std::stoll(m.substr(8));
      else mods.push_back(m);
    }
  }
  // The assembler wants offen/idxen before the offset and the cache bits after it.
  auto with_mods = [&](std::string s, int64_t off) {
    for (const auto& m : mods)
      if (m == "offen" || m == "idxen") s += " " + m;
    if (off) s += " offset:" + std::to_string(off);
    for (const auto& m : mods)
      if (m != "offen" && m != "idxen") s += " " + m;
    return s;
  };
  std::vector<std::string> out;
  if (mnemonic == "ds_read2_b32" && ops.size() == 2) {
    auto d = program::parse_reg(ops[0]);
    if (!d || d->count != 2 || (ops[1] == "v" + std::to_string(d->first)) || ops[1] == "v" + std::to_string(d->first + 1)) return {};
    out.push_back(with_mods("ds_read_b32 v" + std::to_string(d->first) + ", " + ops[1], 4 * offset0));
    out.push_back(with_mods("ds_read_b32 v" + std::to_string(d->first + 1) + ", " + ops[1], 4 * offset1));
    return out;
  }
  if (mnemonic == "ds_write2_b32" && ops.size() == 3) {
    out.push_back(with_mods("ds_write_b32 " + ops[0] + ", " + ops[1], 4 * offset0));
    out.push_back(with_mods("ds_write_b32 " + ops[0] + ", " + ops[2], 4 * offset1));
    return out;
  }
  for (const std::string prefix : {"global_load_dword", "global_store_dword", "buffer_load_dword", "buffer_store_dword"}) {
    if (mnemonic.rfind(prefix + "x", 0) != 0 || mnemonic.size() != prefix.size() + 2) continue;
    const unsigned n = mnemonic.back() - '0';
    const bool global = prefix[0] == 'g', store = prefix.find("store") != std::string::npos;
    const size_t data = global && store ? 1 : 0;
    if (ops.size() != (global ? 3u : 4u)) return {};
    auto d = program::parse_reg(ops[data]);
    if (!d || d->count != n) return {};
    for (size_t i = 0; i < ops.size(); ++i) {
      auto r = program::parse_reg(ops[i]);
      if (i != data && r && !store && program::overlaps(*r, *d)) return {};
    }
    if (offset + 4 * (n - 1) > 4095) return {};
    for (unsigned k = 0; k < n; ++k) {
      auto o = ops;
      o[data] = program::to_string({d->file, d->first + k, 1});
      std::string s = prefix + " " + o[0];
      for (size_t i = 1; i < o.size(); ++i) s += ", " + o[i];
      out.push_back(with_mods(s, offset + 4 * k));
    }
    return out;
  }
  return {};
}

}  // namespace

TEST(WidenTest, CorpusSweepEveryEditIsSafeAndEquivalent) {
  // As compiled: every block of every corpus kernel; every proposed edit must be safe and
  // EQUIVALENT. The compilers already emit the wide forms, so little or nothing is expected here.
  auto kernels = corpus_cases();
  ASSERT_GE(kernels.size(), 40u);
  size_t edits = 0, changed = 0, faster = 0;
  for (const auto& c : kernels) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto p = program::Program::recover(k0);
    ASSERT_NE(p.function(c.kernel), nullptr);
    size_t n = check_block_edits(widen_move(), p, k0, c);
    if (!n) continue;
    edits += n, ++changed;
    auto w = search::widen_accesses(p, c.kernel);
    auto k1 = rebuilt(w.program, "widened.co");
    EXPECT_TRUE(clean(k1, c.kernel));
    EXPECT_EQ(verdict(k0, k1, c.spec), verify::Verdict::Equivalent);
    double before = modeled_us(k0, c.kernel, c.spec), after = modeled_us(k1, c.kernel, c.spec);
    faster += after < before;
    std::cout << "[widen] " << c.kernel << ": " << w.changes.size() << " merge(s), modeled " << before << " us -> " << after
              << " us\n" << w.edit.diff();
  }
  std::cout << "[widen] as compiled: " << kernels.size() << " corpus kernels, " << edits << " edit(s), " << changed
            << " kernel(s) changed, " << faster << " modeled faster\n";
}

TEST(WidenTest, CorpusNarrowedAndWidenedBack) {
  // Every corpus kernel with its wide accesses split into narrow ones (narrow_form): the narrow kernel
  // must check clean (else it is skipped) and be EQUIVALENT; the move, block by block and on the
  // whole kernel, must give safe EQUIVALENT code; the modeled times say what widening is worth.
  size_t kernels = 0, skipped = 0, pieces = 0, merges = 0, identical = 0, faster = 0, edits = 0, merges_all = 0, faster_all = 0;
  for (const auto& c : corpus_cases()) {
    SCOPED_TRACE(c.kernel);
    auto k0 = load(c.object);
    auto p = program::Program::recover(k0);
    const program::Function* f = p.function(c.kernel);
    size_t split_here = 0;
    for (size_t i = f->end; i-- > f->begin;) {
      auto lines = narrow_form(p.text_line(i).text);
      if (lines.empty()) continue;
      p.replace(i, i, lines);
      ++split_here;
      pieces += lines.size() - 1;
    }
    if (!split_here) continue;
    ++kernels;
    auto narrow = rebuilt(p, "narrow.co");
    check::CheckOptions opts;
    opts.kernel = c.kernel;
    if (!check::check_code_object(narrow, opts).clean()) {
      ++skipped;  // splitting can create hazards (e.g. an XNACK soft clause): not a fair start
      std::cout << "[widen] " << c.kernel << ": the narrow version has findings, skipped\n";
      continue;
    }
    ASSERT_EQ(verdict(k0, narrow, c.spec), verify::Verdict::Equivalent) << "narrow_form broke " << c.kernel;
    auto np = program::Program::recover(narrow);
    edits += check_block_edits(widen_move(), np, k0, c);
    const double t0 = modeled_us(k0, c.kernel, c.spec), tn = modeled_us(narrow, c.kernel, c.spec);
    std::string line = fmt::format("[widen] {}: {} wide access(es) split; modeled us: compiled {:.3f}, narrow {:.3f}", c.kernel,
                                   split_here, t0, tn);
    for (bool stronger : {false, true}) {
      auto w = search::widen_accesses(np, c.kernel, std::nullopt, stronger);
      auto wide = rebuilt(w.program, "wide.co");
      EXPECT_TRUE(clean(wide, c.kernel));
      EXPECT_EQ(verdict(k0, wide, c.spec), verify::Verdict::Equivalent);
      const bool same = code(wide, c.kernel) == code(k0, c.kernel);
      const double tw = modeled_us(wide, c.kernel, c.spec);
      if (!stronger) merges += w.changes.size(), identical += same, faster += tw < tn;
      else merges_all += w.changes.size(), faster_all += tw < tn;
      if (!same && getenv("WIDEN_DIFFS")) std::cout << w.edit.diff();
      line += fmt::format(", widened{} {:.3f} ({} merge(s){})", stronger ? " (stronger waits allowed)" : "", tw, w.changes.size(),
                          same ? ", the compiler's code exactly" : "");
    }
    std::cout << line << "\n";
  }
  std::cout << fmt::format("[widen] narrowed corpus: {} kernel(s) with wide accesses, {} skipped, {} extra narrow accesses; "
                           "{} merge(s) ({} identical to the compiler's code, {} modeled faster than narrow); with stronger waits "
                           "allowed {} merge(s) ({} modeled faster); {} edit(s) proposed block by block\n",
                           kernels, skipped, pieces, merges, identical, faster, merges_all, faster_all, edits);
  EXPECT_GT(merges, 0u);
}
