// Integer and bitwise ALU units, generic over their value domain (emu/generic.h): the ONE
// definition both the emulator (EmuUnits, emu/alu.h) and the prover (prove/units.cpp) register.
// Each body is the ISA pseudo-code (AMD CDNA3 ISA, "Scalar ALU" / "Vector ALU Operations"), written
// with sel/to/carry instead of ?:/static_cast so that it also reads as Z3 terms.
#pragma once
#include <cstdint>

#include "emu/generic.h"
#include "emu/registry.h"

namespace asmevo::emu::sem {

// VOP1/VOP2/VOP3 integer and bitwise operations.
template <class R> void int_valu_units(R& r) {
  r.template valu<[]<class D>(D::u32 a) { return a; }>("v_mov_b32");
  r.template valu<[]<class D>(D::u64 a) { return a; }>("v_mov_b64");  // gfx940+
  r.template valu<[]<class D>(D::u32 a) { return ~a; }>("v_not_b32");
  r.template valu<[]<class D>(D::u32 a) {
    typename D::u32 d = 0u;
    for (unsigned i = 0; i < 32; ++i) d = d | (((a >> i) & 1u) << (31 - i));
    return d;
  }>("v_bfrev_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a + b; }>("v_add_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a - b; }>("v_sub_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return b - a; }>("v_subrev_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return (a & 0xffffffu) * (b & 0xffffffu); }>("v_mul_u32_u24");
  r.template valu<[]<class D>(D::i32 a, D::i32 b) {
    return to<int32_t>((to<int64_t>(a << 8 >> 8) * to<int64_t>(b << 8 >> 8)) & int64_t{0xffffffff});
  }>("v_mul_i32_i24");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return to<uint32_t>((to<uint64_t>(a & 0xffffffu) * (b & 0xffffffu)) >> 32); }>("v_mul_hi_u32_u24");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a * b; }>("v_mul_lo_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return to<uint32_t>((to<uint64_t>(a) * to<uint64_t>(b)) >> 32); }>("v_mul_hi_u32");
  r.template valu<[]<class D>(D::i32 a, D::i32 b) { return to<int32_t>((to<int64_t>(a) * to<int64_t>(b)) >> 32); }>("v_mul_hi_i32");
  r.template valu<[]<class D>(D::i32 a, D::i32 b) { return sel(a < b, a, b); }>("v_min_i32");
  r.template valu<[]<class D>(D::i32 a, D::i32 b) { return sel(a > b, a, b); }>("v_max_i32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return sel(a < b, a, b); }>("v_min_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return sel(a > b, a, b); }>("v_max_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a & b; }>("v_and_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a | b; }>("v_or_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return a ^ b; }>("v_xor_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return a | b | c; }>("v_or3_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a ^ b) + c; }>("v_xad_u32");
  // Shifts: "rev" forms shift S1 by S0.
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return b << (a & 31u); }>("v_lshlrev_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return b >> (a & 31u); }>("v_lshrrev_b32");
  r.template valu<[]<class D>(D::u32 a, D::i32 b) { return b >> (a & 31u); }>("v_ashrrev_i32");
  r.template valu<[]<class D>(D::u32 a, D::u64 b) { return b << (a & 63u); }>("v_lshlrev_b64");
  r.template valu<[]<class D>(D::u32 a, D::u64 b) { return b >> (a & 63u); }>("v_lshrrev_b64");
  r.template valu<[]<class D>(D::u32 a, D::i64 b) { return b >> (a & 63u); }>("v_ashrrev_i64");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a << (b & 31u)) + c; }>("v_lshl_add_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a + b) << (c & 31u); }>("v_add_lshl_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a << (b & 31u)) | c; }>("v_lshl_or_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a & b) | c; }>("v_and_or_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return a + b + c; }>("v_add3_u32");
  // v_lshl_add_u64 (gfx940+): D = (S0 << S1[2:0]) + S2.
  r.template valu<[]<class D>(D::u64 a, D::u32 b, D::u64 c) { return (a << (b & 7u)) + c; }>("v_lshl_add_u64");
  // Bit-field ops: offset S1[4:0], width S2[4:0].
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) {
    auto w = c & 31u;
    return sel(w != 0u, (a >> (b & 31u)) & ((1u << w) - 1u), 0u);
  }>("v_bfe_u32");
  r.template valu<[]<class D>(D::i32 a, D::u32 b, D::u32 c) {
    auto w = c & 31u;
    auto sh = (32u - w) & 31u;  // w == 0 selects 0 below; the mask only keeps the shift defined
    return sel(w != 0u, to<int32_t>(to<uint32_t>(a >> (b & 31u)) << sh) >> sh, 0);
  }>("v_bfe_i32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a & b) | (~a & c); }>("v_bfi_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return ((1u << (a & 31u)) - 1u) << (b & 31u); }>("v_bfm_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return popcount(a) + b; }>("v_bcnt_u32_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return to<uint32_t>(((to<uint64_t>(a) << 32) | to<uint64_t>(b)) >> (c & 31u)); }>("v_alignbit_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return to<uint32_t>(((to<uint64_t>(a) << 32) | to<uint64_t>(b)) >> (8u * (c & 3u))); }>("v_alignbyte_b32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { return (a & 0xffffffu) * (b & 0xffffffu) + c; }>("v_mad_u32_u24");
  r.template valu<[]<class D>(D::i32 a, D::i32 b, D::i32 c) {
    return to<int32_t>(to<uint32_t>(a << 8 >> 8) * to<uint32_t>(b << 8 >> 8) + to<uint32_t>(c));
  }>("v_mad_i32_i24");
  r.template valu<[]<class D>(D::i32 a, D::i32 b, D::i32 c) {
    auto lo = sel(a < b, a, b), hi = sel(a < b, b, a);
    return sel(c < lo, lo, sel(c > hi, hi, c));
  }>("v_med3_i32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) {
    auto lo = sel(a < b, a, b), hi = sel(a < b, b, a);
    return sel(c < lo, lo, sel(c > hi, hi, c));
  }>("v_med3_u32");
  r.template valu<[]<class D>(D::i32 a, D::i32 b, D::i32 c) { auto m = sel(a < b, a, b); return sel(m < c, m, c); }>("v_min3_i32");
  r.template valu<[]<class D>(D::i32 a, D::i32 b, D::i32 c) { auto m = sel(a > b, a, b); return sel(m > c, m, c); }>("v_max3_i32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { auto m = sel(a < b, a, b); return sel(m < c, m, c); }>("v_min3_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::u32 c) { auto m = sel(a > b, a, b); return sel(m > c, m, c); }>("v_max3_u32");
  // Carry chains: VCC (e32) or an SGPR pair (e64) holds one carry bit per lane.
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { auto t = to<uint64_t>(a) + to<uint64_t>(b); return carry(to<uint32_t>(t), (t >> 32) != 0u); }>("v_add_co_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return carry(a - b, b > a); }>("v_sub_co_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b) { return carry(b - a, a > b); }>("v_subrev_co_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::b1 c) {
    auto t = to<uint64_t>(a) + to<uint64_t>(b) + to<uint64_t>(c);
    return carry(to<uint32_t>(t), (t >> 32) != 0u);
  }>("v_addc_co_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::b1 c) {
    auto t = to<uint64_t>(a) - to<uint64_t>(b) - to<uint64_t>(c);
    return carry(to<uint32_t>(t), (t >> 32) != 0u);
  }>("v_subb_co_u32");
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::b1 c) {
    auto t = to<uint64_t>(b) - to<uint64_t>(a) - to<uint64_t>(c);
    return carry(to<uint32_t>(t), (t >> 32) != 0u);
  }>("v_subbrev_co_u32");
  // v_cndmask_b32 D, S0, S1, S2: D = S2[lane] ? S1 : S0. Its VOP3/DPP/SDWA forms take abs/neg on S0/S1
  // (LLVM folds a select of fneg/fabs values into them, e.g. Triton's tl.where(c, -x, x)): sign-bit
  // operations on the raw bits (emu/generic.h sign_bit_mods), which both domains apply before the body.
  r.template valu<[]<class D>(D::u32 a, D::u32 b, D::b1 c) { return sel(c, b, a); }>("v_cndmask_b32", Category::Vector, kSignBitSourceMods);
}

// VOPC integer compares: D (VCC or an SGPR pair) = one bit per lane; v_cmpx_* also write EXEC.
#define ASMEVO_GENERIC_ICMP(pre, sfx, T, flags)                                                                \
  r.template valu<[]<class D>(D::T, D::T) { return false; }>(pre "_f_" sfx, Category::Vector, flags);          \
  r.template valu<[]<class D>(D::T a, D::T b) { return a < b; }>(pre "_lt_" sfx, Category::Vector, flags);     \
  r.template valu<[]<class D>(D::T a, D::T b) { return a == b; }>(pre "_eq_" sfx, Category::Vector, flags);    \
  r.template valu<[]<class D>(D::T a, D::T b) { return a <= b; }>(pre "_le_" sfx, Category::Vector, flags);    \
  r.template valu<[]<class D>(D::T a, D::T b) { return a > b; }>(pre "_gt_" sfx, Category::Vector, flags);     \
  r.template valu<[]<class D>(D::T a, D::T b) { return a != b; }>(pre "_ne_" sfx, Category::Vector, flags);    \
  r.template valu<[]<class D>(D::T a, D::T b) { return a >= b; }>(pre "_ge_" sfx, Category::Vector, flags);    \
  r.template valu<[]<class D>(D::T, D::T) { return true; }>(pre "_t_" sfx, Category::Vector, flags);
template <class R> void int_vopc_units(R& r) {
  ASMEVO_GENERIC_ICMP("v_cmp", "i32", i32, 0)
  ASMEVO_GENERIC_ICMP("v_cmp", "u32", u32, 0)
  ASMEVO_GENERIC_ICMP("v_cmp", "i64", i64, 0)
  ASMEVO_GENERIC_ICMP("v_cmp", "u64", u64, 0)
  ASMEVO_GENERIC_ICMP("v_cmpx", "i32", i32, kWritesExec)
  ASMEVO_GENERIC_ICMP("v_cmpx", "u32", u32, kWritesExec)
  ASMEVO_GENERIC_ICMP("v_cmpx", "i64", i64, kWritesExec)
  ASMEVO_GENERIC_ICMP("v_cmpx", "u64", u64, kWritesExec)
}
#undef ASMEVO_GENERIC_ICMP

// SOP1/SOP2/SOPK/SOPC integer and bitwise operations; SCC and EXEC through D::Scc& / D::Exec&.
template <class R> void int_salu_units(R& r) {
  // SOP1
  r.template salu<[]<class D>(D::u32 a) { return a; }>("s_mov_b32");
  r.template salu<[]<class D>(D::u64 a) { return a; }>("s_mov_b64");
  r.template salu<[]<class D>(D::u32 d, D::u32 a, D::Scc& scc) { return sel(scc, a, d); }>("s_cmov_b32", kDstIsSrc0);  // else D unchanged
  r.template salu<[]<class D>(D::u32 a, D::Scc& scc) { auto d = ~a; scc = d != 0u; return d; }>("s_not_b32");
  r.template salu<[]<class D>(D::u64 a, D::Scc& scc) { auto d = ~a; scc = d != 0u; return d; }>("s_not_b64");
  r.template salu<[]<class D>(D::u32 a) {
    typename D::u32 d = 0u;
    for (unsigned i = 0; i < 32; ++i) d = d | (((a >> i) & 1u) << (31 - i));
    return d;
  }>("s_brev_b32");
  r.template salu<[]<class D>(D::u32 a, D::Scc& scc) { auto d = popcount(a); scc = d != 0u; return d; }>("s_bcnt1_i32_b32");
  r.template salu<[]<class D>(D::u64 a, D::Scc& scc) { auto d = popcount(a); scc = d != 0u; return d; }>("s_bcnt1_i32_b64");
  r.template salu<[]<class D>(D::u32 a) { return to<uint32_t>(to<int32_t>(to<int8_t>(a))); }>("s_sext_i32_i8");
  r.template salu<[]<class D>(D::u32 a) { return to<uint32_t>(to<int32_t>(to<int16_t>(a))); }>("s_sext_i32_i16");
  r.template salu<[]<class D>(D::i32 a, D::Scc& scc) { auto d = sel(a < 0, -a, a); scc = d != 0; return d; }>("s_abs_i32");
  // D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
#define ASMEVO_SAVEEXEC(name, expr)                                                      \
  r.template salu<[]<class D>(D::u64 s, D::Exec& e, D::Scc& scc) {                      \
    typename D::u64 d = e;                                                              \
    auto n = (expr);                                                                    \
    e = n;                                                                              \
    scc = n != 0u;                                                                      \
    return d;                                                                           \
  }>(name);
  ASMEVO_SAVEEXEC("s_and_saveexec_b64", s & d)
  ASMEVO_SAVEEXEC("s_or_saveexec_b64", s | d)
  ASMEVO_SAVEEXEC("s_xor_saveexec_b64", s ^ d)
  ASMEVO_SAVEEXEC("s_andn2_saveexec_b64", s & ~d)
  ASMEVO_SAVEEXEC("s_orn2_saveexec_b64", s | ~d)
  ASMEVO_SAVEEXEC("s_nand_saveexec_b64", ~(s & d))
  ASMEVO_SAVEEXEC("s_nor_saveexec_b64", ~(s | d))
  ASMEVO_SAVEEXEC("s_xnor_saveexec_b64", ~(s ^ d))
  ASMEVO_SAVEEXEC("s_andn1_saveexec_b64", ~s & d)
  ASMEVO_SAVEEXEC("s_orn1_saveexec_b64", ~s | d)
#undef ASMEVO_SAVEEXEC
  // SOP2: arithmetic. SCC = carry / borrow / signed overflow as the ISA defines.
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { auto t = to<uint64_t>(a) + to<uint64_t>(b); scc = (t >> 32) != 0u; return to<uint32_t>(t); }>("s_add_u32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) {
    auto t = to<uint64_t>(a) + to<uint64_t>(b) + to<uint64_t>(scc);
    scc = (t >> 32) != 0u;
    return to<uint32_t>(t);
  }>("s_addc_u32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { scc = b > a; return a - b; }>("s_sub_u32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) {
    auto t = to<uint64_t>(a) - to<uint64_t>(b) - to<uint64_t>(scc);
    scc = (t >> 32) != 0u;
    return to<uint32_t>(t);
  }>("s_subb_u32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b, D::Scc& scc) {
    auto d = to<int32_t>(to<uint32_t>(a) + to<uint32_t>(b));
    scc = ((a >= 0) == (b >= 0)) && ((d >= 0) != (a >= 0));
    return d;
  }>("s_add_i32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b, D::Scc& scc) {
    auto d = to<int32_t>(to<uint32_t>(a) - to<uint32_t>(b));
    scc = ((a >= 0) != (b >= 0)) && ((d >= 0) != (a >= 0));
    return d;
  }>("s_sub_i32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b) { return to<int32_t>(to<uint32_t>(a) * to<uint32_t>(b)); }>("s_mul_i32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b) { return to<uint32_t>((to<uint64_t>(a) * to<uint64_t>(b)) >> 32); }>("s_mul_hi_u32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b) { return to<int32_t>((to<int64_t>(a) * to<int64_t>(b)) >> 32); }>("s_mul_hi_i32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b, D::Scc& scc) { scc = a < b; return sel(a < b, a, b); }>("s_min_i32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { scc = a < b; return sel(a < b, a, b); }>("s_min_u32");
  r.template salu<[]<class D>(D::i32 a, D::i32 b, D::Scc& scc) { scc = a > b; return sel(a > b, a, b); }>("s_max_i32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { scc = a > b; return sel(a > b, a, b); }>("s_max_u32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { return sel(scc, a, b); }>("s_cselect_b32");
  r.template salu<[]<class D>(D::u64 a, D::u64 b, D::Scc& scc) { return sel(scc, a, b); }>("s_cselect_b64");
  // SOP2: bitwise, 32 and 64 bit. SCC = D != 0.
#define ASMEVO_LOGIC(name, expr)                                                                                \
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { auto d = (expr); scc = d != 0u; return d; }>(name "_b32"); \
  r.template salu<[]<class D>(D::u64 a, D::u64 b, D::Scc& scc) { auto d = (expr); scc = d != 0u; return d; }>(name "_b64");
  ASMEVO_LOGIC("s_and", a & b)
  ASMEVO_LOGIC("s_or", a | b)
  ASMEVO_LOGIC("s_xor", a ^ b)
  ASMEVO_LOGIC("s_andn2", a & ~b)
  ASMEVO_LOGIC("s_orn2", a | ~b)
  ASMEVO_LOGIC("s_nand", ~(a & b))
  ASMEVO_LOGIC("s_nor", ~(a | b))
  ASMEVO_LOGIC("s_xnor", ~(a ^ b))
#undef ASMEVO_LOGIC
  // Shifts: the shift amount is S1[4:0] (32-bit) or S1[5:0] (64-bit). SCC = D != 0.
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { auto d = a << (b & 31u); scc = d != 0u; return d; }>("s_lshl_b32");
  r.template salu<[]<class D>(D::u64 a, D::u32 b, D::Scc& scc) { auto d = a << (b & 63u); scc = d != 0u; return d; }>("s_lshl_b64");
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) { auto d = a >> (b & 31u); scc = d != 0u; return d; }>("s_lshr_b32");
  r.template salu<[]<class D>(D::u64 a, D::u32 b, D::Scc& scc) { auto d = a >> (b & 63u); scc = d != 0u; return d; }>("s_lshr_b64");
  r.template salu<[]<class D>(D::i32 a, D::u32 b, D::Scc& scc) { auto d = a >> (b & 31u); scc = d != 0; return d; }>("s_ashr_i32");
  r.template salu<[]<class D>(D::i64 a, D::u32 b, D::Scc& scc) { auto d = a >> (b & 63u); scc = d != int64_t{0}; return d; }>("s_ashr_i64");
  // s_lshlN_add_u32: D = (S0 << N) + S1, SCC = carry out (gfx9).
#define ASMEVO_LSHL_ADD(n)                                                                \
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) {                         \
    auto t = (to<uint64_t>(a) << n) + to<uint64_t>(b);                                   \
    scc = (t >> 32) != 0u;                                                               \
    return to<uint32_t>(t);                                                              \
  }>("s_lshl" #n "_add_u32");
  ASMEVO_LSHL_ADD(1)
  ASMEVO_LSHL_ADD(2)
  ASMEVO_LSHL_ADD(3)
  ASMEVO_LSHL_ADD(4)
#undef ASMEVO_LSHL_ADD
  // Bit-field extract: offset S1[4:0] (S1[5:0] for 64-bit), width S1[22:16].
  r.template salu<[]<class D>(D::u32 a, D::u32 b, D::Scc& scc) {
    auto off = b & 31u, w = (b >> 16) & 0x7fu;
    auto d = sel(w != 0u, sel(w >= 32u, a >> off, (a >> off) & ((1u << (w & 31u)) - 1u)), 0u);
    scc = d != 0u;
    return d;
  }>("s_bfe_u32");
  r.template salu<[]<class D>(D::i32 a, D::u32 b, D::Scc& scc) {
    auto off = b & 31u, w = (b >> 16) & 0x7fu;
    auto t = a >> off;
    auto sh = (32u - w) & 31u;  // only used for 0 < w < 32
    auto d = sel(w != 0u, sel(w >= 32u, t, to<int32_t>(to<uint32_t>(t) << sh) >> sh), 0);
    scc = d != 0;
    return d;
  }>("s_bfe_i32");
  r.template salu<[]<class D>(D::u64 a, D::u32 b, D::Scc& scc) {
    auto off = b & 63u, w = (b >> 16) & 0x7fu;
    auto d = sel(w != 0u, sel(w >= 64u, a >> off, (a >> off) & ((uint64_t{1} << (w & 63u)) - 1u)), uint64_t{0});
    scc = d != 0u;
    return d;
  }>("s_bfe_u64");
  r.template salu<[]<class D>(D::u32 a, D::u32 b) { return ((1u << (a & 31u)) - 1u) << (b & 31u); }>("s_bfm_b32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b) { return ((uint64_t{1} << (a & 63u)) - 1u) << (b & 63u); }>("s_bfm_b64");
  // SOPK: 16-bit immediate K (printed as 0..0xffff; sign-extension is the unit's job).
  r.template salu<[]<class D>(D::u32 k) { return to<uint32_t>(to<int32_t>(to<int16_t>(k))); }>("s_movk_i32");
  r.template salu<[]<class D>(D::u32 d, D::u32 k, D::Scc& scc) { return sel(scc, to<uint32_t>(to<int32_t>(to<int16_t>(k))), d); }>("s_cmovk_i32", kDstIsSrc0);
  r.template salu<[]<class D>(D::i32 d, D::u32 k, D::Scc& scc) {
    auto b = to<int32_t>(to<int16_t>(k));
    auto s = to<int32_t>(to<uint32_t>(d) + to<uint32_t>(b));
    scc = ((d >= 0) == (b >= 0)) && ((s >= 0) != (d >= 0));
    return s;
  }>("s_addk_i32", kDstIsSrc0);
  r.template salu<[]<class D>(D::i32 d, D::u32 k) { return to<int32_t>(to<uint32_t>(d) * to<uint32_t>(to<int32_t>(to<int16_t>(k)))); }>("s_mulk_i32", kDstIsSrc0);
  // SOPC and SOPK compares: SCC = S0 op S1.
#define ASMEVO_CMP(sfx, T, K)                                                                      \
  r.template salu<[]<class D>(D::T a, D::T b) { return a == b; }>("s_cmp_eq_" sfx);              \
  r.template salu<[]<class D>(D::T a, D::T b) { return a != b; }>("s_cmp_lg_" sfx);              \
  r.template salu<[]<class D>(D::T a, D::T b) { return a > b; }>("s_cmp_gt_" sfx);               \
  r.template salu<[]<class D>(D::T a, D::T b) { return a >= b; }>("s_cmp_ge_" sfx);              \
  r.template salu<[]<class D>(D::T a, D::T b) { return a < b; }>("s_cmp_lt_" sfx);               \
  r.template salu<[]<class D>(D::T a, D::T b) { return a <= b; }>("s_cmp_le_" sfx);              \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a == K(k); }>("s_cmpk_eq_" sfx);        \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a != K(k); }>("s_cmpk_lg_" sfx);        \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a > K(k); }>("s_cmpk_gt_" sfx);         \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a >= K(k); }>("s_cmpk_ge_" sfx);        \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a < K(k); }>("s_cmpk_lt_" sfx);         \
  r.template salu<[]<class D>(D::T a, D::u32 k) { return a <= K(k); }>("s_cmpk_le_" sfx);
#define ASMEVO_SEXT16(k) to<int32_t>(to<int16_t>(k))
#define ASMEVO_ZEXT16(k) ((k) & 0xffffu)
  ASMEVO_CMP("i32", i32, ASMEVO_SEXT16)
  ASMEVO_CMP("u32", u32, ASMEVO_ZEXT16)
#undef ASMEVO_CMP
#undef ASMEVO_SEXT16
#undef ASMEVO_ZEXT16
  r.template salu<[]<class D>(D::u64 a, D::u64 b) { return a == b; }>("s_cmp_eq_u64");
  r.template salu<[]<class D>(D::u64 a, D::u64 b) { return a != b; }>("s_cmp_lg_u64");
  r.template salu<[]<class D>(D::u32 a, D::u32 b) { return ((a >> (b & 31u)) & 1u) == 0u; }>("s_bitcmp0_b32");
  r.template salu<[]<class D>(D::u32 a, D::u32 b) { return ((a >> (b & 31u)) & 1u) == 1u; }>("s_bitcmp1_b32");
  r.template salu<[]<class D>(D::u64 a, D::u32 b) { return ((a >> (b & 63u)) & 1u) == 0u; }>("s_bitcmp0_b64");
  r.template salu<[]<class D>(D::u64 a, D::u32 b) { return ((a >> (b & 63u)) & 1u) == 1u; }>("s_bitcmp1_b64");
}

}  // namespace asmevo::emu::sem
