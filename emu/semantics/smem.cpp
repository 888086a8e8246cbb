// SMEM: scalar loads through the constant cache (lgkmcnt, out of order). ISA "Scalar Memory Operations".
// The value is read at issue; it reaches the SGPRs at the s_waitcnt lgkmcnt(0) that covers it.
#include <chrono>
#include <cstring>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

// ADDR = (SBASE + OFFSET) & ~3, OFFSET = imm (offset:N or the literal) or SGPR (+ offset:N).
uint64_t smem_offset(const Wave& w, const ExecInst& in) {
  uint64_t off = in.nsrc > 1 ? scalar_bits(w, in.src[1]) & 0xffffffffull : 0;
  return off + static_cast<uint64_t>(in.mods.offset);
}

void issue_sgpr_load(Wave& w, const ExecInst& in, const uint32_t* data, unsigned n) {
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  PendingWrite pw;
  pw.file = 1;
  pw.reg = in.dst[0].index;
  pw.count = static_cast<uint16_t>(n);
  pw.data.assign(data, data + n);
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

template <unsigned N> void s_load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint64_t addr = (scalar_bits(w, in.src[0]) + smem_offset(w, in)) & ~3ull;
  uint32_t data[N];
  std::memcpy(data, access(ctx, w, in, addr, 4 * N, false, -1), 4 * N);
  issue_sgpr_load(w, in, data, N);
}

// Buffer form: SBASE is a V# (base [47:0], num_records [95:64]); dwords at or past num_records read 0.
template <unsigned N> void s_buffer_load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const Operand& b = in.src[0];
  uint64_t base = (w.sreg64(b.index) & 0xffff'ffff'ffffull);
  uint32_t num_records = w.s[b.index + 2];
  uint64_t off = smem_offset(w, in) & ~3ull;
  uint32_t data[N];
  for (unsigned i = 0; i < N; ++i) {
    uint64_t o = off + 4 * i;
    data[i] = 0;
    if (o + 4 <= num_records) std::memcpy(&data[i], access(ctx, w, in, base + o, 4, false, -1), 4);
  }
  issue_sgpr_load(w, in, data, N);
}

// s_memtime / s_memrealtime: a 64-bit counter. Deterministic: the wave's executed-instruction count.
void s_memtime(ExecContext&, Wave& w, const ExecInst& in) {
  uint32_t d[2] = {static_cast<uint32_t>(w.instructions), static_cast<uint32_t>(w.instructions >> 32)};
  issue_sgpr_load(w, in, d, 2);
}

void cache_op(ExecContext&, Wave&, const ExecInst&) {}  // s_dcache_inv / s_dcache_wb: no caches modelled

}  // namespace

void register_smem(Registry& r) {
  const uint32_t f = kVariadic;
  custom(r, "s_load_dword", s_load<1>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_load_dwordx2", s_load<2>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_load_dwordx4", s_load<4>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_load_dwordx8", s_load<8>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_load_dwordx16", s_load<16>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_load_dword", s_buffer_load<1>, Category::Memory, {Ty::Any}, {Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_load_dwordx2", s_buffer_load<2>, Category::Memory, {Ty::Any}, {Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_load_dwordx4", s_buffer_load<4>, Category::Memory, {Ty::Any}, {Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_load_dwordx8", s_buffer_load<8>, Category::Memory, {Ty::Any}, {Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_buffer_load_dwordx16", s_buffer_load<16>, Category::Memory, {Ty::Any}, {Ty::Any, Ty::B32}, f, kLgkm);
  custom(r, "s_memtime", s_memtime, Category::Memory, {Ty::B64}, {}, 0, kLgkm);
  custom(r, "s_memrealtime", s_memtime, Category::Memory, {Ty::B64}, {}, 0, kLgkm);
  custom(r, "s_dcache_inv", cache_op, Category::Memory, {}, {}, kRawOperands);
  custom(r, "s_dcache_wb", cache_op, Category::Memory, {}, {}, kRawOperands);
}

}  // namespace asmevo::emu::sem
