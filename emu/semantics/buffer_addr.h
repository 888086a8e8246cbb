// MUBUF/MTBUF addressing, shared by the buffer families (mubuf.cpp: loads, stores, atomics; mubuf_format.cpp:
// format loads/stores): the buffer resource (V#), index/offset, swizzle and range checking. The rules and their
// sources are in mubuf.cpp's header.
#pragma once
#include <cstdint>

#include "emu/alu.h"

namespace asmevo::emu::sem::buffer {

struct Rsrc {
  uint64_t base = 0;
  uint32_t stride = 0, num_records = 0, index_stride = 64;
  uint32_t word3 = 0;  // DST_SEL_X/Y/Z/W [11:0], NUM_FORMAT [14:12], DATA_FORMAT [18:15] (format loads/stores)
  bool swizzle = false, add_tid = false;
};

inline Rsrc read_rsrc(const Wave& w, const Operand& o) {
  const uint32_t w0 = w.s[o.index], w1 = w.s[o.index + 1], w2 = w.s[o.index + 2], w3 = w.s[o.index + 3];
  Rsrc r;
  r.base = w0 | static_cast<uint64_t>(w1 & 0xffffu) << 32;
  r.stride = (w1 >> 16) & 0x3fffu;
  r.swizzle = w1 >> 31 & 1;
  r.num_records = w2;
  r.word3 = w3;
  r.index_stride = 8u << ((w3 >> 21) & 3u);
  r.add_tid = w3 >> 23 & 1;
  if (r.add_tid) r.stride |= ((w3 >> 15) & 0xfu) << 14;
  return r;
}

// Per-instruction addressing state (operands decoded once per execution, lanes computed on demand).
struct Addressing {
  Rsrc rs;
  uint64_t soffset = 0;
  const Operand* vaddr = nullptr;
  bool idxen = false, offen = false;
  uint64_t inst_offset = 0;

  // Device address of bytes [extra, extra + bytes) of lane l's access; false when that component is out of
  // range. A raw buffer's check counts soffset and the component's size: it must end within num_records.
  bool component(const Wave& w, unsigned l, uint64_t extra, unsigned bytes, uint64_t& addr) const {
    uint64_t index = 0, offset = inst_offset + extra;
    if (vaddr && vaddr->kind == Operand::VGPR) {
      if (idxen) index = w.v[vaddr->index][l];
      if (offen) offset += w.v[vaddr->index + (idxen ? 1 : 0)][l];
    }
    if (rs.add_tid) index += l;
    if (idxen && rs.stride != 0) {
      if (index >= rs.num_records) return false;  // structured buffer
    } else if (!(rs.add_tid && !idxen)) {
      if (soffset + offset + bytes > rs.num_records) return false;  // raw buffer
    }
    uint64_t boff;
    if (rs.swizzle) {
      uint64_t is = rs.index_stride;
      boff = ((index / is) * rs.stride + (offset / 4) * 4) * is + (index % is) * 4 + offset % 4;
    } else {
      boff = offset + static_cast<uint64_t>(rs.stride) * index;
    }
    addr = rs.base + soffset + boff;
    return true;
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
