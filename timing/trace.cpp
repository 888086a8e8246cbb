#include "timing/trace.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "check/isa.h"
#include "emu/wave.h"

namespace asmevo::timing {

namespace {

// ds_read_b128 lane groups per phase, measured on MI300X (32 banks, 8 phases) and MI355X (64 banks,
// 4 phases) by S11; other widths and all writes use contiguous lane groups.
constexpr uint8_t kB128Read32[8][8] = {{0, 1, 2, 3, 20, 21, 22, 23},     {32, 33, 34, 35, 52, 53, 54, 55},
                                       {4, 5, 6, 7, 16, 17, 18, 19},     {36, 37, 38, 39, 48, 49, 50, 51},
                                       {8, 9, 10, 11, 28, 29, 30, 31},   {40, 41, 42, 43, 60, 61, 62, 63},
                                       {12, 13, 14, 15, 24, 25, 26, 27}, {44, 45, 46, 47, 56, 57, 58, 59}};
constexpr uint8_t kB128Read64[4][16] = {{0, 1, 2, 3, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27},
                                        {32, 33, 34, 35, 44, 45, 46, 47, 52, 53, 54, 55, 56, 57, 58, 59},
                                        {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 28, 29, 30, 31},
                                        {36, 37, 38, 39, 40, 41, 42, 43, 48, 49, 50, 51, 60, 61, 62, 63}};

// Bytes of one element from the mnemonic's type suffix: ds_read_b128 -> 16, ds_add_u64 -> 8.
unsigned element_bytes(std::string_view m) {
  size_t end = m.size();
  while (end > 0) {
    size_t start = m.rfind('_', end - 1);
    std::string_view tok = m.substr(start == std::string_view::npos ? 0 : start + 1, end - (start == std::string_view::npos ? 0 : start + 1));
    if (tok.size() >= 2 && (tok[0] == 'b' || tok[0] == 'u' || tok[0] == 'i' || tok[0] == 'f')) {
      std::string_view n = tok.substr(1);
      if (n == "128") return 16;
      if (n == "96") return 12;
      if (n == "64") return 8;
      if (n == "32") return 4;
      if (n == "16") return 2;
      if (n == "8") return 1;
    }
    if (start == std::string_view::npos) break;
    end = start;
  }
  return 4;
}

}  // namespace

uint64_t LaunchTrace::instructions() const {
  uint64_t n = 0;
  for (const auto& g : groups)
    for (const auto& w : g) n += w.entries.size();
  return n;
}

unsigned lds_phase_cycles(const uint32_t* addr0, const uint32_t* addr1, uint64_t exec, unsigned bytes, unsigned naddr,
                          unsigned banks, bool is_read) {
  const unsigned lane_bytes = std::max(4u, bytes) * naddr;
  unsigned per_phase = std::bit_floor(std::max(1u, banks * 4 / lane_bytes));
  per_phase = std::min(per_phase, 64u);
  const unsigned phases = 64 / per_phase;
  const bool b128_read = is_read && bytes == 16 && naddr == 1;
  unsigned total = 0;
  // No allocation and no sort: this runs for every LDS instruction the emulator executes. Per phase,
  // each bank keeps a chain of the distinct dwords it serves (a repeated dword is a broadcast).
  constexpr unsigned kMaxDwords = 64 * 2 * 5;  // 64 lanes x 2 addresses x 5 dwords (unaligned 16 bytes)
  std::array<uint32_t, kMaxDwords> value;
  std::array<int16_t, kMaxDwords> next;
  std::array<int16_t, 64> head;
  std::array<uint8_t, 64> count;
  banks = std::min(banks, 64u);
  auto lane_of = [&](unsigned p, unsigned i) {
    if (b128_read && banks == 32 && phases == 8) return static_cast<unsigned>(kB128Read32[p][i]);
    if (b128_read && banks == 64 && phases == 4) return static_cast<unsigned>(kB128Read64[p][i]);
    return p * per_phase + i;
  };
  const uint32_t span = std::max(1u, bytes) - 1;
  for (unsigned p = 0; p < phases; ++p) {
    // Most phases are conflict-free (swizzled layouts, broadcasts of a tile row): each bank serves at most one
    // distinct dword, cost 1. One pass keeping each bank's dword shows it; a bank asked for a second dword (a
    // conflict) takes the exact count below.
    uint64_t used = 0;
    std::array<uint32_t, 64> bank_dword;
    bool conflict = false;
    for (unsigned i = 0; i < per_phase && !conflict; ++i) {
      const unsigned l = lane_of(p, i);
      if (!(exec >> l & 1)) continue;
      for (unsigned a = 0; a < naddr && !conflict; ++a) {
        const uint32_t base = a ? addr1[l] : addr0[l];
        for (uint32_t d = base / 4; d <= (base + span) / 4; ++d) {
          const unsigned b = d % banks;
          if (!(used >> b & 1)) {
            used |= 1ull << b, bank_dword[b] = d;
          } else if (bank_dword[b] != d) {
            conflict = true;
            break;
          }
        }
      }
    }
    if (!conflict) {
      total += used ? 1 : 0;
      continue;
    }
    std::fill(head.begin(), head.begin() + banks, -1);
    std::fill(count.begin(), count.begin() + banks, 0);
    unsigned n = 0, worst = 0;
    for (unsigned i = 0; i < per_phase; ++i) {
      const unsigned l = lane_of(p, i);
      if (!(exec >> l & 1)) continue;
      for (unsigned a = 0; a < naddr; ++a) {
        const uint32_t base = a ? addr1[l] : addr0[l];
        for (uint32_t d = base / 4; d <= (base + span) / 4 && n < kMaxDwords; ++d) {
          const unsigned b = d % banks;
          bool seen = false;
          for (int j = head[b]; j >= 0 && !seen; j = next[j]) seen = value[j] == d;
          if (seen) continue;
          value[n] = d, next[n] = head[b], head[b] = static_cast<int16_t>(n), ++n;
          worst = std::max<unsigned>(worst, ++count[b]);
        }
      }
    }
    total += worst;
  }
  return std::max(total, 1u);
}

unsigned LdsCostCache::cost(uint32_t inst, const uint32_t* a0, const uint32_t* a1, uint64_t exec, unsigned bytes, unsigned naddr,
                            unsigned banks, bool is_read) {
  uint64_t lo = ~0ull, hi = 0;
  for (uint64_t m = exec; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    lo = std::min<uint64_t>(lo, a0[l]), hi = std::max<uint64_t>(hi, a0[l]);
    if (naddr == 2) lo = std::min<uint64_t>(lo, a1[l]), hi = std::max<uint64_t>(hi, a1[l]);
  }
  const uint64_t row = 4ull * std::min(banks, 64u);
  if (!exec || naddr > 2 || hi + std::max(1u, bytes) > (1ull << 32) || row == 0)
    return lds_phase_cycles(a0, a1, exec, bytes, naddr, banks, is_read);
  const uint32_t shift = static_cast<uint32_t>(lo - lo % row);
  std::array<uint32_t, 2 * 64> key{};
  for (uint64_t m = exec; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(std::countr_zero(m));
    key[l] = a0[l] - shift;
    if (naddr == 2) key[emu::kWaveSize + l] = a1[l] - shift;
  }
  Entry& e = entries_[inst % entries_.size()];
  if (e.inst == inst && e.exec == exec && e.bytes == bytes && e.addresses == naddr && e.banks == banks && e.is_read == is_read &&
      std::memcmp(e.addr.data(), key.data(), naddr * emu::kWaveSize * sizeof(uint32_t)) == 0)
    return e.cost;
  e.inst = inst, e.exec = exec, e.bytes = static_cast<uint16_t>(bytes), e.addresses = static_cast<uint16_t>(naddr);
  e.banks = static_cast<uint16_t>(banks), e.is_read = is_read, e.addr = key;
  e.cost = lds_phase_cycles(a0, a1, exec, bytes, naddr, banks, is_read);
  return e.cost;
}

TraceRecorder::TraceRecorder(const emu::Launch& L, const emu::Program& prog, const HwParams& hw,
                             std::span<const uint64_t> workgroups)
    : hw_(hw) {
  trace_.num_groups = L.num_groups;
  const uint64_t n = static_cast<uint64_t>(L.num_groups[0]) * L.num_groups[1] * L.num_groups[2];
  if (!workgroups.empty()) {
    trace_.group_ids.assign(workgroups.begin(), workgroups.end());
    slot_.assign(n, UINT32_MAX);
    for (size_t i = 0; i < workgroups.size(); ++i) slot_[workgroups[i]] = static_cast<uint32_t>(i);
  }
  trace_.groups.resize(workgroups.empty() ? n : workgroups.size());
  for (uint64_t i = 0; i < trace_.groups.size(); ++i) {
    const uint64_t g = workgroups.empty() ? i : workgroups[i];
    std::array<uint32_t, 3> wg{static_cast<uint32_t>(g % L.num_groups[0]),
                               static_cast<uint32_t>(g / L.num_groups[0] % L.num_groups[1]),
                               static_cast<uint32_t>(g / (static_cast<uint64_t>(L.num_groups[0]) * L.num_groups[1]))};
    auto gs = L.group_size(wg);
    trace_.groups[i].resize((gs[0] * gs[1] * gs[2] + 63) / 64);
  }
  lds_costs_.resize(trace_.groups.size());
  for (size_t i = 0; i < trace_.groups.size(); ++i) lds_costs_[i].resize(trace_.groups[i].size());
  scratch_slot_bytes_ = L.scratch_slot_bytes;
  const auto& insts = prog.insts();
  ds_.resize(insts.size());
  ends_.resize(insts.size());
  for (size_t i = 0; i < insts.size(); ++i) {
    const emu::ExecInst& in = insts[i];
    ends_[i] = in.raw && in.raw->mnemonic == "s_endpgm";
    if (!in.raw || in.raw->cls != program::InstClass::DS || !check::ds_accesses_lds_memory(*in.raw)) continue;
    DsShape& s = ds_[i];
    const std::string_view m = in.raw->mnemonic;
    s.memory = true;
    s.read = in.raw->may_load && !in.raw->may_store;
    s.bytes = static_cast<uint8_t>(element_bytes(m));
    const bool two = m.find("2st64_") != std::string_view::npos || m.find("2_") != std::string_view::npos;
    if (two) {
      const int64_t stride = static_cast<int64_t>(s.bytes) * (m.find("st64") != std::string_view::npos ? 64 : 1);
      s.addresses = 2;
      s.offset0 = in.mods.offset * stride;
      s.offset1 = in.mods.offset1 * stride;
    } else {
      s.offset0 = in.mods.offset;
    }
  }
}

std::pair<size_t, unsigned> TraceRecorder::wave_index(const emu::ExecContext& ctx, const emu::Wave& w) const {
  const auto& n = trace_.num_groups;
  uint64_t g = ctx.wg_id[0] + static_cast<uint64_t>(n[0]) * (ctx.wg_id[1] + static_cast<uint64_t>(n[1]) * ctx.wg_id[2]);
  return {slot_.empty() ? g : slot_[g], w.id_in_group};
}

WaveTrace& TraceRecorder::wave_of(const emu::ExecContext& ctx, const emu::Wave& w) {
  const auto [g, i] = wave_index(ctx, w);
  return trace_.groups[g][i];
}

void TraceRecorder::before_inst(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in) {
  WaveTrace& t = wave_of(ctx, w);
  ctx.observer_cursor = &t;  // on_access: this instruction's accesses go to this trace
  TraceEntry e;
  e.inst = w.pc;
  e.sector_first = static_cast<uint32_t>(t.sectors.size());
  const uint64_t exec = w.exec();
  e.active_lanes = static_cast<uint8_t>(std::popcount(exec));
  const DsShape& s = ds_[w.pc];
  if (s.memory && exec) {
    uint32_t a0[emu::kWaveSize], a1[emu::kWaveSize];
    const emu::VReg& base = w.v[in.src[0].index];
    for (unsigned l = 0; l < emu::kWaveSize; ++l) {
      a0[l] = static_cast<uint32_t>(base[l] + s.offset0);
      a1[l] = static_cast<uint32_t>(base[l] + s.offset1);
    }
    const auto [g, i] = wave_index(ctx, w);
    auto& costs = lds_costs_[g][i];
    if (!costs) costs = std::make_unique<LdsCostCache>();
    e.lds_phase_cycles = static_cast<uint16_t>(costs->cost(w.pc, a0, a1, exec, s.bytes, s.addresses, hw_.lds_banks, s.read));
  }
  e.lds_lane_bytes = s.memory ? static_cast<uint8_t>(s.bytes * s.addresses) : 4;  // permute/swizzle: a dword per lane
  if (ends_[w.pc]) {  // the wave is done with LDS: its cost memory goes (bounded by the waves running at once)
    const auto [g, i] = wave_index(ctx, w);
    lds_costs_[g][i].reset();
  }
  t.entries.push_back(e);
}

void TraceRecorder::on_access(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in, uint64_t address,
                              unsigned size, bool write, int lane) {
  // The trace of the wave before_inst saw last on this thread, which is `w`: the emulator calls on_access only
  // while the instruction it announced executes (wave_of costs a lookup through two vectors per lane).
  if (!ctx.observer_cursor) return;
  WaveTrace& t = *static_cast<WaveTrace*>(ctx.observer_cursor);
  // Scratch: the slot's address depends on the emulator thread; renumber it by workgroup.
  if (scratch_slot_bytes_ && address >= ctx.scratch_base && address - ctx.scratch_base < scratch_slot_bytes_) {
    const auto& n = trace_.num_groups;
    uint64_t g = ctx.wg_id[0] + static_cast<uint64_t>(n[0]) * (ctx.wg_id[1] + static_cast<uint64_t>(n[1]) * ctx.wg_id[2]);
    address = (1ull << 56) + g * scratch_slot_bytes_ + (address - ctx.scratch_base);
  }
  TraceEntry& e = t.entries.back();
  const uint64_t first = address >> kSectorShift, last = (address + std::max(size, 1u) - 1) >> kSectorShift;
  for (uint64_t s = first; s <= last; ++s) {
    if (e.sector_count && t.sectors.back() == s) continue;  // neighbouring lanes usually share a sector
    t.sectors.push_back(s);
    ++e.sector_count;
  }
}

void TraceRecorder::on_access_run(const emu::ExecContext& ctx, const emu::Wave& w, const emu::ExecInst& in, uint64_t address,
                                  unsigned size, unsigned count, bool write, int lane, int lane_step) {
  // Its accesses' sectors follow each other (each starts in the last one's last sector or the next), so recording the
  // run's first to last sector, less a repeat of the last recorded, gives what they give one by one. A run partly in
  // this workgroup's scratch slot (renumbered) and partly outside goes access by access.
  const uint64_t bytes = static_cast<uint64_t>(size) * count;
  const auto in_slot = [&](uint64_t a) { return a >= ctx.scratch_base && a - ctx.scratch_base < scratch_slot_bytes_; };
  if (bytes > UINT32_MAX || (scratch_slot_bytes_ && in_slot(address) != in_slot(address + bytes - 1)))
    return ExecObserver::on_access_run(ctx, w, in, address, size, count, write, lane, lane_step);
  on_access(ctx, w, in, address, static_cast<unsigned>(bytes), write, lane);
}

}  // namespace asmevo::timing
