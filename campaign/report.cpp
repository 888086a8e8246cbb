#include "campaign/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "campaign/slurm.h"
#include "search/report.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

double geomean_done(const std::vector<TaskStatus>& status) {
  double log_sum = 0;
  size_t n = 0;
  for (const auto& s : status)
    if (s.state == "done") {
      log_sum += std::log(s.store.speedup());
      ++n;
    }
  return n ? std::exp(log_sum / static_cast<double>(n)) : 1.0;
}

namespace {

using search::html_escape;

std::string duration(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

std::string render_campaign_report(const Manifest& m, const std::vector<TaskStatus>& status, const std::string& report_path,
                                   const std::vector<std::string>& notes) {
  const fs::path report_dir = fs::absolute(report_path).parent_path();
  std::map<std::string, size_t> by_state;
  double seconds = 0;
  size_t candidates = 0;
  std::set<std::string> kinds;
  for (const auto& s : status) {
    by_state[s.state]++;
    seconds += s.store.seconds;
    candidates += s.store.candidates;
    if (s.store.exists) kinds.insert(s.store.figure_kind);
  }
  std::string kind;
  for (const auto& k : kinds) kind += (kind.empty() ? "" : " and ") + k;
  if (kind.empty()) kind = "modeled";
  std::string h;
  h += "<!doctype html><html><head><meta charset=\"utf-8\"><title>AsmEvo campaign " + html_escape(m.dir) + "</title><style>\n";
  h += "body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
       "padding:3px 8px;text-align:right}td.l,th.l{text-align:left}th{background:#eee}.done{color:#070}.failed{color:#b00}"
       ".bar{display:inline-block;height:10px;background:#4a7}.note{color:#666}\n</style></head><body>\n";
  h += "<h1>AsmEvo campaign</h1>\n<p>" + html_escape(m.dir) + "</p>\n";
  h += fmt::format("<p><b>Geomean speedup over the {} done task(s): {:.3f}x</b> ({}; each re-verified EQUIVALENT by the optimizer's "
                   "final gate, or the original kept at 1.000x). {} candidates, {} of optimizer time in all.</p>\n",
                   by_state["done"], geomean_done(status), html_escape(kind), candidates, duration(seconds));
  h += "<p>";
  for (const auto& [state, n] : by_state) h += fmt::format("{}: {} &nbsp; ", html_escape(state), n);
  h += "</p>\n";
  for (const auto& n : notes) h += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  h += "<table><tr><th class=\"l\">task</th><th class=\"l\">kernel</th><th class=\"l\">state</th><th>baseline µs</th><th>best µs</th>"
       "<th>speedup</th><th class=\"l\"></th><th>candidates</th><th>accepted</th><th class=\"l\">verdict / reason</th><th>time</th>"
       "<th class=\"l\">report</th></tr>\n";
  double max_speedup = 1;
  for (const auto& s : status) max_speedup = std::max(max_speedup, s.store.speedup());
  for (const auto& s : status) {
    const StoreSummary& st = s.store;
    const double best_us = st.baseline_cycles > 0 ? st.baseline_us * st.best_cycles / st.baseline_cycles : 0;
    std::string link = "-";
    const std::string page = task_report(m, s.task->id);
    if (fs::exists(page)) {
      const std::string rel = fs::relative(page, report_dir).string();
      link = "<a href=\"" + html_escape(rel) + "\">" + html_escape(s.task->id) + "</a>";
    }
    std::string verdict = s.state == "done" ? st.final_verdict : s.reason;
    if (s.state != "done" && st.accepted) verdict += (verdict.empty() ? "" : "; ") + std::string("speedup so far, not yet re-verified");
    const double width = std::max(0.0, (st.speedup() - 1) / std::max(1e-9, max_speedup - 1)) * 120;
    h += fmt::format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l {}\">{}</td><td>{}</td><td>{}</td><td>{:.3f}x</td>"
        "<td class=\"l\"><span class=\"bar\" style=\"width:{:.0f}px\"></span></td><td>{}</td><td>{}</td><td class=\"l\">{}</td>"
        "<td>{}</td><td class=\"l\">{}</td></tr>\n",
        html_escape(s.task->id), html_escape(s.task->kernel), html_escape(s.state), html_escape(s.state),
        st.baseline_cycles > 0 ? fmt::format("{:.3f}", st.baseline_us) : "-", st.baseline_cycles > 0 ? fmt::format("{:.3f}", best_us) : "-",
        st.speedup(), width, st.candidates, st.accepted, html_escape(verdict), st.exists ? duration(st.seconds) : "-", link);
  }
  h += "</table>\n<p class=\"note\">Times are " + html_escape(kind) +
       " (the timing model's estimate unless a store says measured). Each task is one <code>asmevo optimize</code> with its own store "
       "(tasks/&lt;id&gt;/store.sqlite); this page is derived from those stores.</p>\n</body></html>\n";
  return h;
}

void write_campaign_report(const std::string& campaign, const std::string& out_path) {
  const Manifest m = load_manifest(campaign);
  std::vector<std::string> notes;
  std::map<std::string, SlurmTask> slurm;
  if (!read_submissions(m).empty()) {
    SlurmView v = query_slurm(m);
    slurm = v.tasks;
    notes = v.notes;
  }
  write_file_atomic(out_path, render_campaign_report(m, derive_status(m, slurm), out_path, notes));
}

}  // namespace asmevo::campaign
