#include "timing/model.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "support/error.h"
#include "timing/inst_info.h"
#include "timing/memory_hierarchy.h"

namespace asmevo::timing {

const char* stall_name(Stall s) {
  static const char* const kNames[] = {"waitcnt-vm", "waitcnt-lgkm", "dependency", "barrier", "issue", "mfma-busy"};
  return kNames[static_cast<int>(s)];
}

double ModelResult::total_stall(Stall s) const {
  double t = 0;
  for (const auto& p : per_inst) t += p.stall[static_cast<int>(s)];
  return t;
}

Stall ModelResult::top_stall() const {
  Stall best = Stall::IssueContention;
  double v = -1;
  for (int i = 0; i < kNumStalls; ++i)
    if (double t = total_stall(static_cast<Stall>(i)); t > v) v = t, best = static_cast<Stall>(i);
  return best;
}

namespace {

using program::InstClass;

using namespace sim;


struct Simd {
  std::array<uint64_t, kNumPorts> port_free{};
  uint64_t xdl_free = 0;
  unsigned resident = 0;
};

struct Cu {
  std::array<Server, 2> lds;  // one LDS pipe per SIMD pair (S10)
  std::vector<Simd> simds;
  unsigned groups = 0;
};

struct VregState {
  uint64_t ready = 0;      // for non-MFMA readers
  uint64_t mfma_issue = 0; // valid when by_mfma
  bool by_mfma = false, by_valu = false;
  uint8_t passes = 0;
  bool xdl = false, dgemm16 = false;
  uint16_t dst_first = 0, dst_count = 0;
};

struct WaveState {
  const WaveTrace* trace = nullptr;
  size_t pos = 0;
  uint64_t group = 0;  // linear workgroup id
  unsigned cu = 0, simd = 0;
  int prio = 0;
  uint64_t next_ok = 0;     // earliest issue of the next instruction (own cadence)
  bool evaluated = false;   // the current instruction has been looked at once
  uint64_t first_ready = 0; // ... and the time its constraints allowed then
  Stall first_reason = Stall::IssueContention;
  std::vector<uint64_t> vm;                 // completion times, in issue order (vmcnt retires in order)
  std::vector<std::pair<uint64_t, bool>> lgkm;  // completion, is LDS (in order) vs SMEM
  uint64_t last_lds_done = 0, last_vm_done = 0;
  std::vector<VregState> v;
  std::array<uint64_t, emu::kNumScalarRegs> s{};
  bool done = false, at_barrier = false;
  uint64_t barrier_arrival = 0;
  uint32_t barrier_inst = 0;
  uint32_t in_group = 0;  // the wave's index in its workgroup
};

struct Group {
  unsigned cu = 0;
  unsigned l1_tag = 0;  // the device CU it stands for, within the slice CU (MemoryHierarchy::vector_access)
  unsigned alive = 0, arrived = 0;
  std::vector<size_t> waves;  // indices into the wave table
  uint64_t end = 0;
};

// The earliest time at which at most `n` of the completion times in `q` lie in the future: the (size - n)-th
// smallest. `q` is reordered. (A copy and a sort per waitcnt, in every wave's step, was a heap allocation each.)
uint64_t counter_ready(std::vector<uint64_t>& q, unsigned n) {
  if (q.size() <= n) return 0;
  const auto k = q.end() - n - 1;
  std::nth_element(q.begin(), k, q.end());
  return *k;
}

class Simulator {
 public:
  Simulator(const emu::Program& prog, const LaunchTrace& trace, const codeobj::Occupancy& occ, const HwParams& hw,
            const DeviceSlice& slice, const Warming* warming = nullptr)
      : prog_(prog), trace_(trace), occ_(occ), hw_(hw), slice_(slice), warming_(warming), mem_(hw, slice) {
    const auto& insts = prog.insts();
    info_.reserve(insts.size());
    for (const auto& in : insts) info_.push_back(classify(in, prog.arch(), prog.accum_offset(), prog.kernel()));
    res_.hw = &hw;
    res_.occupancy = occ;
    res_.per_inst.resize(insts.size());
    cus_.resize(slice.cus());
    for (auto& c : cus_) c.simds.resize(hw.simds_per_cu);
    dispatch_free_.assign(slice.xcds, 0);
  }

  ModelResult run() {
    const uint64_t ngroups = trace_.groups.size();
    const unsigned per_cu = occ_.workgroups_per_cu;
    if (per_cu == 0)
      throw Error("the kernel's resources allow no workgroup on a CU", prog_.kernel(),
                  "reduce VGPRs, SGPRs, LDS or the workgroup size");
    groups_.resize(ngroups);
    // Initial fill: workgroup k to CU rr(k mod CUs) while it has room (round robin over XCDs).
    const uint64_t initial = std::min<uint64_t>(ngroups, static_cast<uint64_t>(slice_.cus()) * per_cu);
    filling_ = true;
    for (uint64_t g = 0; g < initial; ++g) start_group(g, cu_of_slot(g % slice_.cus()), 0);
    filling_ = false;
    next_group_ = initial;
    loop();
    for (const auto& w : waves_)
      if (!w.done)
        throw Error(fmt::format("internal error in the timing model: a wave of workgroup {} stopped at trace entry {} of {}{}",
                                w.group, w.pos, w.trace->entries.size(), w.at_barrier ? " (at a barrier)" : ""),
                    prog_.kernel(), {}, kExitInternal);
    if (next_group_ < groups_.size())
      throw Error("internal error in the timing model: workgroups were never dispatched", prog_.kernel(), {}, kExitInternal);
    // Finish: the last wave, the last memory operation and the last byte written back.
    uint64_t end = 0;
    res_.group_end.reserve(groups_.size());
    for (const auto& g : groups_) end = std::max(end, g.end), res_.group_end.push_back(g.end);
    end = std::max<uint64_t>(end, last_memory_);
    end = std::max<uint64_t>(end, static_cast<uint64_t>(std::ceil(mem_.hbm_free())));
    res_.cycles = end;
    const Traffic& traffic = mem_.traffic();
    res_.l1_bytes = traffic.l1_bytes, res_.l2_bytes = traffic.l2_bytes;
    res_.mall_bytes = traffic.mall_bytes, res_.hbm_bytes = traffic.hbm_bytes;

    res_.workgroups = ngroups;
    res_.unique_bytes = unique_sectors() << kSectorShift;
    std::unordered_set<unsigned> used;
    for (const auto& g : groups_) used.insert(g.cu);
    res_.cus_used = static_cast<unsigned>(used.size());
    set_roofline(res_, hw_, slice_.cus(), hw_.hbm_bw * slice_.device_share);
    set_clock(res_, hw_, slice_.cus());
    return std::move(res_);
  }

 private:
  // Distinct 64-byte sectors the launch touched (vector and scalar memory). A bitmap over the touched range when
  // that is at most 2^27 sectors (8 GiB of addresses, a 16 MiB bitmap), else a sort: sorting an elementwise
  // launch's millions of sectors was 8 % of its replay (perf, bench/timing/sampling_bench).
  uint64_t unique_sectors() const {
    uint64_t lo = ~0ull, hi = 0, n = 0;
    for (const auto& g : trace_.groups)
      for (const auto& w : g)
        for (uint64_t s : w.sectors) lo = std::min(lo, s), hi = std::max(hi, s), ++n;
    if (n == 0) return 0;
    if (hi - lo < (1ull << 27)) {
      std::vector<uint64_t> seen((hi - lo) / 64 + 1, 0);
      for (const auto& g : trace_.groups)
        for (const auto& w : g)
          for (uint64_t s : w.sectors) seen[(s - lo) / 64] |= 1ull << ((s - lo) % 64);
      uint64_t count = 0;
      for (uint64_t word : seen) count += static_cast<uint64_t>(std::popcount(word));
      return count;
    }
    std::vector<uint64_t> all;
    all.reserve(n);
    for (const auto& g : trace_.groups)
      for (const auto& w : g) all.insert(all.end(), w.sectors.begin(), w.sectors.end());
    std::sort(all.begin(), all.end());
    return static_cast<uint64_t>(std::unique(all.begin(), all.end()) - all.begin());
  }

  unsigned cu_of_slot(uint64_t k) const {
    const unsigned per_xcd = slice_.cus_per_xcd;
    return static_cast<unsigned>((k % slice_.xcds) * per_xcd + (k / slice_.xcds) % per_xcd);
  }
  unsigned xcd_of(unsigned cu) const { return mem_.xcd_of(cu); }

  // Cycles the XCD's dispatchers (one per shader engine) take to launch `waves` waves; a slice gets its share of them.
  uint64_t wave_launch(size_t waves, bool whole_xcd = false) const {
    return static_cast<uint64_t>(std::llround(static_cast<double>(waves) * hw_.wave_launch_cycles / hw_.shader_engines /
                                              (whole_xcd ? 1.0 : slice_.xcd_share)));
  }

  void start_group(uint64_t g, unsigned cu, uint64_t t) {
    Group& G = groups_[g];
    G.cu = cu;
    // A sampled workgroup's CU on the device (position in its XCD's stream mod CUs per XCD), counted in
    // slice CUs (SliceWorkgroups::XcdWindow; otherwise every workgroup keeps its slice CU's L1).
    if (slice_.l1_by_device_cu && !trace_.group_ids.empty())
      G.l1_tag = static_cast<unsigned>(trace_.group_ids[g] / hw_.xcds % (hw_.cus / hw_.xcds) / slice_.cus_per_xcd);
    Cu& C = cus_[cu];
    ++C.groups;
    const auto& traces = trace_.groups[g];
    const unsigned xcd = xcd_of(cu);
    uint64_t start = std::max(t, dispatch_free_[xcd]);
    dispatch_free_[xcd] = start + wave_launch(traces.size());
    // A sampled workgroup of the first fill starts when its XCD's dispatcher, launching the XCD's stream back to
    // back at its whole rate, reaches it on the device (its position in that stream), and its waves follow at
    // that rate: the slice's share of the dispatcher stands for the other CUs' workgroups in the later rounds only.
    const bool device_start = filling_ && !trace_.group_ids.empty() && !slice_.whole(hw_);
    if (device_start) start = trace_.group_ids[g] / hw_.xcds * wave_launch(traces.size(), true);
    for (size_t i = 0; i < traces.size(); ++i) {
      if (traces[i].entries.empty()) continue;
      // The SIMD with the fewest resident waves (lowest index on ties).
      unsigned simd = 0;
      for (unsigned s = 1; s < C.simds.size(); ++s)
        if (C.simds[s].resident < C.simds[simd].resident) simd = s;
      ++C.simds[simd].resident;
      WaveState w;
      w.trace = &traces[i];
      w.group = g;
      w.cu = cu;
      w.simd = simd;
      w.in_group = static_cast<uint32_t>(i);
      w.next_ok = start + wave_launch(i + 1, device_start);
      w.v.resize(std::max(1u, prog_.num_vregs()));
      waves_.push_back(std::move(w));
      next_entry_.push_back(waves_.back().trace->entries.data());
      G.waves.push_back(waves_.size() - 1);
      ++G.alive;
      push(waves_.size() - 1, waves_.back().next_ok);
      ++res_.waves;
    }
    if (G.alive == 0) finish_group(g, start);
  }

  void finish_group(uint64_t g, uint64_t t) {
    Group& G = groups_[g];
    G.end = std::max(G.end, t);
    Cu& C = cus_[G.cu];
    --C.groups;
    for (size_t wi : G.waves) {
      --C.simds[waves_[wi].simd].resident;
      std::vector<VregState>().swap(waves_[wi].v);  // free the finished wave's scoreboard
    }
    if (next_group_ < groups_.size()) start_group(next_group_++, G.cu, t);
  }

  // A wave's next step at t. Ties go to the higher s_setprio priority (0-3), then to the wave created first (the
  // lower index). Both fit one word beside t: 16 bytes an event, so a heap level's four children share a host
  // cache line (sift_down's misses were most of an elementwise replay's event handling; perf).
  struct Event {
    uint64_t t;
    uint64_t order;  // (3 - priority) << 62 | wave index
    size_t wave() const { return static_cast<size_t>(order & ((1ull << 62) - 1)); }
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : order > o.order; }
  };
  Event event(size_t wi, uint64_t t) const { return Event{t, static_cast<uint64_t>(3 - waves_[wi].prio) << 62 | wi}; }
  void push(size_t wi, uint64_t t) { heap_.push(event(wi, t)); }

  void loop() {
    if (heap_.empty()) return;
    Event e = heap_.pop();
    for (;;) {
      if (!heap_.empty()) prefetch_wave(heap_.top().wave());  // most often the next step's wave
      auto next = step(e.wave(), e.t);
      if (next) {
        // The wave goes again at `next`, unless another event comes first (same order as pushing
        // it and popping the first, with one sift instead of two).
        e = heap_.push_pop(event(e.wave(), *next));
      } else if (!heap_.empty()) {
        e = heap_.pop();
      } else {
        break;
      }
    }
  }

  // Asks the host to bring a wave's state and its next trace entry into its caches (no effect on the model): with
  // thousands of resident waves, the step of the next wave mostly waited for these (perf, elementwise replay).
  void prefetch_wave(size_t wi) const {
    const char* state = reinterpret_cast<const char*>(&waves_[wi]);
    for (size_t off = 0; off < 192; off += 64) __builtin_prefetch(state + off);  // the fields before the SGPR times
    __builtin_prefetch(next_entry_[wi]);
  }

  // When register `r` (unified VGPR) written earlier can be read by the current instruction.
  uint64_t vreg_ready(const VregState& v, const StaticInst& si, unsigned r) const {
    const uint64_t P4 = hw_.issue_period;
    if (!v.by_mfma) {
      if (si.kind == Kind::Mfma && v.by_valu) return v.ready + 2 * P4;  // S7: VALU write -> MFMA read, 2 wait states
      return v.ready;
    }
    const int P = v.passes;
    const bool g90a = prog_.arch() == codeobj::Arch::gfx90a, g950 = prog_.arch() == codeobj::Arch::gfx950;
    int ws;
    const int smfma90a = P == 2 ? 5 : P == 8 ? 11 : 19;  // S7 gfx90a SMFMA 2/8/16 passes
    if (si.kind == Kind::Mfma && si.c.contains(r)) {
      const bool identical = si.c.first == v.dst_first && si.c.count == v.dst_count;
      if (identical) ws = (!g90a && P == 2) ? 2 : 0;
      else if (v.dgemm16) ws = g950 ? 17 : 9;
      else if (v.xdl && !g90a) ws = P + 1 + (g950 ? 1 : 0);
      else ws = P;
    } else if (v.dgemm16) {
      ws = g950 ? 19 : 11;
    } else if (g90a) {
      ws = smfma90a;
    } else {
      ws = v.xdl ? P + 3 + ((si.kind == Kind::Mfma && P != 2 && g950) ? 1 : 0) : P + 2;
    }
    return v.mfma_issue + static_cast<uint64_t>(ws + 1) * P4;
  }

  // Issues the wave's next instruction at `t` if it can; returns when the wave wants to go next
  // (nullopt: it ended, or waits at a barrier, which pushes it again on release).
  std::optional<uint64_t> step(size_t wi, uint64_t t) {
    WaveState& w = waves_[wi];
    const TraceEntry& te = w.trace->entries[w.pos];
    const StaticInst& si = info_[te.inst];
    const emu::ExecInst& in = prog_.insts()[te.inst];
    Cu& C = cus_[w.cu];
    Simd& S = C.simds[w.simd];
    // Retire finished memory operations.
    if (!w.vm.empty()) std::erase_if(w.vm, [&](uint64_t c) { return c <= t; });
    if (!w.lgkm.empty()) std::erase_if(w.lgkm, [&](const auto& c) { return c.first <= t; });

    // Constraints on the issue time, by reason.
    uint64_t dep = 0, wait_vm = 0, wait_lgkm = 0, port = 0, xdl = 0;
    for (const auto& u : in.uses) {
      if (u.file == 0) {
        for (unsigned r = u.first; r < u.first + u.count && r < w.v.size(); ++r) dep = std::max(dep, vreg_ready(w.v[r], si, r));
      } else {
        for (unsigned r = u.first; r < u.first + u.count && r < w.s.size(); ++r) dep = std::max(dep, w.s[r]);
      }
    }
    if (si.kind == Kind::Waitcnt) {
      // w.vm ascends (vmcnt retires in order: each completion is at least the previous one), so its
      // (size - n)-th smallest is at size - n - 1.
      if (si.wait_vm != ~0u && w.vm.size() > si.wait_vm) wait_vm = w.vm[w.vm.size() - si.wait_vm - 1];
      if (si.wait_lgkm != ~0u) {
        counter_scratch_.clear();
        for (const auto& c : w.lgkm) counter_scratch_.push_back(c.first);
        wait_lgkm = counter_ready(counter_scratch_, si.wait_lgkm);
      }
    }
    switch (si.kind) {
      case Kind::Valu: case Kind::Trans: case Kind::Mfma: port = S.port_free[kPortValu]; break;
      case Kind::Salu: case Kind::Smem: port = S.port_free[kPortSalu]; break;
      case Kind::Vmem: port = S.port_free[kPortVmem]; break;
      case Kind::Lds: port = S.port_free[kPortLds]; break;
      case Kind::Branch: port = S.port_free[kPortBranch]; break;
      default: break;
    }
    if (si.kind == Kind::Mfma) xdl = S.xdl_free;
    const uint64_t ready = std::max({w.next_ok, dep, wait_vm, wait_lgkm, port, xdl});
    if (!w.evaluated) {
      w.evaluated = true;
      w.first_ready = ready;
      // The binding constraint names the stall (ties: the one listed first).
      std::pair<uint64_t, Stall> c[] = {{wait_vm, Stall::WaitcntVm}, {wait_lgkm, Stall::WaitcntLgkm},
                                        {dep, Stall::Dependency},    {xdl, Stall::MfmaBusy},
                                        {port, Stall::IssueContention}};
      w.first_reason = Stall::IssueContention;
      for (const auto& [v, s] : c)
        if (v == ready && v > w.next_ok) { w.first_reason = s; break; }
    }
    if (ready > t) {
      return ready;
    }

    // Issue at t.
    InstProfile& prof = res_.per_inst[te.inst];
    ++prof.executions;
    ++res_.wave_instructions;
    const uint64_t gap = t - std::min(t, w.next_ok);
    const uint64_t first_part = std::min<uint64_t>(gap, w.first_ready - std::min(w.first_ready, w.next_ok));
    prof.stall[static_cast<int>(w.first_reason)] += static_cast<double>(first_part);
    prof.stall[static_cast<int>(Stall::IssueContention)] += static_cast<double>(gap - first_part);
    w.evaluated = false;

    uint64_t hold = hw_.issue_period;  // cycles until this wave's next issue
    const uint64_t lanes = te.active_lanes;
    auto write_defs = [&](uint64_t ready_at, bool valu) {
      for (const auto& d : in.defs) {
        if (d.file == 0) {
          for (unsigned r = d.first; r < d.first + d.count && r < w.v.size(); ++r) {
            VregState& v = w.v[r];
            v.ready = ready_at, v.by_mfma = false, v.by_valu = valu;
          }
        } else {
          for (unsigned r = d.first; r < d.first + d.count && r < w.s.size(); ++r) w.s[r] = ready_at;
        }
      }
    };
    switch (si.kind) {
      case Kind::Valu:
      case Kind::Trans: {
        const unsigned cyc = si.kind == Kind::Trans ? hw_.trans_cycles : hw_.valu_cycles;
        S.port_free[kPortValu] = t + cyc;
        res_.valu_busy += cyc;
        res_.flops += si.flops_per_lane * lanes;
        write_defs(t + cyc, true);
        break;
      }
      case Kind::Mfma: {
        const uint64_t busy = static_cast<uint64_t>(si.passes) * hw_.issue_period;
        S.xdl_free = t + busy;
        S.port_free[kPortValu] = t + (si.coexec ? hw_.mfma_valu_coexec : busy);
        res_.mfma_busy += static_cast<double>(busy);
        res_.flops += si.mfma_flops;
        for (unsigned r = si.dst.first; r < si.dst.first + si.dst.count && r < w.v.size(); ++r) {
          VregState& v = w.v[r];
          v.by_mfma = true, v.by_valu = false, v.mfma_issue = t, v.passes = static_cast<uint8_t>(si.passes);
          v.xdl = si.xdl, v.dgemm16 = si.dgemm16, v.dst_first = si.dst.first, v.dst_count = si.dst.count;
          v.ready = t + busy;
        }
        break;
      }
      case Kind::Salu:
        S.port_free[kPortSalu] = t + hw_.salu_cycles;
        res_.salu_busy += hw_.salu_cycles;
        write_defs(t + hw_.salu_cycles, false);
        break;
      case Kind::Smem: {
        S.port_free[kPortSalu] = t + hw_.salu_cycles;
        const uint64_t done = mem_.scalar_access(w.cu, w.trace->sectors.data() + te.sector_first, te.sector_count, t);
        w.lgkm.emplace_back(done, false);
        last_memory_ = std::max(last_memory_, done);
        write_defs(0, false);
        break;
      }
      case Kind::Vmem: {
        S.port_free[kPortVmem] = t + hw_.issue_period;
        if (warming_ && !si.store) warm(w, te, t, false);
        uint64_t done = mem_.vector_access(w.cu, w.trace->sectors.data() + te.sector_first, te.sector_count,
                                           te.active_lanes, si.store, si.atomic, t, groups_[w.group].l1_tag);
        if (warming_ && !si.store) warm(w, te, t, true);
        done = std::max(done, w.last_vm_done);  // vmcnt retires in order (S9)
        w.last_vm_done = done;
        w.vm.push_back(done);
        if (si.flat) w.lgkm.emplace_back(done, false);  // FLAT also counts in lgkmcnt, out of order (S9)
        last_memory_ = std::max(last_memory_, done);
        write_defs(0, false);
        break;
      }
      case Kind::Lds: {
        S.port_free[kPortLds] = t + hw_.issue_period;
        const unsigned phases = te.lds_phase_cycles ? te.lds_phase_cycles : std::max(1u, 64u / hw_.lds_banks);
        // The pipe is held by the bank phases or by the data port, whichever takes longer (hw_params.h).
        const double port = hw_.lds_port_bytes > 0 ? static_cast<double>(lanes) * te.lds_lane_bytes / hw_.lds_port_bytes : 0;
        const double occ = hw_.lds_cycles_base + std::max(hw_.lds_cycles_per_phase_cycle * phases, port);
        Server& pipe = C.lds[std::min<unsigned>(w.simd / 2, 1)];
        uint64_t done = static_cast<uint64_t>(std::ceil(pipe.serve(static_cast<double>(t), occ))) + hw_.lat_lds;
        done = std::max(done, w.last_lds_done);  // LDS returns in order
        w.last_lds_done = done;
        w.lgkm.emplace_back(done, true);
        res_.lds_bytes += lanes * 4;
        write_defs(0, false);
        break;
      }
      case Kind::Branch: {
        S.port_free[kPortBranch] = t + hw_.issue_period;
        const bool taken = w.pos + 1 < w.trace->entries.size() && w.trace->entries[w.pos + 1].inst != te.inst + 1;
        if (taken) hold += hw_.branch_taken_cycles;
        write_defs(t + hw_.issue_period, false);
        break;
      }
      case Kind::Nop: hold = static_cast<uint64_t>(si.nop_states) * hw_.issue_period; break;
      case Kind::Sleep: hold = std::max<uint64_t>(hw_.issue_period, static_cast<uint64_t>(si.sleep) * hw_.sleep_unit); break;
      case Kind::Setprio: w.prio = si.prio; break;
      case Kind::Waitcnt: case Kind::Barrier: case Kind::EndPgm: break;
    }
    prof.issue_cycles += static_cast<double>(hold);
    w.next_ok = t + hold;
    ++w.pos;
    next_entry_[wi] = w.trace->entries.data() + w.pos;
    Group& G = groups_[w.group];
    if (si.kind == Kind::EndPgm || w.pos >= w.trace->entries.size()) {
      w.done = true;
      G.end = std::max(G.end, w.next_ok);
      --G.alive;
      if (G.alive == 0) finish_group(w.group, w.next_ok);
      else try_release(G, t);
      return std::nullopt;
    }
    if (si.kind == Kind::Barrier) {
      w.at_barrier = true;
      w.barrier_arrival = w.next_ok;
      w.barrier_inst = te.inst;
      ++G.arrived;
      try_release(G, t);
      return std::nullopt;
    }
    return w.next_ok;
  }

  // The same load of the workgroups the wave's workgroup stands for (WarmingGroup): those dispatched
  // before it before its own access (`after` false), those dispatched with it or later after it. One dispatched
  // with it issues the load at the same time: the device's one fetch of a line they share is then as much its
  // representative's as its own, and the representative's request enters the HBM queue. Warming first let it
  // find the line in flight without that wait (hip/layernorm_f32, half A of the sampled-vs-exact test: 3.3 %
  // fast, its shared gamma/beta lines 685 cycles where exact waits 757; docs/timing.md "Sampling").
  void warm(const WaveState& w, const TraceEntry& te, uint64_t t, bool after) {
    if (w.group >= warming_->size()) return;
    for (const WarmingGroup& o : (*warming_)[w.group]) {
      if ((o.offset >= 0) != after || w.in_group >= o.waves->size()) continue;
      const WaveTrace& ow = (*o.waves)[w.in_group];
      if (w.pos >= ow.entries.size()) continue;
      const TraceEntry& oe = ow.entries[w.pos];
      if (oe.inst != te.inst || oe.sector_count == 0) continue;  // its control flow went elsewhere
      const uint64_t at = static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(t) + o.offset));
      mem_.warm(o.device_xcd, ow.sectors.data() + oe.sector_first, oe.sector_count, at);
    }
  }

  void try_release(Group& G, uint64_t t) {
    if (G.arrived == 0 || G.arrived < G.alive) return;
    uint64_t last = t;
    for (size_t wi : G.waves)
      if (waves_[wi].at_barrier) last = std::max(last, waves_[wi].barrier_arrival);
    const uint64_t release = last + hw_.barrier_cycles;
    for (size_t wi : G.waves) {
      WaveState& w = waves_[wi];
      if (!w.at_barrier) continue;
      res_.per_inst[w.barrier_inst].stall[static_cast<int>(Stall::Barrier)] += static_cast<double>(release - w.barrier_arrival);
      w.at_barrier = false;
      w.next_ok = release;
      push(wi, release);
    }
    G.arrived = 0;
  }

  const emu::Program& prog_;
  const LaunchTrace& trace_;
  codeobj::Occupancy occ_;
  const HwParams& hw_;
  DeviceSlice slice_;
  const Warming* warming_ = nullptr;
  std::vector<StaticInst> info_;
  ModelResult res_;
  std::vector<Cu> cus_;
  MemoryHierarchy mem_;
  std::vector<uint64_t> dispatch_free_;
  std::vector<Group> groups_;
  std::vector<WaveState> waves_;
  std::vector<const TraceEntry*> next_entry_;  // per wave: its next trace entry (prefetch_wave)
  // A 4-ary min-heap of events (by operator>) with push_pop, which std::priority_queue lacks. A wave has at most
  // one event queued and (t, priority, wave) tells any two apart, so events leave in one order whatever the heap's
  // shape; four children per node halve the levels a sift crosses (sift_down was 6 % of an elementwise replay).
  class EventHeap {
   public:
    bool empty() const { return h_.empty(); }
    const Event& top() const { return h_.front(); }
    void push(const Event& e) {
      h_.push_back(e);
      for (size_t i = h_.size() - 1; i > 0 && h_[(i - 1) / 4] > h_[i]; i = (i - 1) / 4) std::swap(h_[i], h_[(i - 1) / 4]);
    }
    Event pop() {
      Event top = h_.front();
      h_.front() = h_.back();
      h_.pop_back();
      sift_down();
      return top;
    }
    // push(e) then pop(), in one sift.
    Event push_pop(Event e) {
      if (h_.empty() || !(e > h_.front())) return e;
      std::swap(e, h_.front());
      sift_down();
      return e;
    }

   private:
    void sift_down() {
      const size_t n = h_.size();
      for (size_t i = 0;;) {
        const size_t first = 4 * i + 1;
        size_t m = i;
        for (size_t c = first; c < first + 4 && c < n; ++c)
          if (h_[m] > h_[c]) m = c;
        if (m == i) return;
        std::swap(h_[i], h_[m]);
        i = m;
      }
    }
    std::vector<Event> h_;
  };
  EventHeap heap_;
  std::vector<uint64_t> counter_scratch_;  // step(): the lgkm completion times of a waitcnt
  uint64_t next_group_ = 0, last_memory_ = 0;
  bool filling_ = false;  // run(): the first fill of the CUs
};

}  // namespace

void set_clock(ModelResult& r, const HwParams& hw, double cus) {
  const double unit_cycles = static_cast<double>(r.cycles) * cus * hw.simds_per_cu;
  const double busy = unit_cycles > 0 ? std::min(1.0, r.mfma_busy / unit_cycles) : 0.0;
  r.clock_ghz = hw.clock_ghz - (hw.clock_ghz - hw.clock_mfma_ghz) * busy;
  r.microseconds = r.cycles / (r.clock_ghz * 1e3);
}

void set_roofline(ModelResult& r, const HwParams& hw, double cus, double hbm_bytes_per_cycle) {
  const double simds = cus * hw.simds_per_cu;
  struct B { double c; const char* n; } bounds[] = {{r.unique_bytes / hbm_bytes_per_cycle, "HBM bandwidth"},
                                                    {r.valu_busy / simds, "VALU"},
                                                    {r.mfma_busy / simds, "MFMA"},
                                                    {r.salu_busy / simds, "SALU"}};
  r.roofline_cycles = 0;
  for (const auto& b : bounds)
    if (b.c > r.roofline_cycles) r.roofline_cycles = b.c, r.roofline_bound = b.n;
}

ModelResult model_launch(const emu::Program& program, const LaunchTrace& trace, const codeobj::Occupancy& occupancy,
                         const HwParams& hw) {
  return Simulator(program, trace, occupancy, hw, DeviceSlice::whole_device(hw)).run();
}

ModelResult model_launch(const emu::Program& program, const LaunchTrace& trace, const codeobj::Occupancy& occupancy,
                         const HwParams& hw, const DeviceSlice& slice, const Warming* warming) {
  return Simulator(program, trace, occupancy, hw, slice, warming).run();
}

}  // namespace asmevo::timing
