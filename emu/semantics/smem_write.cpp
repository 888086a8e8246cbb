// SMEM stores and atomics (ISA "Scalar Memory Operations": S_STORE_DWORD*, S_BUFFER_STORE_DWORD*,
// S_ATOMIC_*, S_BUFFER_ATOMIC_*; gfx90a and the gfx940 family, as LLVM decodes them).
//
// Operands as LLVM prints them: "SDATA, SBASE, OFFSET [offset:N] [glc]". SBASE is an SGPR pair
// (address) or, for the buffer forms, a V# quad (base [47:0], num_records [95:64]: dwords at or past
// num_records are not written / read 0, like s_buffer_load). OFFSET is an immediate or an SGPR
// (plus offset:N); ADDR = (SBASE + OFFSET) & ~3 (smem.cpp). Atomics: MEM = f(MEM, DATA); with glc
// (sc0 is the same bit) the value memory held before lands in SDATA at the covering
// s_waitcnt lgkmcnt(0); cmpswap's SDATA is {src, cmp} as for the vector atomics.
// Modelled choices: memory is written at issue (the scalar data cache is not modelled, so a store is
// visible to later vector loads of the same wave at once; the hardware needs s_dcache_wb before
// other agents see it); atomics take DeviceMemory::atomic_lock and are registered kGlobalAtomic
// (workgroups run in linear order, emu/semantics/atomics.cpp).
#include <cstring>
#include <mutex>
#include <optional>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

uint64_t soffset(const Wave& w, const ExecInst& in) {
  uint64_t off = in.nsrc > 2 ? scalar_bits(w, in.src[2]) & 0xffffffffull : 0;
  return off + static_cast<uint64_t>(in.mods.offset);
}

// The address of dword `i` of the access, or nullopt where a buffer form's num_records cuts it off.
template <bool Buffer> std::optional<uint64_t> dword_address(const Wave& w, const ExecInst& in, unsigned i) {
  const Operand& b = in.src[1];
  if constexpr (Buffer) {
    uint64_t base = w.sreg64(b.index) & 0xffff'ffff'ffffull;
    uint64_t o = (soffset(w, in) & ~3ull) + 4 * i;
    if (o + 4 > w.s[b.index + 2]) return std::nullopt;
    return base + o;
  } else {
    return ((scalar_bits(w, b) + soffset(w, in)) & ~3ull) + 4 * i;
  }
}

template <unsigned N, bool Buffer> void s_store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  for (unsigned i = 0; i < N; ++i)
    if (auto a = dword_address<Buffer>(w, in, i)) {
      uint32_t d = w.s[in.src[0].index + i];
      std::memcpy(access(ctx, w, in, *a, 4, true, -1), &d, 4);
    }
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

template <class T, auto F, bool Cmp, bool Buffer> void s_atomic(ExecContext& ctx, Wave& w, const ExecInst& in) {
  constexpr unsigned n = sizeof(T) / 4;
  const unsigned r = in.src[0].index;
  auto reg = [&](unsigned k) {
    T v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<T>(static_cast<u64>(w.s[r + k * n + i]) << (32 * i));
    return v;
  };
  T d = reg(0), c = Cmp ? reg(1) : T(0), old = 0;
  auto a = dword_address<Buffer>(w, in, 0);
  if (a && dword_address<Buffer>(w, in, n - 1)) {  // a buffer access partly out of range updates nothing
    uint8_t* p = access(ctx, w, in, *a, sizeof(T), true, -1);
    std::lock_guard<std::mutex> lock(ctx.mem->atomic_lock(*a));
    std::memcpy(&old, p, sizeof(T));
    T nv = F(old, d, c);
    std::memcpy(p, &nv, sizeof(T));
  }
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  if (in.mods.glc || in.mods.sc0) {
    PendingWrite pw;
    pw.file = 1;
    pw.reg = static_cast<uint16_t>(r);
    pw.count = n;
    for (unsigned i = 0; i < n; ++i) pw.data.push_back(static_cast<uint32_t>(static_cast<u64>(old) >> (32 * i)));
    op.writes.push_back(std::move(pw));
  }
  w.wc.issue(std::move(op));
}

// s_dcache_inv_vol / s_dcache_wb_vol (the volatile-line forms of s_dcache_inv / s_dcache_wb) and
// s_atc_probe / s_atc_probe_buffer (address-translation probes): no scalar cache or ATC is modelled and
// memory is always coherent, so they move no data. (s_dcache_discard would drop dirty lines that this
// model has already written to memory: it stays unsupported.)
void no_data(ExecContext&, Wave&, const ExecInst&) {}

template <class T, auto F, bool Cmp = false> void atomic_pair(Registry& r, const std::string& op) {
  const uint32_t f = kVariadic | kGlobalAtomic;
  custom(r, ("s_atomic_" + op).c_str(), s_atomic<T, F, Cmp, false>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, ("s_buffer_atomic_" + op).c_str(), s_atomic<T, F, Cmp, true>, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::B32}, f,
         kLgkm);
}

template <class T> void integer_atomics(Registry& r, const std::string& sfx) {
  using S = std::make_signed_t<T>;
  atomic_pair<T, [](T, T d, T) { return d; }>(r, "swap" + sfx);
  atomic_pair<T, [](T m, T src, T cmp) { return m == cmp ? src : m; }, true>(r, "cmpswap" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<T>(m + d); }>(r, "add" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<T>(m - d); }>(r, "sub" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<S>(d) < static_cast<S>(m) ? d : m; }>(r, "smin" + sfx);
  atomic_pair<T, [](T m, T d, T) { return d < m ? d : m; }>(r, "umin" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<S>(d) > static_cast<S>(m) ? d : m; }>(r, "smax" + sfx);
  atomic_pair<T, [](T m, T d, T) { return d > m ? d : m; }>(r, "umax" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<T>(m & d); }>(r, "and" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<T>(m | d); }>(r, "or" + sfx);
  atomic_pair<T, [](T m, T d, T) { return static_cast<T>(m ^ d); }>(r, "xor" + sfx);
  atomic_pair<T, [](T m, T d, T) { return m >= d ? T(0) : static_cast<T>(m + 1); }>(r, "inc" + sfx);
  atomic_pair<T, [](T m, T d, T) { return (m == 0 || m > d) ? d : static_cast<T>(m - 1); }>(r, "dec" + sfx);
}

}  // namespace

void register_smem_write(Registry& r) {
  const uint32_t f = kVariadic;
  custom(r, "s_store_dword", s_store<1, false>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_store_dwordx2", s_store<2, false>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_store_dwordx4", s_store<4, false>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_store_dword", s_store<1, true>, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_store_dwordx2", s_store<2, true>, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_store_dwordx4", s_store<4, true>, Category::Memory, {}, {Ty::Any, Ty::Any, Ty::B32}, f, kLgkm);
  for (const char* m : {"s_dcache_inv_vol", "s_dcache_wb_vol", "s_atc_probe", "s_atc_probe_buffer"})
    custom(r, m, no_data, Category::Memory, {}, {}, kRawOperands);
  integer_atomics<u32>(r, "");
  integer_atomics<u64>(r, "_x2");
}

}  // namespace asmevo::emu::sem
