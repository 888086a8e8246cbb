// More SOP1/SOP2 scalar ALU operations (ISA "Scalar ALU Operations", Vega/CDNA3 pseudo-code), added
// for issue 15's ISA coverage. As sop.cpp: SCC and EXEC through Scc& / Exec& (emu/alu.h); kDstIsSrc0
// where the destination's old value is read (s_bitset*, s_cmov_b64).
#include <bit>

#include "emu/alu.h"

namespace asmevo::emu::sem {

void register_sop_more(Registry& r) {
  // SOP2 s_absdiff_i32: D = |S0 - S1|; SCC = D != 0.
  salu<[](i32 a, i32 b, Scc& scc) { i64 t = i64(a) - b; u32 d = static_cast<u32>(t < 0 ? -t : t); scc = d != 0; return d; }>(r, "s_absdiff_i32");
  // s_bcnt0: count of zero bits; SCC = D != 0.
  salu<[](u32 a, Scc& scc) { u32 d = static_cast<u32>(std::popcount(~a)); scc = d != 0; return d; }>(r, "s_bcnt0_i32_b32");
  salu<[](u64 a, Scc& scc) { u32 d = static_cast<u32>(std::popcount(~a)); scc = d != 0; return d; }>(r, "s_bcnt0_i32_b64");
  // s_ff0: index of the first zero bit from the LSB, -1 if none.
  salu<[](u32 a) { return ~a ? static_cast<u32>(std::countr_zero(~a)) : ~0u; }>(r, "s_ff0_i32_b32");
  salu<[](u64 a) { return ~a ? static_cast<u32>(std::countr_zero(~a)) : ~0u; }>(r, "s_ff0_i32_b64");
  // s_flbit_i32 (signed): bits from the MSB before the first one that differs from the sign; -1 for 0 and -1.
  salu<[](u32 a) { u32 x = static_cast<i32>(a) < 0 ? ~a : a; return x ? static_cast<u32>(std::countl_zero(x)) : ~0u; }>(r, "s_flbit_i32");
  salu<[](u64 a) { u64 x = static_cast<i64>(a) < 0 ? ~a : a; return x ? static_cast<u32>(std::countl_zero(x)) : ~0u; }>(r, "s_flbit_i32_i64");
  // s_bitset0/1 D, S0: D[S0[4:0]] (b64: [5:0]) = 0 / 1, the other bits kept.
  salu<[](u32 d, u32 s) { return d & ~(1u << (s & 31)); }>(r, "s_bitset0_b32", kDstIsSrc0);
  salu<[](u32 d, u32 s) { return d | (1u << (s & 31)); }>(r, "s_bitset1_b32", kDstIsSrc0);
  salu<[](u64 d, u32 s) { return d & ~(1ull << (s & 63)); }>(r, "s_bitset0_b64", kDstIsSrc0);
  salu<[](u64 d, u32 s) { return d | (1ull << (s & 63)); }>(r, "s_bitset1_b64", kDstIsSrc0);
  salu<[](u64 a) { u64 d = 0; for (int i = 0; i < 64; ++i) d |= ((a >> i) & 1ull) << (63 - i); return d; }>(r, "s_brev_b64");
  // s_cmov_b64: if SCC then D = S0 (else D unchanged).
  salu<[](u64 d, u64 a, Scc& scc) { return scc ? a : d; }>(r, "s_cmov_b64", kDstIsSrc0);
  // s_bfe_i64: offset S1[5:0], width S1[22:16], sign-extended; SCC = D != 0.
  salu<[](i64 a, u32 b, Scc& scc) {
    unsigned off = b & 63, w = (b >> 16) & 127;
    i64 d = 0;
    if (w) d = w >= 64 ? (a >> off) : static_cast<i64>(static_cast<u64>(a >> off) << (64 - w)) >> (64 - w);
    scc = d != 0;
    return d;
  }>(r, "s_bfe_i64");
  // s_pack_{ll,lh,hh}_b32_b16: D = {S1 half, S0 half}.
  salu<[](u32 a, u32 b) { return (a & 0xffff) | (b << 16); }>(r, "s_pack_ll_b32_b16");
  salu<[](u32 a, u32 b) { return (a & 0xffff) | (b & 0xffff0000u); }>(r, "s_pack_lh_b32_b16");
  salu<[](u32 a, u32 b) { return (a >> 16) | (b & 0xffff0000u); }>(r, "s_pack_hh_b32_b16");
  // s_wqm: each 4-bit quad becomes all ones if any of its bits is set; SCC = D != 0.
  salu<[](u32 a, Scc& scc) { u32 d = 0; for (int q = 0; q < 8; ++q) if (a >> (4 * q) & 0xf) d |= 0xfu << (4 * q); scc = d != 0; return d; }>(r, "s_wqm_b32");
  salu<[](u64 a, Scc& scc) { u64 d = 0; for (int q = 0; q < 16; ++q) if (a >> (4 * q) & 0xf) d |= 0xfull << (4 * q); scc = d != 0; return d; }>(r, "s_wqm_b64");
  // s_quadmask: D[i] = any bit of quad i of S0; SCC = D != 0.
  salu<[](u32 a, Scc& scc) { u32 d = 0; for (int q = 0; q < 8; ++q) d |= u32((a >> (4 * q) & 0xf) != 0) << q; scc = d != 0; return d; }>(r, "s_quadmask_b32");
  salu<[](u64 a, Scc& scc) { u64 d = 0; for (int q = 0; q < 16; ++q) d |= u64((a >> (4 * q) & 0xf) != 0) << q; scc = d != 0; return d; }>(r, "s_quadmask_b64");
  // s_bitreplicate_b64_b32: D[2i+1:2i] = S0[i] twice.
  salu<[](u32 a) { u64 d = 0; for (int i = 0; i < 32; ++i) d |= u64(a >> i & 1) * 3ull << (2 * i); return d; }>(r, "s_bitreplicate_b64_b32");
  // gfx9 s_andn{1,2}_wrexec_b64: EXEC = ~S0 & EXEC / S0 & ~EXEC; D = the new EXEC; SCC = EXEC != 0.
  salu<[](u64 s, Exec& e, Scc& scc) { e = ~s & e; scc = e != 0; return static_cast<u64>(e); }>(r, "s_andn1_wrexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { e = s & ~static_cast<u64>(e); scc = e != 0; return static_cast<u64>(e); }>(r, "s_andn2_wrexec_b64");
  // VOP2 v_xnor_b32.
  valu<[](u32 a, u32 b) { return ~(a ^ b); }>(r, "v_xnor_b32");
}

}  // namespace asmevo::emu::sem
