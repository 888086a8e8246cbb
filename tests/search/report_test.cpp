// `asmevo report` (search/report.h): a store with synthetic but consistent rows, rendered to HTML.
#include "search/report.h"
#include "support/line_diff.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <nlohmann/json.hpp>

#include "search/store.h"
#include "support/error.h"
#include "support/file_io.h"

namespace fs = std::filesystem;
using namespace asmevo::search;
using asmevo::DiffOp;
using asmevo::diff_lines;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "asmevo-report-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// K0 of "vadd_kernel" and two accepted descendants: each accept changes one line of its parent.
const char* const kK0 =
    "vadd_kernel:\n"
    "  s_load_dwordx4 s[0:3], s[4:5], 0x0\n"
    "  s_waitcnt lgkmcnt(0)  ; wait for a<b && c\n"
    "  global_load_dword v1, v0, s[0:1]\n"
    "  s_waitcnt vmcnt(0)\n"
    "  v_add_f32 v1, v1, v1\n"
    "  global_store_dword v0, v1, s[2:3]\n"
    "  s_endpgm\n";

std::string replace_line(const std::string& text, const std::string& from, const std::string& to) {
  std::string s = text;
  size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return s.replace(p, from.size(), to);
}

std::string per_line(const std::string& listing, double base) {
  nlohmann::json j = nlohmann::json::array();
  size_t address = 0;
  double c = base;
  size_t start = 0;
  while (start < listing.size()) {
    size_t nl = listing.find('\n', start);
    std::string line = listing.substr(start, nl - start);
    start = nl + 1;
    if (line.empty() || line.back() == ':') continue;
    std::string text = line.substr(line.find_first_not_of(' '));
    text = text.substr(0, text.find(" ;"));
    j.push_back({{"address", address}, {"text", text}, {"cycles", c}});
    address += 4;
    c += 1;
  }
  return j.dump();
}

struct Built {
  int64_t vadd = 0, softmax = 0, c_accept1 = 0, c_accept2 = 0, c_llm_rejected = 0;
};

Built build_store(const std::string& path) {
  Built b;
  Store s(path);
  int64_t r1 = s.begin_run("asmevo optimize vadd.co softmax.co --db run.sqlite", 7, R"({"budget":40,"proposers":["rules","llm"]})");

  KernelRecord k;
  k.run = r1;
  k.file = "corpus/hip/gfx942/vadd.co";
  k.kernel = "vadd_kernel";
  k.spec_path = "corpus/hip/launch/vadd_kernel.yaml";
  k.spec_text = "kernel: vadd_kernel\n";
  k.k0 = {0x7f, 'E', 'L', 'F'};
  k.k0_sha = "1111";
  k.baseline_cycles = 1000;
  k.baseline_us = 0.5;
  k.figure_kind = "modeled";
  k.listing = kK0;
  k.per_line_json = per_line(kK0, 100);
  b.vadd = s.kernel(k).id;

  auto cand = [&](int64_t kernel, std::optional<int64_t> parent, const std::string& proposer, const std::string& move,
                  const std::string& verdict, double cycles, double parent_cycles) {
    CandidateRecord c;
    c.kernel = kernel;
    c.run = r1;
    c.parent = parent;
    c.proposer = proposer;
    c.move = move;
    c.window = "vadd_kernel@0x8";
    c.edit_json = nlohmann::json{{"move", move}, {"description", "drop a wait <safely> & cheaply"}}.dump();
    c.verdict = verdict;
    c.stage = verdict == "accepted" ? "accept" : "verify";
    c.reason = verdict == "accepted" ? "" : "out[0] differs";
    c.stages = {{"edit", true, 0.01, ""}, {"rebuild", true, 0.2, ""}, {"verify", verdict == "accepted", 1.0, c.reason}};
    c.cycles = cycles;
    c.parent_cycles = parent_cycles;
    c.speedup = parent_cycles / cycles;
    c.seconds = 1.21;
    return c;
  };

  int64_t c1 = s.add_candidate(cand(b.vadd, std::nullopt, "rules", "waitcnt-refine", "rejected", 990, 1000));
  s.add_counterexample(b.vadd, c1, "/runs/cex/vadd-1", "kernel: vadd_kernel\nseed: 3\n");

  const std::string l1 = replace_line(kK0, "  s_waitcnt vmcnt(0)\n", "  s_waitcnt vmcnt(1)\n");
  AcceptedRecord a1;
  a1.code = {1, 2, 3};
  a1.cycles = 800;
  a1.listing = l1;
  a1.per_line_json = per_line(l1, 200);
  b.c_accept1 = s.add_candidate(cand(b.vadd, std::nullopt, "rules", "waitcnt-refine", "accepted", 800, 1000), &a1);

  CandidateRecord llm = cand(b.vadd, b.c_accept1, "llm", "llm-rewrite", "rejected", 700, 800);
  llm.transcript = "assistant: try <script>alert(1)</script> & see";
  b.c_llm_rejected = s.add_candidate(llm);

  const std::string l2 = replace_line(l1, "  v_add_f32 v1, v1, v1\n", "  v_mul_f32 v1, 2.0, v1\n");
  AcceptedRecord a2;
  a2.code = {4, 5, 6};
  a2.cycles = 625;
  a2.listing = l2;
  a2.per_line_json = per_line(l2, 300);
  CandidateRecord c2 = cand(b.vadd, b.c_accept1, "llm", "llm-rewrite", "accepted", 625, 800);
  c2.transcript = nlohmann::json{{"schema", "asmevo.transcript/1"}, {"model", "mock"},
                                 {"entries", {{{"role", "assistant"}, {"content", "v_add x,x == v_mul 2.0,x <ok>"},
                                               {"tool_calls", {{{"name", "propose_edit"}, {"arguments", R"({"first": 5})"}}}}},
                                              {{"role", "tool"}, {"name", "propose_edit"}, {"content", "edit_id 1 ready"}}}}}
                      .dump();
  b.c_accept2 = s.add_candidate(c2, &a2);

  s.add_windows(b.vadd, std::nullopt, {"vadd_kernel@0x8", "vadd_kernel@0x20"}, {{1, 4}, {5, 7}}, {0.7, 0.3}, {700, 300},
                {"s_waitcnt vmcnt(0)\n", "v_add_f32 v1, v1, v1\n"});
  s.add_windows(b.vadd, b.c_accept2, {"vadd_kernel@0x8"}, {{1, 4}}, {0.55}, {344}, {});
  s.set_final(b.vadd, b.c_accept2, "EQUIVALENT", 625, 1.6,
              R"({"verdict":"EQUIVALENT","launches":[{"spec":"vadd_kernel.yaml","runs":12,"max_abs_error":0}],"note":"x<y"})");
  s.add_note(b.vadd, "vadd_kernel@0x8", "llm", "the second wait guards nothing");

  // A second kernel, measured, interrupted: one accept known only by its hunks.
  KernelRecord k2 = k;
  k2.kernel = "softmax_fwd";
  k2.file = "corpus/triton/softmax.co";
  k2.k0_sha = "2222";
  k2.baseline_cycles = 2000;
  k2.figure_kind = "measured";
  k2.listing.clear();
  k2.per_line_json.clear();
  b.softmax = s.kernel(k2).id;
  CandidateRecord h = cand(b.softmax, std::nullopt, "stochastic", "stochastic-swap", "accepted", 1900, 2000);
  h.edit_json = R"({"move":"stochastic-swap","hunks":[{"first":5,"count":1,"lines":["s_nop 1"],"before":["s_nop 0"]}]})";
  AcceptedRecord ah;
  ah.code = {9};
  ah.cycles = 1900;
  s.add_candidate(h, &ah);
  s.add_candidate(cand(b.softmax, std::nullopt, "stochastic", "stochastic-swap", "error", 0, 2000));
  s.finish_run(r1, "interrupted");
  return b;
}

}  // namespace

TEST(Report, HtmlEscape) {
  EXPECT_EQ(html_escape("a<b && c>\"d\" 'e'"), "a&lt;b &amp;&amp; c&gt;&quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(html_escape(std::string("x\xff", 2)), "x\\xff");
}

// support/line_diff.h is the one line diff; the report and search::diff_edit both use it.
TEST(LineDiff, IsMinimalAndReconstructs) {
  std::vector<std::string> a{"x", "a", "b", "c", "y"}, b{"x", "a", "B", "c", "y", "z"};
  auto ops = diff_lines(a, b).ops;
  std::vector<std::string> ra, rb;
  size_t changes = 0;
  for (const auto& o : ops) {
    if (o.kind != DiffOp::kInsert) ra.push_back(a[o.a_line]);
    if (o.kind != DiffOp::kDelete) rb.push_back(b[o.b_line]);
    if (o.kind == DiffOp::kEqual) EXPECT_EQ(a[o.a_line], b[o.b_line]);
    changes += o.kind != DiffOp::kEqual;
  }
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rb, b);
  EXPECT_EQ(changes, 3u);  // -b +B +z
  EXPECT_TRUE(diff_lines({}, {}).ops.empty());
  EXPECT_EQ(diff_lines({"q"}, {}).ops.size(), 1u);
  // A moved block: the LCS keeps the longer run.
  auto m = diff_lines({"1", "2", "3", "4", "5"}, {"4", "5", "1", "2", "3"});
  size_t eq = 0;
  for (const auto& o : m.ops) eq += o.kind == DiffOp::kEqual;
  EXPECT_EQ(eq, 3u);
  EXPECT_FALSE(m.whole_replacement);
}

TEST(LineDiff, AMiddleOverTheCellBoundIsOneReplacement) {
  std::vector<std::string> a{"p", "1", "2", "3", "s"}, b{"p", "3", "2", "1", "s"};
  auto d = diff_lines(a, b, /*max_cells=*/4);
  EXPECT_TRUE(d.whole_replacement);
  size_t del = 0, ins = 0;
  for (const auto& o : d.ops) del += o.kind == DiffOp::kDelete, ins += o.kind == DiffOp::kInsert;
  EXPECT_EQ(del, 3u);
  EXPECT_EQ(ins, 3u);
  EXPECT_FALSE(diff_lines(a, b).whole_replacement);
}

TEST(Report, RendersEverySection) {
  TempDir d;
  const std::string db = d.file("run.sqlite");
  Built b = build_store(db);
  std::string html = render_report(db);
  // To look at the page: ASMEVO_REPORT_SAMPLE_DIR=/some/dir keeps the store and its report there.
  if (const char* keep = std::getenv("ASMEVO_REPORT_SAMPLE_DIR")) {
    fs::copy_file(db, fs::path(keep) / "sample.sqlite", fs::copy_options::overwrite_existing);
    asmevo::write_file_atomic((fs::path(keep) / "sample.html").string(), html);
  }

  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // Self-contained: nothing fetched from elsewhere.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);

  EXPECT_NE(html.find("vadd_kernel"), std::string::npos);
  EXPECT_NE(html.find("softmax_fwd"), std::string::npos);
  EXPECT_NE(html.find("1.600×"), std::string::npos);   // vadd's final speedup
  EXPECT_NE(html.find("1.250×"), std::string::npos);   // first accept over its parent and over K0
  EXPECT_NE(html.find("EQUIVALENT"), std::string::npos);
  EXPECT_NE(html.find("did not finish"), std::string::npos);  // softmax has no final row
  // Each kernel's figures carry its kind.
  EXPECT_NE(html.find("<span class=\"kind\">modeled</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"kind\">measured</span>"), std::string::npos);

  // Escaping: a listing line with < and &, the transcript and the edit description.
  EXPECT_NE(html.find("wait for a&lt;b &amp;&amp; c"), std::string::npos);
  EXPECT_EQ(html.find("a<b"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; see"), std::string::npos);
  EXPECT_NE(html.find("drop a wait &lt;safely&gt; &amp; cheaply"), std::string::npos);
  EXPECT_NE(html.find("x&lt;y"), std::string::npos);  // inside the verification report JSON

  // Plots.
  EXPECT_GE(count(html, "<svg"), 5u);  // per kernel: speedup, proposers, moves; windows for vadd
  EXPECT_NE(html.find("best speedup over K0 (modeled)"), std::string::npos);
  EXPECT_NE(html.find("best speedup over K0 (measured)"), std::string::npos);

  // The lineage diffs: K0 → accept 1 changes the vmcnt wait, accept 1 → accept 2 the add; changed
  // rows pair the old and new line, with the per-line cycles of each side.
  EXPECT_EQ(count(html, "<tr class=\"chg\">"), 3u);  // two lineage diffs + softmax's hunk
  size_t first = html.find("<tr class=\"chg\">");
  std::string row = html.substr(first, html.find("</tr>", first) - first);
  EXPECT_NE(row.find("s_waitcnt vmcnt(0)"), std::string::npos) << row;
  EXPECT_NE(row.find("s_waitcnt vmcnt(1)"), std::string::npos) << row;
  EXPECT_NE(row.find("<td class=\"cy\">103</td>"), std::string::npos) << row;  // K0's 4th instruction
  EXPECT_NE(row.find("<td class=\"cy\">203</td>"), std::string::npos) << row;
  size_t second = html.find("<tr class=\"chg\">", first + 1);
  EXPECT_LT(html.find("s_waitcnt vmcnt(0)", first), html.find("v_mul_f32 v1, 2.0, v1"));
  row = html.substr(second, html.find("</tr>", second) - second);
  EXPECT_NE(row.find("v_add_f32 v1, v1, v1"), std::string::npos) << row;
  EXPECT_NE(row.find("v_mul_f32 v1, 2.0, v1"), std::string::npos) << row;
  EXPECT_NE(html.find("@@ line 5"), std::string::npos);  // softmax: from the edit's hunks
  EXPECT_NE(html.find("s_nop 1"), std::string::npos);

  // Windows before/after, acceptance, evidence, transcripts.
  EXPECT_NE(html.find("70.0%"), std::string::npos);
  EXPECT_NE(html.find("55.0%"), std::string::npos);
  EXPECT_NE(html.find("1/2 (50.0%)"), std::string::npos);  // vadd: rules proposed 2, 1 accepted
  EXPECT_NE(html.find("/runs/cex/vadd-1"), std::string::npos);
  EXPECT_NE(html.find("max_abs_error"), std::string::npos);
  EXPECT_NE(html.find(fmt::format("transcript of candidate {}", b.c_llm_rejected)), std::string::npos);
  EXPECT_NE(html.find("<details><summary>transcript"), std::string::npos);
  // An agent transcript reads as a conversation, escaped.
  EXPECT_NE(html.find("<b>assistant</b><pre>v_add x,x == v_mul 2.0,x &lt;ok&gt;</pre>"), std::string::npos);
  EXPECT_NE(html.find("<pre>→ propose_edit {&quot;first&quot;:5}</pre>"), std::string::npos);
  EXPECT_NE(html.find("<b>tool</b> <code>propose_edit</code><pre>edit_id 1 ready</pre>"), std::string::npos);
  EXPECT_NE(html.find("the second wait guards nothing"), std::string::npos);
  EXPECT_NE(html.find("interrupted"), std::string::npos);
}

TEST(Report, ReadOnlyDatabaseFileIsReadAndLeftByteIdentical) {
  TempDir d;
  const std::string db = d.file("run.sqlite");
  build_store(db);
  ASSERT_EQ(::chmod(db.c_str(), 0444), 0);
  auto before = asmevo::read_file_bytes(db);
  auto listing_before = std::vector<fs::path>(fs::directory_iterator(d.path), fs::directory_iterator());
  const std::string out = d.file("report.html");
  write_report(db, out);
  std::string html = asmevo::read_file_text(out);
  EXPECT_NE(html.find("vadd_kernel"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(asmevo::read_file_bytes(db), before);
  struct stat st{};
  ASSERT_EQ(::stat(db.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
  // Only the report was added beside it (no temporary file left behind).
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(d.path)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"run.sqlite", "report.html"})) << ::testing::PrintToString(names);
}

TEST(Report, MissingOrForeignDatabaseIsBadInput) {
  TempDir d;
  try {
    render_report(d.file("nope.sqlite"));
    FAIL() << "no error";
  } catch (const asmevo::Error& e) {
    EXPECT_EQ(e.exit_code(), asmevo::kExitBadInput);
    EXPECT_NE(e.format().find("no such experiment store"), std::string::npos) << e.format();
  }
  const std::string junk = d.file("junk.sqlite");
  asmevo::write_file_atomic(junk, std::string(4096, 'j'));
  try {
    write_report(junk, d.file("r.html"));
    FAIL() << "no error";
  } catch (const asmevo::Error& e) {
    EXPECT_EQ(e.exit_code(), asmevo::kExitBadInput);
    EXPECT_NE(e.format().find("not an SQLite database"), std::string::npos) << e.format();
  }
  EXPECT_FALSE(fs::exists(d.file("r.html")));

  // -o naming the store itself (by another spelling) is refused; the store is left alone.
  const std::string db = d.file("run.sqlite");
  { Store s(db); }
  auto before = asmevo::read_file_bytes(db);
  try {
    write_report(db, (d.path / "." / "run.sqlite").string());
    FAIL() << "no error";
  } catch (const asmevo::Error& e) {
    EXPECT_NE(e.format().find("replace the experiment store"), std::string::npos) << e.format();
  }
  EXPECT_EQ(asmevo::read_file_bytes(db), before);
}

TEST(Report, EmptyStoreStillRenders) {
  TempDir d;
  const std::string db = d.file("run.sqlite");
  { Store s(db); }
  std::string html = render_report(db);
  EXPECT_NE(html.find("no runs recorded"), std::string::npos);
  EXPECT_NE(html.find("no kernels recorded"), std::string::npos);
}

TEST(Report, LiveStoreShowsWhatTheWriterCommitted) {
  TempDir d;
  const std::string db = d.file("run.sqlite");
  build_store(db);
  Store writer(db);  // an optimize run still going: its commits sit in the -wal, not yet checkpointed
  KernelRecord k;
  k.file = "late.co";
  k.kernel = "late_kernel";
  k.k0_sha = "3333";
  k.baseline_cycles = 10;
  writer.kernel(k);
  ASSERT_TRUE(fs::exists(db + "-wal"));
  ASSERT_EQ(::chmod(db.c_str(), 0444), 0);  // even write-protected, the log must be read
  std::string html = render_report(db);
  EXPECT_NE(html.find("late_kernel"), std::string::npos);
}
