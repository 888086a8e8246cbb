// DS: LDS reads, writes and atomics, and the DS-unit cross-lane ops (ds_swizzle_b32,
// ds_permute_b32, ds_bpermute_b32, gfx950 ds_read_b64_tr_b16/b8/b4). ISA: AMD "Vega" / CDNA2 / CDNA3 /
// CDNA4 Instruction Set Architecture, chapter "Data Share Operations" and the DS opcode list.
//
// Addressing: ADDR = VGPR[addr][lane] + OFFSET (unsigned 16-bit; read2/write2: two unsigned 8-bit
// offsets in units of the element size, x64 for the _st64 forms). On gfx9 the LDS bound is the
// workgroup's LDS allocation, not M0: LLVM stops initialising M0 for LDS at GFX9
// (AMDGPUSubtarget::ldsRequiresM0Init() == generation < GFX9, https://reviews.llvm.org/D40059), and
// the ISA's out-of-range rule for LDS is that reads return 0 and writes are discarded. The emulator
// applies that rule per dword (per element for sub-dword accesses) against the exact allocation
// (KD group_segment_fixed_size + dynamic LDS); real hardware allocates LDS in granules, so it
// would also accept addresses in the rounding slack, which here read 0 / drop. GDS is not modelled.
//
// Completion: every DS op counts on lgkmcnt and completes in order among DS ops (emu/waitcnt.h):
// results (loads, atomics with return, swizzle/permute) are computed at issue and land at the
// covering s_waitcnt; stores and no-return atomics update LDS at issue (their data is read at issue).
//
// Atomics: lanes are applied in ascending lane order, so same-address updates within a wave (and
// therefore float atomics) are deterministic. LDS float atomics honour MODE's f32 denormal flush.
#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <type_traits>

#include "emu/alu.h"
#include "emu/lds_races.h"
#include "emu/semantics/lane_maps.h"

namespace asmevo::emu::sem {
namespace {

using u8 = uint8_t;

// Host pointer for [a, a+size) in this workgroup's LDS, or nullptr when out of range (noted:
// defined on gfx9, but an access the launch does not allow; verify holds it against a candidate).
// Atomics pass atomic = true: updates of one address by several waves are not an LDS race. A store
// passes the bytes it will store (`stored`), which the race check compares with what LDS holds.
inline u8* lds_at(ExecContext& ctx, uint64_t a, unsigned size, bool write, unsigned lane, bool atomic = false,
                  const void* stored = nullptr) {
  if (ctx.lds_races && !atomic) [[unlikely]] {
    if (write && !stored) fail(ctx, *ctx.ds_wave, *ctx.ds_inst, "internal: an LDS store without its bytes for the race check");
    ctx.lds_races->access(ctx, *ctx.ds_wave, *ctx.ds_inst, a, size, write ? static_cast<const u8*>(stored) : nullptr);
  }
  if (a + size <= ctx.lds_size) [[likely]] return ctx.lds + a;
  note_out_of_bounds(ctx, *ctx.ds_wave, *ctx.ds_inst, nullptr, a, size, write, static_cast<int>(lane));
  return nullptr;
}

inline uint64_t lane_addr(const Wave& w, const Operand& addr, unsigned l, uint64_t offset) {
  return static_cast<uint64_t>(w.v[addr.index][l]) + offset;
}

void check_gds(ExecContext& ctx, Wave& w, const ExecInst& in) {
  ctx.ds_wave = &w, ctx.ds_inst = &in;
  if (in.mods.gds) fail(ctx, w, in, "GDS (global data share) is not modelled by the emulator");
}

PendingWrite dest(const Operand& d, unsigned dwords, u64 lanes) {
  PendingWrite pw;
  pw.file = 0;
  pw.reg = d.index;
  pw.count = static_cast<uint16_t>(dwords);
  pw.lanes = lanes;
  pw.data.assign(static_cast<size_t>(dwords) * kWaveSize, 0);
  return pw;
}

// Every DS op goes through lgkmcnt, in order among DS ops.
void issue(Wave& w, const ExecInst& in, PendingWrite* pw) {
  PendingOp op;
  op.counters = kLgkm;
  op.lgkm_in_order = true;
  op.inst = &in;
  if (pw) op.writes.push_back(std::move(*pw));
  w.wc.issue(std::move(op));
}

u32 rd32(ExecContext& ctx, uint64_t a, unsigned lane, bool atomic = false) {
  u32 v = 0;
  if (const u8* p = lds_at(ctx, a, 4, false, lane, atomic)) std::memcpy(&v, p, 4);
  return v;
}
void wr32(ExecContext& ctx, uint64_t a, u32 v, unsigned lane, bool atomic = false) {
  if (u8* p = lds_at(ctx, a, 4, true, lane, atomic, &v)) std::memcpy(p, &v, 4);
}

// ---- Loads -------------------------------------------------------------------------------------

// ds_read_b32/b64/b96/b128: Bytes/4 dwords from ADDR.
template <unsigned Bytes> void ds_read(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = Bytes / 4;
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], n, exec);
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a = lane_addr(w, in.src[0], l, off);
    for (unsigned d = 0; d < n; ++d) pw.data[d * kWaveSize + l] = rd32(ctx, a + 4 * d, l);
  }
  issue(w, in, &pw);
}

// ds_read_u8/i8/u16/i16: one element, zero- or sign-extended to 32 bits.
template <unsigned Bytes, bool Signed> void ds_read_sub(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], 1, exec);
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 v = 0;
    if (const u8* p = lds_at(ctx, lane_addr(w, in.src[0], l, off), Bytes, false, l)) std::memcpy(&v, p, Bytes);
    if (Signed) v = static_cast<u32>(Bytes == 1 ? static_cast<i32>(static_cast<int8_t>(v)) : static_cast<i32>(static_cast<int16_t>(v)));
    pw.data[l] = v;
  }
  issue(w, in, &pw);
}

// ds_read_{u8,i8,u16}_d16[_hi]: the element (extended to 16 bits) replaces the low (or high) half
// of VDST; the other half keeps its value. (The destination is pending until the wait, so its
// value at issue is its value at completion.)
template <unsigned Bytes, bool Signed, bool Hi> void ds_read_d16(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], 1, exec);
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  const u32* old = w.v[in.dst[0].index].lane;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 v = 0;
    if (const u8* p = lds_at(ctx, lane_addr(w, in.src[0], l, off), Bytes, false, l)) std::memcpy(&v, p, Bytes);
    if (Signed && Bytes == 1) v = static_cast<u16>(static_cast<int16_t>(static_cast<int8_t>(v)));
    v &= 0xffffu;
    pw.data[l] = Hi ? ((old[l] & 0xffffu) | (v << 16)) : ((old[l] & 0xffff0000u) | v);
  }
  issue(w, in, &pw);
}

// ds_read2[st64]_b32/b64: two elements at ADDR + OFFSET0*S and ADDR + OFFSET1*S,
// S = element size (x64 for st64), into VDST[0..] and VDST[n..].
template <unsigned Bytes, unsigned Stride> void ds_read2(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = Bytes / 4;
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], 2 * n, exec);
  const uint64_t o0 = static_cast<uint64_t>(in.mods.offset) * Bytes * Stride;
  const uint64_t o1 = static_cast<uint64_t>(in.mods.offset1) * Bytes * Stride;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a = w.v[in.src[0].index][l];
    for (unsigned d = 0; d < n; ++d) {
      pw.data[d * kWaveSize + l] = rd32(ctx, a + o0 + 4 * d, l);
      pw.data[(n + d) * kWaveSize + l] = rd32(ctx, a + o1 + 4 * d, l);
    }
  }
  issue(w, in, &pw);
}

// ---- Stores ------------------------------------------------------------------------------------

template <unsigned Bytes> void ds_write(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = Bytes / 4;
  const u64 exec = w.exec();
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a = lane_addr(w, in.src[0], l, off);
    for (unsigned d = 0; d < n; ++d) wr32(ctx, a + 4 * d, w.v[in.src[1].index + d][l], l);
  }
  issue(w, in, nullptr);
}

// ds_write_b8/b16 store DATA[7:0]/[15:0]; the _d16_hi forms store DATA[23:16]/[31:16].
template <unsigned Bytes, bool Hi> void ds_write_sub(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    u32 v = w.v[in.src[1].index][l] >> (Hi ? 16 : 0);
    if (u8* p = lds_at(ctx, lane_addr(w, in.src[0], l, off), Bytes, true, l, false, &v)) std::memcpy(p, &v, Bytes);
  }
  issue(w, in, nullptr);
}

template <unsigned Bytes, unsigned Stride> void ds_write2(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = Bytes / 4;
  const u64 exec = w.exec();
  const uint64_t o0 = static_cast<uint64_t>(in.mods.offset) * Bytes * Stride;
  const uint64_t o1 = static_cast<uint64_t>(in.mods.offset1) * Bytes * Stride;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a = w.v[in.src[0].index][l];
    for (unsigned d = 0; d < n; ++d) wr32(ctx, a + o0 + 4 * d, w.v[in.src[1].index + d][l], l);
    for (unsigned d = 0; d < n; ++d) wr32(ctx, a + o1 + 4 * d, w.v[in.src[2].index + d][l], l);
  }
  issue(w, in, nullptr);
}

// ---- Atomics -----------------------------------------------------------------------------------
// F(old, data0, data1, flush_f32) -> new value (T = u32 or u64 bit patterns). Operands: no-return
// "addr, data0[, data1]"; return "vdst, addr, data0[, data1]". VDST gets the old value.

template <class T> T lane_val(const Wave& w, const Operand& o, unsigned l) {
  if constexpr (sizeof(T) == 8) return w.v[o.index][l] | (static_cast<u64>(w.v[o.index + 1][l]) << 32);
  else return w.v[o.index][l];
}

template <class T, auto F, unsigned NData, bool Rtn> void ds_atomic(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = sizeof(T) / 4;
  const Operand& addr = in.src[0];  // "vdst, addr, data.." (return) or "addr, data.." (ndst = 0)
  const unsigned first_data = 1;
  const u64 exec = w.exec();
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  PendingWrite pw;
  if (Rtn) pw = dest(in.dst[0], n, exec);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    T d0 = lane_val<T>(w, in.src[first_data], l);
    T d1 = NData > 1 ? lane_val<T>(w, in.src[first_data + 1], l) : T(0);
    T old = 0;
    if (u8* p = lds_at(ctx, lane_addr(w, addr, l, off), sizeof(T), true, l, true)) {
      std::memcpy(&old, p, sizeof(T));
      T nv = F(old, d0, d1, w.flush_f32);
      std::memcpy(p, &nv, sizeof(T));
    }
    if (Rtn)
      for (unsigned d = 0; d < n; ++d) pw.data[d * kWaveSize + l] = static_cast<u32>(static_cast<u64>(old) >> (32 * d));
  }
  issue(w, in, Rtn ? &pw : nullptr);
}

inline float f32(u32 b) { return std::bit_cast<float>(b); }
inline double f64(u64 b) { return std::bit_cast<double>(b); }
inline float ftz(float x, bool flush) { return flush ? detail::flush(x) : x; }
inline u32 fadd32(u32 a, u32 b, bool flush) { return std::bit_cast<u32>(ftz(ftz(f32(a), flush) + ftz(f32(b), flush), flush)); }

inline u16 bf16_rne(float x) {
  u32 b = std::bit_cast<u32>(x);
  if (std::isnan(x)) return static_cast<u16>((b >> 16) | 0x40);  // quiet
  return static_cast<u16>((b + 0x7fffu + ((b >> 16) & 1)) >> 16);
}
// Packed 16-bit adds (each half rounded to nearest even; f16 via f32 is exact-then-rounded once
// because f32 has >= 2*11+2 bits, likewise bf16).
inline u32 pk_add_f16(u32 a, u32 b) {
  u32 r = 0;
  for (int h = 0; h < 2; ++h) {
    f16 x = std::bit_cast<f16>(static_cast<u16>(a >> (16 * h))), y = std::bit_cast<f16>(static_cast<u16>(b >> (16 * h)));
    f16 s = static_cast<f16>(static_cast<float>(x) + static_cast<float>(y));
    r |= static_cast<u32>(std::bit_cast<u16>(s)) << (16 * h);
  }
  return r;
}
inline u32 pk_add_bf16(u32 a, u32 b) {
  u32 r = 0;
  for (int h = 0; h < 2; ++h) {
    float x = std::bit_cast<float>((a >> (16 * h)) << 16), y = std::bit_cast<float>((b >> (16 * h)) << 16);
    r |= static_cast<u32>(bf16_rne(x + y)) << (16 * h);
  }
  return r;
}

// ---- Cross-lane ops through the DS unit (no LDS access) -----------------------------------------

}  // namespace

int swizzle_source_lane(uint32_t off, unsigned i) {
  if (off >= 0xc000) return -1;
  if (off & 0x8000) return static_cast<int>((i & ~3u) | ((off >> (2 * (i & 3))) & 3));
  const unsigned and_m = off & 31, or_m = (off >> 5) & 31, xor_m = (off >> 10) & 31;
  return static_cast<int>((i & 32) | ((((i & 31) & and_m) | or_m) ^ xor_m));
}

namespace {

// ds_swizzle_b32 vdst, vdata offset:...: OFFSET[15] = 1 and OFFSET < 0xc000: quad-permute mode,
// lane i of each quad reads lane OFFSET[2k+1:2k] (k = i & 3) of its quad. OFFSET[15] = 0:
// bit-mask mode inside each half-wave of 32 lanes, j = ((i & AND) | OR) ^ XOR with AND =
// OFFSET[4:0], OR = OFFSET[9:5], XOR = OFFSET[14:10]. A source lane that is inactive gives 0.
// OFFSET >= 0xc000 (rotate / FFT modes) is refused: not implemented.
void ds_swizzle_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u32 off = static_cast<u32>(in.simm) & 0xffff;
  if (off >= 0xc000)
    fail(ctx, w, in, fmt::format("ds_swizzle_b32 offset 0x{:x} selects the rotate/FFT swizzle mode, which the emulator does not implement", off));
  const u64 exec = w.exec();
  const u32* src = w.v[in.src[0].index].lane;
  PendingWrite pw = dest(in.dst[0], 1, exec);
  for (unsigned i = 0; i < kWaveSize; ++i) {
    const unsigned j = static_cast<unsigned>(swizzle_source_lane(off, i));
    pw.data[i] = (exec >> j & 1) ? src[j] : 0;
  }
  issue(w, in, &pw);
}

// ds_bpermute_b32 vdst, vaddr, vdata: lane i reads lane ((ADDR[i] + OFFSET) / 4) mod 64 of vdata;
// an inactive source lane gives 0.
void ds_bpermute_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const u32* addr = w.v[in.src[0].index].lane;
  const u32* data = w.v[in.src[1].index].lane;
  const u32 off = static_cast<u32>(in.mods.offset);
  PendingWrite pw = dest(in.dst[0], 1, exec);
  for (unsigned i = 0; i < kWaveSize; ++i) {
    unsigned j = ((addr[i] + off) >> 2) & 63;
    pw.data[i] = (exec >> j & 1) ? data[j] : 0;
  }
  issue(w, in, &pw);
}

// ds_permute_b32 vdst, vaddr, vdata: each active lane i sends vdata[i] to lane ((ADDR[i] +
// OFFSET) / 4) mod 64; lanes nobody sends to get 0; when several lanes send to the same lane the
// highest-numbered sender wins.
void ds_permute_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const u32* addr = w.v[in.src[0].index].lane;
  const u32* data = w.v[in.src[1].index].lane;
  const u32 off = static_cast<u32>(in.mods.offset);
  PendingWrite pw = dest(in.dst[0], 1, exec);
  for (unsigned i = 0; i < kWaveSize; ++i)
    if (exec >> i & 1) pw.data[((addr[i] + off) >> 2) & 63] = data[i];
  issue(w, in, &pw);
}

// ds_read_b64_tr_b{16,8,4} (gfx950) vdst[2], vaddr: each lane reads 64 bits (E = 64 / bits elements)
// at ADDR; within each block of 16 lanes the 16 x E elements form an E x 16 tile whose row r is read by
// lanes (16/E)*r .. (16/E)*r + 16/E - 1 (each holding E consecutive elements of the row), and lane i
// receives column i: element r of lane i = element (i % E) of lane (16/E)*r + i/E, packed low bits
// first. b16 (E = 4): Triton's chooseDsReadB64TrLayout (lane bases {4,0},{8,0},{0,1},{0,2}: lane L
// reads M = 4*(L%4)+0..3 at K = L/4, and the result is the MFMA operand layout, lane i <-> M = i) and
// Mojo's ds_read_tr16_b64_row ("each 16-lane row loads a 4x16 tile ... each lane gets a column", with
// lane L addressing row L/4, 4-element column group L%4). b8 (E = 8) and b4 (E = 16): the same rule
// for 8 x 16 and 16 x 16 tiles (our inference from b16: the result is again one MFMA operand column
// per lane); Triton 3.6's gfx950 fp8 GEMM (corpus/triton fp8_gemm_kernel), which reads B with
// ds_read_b64_tr_b8, matches its NumPy reference with it. b4 needs hardware confirmation. Inactive
// lanes contribute 0.
// ds_read_b96_tr_b6 (gfx950) is the same rule with 96-bit reads of 16 6-bit elements (E = 16, a 16 x 16
// tile: element r of lane i = element i of lane r of its block), our inference like b4: needs hardware
// confirmation.
template <unsigned Bits, unsigned Width = 64> void ds_read_tr(ExecContext& ctx, Wave& w, const ExecInst& in) {
  using U = std::conditional_t<(Width > 64), unsigned __int128, uint64_t>;  // 64-bit math for the b64 reads
  constexpr unsigned E = Width / Bits, LanesPerRow = 16 / E, Dwords = Width / 32;
  constexpr U kMask = (U(1) << Bits) - 1;
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  U v[kWaveSize] = {};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a = lane_addr(w, in.src[0], l, off);
    for (unsigned d = 0; d < Dwords; ++d) v[l] |= U(rd32(ctx, a + 4 * d, l)) << (32 * d);
  }
  PendingWrite pw = dest(in.dst[0], Dwords, exec);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    unsigned b = l & ~15u, i = l & 15;
    U out = 0;
    for (unsigned r = 0; r < E; ++r) out |= (v[b + LanesPerRow * r + i / E] >> (Bits * (i % E)) & kMask) << (Bits * r);
    for (unsigned d = 0; d < Dwords; ++d) pw.data[d * kWaveSize + l] = static_cast<u32>(out >> (32 * d));
  }
  issue(w, in, &pw);
}

// ---- M0-addressed and exchange ops ------------------------------------------------------------
// Sources: AMD Vega/CDNA ISA DS opcode descriptions as CLRX's GCN 1.4 notes restate them (doc/GcnInstrsDs.md)
// and LLVM's ds.append tests (M0 = the LDS pointer, the instruction offset added). M0 is a byte address
// (see vmem::LdsDma: the same rule for every M0-based LDS address; CLRX states M0[15:0], which agrees for
// every address below 64 KiB).

// ds_append / ds_consume vdst [offset:N]: one wave-level atomic on the dword at M0 + offset: every active lane
// gets the old value, and the dword grows (append) or shrinks (consume) by the number of active lanes.
// With `gds` they count in global data share: refused (check_gds).
template <bool Append> void ds_append_consume(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const uint64_t a = static_cast<uint64_t>(w.s[kM0]) + static_cast<uint64_t>(in.mods.offset);
  PendingWrite pw = dest(in.dst[0], 1, exec);
  const u32 old = rd32(ctx, a, 0, true);
  const u32 n = static_cast<u32>(std::popcount(exec));
  if (exec) wr32(ctx, a, Append ? old + n : old - n, 0, true);
  for (unsigned l = 0; l < kWaveSize; ++l) pw.data[l] = old;
  issue(w, in, &pw);
}

// ds_read_addtid_b32 vdst [offset:N] / ds_write_addtid_b32 vdata [offset:N]: lane l's dword at
// M0 + offset + 4 * l (no address VGPR).
void ds_read_addtid_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const uint64_t base = static_cast<uint64_t>(w.s[kM0]) + static_cast<uint64_t>(in.mods.offset);
  PendingWrite pw = dest(in.dst[0], 1, exec);
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (exec >> l & 1) pw.data[l] = rd32(ctx, base + 4 * l, l);
  issue(w, in, &pw);
}
void ds_write_addtid_b32(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  const uint64_t base = static_cast<uint64_t>(w.s[kM0]) + static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l)
    if (exec >> l & 1) wr32(ctx, base + 4 * l, w.v[in.src[0].index][l], l);
  issue(w, in, nullptr);
}

// ds_wrxchg2[st64]_rtn_b32/b64 vdst, addr, data0, data1 offset0:A offset1:B: two exchanges, at
// ADDR + A*S and ADDR + B*S (S = element size, x64 for st64); VDST gets both old values (first, then second).
template <unsigned Bytes, unsigned Stride> void ds_wrxchg2(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  constexpr unsigned n = Bytes / 4;
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], 2 * n, exec);
  const uint64_t o[2] = {static_cast<uint64_t>(in.mods.offset) * Bytes * Stride, static_cast<uint64_t>(in.mods.offset1) * Bytes * Stride};
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint64_t a = w.v[in.src[0].index][l];
    for (unsigned k = 0; k < 2; ++k)
      for (unsigned d = 0; d < n; ++d) {
        pw.data[(k * n + d) * kWaveSize + l] = rd32(ctx, a + o[k] + 4 * d, l, true);
        wr32(ctx, a + o[k] + 4 * d, w.v[in.src[1 + k].index + d][l], l, true);
      }
  }
  issue(w, in, &pw);
}

// ds_condxchg32_rtn_b64 vdst[2], addr, data[2] [offset:N]: for each of the two dwords at ADDR and ADDR + 4:
// VDST[d] = the old dword; if DATA[d] bit 31 is set the dword becomes DATA[d] with bit 31 cleared (Vega ISA
// "conditional write exchange"; not in CLRX's notes: needs hardware confirmation).
void ds_condxchg32_rtn_b64(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  const u64 exec = w.exec();
  PendingWrite pw = dest(in.dst[0], 2, exec);
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint64_t a = lane_addr(w, in.src[0], l, off);
    for (unsigned d = 0; d < 2; ++d) {
      const u32 data = w.v[in.src[1].index + d][l];
      pw.data[d * kWaveSize + l] = rd32(ctx, a + 4 * d, l, true);
      if (data >> 31) wr32(ctx, a + 4 * d, data & 0x7fffffffu, l, true);
    }
  }
  issue(w, in, &pw);
}

// ds_nop: no LDS access; counted on lgkmcnt like every DS instruction.
void ds_nop(ExecContext& ctx, Wave& w, const ExecInst& in) {
  check_gds(ctx, w, in);
  issue(w, in, nullptr);
}



// ---- Registration ------------------------------------------------------------------------------

void add(Registry& r, const std::string& stem, ExecFn fn, bool has_dst) {
  if (has_dst) custom(r, stem.c_str(), fn, Category::Memory, {Ty::Any}, {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kLgkm);
  else custom(r, stem.c_str(), fn, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kLgkm);
}

// Registers "ds_<name>_<sfx>" (no return) and "ds_<name>_rtn_<sfx>".
template <class T, auto F, unsigned NData> void atomic_pair(Registry& r, const char* name, const char* sfx) {
  add(r, std::string("ds_") + name + "_" + sfx, ds_atomic<T, F, NData, false>, false);
  add(r, std::string("ds_") + name + "_rtn_" + sfx, ds_atomic<T, F, NData, true>, true);
}

}  // namespace

void register_ds(Registry& r) {
  // Loads.
  add(r, "ds_read_b32", ds_read<4>, true);
  add(r, "ds_read_b64", ds_read<8>, true);
  add(r, "ds_read_b96", ds_read<12>, true);
  add(r, "ds_read_b128", ds_read<16>, true);
  add(r, "ds_read_u8", ds_read_sub<1, false>, true);
  add(r, "ds_read_i8", ds_read_sub<1, true>, true);
  add(r, "ds_read_u16", ds_read_sub<2, false>, true);
  add(r, "ds_read_i16", ds_read_sub<2, true>, true);
  add(r, "ds_read_u8_d16", ds_read_d16<1, false, false>, true);
  add(r, "ds_read_u8_d16_hi", ds_read_d16<1, false, true>, true);
  add(r, "ds_read_i8_d16", ds_read_d16<1, true, false>, true);
  add(r, "ds_read_i8_d16_hi", ds_read_d16<1, true, true>, true);
  add(r, "ds_read_u16_d16", ds_read_d16<2, false, false>, true);
  add(r, "ds_read_u16_d16_hi", ds_read_d16<2, false, true>, true);
  add(r, "ds_read2_b32", ds_read2<4, 1>, true);
  add(r, "ds_read2_b64", ds_read2<8, 1>, true);
  add(r, "ds_read2st64_b32", ds_read2<4, 64>, true);
  add(r, "ds_read2st64_b64", ds_read2<8, 64>, true);
  // Stores.
  add(r, "ds_write_b32", ds_write<4>, false);
  add(r, "ds_write_b64", ds_write<8>, false);
  add(r, "ds_write_b96", ds_write<12>, false);
  add(r, "ds_write_b128", ds_write<16>, false);
  add(r, "ds_write_b8", ds_write_sub<1, false>, false);
  add(r, "ds_write_b16", ds_write_sub<2, false>, false);
  add(r, "ds_write_b8_d16_hi", ds_write_sub<1, true>, false);
  add(r, "ds_write_b16_d16_hi", ds_write_sub<2, true>, false);
  add(r, "ds_write2_b32", ds_write2<4, 1>, false);
  add(r, "ds_write2_b64", ds_write2<8, 1>, false);
  add(r, "ds_write2st64_b32", ds_write2<4, 64>, false);
  add(r, "ds_write2st64_b64", ds_write2<8, 64>, false);
  // 32-bit atomics (ISA pseudo-code: tmp = MEM[ADDR]; MEM[ADDR] = f(tmp, DATA[, DATA2]); RETURN = tmp).
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m + d; }, 1>(r, "add", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m - d; }, 1>(r, "sub", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return d - m; }, 1>(r, "rsub", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m >= d ? 0u : m + 1; }, 1>(r, "inc", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return (m == 0 || m > d) ? d : m - 1; }, 1>(r, "dec", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return static_cast<i32>(d) < static_cast<i32>(m) ? d : m; }, 1>(r, "min", "i32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return static_cast<i32>(d) > static_cast<i32>(m) ? d : m; }, 1>(r, "max", "i32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return d < m ? d : m; }, 1>(r, "min", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return d > m ? d : m; }, 1>(r, "max", "u32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m & d; }, 1>(r, "and", "b32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m | d; }, 1>(r, "or", "b32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return m ^ d; }, 1>(r, "xor", "b32");
  atomic_pair<u32, [](u32 m, u32 d, u32 d2, bool) { return (m & ~d) | d2; }, 2>(r, "mskor", "b32");
  // ds_cmpst: DATA is the compare value, DATA2 the value stored on a match (gfx9 operand order).
  atomic_pair<u32, [](u32 m, u32 cmp, u32 src, bool) { return m == cmp ? src : m; }, 2>(r, "cmpst", "b32");
  atomic_pair<u32, [](u32 m, u32 cmp, u32 src, bool) { return f32(m) == f32(cmp) ? src : m; }, 2>(r, "cmpst", "f32");
  // Float min/max: MEM = (DATA < MEM) ? DATA : MEM (a NaN operand leaves MEM unchanged unless MEM is NaN).
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return f32(d) < f32(m) ? d : m; }, 1>(r, "min", "f32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return f32(d) > f32(m) ? d : m; }, 1>(r, "max", "f32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool fl) { return fadd32(m, d, fl); }, 1>(r, "add", "f32");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return pk_add_f16(m, d); }, 1>(r, "pk_add", "f16");
  atomic_pair<u32, [](u32 m, u32 d, u32, bool) { return pk_add_bf16(m, d); }, 1>(r, "pk_add", "bf16");
  add(r, "ds_wrxchg_rtn_b32", ds_atomic<u32, [](u32, u32 d, u32, bool) { return d; }, 1, true>, true);
  // 64-bit atomics.
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m + d; }, 1>(r, "add", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m - d; }, 1>(r, "sub", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return d - m; }, 1>(r, "rsub", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m >= d ? 0ull : m + 1; }, 1>(r, "inc", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return (m == 0 || m > d) ? d : m - 1; }, 1>(r, "dec", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return static_cast<i64>(d) < static_cast<i64>(m) ? d : m; }, 1>(r, "min", "i64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return static_cast<i64>(d) > static_cast<i64>(m) ? d : m; }, 1>(r, "max", "i64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return d < m ? d : m; }, 1>(r, "min", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return d > m ? d : m; }, 1>(r, "max", "u64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m & d; }, 1>(r, "and", "b64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m | d; }, 1>(r, "or", "b64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return m ^ d; }, 1>(r, "xor", "b64");
  atomic_pair<u64, [](u64 m, u64 d, u64 d2, bool) { return (m & ~d) | d2; }, 2>(r, "mskor", "b64");
  atomic_pair<u64, [](u64 m, u64 cmp, u64 src, bool) { return m == cmp ? src : m; }, 2>(r, "cmpst", "b64");
  atomic_pair<u64, [](u64 m, u64 cmp, u64 src, bool) { return f64(m) == f64(cmp) ? src : m; }, 2>(r, "cmpst", "f64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return f64(d) < f64(m) ? d : m; }, 1>(r, "min", "f64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return f64(d) > f64(m) ? d : m; }, 1>(r, "max", "f64");
  atomic_pair<u64, [](u64 m, u64 d, u64, bool) { return std::bit_cast<u64>(f64(m) + f64(d)); }, 1>(r, "add", "f64");
  add(r, "ds_wrxchg_rtn_b64", ds_atomic<u64, [](u64, u64 d, u64, bool) { return d; }, 1, true>, true);
  // Cross-lane.
  add(r, "ds_swizzle_b32", ds_swizzle_b32, true);
  add(r, "ds_bpermute_b32", ds_bpermute_b32, true);
  add(r, "ds_permute_b32", ds_permute_b32, true);
  add(r, "ds_read_b64_tr_b16", ds_read_tr<16>, true);
  add(r, "ds_read_b64_tr_b8", ds_read_tr<8>, true);
  add(r, "ds_read_b64_tr_b4", ds_read_tr<4>, true);
  add(r, "ds_read_b96_tr_b6", ds_read_tr<6, 96>, true);
  // M0-addressed, exchange and wrap ops.
  add(r, "ds_append", ds_append_consume<true>, true);
  add(r, "ds_consume", ds_append_consume<false>, true);
  add(r, "ds_read_addtid_b32", ds_read_addtid_b32, true);
  add(r, "ds_write_addtid_b32", ds_write_addtid_b32, false);
  add(r, "ds_wrxchg2_rtn_b32", ds_wrxchg2<4, 1>, true);
  add(r, "ds_wrxchg2_rtn_b64", ds_wrxchg2<8, 1>, true);
  add(r, "ds_wrxchg2st64_rtn_b32", ds_wrxchg2<4, 64>, true);
  add(r, "ds_wrxchg2st64_rtn_b64", ds_wrxchg2<8, 64>, true);
  add(r, "ds_condxchg32_rtn_b64", ds_condxchg32_rtn_b64, true);
  // ds_wrap_rtn_b32: MEM = MEM >= DATA ? MEM - DATA : MEM + DATA2; VDST = the old MEM (ring-buffer wrap).
  add(r, "ds_wrap_rtn_b32", ds_atomic<u32, [](u32 m, u32 d, u32 d2, bool) { return m >= d ? m - d : m + d2; }, 2, true>, true);
  add(r, "ds_nop", ds_nop, false);
  // Not implemented (pre-decode names them): ds_gws_*, ds_ordered_count, ds_*_src2_* and anything with
  // `gds` (global data share: a multi-dispatch model), see docs/emulator.md "Unsupported, and why".
}

}  // namespace asmevo::emu::sem
