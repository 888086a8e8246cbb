#include "agent/tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "agent/prompts.h"
#include "rebuild/rebuild.h"
#include "check/hazards.h"
#include "check/isa.h"
#include "codeobj/kernel_descriptor.h"
#include "emu/program.h"
#include "emu/registry.h"
#include "emu/waitcnt.h"
#include "search/edit.h"
#include "support/error.h"
#include "timing/backend.h"
#include "timing/hw_params.h"
#include "timing/profile.h"

namespace asmevo::agent {
using search::AgentTurn;
using search::Individual;
using search::Window;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string first_token(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t j = i;
  while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
  return text.substr(i, j - i);
}

std::string compact_number(double v) {
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

// The modeled profile of the best individual, by .text line (instructions of the kernel only).
std::map<size_t, timing::InstProfile> line_profile(const Individual& ind) {
  std::map<size_t, timing::InstProfile> out;
  if (!ind.timed || !ind.timed->program) return out;
  const auto& insts = ind.timed->program->insts();
  const auto& per = ind.timed->model.per_inst;
  for (size_t i = 0; i < insts.size() && i < per.size(); ++i) {
    size_t line;
    try {
      line = ind.program->line_of_address(insts[i].address - emu::kCodeBase);
    } catch (const Error&) {
      continue;
    }
    timing::InstProfile& p = out[line];
    p.executions += per[i].executions;
    p.issue_cycles += per[i].issue_cycles;
    for (int s = 0; s < timing::kNumStalls; ++s) p.stall[s] += per[i].stall[s];
  }
  return out;
}

double total_cycles(const std::map<size_t, timing::InstProfile>& prof) {
  double t = 0;
  for (const auto& [l, p] : prof) t += p.cycles();
  return t;
}

std::string stall_text(const timing::InstProfile& p) {
  timing::Stall s = timing::top_stall_of(p);
  double c = p.stall[static_cast<int>(s)];
  if (c <= 0) return "";
  return fmt::format(" {} {}", timing::stall_name(s), compact_number(c));
}

const program::Function& kernel_function(const AgentTurn& turn) {
  const program::Function* f = turn.best().program->function(turn.kernel);
  if (!f) throw Error("the best object has no function " + turn.kernel, turn.kernel);
  return *f;
}

std::string best_name(const AgentTurn& turn) {
  return turn.best().id ? fmt::format("candidate #{}", turn.best().id) : std::string("the starting object (K0)");
}

std::vector<std::string> split_lines(const std::string& code) {
  std::vector<std::string> out;
  std::stringstream ss(code);
  std::string line;
  while (std::getline(ss, line)) {
    // Comments are dropped; an empty line is no instruction.
    for (const char* c : {"//", ";"}) {
      auto p = line.find(c);
      if (p != std::string::npos) line = line.substr(0, p);
    }
    size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos) continue;
    size_t b = line.find_last_not_of(" \t\r");
    out.push_back(line.substr(a, b - a + 1));
  }
  return out;
}

const char* ty_name(emu::Ty t) {
  static const char* names[] = {"none", "b32", "i32", "f32", "b64", "i64", "f64", "f16", "b16", "i16", "mask", "any"};
  auto i = static_cast<size_t>(t);
  return i < std::size(names) ? names[i] : "?";
}

const char* category_name(emu::Category c) {
  switch (c) {
    case emu::Category::Scalar: return "scalar ALU";
    case emu::Category::Vector: return "vector ALU";
    case emu::Category::Memory: return "memory";
    case emu::Category::MFMA: return "matrix (MFMA)";
    case emu::Category::Control: return "control";
  }
  return "?";
}

bool is_trans_name(const std::string& stem) {
  static const std::regex re("^v_(exp|log|rcp|rcp_iflag|rsq|sqrt|sin|cos)(_legacy)?_f(16|32|64)$");
  return std::regex_match(stem, re);
}

// Keywords under which the hazard table (check/hazard_rules.cpp) describes an instruction's kind.
std::vector<std::string> hazard_keywords(const std::string& stem, const emu::SemanticEntry* e) {
  std::vector<std::string> k = {stem};
  auto starts = [&](const char* p) { return stem.rfind(p, 0) == 0; };
  if (starts("v_mfma") || starts("v_smfmac")) k.insert(k.end(), {"MFMA", "XDL", "DGEMM", "SMFMAC"});
  else if (starts("v_dot")) k.insert(k.end(), {"DOT", "VALU"});
  else if (starts("v_")) k.push_back("VALU");
  if (is_trans_name(stem)) k.push_back("TRANS");
  if (starts("v_readlane") || starts("v_readfirstlane") || starts("v_writelane")) k.push_back("v_readlane");
  if (starts("v_permlane")) k.push_back("v_permlane");
  if (starts("buffer_") || starts("global_") || starts("flat_") || starts("scratch_")) k.insert(k.end(), {"VMEM", "memory"});
  if (stem.find("store") != std::string::npos && !starts("s_")) k.push_back("VMEM store");
  if (starts("ds_")) k.insert(k.end(), {"DS", "LDS", "memory"});
  if (starts("s_load") || starts("s_buffer_load") || starts("s_store")) k.push_back("SMEM");
  if (starts("s_setreg")) k.push_back("s_setreg");
  if (starts("s_getreg")) k.push_back("s_getreg");
  if (starts("s_movrel") || starts("s_sendmsg")) k.push_back("M0");
  if (starts("s_") && e && e->cat == emu::Category::Scalar) k.push_back("SALU");
  if (starts("v_div_fmas")) k.push_back("v_div_fmas");
  if (starts("v_fma_f64") || starts("v_fmac_f64")) k.push_back("v_fma_f64");
  if (starts("v_lshlrev_b64") || starts("v_lshrrev_b64") || starts("v_ashrrev_i64")) k.push_back("v_lshlrev_b64");
  return k;
}

std::string turn_window_id(AgentTurn& turn, size_t first) {
  for (const Window& w : turn.windows())
    if (first >= w.first && first <= w.last) return w.id;
  const auto& line = turn.best().program->text_line(first);
  return fmt::format("{}@0x{:x}", turn.kernel, line.address);
}

std::string stages_text(const search::Evaluation& ev) {
  std::string s;
  for (const auto& st : ev.stages) {
    s += fmt::format("  {:<8} {} ({:.2f} s)", st.stage, st.ok ? "ok  " : "FAIL", st.seconds);
    if (!st.detail.empty()) {
      std::string d = st.detail.size() > 600 ? st.detail.substr(0, 600) + " ..." : st.detail;
      s += ": " + d;
    }
    s += "\n";
  }
  return s;
}

}  // namespace

std::string failure_cause(const std::string& stage, const std::string& reason) {
  std::string r = reason.substr(0, std::min<size_t>(reason.find_first_of("\n;"), 90));
  static const std::regex num("\\b(0x[0-9a-fA-F]+|[0-9]+)\\b");
  r = std::regex_replace(r, num, "N");
  return stage + ": " + r;
}

// A window's issue and stall cycles: the sum of its lines' profiles (windows_text and windows_json).
template <class LineProfile> timing::InstProfile window_profile(const LineProfile& prof, const Window& w) {
  timing::InstProfile sum;
  for (size_t l = w.first; l <= w.last; ++l) {
    auto it = prof.find(l);
    if (it == prof.end()) continue;
    sum.issue_cycles += it->second.issue_cycles;
    for (int k = 0; k < timing::kNumStalls; ++k) sum.stall[k] += it->second.stall[k];
  }
  return sum;
}

std::string Toolbox::windows_text(AgentTurn& turn) {
  const auto prof = line_profile(turn.best());
  std::string s;
  size_t i = 0;
  for (const Window& w : turn.windows()) {
    const timing::InstProfile sum = window_profile(prof, w);
    s += fmt::format("  [{}] {}  lines L{}-L{}  {:.1f}% of cycles{}\n", i++, w.id, w.first, w.last, 100 * w.share,
                     stall_text(sum).empty() ? "" : ", top stall" + stall_text(sum));
  }
  if (s.empty()) s = "  (no hot windows: the model attributed no cycles)\n";
  return s;
}

json Toolbox::windows_json(AgentTurn& turn) {
  const auto prof = line_profile(turn.best());
  json out = json::array();
  size_t i = 0;
  for (const Window& w : turn.windows()) {
    const timing::InstProfile sum = window_profile(prof, w);
    json j = {{"index", i++}, {"id", w.id}, {"first", w.first}, {"last", w.last}, {"share", w.share}};
    const timing::Stall top = timing::top_stall_of(sum);
    if (sum.stall[static_cast<int>(top)] > 0) {
      j["top_stall"] = timing::stall_name(top);
      j["top_stall_cycles"] = sum.stall[static_cast<int>(top)];
    }
    out.push_back(std::move(j));
  }
  return out;
}

namespace {
json best_json(AgentTurn& turn) {
  return {{"candidate", turn.best().id}, {"cycles", turn.best().cycles}, {"baseline_cycles", turn.baseline_cycles},
          {"speedup", turn.baseline_cycles / turn.best().cycles}, {"figures", "modeled"}};
}
}  // namespace

ToolResult Toolbox::list_windows(AgentTurn& turn) {
  return {fmt::format("Hot windows of {} ({:.0f} modeled cycles, {:.3f}x vs K0's {:.0f}):\n{}", best_name(turn), turn.best().cycles,
                      turn.baseline_cycles / turn.best().cycles, turn.baseline_cycles, windows_text(turn)),
          {{"kernel", turn.kernel}, {"best", best_json(turn)}, {"windows", windows_json(turn)}}};
}

const Window* Toolbox::find_window(AgentTurn& turn, const json& args, std::string& error) const {
  if (!args.contains("window")) return nullptr;
  std::string w = args["window"].is_string() ? args["window"].get<std::string>() : args["window"].dump();
  const auto& ws = turn.windows();
  for (const Window& x : ws)
    if (x.id == w) return &x;
  char* end = nullptr;
  long i = std::strtol(w.c_str(), &end, 10);
  if (end && *end == '\0' && !w.empty() && i >= 0 && static_cast<size_t>(i) < ws.size()) return &ws[i];
  error = fmt::format("error: no window '{}' (there are {}: give an index 0..{} or an id from list_windows)", w, ws.size(),
                      ws.empty() ? 0 : ws.size() - 1);
  return nullptr;
}

ToolResult Toolbox::show_window(AgentTurn& turn, const json& args) {
  const Individual& best = turn.best();
  const program::Program& p = *best.program;
  const program::Function& f = kernel_function(turn);
  std::string err;
  size_t first, last;
  if (const Window* w = find_window(turn, args, err)) {
    first = w->first;
    last = w->last;
  } else if (!err.empty()) {
    return err;
  } else if (args.contains("first") && args.contains("last") && args["first"].is_number_integer() && args["last"].is_number_integer()) {
    int64_t a = args["first"], b = args["last"];
    if (a < static_cast<int64_t>(f.begin) || b >= static_cast<int64_t>(f.end) || a > b)
      return fmt::format("error: lines must satisfy L{} <= first <= last <= L{} (the kernel {})", f.begin, f.end - 1, turn.kernel);
    first = static_cast<size_t>(a);
    last = static_cast<size_t>(b);
  } else {
    return "error: give a window (index or id) or integer first and last lines";
  }
  if (last - first > 160) last = first + 160;  // a bounded view; ask again for the rest

  const auto prof = line_profile(best);
  const double total = std::max(1.0, total_cycles(prof));
  const std::vector<program::RegSet> live = p.live_in(f);
  const auto& reg = emu::Registry::get();
  std::vector<size_t> vm, lgkm;  // lines of memory operations issued in this range, not yet waited for
  static const std::regex vm_re("vmcnt\\((\\d+)\\)"), lgkm_re("lgkmcnt\\((\\d+)\\)");

  std::string s = fmt::format("{} L{}-L{} of {} (cycles: modeled, summed over all waves; {:.0f} cycles total)\n", turn.kernel,
                              first, last, best_name(turn), best.cycles);
  json rows = json::array();
  s += "line  instruction | cycles (share) top-stall | pending vm/lgkm issued in this range | live-in\n";
  for (size_t l = first; l <= last; ++l) {
    const program::Line& line = p.text_line(l);
    if (line.kind == program::Line::Label) {
      s += fmt::format("L{:<4} {}:\n", l, line.text);
      rows.push_back({{"line", l}, {"kind", "label"}, {"text", line.text}});
      continue;
    }
    if (line.kind != program::Line::Instr && line.kind != program::Line::RawInstr) {
      s += fmt::format("L{:<4} {}\n", l, line.text);
      rows.push_back({{"line", l}, {"kind", "other"}, {"text", line.text}});
      continue;
    }
    json jr = {{"line", l}, {"kind", "instruction"}, {"text", line.text}};
    std::string row = fmt::format("L{:<4} {:<44}", l, line.text);
    auto it = prof.find(l);
    if (it != prof.end() && it->second.cycles() > 0) {
      row += fmt::format(" | {} ({:.1f}%){}", compact_number(it->second.cycles()), 100 * it->second.cycles() / total,
                         stall_text(it->second));
      jr["cycles"] = it->second.cycles();
      jr["share"] = it->second.cycles() / total;
      const timing::Stall top = timing::top_stall_of(it->second);
      if (it->second.stall[static_cast<int>(top)] > 0) jr["top_stall"] = timing::stall_name(top);
    } else
      row += " | -";
    if (!vm.empty() || !lgkm.empty()) {
      auto list = [](const std::vector<size_t>& v) {
        std::string t;
        for (size_t x : v) t += fmt::format("{}L{}", t.empty() ? "" : ",", x);
        return t;
      };
      row += " | pend";
      if (!vm.empty()) row += " vm:" + list(vm);
      if (!lgkm.empty()) row += " lgkm:" + list(lgkm);
      jr["pending_vm"] = vm;
      jr["pending_lgkm"] = lgkm;
    }
    if (l >= f.begin && l - f.begin < live.size()) {
      row += " | live " + live[l - f.begin].to_string();
      jr["live_in"] = live[l - f.begin].to_string();
    }
    s += row + "\n";
    rows.push_back(std::move(jr));
    // Update the pending lists after this line.
    const std::string m = lower(first_token(line.text));
    if (m == "s_waitcnt") {
      std::smatch mt;
      auto trim_to = [](std::vector<size_t>& v, size_t n) {
        if (v.size() > n) v.erase(v.begin(), v.end() - static_cast<std::ptrdiff_t>(n));
      };
      if (std::regex_search(line.text, mt, vm_re)) trim_to(vm, std::stoul(mt[1]));
      if (std::regex_search(line.text, mt, lgkm_re)) trim_to(lgkm, std::stoul(mt[1]));
      if (line.text.find("cnt") == std::string::npos) {  // "s_waitcnt 0": every counter
        vm.clear();
        lgkm.clear();
      }
    } else if (const emu::SemanticEntry* e = reg.find(emu::mnemonic_stem(m))) {
      if (e->counters & emu::kVm) vm.push_back(l);
      if (e->counters & emu::kLgkm) lgkm.push_back(l);
    }
  }
  s += "(pending: memory operations issued inside this range and not yet covered by an s_waitcnt here; operations "
       "issued before the range are not shown)\n";
  return {s, {{"kernel", turn.kernel}, {"first", first}, {"last", last}, {"best", best_json(turn)}, {"lines", std::move(rows)}}};
}

ToolResult Toolbox::show_kernel_info(AgentTurn& turn) {
  const Individual& best = turn.best();
  const codeobj::Kernel* k = best.co->kernel(turn.kernel);
  if (!k) return "error: the best object has no kernel " + turn.kernel;
  std::string s = fmt::format("kernel {} ({}), current best: {}\n", turn.kernel, best.co->target().str(), best_name(turn));
  json d = {{"kernel", turn.kernel}, {"processor", best.co->target().str()}, {"best", best_json(turn)}};
  if (k->resources) {
    const auto& r = *k->resources;
    d["resources"] = {{"vgprs_allocated", r.vgprs_allocated}, {"arch_vgprs", r.arch_vgprs}, {"agprs", r.agprs},
                      {"sgprs_allocated", r.sgprs_allocated}, {"lds_bytes", r.lds_bytes}, {"scratch_bytes", r.scratch_bytes},
                      {"kernarg_bytes", r.kernarg_bytes}, {"max_workgroup_size", r.max_workgroup_size}};
    s += fmt::format("resources: vgprs allocated {} (arch vgprs {}, agprs {}), sgprs {}, static LDS {} B, scratch {} B/lane, "
                     "kernarg {} B, max workgroup {}\n",
                     r.vgprs_allocated, r.arch_vgprs, r.agprs, r.sgprs_allocated, r.lds_bytes, r.scratch_bytes, r.kernarg_bytes,
                     r.max_workgroup_size);
  }
  const emu::LaunchSpec& spec = turn.cascade->timing_run();
  try {
    codeobj::Occupancy o = timing::launch_occupancy(*best.co, *k, spec);
    s += fmt::format("occupancy on the timing launch: {} waves/SIMD (limits: vgprs {}, sgprs {}, lds {}, workgroup {}; binding: {}), "
                     "{} workgroups/CU\n",
                     o.waves_per_simd, o.by_vgprs, o.by_sgprs, o.by_lds, o.by_workgroup, o.limiter, o.workgroups_per_cu);
    d["occupancy"] = {{"waves_per_simd", o.waves_per_simd}, {"limiter", o.limiter}, {"workgroups_per_cu", o.workgroups_per_cu}};
  } catch (const Error& e) {
    s += "occupancy: " + e.what_text() + "\n";
  }
  s += fmt::format("timing launch (profiled): {}: grid [{},{},{}] block [{},{},{}] dynamic LDS {} B\n", emu::perf_description(spec),
                   spec.grid[0], spec.grid[1], spec.grid[2], spec.block[0], spec.block[1], spec.block[2], spec.dynamic_lds);
  s += fmt::format("fitness ({}): current best {:.0f}, K0 {:.0f}\n", turn.cascade->fitness_description(), best.cycles, turn.baseline_cycles);
  if (best.timed) {
    const auto& m = best.timed->model;
    d["modeled"] = {{"cycles", m.cycles}, {"microseconds", m.microseconds}, {"roofline_bound", m.roofline_bound},
                    {"roofline_cycles", m.roofline_cycles}, {"l2_bytes", m.l2_bytes}, {"hbm_bytes", m.hbm_bytes}, {"lds_bytes", m.lds_bytes}};
    for (int i = 0; i < timing::kNumStalls; ++i)
      d["modeled"]["stalls"][timing::stall_name(static_cast<timing::Stall>(i))] = m.total_stall(static_cast<timing::Stall>(i));
    s += fmt::format("modeled on the timing launch: {} cycles, {:.3f} us; K0 {:.0f} cycles; {} workgroups, {} waves, {} wave-instructions\n", m.cycles,
                     m.microseconds, turn.baseline_cycles, m.workgroups, m.waves, m.wave_instructions);
    s += "stalls (wave-cycles):";
    for (int i = 0; i < timing::kNumStalls; ++i)
      s += fmt::format(" {} {}", timing::stall_name(static_cast<timing::Stall>(i)), compact_number(m.total_stall(static_cast<timing::Stall>(i))));
    s += fmt::format("\nroofline: {} bound, {:.0f} cycles at best; traffic: L2 {} B, HBM {} B, LDS {} B\n", m.roofline_bound,
                     m.roofline_cycles, m.l2_bytes, m.hbm_bytes, m.lds_bytes);
  }
  s += "kernel descriptor (non-zero fields):";
  for (const codeobj::KdBitField& f : codeobj::kd_bit_fields()) {
    uint32_t v = k->kd.get(f);
    if (v) {
      s += fmt::format(" {}={}", f.name, v);
      d["kernel_descriptor"][f.name] = v;
    }
  }
  s += "\n";
  d["timing_launch"] = {{"grid", spec.grid}, {"block", spec.block}, {"dynamic_lds", spec.dynamic_lds}};
  return {s, d};
}

ToolResult Toolbox::isa_help(AgentTurn& turn, const json& args) {
  if (!args.contains("mnemonic") || !args["mnemonic"].is_string()) return "error: isa_help needs a string `mnemonic`";
  const std::string m = lower(first_token(args["mnemonic"].get<std::string>()));
  const std::string stem(emu::mnemonic_stem(m));
  const auto& reg = emu::Registry::get();
  const emu::SemanticEntry* e = reg.find(stem);
  const codeobj::Arch arch = turn.best().co->target().arch;
  std::string s;
  if (!e) {
    s = fmt::format("{}: AsmEvo's emulator has no semantics for it, so a candidate using it fails at the emulate stage.", stem);
    std::string near;
    json similar = json::array();
    size_t n = 0;
    const std::string prefix = stem.substr(0, std::min<size_t>(stem.size(), stem.find('_', 2) == std::string::npos ? stem.size() : stem.find('_', 2) + 1));
    for (const auto& [name, x] : reg.entries())
      if (name.rfind(prefix, 0) == 0 && n++ < 24) {
        near += " " + name;
        similar.push_back(name);
      }
    if (!near.empty()) s += " Known with the same prefix:" + near;
    return {s + "\n", {{"mnemonic", stem}, {"known", false}, {"same_prefix", similar}}};
  }
  json data = {{"mnemonic", stem}, {"known", true}, {"category", category_name(e->cat)}, {"counters", json::array()}, {"hazards", json::array()}};
  s = fmt::format("{} — {} (emulator semantics, emu/semantics)\n", stem, category_name(e->cat));
  std::string ops;
  for (unsigned i = 0; i < e->ndst; ++i) ops += fmt::format("{}dst{}:{}", ops.empty() ? "" : ", ", i, ty_name(e->dst[i]));
  for (unsigned i = 0; i < e->nsrc; ++i) ops += fmt::format("{}src{}:{}", ops.empty() ? "" : ", ", i, ty_name(e->src[i]));
  if (e->flags & emu::kVariadic) ops += (ops.empty() ? "" : ", ") + std::string("operands read as the encoding needs (memory/SOPP)");
  s += "operands: " + (ops.empty() ? std::string("none") : ops) + "\n";
  data["operands"] = ops;
  std::string flags;
  if (e->flags & emu::kDstIsAccum) flags += " the destination is also the accumulator (D = S0*S1 + D);";
  if (e->flags & emu::kDstIsSrc0) flags += " the first operand is destination and source 0;";
  if (e->flags & emu::kWritesExec) flags += " writes EXEC as well as the compare mask;";
  if (e->flags & emu::kAllowDpp) flags += " accepts DPP/SDWA forms;";
  if (e->flags & emu::kKeepHigh16) flags += " 16-bit result keeps the other half of the VGPR;";
  if (e->flags & emu::kGlobalAtomic) flags += " global read-modify-write;";
  if (!flags.empty()) s += "notes:" + flags + "\n";
  if (e->counters) {
    s += "completes asynchronously; counted in:";
    for (auto [bit, name] : {std::pair{emu::kVm, "vmcnt"}, std::pair{emu::kLgkm, "lgkmcnt"}, std::pair{emu::kExp, "expcnt"}})
      if (e->counters & bit) {
        s += std::string(" ") + name;
        data["counters"].push_back(name);
      }
    s += " (wait with s_waitcnt before using its result or reusing its data registers)\n";
  }
  try {
    const timing::HwParams& hw = timing::hw_params(arch);
    s += fmt::format("timing ({} row of timing/hw_params.cpp): ", hw.device);
    if (e->cat == emu::Category::Scalar) s += fmt::format("SALU issue {} cycles", hw.salu_cycles);
    else if (e->cat == emu::Category::Vector) s += fmt::format("VALU wave64 {} cycles{}", is_trans_name(stem) ? hw.trans_cycles : hw.valu_cycles, is_trans_name(stem) ? " (quarter-rate TRANS)" : "");
    else if (e->cat == emu::Category::Memory) {
      if (stem.rfind("ds_", 0) == 0) s += fmt::format("LDS latency ~{} cycles, {} banks", hw.lat_lds, hw.lds_banks);
      else if (stem.rfind("s_", 0) == 0) s += fmt::format("scalar cache hit ~{} cycles, miss ~{} cycles", hw.lat_scache, hw.lat_smem_miss);
      else s += fmt::format("VMEM address {} cycles/wave; latency L1 ~{}, L2 ~{}, {}HBM ~{} cycles", hw.ta_cycles, hw.lat_l1, hw.lat_l2, hw.has_mall ? fmt::format("MALL ~{}, ", hw.lat_mall) : "", hw.lat_hbm);
    } else if (e->cat == emu::Category::MFMA) {
      std::string passes = "passes: see an instance in the kernel";
      for (size_t l = 0; l < turn.best().program->text_line_count(); ++l) {
        const auto& line = turn.best().program->text_line(l);
        if (line.inst && lower(std::string(emu::mnemonic_stem(first_token(line.text)))) == stem) {
          if (auto mi = check::mfma_info(*line.inst, arch)) passes = fmt::format("{} passes (latency of the result, SISchedule.td)", mi->passes);
          break;
        }
      }
      s += "matrix core; " + passes;
    } else s += "control (issue slot)";
    s += "\n";
  } catch (const Error& err) {
    s += "timing: " + err.what_text() + "\n";
  }
  // Hazard rules whose producer or consumer names this kind of instruction.
  const unsigned bit = check::arch_bit(arch);
  const auto keys = hazard_keywords(stem, e);
  std::string hz;
  size_t shown = 0;
  for (const check::HazardRule& r : check::hazard_rules()) {
    if (!(r.archs & bit)) continue;
    const std::string d = r.description;
    bool match = false;
    for (const std::string& k : keys) match |= d.find(k) != std::string::npos;
    if (!match) continue;
    if (shown++ < 12) hz += fmt::format("  {}: {} — needs {} [{}]\n", r.id, d, r.wait_states, r.source);
    data["hazards"].push_back({{"id", r.id}, {"description", d}, {"wait_states", r.wait_states}, {"source", r.source}});
  }
  s += hz.empty() ? "wait-state hazards: none of AsmEvo's rules (check/hazard_rules.cpp) names this kind of instruction\n"
                  : "wait-state hazard rules that may involve it (check/hazard_rules.cpp; the static stage checks them):\n" + hz;
  if (shown > 12) s += fmt::format("  ... and {} more\n", shown - 12);
  return {s, data};
}

ToolResult Toolbox::propose_edit(AgentTurn& turn, const json& args) {
  for (const char* k : {"first", "last"})
    if (!args.contains(k) || !args[k].is_number_integer()) return fmt::format("error: propose_edit needs an integer `{}`", k);
  if (args.contains("code") && !args["code"].is_string()) return "error: `code` must be a string (newline-separated instructions)";
  const int64_t first = args["first"], last = args["last"];
  const std::string code = args.value("code", "");
  const std::string description = args.contains("description") && args["description"].is_string() ? args["description"].get<std::string>() : "";
  const Individual& best = turn.best();
  const program::Function& f = kernel_function(turn);
  if (first < static_cast<int64_t>(f.begin) || first >= static_cast<int64_t>(f.end) || last < first - 1 || last >= static_cast<int64_t>(f.end))
    return fmt::format("error: lines [{}, {}] are not inside the kernel {} (L{}..L{}); last = first - 1 inserts", first, last,
                       turn.kernel, f.begin, f.end - 1);
  search::Edit e;
  e.kernel = turn.kernel;
  e.move = proposer_ + "-edit";
  e.proposer = proposer_;
  e.description = description.empty() ? "edit by the " + proposer_ + " agent" : description;
  std::vector<std::string> lines = split_lines(code);
  try {
    if (last == first - 1) {
      if (lines.empty()) return "error: an insertion (last = first - 1) needs code";
      e.hunks.push_back(search::make_insertion(static_cast<size_t>(first), lines));
    } else {
      e.hunks.push_back(search::make_hunk(*best.program, static_cast<size_t>(first), static_cast<size_t>(last), lines));
    }
    program::Program edited = search::apply_edit(*best.program, e);
    rebuild::rebuild(edited.listing(), turn.kernel + "-proposed");
  } catch (const Error& err) {
    return "error: the edit does not apply or assemble: " + err.what_text() + (err.fix().empty() ? "" : " (" + err.fix() + ")");
  }
  const std::string key = e.to_json().dump();
  std::string seen;
  json before;
  for (const search::CandidateRecord& c : turn.store->candidates(turn.kernel_id))
    if (c.edit_json == key && c.parent.value_or(0) == best.id) {
      seen = fmt::format("\nnote: this exact edit of this parent was evaluated before (candidate #{}: {} at {}: {})", c.id, c.verdict,
                         c.stage, c.reason.substr(0, 160));
      before = {{"candidate", c.id}, {"verdict", c.verdict}, {"stage", c.stage}, {"reason", c.reason.substr(0, 400)}};
    }
  const int64_t id = next_edit_++;
  pending_[id] = Pending{e, best.id, turn_window_id(turn, static_cast<size_t>(first))};
  return {fmt::format("edit_id {} ready (parent: {}, window {}); it applies and assembles. Diff:\n{}{}\nCall evaluate with edit_id {}.", id,
                      best_name(turn), pending_[id].window, e.diff(), seen, id),
          {{"edit_id", id}, {"parent", best.id}, {"window", pending_[id].window}, {"diff", e.diff()}, {"evaluated_before", before}}};
}

ToolResult Toolbox::evaluate(AgentTurn& turn, const json& args) {
  if (!args.contains("edit_id") || !args["edit_id"].is_number_integer()) return "error: evaluate needs an integer `edit_id` from propose_edit";
  const int64_t id = args["edit_id"];
  auto it = pending_.find(id);
  if (it == pending_.end()) return fmt::format("error: no pending edit {} (propose_edit returns the ids)", id);
  if (it->second.parent != turn.best().id)
    return fmt::format("error: edit {} was made for an older best (#{}); the best is now {} and its line numbers differ. Look again "
                       "(show_window) and propose the edit anew.",
                       id, it->second.parent, best_name(turn));
  if (turn.budget_left != SIZE_MAX && evaluations_this_turn >= turn.budget_left) {
    budget_spent_ = true;
    return "error: the candidate budget for this kernel is spent; nothing more can be evaluated";
  }
  Pending p = it->second;
  pending_.erase(it);
  const double parent_cycles = turn.best().cycles;
  const int64_t parent_id = turn.best().id;
  ++evaluations_this_turn;
  search::Evaluation ev = turn.evaluate(p.edit, p.window, transcript ? transcript() : std::string());
  Attempt a;
  a.parent = parent_id;
  a.window = p.window;
  a.description = p.edit.description;
  a.diff = p.edit.diff();
  a.verdict = ev.accepted ? "accepted" : "rejected";
  a.stage = ev.stage;
  a.reason = ev.reason;
  a.parent_cycles = parent_cycles;
  a.cycles = ev.cycles;
  attempts_.push_back(a);
  // Other pending edits stay: after a rejection they are still edits of the best; after an accept
  // the parent check above refuses them with the reason.

  // The reason is usually the failed stage's detail, which the stage list shows anyway.
  bool in_stages = false;
  for (const auto& st : ev.stages) in_stages |= !st.ok && st.detail == ev.reason;
  std::string s = fmt::format("{} at stage {}{}\n", ev.accepted ? "ACCEPTED" : "REJECTED", ev.stage,
                              ev.reason.empty() || in_stages ? "" : ": " + (ev.reason.size() > 800 ? ev.reason.substr(0, 800) + " ..." : ev.reason));
  s += stages_text(ev);
  if (ev.cycles > 0)
    s += fmt::format("modeled cycles: {:.0f} (parent {:.0f}: {:.3f}x; vs K0 {:.3f}x)\n", ev.cycles, parent_cycles, parent_cycles / ev.cycles,
                     turn.baseline_cycles / ev.cycles);
  json d = {{"edit_id", id}, {"verdict", a.verdict}, {"stage", ev.stage}, {"reason", ev.reason}, {"parent", parent_id},
            {"parent_cycles", parent_cycles}, {"figures", "modeled"}, {"stages", json::array()}, {"counterexamples", ev.counterexamples}};
  for (const auto& st : ev.stages) d["stages"].push_back({{"stage", st.stage}, {"ok", st.ok}, {"seconds", st.seconds}, {"detail", st.detail}});
  if (ev.cycles > 0) {
    d["cycles"] = ev.cycles;
    d["speedup_vs_parent"] = parent_cycles / ev.cycles;
    d["speedup_vs_k0"] = turn.baseline_cycles / ev.cycles;
  }
  for (const std::string& dir : ev.counterexamples) {
    s += "counterexample saved: " + dir + " (every later candidate is also run on it)\n";
    for (const char* name : {"/spec.yaml"}) {
      std::ifstream in(dir + name);
      if (!in) continue;
      std::string text((std::istreambuf_iterator<char>(in)), {});
      s += "  its launch spec:\n" + (text.size() > 800 ? text.substr(0, 800) + "..." : text) + "\n";
    }
  }
  if (ev.accepted) {
    s += fmt::format("ACCEPTED: candidate #{} is the new best ({:.0f} modeled cycles, {:.3f}x vs K0). Line numbers have changed: every "
                     "pending edit is void and earlier show_window output is stale. Hot windows of the new best:\n{}",
                     turn.best().id, turn.best().cycles, turn.baseline_cycles / turn.best().cycles, windows_text(turn));
    d["candidate"] = turn.best().id;
    d["windows"] = windows_json(turn);
  }
  d["best"] = best_json(turn);
  ToolResult r(s, d);
  r.evaluated = true;
  return r;
}

ToolResult Toolbox::note(AgentTurn& turn, const json& args) {
  if (!args.contains("text") || !args["text"].is_string() || args["text"].get<std::string>().empty())
    return "error: note needs a non-empty string `text`";
  std::string window;
  if (args.contains("window")) {
    std::string err;
    const Window* w = find_window(turn, args, err);
    window = w ? w->id : (args["window"].is_string() ? args["window"].get<std::string>() : args["window"].dump());
  }
  turn.store->add_note(turn.kernel_id, window, proposer_, args["text"].get<std::string>());
  return {"noted (stored with the kernel; later sessions see it)", {{"stored", true}, {"window", window}, {"author", proposer_}}};
}

ToolResult Toolbox::history(AgentTurn& turn, const json& args) {
  std::string err, window;
  if (const Window* w = find_window(turn, args, err)) window = w->id;
  else if (!err.empty()) return err;
  json d;
  std::string text = history_text(*turn.store, turn.kernel_id, window, turn.baseline_cycles, &d);
  return {text, d};
}

const std::vector<std::string>& Toolbox::names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const json& t : json::parse(prompt(std::string("tools-") + kPromptVersion + ".json"))) out.push_back(t.at("function").at("name"));
    return out;
  }();
  return v;
}

std::string Toolbox::call(const std::string& name, const std::string& arguments, AgentTurn& turn, bool& evaluated) {
  evaluated = false;
  json args;
  try {
    args = arguments.empty() ? json::object() : json::parse(arguments);
  } catch (const std::exception& e) {
    return fmt::format("error: the arguments of {} are not valid JSON ({}); got: {}", name, e.what(), arguments.substr(0, 200));
  }
  if (!args.is_object()) return fmt::format("error: the arguments of {} must be a JSON object; got: {}", name, arguments.substr(0, 200));
  ToolResult r = run(name, args, turn);
  evaluated = r.evaluated;
  return r.text;
}

ToolResult Toolbox::run(const std::string& name, const json& args, AgentTurn& turn) {
  if (!args.is_object()) return fmt::format("error: the arguments of {} must be a JSON object", name);
  try {
    if (name == "list_windows") return list_windows(turn);
    if (name == "show_window") return show_window(turn, args);
    if (name == "show_kernel_info") return show_kernel_info(turn);
    if (name == "isa_help") return isa_help(turn, args);
    if (name == "propose_edit") return propose_edit(turn, args);
    if (name == "evaluate") return evaluate(turn, args);
    if (name == "history") return history(turn, args);
    if (name == "note") return note(turn, args);
  } catch (const Error& e) {
    return "error: " + e.what_text();
  }
  std::string all;
  for (const std::string& n : names()) all += (all.empty() ? "" : ", ") + n;
  return "error: no tool named '" + name + "'; the tools are " + all;
}

std::string history_text(search::Store& store, int64_t kernel_id, const std::string& window, double baseline_cycles, json* data) {
  const auto cands = store.candidates(kernel_id);
  std::string s;
  const search::CandidateRecord* best = nullptr;
  std::map<std::string, size_t> by_proposer;
  struct Group {
    size_t count = 0;
    std::vector<std::string> examples;
  };
  std::map<std::string, Group> accepted, rejected;
  size_t considered = 0;
  for (const auto& c : cands) {
    if (c.verdict == "accepted" && c.cycles > 0 && (!best || c.cycles < best->cycles)) best = &c;
    if (!window.empty() && c.window != window) continue;
    ++considered;
    ++by_proposer[c.proposer];
    std::string desc;
    try {
      desc = search::Edit::from_json(json::parse(c.edit_json)).description;
    } catch (const std::exception&) {
    }
    std::string ex = fmt::format("#{} {} {}{}", c.id, c.proposer, c.move, desc.empty() ? "" : ": " + desc.substr(0, 100));
    if (c.verdict == "accepted") {
      ex += fmt::format(" ({:.0f} -> {:.0f} cycles)", c.parent_cycles, c.cycles);
      Group& g = accepted[c.move];
      ++g.count;
      if (g.examples.size() < 3) g.examples.push_back(ex);
    } else {
      if (c.cycles > 0) ex += fmt::format(" ({:.0f} cycles vs parent {:.0f})", c.cycles, c.parent_cycles);
      Group& g = rejected[failure_cause(c.stage, c.reason)];
      ++g.count;
      if (g.examples.size() < 3) g.examples.push_back(ex);
    }
  }
  if (data) {
    json& d = *data;
    d = {{"window", window}, {"attempts", considered}, {"by_proposer", by_proposer}, {"figures", "modeled"}, {"best", nullptr},
         {"accepted", json::array()}, {"rejected", json::array()}};
    if (best)
      d["best"] = {{"candidate", best->id}, {"proposer", best->proposer}, {"move", best->move}, {"cycles", best->cycles},
                   {"speedup", baseline_cycles > 0 ? baseline_cycles / best->cycles : 0.0}};
    for (const auto& [m, g] : accepted) d["accepted"].push_back({{"move", m}, {"count", g.count}, {"examples", g.examples}});
    for (const auto& [k, g] : rejected) d["rejected"].push_back({{"cause", k}, {"count", g.count}, {"examples", g.examples}});
  }
  if (best)
    s += fmt::format("best so far: candidate #{} ({} {}), {:.0f} modeled cycles, {:.3f}x vs K0\n", best->id, best->proposer, best->move,
                     best->cycles, baseline_cycles > 0 ? baseline_cycles / best->cycles : 0.0);
  else
    s += "best so far: K0 (nothing accepted yet)\n";
  s += fmt::format("{} attempt(s){}", considered, window.empty() ? "" : " on window " + window);
  for (const auto& [p, n] : by_proposer) s += fmt::format(" | {} {}", p, n);
  s += "\n";
  if (!accepted.empty()) s += "accepted, by move:\n";
  for (const auto& [m, g] : accepted) {
    s += fmt::format("  {} x{}\n", m, g.count);
    for (const auto& e : g.examples) s += "    " + e + "\n";
  }
  // Largest groups first: the causes most worth not repeating.
  std::vector<std::pair<std::string, const Group*>> order;
  for (const auto& [k, g] : rejected) order.push_back({k, &g});
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->count != b.second->count ? a.second->count > b.second->count : a.first < b.first;
  });
  if (!order.empty()) s += "rejected, grouped by cause:\n";
  size_t shown = 0;
  for (const auto& [k, g] : order) {
    if (shown++ == 12) {
      s += fmt::format("  ... {} more causes\n", order.size() - 12);
      break;
    }
    s += fmt::format("  x{} {}\n", g->count, k);
    for (const auto& e : g->examples) s += "    " + e + "\n";
  }
  return s;
}

std::string notes_text(search::Store& store, int64_t kernel_id) {
  std::string s;
  for (const auto& n : store.notes(kernel_id))
    s += fmt::format("  - [{}{}] {}\n", n.created.substr(0, 19), n.window.empty() ? "" : " " + n.window, n.text);
  return s;
}

}  // namespace asmevo::agent
