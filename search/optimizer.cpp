#include "search/optimizer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>

#include "rebuild/roundtrip.h"
#include "emu/program.h"
#include "search/cascade.h"
#include "search/move.h"
#include "search/steps.h"
#include "support/error.h"
#include "timing/profile.h"

namespace asmevo::search {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Hot windows of an individual as .text line ranges of its recovered program.
std::vector<Window> windows_of(const Individual& ind, const std::string& kernel, const OptimizeOptions& o) {
  std::vector<Window> out;
  const auto& prog = *ind.timed->program;
  for (const timing::HotWindow& h : timing::hot_windows(prog, ind.timed->model, o.window_length, o.windows)) {
    const uint64_t a = prog.insts()[h.first].address - emu::kCodeBase, b = prog.insts()[h.last].address - emu::kCodeBase;
    try {
      Window w;
      w.first = ind.program->line_of_address(a);
      w.last = ind.program->line_of_address(b);
      w.share = h.share;
      w.id = fmt::format("{}@0x{:x}", kernel, a);
      out.push_back(w);
    } catch (const Error&) {
      // Code outside this program's .text lines (cannot happen for kernels recovered from the same
      // object); such a window is skipped.
    }
  }
  return out;
}

std::string window_listing(const program::Program& p, const Window& w) {
  std::string s;
  for (size_t i = w.first; i <= w.last; ++i) s += p.text_line(i).text + "\n";
  return s;
}

struct Member {
  Individual ind;
  std::vector<Window> windows;
  std::set<std::string> tried;           // edit JSON already evaluated from this parent
  std::vector<std::pair<size_t, size_t>> rule_queue;  // (window, move) pairs of rule moves not yet proposed
};

class KernelSearch {
 public:
  KernelSearch(Cascade& cascade, Store& store, const KernelRecord& kr, int64_t run, const OptimizeOptions& o,
               const Progress& progress, Clock::time_point run_start)
      : cascade_(cascade), store_(store), kr_(kr), run_(run), o_(o), progress_(progress), run_start_(run_start),
        rng_(o.seed ^ std::hash<std::string>{}(kr.kernel)) {
    const MoveFilter filter = MoveFilter::parse(o.moves);
    for (const std::string& p : o.proposers) {
      if (p == "llm") {
        if (!o.make_llm) throw Error("the llm proposer needs an endpoint", "--proposers", "pass --llm-url and --llm-model, or leave llm out");
        llm_ = o.make_llm(kr.kernel);
        continue;
      }
      for (auto& m : make_moves(p))
        if (filter.allows(*m)) (p == "rules" ? rules_ : stochastic_).push_back(std::move(m));
    }
  }

  Member& add_member(Individual ind) {
    auto m = std::make_unique<Member>();
    m->ind = std::move(ind);
    m->windows = windows_of(m->ind, kr_.kernel, o_);
    for (size_t w = 0; w < m->windows.size(); ++w)
      for (size_t r = 0; r < rules_.size(); ++r) m->rule_queue.push_back({w, r});
    std::reverse(m->rule_queue.begin(), m->rule_queue.end());  // pop_back takes the hottest window first
    // Moves that say this kernel is theirs (Move::leads) go first, on the hottest window.
    if (!m->windows.empty())
      for (size_t r = 0; r < rules_.size(); ++r) {
        MoveContext c{*m->ind.program, kr_.kernel, m->windows[0], rng_, 8, &cascade_.perf_runs()};
        std::string why;
        try {
          why = rules_[r]->leads(c);
        } catch (const Error&) {
          // A move that cannot judge this kernel keeps its place in the queue.
        }
        if (why.empty()) continue;
        auto at = std::find(m->rule_queue.begin(), m->rule_queue.end(), std::pair<size_t, size_t>{0, r});
        if (at == m->rule_queue.end()) continue;
        m->rule_queue.erase(at);
        m->rule_queue.push_back({0, r});
        if (progress_.log) progress_.log(fmt::format("{}: {} goes first: {}", kr_.kernel, rules_[r]->name(), why));
      }
    for (const std::string& e : store_.tried_edits(kr_.id, m->ind.id ? std::optional<int64_t>(m->ind.id) : std::nullopt))
      m->tried.insert(e);
    std::vector<std::string> ids, listings;
    std::vector<std::pair<size_t, size_t>> lines;
    std::vector<double> shares, cycles;
    for (size_t i = 0; i < m->windows.size(); ++i) {
      ids.push_back(m->windows[i].id);
      lines.push_back({m->windows[i].first, m->windows[i].last});
      shares.push_back(m->windows[i].share);
      cycles.push_back(m->windows[i].share * m->ind.cycles);
      listings.push_back(window_listing(*m->ind.program, m->windows[i]));
    }
    store_.add_windows(kr_.id, m->ind.id ? std::optional<int64_t>(m->ind.id) : std::nullopt, ids, lines, shares, cycles, listings);
    members_.push_back(std::move(m));
    Member& added = *members_.back();
    if (!best_ || added.ind.cycles < best_->ind.cycles) best_ = &added;
    return added;
  }

  // Returns the number of candidates this run evaluated.
  size_t search(KernelOutcome& out) {
    size_t idle_rounds = 0;
    size_t round = 0;
    while (budget_left() && time_left()) {
      ++round;
      if (llm_ && (round % std::max(1u, o_.llm_share) == 0 || (rules_.empty() && stochastic_.empty()))) {
        AgentTurn t = turn();
        if (!llm_->turn(t)) {
          if (progress_.log) progress_.log(fmt::format("{}: the {} proposer has finished", kr_.kernel, llm_->name()));
          llm_.reset();
        }
        if (rules_.empty() && stochastic_.empty() && !llm_) break;
        continue;
      }
      if (rules_.empty() && stochastic_.empty()) break;
      Member& parent = choose_parent();
      std::vector<Edit> edits;
      std::string window_id;
      if (!parent.rule_queue.empty()) {
        auto [w, r] = parent.rule_queue.back();
        parent.rule_queue.pop_back();
        edits = propose(*rules_[r], parent, parent.windows[w], 8);
        window_id = parent.windows[w].id;
      } else if (!stochastic_.empty() && !parent.windows.empty()) {
        const Window& w = pick_window(parent);
        Move& m = pick_stochastic();
        edits = propose(m, parent, w, 2);
        window_id = w.id;
      } else if (exhausted_all()) {
        if (progress_.log) progress_.log(fmt::format("{}: every rule move was tried on every hot window; stopping early", kr_.kernel));
        break;
      }
      bool any = false;
      for (Edit& e : edits) {
        if (!budget_left() || !time_left()) break;
        std::string key = e.to_json().dump();
        if (!parent.tried.insert(key).second) continue;
        any = true;
        ++evaluated_;
        Edit proposed = e;
        const Evaluation ev = evaluate(parent, std::move(e), window_id, out, "");
        report_status(window_id, done_before_ + evaluated_, evaluated_, start_);
        if (!ev.accepted && (ev.stage == "timing" || ev.stage == "robust")) try_follow_ups(parent, proposed, window_id, out);
      }
      idle_rounds = any ? 0 : idle_rounds + 1;
      if (idle_rounds > 200) {
        if (progress_.log) progress_.log(fmt::format("{}: the proposers found nothing new in 200 rounds; stopping early", kr_.kernel));
        break;
      }
    }
    end(out);
    return evaluated_;
  }

  // Counting starts (before search() or turn()): candidates of earlier runs count against the budget.
  void begin(KernelOutcome& out) {
    out_ = &out;
    done_before_ = store_.candidate_count(kr_.id);
    evaluated_ = 0;
    out.candidates = done_before_;
    start_ = Clock::now();
  }
  void end(KernelOutcome& out) const {
    out.candidates = done_before_ + evaluated_;
    out.candidates_this_run = evaluated_;
  }
  bool budget_left() const { return o_.budget == 0 || done_before_ + evaluated_ < o_.budget; }
  bool time_left() const {
    return (o_.time_limit_s <= 0 || since(run_start_) < o_.time_limit_s) && (o_.kernel_time_s <= 0 || since(start_) < o_.kernel_time_s);
  }

  // What an interactive proposer sees and may do now (begin() first).
  AgentTurn turn() {
    AgentTurn t;
    t.kernel = kr_.kernel;
    t.kernel_id = kr_.id;
    t.run = run_;
    t.baseline_cycles = kr_.baseline_cycles;
    t.budget_left = !time_left() ? 0 : o_.budget ? o_.budget - std::min(o_.budget, done_before_ + evaluated_) : SIZE_MAX;
    t.cascade = &cascade_;
    t.store = &store_;
    t.best = [this]() -> const Individual& { return best_->ind; };
    t.windows = [this]() -> const std::vector<Window>& { return best_->windows; };
    t.evaluate = [this](const Edit& e, const std::string& window, const std::string& transcript) {
      ++evaluated_;
      Member& parent = *best_;
      parent.tried.insert(e.to_json().dump());
      Evaluation ev = evaluate(parent, e, window, *out_, transcript);
      report_status(window, done_before_ + evaluated_, evaluated_, start_);
      return ev;
    };
    return t;
  }

  void report_status(const std::string& window_id, size_t tried, size_t evaluated, Clock::time_point start) {
    if (!progress_.status) return;
    ProgressStatus s;
    s.kernel = kr_.kernel;
    s.window = window_id;
    s.move = last_move_;
    s.tried = tried;
    s.verified = verified_;
    s.accepted = accepted_;
    s.budget = o_.budget;
    s.best_speedup = kr_.baseline_cycles / best_->ind.cycles;
    double el = since(start);
    s.rate = el > 0 ? evaluated / el : 0;
    s.eta_s = (o_.budget && s.rate > 0) ? (o_.budget - tried) / s.rate : -1;
    progress_.status(s);
  }

  const Member& best() const { return *best_; }
  Store& store() { return store_; }
  std::vector<const Member*> by_cycles() const {
    std::vector<const Member*> v;
    for (const auto& m : members_) v.push_back(m.get());
    std::sort(v.begin(), v.end(), [](const Member* a, const Member* b) { return a->ind.cycles < b->ind.cycles; });
    return v;
  }

 private:
  bool exhausted_all() const {
    for (const auto& m : members_)
      if (!m->rule_queue.empty()) return false;
    return true;
  }

  Member& choose_parent() {
    // The best has work left: it is the parent most of the time. Otherwise an elite with rule
    // work left, else a random elite (diversity for the stochastic moves).
    if (!best_->rule_queue.empty() || members_.size() == 1 || (rng_() % 100) < 70) {
      if (!best_->rule_queue.empty() || stochastic_.size()) return *best_;
    }
    for (auto& m : members_)
      if (!m->rule_queue.empty()) return *m;
    return *members_[rng_() % members_.size()];
  }

  Move& pick_stochastic() {
    double total = 0;
    for (const auto& m : stochastic_) total += m->weight();
    double x = std::uniform_real_distribution<double>(0, total)(rng_);
    for (const auto& m : stochastic_) {
      x -= m->weight();
      if (x <= 0) return *m;
    }
    return *stochastic_.back();
  }

  const Window& pick_window(const Member& m) {
    double total = 0;
    for (const Window& w : m.windows) total += std::max(w.share, 0.01);
    double x = std::uniform_real_distribution<double>(0, total)(rng_);
    for (const Window& w : m.windows) {
      x -= std::max(w.share, 0.01);
      if (x <= 0) return w;
    }
    return m.windows.back();
  }

  std::vector<Edit> propose(Move& move, const Member& parent, const Window& w, size_t max_edits) {
    last_move_ = move.name();
    try {
      MoveContext c{*parent.ind.program, kr_.kernel, w, rng_, max_edits, &cascade_.perf_runs()};
      return move.propose(c);
    } catch (const Error& e) {
      if (progress_.log) progress_.log(fmt::format("{}: move {} cannot work on window {}: {}", kr_.kernel, move.name(), w.id, e.what_text()));
      return {};
    }
  }

  // Enabling chains (Move::enables, docs/search.md): `enabling` was correct on the quick run (it
  // reached timing) but not fast enough alone. Its result is rebuilt and recovered, each follow-up
  // move proposes on it (the whole kernel is its window: the intermediate is not profiled), and each
  // follow-up edit is evaluated with `enabling` as one compound candidate against `parent`, through
  // every stage of the cascade. The intermediate never joins the population.
  void try_follow_ups(Member& parent, const Edit& enabling, const std::string& window_id, KernelOutcome& out) {
    std::vector<Move*> follow_ups;
    for (const auto& m : rules_)
      if (m->name() == enabling.move)
        for (const std::string& name : m->enables())
          for (const auto& f : rules_)
            if (f->name() == name) follow_ups.push_back(f.get());
    if (follow_ups.empty() || !enabling.then.empty() || out.patch_mode) return;  // a compound cannot be a patch
    std::optional<program::Program> step;
    try {
      const program::Program edited = apply_edit(*parent.ind.program, enabling);
      step.emplace(step_input(edited));
    } catch (const Error& e) {
      if (progress_.log) progress_.log(fmt::format("{}: the {} edit cannot be rebuilt for its follow-ups: {}", kr_.kernel, enabling.move, e.what_text()));
      return;
    }
    const program::Function* f = step->function(kr_.kernel);
    if (!f || f->end == f->begin) return;
    Window whole;
    whole.first = f->begin;
    whole.last = f->end - 1;
    whole.share = 1;
    whole.id = window_id;
    for (Move* m : follow_ups) {
      std::vector<Edit> edits;
      last_move_ = m->name();
      try {
        MoveContext c{*step, kr_.kernel, whole, rng_, 8, &cascade_.perf_runs()};
        edits = m->propose(c);
      } catch (const Error& e) {
        if (progress_.log) progress_.log(fmt::format("{}: move {} cannot work after {}: {}", kr_.kernel, m->name(), enabling.move, e.what_text()));
        continue;
      }
      for (Edit& next : edits) {
        if (!budget_left() || !time_left()) return;
        Edit compound = enabling;
        compound.move = enabling.move + "+" + next.move;
        compound.description = enabling.description + "; then " + next.description;
        compound.then.push_back(std::move(next));
        if (!parent.tried.insert(compound.to_json().dump()).second) continue;
        ++evaluated_;
        evaluate(parent, std::move(compound), window_id, out, "");
        report_status(window_id, done_before_ + evaluated_, evaluated_, start_);
      }
    }
  }

  Evaluation evaluate(Member& parent, Edit edit, const std::string& window_id, KernelOutcome& out, const std::string& transcript) {
    Evaluation ev = cascade_.evaluate(parent.ind, edit);
    last_move_ = edit.move;
    CandidateRecord c;
    c.kernel = kr_.id;
    c.run = run_;
    if (parent.ind.id) c.parent = parent.ind.id;
    c.proposer = edit.proposer;
    c.move = edit.move;
    c.window = window_id;
    c.edit_json = edit.to_json().dump();
    c.stage = ev.stage;
    c.verdict = ev.accepted ? "accepted" : "rejected";
    c.reason = ev.reason;
    c.stages = ev.stages;
    c.cycles = ev.cycles;
    if (!ev.launches.empty()) c.launches_json = launches_json(ev.launches);
    c.parent_cycles = parent.ind.cycles;
    c.speedup = ev.cycles > 0 ? parent.ind.cycles / ev.cycles : 0;
    c.seconds = ev.seconds;
    c.transcript = transcript;
    for (const StageResult& s : ev.stages) {
      StageTime& st = out.stage_time[s.stage];
      st.seconds += s.seconds;
      ++st.candidates;
    }
    for (const StageResult& s : ev.stages)
      if (s.stage == "verify") ++verified_;
    for (const StageResult& s : ev.stages)
      if (s.stage == "prove") {
        ProofStat p;
        p.verdict = s.detail.substr(0, s.detail.find(':'));
        p.seconds = s.seconds;
        if (auto at = s.detail.rfind("; window-level: "); at != std::string::npos) {
          // "VERDICT in X s": the window-level proof's time is not the gate's.
          const std::string wl = s.detail.substr(at + 16);
          p.window_verdict = wl.substr(0, wl.find(' '));
          if (auto in = wl.find(" in "); in != std::string::npos) p.seconds = std::max(0.0, s.seconds - std::atof(wl.c_str() + in + 4));
        }
        p.move = edit.move;
        p.detail = s.detail.substr(0, 200);
        for (const StageResult& v : ev.stages) {
          p.passed_verify |= v.stage == "verify" && v.ok;
          p.passed_emulate |= v.stage == "emulate" && v.ok;
        }
        out.proofs.push_back(std::move(p));
      }
    if (!ev.accepted) {
      ++out.rejected_at[ev.stage];
      store_.add_candidate(c);
      return ev;
    }
    Individual child = *ev.child;
    AcceptedRecord a;
    a.kernel = kr_.id;
    a.code = child.bytes;
    a.cycles = child.cycles;
    a.listing = kernel_listing(*child.program, kr_.kernel);
    a.per_line_json = per_line_json(child, kr_.kernel);
    child.id = store_.add_candidate(c, &a);
    child.window = window_id;
    for (const std::string& dir : ev.counterexamples) store_.add_counterexample(kr_.id, child.id, dir, "");
    ++accepted_;
    ++out.accepted_moves[edit.move];
    if (progress_.log)
      progress_.log(fmt::format("{}: accepted #{} {} on {}: {:.0f} -> {:.0f} {} cycles ({:.3f}x vs K0; {}: {}) — {}", kr_.kernel,
                                child.id, edit.move, window_id, parent.ind.cycles, child.cycles, cascade_.figure_kind(), kr_.baseline_cycles / child.cycles,
                                cascade_.perf_runs().size() == 1 ? "perf launch" : "geomean over perf launches",
                                launch_changes(parent.ind.launches, child.launches), edit.description));
    add_member(std::move(child));
    return ev;
  }

  Cascade& cascade_;
  Store& store_;
  const KernelRecord& kr_;
  int64_t run_;
  const OptimizeOptions& o_;
  const Progress& progress_;
  Clock::time_point run_start_;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<Move>> rules_, stochastic_;
  std::unique_ptr<InteractiveProposer> llm_;
  std::vector<std::unique_ptr<Member>> members_;
  Member* best_ = nullptr;
  size_t verified_ = 0, accepted_ = 0;
  std::string last_move_;
  KernelOutcome* out_ = nullptr;
  size_t done_before_ = 0, evaluated_ = 0;
  Clock::time_point start_;
};

}  // namespace

struct KernelSession::Impl {
  Impl(const codeobj::CodeObject& k0, const KernelJob& job, const OptimizeOptions& options, const Progress& prog, bool rebuildable)
      : o(options), progress(prog), cascade(k0, job.kernel, job.specs, cascade_options(options, rebuildable)) {}
  static CascadeOptions cascade_options(const OptimizeOptions& o, bool rebuildable) {
    CascadeOptions co;
    co.min_gain = o.min_gain;
    co.threads = o.jobs;
    co.counterexample_dir = o.counterexample_dir;
    co.patch_mode = !rebuildable;
    co.proof = o.proof;
    co.proof_timeout_ms = o.proof_timeout_ms;
    co.hip = o.hip;
    co.robust_draws = o.robust_draws;
    co.prove_winners_only = o.prove_winners_only;
    co.robust_fraction = o.robust_fraction;
    return co;
  }
  OptimizeOptions o;
  Progress progress;
  Cascade cascade;
  KernelRecord kr;
  KernelOutcome out;
  std::vector<uint8_t> start;
  std::string file_name;
  size_t resumed = 0;
  Clock::time_point started;
  std::unique_ptr<KernelSearch> search;
};

KernelSession::KernelSession(const codeobj::CodeObject& k0, const std::vector<uint8_t>& k0_bytes, const std::vector<uint8_t>& start,
                             const std::string& file_name, const KernelJob& job, Store& store, int64_t run, bool rebuildable,
                             const OptimizeOptions& options, const Progress& progress, std::chrono::steady_clock::time_point run_start)
    : impl_(std::make_unique<Impl>(k0, job, options, progress, rebuildable)) {
  Impl& m = *impl_;
  m.started = Clock::now();
  m.start = start;
  m.file_name = file_name;
  m.out.kernel = job.kernel;
  m.out.patch_mode = !rebuildable;
  m.out.robust = m.cascade.robust_description();
  Individual base = m.cascade.individual(k0_bytes, 0, file_name);
  KernelRecord want;
  want.file = file_name;
  want.kernel = job.kernel;
  want.spec_path = job.spec_path;
  want.k0 = k0_bytes;
  want.k0_sha = content_hash(k0_bytes);
  want.baseline_cycles = base.cycles;
  want.baseline_us = base.microseconds;
  want.fitness = m.cascade.fitness_description();
  want.figure_kind = m.cascade.figure_kind();
  want.perf_launches_json = launches_json(base.launches);
  want.listing = kernel_listing(*base.program, job.kernel);  // the first accepted edit's diff is against it
  want.per_line_json = per_line_json(base, job.kernel);
  want.run = run;
  m.kr = store.kernel(want);
  m.out.baseline_cycles = m.kr.baseline_cycles;
  m.out.baseline_us = m.kr.baseline_us;
  // Resuming compares this run's figures with the stored ones: they must be on the same launches.
  {
    std::string stored, now;
    for (const auto& l : parse_launches_json(m.kr.perf_launches_json)) stored += (stored.empty() ? "" : ", ") + l.name;
    for (const auto& l : base.launches) now += (now.empty() ? "" : ", ") + l.name;
    const bool old_store = m.kr.fitness.empty();  // written before perf launches: the first verification launch
    if ((old_store && !m.cascade.timing_run().perf_fallback) || (!old_store && stored != now))
      throw Error(fmt::format("the store's figures for {} are {}, this run's would be {}", job.kernel,
                              old_store ? "on the first verification launch (a store written before perf launches)" : m.kr.fitness,
                              want.fitness),
                  store.path(), "use a new --db for a spec whose perf launches changed");
  }
  m.out.fitness = m.kr.fitness.empty() ? want.fitness : m.kr.fitness;
  m.out.baseline_launches = m.kr.perf_launches_json.empty() ? base.launches : parse_launches_json(m.kr.perf_launches_json);
  m.search = std::make_unique<KernelSearch>(m.cascade, store, m.kr, run, m.o, m.progress, run_start);
  // The starting point: the object the previous kernel left (K0 for the first), plus whatever a
  // previous run of this DB accepted for this kernel.
  m.search->add_member(start == k0_bytes ? std::move(base) : m.cascade.individual(start, 0, file_name));
  for (const AcceptedRecord& a : store.accepted(m.kr.id)) {
    m.search->add_member(m.cascade.individual(a.code, a.candidate, file_name));
    ++m.resumed;
  }
  if (m.resumed && progress.log)
    progress.log(fmt::format("{}: resumed {} accepted candidate(s) from {}", job.kernel, m.resumed, store.path()));
  m.search->begin(m.out);
}

KernelSession::~KernelSession() = default;

void KernelSession::search() { impl_->search->search(impl_->out); }

AgentTurn KernelSession::turn() { return impl_->search->turn(); }

bool KernelSession::budget_left() const { return impl_->search->budget_left() && impl_->search->time_left(); }

KernelOutcome KernelSession::outcome() const {
  KernelOutcome out = impl_->out;
  impl_->search->end(out);
  out.accepted = impl_->resumed;
  for (const auto& [move, n] : out.accepted_moves) out.accepted += n;  // resumed + this run's (no second read of the blobs)
  return out;
}

const KernelRecord& KernelSession::record() const { return impl_->kr; }

const Cascade& KernelSession::cascade() const { return impl_->cascade; }

KernelSession::Final KernelSession::finish() {
  Impl& m = *impl_;
  KernelOutcome& out = m.out;
  Final f;
  f.bytes = m.start;
  // The best candidate (then the next best) re-verified from scratch with fresh seeds.
  out.best_cycles = m.kr.baseline_cycles;
  out.best_us = m.kr.baseline_us;
  out.best_launches = out.baseline_launches;
  out.final_verdict = "K0 kept (no candidate was accepted)";
  std::optional<int64_t> final_id;
  nlohmann::json final_report;
  for (const Member* c : m.search->by_cycles()) {
    if (c->ind.id == 0) break;  // the starting object is at least as fast as the rest
    verify::VerifyReport r = m.cascade.reverify(*c->ind.co, 0x5eed0000ull + m.o.seed);
    final_report = r.to_json();
    if (r.verdict != verify::Verdict::Equivalent) {
      if (m.progress.log)
        m.progress.log(fmt::format("{}: candidate #{} failed re-verification with fresh seeds ({}); trying the next best", out.kernel,
                                   c->ind.id, r.summary));
      out.final_verdict = std::string("K0 kept (best failed re-verification: ") + verify::verdict_name(r.verdict) + ")";
      continue;
    }
    Fitness again = m.cascade.fitness(*c->ind.co);
    out.best_cycles = again.cycles;
    out.best_us = again.microseconds;
    out.best_launches = again.launches;
    out.final_verdict = "EQUIVALENT";
    final_id = c->ind.id;
    f.bytes = c->ind.bytes;
    break;
  }
  m.search->store().set_final(m.kr.id, final_id, out.final_verdict, out.best_cycles, out.speedup(), final_report.dump(),
                              launches_json(out.best_launches));
  out.seconds = since(m.started);
  f.candidate = final_id;
  f.verdict = out.final_verdict;
  f.report = std::move(final_report);
  f.cycles = out.best_cycles;
  f.us = out.best_us;
  return f;
}


nlohmann::json stage_profile_json(const KernelOutcome& k) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [stage, t] : k.stage_time) j[stage] = {{"seconds", t.seconds}, {"candidates", t.candidates}};
  return j;
}

std::string stage_profile_text(const KernelOutcome& k) {
  double total = 0;
  for (const auto& [stage, t] : k.stage_time) total += t.seconds;
  std::vector<std::pair<std::string, StageTime>> v(k.stage_time.begin(), k.stage_time.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::string s;
  for (const auto& [stage, t] : v)
    s += (s.empty() ? "" : ", ") + fmt::format("{} {:.1f} s ({:.0f} %, {} candidates, {:.3f} s each)", stage, t.seconds,
                                               total > 0 ? 100 * t.seconds / total : 0.0, t.candidates,
                                               t.candidates ? t.seconds / t.candidates : 0.0);
  return s.empty() ? "no candidates" : s;
}

OptimizeResult optimize(const std::vector<uint8_t>& k0_bytes, const std::string& file_name, const std::vector<KernelJob>& jobs,
                        Store& store, const OptimizeOptions& o, const std::string& command, const Progress& progress) {
  const auto run_start = Clock::now();
  OptimizeResult result;
  const codeobj::CodeObject k0 = codeobj::CodeObject::parse(k0_bytes, file_name);
  for (const KernelJob& j : jobs)
    if (!k0.kernel(j.kernel)) throw Error("no kernel named " + j.kernel, file_name);
  for (const std::string& p : o.proposers) {  // unknown names fail before any work
    if (p == "llm" && !o.make_llm)
      throw Error("the llm proposer needs an endpoint", "--proposers", "pass --llm-url and --llm-model, or leave llm out");
    if (p != "llm") make_moves(p);
  }
  MoveFilter::parse(o.moves);
  nlohmann::json opts = {{"budget", o.budget},   {"time", o.time_limit_s}, {"jobs", o.jobs},         {"seed", o.seed},
                         {"proposers", o.proposers}, {"min_gain", o.min_gain}, {"windows", o.windows}, {"resume", o.resume}, {"patch_only", o.patch_only},
                         {"moves", o.moves}, {"robust_draws", o.robust_draws}, {"robust_fraction", o.robust_fraction}};
  result.run = store.begin_run(command, o.seed, opts.dump());
  const bool rebuildable = !o.patch_only && rebuild::roundtrip(k0).ok();
  if (!rebuildable && !o.patch_only && progress.log)
    progress.log(fmt::format("{}: the recovered listing does not rebuild to identical bytes; only in-place patches are tried", file_name));

  std::vector<uint8_t> current = k0_bytes;
  for (const KernelJob& job : jobs) {
    KernelSession session(k0, k0_bytes, current, file_name, job, store, result.run, rebuildable, o, progress, run_start);
    session.search();
    KernelSession::Final f = session.finish();
    current = std::move(f.bytes);
    KernelOutcome out = session.outcome();
    result.candidates += out.candidates_this_run;
    result.kernels.push_back(std::move(out));
  }
  result.bytes = std::move(current);
  result.seconds = since(run_start);
  store.finish_run(result.run, "finished");
  return result;
}

}  // namespace asmevo::search
