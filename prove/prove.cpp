#include "prove/prove.h"

#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <memory>
#include <random>

#include "emu/context.h"
#include "emu/program.h"
#include "emu/wave.h"
#include "prove/machine.h"
#include "prove/terms.h"
#include "support/error.h"

namespace asmevo::prove {

namespace {
thread_local z3::context* current_ctx = nullptr;
}
z3::context& z3ctx() {
  if (!current_ctx) throw Error("internal: a Z3 term was built outside a prover context", "prove", "");
  return *current_ctx;
}
ContextScope::ContextScope(z3::context& c) : saved(current_ctx) { current_ctx = &c; }
ContextScope::~ContextScope() { current_ctx = saved; }

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Proven: return "PROVEN";
    case Verdict::Disproven: return "DISPROVEN";
    default: return "UNKNOWN";
  }
}

nlohmann::json ProofResult::to_json() const {
  nlohmann::json j = {{"verdict", verdict_name(verdict)}, {"reason", reason}, {"seconds", seconds},
                      {"old_instructions", old_insts}, {"new_instructions", new_insts},
                      {"window", {first_line, last_line}}, {"uninterpreted", uninterpreted}};
  if (verdict == Verdict::Disproven) j["counterexample"] = counterexample, j["confirmed_concretely"] = confirmed;
  if (!facts.empty()) j["launch_facts"] = facts;
  return j;
}
std::string ProofResult::to_text() const {
  std::string s = fmt::format("{} ({} -> {} instructions, {:.3f} s): {}", verdict_name(verdict), old_insts, new_insts, seconds, reason);
  if (verdict == Verdict::Disproven)
    s += fmt::format("\n  live-in state{}: {}", confirmed ? " (re-run concretely: the results differ)" : "", counterexample);
  if (!facts.empty()) {
    s += fmt::format("\n  under {} launch fact(s) (every admitted launch):", facts.size());
    for (const std::string& f : facts) s += "\n    " + f;
  }
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

// Z3's resource count of the solver's context (cumulative over every query of the context).
uint64_t work_count(const z3::solver& s) {
  const z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count") return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
  return 0;
}

// The wall-clock backstop of a limit of `limit_ms` (at least a second: below that, the time to
// set a query up is what it would measure).
double backstop_ms(double limit_ms) { return std::max(double(kWallBackstop) * limit_ms, 1000.0); }

// Whether a proof (with what earlier attempts spent, ProofOptions::work_spent/wall_spent_ms) has
// spent its budget after `work` more units and `wall_ms` more: the work budget (deterministic) or
// the wall-clock backstop.
bool budget_spent(const ProofOptions& o, uint64_t work, double wall_ms) {
  return o.work_spent + work >= uint64_t{o.budget_ms} * kZ3WorkPerMs || o.wall_spent_ms + wall_ms >= backstop_ms(o.budget_ms);
}

// Whether the proof's wall-clock deadline (ProofOptions::deadline) has passed, and the
// milliseconds left before it (a large number where there is none).
bool past_deadline(const ProofOptions& o) { return Clock::now() >= o.deadline; }
double ms_to_deadline(const ProofOptions& o) {
  if (o.deadline == Clock::time_point::max()) return double(UINT32_MAX);
  return std::chrono::duration<double, std::milli>(o.deadline - Clock::now()).count();
}
constexpr const char* kDeadlineText = "the proof's wall-clock deadline passed: the machine was slow or loaded, this verdict may differ elsewhere";

// A query's limits: `work` resource units (deterministic), and the wall-clock backstop, cut at the
// proof's deadline. Returns whether the deadline is the query's wall-clock limit.
bool limit_query(z3::solver& s, uint64_t work, const ProofOptions& o) {
  z3::params p(s.ctx());
  p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(work, UINT32_MAX)));
  const double backstop = backstop_ms(double(work) / kZ3WorkPerMs), left = std::max(1.0, ms_to_deadline(o));
  p.set("timeout", static_cast<unsigned>(std::min<double>(std::min(backstop, left), UINT32_MAX)));
  s.set(p);
  return left < backstop;
}

// Why the solver gave up, in the options' terms (`at_deadline`: limit_query's answer).
std::string gave_up_reason(const z3::solver& s, unsigned limit_ms, bool at_deadline) {
  const std::string why = s.reason_unknown();
  if (why.find("resource") != std::string::npos)
    return fmt::format("work limit of {} units, about {} ms of one core", limit_ms * kZ3WorkPerMs, limit_ms);
  if (why.find("timeout") != std::string::npos || why.find("canceled") != std::string::npos)
    return at_deadline ? std::string(kDeadlineText)
                            : fmt::format("wall-clock backstop of {:.0f} ms: the machine was slow or loaded, this verdict may differ elsewhere",
                                          backstop_ms(limit_ms));
  return why;
}

// The pre-decoded window: its own Instructions (ExecInst::raw points into them). Lines ending in
// ':' are labels. A branch's ExecInst::target is the index of the instruction it jumps to inside
// the window (forward only: the region is acyclic), `insts.size()` for the window's end, or
// `insts.size() + 1 + k` for the k-th exit to a label outside the window.
struct Window {
  std::deque<program::Instruction> raw;
  std::vector<emu::ExecInst> insts;
  std::vector<std::string> exits;  // labels outside the window that a branch leaves to
  bool branches = false;
  size_t end() const { return insts.size(); }
  // The exit a pc past the instructions stands for ("" for the window's end).
  std::string exit_name(size_t pc) const { return pc == end() ? std::string() : exits.at(pc - end() - 1); }
};
constexpr unsigned kVregs = 512, kAccumOffset = 256;  // VGPR v0..v255, AGPR aN = 256 + N
constexpr size_t kMaxPaths = 64;                      // paths through a window's branches (then UNKNOWN)
const char* const kEndpgm = "s_endpgm";

bool is_label(const std::string& text) {
  return !text.empty() && text.back() == ':' && text.find_first_of(" \t") == std::string::npos;
}
bool followed_branch(const std::string& mnemonic) {
  return mnemonic == "s_branch" || mnemonic == "s_cbranch_scc0" || mnemonic == "s_cbranch_scc1" || mnemonic == "s_cbranch_vccz" ||
         mnemonic == "s_cbranch_vccnz" || mnemonic == "s_cbranch_execz" || mnemonic == "s_cbranch_execnz";
}

// Instruction text -> pre-decoded; Unsupported for what the emulator rejects, for control flow the
// prover does not follow (calls, indirect jumps, backward branches) and for branches it does not know.
Window decode(const std::vector<std::string>& lines) {
  Window w;
  std::map<std::string, size_t> label_at;  // label -> index of the next instruction
  std::vector<std::pair<size_t, std::string>> branch_label;
  uint64_t address = 0;
  for (const std::string& text : lines) {
    if (is_label(text)) {
      label_at[text.substr(0, text.size() - 1)] = w.insts.size();
      continue;
    }
    program::Instruction in;
    in.text = text;
    in.mnemonic = text.substr(0, text.find_first_of(" \t"));
    in.address = address;
    in.size = 4;
    address += 4;
    if (in.mnemonic.starts_with("s_setpc") || in.mnemonic.starts_with("s_swappc") || in.mnemonic.starts_with("s_call") ||
        (in.mnemonic.starts_with("s_cbranch") && !followed_branch(in.mnemonic)))
      throw Unsupported{"control flow in the window (" + in.mnemonic + "): only forward branches are followed"};
    if (followed_branch(in.mnemonic)) {
      std::string target = text.substr(in.mnemonic.size());
      target.erase(0, target.find_first_not_of(" \t"));
      target.erase(target.find_last_not_of(" \t") + 1);
      if (target.empty() || target.find_first_of(" \t,") != std::string::npos)
        throw Unsupported{"a branch whose target is not one label: " + text};
      branch_label.emplace_back(w.insts.size(), target);
      w.branches = true;
    }
    w.raw.push_back(std::move(in));
    try {
      w.insts.push_back(emu::predecode(w.raw.back(), kVregs, kAccumOffset, "window"));
    } catch (const Error& e) {
      throw Unsupported{e.what_text()};
    }
    w.insts.back().raw = &w.raw.back();
  }
  for (const auto& [i, label] : branch_label) {
    if (auto it = label_at.find(label); it != label_at.end()) {
      if (it->second <= i) throw Unsupported{"a backward branch to " + label + " in the window (a loop): not an acyclic region"};
      w.insts[i].target = static_cast<int32_t>(it->second);
      continue;
    }
    auto at = std::find(w.exits.begin(), w.exits.end(), label);
    if (at == w.exits.end()) at = w.exits.insert(w.exits.end(), label);
    w.insts[i].target = static_cast<int32_t>(w.end() + 1 + (at - w.exits.begin()));
  }
  return w;
}

// One path through a window: the condition on the live-in state that takes it, the machine at its
// end and where it leaves ("" the window's end, a label outside, or s_endpgm). The conditions of a
// window's paths are disjoint and cover every live-in state (each branch splits one in two).
struct Path {
  z3::expr cond;
  Machine m;
  std::string exit;
};
std::vector<Path> run_paths(const Window& w, const Machine& start) {
  struct State {
    size_t pc;
    z3::expr cond;
    Machine m;
  };
  std::vector<State> work;
  work.push_back({0, start.ctx().bool_val(true), start});
  std::vector<Path> done;
  while (!work.empty()) {
    State s = std::move(work.back());
    work.pop_back();
    while (true) {
      if (s.pc >= w.end()) {
        done.push_back({s.cond, std::move(s.m), w.exit_name(s.pc)});
        break;
      }
      const emu::ExecInst& in = w.insts[s.pc];
      if (in.raw->mnemonic == kEndpgm) {
        done.push_back({s.cond, std::move(s.m), kEndpgm});
        break;
      }
      if (!followed_branch(in.raw->mnemonic)) {
        step(s.m, in);
        ++s.pc;
        continue;
      }
      const std::optional<z3::expr> c = branch_condition(s.m, in);
      if (!c) throw Unsupported{"a branch the prover does not follow: " + in.raw->text};
      const z3::expr taken = c->simplify();
      if (taken.is_true()) {
        s.pc = static_cast<size_t>(in.target);
      } else if (taken.is_false()) {
        ++s.pc;
      } else {
        if (done.size() + work.size() + 2 > kMaxPaths) throw Unsupported{fmt::format("more than {} paths through the window's branches", kMaxPaths)};
        work.push_back({static_cast<size_t>(in.target), (s.cond && taken).simplify(), s.m});
        s.cond = (s.cond && !taken).simplify();
        ++s.pc;
      }
    }
  }
  return done;
}

// A location's value after the window: the value on each path, chosen by the path conditions.
template <class F> z3::expr merged(std::vector<Path>& paths, F value) {
  z3::expr r = value(paths.back().m);
  for (size_t i = paths.size() - 1; i-- > 0;) r = z3::ite(paths[i].cond, value(paths[i].m), r);
  return r.simplify();
}

// What the live-out comparison covers: registers either side wrote, filtered by liveness.
size_t reg_unit_sgpr(unsigned i) {
  if (i == emu::kVccLo || i == emu::kVccHi) return program::RegSet::kVcc + (i - emu::kVccLo);
  if (i == emu::kExecLo || i == emu::kExecHi) return program::RegSet::kExec + (i - emu::kExecLo);
  if (i == emu::kM0) return program::RegSet::kM0;
  if (i < 128) return program::RegSet::kSgpr + i;
  return program::RegSet::kSize;
}
size_t reg_unit_vgpr(unsigned r) { return r < kAccumOffset ? program::RegSet::kVgpr + r : program::RegSet::kAgpr + (r - kAccumOffset); }
bool live(const program::RegSet* lo, size_t unit) { return !lo || (unit < program::RegSet::kSize && lo->bits.test(unit)); }

struct Compared {
  std::vector<unsigned> sgprs, vgprs;
  bool scc = false, memory = false, lds = false, exits = false;
};
// Registers written on any path of either window, restricted to those live at some exit either
// window can take (`lo`: their union; null: every register, window-level equivalence).
Compared compared(const std::vector<Path>& a, const std::vector<Path>& b, const program::RegSet* lo) {
  Compared c;
  std::set<unsigned> s, v;
  std::set<std::string> exits;
  bool scc = false;
  for (const auto* ps : {&a, &b})
    for (const Path& p : *ps) {
      s.insert(p.m.sgprs_written().begin(), p.m.sgprs_written().end());
      v.insert(p.m.vgprs_written().begin(), p.m.vgprs_written().end());
      scc |= p.m.scc_written();
      c.memory |= p.m.space_written(Machine::Global);
      c.lds |= p.m.space_written(Machine::Lds);
      exits.insert(p.exit);
    }
  for (unsigned i : s)
    if (i != emu::kNullSgpr && live(lo, reg_unit_sgpr(i))) c.sgprs.push_back(i);
  for (unsigned r : v)
    if (live(lo, reg_unit_vgpr(r))) c.vgprs.push_back(r);
  c.scc = scc && live(lo, program::RegSet::kScc);
  c.exits = exits.size() > 1;
  return c;
}

std::string reg_name(unsigned s) {
  switch (s) {
    case emu::kVccLo: return "vcc_lo";
    case emu::kVccHi: return "vcc_hi";
    case emu::kExecLo: return "exec_lo";
    case emu::kExecHi: return "exec_hi";
    case emu::kM0: return "m0";
    default: return fmt::format("s{}", s);
  }
}
std::string vreg_name(unsigned r) { return r < kAccumOffset ? fmt::format("v{}", r) : fmt::format("a{}", r - kAccumOffset); }

// The live-in values a model assigns (registers only), as text, and into a concrete wave.
std::string model_text(const z3::model& m, emu::Wave* w, std::vector<LiveInValue>* values = nullptr) {
  std::vector<std::string> parts;
  for (unsigned i = 0; i < m.num_consts(); ++i) {
    z3::func_decl d = m.get_const_decl(i);
    std::string name = d.name().str();
    z3::expr val = m.get_const_interp(d);
    if (name == "scc") {
      bool b = val.is_true();
      if (w) w->scc = b;
      parts.push_back(fmt::format("scc={}", b ? 1 : 0));
      continue;
    }
    if (!val.is_numeral()) continue;
    uint64_t x = val.get_numeral_uint64();
    unsigned reg = 0, lane = 0;
    if (std::sscanf(name.c_str(), "v%u.l%u", &reg, &lane) == 2) {
      if (w && reg < w->num_vregs && lane < emu::kWaveSize) w->v[reg].lane[lane] = static_cast<uint32_t>(x);
      if (values) values->push_back({true, reg, lane, static_cast<uint32_t>(x)});
      parts.push_back(fmt::format("{}[lane {}]=0x{:x}", vreg_name(reg), lane, x));
    } else if (std::sscanf(name.c_str(), "s%u", &reg) == 1 && name == fmt::format("s{}", reg)) {
      if (w && reg < emu::kNumScalarRegs) w->s[reg] = static_cast<uint32_t>(x);
      if (values) values->push_back({false, reg, 0, static_cast<uint32_t>(x)});
      parts.push_back(fmt::format("{}=0x{:x}", reg_name(reg), x));
    }
  }
  std::sort(parts.begin(), parts.end());
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " " : "") + parts[i];
  return s.empty() ? "(any)" : s;
}

// Runs a window with the emulator's own units (branches too) from `start`; the exit it takes ("",
// a label, s_endpgm), or nullopt when a unit stops the run.
std::optional<std::string> run_concrete(const Window& win, emu::Wave& w) {
  emu::ExecContext ctx;
  ctx.kernel = "window";
  try {
    size_t pc = 0;
    while (pc < win.end()) {
      const emu::ExecInst& in = win.insts[pc];
      w.pc = static_cast<uint32_t>(pc + 1);
      in.fn(ctx, w, in);
      if (w.done) return w.wc = {}, std::string(kEndpgm);
      pc = w.pc;  // forward only (decode refuses backward branches), so this ends
    }
    w.wc = {};  // pending loads are not part of a register-only window
    return win.exit_name(pc);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The first compared register (or lane) that differs between two concrete runs, or empty.
std::string concrete_difference(const emu::Wave& a, const emu::Wave& b, const Compared& c, const std::string& exit_a,
                                const std::string& exit_b) {
  auto exit_text = [](const std::string& e) { return e.empty() ? std::string("the window's end") : e; };
  if (exit_a != exit_b) return fmt::format("the exit taken: {} vs {}", exit_text(exit_a), exit_text(exit_b));
  for (unsigned s : c.sgprs)
    if (a.s[s] != b.s[s]) return fmt::format("{}: 0x{:x} vs 0x{:x}", reg_name(s), a.s[s], b.s[s]);
  for (unsigned r : c.vgprs)
    for (unsigned l = 0; l < emu::kWaveSize; ++l)
      if (a.v[r].lane[l] != b.v[r].lane[l]) return fmt::format("{}[lane {}]: 0x{:x} vs 0x{:x}", vreg_name(r), l, a.v[r].lane[l], b.v[r].lane[l]);
  if (c.scc && a.scc != b.scc) return fmt::format("scc: {} vs {}", a.scc ? 1 : 0, b.scc ? 1 : 0);
  return {};
}

// Seeded random live-in states run through both windows with the emulator's own units (windows
// without memory): the first that makes a compared location differ is a real counterexample.
// Used when the solver's state does not reproduce (uninterpreted functions) and when the solver
// gives up (an f32 fma or a 64-lane multiply can take it past its timeout on a difference any
// random state shows).
uint32_t field(uint32_t x, const RegisterFact& f) {
  return f.width >= 32 ? x : (x >> f.lo_bit) & ((1u << f.width) - 1);
}
uint32_t with_field(uint32_t x, const RegisterFact& f, uint32_t v) {
  if (f.width >= 32) return v;
  const uint32_t mask = ((1u << f.width) - 1) << f.lo_bit;
  return (x & ~mask) | ((v << f.lo_bit) & mask);
}
bool holds(uint32_t x, const RegisterFact& f) { return field(x, f) >= f.min && field(x, f) <= f.max; }

// A random live-in state moved inside the launch facts: each fact's field drawn from its range; a
// register whose fields then break one of its other facts (a dword and its halves) takes the
// dword's minimum, an admitted launch's own value.
void obey_facts(emu::Wave& a, const std::vector<RegisterFact>& facts, std::mt19937_64& rng) {
  auto draw = [&](const RegisterFact& f) { return f.min + static_cast<uint32_t>(rng() % (uint64_t{f.max} - f.min + 1)); };
  for (const RegisterFact& f : facts) {
    if (!f.vector) a.s[f.reg] = with_field(a.s[f.reg], f, draw(f));
    else
      for (unsigned l = 0; l < emu::kWaveSize; ++l) a.v[f.reg].lane[l] = with_field(a.v[f.reg].lane[l], f, draw(f));
  }
  for (const RegisterFact& f : facts)
    if (!f.vector && f.width == 32)
      for (const RegisterFact& g : facts)
        if (!g.vector && g.reg == f.reg && !holds(a.s[f.reg], g)) a.s[f.reg] = f.min;
}

// The SGPRs whose whole dword a fact pins to one value (min == max), with the value.
std::vector<std::pair<unsigned, uint32_t>> pinned_sgprs(const std::vector<RegisterFact>& facts) {
  std::vector<std::pair<unsigned, uint32_t>> out;
  for (const RegisterFact& f : facts)
    if (!f.vector && f.lo_bit == 0 && f.width >= 32 && f.min == f.max && f.reg != emu::kNullSgpr) out.emplace_back(f.reg, f.min);
  return out;
}

// The facts as assumptions on the live-in variables (the names Machine gives them).
z3::expr facts_expr(z3::context& c, const std::vector<RegisterFact>& facts) {
  z3::expr all = c.bool_val(true);
  auto bounded = [&](const z3::expr& x, const RegisterFact& f) {
    const z3::expr v = f.width >= 32 ? x : x.extract(f.lo_bit + f.width - 1, f.lo_bit);
    return z3::uge(v, c.bv_val(f.min, f.width)) && z3::ule(v, c.bv_val(f.max, f.width));
  };
  for (const RegisterFact& f : facts) {
    if (!f.vector) all = all && bounded(c.bv_const(fmt::format("s{}", f.reg).c_str(), 32), f);
    else
      for (unsigned l = 0; l < kLanes; ++l) all = all && bounded(c.bv_const(fmt::format("v{}.l{}", f.reg, l).c_str(), 32), f);
  }
  return all;
}

bool random_counterexample(const Window& w0, const Window& w1, const Compared& cmp, const ProofOptions& opt, ProofResult& r) {
  emu::Wave a, b;
  for (emu::Wave* w : {&a, &b}) {
    w->allocate_vregs(kVregs);
    w->accum_offset = kAccumOffset;
    w->mode.bits = opt.mode_bits;
    w->flush_f32 = w->mode.denorm32() == 0;
  }
  std::mt19937_64 rng(0x9e3779b97f4a7c15ull);
  for (unsigned trial = 0; trial < 8; ++trial) {
    for (unsigned i = 0; i < emu::kNumScalarRegs; ++i) a.s[i] = static_cast<uint32_t>(rng());
    a.s[emu::kNullSgpr] = 0;
    a.scc = rng() & 1;
    for (unsigned v = 0; v < kVregs; ++v)
      for (unsigned l = 0; l < emu::kWaveSize; ++l) a.v[v].lane[l] = static_cast<uint32_t>(rng());
    obey_facts(a, opt.facts, rng);
    b.s = a.s, b.scc = a.scc;
    std::memcpy(b.v, a.v, sizeof(emu::VReg) * kVregs);
    const auto s_in = a.s;
    const bool scc_in = a.scc;
    auto e0 = run_concrete(w0, a), e1 = run_concrete(w1, b);
    if (!e0 || !e1) continue;
    std::string diff = concrete_difference(a, b, cmp, *e0, *e1);
    if (diff.empty()) continue;
    r.verdict = Verdict::Disproven;
    r.confirmed = true;
    r.reason = "differs in " + diff + " (random live-in state, seed trial " + std::to_string(trial) + ")";
    r.counterexample = fmt::format("random state #{} of seed 0x9e3779b97f4a7c15 (exec=0x{:x}, scc={})", trial,
                                   (static_cast<uint64_t>(s_in[emu::kExecHi]) << 32) | s_in[emu::kExecLo], scc_in ? 1 : 0);
    return true;
  }
  return false;
}

// Registers live after the window: at its end and at the labels outside it that a branch leaves to.
struct LiveAt {
  const program::RegSet* end = nullptr;  // null: window-level (every register)
  const std::map<std::string, program::RegSet>* labels = nullptr;
};

// `havoc_global`: whether other waves may write global memory across a barrier (Machine::barrier);
// `global_after_barrier` (out): a window accessed global memory after a barrier, so that choice matters.
ProofResult solve(const Window& w0, const Window& w1, const LiveAt& live, const ProofOptions& opt, bool havoc_global,
                  bool* global_after_barrier) {
  ProofResult r;
  z3::context c;
  ContextScope scope(c);
  Machine m0(c), m1(c);
  for (Machine* m : {&m0, &m1}) {
    m->havoc_global = havoc_global;
    m->flush_f32 = ((opt.mode_bits >> 4) & 3) == 0, m->round_mode = opt.mode_bits & 0xf, m->mode_bits = opt.mode_bits;
    m->max_memory_links = opt.max_memory_links;
    if (const LiveInState* ctx = opt.context) {
      for (unsigned i = 0; i < emu::kNumScalarRegs && i < ctx->s.size(); ++i)
        if (i != emu::kNullSgpr && !ctx->free_sgprs.count(i)) m->preset_sgpr(i, ctx->s[i]);
      m->preset_scc(ctx->scc);
      for (unsigned r = 0; r < ctx->v.size() && r < kAccumOffset; ++r) {
        m->preset_vgpr(r, ctx->v[r].data());
        for (unsigned l = 0; l < kLanes; ++l)
          if (ctx->free.count({r, l})) m->free_vgpr_lane(r, l);
      }
    }
  }
  // The facts on live-in variables: all of them, or with a fixed context those on its free SGPRs.
  std::vector<RegisterFact> used_facts;
  for (const RegisterFact& f : opt.facts)
    if (!opt.context || (!f.vector && opt.context->free_sgprs.count(f.reg))) used_facts.push_back(f);
  // An SGPR every admitted launch gives one value is that constant, not a constrained variable, so
  // that the units reading it evaluate (an uninterpreted unit on constants is the emulator's value).
  const std::vector<std::pair<unsigned, uint32_t>> pinned = pinned_sgprs(used_facts);
  for (Machine* m : {&m0, &m1})
    for (auto [reg, v] : pinned) m->preset_sgpr(reg, v);
  std::vector<Path> p0 = run_paths(w0, m0), p1 = run_paths(w1, m1);
  size_t most_barriers = 0;
  for (const auto* ps : {&p0, &p1})
    for (const Path& p : *ps) {
      r.uninterpreted |= p.m.used_uninterpreted;
      most_barriers = std::max(most_barriers, p.m.barrier_memory().size());
      if (global_after_barrier) *global_after_barrier |= p.m.global_after_barrier;
    }
  if (most_barriers) {
    // Both windows must pass the same barriers (docs/prove.md "Barriers"): a barrier added or
    // removed changes how the workgroup synchronises, which this proof does not judge (barrier_elim
    // proves its own removals); UNKNOWN, testing decides.
    auto count_of = [&](const std::vector<Path>& ps) {
      z3::expr e = c.bv_val(ps.back().m.barrier_memory().size(), 16);
      for (size_t i = ps.size() - 1; i-- > 0;) e = z3::ite(ps[i].cond, c.bv_val(ps[i].m.barrier_memory().size(), 16), e);
      return e;
    };
    const z3::expr differ = (count_of(p0) != count_of(p1)).simplify();
    if (!differ.is_false()) {
      z3::solver s(c);
      const bool at_deadline = limit_query(s, opt.timeout_ms * kZ3WorkPerMs, opt);
      s.add(differ);
      s.add(facts_expr(c, used_facts));
      if (const z3::check_result res = s.check(); res != z3::unsat) {
        r.verdict = Verdict::Unknown;
        r.reason = res == z3::sat ? "the windows pass different numbers of s_barrier (a barrier added or removed: not a window "
                                    "proof's to judge; barrier_elim proves its own removals)"
                                  : "solver gave up on the number of s_barrier passed (" + gave_up_reason(s, opt.timeout_ms, at_deadline) + ")";
        return r;
      }
    }
  }
  // Registers live at the exits the windows take: the window's end, a label outside it, s_endpgm
  // (nothing but memory); an exit whose live set is not given counts every register live.
  std::optional<program::RegSet> live_union;
  if (live.end) {
    live_union.emplace();
    for (const auto* ps : {&p0, &p1})
      for (const Path& p : *ps) {
        if (!live_union) break;
        if (p.exit.empty()) live_union->bits |= live.end->bits;
        else if (p.exit == kEndpgm) continue;
        else if (auto it = live.labels ? live.labels->find(p.exit) : decltype(live.labels->end()){}; live.labels && it != live.labels->end())
          live_union->bits |= it->second.bits;
        else live_union.reset();
      }
  }
  Compared cmp = compared(p0, p1, live_union ? &*live_union : nullptr);
  const bool branches = p0.size() > 1 || p1.size() > 1;
  r.paths = p0.size() + p1.size();

  // One disjunct per compared location; the labels name what differs in a model.
  struct Diff {
    std::string what;
    z3::expr e;
  };
  std::vector<Diff> diffs;
  std::map<std::string, unsigned> exit_id;
  for (const auto* ps : {&p0, &p1})
    for (const Path& p : *ps) exit_id.emplace(p.exit, static_cast<unsigned>(exit_id.size()));
  if (cmp.exits || p0.front().exit != p1.front().exit) {
    auto exit_of = [&](const std::vector<Path>& ps) {
      z3::expr e = c.bv_val(exit_id.at(ps.back().exit), 16);
      for (size_t i = ps.size() - 1; i-- > 0;) e = z3::ite(ps[i].cond, c.bv_val(exit_id.at(ps[i].exit), 16), e);
      return e;
    };
    diffs.push_back({"the exit taken", exit_of(p0) != exit_of(p1)});
  }
  auto sgpr_of = [&](std::vector<Path>& ps, unsigned i) { return merged(ps, [&](Machine& m) { return m.sgpr(i); }); };
  for (unsigned s : cmp.sgprs) {
    const z3::expr a = sgpr_of(p0, s), b = sgpr_of(p1, s);
    if (!r.uninterpreted) {
      diffs.push_back({reg_name(s), a != b});
      continue;
    }
    // With float (or uninterpreted) units a mask SGPR holds one lane's result per bit: one query
    // per bit bit-blasts one lane's float operation, where one per register blasts 32 at once.
    for (unsigned bit = 0; bit < 32; ++bit)
      diffs.push_back({fmt::format("{} bit {}", reg_name(s), bit), a.extract(bit, bit) != b.extract(bit, bit)});
  }
  for (unsigned v : cmp.vgprs)
    for (unsigned l = 0; l < kLanes; ++l)
      diffs.push_back({fmt::format("{}[lane {}]", vreg_name(v), l),
                       merged(p0, [&](Machine& m) { return m.vgpr(v, l); }) != merged(p1, [&](Machine& m) { return m.vgpr(v, l); })});
  if (cmp.scc) diffs.push_back({"scc", merged(p0, [](Machine& m) { return m.scc(); }) != merged(p1, [](Machine& m) { return m.scc(); })});
  // The memory at each barrier, as this wave leaves it for the others (Machine::barrier): a store
  // moved across a barrier differs there.
  for (size_t k = 0; k < most_barriers; ++k)
    for (auto [space, name] : {std::pair{Machine::Global, "global memory"}, std::pair{Machine::Lds, "LDS"}}) {
      auto at_barrier = [&](Machine& m) {
        return k < m.barrier_memory().size() ? m.barrier_memory()[k][space] : c.bv_val(0, 8);
      };
      diffs.push_back({fmt::format("{} at s_barrier #{}", name, k + 1), merged(p0, at_barrier) != merged(p1, at_barrier)});
    }
  // Final memory, compared at one symbolic address per space (extensionality made explicit: the
  // selects become chains of address comparisons, which bit-blast far better than array disequality).
  for (auto [written, space, name] : {std::tuple{cmp.memory, Machine::Global, "global memory"}, std::tuple{cmp.lds, Machine::Lds, "LDS"}}) {
    if (!written) continue;
    z3::expr at = m0.compared_address(space);
    diffs.push_back({name, merged(p0, [&](Machine& m) { return m.load_byte(at, space); }) != merged(p1, [&](Machine& m) { return m.load_byte(at, space); })});
  }
  const std::string compared_text =
      fmt::format("{} SGPR(s), {} VGPR(s) x 64 lanes{}{}{} compared{}", cmp.sgprs.size(), cmp.vgprs.size(), cmp.scc ? ", SCC" : "",
                  cmp.memory ? ", memory" : "", cmp.lds ? ", LDS" : "",
                  branches ? fmt::format(" over {} + {} path(s), {} exit(s)", p0.size(), p1.size(), exit_id.size()) : "");
  std::vector<Diff> live_diffs;
  for (Diff& d : diffs) {
    z3::expr e = d.e.simplify();
    if (!e.is_false()) live_diffs.push_back({d.what, e});
  }
  if (live_diffs.empty()) {
    r.verdict = Verdict::Proven;
    r.reason = compared_text + " (equal by simplification)";
    return r;
  }
  bool memory = false;
  for (const auto* ps : {&p0, &p1})
    for (const Path& p : *ps) memory |= p.m.touched_memory;
  // Float cones cost the solver seconds per lane (a bit-blasted f32 fma: more than its timeout)
  // where a random state shows most differences at once: with float or uninterpreted units and no
  // memory, the random states run first (a difference they show is confirmed by the emulator's
  // units; when they show none, the solver decides as before).
  if (r.uninterpreted && !memory && !opt.context && random_counterexample(w0, w1, cmp, opt, r)) return r;
  // One query per location (a register, one lane of a VGPR, memory): each bit-blasts only its own
  // cone, where one query over the disjunction would bit-blast every lane's multiplier at once.
  std::optional<z3::model> found;
  std::string what, unknown_what;
  // The budget counts solver work, as each query's limit does (ProofOptions): deterministic. The
  // wall-clock backstop bounds the whole proof the same way.
  const uint64_t budget_work = uint64_t{opt.budget_ms} * kZ3WorkPerMs, query_work = uint64_t{opt.timeout_ms} * kZ3WorkPerMs;
  uint64_t work_start = 0;
  {
    z3::solver probe(c);
    work_start = work_count(probe);
  }
  const auto queries_start = Clock::now();
  for (const Diff& d : live_diffs) {
    const uint64_t spent = opt.work_spent + r.solver_work;
    if (budget_spent(opt, r.solver_work, std::chrono::duration<double, std::milli>(Clock::now() - queries_start).count())) {
      if (unknown_what.empty())
        unknown_what = spent >= budget_work ? fmt::format("{} (proof budget of {} units, about {} ms of one core, spent)", d.what, budget_work, opt.budget_ms)
                                            : fmt::format("{} (proof's wall-clock backstop of {:.0f} ms spent: the machine was slow or loaded, "
                                                          "this verdict may differ elsewhere)", d.what, backstop_ms(opt.budget_ms));
      break;
    }
    if (past_deadline(opt)) {
      if (unknown_what.empty()) unknown_what = fmt::format("{} ({})", d.what, kDeadlineText);
      break;
    }
    z3::solver s(c);
    const bool at_deadline = limit_query(s, std::min(query_work, budget_work - spent) + 1, opt);
    s.add(d.e);
    if (!used_facts.empty()) s.add(facts_expr(c, used_facts));
    z3::check_result res = s.check();
    r.solver_work = work_count(s) - work_start;
    if (res == z3::sat) {
      found.emplace(s.get_model());
      what = d.what;
      break;
    }
    if (res == z3::unknown && unknown_what.empty()) unknown_what = d.what + ": " + gave_up_reason(s, opt.timeout_ms, at_deadline);
  }
  if (!found) {
    if (!unknown_what.empty()) {
      if (!memory && !opt.context && random_counterexample(w0, w1, cmp, opt, r)) {
        r.reason += fmt::format(" (the solver gave up on {})", unknown_what);
        return r;
      }
      r.verdict = Verdict::Unknown;
      r.reason = fmt::format("solver gave up on {} (limit per query: {} units, about {} ms of one core)", unknown_what, query_work, opt.timeout_ms);
      return r;
    }
    r.verdict = Verdict::Proven;
    r.reason = compared_text;
    return r;
  }
  const z3::model& model = *found;
  if (!memory) {
    emu::Wave a;
    a.allocate_vregs(kVregs);
    a.accum_offset = kAccumOffset;
    a.mode.bits = opt.mode_bits;
    a.flush_f32 = a.mode.denorm32() == 0;
    if (const LiveInState* ctx = opt.context) {  // the fixed registers are numerals, not in the model
      for (unsigned i = 0; i < emu::kNumScalarRegs && i < ctx->s.size(); ++i) a.s[i] = ctx->s[i];
      a.s[emu::kNullSgpr] = 0;
      a.scc = ctx->scc;
      for (unsigned v = 0; v < ctx->v.size() && v < kAccumOffset; ++v) std::memcpy(a.v[v].lane, ctx->v[v].data(), sizeof(uint32_t) * kLanes);
    }
    for (auto [reg, v] : pinned) a.s[reg] = v;  // presets, not in the model
    r.counterexample = model_text(model, &a, &r.live_in);
    emu::Wave b;
    b.allocate_vregs(kVregs);
    b.accum_offset = kAccumOffset;
    b.s = a.s, b.scc = a.scc, b.mode = a.mode, b.flush_f32 = a.flush_f32;
    std::memcpy(b.v, a.v, sizeof(emu::VReg) * kVregs);
    if (auto e0 = run_concrete(w0, a), e1 = run_concrete(w1, b); e0 && e1) {
      std::string diff = concrete_difference(a, b, cmp, *e0, *e1);
      if (!diff.empty()) {
        r.verdict = Verdict::Disproven;
        r.confirmed = true;
        r.reason = "differs in " + diff;
        return r;
      }
    }
    // The solver's state relied on the uninterpreted functions being free; random states run
    // concretely may still show a real difference.
    if (r.uninterpreted && !opt.context && random_counterexample(w0, w1, cmp, opt, r)) return r;
    r.verdict = Verdict::Unknown;
    r.reason = r.uninterpreted ? "differs in " + what + " only through uninterpreted functions (not reproduced concretely)"
                               : "internal: the solver's counterexample (" + what + ") did not reproduce concretely";
    return r;
  }
  r.counterexample = model_text(model, nullptr, &r.live_in);
  if (r.uninterpreted) {
    r.verdict = Verdict::Unknown;
    r.reason = "differs in " + what + " only if uninterpreted functions are free (a window with memory is not re-run concretely)";
    return r;
  }
  r.verdict = Verdict::Disproven;
  r.reason = "differs in " + what;
  return r;
}

}  // namespace

ProofResult prove_window(const std::vector<std::string>& old_lines, const std::vector<std::string>& new_lines,
                         const program::RegSet* live_out, const ProofOptions& options,
                         const std::map<std::string, program::RegSet>* live_at_labels) {
  auto t = Clock::now();
  ProofResult r;
  if (past_deadline(options)) {  // an earlier step or attempt of the same proof spent the time
    r.reason = std::string(kDeadlineText) + " before this window was built";
    return r;
  }
  try {
    Window w0 = decode(old_lines), w1 = decode(new_lines);
    bool global_after_barrier = false;
    r = solve(w0, w1, LiveAt{live_out, live_at_labels}, options, /*havoc_global=*/true, &global_after_barrier);
    if (global_after_barrier && r.verdict == Verdict::Disproven) {
      // The difference may rest on another wave writing global memory between barriers, which
      // most kernels never do (their inputs are read-only): DISPROVEN only if it remains when
      // no other wave writes global memory; otherwise testing decides.
      ProofResult quiet = solve(w0, w1, LiveAt{live_out, live_at_labels}, options, /*havoc_global=*/false, nullptr);
      if (quiet.verdict == Verdict::Disproven) {
        r = std::move(quiet);
        r.reason += " (also when no other wave writes global memory between the barriers)";
      } else {
        r.verdict = Verdict::Unknown;
        r.reason = fmt::format("{} only if another wave of the workgroup writes that global memory between the barriers (a global "
                               "access moved across s_barrier; with none writing it: {})",
                               r.reason, verdict_name(quiet.verdict));
      }
    }
  } catch (const Unsupported& u) {
    r.verdict = Verdict::Unknown;
    r.reason = "unsupported: " + u.what;
  } catch (const z3::exception& e) {
    r.verdict = Verdict::Unknown;
    r.reason = std::string("solver error: ") + e.msg();
  }
  r.old_insts = std::count_if(old_lines.begin(), old_lines.end(), [](const std::string& l) { return !is_label(l); });
  r.new_insts = std::count_if(new_lines.begin(), new_lines.end(), [](const std::string& l) { return !is_label(l); });
  for (const RegisterFact& f : options.facts)
    if (!options.context || (!f.vector && options.context->free_sgprs.count(f.reg))) r.facts.push_back(fact_text(f));
  r.seconds = std::chrono::duration<double>(Clock::now() - t).count();
  return r;
}

ProofResult prove_edit(const program::Program& parent, const std::string& kernel, const std::vector<Change>& changes,
                       const ProofOptions& options, bool use_liveness) {
  ProofResult unknown;
  unknown.verdict = Verdict::Unknown;
  if (changes.empty()) return unknown.reason = "empty edit", unknown;
  size_t first = changes[0].first, end = changes[0].first + changes[0].count;
  for (const Change& ch : changes) first = std::min(first, ch.first), end = std::max(end, ch.first + ch.count);
  unknown.first_line = first, unknown.last_line = end;
  const program::Function* f = parent.function(kernel);
  if (!f) return unknown.reason = "no function " + kernel, unknown;
  // The window's blocks: it may span several, but only as a region entered at its first line: a
  // block starting inside it must be reached only from inside it (the same lines after a jump from
  // outside would run without the window's earlier lines). Branches inside are followed forward.
  auto block_of = [&](size_t line) -> const program::BasicBlock* {
    for (const program::BasicBlock& b : f->blocks)
      if (line >= b.first && line <= b.last) return &b;
    return nullptr;
  };
  const program::BasicBlock* block = nullptr;  // the block the window ends in
  for (const program::BasicBlock& b : f->blocks)
    if (first >= b.first && (end == first ? first <= b.last + 1 : end - 1 <= b.last)) block = &b;
  if (!block) {
    if (first < f->begin || end > f->end) return unknown.reason = "the edit lies outside the kernel's code", unknown;
    for (const program::BasicBlock& b : f->blocks) {
      if (b.first <= first || b.first >= end) continue;
      for (size_t pred : b.preds) {
        const program::BasicBlock& p = f->blocks.at(pred);
        if (p.last < first || p.last >= end)
          return unknown.reason = fmt::format("the edit spans blocks and the block at line {} is also entered from outside the window", b.first),
                 unknown;
      }
    }
    block = block_of(end - 1);
  }
  if (options.extend_to_block_end && block) {
    // On to the block's end: the lines after the edit are the same in both windows; stop before
    // the branch or the first line the prover does not model.
    while (end <= block->last && end < f->end) {
      const program::Line& l = parent.text_line(end);
      if (l.is_instruction() && !models_line(l.text)) break;
      ++end;
    }
  }
  // Labels right after the window belong to its end (a branch to them is the fall-through exit).
  size_t window_end = end;
  while (window_end < f->end && parent.text_line(window_end).kind != program::Line::Instr &&
         parent.text_line(window_end).kind != program::Line::RawInstr)
    ++window_end;
  auto window_line = [&](size_t i, std::vector<std::string>& out) {
    const program::Line& l = parent.text_line(i);
    if (l.is_instruction()) out.push_back(l.text);
    else if (l.kind == program::Line::Label) out.push_back(l.text + ":");
  };
  std::vector<std::string> old_lines, new_lines;
  for (size_t i = first; i < window_end; ++i) window_line(i, old_lines);
  // New window: the old lines with every change applied (changes are disjoint).
  std::vector<const Change*> sorted;
  for (const Change& ch : changes) sorted.push_back(&ch);
  std::sort(sorted.begin(), sorted.end(), [](const Change* a, const Change* b) { return a->first < b->first; });
  size_t at = first;
  for (const Change* ch : sorted) {
    for (; at < ch->first; ++at) window_line(at, new_lines);
    new_lines.insert(new_lines.end(), ch->lines.begin(), ch->lines.end());
    at = ch->first + ch->count;
  }
  for (; at < window_end; ++at) window_line(at, new_lines);
  std::optional<program::RegSet> live_after;
  std::map<std::string, program::RegSet> live_at_labels;
  if (use_liveness) {
    // Registers live after the window: live-in of the first line after it (the code after is the
    // same in both); at the end of the function nothing but memory is observable.
    // Labels and directives have no live-in entry of their own: take the next instruction's (a
    // window that ends its block falls through into the next one, its only successor).
    std::vector<program::RegSet> live = parent.live_in(*f, /*vector_writes_kill=*/false);
    size_t next = end;
    while (next < f->end && parent.text_line(next).kind != program::Line::Instr && parent.text_line(next).kind != program::Line::RawInstr) ++next;
    live_after = next < f->end ? live[next - f->begin] : program::RegSet{};
    // At each label of the function: the live-in of its first instruction (exits of the window).
    for (size_t i = f->begin; i < f->end; ++i) {
      if (parent.text_line(i).kind != program::Line::Label) continue;
      size_t j = i;
      while (j < f->end && parent.text_line(j).kind != program::Line::Instr && parent.text_line(j).kind != program::Line::RawInstr) ++j;
      live_at_labels[parent.text_line(i).text] = j < f->end ? live[j - f->begin] : program::RegSet{};
    }
  }
  ProofOptions opt = options;
  if (options.launch) opt.facts = launch_facts(parent, kernel, first, *options.launch);
  ProofResult r = prove_window(old_lines, new_lines, live_after ? &*live_after : nullptr, opt, use_liveness ? &live_at_labels : nullptr);
  r.first_line = first, r.last_line = end;
  // The facts name registers as loaded or as at entry; a register the block derives from them
  // before the window (s12 = s2 & 0xffff) is free in the window. Not PROVEN: prove again with the
  // window started earlier in its block, over the same lines in both, back to the first memory
  // access, barrier or unmodeled line (a load inside the window would read symbolic memory, not the
  // fact), with the facts that hold there. Only a PROVEN replaces the first result.
  // The retry spends what the first attempt left of the proof's budget: one edit's proof stays
  // within budget_ms (a window whose memory queries time out would otherwise take twice as long).
  if (options.launch && !options.context && r.verdict != Verdict::Proven && !budget_spent(options, r.solver_work, 1000 * r.seconds) &&
      !past_deadline(options)) {
    const program::BasicBlock* fb = block_of(first);
    auto memory_or_barrier = [](const std::string& t) {
      static const char* const kPrefixes[] = {"s_load", "s_buffer", "s_store", "s_dcache", "s_barrier", "global_", "flat_",
                                              "buffer_", "ds_", "scratch_", "s_sendmsg"};
      for (const char* p : kPrefixes)
        if (t.rfind(p, 0) == 0) return true;
      return false;
    };
    size_t start = first;
    while (fb && start > fb->first) {
      const program::Line& l = parent.text_line(start - 1);
      if (l.kind == program::Line::Label) break;
      if (l.is_instruction() && (!models_line(l.text) || memory_or_barrier(l.text))) break;
      --start;
    }
    if (start < first) {
      std::vector<std::string> prefix;
      for (size_t i = start; i < first; ++i) window_line(i, prefix);
      std::vector<std::string> old_ext = prefix, new_ext = prefix;
      old_ext.insert(old_ext.end(), old_lines.begin(), old_lines.end());
      new_ext.insert(new_ext.end(), new_lines.begin(), new_lines.end());
      ProofOptions back = options;
      back.work_spent = options.work_spent + r.solver_work;
      back.wall_spent_ms = options.wall_spent_ms + 1000 * r.seconds;
      back.facts = launch_facts(parent, kernel, start, *options.launch);
      ProofResult e = prove_window(old_ext, new_ext, live_after ? &*live_after : nullptr, back, use_liveness ? &live_at_labels : nullptr);
      if (e.verdict == Verdict::Proven) {
        e.reason += fmt::format(" (window started {} line(s) earlier, at line {}, where the launch facts hold; at the edit: {})",
                                first - start, start, verdict_name(r.verdict));
        e.seconds += r.seconds;
        e.solver_work += r.solver_work;
        e.first_line = start, e.last_line = end;
        return e;
      }
    }
  }
  return r;
}

bool models_line(const std::string& line) {
  try {
    Window w = decode({line});
    return supported(w.insts[0]);
  } catch (const Unsupported&) {
    return false;
  }
}

std::string disagreement(const std::string& line, uint64_t seed, unsigned trials) {
  Window w;
  try {
    w = decode({line});
  } catch (const Unsupported& u) {
    throw Error("cannot model " + line + ": " + u.what, "prove", "");
  }
  std::mt19937_64 rng(seed);
  for (unsigned t = 0; t < trials; ++t) {
    z3::context c;
    ContextScope scope(c);
    Machine m(c);
    emu::Wave a;
    a.allocate_vregs(kVregs);
    a.accum_offset = kAccumOffset;
    // Every other trial with MODE's f32 denormal flush (FP_DENORM 0), the others keeping denormals.
    a.mode.bits = t % 2 ? 0x0u : 0xf0u;
    a.flush_f32 = m.flush_f32 = a.mode.denorm32() == 0;
    m.mode_bits = a.mode.bits;
    // Random live-in values, biased towards the edges (0, all-ones, sign bits) where semantics differ.
    // Float edges too: ±0, ±1, ±Inf, quiet and signaling NaNs, denormals, 2^31 (the conversions' saturation).
    static constexpr uint32_t kFloatEdges[] = {0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u,
                                               0x7f800001u, 0x00000001u, 0x807fffffu, 0x4f000000u, 0xcf000000u, 0x3f000000u};
    auto value = [&]() -> uint32_t {
      switch (rng() % 10) {
        case 0: return 0;
        case 1: return 0xffffffffu;
        case 2: return 0x80000000u;
        case 3: return static_cast<uint32_t>(rng() % 64);
        case 4: return kFloatEdges[rng() % std::size(kFloatEdges)];
        default: return static_cast<uint32_t>(rng());
      }
    };
    for (unsigned i = 0; i < emu::kNumScalarRegs; ++i)
      if (i != emu::kNullSgpr) m.preset_sgpr(i, a.s[i] = value());
    a.scc = rng() & 1;
    m.preset_scc(a.scc);
    for (unsigned r = 0; r < 48; ++r) {
      for (unsigned l = 0; l < kLanes; ++l) a.v[r].lane[l] = value();
      m.preset_vgpr(r, a.v[r].lane);
    }
    if (followed_branch(w.raw[0].mnemonic)) {
      // A branch: the prover's condition against the emulator's unit (taken = it leaves to the label).
      const std::optional<z3::expr> cond = branch_condition(m, w.insts[0]);
      const std::optional<std::string> exit = run_concrete(w, a);
      if (!cond || !exit) return "the branch is not followed by one of the two";
      const z3::expr taken = cond->simplify();
      if (!taken.is_true() && !taken.is_false()) return fmt::format("trial {}: the condition is not a constant term", t);
      if (taken.is_true() != !exit->empty())
        return fmt::format("trial {}: prover {}, emulator {}", t, taken.is_true() ? "taken" : "not taken", exit->empty() ? "not taken" : "taken");
      continue;
    }
    try {
      step(m, w.insts[0]);
    } catch (const Unsupported& u) {
      throw Error("cannot model " + line + ": " + u.what, "prove", "");
    }
    if (!run_concrete(w, a)) return "the concrete unit stopped";
    auto number = [](const z3::expr& e, uint64_t& out) {
      z3::expr x = e.simplify();
      if (!x.is_numeral()) return false;
      out = x.get_numeral_uint64();
      return true;
    };
    // A term left open by an uninterpreted choice (NaN bits, fmin/fmax of two NaNs) agrees when
    // it admits the emulator's value.
    std::optional<z3::solver> solver;
    auto admits = [&](const z3::expr& e, uint32_t v) {
      const std::string text = e.to_string();
      if (text.find("nan.") == std::string::npos) return false;  // nan.*, snan.*
      if (!solver) solver.emplace(c);
      solver->push();
      solver->add(e == c.bv_val(v, 32));
      const bool ok = solver->check() == z3::sat;
      solver->pop();
      return ok;
    };
    uint64_t got = 0;
    for (unsigned i : m.sgprs_written()) {
      if (!number(m.sgpr(i), got)) {
        if (admits(m.sgpr(i).simplify(), a.s[i])) continue;
        return fmt::format("trial {}: {} is not a constant term", t, reg_name(i));
      }
      if (got != a.s[i]) return fmt::format("trial {}: {}: terms 0x{:x}, emulator 0x{:x}", t, reg_name(i), got, a.s[i]);
    }
    for (unsigned r : m.vgprs_written())
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!number(m.vgpr(r, l), got)) {
          if (admits(m.vgpr(r, l).simplify(), a.v[r].lane[l])) continue;
          return fmt::format("trial {}: {}[lane {}] is not a constant term (emulator 0x{:x}): {}", t, vreg_name(r), l, a.v[r].lane[l],
                             m.vgpr(r, l).simplify().to_string().substr(0, 300));
        }
        if (got != a.v[r].lane[l]) return fmt::format("trial {}: {}[lane {}]: terms 0x{:x}, emulator 0x{:x}", t, vreg_name(r), l, got, a.v[r].lane[l]);
      }
    if (m.scc_written() && m.scc().simplify().is_true() != a.scc)
      return fmt::format("trial {}: scc: terms {}, emulator {}", t, m.scc().simplify().is_true(), a.scc);
  }
  return {};
}

}  // namespace asmevo::prove
