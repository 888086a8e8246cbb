// Scalar scratch loads/stores and scalar cache discards (gfx9 SMEM; LLVM decodes them for gfx90a, gfx942 and
// gfx950; no compiler emits them). Source: AMD Vega ISA SMEM descriptions as CLRX's GCN 1.4 notes restate
// them (doc/GcnInstrsSmem.md):
//
//   s_scratch_load_dword{,x2,x4} SDATA, SBASE, OFFSET / s_scratch_store_dword{,x2,x4} SDATA, SBASE, OFFSET:
//       ADDR = SBASE + (imm offset & ~3) + (SGPR offset & ~3) * 64
//   The SGPR offset is a per-lane scratch offset and private memory is interleaved per dword across the
//   64 lanes (scratch.cpp), hence x 64. SBASE is a 64-bit address (the wave's scratch base, e.g. FLAT_SCRATCH);
//   every dword must lie in memory AsmEvo allocated or the run stops. This rule needs hardware confirmation
//   (docs/emulator.md). Loads land at the covering s_waitcnt lgkmcnt(0) (smem.cpp); stores are written at
//   issue, like s_store_dword (smem_write.cpp).
//   s_dcache_discard{,_x2} SBASE, OFFSET: drop one/two dirty 64-byte scalar cache lines without writing them
//       back. The emulator writes scalar stores at issue, i.e. as if every line had already been written back,
//       which is one of the outcomes the ISA allows (a line may be evicted before the discard), so a discard
//       changes nothing here. Counted on lgkmcnt.
#include <cstring>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

// ADDR = SBASE + (imm offset & ~3) + (SGPR offset & ~3) * 64 (an immediate OFFSET operand counts as imm offset).
uint64_t scratch_address(const Wave& w, const ExecInst& in, const Operand& sbase, const Operand& off) {
  uint64_t a = w.sreg64(sbase.index) + (static_cast<uint64_t>(in.mods.offset) & ~3ull);
  if (off.kind == Operand::SGPR) a += (static_cast<uint64_t>(w.s[off.index]) & ~3ull) * 64;
  else a += scalar_bits(w, off) & 0xffffffffull & ~3ull;
  return a;
}

// s_scratch_load_dword* SDATA, SBASE, OFFSET: operands dst = SDATA, src = {SBASE, OFFSET}.
template <unsigned N> void s_scratch_load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint64_t a = scratch_address(w, in, in.src[0], in.src[1]);
  PendingWrite pw;
  pw.file = 1;
  pw.reg = in.dst[0].index;
  pw.count = N;
  pw.data.resize(N);
  std::memcpy(pw.data.data(), access(ctx, w, in, a, 4 * N, false, -1), 4 * N);
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// s_scratch_store_dword* SDATA, SBASE, OFFSET: operands src = {SDATA, SBASE, OFFSET}.
template <unsigned N> void s_scratch_store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  const uint64_t a = scratch_address(w, in, in.src[1], in.src[2]);
  std::memcpy(access(ctx, w, in, a, 4 * N, true, -1), &w.s[in.src[0].index], 4 * N);
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

void s_dcache_discard(ExecContext&, Wave& w, const ExecInst& in) {
  PendingOp op;
  op.counters = kLgkm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

}  // namespace

void register_smem_scratch(Registry& r) {
  const uint32_t f = kVariadic;
  custom(r, "s_scratch_load_dword", s_scratch_load<1>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_scratch_load_dwordx2", s_scratch_load<2>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_scratch_load_dwordx4", s_scratch_load<4>, Category::Memory, {Ty::Any}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_scratch_store_dword", s_scratch_store<1>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_scratch_store_dwordx2", s_scratch_store<2>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_scratch_store_dwordx4", s_scratch_store<4>, Category::Memory, {}, {Ty::Any, Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_dcache_discard", s_dcache_discard, Category::Memory, {}, {Ty::B64, Ty::B32}, f, kLgkm);
  custom(r, "s_dcache_discard_x2", s_dcache_discard, Category::Memory, {}, {Ty::B64, Ty::B32}, f, kLgkm);
}

}  // namespace asmevo::emu::sem
