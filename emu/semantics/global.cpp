// GLOBAL and FLAT loads/stores (ISA "Flat, Scratch and Global Instructions"). Counted on vmcnt and
// returning in order; a FLAT access that hits the LDS aperture also counts on lgkmcnt. Every lane's
// address is checked against the allocated ranges (memory fault otherwise). Load data is read at
// issue and lands in the VGPRs at the covering s_waitcnt (emu/waitcnt.h); store data is read from
// the VGPRs and written to memory at issue (gfx9 stores need no wait before their data is reused).
//
// Addresses: GLOBAL with saddr "off": ADDR = VADDR[63:0] + offset; with an SGPR pair saddr:
// ADDR = SADDR + zext(VADDR[31:0]) + offset. FLAT: ADDR = VADDR[63:0] + offset.
// D16 byte/short loads keep the other half of VDST; global_load_lds_* (gfx942/gfx950) write LDS instead of
// VGPRs (vmem::LdsDma in vmem_data.h).
#include <cstring>

#include "emu/alu.h"
#include "emu/semantics/vmem_data.h"

namespace asmevo::emu::sem {
namespace {

enum class Form { Global, Flat };

uint64_t lane_address(const Wave& w, const ExecInst& in, const Operand& vaddr, const Operand& saddr, unsigned l) {
  if (saddr.kind == Operand::SGPR)
    return w.sreg64(saddr.index) + w.v[vaddr.index][l] + static_cast<uint64_t>(in.mods.offset);
  return (w.v[vaddr.index][l] | static_cast<uint64_t>(w.v[vaddr.index + 1][l]) << 32) + static_cast<uint64_t>(in.mods.offset);
}

// Host pointer for a lane's access: global memory, or LDS through the flat shared aperture.
uint8_t* lane_ptr(ExecContext& ctx, const Wave& w, const ExecInst& in, Form f, uint64_t a, unsigned size, bool write,
                  unsigned l, bool& lds) {
  if (f == Form::Flat && DeviceMemory::in_shared_aperture(a)) {
    lds = true;
    uint64_t off = a - DeviceMemory::kSharedAperture;
    if (off + size > ctx.lds_size)
      fail(ctx, w, in, "memory fault: flat access to LDS offset " + std::to_string(off) + " beyond the workgroup's " +
                           std::to_string(ctx.lds_size) + " bytes", static_cast<int>(l), a);
    return ctx.lds + off;
  }
  if (f == Form::Flat && DeviceMemory::in_private_aperture(a))
    fail(ctx, w, in, "flat access to the private (scratch) aperture is not implemented yet", static_cast<int>(l), a,
         "implement scratch in emu/semantics (docs/emulator.md)");
  return access(ctx, w, in, a, size, write, static_cast<int>(l));
}

// Every active lane's access of `Bytes` (load or store), handing `each(lane, host bytes)` in lane order. GLOBAL: a run of
// active lanes whose addresses follow each other (a wave reading or writing a row) is one access (access_run); a run
// that access_run declines, and every FLAT access (LDS aperture), goes lane by lane through lane_ptr.
template <Form F, unsigned Bytes, class Each>
void each_lane(ExecContext& ctx, const Wave& w, const ExecInst& in, const Operand& vaddr, const Operand& saddr, uint64_t exec,
               bool write, bool& lds, Each each) {
  for (unsigned l = 0; l < kWaveSize;) {
    if (!(exec >> l & 1)) {
      ++l;
      continue;
    }
    const uint64_t a = lane_address(w, in, vaddr, saddr, l);
    unsigned n = 1;
    if constexpr (F == Form::Global) {
      while (l + n < kWaveSize && (exec >> (l + n) & 1) && lane_address(w, in, vaddr, saddr, l + n) == a + uint64_t{n} * Bytes) ++n;
      if (n > 1)
        if (uint8_t* p = access_run(ctx, w, in, a, Bytes, n, write, static_cast<int>(l), 1)) {
          for (unsigned i = 0; i < n; ++i) each(l + i, p + i * Bytes);
          l += n;
          continue;
        }
    }
    for (unsigned i = 0; i < n; ++i)
      each(l + i, lane_ptr(ctx, w, in, F, i ? lane_address(w, in, vaddr, saddr, l + i) : a, Bytes, write, l + i, lds));
    l += n;
  }
}

// Loads of `Bytes` per lane; sub-dword loads zero- or sign-extend into one VGPR.
template <Form F, unsigned Bytes, bool Signed> void load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr unsigned dwords = Bytes < 4 ? 1 : Bytes / 4;
  const Operand& vaddr = in.src[0];
  const Operand saddr = in.nsrc > 1 ? in.src[1] : Operand{};
  uint64_t exec = w.exec();
  PendingWrite pw;
  pw.file = 0;
  pw.reg = in.dst[0].index;
  pw.count = dwords;
  pw.lanes = exec;
  pw.data.assign(dwords * kWaveSize, 0);
  bool lds = false;
  each_lane<F, Bytes>(ctx, w, in, vaddr, saddr, exec, false, lds, [&](unsigned l, const uint8_t* p) {
    if constexpr (Bytes >= 4) {
      for (unsigned d = 0; d < dwords; ++d) std::memcpy(&pw.data[d * kWaveSize + l], p + 4 * d, 4);
    } else {
      uint32_t v = 0;
      std::memcpy(&v, p, Bytes);
      if (Signed) v = static_cast<uint32_t>(Bytes == 1 ? static_cast<int32_t>(static_cast<int8_t>(v)) : static_cast<int32_t>(static_cast<int16_t>(v)));
      pw.data[l] = v;
    }
  });
  PendingOp op;
  op.counters = static_cast<uint8_t>(kVm | (lds ? kLgkm : 0));
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// D16 loads of a byte or short (ISA "16-bit Memory Operations"): the element, zero- or sign-extended to
// 16 bits, replaces the low (`_d16`) or high (`_d16_hi`) half of VDST; the other half keeps its value
// (vmem::load_value). The destination is pending until the covering s_waitcnt (writing it earlier is a
// waitcnt violation), so its value at issue is its value at completion.
template <Form F, vmem::DataOp Op> void load_d16(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const Operand& vaddr = in.src[0];
  const Operand saddr = in.nsrc > 1 ? in.src[1] : Operand{};
  const uint64_t exec = w.exec();
  const uint32_t* old = w.v[in.dst[0].index].lane;
  PendingWrite pw;
  pw.file = 0;
  pw.reg = in.dst[0].index;
  pw.count = 1;
  pw.lanes = exec;
  pw.data.assign(kWaveSize, 0);
  bool lds = false;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t raw = 0;
    std::memcpy(&raw, lane_ptr(ctx, w, in, F, lane_address(w, in, vaddr, saddr, l), Op.bytes, false, l, lds), Op.bytes);
    pw.data[l] = vmem::load_value(old[l], raw, Op);
  }
  PendingOp op;
  op.counters = static_cast<uint8_t>(kVm | (lds ? kLgkm : 0));
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// global_load_lds_<op> vaddr, saddr|off [offset:N]: each active lane's element goes to LDS at
// M0 + offset + lane * 4 (16 for dwordx3/x4), not to VGPRs (vmem::LdsDma). Counted on vmcnt.
template <vmem::DataOp Op> void load_lds(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const Operand& vaddr = in.src[0];
  const Operand saddr = in.nsrc > 1 ? in.src[1] : Operand{};
  const uint64_t exec = w.exec();
  vmem::LdsDma dst(ctx, w, in, Op);
  bool lds = false;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t words[4] = {};
    const uint8_t* p = lane_ptr(ctx, w, in, Form::Global, lane_address(w, in, vaddr, saddr, l), Op.bytes * Op.count, false, l, lds);
    std::memcpy(words, p, Op.bytes * Op.count);
    dst.add(ctx, w, in, l, words, Op);
  }
  dst.issue(w, in);
}

// Stores of `Bytes` per lane; sub-dword stores take the data from bit `Shift` of the VGPR
// (`_d16_hi` forms store the high half: ISA "FLAT ... STORE_SHORT_D16_HI / STORE_BYTE_D16_HI").
template <Form F, unsigned Bytes, unsigned Shift = 0> void store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr unsigned dwords = Bytes < 4 ? 1 : Bytes / 4;
  const Operand& vaddr = in.src[0];
  const Operand& data = in.src[1];
  const Operand saddr = in.nsrc > 2 ? in.src[2] : Operand{};
  uint64_t exec = w.exec();
  bool lds = false;
  each_lane<F, Bytes>(ctx, w, in, vaddr, saddr, exec, true, lds, [&](unsigned l, uint8_t* p) {
    if constexpr (Bytes >= 4) {
      for (unsigned d = 0; d < dwords; ++d) std::memcpy(p + 4 * d, &w.v[data.index + d][l], 4);
    } else {
      uint32_t v = w.v[data.index][l] >> Shift;
      std::memcpy(p, &v, Bytes);
    }
  });
  PendingOp op;
  op.counters = static_cast<uint8_t>(kVm | (lds ? kLgkm : 0));
  op.inst = &in;
  w.wc.issue(std::move(op));
}

template <Form F> void add_all(Registry& r, const char* pre) {
  auto L = [&](const char* sfx, ExecFn fn) {
    custom(r, (std::string(pre) + "_load_" + sfx).c_str(), fn, Category::Memory, {Ty::Any}, {Ty::Any, Ty::Any}, kVariadic, kVm);
  };
  auto S = [&](const char* sfx, ExecFn fn) {
    custom(r, (std::string(pre) + "_store_" + sfx).c_str(), fn, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
  };
  L("dword", load<F, 4, false>);
  L("dwordx2", load<F, 8, false>);
  L("dwordx3", load<F, 12, false>);
  L("dwordx4", load<F, 16, false>);
  L("ubyte", load<F, 1, false>);
  L("sbyte", load<F, 1, true>);
  L("ushort", load<F, 2, false>);
  L("sshort", load<F, 2, true>);
  L("ubyte_d16", load_d16<F, vmem::kUbyteD16>);
  L("ubyte_d16_hi", load_d16<F, vmem::kUbyteD16Hi>);
  L("sbyte_d16", load_d16<F, vmem::kSbyteD16>);
  L("sbyte_d16_hi", load_d16<F, vmem::kSbyteD16Hi>);
  L("short_d16", load_d16<F, vmem::kShortD16>);
  L("short_d16_hi", load_d16<F, vmem::kShortD16Hi>);
  S("dword", store<F, 4>);
  S("dwordx2", store<F, 8>);
  S("dwordx3", store<F, 12>);
  S("dwordx4", store<F, 16>);
  S("byte", store<F, 1>);
  S("short", store<F, 2>);
  S("byte_d16_hi", store<F, 1, 16>);
  S("short_d16_hi", store<F, 2, 16>);
}

}  // namespace

void register_global(Registry& r) {
  add_all<Form::Global>(r, "global");
  add_all<Form::Flat>(r, "flat");
  auto lds = [&](const char* sfx, ExecFn fn) {
    custom(r, (std::string("global_load_lds_") + sfx).c_str(), fn, Category::Memory, {}, {Ty::Any, Ty::Any}, kVariadic, kVm);
  };
  lds("dword", load_lds<vmem::kDword>);
  lds("dwordx3", load_lds<vmem::kX3>);  // gfx950
  lds("dwordx4", load_lds<vmem::kX4>);  // gfx950
  lds("ubyte", load_lds<vmem::kUbyte>);
  lds("sbyte", load_lds<vmem::kSbyte>);
  lds("ushort", load_lds<vmem::kUshort>);
  lds("sshort", load_lds<vmem::kSshort>);
}

}  // namespace asmevo::emu::sem
