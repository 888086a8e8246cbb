// Shared by the MUBUF (mubuf.cpp) and SCRATCH (scratch.cpp) families: what a load/store moves per
// lane, and how sub-dword and D16 data are placed in / taken from a VGPR (ISA "16-bit Memory
// Operations": D16 loads write the low half, D16_HI the high half, the other half is kept; byte
// and short loads zero- or sign-extend to 32 bits, or to 16 bits for the D16 forms).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "emu/alu.h"

namespace asmevo::emu::sem::vmem {

enum class Half : uint8_t { None, Lo, Hi };

struct DataOp {
  unsigned bytes = 4;  // per component access: 1, 2, or 4 (dwords = count)
  unsigned count = 1;  // dwords (x2/x3/x4), 1 for sub-dword
  bool sign = false;
  Half half = Half::None;
};

// The register value after a load of `raw` (the bytes read, little-endian, zero-padded) into `old`;
// generic over the value domain (emu/generic.h: the prover's buffer loads use it with Terms).
template <class D = Lanes> typename D::u32 load_value(typename D::u32 old, typename D::u32 raw, const DataOp& op) {
  if (op.bytes == 4) return raw;
  typename D::u32 v = raw & (op.bytes == 1 ? 0xffu : 0xffffu);
  if (op.sign) v = op.bytes == 1 ? to<uint32_t>(to<int32_t>(to<int8_t>(v))) : to<uint32_t>(to<int32_t>(to<int16_t>(v)));
  switch (op.half) {
    case Half::None: return v;
    case Half::Lo: return (old & 0xffff0000u) | (v & 0xffffu);
    case Half::Hi: return (old & 0x0000ffffu) | (v << 16u);
  }
  return v;
}

// The bytes a store writes from register value `reg` (byte/short stores take the low bits, the
// D16_HI forms bits 23:16 / 31:16).
template <class D = Lanes> typename D::u32 store_value(typename D::u32 reg, const DataOp& op) {
  if (op.half == Half::Hi) return reg >> 16u;
  return reg;
}

// The data widths of the load/store mnemonics (suffix after _load_ / _store_).
inline constexpr DataOp kDword{4, 1}, kX2{4, 2}, kX3{4, 3}, kX4{4, 4};
inline constexpr DataOp kUbyte{1, 1, false}, kSbyte{1, 1, true}, kUshort{2, 1, false}, kSshort{2, 1, true};
inline constexpr DataOp kUbyteD16{1, 1, false, Half::Lo}, kUbyteD16Hi{1, 1, false, Half::Hi};
inline constexpr DataOp kSbyteD16{1, 1, true, Half::Lo}, kSbyteD16Hi{1, 1, true, Half::Hi};
inline constexpr DataOp kShortD16{2, 1, false, Half::Lo}, kShortD16Hi{2, 1, false, Half::Hi};
inline constexpr DataOp kByte{1, 1}, kShort{2, 1}, kByteD16Hi{1, 1, false, Half::Hi};

// Calls add(suffix, Tag<op>{}) for every load / store width gfx9 has (the tag carries the DataOp
// as a constant, so units can be templates on it: &load<decltype(tag)::op>).
template <DataOp Op> struct Tag {
  static constexpr DataOp op = Op;
};
template <class F> void for_each_load(F&& add) {
  add("dword", Tag<kDword>{}), add("dwordx2", Tag<kX2>{}), add("dwordx3", Tag<kX3>{}), add("dwordx4", Tag<kX4>{});
  add("ubyte", Tag<kUbyte>{}), add("sbyte", Tag<kSbyte>{}), add("ushort", Tag<kUshort>{}), add("sshort", Tag<kSshort>{});
  add("ubyte_d16", Tag<kUbyteD16>{}), add("ubyte_d16_hi", Tag<kUbyteD16Hi>{}), add("sbyte_d16", Tag<kSbyteD16>{});
  add("sbyte_d16_hi", Tag<kSbyteD16Hi>{}), add("short_d16", Tag<kShortD16>{}), add("short_d16_hi", Tag<kShortD16Hi>{});
}
template <class F> void for_each_store(F&& add) {
  add("dword", Tag<kDword>{}), add("dwordx2", Tag<kX2>{}), add("dwordx3", Tag<kX3>{}), add("dwordx4", Tag<kX4>{});
  add("byte", Tag<kByte>{}), add("short", Tag<kShort>{}), add("byte_d16_hi", Tag<kByteD16Hi>{}), add("short_d16_hi", Tag<kShortD16Hi>{});
}

// Loads to LDS ("LDS DMA": global_load_lds_*, scratch_load_lds_*; gfx942/gfx950, and buffer loads with `lds`
// would share it). Sources: LLVM AMDGPUUsage "AMDGPU DMA Operations" (llvm.amdgcn.global.load.lds: M0 holds
// the wave-uniform LDS base; the instruction offset applies to both the memory and the LDS address; the LDS
// address is offset by 4 * lane_id for sizes up to 4 bytes and by 16 * lane_id for 12/16 bytes, gfx950) and
// CLRX's GCN notes on MUBUF LDS loads (a sub-dword element is stored as a 4-byte value, extended: the
// reason sbyte/sshort forms exist). M0 is used whole as a byte address (gfx950 LDS is 160 KiB, more than
// M0[15:0] reaches); LDS bytes outside the workgroup's allocation are dropped and noted, as for DS stores.
// Memory is read at issue; the LDS dwords are written when the load completes (the covering s_waitcnt
// vmcnt: a PendingWrite of file 2), so LDS read before that wait sees the old bytes.
struct LdsDma {
  uint32_t base = 0;    // M0 + instruction offset
  unsigned stride = 4;  // LDS bytes per lane
  PendingWrite pending;

  LdsDma(ExecContext& ctx, const Wave& w, const ExecInst& in, const DataOp& op)
      : base(static_cast<uint32_t>(w.s[kM0] + static_cast<uint32_t>(in.mods.offset))), stride(op.count > 1 ? 16u : 4u) {
    pending.file = 2;
    pending.lds = ctx.lds;
  }
  // Queues one lane's element (words: the bytes read, zero-padded, as dwords; sub-dword elements extended).
  void add(ExecContext& ctx, const Wave& w, const ExecInst& in, unsigned lane, const uint32_t* words, const DataOp& op) {
    const uint64_t a = static_cast<uint64_t>(base) + static_cast<uint64_t>(stride) * lane;
    const unsigned n = op.count;
    if (a + 4 * n > ctx.lds_size) return note_out_of_bounds(ctx, w, in, nullptr, a, 4 * n, true, static_cast<int>(lane));
    for (unsigned d = 0; d < n; ++d) {
      pending.data.push_back(static_cast<uint32_t>(a + 4 * d));
      pending.data.push_back(op.bytes == 4 ? words[d] : load_value(0, words[d], op));
    }
  }
  // The vmcnt op that completes the load.
  void issue(Wave& w, const ExecInst& in) {
    PendingOp op;
    op.counters = kVm;
    op.inst = &in;
    op.writes.push_back(std::move(pending));
    w.wc.issue(std::move(op));
  }
};

}  // namespace asmevo::emu::sem::vmem
