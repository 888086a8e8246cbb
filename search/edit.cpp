#include "search/edit.h"

#include "support/line_diff.h"

#include <fmt/format.h>

#include <algorithm>

#include "support/error.h"

namespace asmevo::search {

std::string Edit::diff() const {
  std::vector<const Hunk*> order;
  for (const Hunk& h : hunks) order.push_back(&h);
  std::sort(order.begin(), order.end(), [](const Hunk* a, const Hunk* b) { return a->first < b->first; });
  std::string out;
  for (const Hunk* h : order) {
    out += fmt::format("@@ line {}\n", h->first);
    for (const std::string& l : h->before) out += "-" + l + "\n";
    for (const std::string& l : h->lines) out += "+" + l + "\n";
  }
  for (const Edit& step : then) out += "@@ then " + step.move + "\n" + step.diff();
  return out;
}

nlohmann::json Edit::to_json() const {
  nlohmann::json hs = nlohmann::json::array();
  for (const Hunk& h : hunks) hs.push_back({{"first", h.first}, {"count", h.count}, {"lines", h.lines}, {"before", h.before}});
  nlohmann::json j = {{"kernel", kernel}, {"move", move}, {"proposer", proposer}, {"description", description}, {"hunks", hs}};
  if (kernarg_preload) j["kernarg_preload"] = kernarg_preload;
  if (dispatch_ptr) j["dispatch_ptr"] = true;
  if (!then.empty()) {
    j["then"] = nlohmann::json::array();
    for (const Edit& step : then) j["then"].push_back(step.to_json());
  }
  return j;
}

Edit Edit::from_json(const nlohmann::json& j) {
  try {
    Edit e;
    e.kernel = j.at("kernel").get<std::string>();
    e.move = j.value("move", "");
    e.proposer = j.value("proposer", "");
    e.description = j.value("description", "");
    e.kernarg_preload = j.value("kernarg_preload", 0u);
    e.dispatch_ptr = j.value("dispatch_ptr", false);
    for (const auto& h : j.at("hunks")) {
      Hunk hunk;
      hunk.first = h.at("first").get<size_t>();
      hunk.count = h.at("count").get<size_t>();
      hunk.lines = h.at("lines").get<std::vector<std::string>>();
      hunk.before = h.value("before", std::vector<std::string>{});
      e.hunks.push_back(std::move(hunk));
    }
    if (j.contains("then"))
      for (const auto& step : j.at("then")) e.then.push_back(from_json(step));
    return e;
  } catch (const nlohmann::json::exception& ex) {
    throw Error(std::string("malformed edit: ") + ex.what(), "edit JSON",
                "an edit is {kernel, move, proposer, description, hunks: [{first, count, lines, before}]}");
  }
}

program::Program apply_edit(const program::Program& parent, const Edit& edit) {
  require(parent.function(edit.kernel) != nullptr, "the edit names kernel '" + edit.kernel + "', which the program does not have");
  if (!edit.then.empty())
    throw Error(fmt::format("the edit of {} is a compound of {} step(s), each relative to the rebuilt result of the one before", edit.move,
                            edit.then.size() + 1),
                "apply_edit", "evaluate it through search::Cascade, which rebuilds between the steps");
  std::vector<const Hunk*> order;
  for (const Hunk& h : edit.hunks) order.push_back(&h);
  std::sort(order.begin(), order.end(), [](const Hunk* a, const Hunk* b) { return a->first > b->first; });
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const Hunk& later = *order[i];
    const Hunk& earlier = *order[i + 1];
    // Two insertions at one line, or a range reaching into the next hunk, would depend on order.
    if (earlier.first + std::max<size_t>(earlier.count, 1) > later.first)
      throw Error(fmt::format("the edit's hunks at lines {} and {} overlap", earlier.first, later.first), "edit",
                  "merge them into one hunk");
  }
  program::Program p = parent;
  for (const Hunk* h : order) {
    if (h->first >= p.text_line_count())
      throw Error(fmt::format("hunk at line {} is outside the {} lines of .text", h->first, p.text_line_count()), "edit");
    if (!h->before.empty()) {
      if (h->before.size() != h->count) throw Error(fmt::format("hunk at line {}: {} lines in 'before' but count {}", h->first, h->before.size(), h->count), "edit");
      for (size_t i = 0; i < h->count; ++i) {
        const std::string& now = p.text_line(h->first + i).text;
        if (now != h->before[i])
          throw Error(fmt::format("hunk at line {} expected '{}' but the line is '{}'", h->first + i, h->before[i], now), "edit",
                      "the edit was made for another version of the kernel");
      }
    }
    if (h->count == 0) {
      if (!h->lines.empty()) p.insert_before(h->first, h->lines);
    } else {
      p.replace(h->first, h->first + h->count - 1, h->lines);
    }
  }
  if (edit.kernarg_preload) p.set_kernarg_preload(edit.kernel, edit.kernarg_preload);
  if (edit.dispatch_ptr) p.enable_dispatch_ptr(edit.kernel);
  p.touch(edit.kernel);
  p.update_resources();
  return p;
}

namespace {

// The assembler's filler between and after functions (`s_nop 0`, `s_code_end`): a longer or shorter
// kernel leaves more or fewer of them before the next alignment boundary. They are layout, not code:
// no function runs them, and rebuilding writes them anew.
bool is_padding_between_functions(const program::Program& parent, const Hunk& h) {
  auto filler = [](const std::string& text) { return text == "s_nop 0" || text == "s_code_end"; };
  for (const program::Function& f : parent.functions())
    if (h.first < f.end && h.first + h.count > f.begin) return false;  // touches a function's lines
  for (const program::Function& f : parent.functions())
    if (h.count == 0 && h.first > f.begin && h.first < f.end) return false;  // an insertion inside a function
  return std::all_of(h.before.begin(), h.before.end(), filler) && std::all_of(h.lines.begin(), h.lines.end(), filler);
}

}  // namespace

Edit diff_edit(const program::Program& parent, const program::Program& child, const std::string& kernel) {
  const size_t n = parent.text_line_count();
  std::vector<std::string> a, b;
  a.reserve(n);
  for (size_t i = 0; i < n; ++i) a.push_back(parent.text_line(i).text);
  for (size_t i = 0; i < child.text_line_count(); ++i) b.push_back(child.text_line(i).text);
  const LineDiff d = diff_lines(a, b, 50'000'000);
  if (d.whole_replacement) throw Error("the two programs differ over too many lines to diff", "edit");
  // Runs of changed lines become hunks.
  Edit e;
  e.kernel = kernel;
  for (size_t k = 0; k < d.ops.size();) {
    if (d.ops[k].kind == DiffOp::kEqual) {
      ++k;
      continue;
    }
    Hunk h;
    h.first = d.ops[k].a_line;
    for (; k < d.ops.size() && d.ops[k].kind != DiffOp::kEqual; ++k)
      (d.ops[k].kind == DiffOp::kInsert ? h.lines : h.before).push_back(d.ops[k].kind == DiffOp::kInsert ? b[d.ops[k].b_line] : a[d.ops[k].a_line]);
    h.count = h.before.size();
    if (is_padding_between_functions(parent, h)) continue;
    for (size_t i = h.first; i < h.first + h.count; ++i)
      if (parent.text_line(i).kind != program::Line::Instr && parent.text_line(i).kind != program::Line::RawInstr)
        throw Error(fmt::format("line {} ('{}') differs but is not an instruction", i, parent.text_line(i).text), "edit");
    // An insertion must sit in front of an instruction line.
    if (h.count == 0 && (h.first >= n || (parent.text_line(h.first).kind != program::Line::Instr &&
                                         parent.text_line(h.first).kind != program::Line::RawInstr)))
      throw Error(fmt::format("lines inserted at line {} are not in front of an instruction", h.first), "edit");
    e.hunks.push_back(std::move(h));
  }
  return e;
}

Hunk make_hunk(const program::Program& p, size_t first, size_t last, std::vector<std::string> lines) {
  Hunk h;
  h.first = first;
  h.count = last + 1 - first;
  h.lines = std::move(lines);
  for (size_t i = first; i <= last; ++i) h.before.push_back(p.text_line(i).text);
  return h;
}

Edit line_replacements(const program::Program& p, const std::string& kernel,
                       const std::vector<std::pair<uint64_t, std::string>>& changes) {
  Edit e;
  e.kernel = kernel;
  for (const auto& [address, after] : changes) {
    const size_t line = p.line_of_address(address);
    e.hunks.push_back(make_hunk(p, line, line, after.empty() ? std::vector<std::string>{} : std::vector<std::string>{after}));
  }
  return e;
}

Hunk make_insertion(size_t line, std::vector<std::string> lines) {
  Hunk h;
  h.first = line;
  h.lines = std::move(lines);
  return h;
}

}  // namespace asmevo::search
