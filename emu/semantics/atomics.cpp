// GLOBAL and FLAT atomics (ISA "Flat, Scratch and Global Instructions", atomic opcodes):
// global_atomic_<op>[_x2] and flat_atomic_<op>[_x2], integer, swap/cmpswap and the gfx90a+ float
// ops (add_f32, pk_add_f16, pk_add_bf16, add_f64, min_f64, max_f64).
//
// Forms. Return ("glc" on gfx90a, "sc0" on gfx942/gfx950): "vdst, vaddr, vdata[, saddr|off]",
// VDST gets the value memory held before the operation. No return: "vaddr, vdata[, saddr|off]".
// The printed operand count tells them apart (the return form has one more operand). Addresses are
// those of the loads/stores (global.cpp): GLOBAL with an SGPR-pair saddr: SADDR + zext(VADDR[31:0])
// + offset, else VADDR[63:0] + offset; FLAT: VADDR[63:0] + offset, and a FLAT address in the
// shared aperture updates this workgroup's LDS (then the op also counts on lgkmcnt). cmpswap's
// data is {src, cmp} (DATA[0] = the value stored on a match, DATA[1] = the compare value), 2 or 4
// registers. Memory is updated at issue under DeviceMemory::atomic_lock; the returned value lands
// in VDST at the covering s_waitcnt vmcnt (in order, emu/waitcnt.h).
//
// Determinism: every unit here is registered with kGlobalAtomic, so the executor runs the
// workgroups of such a kernel one at a time in linear order (x fastest, then y, z); inside a
// workgroup, waves run round-robin in a fixed order, and inside one instruction the lanes are
// applied in ascending lane order. That fixes the order of every float atomic add, so float
// results are bit-identical for any --threads (at the price of one core for such kernels).
//
// Float details: on gfx90a, global/flat atomic add_f32 flushes f32 denormals (inputs and result)
// regardless of MODE; gfx942/gfx950 keep them. (LLVM selects the instruction for IEEE-denormal code
// only where the subtarget has memory-atomic f32 denormal support, GFX940+: the corpus's HIP
// reduce_sum/scatter_add use global_atomic_add_f32 on gfx942/gfx950 but a cmpswap loop on gfx90a;
// LLVM's own test global-atomics-fp.ll selects it on gfx908 only with preserve-sign denormals.)
// add_f64 / pk_add_f16 / pk_add_bf16 keep denormals; all round to nearest even. min_f64/max_f64 return the non-NaN operand when exactly
// one is NaN (IEEE-754 minNum/maxNum), and -0 < +0.
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>

#include "emu/alu.h"
#include "emu/semantics/atomic_ops.h"
#include "emu/program.h"

namespace asmevo::emu::sem {
namespace {

using namespace atomic_ops;  // NOLINT: the shared read-modify-write operators

using u8 = uint8_t;

enum class Form { Global, Flat };

template <class T> T lane_val(const Wave& w, unsigned reg, unsigned l) {
  if constexpr (sizeof(T) == 8) return w.v[reg][l] | (static_cast<u64>(w.v[reg + 1][l]) << 32);
  else return w.v[reg][l];
}

// F(old, data, cmp, ftz) -> new value; T is the u32/u64 bit pattern of the memory operand; ftz:
// the f32 add flushes denormals (gfx90a).
template <Form Fm, class T, auto F, bool Cmp> void atomic(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr unsigned n = sizeof(T) / 4;
  // Operand layout: the return form has vdst first (parsed as dst[0]); otherwise the first
  // operand (vaddr) was parsed as dst[0] too, since the entry declares one destination.
  const unsigned total = in.ndst + in.nsrc;
  const bool rtn = total == (Fm == Form::Global ? 4u : 3u);
  auto op = [&](unsigned i) -> const Operand& {  // i-th printed operand
    return i < in.ndst ? in.dst[i] : in.src[i - in.ndst];
  };
  const unsigned base = rtn ? 1 : 0;
  const Operand& vaddr = op(base);
  const Operand& vdata = op(base + 1);
  const Operand saddr = (Fm == Form::Global && total > base + 2) ? op(base + 2) : Operand{};
  if (in.mods.gds) fail(ctx, w, in, "GDS is not modelled by the emulator");
  const u64 exec = w.exec();
  PendingWrite pw;
  if (rtn) {
    pw.file = 0;
    pw.reg = op(0).index;
    pw.count = n;
    pw.lanes = exec;
    pw.data.assign(n * kWaveSize, 0);
  }
  bool lds = false;
  const bool ftz = ctx.program && ctx.program->arch() == codeobj::Arch::gfx90a;
  const uint64_t off = static_cast<uint64_t>(in.mods.offset);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    uint64_t a;
    if (saddr.kind == Operand::SGPR) a = w.sreg64(saddr.index) + w.v[vaddr.index][l] + off;
    else a = (w.v[vaddr.index][l] | static_cast<uint64_t>(w.v[vaddr.index + 1][l]) << 32) + off;
    T d = lane_val<T>(w, vdata.index, l);
    T c = Cmp ? lane_val<T>(w, vdata.index + n, l) : T(0);
    T old = 0;
    if (Fm == Form::Flat && DeviceMemory::in_shared_aperture(a)) {
      lds = true;
      uint64_t lo = a - DeviceMemory::kSharedAperture;
      if (lo + sizeof(T) > ctx.lds_size)
        fail(ctx, w, in, "memory fault: flat atomic to LDS offset " + std::to_string(lo) + " beyond the workgroup's " +
                             std::to_string(ctx.lds_size) + " bytes", static_cast<int>(l), a);
      u8* p = ctx.lds + lo;
      std::memcpy(&old, p, sizeof(T));
      T nv = F(old, d, c, ftz);
      std::memcpy(p, &nv, sizeof(T));
    } else {
      if (Fm == Form::Flat && DeviceMemory::in_private_aperture(a))
        fail(ctx, w, in, "flat atomic to the private (scratch) aperture is not implemented", static_cast<int>(l), a);
      u8* p = access(ctx, w, in, a, sizeof(T), true, static_cast<int>(l));
      std::lock_guard<std::mutex> lock(ctx.mem->atomic_lock(a));
      std::memcpy(&old, p, sizeof(T));
      T nv = F(old, d, c, ftz);
      std::memcpy(p, &nv, sizeof(T));
    }
    if (rtn)
      for (unsigned k = 0; k < n; ++k) pw.data[k * kWaveSize + l] = static_cast<u32>(static_cast<u64>(old) >> (32 * k));
  }
  PendingOp po;
  po.counters = static_cast<uint8_t>(kVm | (lds ? kLgkm : 0));
  po.inst = &in;
  if (rtn) po.writes.push_back(std::move(pw));
  w.wc.issue(std::move(po));
}


inline u32 add_f32(u32 a, u32 b, bool ftz) {
  if (!ftz) return std::bit_cast<u32>(f32(a) + f32(b));
  return std::bit_cast<u32>(detail::flush(detail::flush(f32(a)) + detail::flush(f32(b))));
}
template <class T, auto F, bool Cmp = false> void both(Registry& r, const std::string& op) {
  for (const char* pre : {"global_atomic_", "flat_atomic_"}) {
    ExecFn fn = std::string(pre) == "global_atomic_" ? &atomic<Form::Global, T, F, Cmp> : &atomic<Form::Flat, T, F, Cmp>;
    custom(r, (pre + op).c_str(), fn, Category::Memory, {Ty::Any}, {Ty::Any, Ty::Any, Ty::Any}, kVariadic | kGlobalAtomic, kVm);
  }
}

}  // namespace

void register_atomics(Registry& r) {
  // 32-bit (MEM = f(MEM, DATA); RETURN = old MEM).
  both<u32, [](u32, u32 d, u32, bool) { return d; }>(r, "swap");
  both<u32, [](u32 m, u32 src, u32 cmp, bool) { return m == cmp ? src : m; }, true>(r, "cmpswap");
  both<u32, [](u32 m, u32 d, u32, bool) { return m + d; }>(r, "add");
  both<u32, [](u32 m, u32 d, u32, bool) { return m - d; }>(r, "sub");
  both<u32, [](u32 m, u32 d, u32, bool) { return static_cast<i32>(d) < static_cast<i32>(m) ? d : m; }>(r, "smin");
  both<u32, [](u32 m, u32 d, u32, bool) { return d < m ? d : m; }>(r, "umin");
  both<u32, [](u32 m, u32 d, u32, bool) { return static_cast<i32>(d) > static_cast<i32>(m) ? d : m; }>(r, "smax");
  both<u32, [](u32 m, u32 d, u32, bool) { return d > m ? d : m; }>(r, "umax");
  both<u32, [](u32 m, u32 d, u32, bool) { return m & d; }>(r, "and");
  both<u32, [](u32 m, u32 d, u32, bool) { return m | d; }>(r, "or");
  both<u32, [](u32 m, u32 d, u32, bool) { return m ^ d; }>(r, "xor");
  both<u32, [](u32 m, u32 d, u32, bool) { return m >= d ? 0u : m + 1; }>(r, "inc");
  both<u32, [](u32 m, u32 d, u32, bool) { return (m == 0 || m > d) ? d : m - 1; }>(r, "dec");
  both<u32, [](u32 m, u32 d, u32, bool ftz) { return add_f32(m, d, ftz); }>(r, "add_f32");
  both<u32, [](u32 m, u32 d, u32, bool) { return pk_add_f16(m, d); }>(r, "pk_add_f16");
  both<u32, [](u32 m, u32 d, u32, bool) { return pk_add_bf16(m, d); }>(r, "pk_add_bf16");
  // 64-bit.
  both<u64, [](u64, u64 d, u64, bool) { return d; }>(r, "swap_x2");
  both<u64, [](u64 m, u64 src, u64 cmp, bool) { return m == cmp ? src : m; }, true>(r, "cmpswap_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m + d; }>(r, "add_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m - d; }>(r, "sub_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return static_cast<i64>(d) < static_cast<i64>(m) ? d : m; }>(r, "smin_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return d < m ? d : m; }>(r, "umin_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return static_cast<i64>(d) > static_cast<i64>(m) ? d : m; }>(r, "smax_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return d > m ? d : m; }>(r, "umax_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m & d; }>(r, "and_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m | d; }>(r, "or_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m ^ d; }>(r, "xor_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return m >= d ? 0ull : m + 1; }>(r, "inc_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return (m == 0 || m > d) ? d : m - 1; }>(r, "dec_x2");
  both<u64, [](u64 m, u64 d, u64, bool) { return std::bit_cast<u64>(f64(m) + f64(d)); }>(r, "add_f64");
  both<u64, [](u64 m, u64 d, u64, bool) { return min_f64(m, d); }>(r, "min_f64");
  both<u64, [](u64 m, u64 d, u64, bool) { return max_f64(m, d); }>(r, "max_f64");
}

}  // namespace asmevo::emu::sem
