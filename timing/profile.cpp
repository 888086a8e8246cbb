#include "timing/profile.h"

#include <algorithm>
#include <fmt/format.h>

namespace asmevo::timing {

Stall top_stall_of(const InstProfile& p) {
  int best = static_cast<int>(Stall::IssueContention);
  for (int i = 0; i < kNumStalls; ++i)
    if (p.stall[i] > p.stall[best]) best = i;
  return static_cast<Stall>(best);
}

namespace {

// The instruction's address in the code object (the emulator maps code at emu::kCodeBase).
uint64_t pc_of(const emu::ExecInst& in) { return in.raw ? in.raw->address : in.address; }

double total_cycles(const ModelResult& m) {
  double t = 0;
  for (const auto& p : m.per_inst) t += p.cycles();
  return t;
}

std::vector<bool> block_leaders(const emu::Program& prog) {
  const auto& insts = prog.insts();
  std::vector<bool> leader(insts.size() + 1, false);
  if (!insts.empty()) leader[0] = true;
  leader[prog.entry_index()] = true;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].target >= 0) leader[static_cast<size_t>(insts[i].target)] = true;
    if (insts[i].raw && (insts[i].raw->is_terminator || insts[i].raw->is_branch || insts[i].raw->is_call)) leader[i + 1] = true;
  }
  return leader;
}

}  // namespace

std::vector<HotWindow> hot_windows(const emu::Program& prog, const ModelResult& m, unsigned max_length, unsigned count) {
  const auto& insts = prog.insts();
  const auto leader = block_leaders(prog);
  const double total = total_cycles(m);
  std::vector<HotWindow> out;
  max_length = std::max(1u, max_length);
  for (size_t b = 0; b < insts.size();) {
    size_t e = b + 1;
    while (e < insts.size() && !leader[e]) ++e;
    // The hottest run of at most max_length instructions in [b, e) (sliding sum; cycles are >= 0).
    size_t best_first = b, len = std::min<size_t>(max_length, e - b);
    double sum = 0;
    for (size_t i = b; i < b + len; ++i) sum += m.per_inst[i].cycles();
    double best = sum;
    for (size_t i = b + len; i < e; ++i) {
      sum += m.per_inst[i].cycles() - m.per_inst[i - len].cycles();
      if (sum > best) best = sum, best_first = i - len + 1;
    }
    if (best > 0) {
      HotWindow w;
      w.first = static_cast<uint32_t>(best_first);
      w.last = static_cast<uint32_t>(best_first + len - 1);
      w.cycles = best;
      w.share = total > 0 ? best / total : 0;
      std::array<double, kNumStalls> st{};
      for (size_t i = w.first; i <= w.last; ++i)
        for (int k = 0; k < kNumStalls; ++k) st[k] += m.per_inst[i].stall[k];
      int top = static_cast<int>(std::max_element(st.begin(), st.end()) - st.begin());
      w.top_stall = static_cast<Stall>(top);
      w.top_stall_cycles = st[top];
      out.push_back(w);
    }
    b = e;
  }
  std::sort(out.begin(), out.end(), [](const HotWindow& a, const HotWindow& b) {
    return a.cycles != b.cycles ? a.cycles > b.cycles : a.first < b.first;
  });
  if (out.size() > count) out.resize(count);
  return out;
}

std::string profile_text(const emu::Program& prog, const ModelResult& m, const std::vector<HotWindow>& windows) {
  const auto& insts = prog.insts();
  const double total = total_cycles(m);
  std::string s = fmt::format("modeled profile of {} on {} ({}): {} cycles = {:.3f} us modeled, {} wave-cycles attributed\n",
                              prog.kernel(), codeobj::to_string(m.hw->arch), m.hw->device, m.cycles, m.microseconds, total);
  s += "stall totals (modeled wave-cycles):";
  for (int k = 0; k < kNumStalls; ++k)
    s += fmt::format(" {} {:.0f} ({:.1f}%)", stall_name(static_cast<Stall>(k)), m.total_stall(static_cast<Stall>(k)),
                     total > 0 ? 100 * m.total_stall(static_cast<Stall>(k)) / total : 0);
  s += "\n";
  // The hottest instructions with their full breakdown (wave-cycles summed over executions).
  std::vector<size_t> order;
  for (size_t i = 0; i < insts.size(); ++i)
    if (m.per_inst[i].executions) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double ca = m.per_inst[a].cycles(), cb = m.per_inst[b].cycles();
    return ca != cb ? ca > cb : a < b;
  });
  if (order.size() > 10) order.resize(10);
  s += fmt::format("\ntop instructions (modeled wave-cycles):\n  {:>10}  {:>6}  {:>10}  {:>8}", "pc", "share", "executions", "issue");
  for (int k = 0; k < kNumStalls; ++k) s += fmt::format("  {:>12}", stall_name(static_cast<Stall>(k)));
  s += "  instruction\n";
  for (size_t i : order) {
    const InstProfile& p = m.per_inst[i];
    s += fmt::format("  0x{:08x}  {:5.1f}%  {:>10}  {:>8.0f}", pc_of(insts[i]), total > 0 ? 100 * p.cycles() / total : 0,
                     p.executions, p.issue_cycles);
    for (int k = 0; k < kNumStalls; ++k) s += fmt::format("  {:>12.0f}", p.stall[k]);
    s += "  " + (insts[i].raw ? insts[i].raw->text : std::string("?")) + "\n";
  }
  for (size_t n = 0; n < windows.size(); ++n) {
    const HotWindow& w = windows[n];
    s += fmt::format("\nhot window {}: 0x{:x}..0x{:x} ({} instructions), {:.0f} modeled wave-cycles ({:.1f}%), top stall {}\n",
                     n + 1, pc_of(insts[w.first]), pc_of(insts[w.last]), w.last - w.first + 1, w.cycles, 100 * w.share,
                     stall_name(w.top_stall));
    s += fmt::format("  {:>10}  {:>6}  {:>10}  {:>10}  {:>12}  {}\n", "pc", "share", "cycles", "executions", "top stall", "instruction");
    for (size_t i = w.first; i <= w.last; ++i) {
      const InstProfile& p = m.per_inst[i];
      const double c = p.cycles();
      const Stall ts = top_stall_of(p);
      std::string stall = p.stall[static_cast<int>(ts)] > 0 ? stall_name(ts) : "-";
      s += fmt::format("  0x{:08x}  {:5.1f}%  {:>10.0f}  {:>10}  {:>12}  {}\n", pc_of(insts[i]), total > 0 ? 100 * c / total : 0, c,
                       p.executions, stall, insts[i].raw ? insts[i].raw->text : "?");
    }
  }
  return s;
}

nlohmann::json time_json(const ModelResult& m) {
  const double secs = m.microseconds * 1e-6;
  nlohmann::json stalls = nlohmann::json::object();
  for (int k = 0; k < kNumStalls; ++k) stalls[stall_name(static_cast<Stall>(k))] = m.total_stall(static_cast<Stall>(k));
  return {{"schema", "asmevo.time/1"},
          {"figure", "modeled"},
          {"arch", codeobj::to_string(m.hw->arch)},
          {"device", m.hw->device},
          {"clock_ghz", m.clock_ghz},
          {"peak_clock_ghz", m.hw->clock_ghz},
          {"launch_overhead_us", m.hw->launch_overhead_us},
          {"kernel_boundary_us", m.hw->kernel_boundary_us},
          {"cycles", m.cycles},
          {"microseconds", m.microseconds},
          {"workgroups", m.workgroups},
          {"waves", m.waves},
          {"wave_instructions", m.wave_instructions},
          {"cus_used", m.cus_used},
          {"occupancy",
           {{"waves_per_simd", m.occupancy.waves_per_simd},
            {"workgroups_per_cu", m.occupancy.workgroups_per_cu},
            {"limiter", m.occupancy.limiter}}},
          {"bytes", {{"l1", m.l1_bytes}, {"l2", m.l2_bytes}, {"mall", m.mall_bytes}, {"hbm", m.hbm_bytes}, {"unique", m.unique_bytes}}},
          {"achieved_hbm_gb_per_s", secs > 0 ? m.hbm_bytes / secs / 1e9 : 0},
          {"flops", m.flops},
          {"achieved_gflop_per_s", secs > 0 ? m.flops / secs / 1e9 : 0},
          {"roofline", {{"cycles", m.roofline_cycles}, {"microseconds", m.roofline_cycles / (m.hw->clock_ghz * 1e3)}, {"bound", m.roofline_bound}}},
          {"stall_wave_cycles", stalls},
          {"top_stall", stall_name(m.top_stall())},
          {"sample",
           {{"sampled", m.sample.sampled},
            {"simulated_workgroups", m.sample.sampled ? m.sample.simulated_groups : m.workgroups},
            {"description", m.sample.sampled ? m.sample.description : "every workgroup simulated (exact)"},
            {"error_bound", m.sample.error_bound},
            {"extrapolated_share", m.sample.extrapolated_share}}}};
}

nlohmann::json profile_json(const emu::Program& prog, const ModelResult& m, const std::vector<HotWindow>& windows) {
  const auto& insts = prog.insts();
  const double total = total_cycles(m);
  auto inst_json = [&](size_t i) {
    const InstProfile& p = m.per_inst[i];
    nlohmann::json st = nlohmann::json::object();
    for (int k = 0; k < kNumStalls; ++k) st[stall_name(static_cast<Stall>(k))] = p.stall[k];
    return nlohmann::json{{"index", i},
                          {"pc", pc_of(insts[i])},
                          {"text", insts[i].raw ? insts[i].raw->text : ""},
                          {"executions", p.executions},
                          {"issue_cycles", p.issue_cycles},
                          {"stall_cycles", st},
                          {"cycles", p.cycles()},
                          {"share", total > 0 ? p.cycles() / total : 0}};
  };
  nlohmann::json j = time_json(m);
  j["schema"] = "asmevo.profile/1";
  j["kernel"] = prog.kernel();
  j["attributed_wave_cycles"] = total;
  nlohmann::json per = nlohmann::json::array();
  for (size_t i = 0; i < insts.size(); ++i)
    if (m.per_inst[i].executions) per.push_back(inst_json(i));
  j["instructions"] = per;
  nlohmann::json ws = nlohmann::json::array();
  for (const auto& w : windows) {
    nlohmann::json lines = nlohmann::json::array();
    for (size_t i = w.first; i <= w.last; ++i) lines.push_back(inst_json(i));
    ws.push_back({{"first_pc", pc_of(insts[w.first])},
                  {"last_pc", pc_of(insts[w.last])},
                  {"first_index", w.first},
                  {"last_index", w.last},
                  {"cycles", w.cycles},
                  {"share", w.share},
                  {"top_stall", stall_name(w.top_stall)},
                  {"lines", lines}});
  }
  j["hot_windows"] = ws;
  return j;
}

}  // namespace asmevo::timing
