#include "check/waitcnt.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>

#include "check/isa.h"

namespace asmevo::check {

using program::Instruction;
using program::RegFile;
using program::RegRange;

namespace {

// ---- Register units ---------------------------------------------------------------------------

constexpr int kSgpr = 0, kVgpr = 128, kAgpr = 384, kVcc = 640, kExec = 642, kM0 = 644, kFlatScr = 645,
              kXnack = 647, kTtmp = 649, kScc = 665,
              // Pseudo unit: "LDS accessed by an outstanding operation", read by s_barrier.
              kLdsMem = 666, kUnits = 667;

int unit_of(RegFile f, unsigned i) {
  switch (f) {
    case RegFile::SGPR: return i < 128 ? kSgpr + static_cast<int>(i) : -1;
    case RegFile::VGPR: return i < 256 ? kVgpr + static_cast<int>(i) : -1;
    case RegFile::AGPR: return i < 256 ? kAgpr + static_cast<int>(i) : -1;
    case RegFile::VCC: return i < 2 ? kVcc + static_cast<int>(i) : -1;
    case RegFile::EXEC: return i < 2 ? kExec + static_cast<int>(i) : -1;
    case RegFile::M0: return kM0;
    case RegFile::FlatScratch: return i < 2 ? kFlatScr + static_cast<int>(i) : -1;
    case RegFile::XnackMask: return i < 2 ? kXnack + static_cast<int>(i) : -1;
    case RegFile::TTMP: return i < 16 ? kTtmp + static_cast<int>(i) : -1;
    case RegFile::SCC: return kScc;
    default: return -1;
  }
}

template <typename F>
void for_units(const RegRange& r, F&& fn) {
  for (unsigned k = 0; k < r.count; ++k) {
    int u = unit_of(r.file, r.first + k);
    if (u >= 0) fn(u);
  }
}

// ---- Abstract state ---------------------------------------------------------------------------

constexpr int kEntryProducer = -1;  // "written by the caller" (device-function entry)
constexpr uint8_t kMaxNewer = 64;  // more than any counter can wait for (vmcnt <= 63)

// A pending asynchronous access of one register unit under one counter.
struct Pending {
  bool pending = false;
  bool in_order = false;  // the access belongs to its counter's in-order queue
  uint8_t newer = 0;      // in-order operations of the same queue issued after it (saturating)
  int32_t producer = 0;   // instruction index (kEntryProducer at function entry)
  bool operator==(const Pending&) const = default;
};

// Slots per unit: a pending write under each counter, and a pending read (data lock) under expcnt.
constexpr int kLockSlot = kNumCounters;
constexpr int kSlots = kNumCounters + 1;

struct CounterOutstanding {
  uint16_t in_order = 0;  // in-order operations possibly outstanding (saturating)
  bool out_of_order = false;
  bool operator==(const CounterOutstanding&) const = default;
};

struct State {
  std::vector<Pending> slots;  // kUnits * kSlots
  std::array<CounterOutstanding, kNumCounters> counters{};
  State() : slots(static_cast<size_t>(kUnits) * kSlots) {}
  Pending& at(int unit, int slot) { return slots[static_cast<size_t>(unit) * kSlots + slot]; }
  const Pending& at(int unit, int slot) const { return slots[static_cast<size_t>(unit) * kSlots + slot]; }
  bool operator==(const State&) const = default;
};

Pending join(const Pending& a, const Pending& b) {
  if (!a.pending) return b;
  if (!b.pending) return a;
  Pending r;
  r.pending = true;
  r.in_order = a.in_order && b.in_order;
  // Keep the producer of the weaker side for the report.
  const Pending& weak = (!a.in_order || (b.in_order && a.newer <= b.newer)) ? a : b;
  r.producer = weak.producer;
  r.newer = std::min(a.newer, b.newer);
  return r;
}

void join_into(State& into, const State& other) {
  for (size_t k = 0; k < into.slots.size(); ++k) into.slots[k] = join(into.slots[k], other.slots[k]);
  for (int c = 0; c < kNumCounters; ++c) {
    into.counters[c].in_order = std::max(into.counters[c].in_order, other.counters[c].in_order);
    into.counters[c].out_of_order |= other.counters[c].out_of_order;
  }
}

// ---- Memory behaviour of an instruction --------------------------------------------------------

struct MemEvent {
  Counter counter;
  bool in_order;
};

struct MemBehaviour {
  std::vector<MemEvent> events;
  bool writes_defs = false;  // its register results arrive asynchronously
  bool locks_sources = false;  // holds its vector sources until expcnt (GDS, export)
};

MemBehaviour behaviour_of(const Instruction& i) {
  MemBehaviour b;
  if (is_vmem(i)) {
    if (is_flat(i)) {
      // flat_* may access LDS: counted on both counters and may be reported early
      // (SIInsertWaitcnts setPendingFlat: any wait involving it must be 0).
      b.events = {{kVmCnt, false}, {kLgkmCnt, false}};
    } else if (i.cls == program::InstClass::VMEMCache) {
      b.events = {{kVmCnt, false}};  // cache control: not assumed to take a place in the queue
    } else {
      b.events = {{kVmCnt, true}};
    }
    b.writes_defs = true;
  } else if (is_ds(i)) {
    if (is_gds(i)) {
      b.events = {{kLgkmCnt, false}, {kExpCnt, false}};
      b.locks_sources = true;  // GDS_GPR_LOCK
    } else {
      b.events = {{kLgkmCnt, true}};
    }
    b.writes_defs = true;
  } else if (is_smem(i)) {
    b.events = {{kLgkmCnt, false}};  // SMEM "always can go out of order"
    b.writes_defs = true;
  } else if (i.mnemonic == "s_sendmsg" || i.mnemonic == "s_sendmsghalt") {
    b.events = {{kLgkmCnt, false}};  // SQ_MESSAGE
  } else if (is_export(i)) {
    b.events = {{kExpCnt, false}};
    b.locks_sources = true;  // EXP_GPR_LOCK
  }
  return b;
}

// ---- The analysis -------------------------------------------------------------------------------

struct Need {
  bool any = false;
  std::array<unsigned, kNumCounters> count{~0u, ~0u, ~0u};
  unsigned best = ~0u;
  int unit = -1, producer = 0;
  Counter counter = kVmCnt;
  RegRange range;
};

std::string wait_text(const std::array<unsigned, kNumCounters>& count) {
  std::string s;
  for (int c = 0; c < kNumCounters; ++c) {
    if (count[c] == ~0u) continue;
    if (!s.empty()) s += ' ';
    s += fmt::format("{}({})", counter_name(static_cast<Counter>(c)), count[c]);
  }
  return s;
}

class Analysis {
 public:
  Analysis(const Function& f, const WaitcntOptions& opts) : f_(f), limits_(counter_limits(opts.arch)), arch_(opts.arch) {}

  std::vector<Violation> run() {
    if (f_.insts.empty()) return {};
    const size_t nb = f_.blocks.size();
    std::vector<State> in(nb);
    std::vector<bool> has_in(nb, false);
    State entry = entry_state();
    // Blocks without predecessors (the entry, and code reached only by jumps we cannot
    // resolve) start from the entry state.
    std::deque<size_t> work;
    std::vector<bool> queued(nb, false);
    for (size_t b = 0; b < nb; ++b)
      if (b == 0 || f_.blocks[b].preds.empty()) {
        in[b] = entry;
        has_in[b] = true;
        work.push_back(b);
        queued[b] = true;
      }
    while (!work.empty()) {
      size_t b = work.front();
      work.pop_front();
      queued[b] = false;
      State s = in[b];
      transfer_block(b, s, nullptr);
      for (size_t succ : f_.blocks[b].succs) {
        if (!has_in[succ]) {
          in[succ] = s;
          has_in[succ] = true;
        } else {
          State joined = in[succ];
          join_into(joined, s);
          if (joined == in[succ]) continue;
          in[succ] = std::move(joined);
        }
        if (!queued[succ]) {
          work.push_back(succ);
          queued[succ] = true;
        }
      }
    }
    std::vector<Violation> out;
    for (size_t b = 0; b < nb; ++b) {
      if (!has_in[b]) continue;
      State s = in[b];
      transfer_block(b, s, &out);
    }
    return out;
  }

 private:
  State entry_state() const {
    State s;
    if (f_.is_kernel) return s;
    // Device function: a caller's load may still be writing any general register.
    auto mark = [&](int first, int count) {
      for (int u = first; u < first + count; ++u)
        for (int c = 0; c < kNumCounters; ++c) s.at(u, c) = Pending{true, false, 0, kEntryProducer};
    };
    mark(kSgpr, 128);
    mark(kVgpr, 256);
    mark(kAgpr, 256);
    mark(kVcc, 2);
    for (auto& c : s.counters) c.out_of_order = true;
    return s;
  }

  bool no_wait(Counter c, unsigned n) const { return n >= limits_.max[c]; }

  void apply_wait(State& s, Counter c, unsigned n) const {
    if (no_wait(c, n)) return;
    auto clear = [&](Pending& p) {
      if (p.pending && (n == 0 || (p.in_order && p.newer >= n))) p = Pending{};
    };
    for (int u = 0; u < kUnits; ++u) {
      clear(s.at(u, c));
      if (c == kExpCnt) clear(s.at(u, kLockSlot));
    }
    auto& co = s.counters[c];
    co.in_order = std::min<uint16_t>(co.in_order, static_cast<uint16_t>(n));
    if (n == 0) co.out_of_order = false;
  }

  // The weakest wait on counter c that completes p.
  static unsigned needed(const Pending& p) { return p.in_order ? p.newer : 0; }

  void note(Need& need, const Pending& p, Counter c, int unit, const RegRange& r) const {
    unsigned n = needed(p);
    need.count[c] = std::min(need.count[c], n);
    // Report the access that needs the strongest wait.
    if (!need.any || n < need.best) {
      need.best = n;
      need.unit = unit;
      need.producer = p.producer;
      need.counter = c;
      need.range = r;
    }
    need.any = true;
  }

  void report(std::vector<Violation>* out, const Instruction& i, const std::string& rule, const Need& need,
              const std::string& what) const {
    if (!out) return;
    Violation v;
    v.check = "waitcnt";
    v.rule = rule;
    v.function = f_.name;
    v.pc = i.address;
    v.text = i.text;
    if (need.range.count) v.reg = program::to_string(need.range);
    v.needed_wait = wait_text(need.count);
    std::string origin;
    if (need.producer == kEntryProducer) {
      origin = "a memory operation of the caller (device-function entry)";
    } else {
      const Instruction& p = f_.insts[static_cast<size_t>(need.producer)];
      v.producer_pc = p.address;
      v.producer_text = p.text;
      origin = fmt::format("`{}` at 0x{:x}", p.text, p.address);
    }
    v.message = fmt::format("{}{}{} while {} may still be outstanding; needs s_waitcnt {}", what, v.reg.empty() ? "" : " ",
                            v.reg, origin, v.needed_wait);
    out->push_back(std::move(v));
  }

  void fix(State& s, const Need& need) const {
    for (int c = 0; c < kNumCounters; ++c)
      if (need.count[c] != ~0u) apply_wait(s, static_cast<Counter>(c), need.count[c]);
  }

  void transfer_block(size_t b, State& s, std::vector<Violation>* out) const {
    const Block& blk = f_.blocks[b];
    for (size_t k = blk.first; k <= blk.last; ++k) transfer(k, s, out);
  }

  void transfer(size_t index, State& s, std::vector<Violation>* out) const {
    const Instruction& i = f_.insts[index];
    if (auto w = decode_waitcnt(i, arch_)) {
      if (noop_waits_ && out) {
        State before = s;
        for (int c = 0; c < kNumCounters; ++c) apply_wait(s, static_cast<Counter>(c), w->count[c]);
        // A device function's return contract also depends on the outstanding counts.
        bool changed = before.slots != s.slots || (!f_.is_kernel && before.counters != s.counters);
        if (!changed) noop_waits_->push_back(i.address);
        return;
      }
      for (int c = 0; c < kNumCounters; ++c) apply_wait(s, static_cast<Counter>(c), w->count[c]);
      return;
    }
    MemBehaviour mb = behaviour_of(i);

    // RAW: every register read must be complete.
    Need raw;
    for (const RegRange& r : i.uses)
      for_units(r, [&](int u) {
        for (int c = 0; c < kNumCounters; ++c)
          if (s.at(u, c).pending) note(raw, s.at(u, c), static_cast<Counter>(c), u, r);
      });
    if (raw.any) {
      report(out, i, "waitcnt.raw", raw, "reads");
      fix(s, raw);
    }

    // WAW and WAR: a register written while an earlier asynchronous write or read is pending.
    Need waw, war;
    for (const RegRange& r : i.defs)
      for_units(r, [&](int u) {
        for (int c = 0; c < kNumCounters; ++c) {
          const Pending& p = s.at(u, c);
          if (!p.pending) continue;
          bool same_queue = false;
          if (mb.writes_defs && p.in_order)
            for (const auto& e : mb.events) same_queue |= e.counter == c && e.in_order;
          if (!same_queue) note(waw, p, static_cast<Counter>(c), u, r);
        }
        const Pending& lock = s.at(u, kLockSlot);
        if (lock.pending) note(war, lock, kExpCnt, u, r);
      });
    if (waw.any) {
      report(out, i, "waitcnt.waw", waw, "overwrites");
      fix(s, waw);
    }
    if (war.any) {
      report(out, i, "waitcnt.war", war, "overwrites the data register");
      fix(s, war);
    }

    if (i.cls == program::InstClass::Barrier) {
      // Workgroup release: this wave's LDS accesses must be complete before the barrier lets
      // other waves read what it wrote or overwrite what it read (LLVM's memory legalizer emits
      // s_waitcnt lgkmcnt(0) before the s_barrier of __syncthreads / a workgroup fence:
      // AMDGPUUsage memory model, "all memory operations to LDS have completed"). Global
      // stores are not required to complete (gfx90a/gfx94x without tgsplit: the workgroup's
      // waves share one L1/L2 path; LLVM's output has stores outstanding at barriers).
      Need bar;
      RegRange none{RegFile::Other, 0, 0};
      for (int c = 0; c < kNumCounters; ++c)
        if (s.at(kLdsMem, c).pending) note(bar, s.at(kLdsMem, c), static_cast<Counter>(c), kLdsMem, none);
      if (bar.any) {
        report(out, i, "waitcnt.barrier", bar, "synchronizes the workgroup");
        fix(s, bar);
      }
    }

    if (i.is_call) {
      // The callee returns with every counter at zero (LLVM calling convention).
      s = State{};
      return;
    }

    // Function-boundary contract: a device function returns with nothing outstanding.
    if (!f_.is_kernel && i.mnemonic == "s_setpc_b64" &&
        std::binary_search(f_.exits.begin(), f_.exits.end(), index) && out) {
      std::array<unsigned, kNumCounters> need{~0u, ~0u, ~0u};
      bool any = false;
      for (int c = 0; c < kNumCounters; ++c)
        if (s.counters[c].in_order || s.counters[c].out_of_order) {
          need[c] = 0;
          any = true;
        }
      if (any) {
        Violation v;
        v.check = "waitcnt";
        v.rule = "waitcnt.return";
        v.function = f_.name;
        v.pc = i.address;
        v.text = i.text;
        v.needed_wait = wait_text(need);
        v.message = "the function returns while memory operations may be outstanding; callers assume "
                    "every counter is zero after a call; needs s_waitcnt " + v.needed_wait;
        out->push_back(std::move(v));
      }
    }

    if (mb.events.empty()) return;
    // Issue: in-order operations age every pending access of their queue.
    for (const auto& e : mb.events) {
      auto& co = s.counters[e.counter];
      if (e.in_order) {
        co.in_order = static_cast<uint16_t>(std::min<int>(co.in_order + 1, kMaxNewer));
        for (int u = 0; u < kUnits; ++u) {
          Pending& p = s.at(u, e.counter);
          if (p.pending && p.in_order && p.newer < kMaxNewer) ++p.newer;
        }
      } else {
        co.out_of_order = true;
      }
    }
    if (mb.writes_defs)
      for (const RegRange& r : i.defs)
        for_units(r, [&](int u) {
          for (int c = 0; c < kNumCounters; ++c) s.at(u, c) = Pending{};
          for (const auto& e : mb.events)
            if (e.counter != kExpCnt) s.at(u, e.counter) = Pending{true, e.in_order, 0, static_cast<int32_t>(index)};
        });
    // Outstanding LDS accesses (DS loads, stores and atomics, flat accesses that may hit LDS,
    // LDS DMA), for the barrier rule.
    {
      auto lds_access = [&](Counter c, bool in_order) {
        Pending& p = s.at(kLdsMem, c);
        p = join(p, Pending{true, in_order, 0, static_cast<int32_t>(index)});
      };
      if (ds_accesses_lds_memory(i)) lds_access(kLgkmCnt, true);
      if (is_flat(i)) lds_access(kLgkmCnt, false);
      if (is_lds_dma(i)) lds_access(kVmCnt, true);
    }
    if (mb.locks_sources)
      for (const RegRange& r : i.uses)
        if (is_vector_file(r.file))
          for_units(r, [&](int u) { s.at(u, kLockSlot) = Pending{true, false, 0, static_cast<int32_t>(index)}; });
  }

  std::vector<uint64_t>* noop_waits_ = nullptr;

 public:
  void collect_noop_waits(std::vector<uint64_t>* v) { noop_waits_ = v; }

 private:
  const Function& f_;
  CounterLimits limits_;
  codeobj::Arch arch_;
};

}  // namespace

std::vector<Violation> check_waitcnt(const Function& f, const WaitcntOptions& opts) {
  return Analysis(f, opts).run();
}

std::vector<uint64_t> noop_waits(const Function& f, const WaitcntOptions& opts) {
  std::vector<uint64_t> out;
  Analysis a(f, opts);
  a.collect_noop_waits(&out);
  a.run();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace asmevo::check
