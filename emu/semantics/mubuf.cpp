// MUBUF buffer loads and stores (ISA "Vector Memory Buffer Instructions"), with the buffer
// resource (V#) semantics of gfx9 / CDNA (MI200 and MI300 ISA guides, "Buffer Resource" and
// "Buffer Addressing" / "Range Checking"):
//
//   V#: base = {word1[15:0], word0}, stride = word1[29:16] (18 bits {word3 DATA_FORMAT[18:15],
//       stride} when ADD_TID_ENABLE), cache_swizzle word1[30], swizzle_enable word1[31],
//       num_records = word2, index_stride = 8 << word3[22:21], add_tid_enable = word3[23].
//       gfx9 has no ELEMENT_SIZE field: swizzled element size is 4 bytes (LLVM
//       SIInstrInfo: "GFX9 doesn't have ELEMENT_SIZE"; docs/emulator.md's private segment V#).
//   index  = (idxen ? VGPR index : 0) + (add_tid ? lane : 0)
//   offset = (offen ? VGPR offset : 0) + inst_offset         (idxen+offen: v[n] index, v[n+1] offset)
//   linear:   address = base + soffset + offset + stride * index
//   swizzled: address = base + soffset + (index_msb * stride + offset_msb * 4) * index_stride
//                        + index_lsb * 4 + offset_lsb,   index_msb/lsb = index /% index_stride,
//                        offset_msb/lsb = offset /% 4
//
// Range checking (ISA "Range Checking"), with soffset counted, as AMD's simulator rocjitsu does for CDNA1-4
// after matching gfx950 hardware (ROCm/rocm-systems PR 10928, 2026-08: "SOFFSET and the instruction offset
// count toward the bounds check", "an access must end within NUM_RECORDS"), against LLVM IntrinsicsAMDGPU.td
// (soffset "excluded from bounds checking"). AITer's fmha_v3 fwd depends on it: it steps K/V tiles in soffset
// against num_records = seqlen_k * row stride, and with soffset unchecked reads past K and V (docs/emulator.md):
//   private (scratch) buffer, add_tid && !idxen:          no range check
//   raw buffer, !idxen (stride 0 as Triton builds them):   out of range if soffset + offset + size > num_records
//   structured buffer, idxen && stride != 0:               out of range if index >= num_records
// Out-of-range loads return 0, out-of-range stores are dropped; Load/store-DWORD-x{2,3,4} are
// range-checked per dword (a partially out-of-range x4 load returns its in-range dwords and zeros).
// An in-range access must still hit memory AsmEvo allocated, or the run stops with a memory fault.
// Triton's AMD backend masks with this: masked-off lanes get offset 0x80000000 against a V# with
// num_records 0x7ffffffe (corpus/triton/*/vector_add_kernel.hsaco).
//
// Timing: vmcnt, in order (emu/waitcnt.h); load data is read at issue and lands at the covering
// s_waitcnt; store data is read from the VGPRs at issue (gfx9 needs no wait before reuse).
// Offsets are summed in 64 bits (no 32-bit wrap-around of VGPR offset + instruction offset).
// Loads with `lds` write LDS instead of VGPRs (load_lds below). Not implemented (stop the run, naming the
// instruction): `tfe`/`lwe`. Format loads/stores (buffer_*_format_*, tbuffer_*): mubuf_format.cpp. The packed
// f16/bf16 add and f64 min/max atomics share their operators with GLOBAL/FLAT (atomic_ops.h).
#include <bit>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "emu/alu.h"
#include "emu/semantics/atomic_ops.h"
#include "emu/semantics/buffer_addr.h"
#include "emu/semantics/vmem_data.h"

namespace asmevo::emu::sem {
namespace {

using vmem::DataOp;
using buffer::addressing;
using buffer::Addressing;
using buffer::refuse_unmodelled;

// The host bytes of lane l's Op.count dwords when every component is in range (a linear buffer's x2/x3/x4 lane,
// nearly always): one access (access_run) instead of one per dword, with what the dword-by-dword loop would give
// (4-byte components store the register unchanged: vmem::load_value, store_value). Linear addressing puts component d
// at the first's address + 4d, and the range checks only tighten as the offset grows (raw: the offset counts; index:
// it does not), so the last component in range means all are. nullptr: take them dword by dword (single dwords,
// sub-dword and swizzled accesses, range edges, guard zones, faults).
template <DataOp Op>
uint8_t* lane_run(ExecContext& ctx, const Wave& w, const ExecInst& in, const Addressing& a, unsigned l, bool write) {
  if constexpr (Op.count < 2 || Op.bytes != 4 || Op.half != vmem::Half::None) return nullptr;
  if (a.rs.swizzle) return nullptr;
  uint64_t last;
  if (!a.component(w, l, 4 * (Op.count - 1), Op.bytes, last)) return nullptr;
  return access_run(ctx, w, in, last - 4 * (Op.count - 1), 4, Op.count, write, static_cast<int>(l), 0);
}

// buffer_load_<op> vaddr|off, srsrc, soffset [offen] [idxen] [offset:N] lds (no vdata: LLVM prints the
// address first, so the operand parser puts it in dst[0]): each active lane's element goes to LDS at
// M0 + offset + lane * 4 (16 for dwordx3/x4, gfx950), not to VGPRs (vmem::LdsDma, the rule of
// global_load_lds_*; the instruction offset applies to both addresses, as LLVM's buffer.load.lds
// intrinsic says of its offset). An out-of-range component writes 0 to LDS, as it returns 0 to a VGPR.
// Counted on vmcnt.
template <DataOp Op> void load_lds(ExecContext& ctx, Wave& w, const ExecInst& in) {
  if (in.mods.tfe || in.mods.lwe) refuse_unmodelled(ctx, w, in);
  Addressing a = addressing(w, in, in.dst[0], in.src[0], in.src[1]);
  const uint64_t exec = w.exec();
  vmem::LdsDma dst(ctx, w, in, Op);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t words[4] = {};
    for (unsigned d = 0; d < Op.count; ++d) {
      uint64_t addr;
      if (a.component(w, l, 4 * d, Op.bytes, addr)) std::memcpy(&words[d], access(ctx, w, in, addr, Op.bytes, false, static_cast<int>(l)), Op.bytes);
    }
    dst.add(ctx, w, in, l, words, Op);
  }
  dst.issue(w, in);
}

// buffer_load_<op> vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N]
template <DataOp Op> void load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  if (in.mods.lds) return load_lds<Op>(ctx, w, in);
  refuse_unmodelled(ctx, w, in);
  const Operand& vdata = in.dst[0];
  Addressing a = addressing(w, in, in.src[0], in.src[1], in.src[2]);
  const uint64_t exec = w.exec();
  PendingWrite pw;
  pw.file = 0;
  pw.reg = vdata.index;
  pw.count = static_cast<uint16_t>(Op.count);
  pw.lanes = exec;
  pw.data.assign(Op.count * kWaveSize, 0);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    if (const uint8_t* run = lane_run<Op>(ctx, w, in, a, l, false)) {
      for (unsigned d = 0; d < Op.count; ++d) std::memcpy(&pw.data[d * kWaveSize + l], run + 4 * d, 4);
      continue;
    }
    for (unsigned d = 0; d < Op.count; ++d) {
      uint32_t raw = 0;  // out of range: 0
      uint64_t addr;
      if (a.component(w, l, 4 * d, Op.bytes, addr)) std::memcpy(&raw, access(ctx, w, in, addr, Op.bytes, false, static_cast<int>(l)), Op.bytes);
      pw.data[d * kWaveSize + l] = vmem::load_value(w.v[vdata.index + d][l], raw, Op);
    }
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// buffer_store_<op> vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N]
template <DataOp Op> void store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  refuse_unmodelled(ctx, w, in);
  const Operand& vdata = in.src[0];
  Addressing a = addressing(w, in, in.src[1], in.src[2], in.src[3]);
  const uint64_t exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    if (uint8_t* run = lane_run<Op>(ctx, w, in, a, l, true)) {
      for (unsigned d = 0; d < Op.count; ++d) std::memcpy(run + 4 * d, &w.v[vdata.index + d][l], 4);
      continue;
    }
    for (unsigned d = 0; d < Op.count; ++d) {
      uint64_t addr;
      if (!a.component(w, l, 4 * d, Op.bytes, addr)) continue;  // out of range: dropped
      uint32_t v = vmem::store_value(w.v[vdata.index + d][l], Op);
      std::memcpy(access(ctx, w, in, addr, Op.bytes, true, static_cast<int>(l)), &v, Op.bytes);
    }
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

// buffer_atomic_<op>[_x2] vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N] [glc|sc0]:
// MEM = F(MEM, DATA[, CMP]) under DeviceMemory::atomic_lock; with glc (gfx90a) / sc0 (gfx942+) the
// old value returns to vdata (its first half for cmpswap, whose data is {src, cmp}). Atomics are
// range-checked all-or-nothing: an out-of-range lane changes nothing and returns 0. Registered with
// kGlobalAtomic, so the executor fixes the order of atomics across workgroups (docs/emulator.md).
// add_f32 / add_f64 are IEEE adds rounded to nearest even (no MODE-independent flushing modelled).
template <class T, auto F, bool Cmp> void atomic(ExecContext& ctx, Wave& w, const ExecInst& in) {
  refuse_unmodelled(ctx, w, in);
  constexpr unsigned n = sizeof(T) / 4;
  const Operand& vdata = in.src[0];
  Addressing a = addressing(w, in, in.src[1], in.src[2], in.src[3]);
  const bool rtn = in.mods.glc || in.mods.sc0;
  const uint64_t exec = w.exec();
  PendingWrite pw;
  pw.file = 0;
  pw.reg = vdata.index;
  pw.count = n;
  pw.lanes = exec;
  pw.data.assign(n * kWaveSize, 0);
  auto get = [&](unsigned reg, unsigned l) {
    T v = w.v[reg][l];
    if constexpr (n == 2) v |= static_cast<T>(w.v[reg + 1][l]) << 32;
    return v;
  };
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t addr;
    T old = 0;
    if (a.component(w, l, 0, sizeof(T), addr)) {
      uint8_t* p = access(ctx, w, in, addr, sizeof(T), true, static_cast<int>(l));
      std::lock_guard<std::mutex> lock(ctx.mem->atomic_lock(addr));
      std::memcpy(&old, p, sizeof(T));
      T nv = F(old, get(vdata.index, l), Cmp ? get(vdata.index + n, l) : T(0));
      std::memcpy(p, &nv, sizeof(T));
    }
    for (unsigned d = 0; d < n; ++d) pw.data[d * kWaveSize + l] = static_cast<uint32_t>(static_cast<uint64_t>(old) >> (32 * d));
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  if (rtn) op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

template <class T, auto F, bool Cmp = false> void add_atomic(Registry& r, const char* name) {
  custom(r, (std::string("buffer_atomic_") + name).c_str(), &atomic<T, F, Cmp>, Category::Memory, {},
         {Ty::Any, Ty::Any, Ty::Any, Ty::Any}, kVariadic | kGlobalAtomic, kVm);
}

template <class T> T fadd_bits(T m, T d) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<T>(std::bit_cast<float>(m) + std::bit_cast<float>(d));
  else return std::bit_cast<T>(std::bit_cast<double>(m) + std::bit_cast<double>(d));
}

template <class T> void add_atomics(Registry& r, const char* sfx) {
  using S = std::make_signed_t<T>;
  auto nm = [&](const char* op) { static thread_local std::string s; s = std::string(op) + sfx; return s.c_str(); };
  add_atomic<T, [](T, T d, T) { return d; }>(r, nm("swap"));
  add_atomic<T, [](T m, T src, T cmp) { return m == cmp ? src : m; }, true>(r, nm("cmpswap"));
  add_atomic<T, [](T m, T d, T) { return T(m + d); }>(r, nm("add"));
  add_atomic<T, [](T m, T d, T) { return T(m - d); }>(r, nm("sub"));
  add_atomic<T, [](T m, T d, T) { return static_cast<S>(d) < static_cast<S>(m) ? d : m; }>(r, nm("smin"));
  add_atomic<T, [](T m, T d, T) { return d < m ? d : m; }>(r, nm("umin"));
  add_atomic<T, [](T m, T d, T) { return static_cast<S>(d) > static_cast<S>(m) ? d : m; }>(r, nm("smax"));
  add_atomic<T, [](T m, T d, T) { return d > m ? d : m; }>(r, nm("umax"));
  add_atomic<T, [](T m, T d, T) { return T(m & d); }>(r, nm("and"));
  add_atomic<T, [](T m, T d, T) { return T(m | d); }>(r, nm("or"));
  add_atomic<T, [](T m, T d, T) { return T(m ^ d); }>(r, nm("xor"));
  add_atomic<T, [](T m, T d, T) { return m >= d ? T(0) : T(m + 1); }>(r, nm("inc"));
  add_atomic<T, [](T m, T d, T) { return (m == 0 || m > d) ? d : T(m - 1); }>(r, nm("dec"));
}

// buffer_wbinvl1, buffer_wbinvl1_vol, buffer_wbl2, buffer_invl2 (gfx90a), buffer_inv: cache write-back / invalidate. The
// emulator's memory is always coherent, so they move no data; they are memory operations counted on
// vmcnt (AMDGPUUsage memory model: "s_waitcnt vmcnt(0)" after buffer_wbl2 waits for the write-back).
void cache_control(ExecContext&, Wave& w, const ExecInst& in) {
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

}  // namespace

void register_mubuf(Registry& r) {
  add_atomics<uint32_t>(r, "");
  add_atomics<uint64_t>(r, "_x2");
  add_atomic<uint32_t, [](uint32_t m, uint32_t d, uint32_t) { return fadd_bits(m, d); }>(r, "add_f32");
  add_atomic<uint64_t, [](uint64_t m, uint64_t d, uint64_t) { return fadd_bits(m, d); }>(r, "add_f64");
  add_atomic<uint32_t, [](uint32_t m, uint32_t d, uint32_t) { return atomic_ops::pk_add_f16(m, d); }>(r, "pk_add_f16");
  add_atomic<uint32_t, [](uint32_t m, uint32_t d, uint32_t) { return atomic_ops::pk_add_bf16(m, d); }>(r, "pk_add_bf16");
  add_atomic<uint64_t, [](uint64_t m, uint64_t d, uint64_t) { return atomic_ops::min_f64(m, d); }>(r, "min_f64");
  add_atomic<uint64_t, [](uint64_t m, uint64_t d, uint64_t) { return atomic_ops::max_f64(m, d); }>(r, "max_f64");
  for (const char* m : {"buffer_wbinvl1", "buffer_wbinvl1_vol", "buffer_wbl2", "buffer_invl2", "buffer_inv"})
    custom(r, m, &cache_control, Category::Memory, {}, {}, kVariadic, kVm);
  vmem::for_each_load([&](const char* sfx, auto tag) {
    custom(r, (std::string("buffer_load_") + sfx).c_str(), &load<decltype(tag)::op>, Category::Memory, {Ty::Any},
           {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
  });
  vmem::for_each_store([&](const char* sfx, auto tag) {
    custom(r, (std::string("buffer_store_") + sfx).c_str(), &store<decltype(tag)::op>, Category::Memory, {},
           {Ty::Any, Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
  });
}

}  // namespace asmevo::emu::sem
