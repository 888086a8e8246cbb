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

#include "check/isa.h"
#include "support/error.h"

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

// ---- Static instruction facts -------------------------------------------------------------------

enum class Kind : uint8_t { Valu, Trans, Mfma, Salu, Smem, Vmem, Lds, Branch, EndPgm, Waitcnt, Barrier, Nop, Sleep, Setprio };
enum Port : uint8_t { kPortValu, kPortSalu, kPortVmem, kPortLds, kPortBranch, kNumPorts };

struct Range {
  uint16_t first = 0, count = 0;
  bool overlaps(unsigned f, unsigned c) const { return count && f < first + count && first < f + c; }
  bool contains(unsigned r) const { return r >= first && r < first + count; }
};

struct StaticInst {
  Kind kind = Kind::Salu;
  bool store = false, atomic = false;
  bool flat = false;  // flat_*: counts in vmcnt and lgkmcnt (the address may be LDS)
  unsigned wait_vm = ~0u, wait_lgkm = ~0u;
  unsigned nop_states = 0, sleep = 0;
  int prio = 0;
  double flops_per_lane = 0;
  // MFMA.
  int passes = 0;
  bool xdl = false, dgemm16 = false, coexec = true;
  double mfma_flops = 0;
  Range dst, a, b, c;  // unified VGPR indices
};

Range unify(const program::RegRange& r, unsigned accum_offset) {
  if (r.file == program::RegFile::VGPR) return {static_cast<uint16_t>(r.first), static_cast<uint16_t>(r.count)};
  if (r.file == program::RegFile::AGPR) return {static_cast<uint16_t>(accum_offset + r.first), static_cast<uint16_t>(r.count)};
  return {};
}

double valu_flops_per_lane(std::string_view m) {
  static constexpr std::string_view kNoFlop[] = {"v_cmp", "v_cvt", "v_mov", "v_cndmask", "v_readlane", "v_readfirstlane",
                                                 "v_writelane", "v_accvgpr", "v_frexp", "v_class", "v_pack"};
  for (auto p : kNoFlop)
    if (m.starts_with(p)) return 0;
  const bool flt = m.find("_f32") != m.npos || m.find("_f16") != m.npos || m.find("_f64") != m.npos || m.find("bf16") != m.npos;
  if (!flt) return 0;
  double f = 1;
  for (auto p : {"fma", "mac", "mad", "dot"})
    if (m.find(p) != m.npos) f = 2;
  if (m.starts_with("v_pk_")) f *= 2;
  return f;
}

// 2*M*N*K per block, blocks = result elements / (M*N): "v_mfma_f32_32x32x8f16" with 16 result VGPRs -> 16384.
double mfma_flops(std::string_view m, unsigned dst_regs) {
  unsigned M = 0, N = 0, K = 0;
  for (size_t p = 0; p < m.size(); ++p) {
    if (!std::isdigit(static_cast<unsigned char>(m[p])) || (p && m[p - 1] != '_')) continue;
    if (std::sscanf(std::string(m.substr(p)).c_str(), "%ux%ux%u", &M, &N, &K) == 3) break;
    M = N = K = 0;
  }
  if (!M || !N || !K) return 0;
  const bool f64 = m.starts_with("v_mfma_f64");
  const double elems = dst_regs * 64.0 / (f64 ? 2 : 1);
  return 2.0 * M * N * K * (elems / (M * N));
}

StaticInst classify(const emu::ExecInst& in, codeobj::Arch arch, unsigned accum_offset, const std::string& kernel) {
  const program::Instruction& r = *in.raw;
  StaticInst s;
  const std::string_view m = r.mnemonic;
  auto unsupported = [&]() -> Error {
    return Error(fmt::format("the timing model cannot time {} (instruction class {})", r.mnemonic, program::class_name(r.cls)),
                 fmt::format("kernel {}, pc 0x{:x}: {}", kernel, r.address, r.text),
                 "add the instruction's timing class to timing/model.cpp classify() with a cited cost");
  };
  switch (r.cls) {
    case InstClass::SALU: s.kind = Kind::Salu; break;
    case InstClass::VALU:
    case InstClass::VOP3P:
      s.kind = check::is_trans(r) ? Kind::Trans : Kind::Valu;
      s.flops_per_lane = valu_flops_per_lane(m);
      break;
    case InstClass::MFMA: {
      auto info = check::mfma_info(r, arch);
      if (!info || info->passes <= 0) throw unsupported();
      s.kind = Kind::Mfma;
      s.passes = info->passes;
      s.xdl = info->xdl;
      s.dgemm16 = info->dgemm && m.find("16x16") != m.npos;
      // S5: CDNA3 F32-input MFMAs and all F64 MFMAs cannot co-execute with VALU.
      const bool f32_in = m.ends_with("f32") && !m.ends_with("xf32") && arch != codeobj::Arch::gfx90a;
      s.coexec = !info->dgemm && !f32_in;
      auto ops = check::mfma_operands(r);
      s.dst = unify(ops.dst, accum_offset), s.a = unify(ops.a, accum_offset), s.b = unify(ops.b, accum_offset);
      s.c = unify(ops.c, accum_offset);
      s.mfma_flops = mfma_flops(m, ops.dst.count);
      break;
    }
    case InstClass::SMEM: s.kind = Kind::Smem; s.store = r.may_store && !r.may_load; break;
    case InstClass::VMEMLoad: case InstClass::VMEMStore: case InstClass::VMEMAtomic: case InstClass::VMEMCache:
    case InstClass::FLAT: case InstClass::GLOBAL: case InstClass::SCRATCH:
      s.kind = Kind::Vmem;
      s.flat = r.cls == InstClass::FLAT;
      s.atomic = r.may_load && r.may_store;
      s.store = r.may_store && !r.may_load;
      break;
    case InstClass::DS: s.kind = Kind::Lds; break;
    case InstClass::Branch: s.kind = r.is_return || m.starts_with("s_endpgm") ? Kind::EndPgm : Kind::Branch; break;
    case InstClass::Waitcnt: {
      auto w = check::decode_waitcnt(r, arch);
      if (!w) throw unsupported();
      s.kind = Kind::Waitcnt;
      s.wait_vm = w->count[check::kVmCnt];
      s.wait_lgkm = w->count[check::kLgkmCnt];
      break;
    }
    case InstClass::Barrier: s.kind = Kind::Barrier; break;
    case InstClass::Nop: s.kind = Kind::Nop; s.nop_states = static_cast<unsigned>(in.simm & 0xf) + 1; break;
    case InstClass::Other:
      if (m == "s_sleep") { s.kind = Kind::Sleep; s.sleep = static_cast<unsigned>(in.simm & 0x7f); break; }
      if (m == "s_setprio") { s.kind = Kind::Setprio; s.prio = static_cast<int>(in.simm & 3); break; }
      throw unsupported();
    default: throw unsupported();
  }
  return s;
}

// ---- Hardware state ----------------------------------------------------------------------------

// LRU set-associative cache of line addresses. Each line remembers when its data arrives, so a
// request to a line still being filled waits for that fill instead of paying a second miss. Sets are
// allocated on first use: a small launch touches few of a device's L2 sets.
class Cache {
 public:
  Cache() = default;
  Cache(unsigned bytes, unsigned ways, unsigned line) : ways_(ways) { sets_ = std::max(1u, bytes / line / ways); }
  // The time the line's data is (or will be) present, on a hit; nullopt on a miss.
  std::optional<uint64_t> lookup(uint64_t line) {
    auto it = where_.find(line);
    if (it == where_.end()) return std::nullopt;
    Way& w = pool_[it->second];
    w.stamp = ++clock_;
    return w.ready;
  }
  // Allocates the line (evicting the least recently used one), its data present from `ready`.
  void fill(uint64_t line, uint64_t ready) {
    if (auto it = where_.find(line); it != where_.end()) {
      pool_[it->second] = Way{line, ++clock_, ready};
      return;
    }
    Way* set = find_set(line, true);
    unsigned victim = 0;
    for (unsigned i = 1; i < ways_; ++i)
      if (set[i].stamp < set[victim].stamp) victim = i;
    if (set[victim].tag != ~0ull) where_.erase(set[victim].tag);
    set[victim] = Way{line, ++clock_, ready};
    where_[line] = static_cast<uint32_t>(&set[victim] - pool_.data());
  }

 private:
  struct Way {
    uint64_t tag = ~0ull, stamp = 0, ready = 0;
  };
  Way* find_set(uint64_t line, bool create) {
    const size_t set = static_cast<size_t>(line % sets_);
    if (slot_.empty()) {
      if (!create) return nullptr;
      slot_.assign(sets_, -1);
    }
    if (slot_[set] < 0) {
      if (!create) return nullptr;
      slot_[set] = static_cast<int32_t>(pool_.size());
      pool_.resize(pool_.size() + ways_);
    }
    return &pool_[static_cast<size_t>(slot_[set])];
  }
  unsigned sets_ = 1, ways_ = 1;
  std::vector<int32_t> slot_;  // per set: first way in pool_, -1 while unused
  std::vector<Way> pool_;
  std::unordered_map<uint64_t, uint32_t> where_;  // resident line -> its way in pool_ (64-way L1s make scans slow)
  uint64_t clock_ = 0;
};

// A bandwidth: requests are served in arrival order, `bytes_per_cycle` at a time.
struct Server {
  double free = 0;
  double bytes_per_cycle = 1;
  // Returns when the last byte of the request has passed.
  double serve(double t, double bytes) {
    free = std::max(free, t) + bytes / bytes_per_cycle;
    return free;
  }
};

struct Simd {
  std::array<uint64_t, kNumPorts> port_free{};
  uint64_t xdl_free = 0;
  unsigned resident = 0;
};

struct Cu {
  Cache l1;
  Server ta, l1_data;
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
  uint64_t seq = 0;
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
};

struct Group {
  unsigned cu = 0;
  unsigned alive = 0, arrived = 0;
  std::vector<size_t> waves;  // indices into the wave table
  uint64_t end = 0;
};

// The earliest time at which at most `n` of the completion times in `q` lie in the future.
uint64_t counter_ready(std::vector<uint64_t> q, unsigned n) {
  if (q.size() <= n) return 0;
  std::sort(q.begin(), q.end());
  return q[q.size() - n - 1];
}

class Simulator {
 public:
  Simulator(const emu::Program& prog, const LaunchTrace& trace, const codeobj::Occupancy& occ, const HwParams& hw)
      : prog_(prog), trace_(trace), occ_(occ), hw_(hw) {
    const auto& insts = prog.insts();
    info_.reserve(insts.size());
    for (const auto& in : insts) info_.push_back(classify(in, prog.arch(), prog.accum_offset(), prog.kernel()));
    res_.hw = &hw;
    res_.occupancy = occ;
    res_.per_inst.resize(insts.size());
    cus_.resize(hw.cus);
    for (auto& c : cus_) {
      c.l1 = Cache(hw.l1_bytes, hw.l1_ways, hw.l1_line);
      c.ta.bytes_per_cycle = 1;
      c.l1_data.bytes_per_cycle = hw.l1_bw;
      c.simds.resize(hw.simds_per_cu);
    }
    scache_.resize((hw.cus + 1) / 2, Cache(hw.scache_bytes, 4, hw.scache_line));  // S1: 16 KiB per 2 CUs; 4-way [U]
    l2_.resize(hw.xcds, Cache(hw.l2_bytes, hw.l2_ways, hw.l2_line));
    l2_bw_.resize(hw.xcds);
    for (auto& s : l2_bw_) s.bytes_per_cycle = hw.l2_bw;
    dispatch_free_.assign(hw.xcds, 0);
    mall_.bytes_per_cycle = hw.has_mall ? hw.mall_bw : 1;
    hbm_.bytes_per_cycle = hw.hbm_bw;
    l1_shift_ = std::countr_zero(hw.l1_line);
    l2_shift_ = std::countr_zero(hw.l2_line);
    sc_shift_ = std::countr_zero(hw.scache_line);
  }

  ModelResult run() {
    const uint64_t ngroups = trace_.groups.size();
    const unsigned per_cu = occ_.workgroups_per_cu;
    if (per_cu == 0)
      throw Error("the kernel's resources allow no workgroup on a CU", prog_.kernel(),
                  "reduce VGPRs, SGPRs, LDS or the workgroup size");
    groups_.resize(ngroups);
    // Initial fill: workgroup k to CU rr(k mod CUs) while it has room (round robin over XCDs).
    const uint64_t initial = std::min<uint64_t>(ngroups, static_cast<uint64_t>(hw_.cus) * per_cu);
    for (uint64_t g = 0; g < initial; ++g) start_group(g, cu_of_slot(g % hw_.cus), 0);
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
    for (const auto& g : groups_) end = std::max(end, g.end);
    end = std::max<uint64_t>(end, last_memory_);
    end = std::max<uint64_t>(end, static_cast<uint64_t>(std::ceil(hbm_.free)));
    res_.cycles = end;
    res_.microseconds = end / (hw_.clock_ghz * 1e3);
    res_.workgroups = ngroups;
    res_.unique_bytes = unique_sectors() << kSectorShift;
    std::unordered_set<unsigned> used;
    for (const auto& g : groups_) used.insert(g.cu);
    res_.cus_used = static_cast<unsigned>(used.size());
    // Roofline: bytes over HBM bandwidth, each unit's work over its device-wide rate.
    const double simds = static_cast<double>(hw_.cus) * hw_.simds_per_cu;
    struct B { double c; const char* n; } bounds[] = {{res_.unique_bytes / hw_.hbm_bw, "HBM bandwidth"},
                                                      {res_.valu_busy / simds, "VALU"},
                                                      {res_.mfma_busy / simds, "MFMA"},
                                                      {res_.salu_busy / simds, "SALU"}};
    for (const auto& b : bounds)
      if (b.c > res_.roofline_cycles) res_.roofline_cycles = b.c, res_.roofline_bound = b.n;
    return std::move(res_);
  }

 private:
  // Distinct 64-byte sectors the launch touched (vector and scalar memory).
  uint64_t unique_sectors() const {
    std::vector<uint64_t> all;
    for (const auto& g : trace_.groups)
      for (const auto& w : g) all.insert(all.end(), w.sectors.begin(), w.sectors.end());
    std::sort(all.begin(), all.end());
    return static_cast<uint64_t>(std::unique(all.begin(), all.end()) - all.begin());
  }

  unsigned cu_of_slot(uint64_t k) const {
    const unsigned per_xcd = hw_.cus / hw_.xcds;
    return static_cast<unsigned>((k % hw_.xcds) * per_xcd + (k / hw_.xcds) % per_xcd);
  }
  unsigned xcd_of(unsigned cu) const { return cu / (hw_.cus / hw_.xcds); }

  void start_group(uint64_t g, unsigned cu, uint64_t t) {
    Group& G = groups_[g];
    G.cu = cu;
    Cu& C = cus_[cu];
    ++C.groups;
    const auto& traces = trace_.groups[g];
    const unsigned xcd = xcd_of(cu);
    uint64_t start = std::max(t, dispatch_free_[xcd]);
    dispatch_free_[xcd] = start + static_cast<uint64_t>(traces.size()) * hw_.wave_launch_cycles;
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
      w.seq = seq_++;
      w.next_ok = start + (i + 1) * hw_.wave_launch_cycles;
      w.v.resize(std::max(1u, prog_.num_vregs()));
      waves_.push_back(std::move(w));
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

  struct Event {
    uint64_t t;
    int prio;
    uint64_t seq;
    size_t wave;
    bool operator>(const Event& o) const {
      if (t != o.t) return t > o.t;
      if (prio != o.prio) return prio < o.prio;
      return seq > o.seq;
    }
  };
  void push(size_t wi, uint64_t t) { heap_.push(Event{t, waves_[wi].prio, waves_[wi].seq, wi}); }

  void loop() {
    if (heap_.empty()) return;
    Event e = heap_.pop();
    for (;;) {
      auto next = step(e.wave, e.t);
      if (next) {
        // The wave goes again at `next`, unless another event comes first (same order as pushing
        // it and popping the first, with one sift instead of two).
        e = heap_.push_pop(Event{*next, waves_[e.wave].prio, waves_[e.wave].seq, e.wave});
      } else if (!heap_.empty()) {
        e = heap_.pop();
      } else {
        break;
      }
    }
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
      if (si.wait_vm != ~0u) wait_vm = counter_ready(w.vm, si.wait_vm);
      if (si.wait_lgkm != ~0u) {
        std::vector<uint64_t> q;
        for (const auto& c : w.lgkm) q.push_back(c.first);
        wait_lgkm = counter_ready(std::move(q), si.wait_lgkm);
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
        uint64_t done = t + hw_.lat_scache;
        Cache& sc = scache_[w.cu / 2];
        const unsigned xcd = xcd_of(w.cu);
        uint64_t prev = ~0ull;
        for (uint32_t i = 0; i < te.sector_count; ++i) {
          uint64_t sec = w.trace->sectors[te.sector_first + i];
          uint64_t line = (sec << kSectorShift) >> sc_shift_;
          if (line == prev) continue;
          prev = line;
          if (auto r = sc.lookup(line)) {
            done = std::max(done, *r);
            continue;
          }
          res_.l2_bytes += hw_.scache_line;
          uint64_t ready = static_cast<uint64_t>(l2_bw_[xcd].serve(t, hw_.scache_line)) + hw_.lat_smem_miss;
          const uint64_t l2_line = (sec << kSectorShift) >> l2_shift_;
          if (auto r = l2_[xcd].lookup(l2_line)) ready = std::max(ready, *r);
          else {
            ready = std::max(ready, fetch_below_l2(t, sec, hw_.l2_line));
            l2_[xcd].fill(l2_line, ready);
          }
          sc.fill(line, ready);
          done = std::max(done, ready);
        }
        w.lgkm.emplace_back(done, false);
        last_memory_ = std::max(last_memory_, done);
        write_defs(0, false);
        break;
      }
      case Kind::Vmem: {
        S.port_free[kPortVmem] = t + hw_.issue_period;
        uint64_t done = vmem(w, te, si, t);
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
        const double occ = hw_.lds_cycles_base + hw_.lds_cycles_per_phase_cycle * phases;
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

  // Time at which an L2 miss of sector `sec` (line of `line_bytes`) is back from the MALL or HBM.
  uint64_t fetch_below_l2(uint64_t t, uint64_t sec, unsigned line_bytes) {
    const uint64_t line_secs = line_bytes >> kSectorShift;
    const uint64_t first = sec / line_secs * line_secs;
    bool all_in_mall = hw_.has_mall;
    uint64_t pending = 0;  // sectors still being filled into the MALL
    for (uint64_t s = first; s < first + line_secs && all_in_mall; ++s) {
      auto it = mall_ready_.find(s);
      if (it == mall_ready_.end()) all_in_mall = false;
      else pending = std::max(pending, it->second);
    }
    if (all_in_mall) {
      res_.mall_bytes += line_bytes;
      return std::max(pending, static_cast<uint64_t>(mall_.serve(t, line_bytes)) + hw_.lat_mall);
    }
    res_.hbm_bytes += line_bytes;
    const uint64_t ready = static_cast<uint64_t>(hbm_.serve(t, line_bytes)) + hw_.lat_hbm;
    for (uint64_t s = first; s < first + line_secs; ++s) mall_ready_.emplace(s, ready);
    return ready;
  }

  // One vector-memory instruction: address processing, then the cache hierarchy; returns completion.
  uint64_t vmem(WaveState& w, const TraceEntry& te, const StaticInst& si, uint64_t t) {
    Cu& C = cus_[w.cu];
    const unsigned xcd = xcd_of(w.cu);
    // The texture addresser takes ta_cycles per 64 active lanes (at least one quarter of it).
    const double ta = hw_.ta_cycles * std::max(0.25, std::ceil(te.active_lanes / 16.0) / 4.0);
    const double ta_done = C.ta.serve(static_cast<double>(t), ta);
    // Distinct L1 lines of the instruction.
    lines_.clear();
    for (uint32_t i = 0; i < te.sector_count; ++i) {
      uint64_t sec = w.trace->sectors[te.sector_first + i];
      lines_.push_back(sec >> (l1_shift_ - kSectorShift));
    }
    std::sort(lines_.begin(), lines_.end());
    lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
    uint64_t done = static_cast<uint64_t>(ta_done) + hw_.lat_l1;
    if (lines_.empty()) return done;
    const double l1_bytes = static_cast<double>(lines_.size()) * hw_.l1_line;
    res_.l1_bytes += static_cast<uint64_t>(l1_bytes);
    const double l1_done = C.l1_data.serve(ta_done, l1_bytes);
    done = std::max(done, static_cast<uint64_t>(l1_done) + hw_.lat_l1);
    const bool to_l2 = si.store || si.atomic;  // L1 is write-through (S11); atomics execute at the L2
    const double start = ta_done;
    uint64_t prev_l2 = ~0ull, prev_ready = 0;
    for (uint64_t line : lines_) {
      const uint64_t addr = line << l1_shift_;
      if (si.store) {
        // Written bytes reach HBM eventually (L2 write-back): charged once per 64-byte sector, when first written.
        for (uint64_t s = addr >> kSectorShift; s < (addr + hw_.l1_line) >> kSectorShift; ++s)
          if (written_.insert(s).second) {
            mall_ready_[s] = t;
            res_.hbm_bytes += 1u << kSectorShift;
            hbm_.serve(static_cast<double>(t), 1u << kSectorShift);
          }
      }
      if (!to_l2) {
        if (auto r = C.l1.lookup(line)) {
          done = std::max(done, *r);
          continue;
        }
      }
      const uint64_t l2_line = addr >> l2_shift_;
      uint64_t ready;
      if (l2_line == prev_l2) {
        ready = prev_ready;  // the same L2 request brought this L1 line
      } else {
        prev_l2 = l2_line;
        res_.l2_bytes += hw_.l2_line;
        ready = static_cast<uint64_t>(l2_bw_[xcd].serve(start, hw_.l2_line)) + hw_.lat_l2 +
                (si.atomic ? hw_.lat_atomic_extra : 0);
        if (!si.store) {
          if (auto r = l2_[xcd].lookup(l2_line)) ready = std::max(ready, *r);
          else {
            ready = std::max(ready, fetch_below_l2(static_cast<uint64_t>(start), addr >> kSectorShift, hw_.l2_line) +
                                        (si.atomic ? hw_.lat_atomic_extra : 0));
            l2_[xcd].fill(l2_line, ready);
          }
        }
        prev_ready = ready;
      }
      if (!to_l2) C.l1.fill(line, ready);
      done = std::max(done, ready);
    }
    return done;
  }

  const emu::Program& prog_;
  const LaunchTrace& trace_;
  codeobj::Occupancy occ_;
  const HwParams& hw_;
  std::vector<StaticInst> info_;
  ModelResult res_;
  std::vector<Cu> cus_;
  std::vector<Cache> scache_, l2_;
  std::vector<Server> l2_bw_;
  Server mall_, hbm_;
  std::vector<uint64_t> dispatch_free_;
  std::unordered_map<uint64_t, uint64_t> mall_ready_;  // 64-byte sector -> time its data is in the MALL
  std::unordered_set<uint64_t> written_;
  std::vector<Group> groups_;
  std::vector<WaveState> waves_;
  // A binary min-heap of events (by operator>) with push_pop, which std::priority_queue lacks.
  class EventHeap {
   public:
    bool empty() const { return h_.empty(); }
    void push(const Event& e) {
      h_.push_back(e);
      for (size_t i = h_.size() - 1; i > 0 && h_[(i - 1) / 2] > h_[i]; i = (i - 1) / 2) std::swap(h_[i], h_[(i - 1) / 2]);
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
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h_[m] > h_[l]) m = l;
        if (r < n && h_[m] > h_[r]) m = r;
        if (m == i) return;
        std::swap(h_[i], h_[m]);
        i = m;
      }
    }
    std::vector<Event> h_;
  };
  EventHeap heap_;
  uint64_t next_group_ = 0, seq_ = 0, last_memory_ = 0;
  unsigned l1_shift_ = 7, l2_shift_ = 7, sc_shift_ = 6;
  std::vector<uint64_t> lines_;
};

}  // namespace

ModelResult model_launch(const emu::Program& program, const LaunchTrace& trace, const codeobj::Occupancy& occupancy,
                         const HwParams& hw) {
  return Simulator(program, trace, occupancy, hw).run();
}

}  // namespace asmevo::timing
