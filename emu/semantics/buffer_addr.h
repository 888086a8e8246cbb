// MUBUF/MTBUF addressing, shared by the buffer families (mubuf.cpp: loads, stores, atomics; mubuf_format.cpp:
// format loads/stores): the buffer resource (V#), index/offset, swizzle and range checking. The rules and their
// sources are in mubuf.cpp's header.
#pragma once
#include <cstdint>

#include "emu/alu.h"
#include "emu/generic.h"

namespace asmevo::emu::sem::buffer {

// The V# fields the addressing reads, generic over the value domain (emu/generic.h): the emulator
// decodes them from concrete SGPRs, the prover (prove/units.cpp) from solver terms. index_stride
// is 8 << word3[22:21], kept as its log2 so the swizzle below is shifts and masks in both domains.
template <class D> struct RsrcFields {
  typename D::u64 base;
  typename D::u32 stride, num_records, index_stride_log2;
  typename D::b1 swizzle, add_tid;
};
template <class D> RsrcFields<D> decode_rsrc(typename D::u32 w0, typename D::u32 w1, typename D::u32 w2, typename D::u32 w3) {
  const auto add_tid = ((w3 >> 23u) & 1u) != 0u;
  return {to<uint64_t>(w0) | (to<uint64_t>(w1 & 0xffffu) << 32u),
          ((w1 >> 16u) & 0x3fffu) | sel(add_tid, ((w3 >> 15u) & 0xfu) << 14u, 0u),
          w2,
          ((w3 >> 21u) & 3u) + 3u,
          ((w1 >> 31u) & 1u) != 0u,
          add_tid};
}

// One component access: whether it is in range, and its device address (meaningful when it is).
template <class D> struct BufferComponent {
  typename D::b1 in_range;
  typename D::u64 address;
};
// `index`, `offset`: as the instruction forms them (VGPR index / offset per idxen / offen, the
// instruction offset and the component's byte offset); `lane` for ADD_TID; `bytes` the access size.
// A raw buffer's check counts soffset and the component's size: it must end within num_records.
template <class D>
BufferComponent<D> buffer_component(const RsrcFields<D>& rs, typename D::u64 soffset, typename D::u64 index, typename D::u64 offset,
                                    unsigned lane, bool idxen, unsigned bytes) {
  index = index + sel(rs.add_tid, uint64_t{lane}, uint64_t{0});
  const auto records = to<uint64_t>(rs.num_records);
  const auto raw_in_range = soffset + offset + uint64_t{bytes} <= records;
  // structured (idxen, stride != 0): the index is checked; private (add_tid, !idxen): nothing is.
  const auto in_range = idxen ? ((rs.stride != 0u && index < records) || (rs.stride == 0u && raw_in_range)) : (rs.add_tid || raw_in_range);
  const auto stride = to<uint64_t>(rs.stride);
  const auto log2 = to<uint64_t>(rs.index_stride_log2);
  const auto linear = offset + stride * index;
  const auto swizzled = (((index >> log2) * stride + (offset & ~uint64_t{3})) << log2) +
                        ((index & ((uint64_t{1} << log2) - 1u)) << 2u) + (offset & uint64_t{3});
  return {in_range, rs.base + soffset + sel(rs.swizzle, swizzled, linear)};
}

struct Rsrc : RsrcFields<Lanes> {
  uint32_t word3 = 0;  // DST_SEL_X/Y/Z/W [11:0], NUM_FORMAT [14:12], DATA_FORMAT [18:15] (format loads/stores)
};

inline Rsrc read_rsrc(const Wave& w, const Operand& o) {
  Rsrc r{decode_rsrc<Lanes>(w.s[o.index], w.s[o.index + 1], w.s[o.index + 2], w.s[o.index + 3])};
  r.word3 = w.s[o.index + 3];
  return r;
}

// Per-instruction addressing state (operands decoded once per execution, lanes computed on demand).
struct Addressing {
  Rsrc rs;
  uint64_t soffset = 0;
  const Operand* vaddr = nullptr;
  bool idxen = false, offen = false;
  uint64_t inst_offset = 0;

  // Device address of bytes [extra, extra + bytes) of lane l's access; false when that component is out of range.
  // Inlined: once a lane, out of line it was a fifth of a sampled GEMM's buffer-load cost (callgrind).
  [[gnu::always_inline]] bool component(const Wave& w, unsigned l, uint64_t extra, unsigned bytes, uint64_t& addr) const {
    uint64_t index = 0, offset = inst_offset + extra;
    if (vaddr && vaddr->kind == Operand::VGPR) {
      if (idxen) index = w.v[vaddr->index][l];
      if (offen) offset += w.v[vaddr->index + (idxen ? 1 : 0)][l];
    }
    const BufferComponent<Lanes> c = buffer_component<Lanes>(rs, soffset, index, offset, l, idxen, bytes);
    addr = c.address;
    return c.in_range;
  }
};

inline Addressing addressing(const Wave& w, const ExecInst& in, const Operand& vaddr, const Operand& srsrc,
                      const Operand& soffset) {
  Addressing a;
  a.rs = read_rsrc(w, srsrc);
  a.soffset = static_cast<uint32_t>(scalar_bits(w, soffset));
  a.vaddr = &vaddr;
  a.idxen = in.mods.idxen;
  a.offen = in.mods.offen;
  a.inst_offset = static_cast<uint64_t>(in.mods.offset);
  return a;
}

inline void refuse_unmodelled(ExecContext& ctx, const Wave& w, const ExecInst& in) {
  if (in.mods.lds)  // buffer_load_* handles it (mubuf.cpp load_lds); any other buffer op with lds is not code LLVM makes
    fail(ctx, w, in, "this buffer instruction with `lds` is not implemented by the emulator (only buffer_load_* to LDS is)", -1, 0,
         "implement the M0-addressed LDS destination for it in emu/semantics");
  if (in.mods.tfe || in.mods.lwe)
    fail(ctx, w, in, "buffer accesses with tfe/lwe are not implemented by the emulator", -1, 0,
         "implement the extra status dword in emu/semantics/mubuf.cpp");
}

}  // namespace asmevo::emu::sem::buffer
