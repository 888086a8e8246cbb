// The HTML report of an experiment store (search/report.h).
#include "search/report.h"

#include "support/line_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "search/store.h"
#include "support/error.h"
#include "support/file_io.h"
#include "support/text.h"

namespace asmevo::search {

std::string html_escape(std::string_view raw) {
  std::string s = sanitize_utf8(raw);
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string esc(std::string_view s) { return html_escape(s); }

std::string num(double v, int digits = 0) {
  if (!std::isfinite(v)) return "–";
  return fmt::format("{:.{}f}", v, digits);
}
std::string times(double v) { return std::isfinite(v) && v > 0 ? fmt::format("{:.3f}×", v) : "–"; }
std::string percent(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", 100 * v) : "–"; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// An instruction's text without comments and with single spaces, to match listing lines against
// the per-line cycle records (whose text is the bare instruction).
std::string normalize(std::string_view s) {
  size_t cut = std::min(s.find("//"), s.find(';'));
  if (cut != std::string_view::npos) s = s.substr(0, cut);
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

// Modeled cycles per listing line, from a per_line JSON ([{address, text, cycles}]) in program
// order: each record is matched to the next listing line with the same instruction text, so
// labels, directives and comments in the listing are skipped over.
std::vector<std::optional<double>> cycles_per_line(const std::vector<std::string>& lines, const std::string& per_line) {
  std::vector<std::optional<double>> out(lines.size());
  if (per_line.empty()) return out;
  auto j = nlohmann::json::parse(per_line, nullptr, false);
  if (!j.is_array()) return out;
  std::vector<std::string> norm(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) norm[i] = normalize(lines[i]);
  constexpr size_t kLookahead = 256;  // how far a record may be from the previous match
  size_t pos = 0;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("text") || !e["text"].is_string() || !e.contains("cycles") ||
        !e["cycles"].is_number())
      continue;
    std::string t = normalize(e["text"].get<std::string>());
    if (t.empty()) continue;
    for (size_t k = pos; k < lines.size() && k < pos + kLookahead; ++k) {
      if (norm[k] == t) {
        out[k] = e["cycles"].get<double>();
        pos = k + 1;
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inline SVG.

const char* const kPalette[] = {"#3366cc", "#dc7633", "#28a745", "#9b59b6", "#c0392b", "#16a085"};

// Ticks at 1, 2 or 5 times a power of ten, about `want` of them across [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int want = 5) {
  std::vector<double> t;
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / want, p = std::pow(10.0, std::floor(std::log10(raw))), step = p;
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * p >= raw) {
      step = f * p;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string tick_label(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

// The best speedup over K0 after each candidate tried (a step line), with the accepts that
// improved it marked.
struct Mark {
  size_t x;
  double y;
  std::string label;
};
std::string svg_best_speedup(const std::vector<double>& best, const std::vector<Mark>& marks, const std::string& kind) {
  const double W = 720, H = 280, ml = 64, mr = 20, mt = 16, mb = 48;
  const double N = std::max<double>(1, best.size());
  double ymin = 1, ymax = 1;
  for (double v : best) ymin = std::min(ymin, v), ymax = std::max(ymax, v);
  if (ymax - ymin < 0.05) ymax = ymin + 0.05;
  ymax += (ymax - ymin) * 0.08;
  auto X = [&](double x) { return ml + (W - ml - mr) * x / N; };
  auto Y = [&](double y) { return mt + (H - mt - mb) * (1 - (y - ymin) / (ymax - ymin)); };
  std::string s = fmt::format(R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img">)", W, H);
  s += fmt::format(R"(<title>best speedup over K0 ({}) against candidates tried</title>)", esc(kind));
  for (double t : nice_ticks(ymin, ymax)) {
    s += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)", ml, W - mr, Y(t), Y(t));
    s += fmt::format(R"(<text x="{}" y="{:.1f}" class="tick" text-anchor="end">{}×</text>)", ml - 6, Y(t) + 4, tick_label(t));
  }
  for (double t : nice_ticks(0, N, 6)) {
    s += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" class="axis"/>)", X(t), H - mb, H - mb + 4);
    s += fmt::format(R"(<text x="{:.1f}" y="{}" class="tick" text-anchor="middle">{}</text>)", X(t), H - mb + 18, tick_label(t));
  }
  s += fmt::format(R"(<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" class="axis"/><line x1="{0}" x2="{0}" y1="{3}" y2="{2}" class="axis"/>)",
                   ml, W - mr, H - mb, mt);
  s += fmt::format(R"(<text x="{:.1f}" y="{}" class="label" text-anchor="middle">candidates tried</text>)", (ml + W - mr) / 2, H - 8);
  s += fmt::format(R"~(<text transform="translate(14 {:.1f}) rotate(-90)" class="label" text-anchor="middle">best speedup over K0 ({})</text>)~",
                   (mt + H - mb) / 2, esc(kind));
  std::string pts = fmt::format("{:.1f},{:.1f}", X(0), Y(1));
  double last = 1;
  for (size_t i = 0; i < best.size(); ++i) {
    if (best[i] != last) {
      pts += fmt::format(" {:.1f},{:.1f} {:.1f},{:.1f}", X(i + 1), Y(last), X(i + 1), Y(best[i]));
      last = best[i];
    }
  }
  pts += fmt::format(" {:.1f},{:.1f}", X(N), Y(last));
  s += fmt::format(R"(<polyline points="{}" class="line"/>)", pts);
  for (const auto& m : marks)
    s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="4" class="mark"><title>{}</title></circle>)", X(m.x), Y(m.y), esc(m.label));
  return s + "</svg>";
}

// Horizontal bars: one group per label, one bar per series, scaled to `vmax`.
std::string svg_bars(const std::vector<std::string>& labels, const std::vector<std::vector<double>>& values,
                     const std::vector<std::string>& series, double vmax, const std::vector<std::vector<std::string>>& texts) {
  const double W = 720, label_w = 230, bar_h = 14, gap = 8, value_w = 150;
  const size_t ns = std::max<size_t>(1, series.size());
  const double group_h = ns * bar_h + gap;
  const double legend_h = series.size() > 1 ? 22 : 0;
  const double H = legend_h + labels.size() * group_h + 6;
  if (!(vmax > 0)) vmax = 1;
  std::string s = fmt::format(R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img">)", W, H);
  if (series.size() > 1)
    for (size_t k = 0; k < series.size(); ++k) {
      double x = label_w + k * 180;
      s += fmt::format(R"(<rect x="{}" y="4" width="12" height="12" fill="{}"/><text x="{}" y="14" class="tick">{}</text>)", x,
                       kPalette[k % 6], x + 16, esc(series[k]));
    }
  for (size_t i = 0; i < labels.size(); ++i) {
    double y0 = legend_h + i * group_h;
    std::string shown = labels[i].size() > 34 ? labels[i].substr(0, 33) + "…" : labels[i];
    s += fmt::format(R"(<text x="{}" y="{:.1f}" class="tick" text-anchor="end"><title>{}</title>{}</text>)", label_w - 8,
                     y0 + ns * bar_h / 2 + 4, esc(labels[i]), esc(shown));
    for (size_t k = 0; k < values[i].size(); ++k) {
      double v = std::isfinite(values[i][k]) ? std::max(0.0, values[i][k]) : 0;
      double w = (W - label_w - value_w) * std::min(1.0, v / vmax);
      double y = y0 + k * bar_h;
      s += fmt::format(R"(<rect x="{}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"/>)", label_w, y, w, bar_h - 2, kPalette[k % 6]);
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="tick">{}</text>)", label_w + w + 4, y + bar_h - 4, esc(texts[i][k]));
    }
  }
  return s + "</svg>";
}

// ---------------------------------------------------------------------------------------------
// JSON for people: objects as key/value tables, arrays as lists, long strings as <pre>.

std::string render_json(const nlohmann::json& j, int depth = 0) {
  constexpr size_t kMaxItems = 200;
  if (j.is_object()) {
    if (j.empty()) return "<code>{}</code>";
    std::string s = "<table class=\"kv\">";
    for (auto it = j.begin(); it != j.end(); ++it)
      s += "<tr><th>" + esc(it.key()) + "</th><td>" + render_json(it.value(), depth + 1) + "</td></tr>";
    return s + "</table>";
  }
  if (j.is_array()) {
    if (j.empty()) return "<code>[]</code>";
    bool scalars = std::all_of(j.begin(), j.end(), [](const auto& e) { return e.is_primitive(); });
    if (scalars && j.size() <= 32) {
      std::string s;
      for (const auto& e : j) s += (s.empty() ? "" : ", ") + render_json(e, depth + 1);
      return "[" + s + "]";
    }
    std::string s = "<ol start=\"0\">";
    size_t n = 0;
    for (const auto& e : j) {
      if (n++ == kMaxItems) {
        s += fmt::format("<li>… {} more (in the raw JSON below)</li>", j.size() - kMaxItems);
        break;
      }
      s += "<li>" + render_json(e, depth + 1) + "</li>";
    }
    return s + "</ol>";
  }
  if (j.is_string()) {
    const std::string& t = j.get_ref<const std::string&>();
    if (t.find('\n') != std::string::npos || t.size() > 120) return "<pre>" + esc(t) + "</pre>";
    std::string cls = t == "EQUIVALENT" ? "good" : (t == "DIFFERENT" || t == "ERROR" || t == "FAIL") ? "bad" : "";
    return cls.empty() ? esc(t) : "<span class=\"" + cls + "\">" + esc(t) + "</span>";
  }
  return "<code>" + esc(j.dump()) + "</code>";
}

std::string json_block(const std::string& text, const std::string& what) {
  if (text.empty()) return "<p class=\"dim\">no " + esc(what) + " recorded</p>";
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return "<p>" + esc(what) + " (not JSON):</p><pre>" + esc(text) + "</pre>";
  return render_json(j) + "<details><summary>raw " + esc(what) + " JSON</summary><pre>" + esc(j.dump(2)) + "</pre></details>";
}

// A proposer's transcript: an agent log ({"entries": [{role, content, name, tool_calls}], ...}, as
// the LLM proposer writes it) as a conversation; other JSON pretty-printed; anything else verbatim.
std::string render_transcript(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return "<pre>" + esc(text) + "</pre>";
  if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array()) return "<pre>" + esc(j.dump(2)) + "</pre>";
  auto str = [](const nlohmann::json& o, const char* key) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  std::string s = "<div class=\"dim\">";
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "entries" && it.value().is_primitive())
      s += esc(it.key()) + ": " + esc(it.value().is_string() ? it.value().get<std::string>() : it.value().dump()) + " · ";
  s += "</div>";
  for (const auto& e : j["entries"]) {
    if (!e.is_object()) continue;
    std::string who = str(e, "role"), name = str(e, "name"), content = str(e, "content");
    s += "<div class=\"msg\"><b>" + esc(who.empty() ? "?" : who) + "</b>" + (name.empty() ? "" : " <code>" + esc(name) + "</code>");
    if (!content.empty()) s += "<pre>" + esc(content) + "</pre>";
    if (e.contains("tool_calls") && e["tool_calls"].is_array())
      for (const auto& c : e["tool_calls"]) {
        std::string args = str(c, "arguments");
        auto a = nlohmann::json::parse(args, nullptr, false);
        if (!a.is_discarded()) args = a.dump();
        s += "<pre>→ " + esc(str(c, "name")) + " " + esc(args) + "</pre>";
      }
    s += "</div>";
  }
  return s;
}

// Which evidence a candidate's result rests on (its proof stage and whether testing passed).
std::string evidence_of(const std::vector<StageResult>& stages) {
  std::string proof;
  bool tested = false;
  for (const auto& g : stages) {
    if (g.stage == "prove") proof = g.detail.substr(0, g.detail.find(':'));
    if (g.stage == "verify" && g.ok) tested = true;
  }
  if (proof == "DISPROVEN") return tested ? "TESTED, proof DISPROVEN" : "DISPROVEN";
  if (!tested) return proof.empty() ? "" : "proof " + proof;
  if (proof == "PROVEN") return "PROVEN + TESTED";
  return proof.empty() ? "TESTED" : "TESTED (proof " + proof + ")";
}

std::string verdict_class(const std::string& v) {
  if (v == "EQUIVALENT" || v == "accepted") return "good";
  if (v == "rejected") return "dim";
  return "bad";
}

// ---------------------------------------------------------------------------------------------
// Side-by-side diffs.

struct Listing {
  std::vector<std::string> lines;
  std::vector<std::optional<double>> cycles;
};

Listing make_listing(const std::string& text, const std::string& per_line) {
  Listing l;
  l.lines = split_lines(text);
  l.cycles = cycles_per_line(l.lines, per_line);
  return l;
}

std::string cyc(const std::optional<double>& c) { return c ? num(*c, 0) : ""; }

// The changed regions of parent → child with `context` unchanged lines around each.
std::string side_by_side(const Listing& a, const Listing& b, size_t context = 3) {
  auto ops = diff_lines(a.lines, b.lines).ops;
  std::vector<bool> keep(ops.size(), false);
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind != DiffOp::kEqual)
      for (size_t k = i >= context ? i - context : 0; k < ops.size() && k <= i + context; ++k) keep[k] = true;
  std::string s = "<table class=\"diff\"><tr><th>#</th><th>cycles <span class=\"kind\">modeled</span></th><th>parent</th><th>#</th>"
                  "<th>cycles <span class=\"kind\">modeled</span></th><th>child</th></tr>";
  bool any = false, gap = false;
  for (size_t i = 0; i < ops.size();) {
    if (!keep[i]) {
      gap = true;
      ++i;
      continue;
    }
    if (gap && any) s += "<tr class=\"skip\"><td colspan=\"6\">⋯</td></tr>";
    gap = false;
    any = true;
    if (ops[i].kind == DiffOp::kEqual) {
      const auto& o = ops[i];
      s += fmt::format("<tr class=\"ctx\"><td class=\"ln\">{}</td><td class=\"cy\">{}</td><td><code>{}</code></td>"
                       "<td class=\"ln\">{}</td><td class=\"cy\">{}</td><td><code>{}</code></td></tr>",
                       o.a_line + 1, cyc(a.cycles[o.a_line]), esc(a.lines[o.a_line]), o.b_line + 1,
                       cyc(b.cycles[o.b_line]), esc(b.lines[o.b_line]));
      ++i;
      continue;
    }
    // One block of changes: removed lines on the left, added on the right, paired row by row.
    std::vector<size_t> del, ins;
    while (i < ops.size() && ops[i].kind != DiffOp::kEqual) {
      (ops[i].kind == DiffOp::kDelete ? del : ins).push_back(i);
      ++i;
    }
    for (size_t r = 0; r < std::max(del.size(), ins.size()); ++r) {
      const char* cls = r < del.size() && r < ins.size() ? "chg" : r < del.size() ? "del" : "add";
      s += fmt::format("<tr class=\"{}\">", cls);
      if (r < del.size()) {
        size_t l = ops[del[r]].a_line;
        s += fmt::format("<td class=\"ln\">{}</td><td class=\"cy\">{}</td><td class=\"old\"><code>{}</code></td>", l + 1,
                         cyc(a.cycles[l]), esc(a.lines[l]));
      } else {
        s += "<td></td><td></td><td></td>";
      }
      if (r < ins.size()) {
        size_t l = ops[ins[r]].b_line;
        s += fmt::format("<td class=\"ln\">{}</td><td class=\"cy\">{}</td><td class=\"new\"><code>{}</code></td>", l + 1,
                         cyc(b.cycles[l]), esc(b.lines[l]));
      } else {
        s += "<td></td><td></td><td></td>";
      }
      s += "</tr>";
    }
  }
  if (!any) s += "<tr class=\"skip\"><td colspan=\"6\">the listings are identical</td></tr>";
  return s + "</table>";
}

// Without listings: the edit's own hunks (replaced lines vs new lines), as stored in its JSON.
std::string hunk_diff(const nlohmann::json& edit) {
  if (!edit.is_object() || !edit.contains("hunks") || !edit["hunks"].is_array())
    return "<p class=\"dim\">no listing and no hunks recorded for this edit</p>";
  std::string s = "<table class=\"diff\"><tr><th>#</th><th>parent</th><th>#</th><th>child</th></tr>";
  for (const auto& h : edit["hunks"]) {
    size_t first = h.value("first", size_t{0});
    std::vector<std::string> before, after;
    if (h.contains("before") && h["before"].is_array())
      for (const auto& l : h["before"]) before.push_back(l.is_string() ? l.get<std::string>() : l.dump());
    if (h.contains("lines") && h["lines"].is_array())
      for (const auto& l : h["lines"]) after.push_back(l.is_string() ? l.get<std::string>() : l.dump());
    s += fmt::format("<tr class=\"skip\"><td colspan=\"4\">@@ line {}</td></tr>", first);
    for (size_t r = 0; r < std::max(before.size(), after.size()); ++r) {
      const char* cls = r < before.size() && r < after.size() ? "chg" : r < before.size() ? "del" : "add";
      s += fmt::format("<tr class=\"{}\">", cls);
      s += r < before.size() ? fmt::format("<td class=\"ln\">{}</td><td class=\"old\"><code>{}</code></td>", first + r, esc(before[r]))
                             : "<td></td><td></td>";
      s += r < after.size() ? fmt::format("<td class=\"ln\">{}</td><td class=\"new\"><code>{}</code></td>", first + r, esc(after[r]))
                            : "<td></td><td></td>";
      s += "</tr>";
    }
  }
  return s + "</table>";
}

// ---------------------------------------------------------------------------------------------

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1280px;padding:0 16px;color:#222}
h1{font-size:22px}h2{font-size:19px;border-bottom:2px solid #ccd;padding-bottom:4px;margin-top:40px}h3{font-size:16px;margin-top:24px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #dde;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f4f8}td.num{text-align:right}code,pre{font:12px/1.35 ui-monospace,"DejaVu Sans Mono",monospace}
pre{background:#f7f7f9;border:1px solid #e3e3e8;padding:6px;overflow:auto;max-height:480px;white-space:pre-wrap}
.good{color:#1e7e34;font-weight:600}.bad{color:#b02a37;font-weight:600}.dim{color:#777}
.kind{font-size:11px;background:#eef;border-radius:3px;padding:0 4px;color:#335;margin-left:4px}
.diff td{border:none;border-right:1px solid #eee;white-space:pre}.diff .ln,.diff .cy{color:#888;text-align:right;font-size:11px}
.diff tr.del .old,.diff tr.chg .old{background:#fde8e8}.diff tr.add .new,.diff tr.chg .new{background:#e6f6e6}
.diff tr.skip td{color:#888;text-align:center;background:#fafafa}
.kv th{font-weight:500;background:#fafafe}.plot text{font-size:11px;fill:#333}.plot .label{font-size:12px}
.plot .grid{stroke:#e5e5ee}.plot .axis{stroke:#555}.plot .line{fill:none;stroke:#3366cc;stroke-width:2}.plot .mark{fill:#dc7633}
details{margin:4px 0}summary{cursor:pointer;color:#335}.msg{margin:4px 0 8px 8px}.msg pre{margin:2px 0}
)css";

struct KernelData {
  KernelRecord k;
  std::vector<CandidateRecord> cands;
  std::vector<AcceptedRecord> acc;
  std::vector<WindowRecord> windows;
  std::optional<FinalRecord> fin;
  std::vector<CounterexampleRecord> cex;
  std::vector<NoteRecord> notes;
};

// Speedup over K0 of an accepted candidate: baseline / its cycles.
double over_k0(const KernelData& d, double cycles) {
  return cycles > 0 && d.k.baseline_cycles > 0 ? d.k.baseline_cycles / cycles : NAN;
}

std::string kernel_section(const KernelData& d, const std::map<int64_t, RunRecord>& runs) {
  const std::string kind = d.k.figure_kind.empty() ? "modeled" : d.k.figure_kind;
  const std::string K = "<span class=\"kind\">" + esc(kind) + "</span>";
  std::map<int64_t, const CandidateRecord*> cand_by_id;
  for (const auto& c : d.cands) cand_by_id[c.id] = &c;
  std::map<int64_t, const AcceptedRecord*> acc_by_id;
  for (const auto& a : d.acc) acc_by_id[a.candidate] = &a;
  auto acc_cycles = [&](const AcceptedRecord& a) {
    if (a.cycles > 0) return a.cycles;
    auto it = cand_by_id.find(a.candidate);
    return it != cand_by_id.end() ? it->second->cycles : 0.0;
  };

  // The result: the final row when the run finished, else the best accept so far.
  std::optional<int64_t> result;
  bool finished = d.fin.has_value();
  if (finished) {
    result = d.fin->candidate;
  } else {
    double best = 1;
    for (const auto& a : d.acc)
      if (double s = over_k0(d, acc_cycles(a)); s > best) best = s, result = a.candidate;
  }

  std::string s = fmt::format("<h2 id=\"kernel-{}\">{}</h2>", d.k.id, esc(d.k.kernel));
  s += "<table class=\"kv\">";
  s += "<tr><th>file</th><td><code>" + esc(d.k.file) + "</code></td></tr>";
  s += "<tr><th>kernel</th><td><code>" + esc(d.k.kernel) + "</code></td></tr>";
  s += "<tr><th>launch spec</th><td><code>" + esc(d.k.spec_path) + "</code>" +
       (d.k.spec_text.empty() ? "" : "<details><summary>spec text</summary><pre>" + esc(d.k.spec_text) + "</pre></details>") + "</td></tr>";
  s += "<tr><th>K0 SHA-256</th><td><code>" + esc(d.k.k0_sha) + "</code></td></tr>";
  s += "<tr><th>figures</th><td>" +
       esc(d.k.fitness.empty() ? "modeled cycles on the spec's first verification launch (a store written before perf launches)"
                               : d.k.fitness) +
       "</td></tr>";
  s += fmt::format("<tr><th>baseline (K0)</th><td>{} cycles{} · {} µs{}</td></tr>", num(d.k.baseline_cycles), K,
                   num(d.k.baseline_us, 3), K);
  {
    // Per perf launch: K0 and the final object (the fitness is their geomean when several).
    const std::vector<LaunchFigure> base = parse_launches_json(d.k.perf_launches_json);
    const std::vector<LaunchFigure> fin = d.fin ? parse_launches_json(d.fin->launches_json) : std::vector<LaunchFigure>{};
    if (!base.empty()) {
      std::string t = "<table><tr><th>perf launch</th><th>K0 cycles</th><th>K0 µs</th><th>final cycles</th><th>final µs</th><th>speedup</th></tr>";
      for (size_t i = 0; i < base.size(); ++i) {
        const bool have = i < fin.size() && fin[i].name == base[i].name;
        t += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                         "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                         esc(base[i].name), num(base[i].cycles), num(base[i].microseconds, 3), have ? num(fin[i].cycles) : "–",
                         have ? num(fin[i].microseconds, 3) : "–", have && fin[i].cycles > 0 ? times(base[i].cycles / fin[i].cycles) : "–");
      }
      s += "<tr><th>per perf launch</th><td>" + t + "</table>" + K + "</td></tr>";
    }
  }
  std::set<int64_t> run_ids;
  if (d.k.run) run_ids.insert(d.k.run);
  for (const auto& c : d.cands) run_ids.insert(c.run);
  std::string rl;
  for (int64_t r : run_ids) {
    size_t n = 0, na = 0;
    for (const auto& c : d.cands)
      if (c.run == r) ++n, na += acc_by_id.count(c.id);
    auto it = runs.find(r);
    rl += fmt::format("<li>run {} ({}): {} candidates, {} accepted</li>", r, it != runs.end() ? esc(it->second.status) : "unknown run",
                      n, na);
  }
  s += "<tr><th>runs</th><td><ul>" + rl + "</ul></td></tr>";
  s += fmt::format("<tr><th>candidates tried</th><td>{} ({} accepted)</td></tr>", d.cands.size(), d.acc.size());
  if (finished) {
    s += fmt::format("<tr><th>final speedup</th><td><b>{}</b>{} · {} cycles{} · {}</td></tr>", times(d.fin->speedup), K,
                     num(d.fin->cycles), K,
                     d.fin->candidate ? fmt::format("candidate {}", *d.fin->candidate) : std::string("K0 kept (nothing better)"));
    s += fmt::format("<tr><th>final verification</th><td><span class=\"{}\">{}</span> <span class=\"dim\">{}</span></td></tr>",
                     verdict_class(d.fin->verdict), esc(d.fin->verdict), esc(d.fin->created));
  } else {
    double best = 1;
    if (result && acc_by_id.count(*result)) best = over_k0(d, acc_cycles(*acc_by_id[*result]));
    s += fmt::format("<tr><th>final speedup</th><td>none recorded: the run did not finish. Best accept so far: <b>{}</b>{}{}</td></tr>",
                     times(best), K, result ? fmt::format(" (candidate {}, not finally verified)", *result) : std::string());
    s += "<tr><th>final verification</th><td class=\"bad\">not run</td></tr>";
  }
  s += "</table>";

  // Best speedup against candidates tried.
  s += "<h3>Best speedup over K0 against candidates tried</h3>";
  {
    std::vector<double> best;
    std::vector<Mark> marks;
    double b = 1;
    for (size_t i = 0; i < d.cands.size(); ++i) {
      const auto& c = d.cands[i];
      if (auto it = acc_by_id.find(c.id); it != acc_by_id.end()) {
        double v = over_k0(d, acc_cycles(*it->second));
        if (std::isfinite(v) && v > b) {
          b = v;
          marks.push_back({i + 1, v, fmt::format("candidate {} ({} / {}): {}", c.id, c.proposer, c.move, times(v))});
        }
      }
      best.push_back(b);
    }
    s += svg_best_speedup(best, marks, kind);
  }

  // Hot windows: K0 against the result.
  s += "<h3>Hot windows: cycle share before and after</h3>";
  {
    std::vector<const WindowRecord*> before, after;
    for (const auto& w : d.windows) {
      if (!w.candidate) before.push_back(&w);
      else if (result && *w.candidate == *result) after.push_back(&w);
    }
    const std::string after_name = result ? fmt::format("candidate {}", *result) : std::string("K0");
    if (before.empty() && after.empty()) {
      s += "<p class=\"dim\">no windows recorded</p>";
    } else {
      if (!result) after = before;  // K0 kept: the same ranking
      std::vector<std::string> ids;
      for (auto* w : before) if (std::find(ids.begin(), ids.end(), w->window) == ids.end()) ids.push_back(w->window);
      for (auto* w : after) if (std::find(ids.begin(), ids.end(), w->window) == ids.end()) ids.push_back(w->window);
      auto find = [](const std::vector<const WindowRecord*>& v, const std::string& id) -> const WindowRecord* {
        for (auto* w : v) if (w->window == id) return w;
        return nullptr;
      };
      s += fmt::format("<table><tr><th>window</th><th>K0 lines</th><th>K0 share</th><th>K0 cycles{}</th><th>{} lines</th>"
                       "<th>{} share</th><th>{} cycles{}</th></tr>", K, esc(after_name), esc(after_name), esc(after_name), K);
      std::vector<std::vector<double>> vals;
      std::vector<std::vector<std::string>> texts;
      double vmax = 0;
      for (const auto& id : ids) {
        const WindowRecord* b = find(before, id);
        const WindowRecord* a = find(after, id);
        s += "<tr><td><code>" + esc(id) + "</code>";
        for (const WindowRecord* w : {b, a})
          if (w && !w->listing.empty())
            s += "<details><summary>" + std::string(w == b ? "K0" : "after") + " listing</summary><pre>" + esc(w->listing) + "</pre></details>";
        s += "</td>";
        for (const WindowRecord* w : {b, a}) {
          if (w)
            s += fmt::format("<td>{}–{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>", w->first_line, w->last_line,
                             percent(w->share), num(w->cycles));
          else
            s += "<td colspan=\"3\" class=\"dim\">not ranked</td>";
        }
        s += "</tr>";
        double vb = b ? b->share : 0, va = a ? a->share : 0;
        vals.push_back({vb, va});
        texts.push_back({b ? percent(vb) : "–", a ? percent(va) : "–"});
        vmax = std::max({vmax, vb, va});
      }
      s += "</table>";
      s += svg_bars(ids, vals, {"K0", after_name}, vmax, texts);
    }
  }

  // The cascade profile: where the candidates' time went, per stage, and the robust-fitness removals.
  s += "<h3>Where the candidates' time went (cascade stages)</h3>";
  {
    std::map<std::string, std::pair<double, size_t>> by_stage;
    double total = 0;
    size_t robust_removed = 0;
    for (const auto& c : d.cands) {
      for (const auto& g : c.stages) {
        by_stage[g.stage].first += g.seconds;
        ++by_stage[g.stage].second;
        total += g.seconds;
      }
      robust_removed += c.verdict == "rejected" && c.stage == "robust";
    }
    if (by_stage.empty()) {
      s += "<p class=\"dim\">no candidates</p>";
    } else {
      std::vector<std::pair<std::string, std::pair<double, size_t>>> v(by_stage.begin(), by_stage.end());
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
      s += "<table><tr><th>stage</th><th>seconds</th><th>share</th><th>candidates reaching it</th><th>seconds each</th></tr>";
      for (const auto& [stage, st] : v)
        s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                         esc(stage), num(st.first, 2), percent(total > 0 ? st.first / total : 0), st.second,
                         num(st.second ? st.first / st.second : 0, 3));
      s += "</table>";
      s += fmt::format("<p>Robust fitness: {} candidate(s) faster under the nominal hardware row were rejected because a perturbed row "
                       "(every [U] or fitted parameter &plusmn;25 %) did not confirm the win.</p>", robust_removed);
    }
  }

  // Acceptance per proposer and per move.
  s += "<h3>Acceptance per proposer and per move</h3>";
  for (const char* by : {"proposer", "move"}) {
    std::map<std::string, std::pair<size_t, size_t>> tally;  // tried, accepted
    for (const auto& c : d.cands) {
      auto& t = tally[std::string(by) == "proposer" ? c.proposer : c.move];
      ++t.first;
      t.second += c.verdict == "accepted";
    }
    if (tally.empty()) {
      s += "<p class=\"dim\">no candidates</p>";
      break;
    }
    s += fmt::format("<table><tr><th>{}</th><th>tried</th><th>accepted</th><th>rate</th></tr>", by);
    std::vector<std::string> labels;
    std::vector<std::vector<double>> vals;
    std::vector<std::vector<std::string>> texts;
    for (const auto& [name, t] : tally) {
      double rate = t.first ? double(t.second) / t.first : 0;
      s += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                       esc(name), t.first, t.second, percent(rate));
      labels.push_back(std::string(by) + " " + name);
      vals.push_back({rate});
      texts.push_back({fmt::format("{}/{} ({})", t.second, t.first, percent(rate))});
    }
    s += "</table>" + svg_bars(labels, vals, {"acceptance rate"}, 1.0, texts);
  }

  // Accepted edits, K0 → result, then any accepts off that line.
  s += "<h3>Accepted edits in lineage order</h3>";
  {
    std::vector<int64_t> lineage;
    std::set<int64_t> seen;
    for (std::optional<int64_t> c = result; c && !seen.count(*c);) {
      seen.insert(*c);
      lineage.push_back(*c);
      auto it = cand_by_id.find(*c);
      c = it != cand_by_id.end() ? it->second->parent : std::nullopt;
    }
    std::reverse(lineage.begin(), lineage.end());
    std::vector<int64_t> others;
    for (const auto& a : d.acc)
      if (!seen.count(a.candidate)) others.push_back(a.candidate);
    if (lineage.empty() && others.empty()) s += "<p class=\"dim\">no accepted edits</p>";
    auto one = [&](int64_t id, int step) {
      std::string h;
      auto cit = cand_by_id.find(id);
      if (cit == cand_by_id.end()) return fmt::format("<p class=\"bad\">candidate {} is missing from the store</p>", id);
      const CandidateRecord& c = *cit->second;
      auto edit = nlohmann::json::parse(c.edit_json, nullptr, false);
      std::string desc = edit.is_object() && edit.contains("description") && edit["description"].is_string()
                             ? edit["description"].get<std::string>() : std::string();
      const AcceptedRecord* a = acc_by_id.count(id) ? acc_by_id[id] : nullptr;
      h += fmt::format("<h4>{}candidate {} ← {} · {} / {} · window <code>{}</code></h4>",
                       step > 0 ? fmt::format("{}. ", step) : std::string(), id,
                       c.parent ? fmt::format("candidate {}", *c.parent) : std::string("K0"), esc(c.proposer), esc(c.move),
                       esc(c.window));
      h += fmt::format("<p>{} cycles{} (parent {}): <b>{}</b> over its parent, {} over K0{}</p>",
                       num(a ? acc_cycles(*a) : c.cycles), K, num(c.parent_cycles), times(c.speedup),
                       times(a ? over_k0(d, acc_cycles(*a)) : NAN), K);
      if (auto per = parse_launches_json(c.launches_json); !per.empty()) {
        std::string l;
        for (const auto& f : per) l += (l.empty() ? "" : " · ") + fmt::format("<code>{}</code> {} cycles", esc(f.name), num(f.cycles));
        h += "<p class=\"dim\">per perf launch: " + l + "</p>";
      }
      if (!desc.empty()) h += "<p>" + esc(desc) + "</p>";
      std::string parent_listing, parent_per_line;
      if (!c.parent) {
        parent_listing = d.k.listing;
        parent_per_line = d.k.per_line_json;
      } else if (acc_by_id.count(*c.parent)) {
        parent_listing = acc_by_id[*c.parent]->listing;
        parent_per_line = acc_by_id[*c.parent]->per_line_json;
      }
      if (a && !a->listing.empty() && !parent_listing.empty())
        h += side_by_side(make_listing(parent_listing, parent_per_line), make_listing(a->listing, a->per_line_json));
      else
        h += hunk_diff(edit);
      if (!c.transcript.empty())
        h += "<details><summary>proposer transcript</summary>" + render_transcript(c.transcript) + "</details>";
      return h;
    };
    int step = 0;
    for (int64_t id : lineage) s += one(id, ++step);
    if (!others.empty()) {
      s += "<h3>Other accepted edits (not on the result's lineage)</h3>";
      for (int64_t id : others) s += one(id, 0);
    }
  }

  // Verification evidence.
  s += "<h3>Verification evidence</h3>";
  if (finished) s += json_block(d.fin->report_json, "verification report");
  else s += "<p class=\"dim\">no final verification recorded</p>";
  if (!d.cex.empty()) {
    s += "<table><tr><th>counterexample</th><th>candidate</th><th>saved</th><th>launch spec</th></tr>";
    for (const auto& c : d.cex)
      s += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>", esc(c.folder), c.candidate,
                       esc(c.created),
                       c.spec_text.empty() ? "" : "<details><summary>spec</summary><pre>" + esc(c.spec_text) + "</pre></details>");
    s += "</table>";
  } else {
    s += "<p class=\"dim\">no counterexamples saved</p>";
  }

  if (!d.notes.empty()) {
    s += "<h3>Notes</h3><table><tr><th>window</th><th>author</th><th>note</th><th>when</th></tr>";
    for (const auto& n : d.notes)
      s += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>", esc(n.window), esc(n.author),
                       esc(n.text), esc(n.created));
    s += "</table>";
  }

  // Every candidate.
  s += fmt::format("<h3>All candidates ({})</h3>", d.cands.size());
  if (!d.cands.empty()) {
    s += fmt::format("<table><tr><th>id</th><th>run</th><th>parent</th><th>proposer</th><th>move</th><th>window</th>"
                     "<th>verdict</th><th>evidence</th><th>stages</th><th>reason</th><th title=\"{}\">cycles{}</th><th>vs parent</th><th>s</th></tr>",
                     esc(d.k.fitness), K);
    for (const auto& c : d.cands) {
      std::string st;
      for (const auto& g : c.stages)
        st += fmt::format("<span class=\"{}\" title=\"{}\">{}{}</span> ", g.ok ? "good" : "bad",
                          esc(fmt::format("{:.3f} s{}{}", g.seconds, g.detail.empty() ? "" : ": ", g.detail)), esc(g.stage),
                          g.ok ? "✓" : "✗");
      s += fmt::format("<tr id=\"c{}-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td>"
                       "<td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td></tr>",
                       d.k.id, c.id, c.id, c.run, c.parent ? std::to_string(*c.parent) : "K0", esc(c.proposer), esc(c.move),
                       esc(c.window), verdict_class(c.verdict), esc(c.verdict), esc(evidence_of(c.stages)), st, esc(c.reason), num(c.cycles),
                       times(c.speedup), num(c.seconds, 2));
      if (!c.transcript.empty())
        s += fmt::format("<tr><td></td><td colspan=\"12\"><details><summary>transcript of candidate {} ({} characters)</summary>"
                         "{}</details></td></tr>", c.id, c.transcript.size(), render_transcript(c.transcript));
    }
    s += "</table>";
  }
  return s;
}

}  // namespace

std::string render_report(const std::string& db_path) {
  Store store(db_path, Store::Access::kReadOnly);
  auto runs = store.runs();
  std::map<int64_t, RunRecord> run_by_id;
  for (const auto& r : runs) run_by_id[r.id] = r;
  std::vector<KernelData> kernels;
  for (auto& k : store.kernels()) {
    KernelData d;
    d.k = std::move(k);
    d.cands = store.candidates(d.k.id);
    d.acc = store.accepted(d.k.id);
    d.windows = store.windows(d.k.id);
    d.fin = store.final_result(d.k.id);
    d.cex = store.counterexamples(d.k.id);
    d.notes = store.notes(d.k.id);
    kernels.push_back(std::move(d));
  }

  char when[32] = {};
  std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<title>AsmEvo report: " + esc(db_path) + "</title><style>" + std::string(kStyle) + "</style></head><body>\n";
  h += "<h1>AsmEvo optimization report</h1>";
  h += fmt::format("<p>store <code>{}</code> · generated {} · {} runs, {} kernels. Figures are labelled "
                   "<span class=\"kind\">modeled</span> (AsmEvo's cycle model) or <span class=\"kind\">measured</span> "
                   "(hardware), as recorded per kernel.</p>", esc(db_path), when, runs.size(), kernels.size());

  h += "<h2>Runs</h2>";
  if (runs.empty()) {
    h += "<p class=\"dim\">no runs recorded</p>";
  } else {
    h += "<table><tr><th>run</th><th>started</th><th>finished</th><th>status</th><th>seed</th><th>command</th><th>options</th></tr>";
    for (const auto& r : runs)
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                       r.id, esc(r.started), esc(r.finished), r.status == "finished" ? "good" : "bad", esc(r.status), r.seed,
                       esc(r.command),
                       r.options_json.empty() ? "" : "<details><summary>options</summary>" + json_block(r.options_json, "options") + "</details>");
    h += "</table>";
  }

  h += "<h2>Kernels</h2>";
  if (kernels.empty()) {
    h += "<p class=\"dim\">no kernels recorded</p>";
  } else {
    h += "<table><tr><th>kernel</th><th>file</th><th>baseline cycles</th><th>final speedup</th><th>verdict</th><th>candidates</th></tr>";
    for (const auto& d : kernels) {
      const std::string K = "<span class=\"kind\">" + esc(d.k.figure_kind) + "</span>";
      h += fmt::format("<tr><td><a href=\"#kernel-{}\">{}</a></td><td><code>{}</code></td><td class=\"num\">{}{}</td>"
                       "<td class=\"num\">{}{}</td><td class=\"{}\">{}</td><td class=\"num\">{}</td></tr>",
                       d.k.id, esc(d.k.kernel), esc(d.k.file), num(d.k.baseline_cycles), K,
                       d.fin ? times(d.fin->speedup) : "–", d.fin ? K : "", d.fin ? verdict_class(d.fin->verdict) : "dim",
                       d.fin ? esc(d.fin->verdict) : "unfinished", d.cands.size());
    }
    h += "</table>";
  }
  for (const auto& d : kernels) h += kernel_section(d, run_by_id);
  h += "\n</body></html>\n";
  return h;
}

void write_report(const std::string& db_path, const std::string& out_path) {
  std::error_code ec;
  if (std::filesystem::equivalent(db_path, out_path, ec))
    throw Error("the report would replace the experiment store itself", out_path, "write the report to another file (-o)");
  write_file_atomic(out_path, render_report(db_path));
}

}  // namespace asmevo::search
