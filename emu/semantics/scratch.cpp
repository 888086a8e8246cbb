// SCRATCH (flat scratch) loads and stores: per-lane private memory (ISA "Flat, Scratch and Global
// Instructions"; architected flat scratch on gfx942/gfx950).
//
//   per-lane offset = (vaddr ? VGPR : 0) + (saddr ? SGPR : 0) + inst_offset (signed 13 bits), 32 bits
//   device address  = FLAT_SCRATCH (s102:103, the wave's private base) + swizzle(offset, lane)
//   swizzle(b, lane) = (b / 4) * 4 * 64 + lane * 4 + b % 4
//
// Private memory is interleaved per dword across the 64 lanes of a wave (element size 4, index
// stride 64), exactly as the MUBUF private segment buffer (V# with swizzle + add_tid, index stride
// 64, soffset = the wave's offset) addresses it - see docs/emulator.md "Scratch" and mubuf.cpp - so
// scratch_* and buffer_* accesses to the private segment see the same bytes. Multi-dword accesses
// are split per dword (each dword of a lane is 256 bytes after the previous one).
//
// Bounds: a lane may address [0, private_segment_fixed_size rounded up to 4) of its own private
// memory; anything else stops the run as a memory fault (the hardware does not range-check scratch,
// so such an access would silently hit another lane's or wave's data - the emulator reports it).
// Timing: vmcnt, in order, like GLOBAL (emu/waitcnt.h).
// scratch_load_lds_* (gfx942/gfx950) write the element to LDS instead of VGPRs (vmem::LdsDma, vmem_data.h).
#include <cstring>

#include "emu/alu.h"
#include "emu/semantics/vmem_data.h"

namespace asmevo::emu::sem {
namespace {

using vmem::DataOp;

struct ScratchAddr {
  uint64_t base = 0;      // FLAT_SCRATCH
  uint32_t limit = 0;     // bytes per lane
  const Operand* vaddr = nullptr;
  uint32_t sbase = 0;     // saddr value (0 if off)
  int64_t inst_offset = 0;

  uint32_t lane_offset(const Wave& w, unsigned l) const {
    uint32_t o = sbase + static_cast<uint32_t>(inst_offset);
    if (vaddr && vaddr->kind == Operand::VGPR) o += w.v[vaddr->index][l];
    return o;
  }
};

ScratchAddr scratch_addr(const ExecContext& ctx, const Wave& w, const ExecInst& in, const Operand& vaddr,
                         const Operand* saddr) {
  ScratchAddr a;
  a.base = w.sreg64(kFlatScratchLo);
  a.limit = (ctx.scratch_per_lane + 3) & ~3u;
  a.vaddr = &vaddr;
  if (saddr && saddr->kind == Operand::SGPR) a.sbase = w.s[saddr->index];
  a.inst_offset = in.mods.offset;
  return a;
}

// Host pointer of `size` bytes at per-lane private offset b (size <= 4, within one dword when b is
// aligned; a misaligned access that crosses a dword is handled byte by byte by the callers).
uint8_t* private_ptr(ExecContext& ctx, const Wave& w, const ExecInst& in, const ScratchAddr& a, uint32_t b,
                     unsigned size, bool write, unsigned l) {
  if (static_cast<uint64_t>(b) + size > a.limit)
    fail(ctx, w, in,
         "memory fault: scratch " + std::string(write ? "write" : "read") + " of " + std::to_string(size) +
             " bytes at private offset " + std::to_string(b) + " beyond the lane's " + std::to_string(a.limit) +
             " bytes (private_segment_fixed_size)",
         static_cast<int>(l), a.base + (static_cast<uint64_t>(b) / 4) * 256 + l * 4 + b % 4,
         "check the kernel's stack usage and its KD private_segment_fixed_size");
  uint64_t addr = a.base + (static_cast<uint64_t>(b) / 4) * 4 * kWaveSize + l * 4 + b % 4;
  return access(ctx, w, in, addr, size, write, static_cast<int>(l));
}

// Reads/writes `bytes` (1, 2, 4) at private offset b, splitting at dword boundaries (swizzle).
uint32_t read_private(ExecContext& ctx, const Wave& w, const ExecInst& in, const ScratchAddr& a, uint32_t b,
                      unsigned bytes, unsigned l) {
  uint32_t v = 0;
  if (b % 4 + bytes <= 4) {
    std::memcpy(&v, private_ptr(ctx, w, in, a, b, bytes, false, l), bytes);
    return v;
  }
  for (unsigned i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(*private_ptr(ctx, w, in, a, b + i, 1, false, l)) << (8 * i);
  return v;
}
void write_private(ExecContext& ctx, const Wave& w, const ExecInst& in, const ScratchAddr& a, uint32_t b,
                   unsigned bytes, unsigned l, uint32_t v) {
  if (b % 4 + bytes <= 4) return void(std::memcpy(private_ptr(ctx, w, in, a, b, bytes, true, l), &v, bytes));
  for (unsigned i = 0; i < bytes; ++i) *private_ptr(ctx, w, in, a, b + i, 1, true, l) = static_cast<uint8_t>(v >> (8 * i));
}

// scratch_load_<op> vdata, vaddr|off, saddr|off [offset:N]
template <DataOp Op> void load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const Operand& vdata = in.dst[0];
  ScratchAddr a = scratch_addr(ctx, w, in, in.src[0], in.nsrc > 1 ? &in.src[1] : nullptr);
  const uint64_t exec = w.exec();
  PendingWrite pw;
  pw.file = 0;
  pw.reg = vdata.index;
  pw.count = static_cast<uint16_t>(Op.count);
  pw.lanes = exec;
  pw.data.assign(Op.count * kWaveSize, 0);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t b = a.lane_offset(w, l);
    for (unsigned d = 0; d < Op.count; ++d)
      pw.data[d * kWaveSize + l] = vmem::load_value(w.v[vdata.index + d][l], read_private(ctx, w, in, a, b + 4 * d, Op.bytes, l), Op);
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// scratch_store_<op> vaddr|off, vdata, saddr|off [offset:N]
template <DataOp Op> void store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const Operand& vdata = in.src[1];
  ScratchAddr a = scratch_addr(ctx, w, in, in.src[0], in.nsrc > 2 ? &in.src[2] : nullptr);
  const uint64_t exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t b = a.lane_offset(w, l);
    for (unsigned d = 0; d < Op.count; ++d)
      write_private(ctx, w, in, a, b + 4 * d, Op.bytes, l, vmem::store_value(w.v[vdata.index + d][l], Op));
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

// scratch_load_lds_<op> vaddr|off, saddr|off [offset:N] (gfx942/gfx950): the lane's private element goes to
// LDS at M0 + offset + lane * 4 (vmem::LdsDma), not to VGPRs. Counted on vmcnt.
template <DataOp Op> void load_lds(ExecContext& ctx, Wave& w, const ExecInst& in) {
  ScratchAddr a = scratch_addr(ctx, w, in, in.src[0], in.nsrc > 1 ? &in.src[1] : nullptr);
  vmem::LdsDma dst(ctx, w, in, Op);
  const uint64_t exec = w.exec();
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint32_t b = a.lane_offset(w, l);
    uint32_t words[4] = {};
    for (unsigned d = 0; d < Op.count; ++d) words[d] = read_private(ctx, w, in, a, b + 4 * d, Op.bytes, l);
    dst.add(ctx, w, in, l, words, Op);
  }
  dst.issue(w, in);
}

}  // namespace

void register_scratch(Registry& r) {
  vmem::for_each_load([&](const char* sfx, auto tag) {
    custom(r, (std::string("scratch_load_") + sfx).c_str(), &load<decltype(tag)::op>, Category::Memory, {Ty::Any},
           {Ty::Any, Ty::Any}, kVariadic, kVm);
  });
  vmem::for_each_store([&](const char* sfx, auto tag) {
    custom(r, (std::string("scratch_store_") + sfx).c_str(), &store<decltype(tag)::op>, Category::Memory, {},
           {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
  });
  auto lds = [&](const char* sfx, ExecFn fn) {
    custom(r, (std::string("scratch_load_lds_") + sfx).c_str(), fn, Category::Memory, {}, {Ty::Any, Ty::Any}, kVariadic, kVm);
  };
  lds("dword", load_lds<vmem::kDword>);
  lds("ubyte", load_lds<vmem::kUbyte>);
  lds("sbyte", load_lds<vmem::kSbyte>);
  lds("ushort", load_lds<vmem::kUshort>);
  lds("sshort", load_lds<vmem::kSshort>);
}

}  // namespace asmevo::emu::sem
