// VOP1/VOP2/VOP3 integer and bitwise operations (ISA "Vector ALU Operations"). Per-lane bodies only;
// operand reads, exec masking and VCC/SGPR-mask outputs are the framework's (emu/alu.h).
#include <bit>

#include "emu/alu.h"

namespace asmevo::emu::sem {

void register_vop_int(Registry& r) {
  valu<[](u32 a) { return a; }>(r, "v_mov_b32");
  valu<[](u64 a) { return a; }>(r, "v_mov_b64");  // gfx940+
  valu<[](u32 a) { return ~a; }>(r, "v_not_b32");
  valu<[](u32 a) { u32 d = 0; for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1u) << (31 - i); return d; }>(r, "v_bfrev_b32");
  valu<[](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "v_ffbl_b32");
  valu<[](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "v_ffbh_u32");
  valu<[](u32 a, u32 b) { return a + b; }>(r, "v_add_u32");
  valu<[](u32 a, u32 b) { return a - b; }>(r, "v_sub_u32");
  valu<[](u32 a, u32 b) { return b - a; }>(r, "v_subrev_u32");
  valu<[](u32 a, u32 b) { return static_cast<u32>((a & 0xffffff) * (b & 0xffffff)); }>(r, "v_mul_u32_u24");
  valu<[](i32 a, i32 b) { return static_cast<i32>((static_cast<i64>(a << 8 >> 8) * (b << 8 >> 8)) & 0xffffffff); }>(r, "v_mul_i32_i24");
  valu<[](u32 a, u32 b) { return u32((u64(a & 0xffffff) * (b & 0xffffff)) >> 32); }>(r, "v_mul_hi_u32_u24");
  valu<[](u32 a, u32 b) { return a * b; }>(r, "v_mul_lo_u32");
  valu<[](u32 a, u32 b) { return u32((u64(a) * b) >> 32); }>(r, "v_mul_hi_u32");
  valu<[](i32 a, i32 b) { return i32((i64(a) * b) >> 32); }>(r, "v_mul_hi_i32");
  valu<[](i32 a, i32 b) { return a < b ? a : b; }>(r, "v_min_i32");
  valu<[](i32 a, i32 b) { return a > b ? a : b; }>(r, "v_max_i32");
  valu<[](u32 a, u32 b) { return a < b ? a : b; }>(r, "v_min_u32");
  valu<[](u32 a, u32 b) { return a > b ? a : b; }>(r, "v_max_u32");
  valu<[](u32 a, u32 b) { return a & b; }>(r, "v_and_b32");
  valu<[](u32 a, u32 b) { return a | b; }>(r, "v_or_b32");
  valu<[](u32 a, u32 b) { return a ^ b; }>(r, "v_xor_b32");
  valu<[](u32 a, u32 b, u32 c) { return a | b | c; }>(r, "v_or3_b32");
  valu<[](u32 a, u32 b, u32 c) { return (a ^ b) + c; }>(r, "v_xad_u32");  // D = (S0 ^ S1) + S2
  // Shifts: "rev" forms shift S1 by S0.
  valu<[](u32 a, u32 b) { return b << (a & 31); }>(r, "v_lshlrev_b32");
  valu<[](u32 a, u32 b) { return b >> (a & 31); }>(r, "v_lshrrev_b32");
  valu<[](u32 a, i32 b) { return b >> (a & 31); }>(r, "v_ashrrev_i32");
  valu<[](u32 a, u64 b) { return b << (a & 63); }>(r, "v_lshlrev_b64");
  valu<[](u32 a, u64 b) { return b >> (a & 63); }>(r, "v_lshrrev_b64");
  valu<[](u32 a, i64 b) { return b >> (a & 63); }>(r, "v_ashrrev_i64");
  valu<[](u32 a, u32 b, u32 c) { return (a << (b & 31)) + c; }>(r, "v_lshl_add_u32");
  valu<[](u32 a, u32 b, u32 c) { return (a + b) << (c & 31); }>(r, "v_add_lshl_u32");
  valu<[](u32 a, u32 b, u32 c) { return (a << (b & 31)) | c; }>(r, "v_lshl_or_b32");
  valu<[](u32 a, u32 b, u32 c) { return (a & b) | c; }>(r, "v_and_or_b32");
  valu<[](u32 a, u32 b, u32 c) { return a + b + c; }>(r, "v_add3_u32");
  // v_lshl_add_u64 (gfx940+): D = (S0 << S1[2:0]) + S2.
  valu<[](u64 a, u32 b, u64 c) { return (a << (b & 7)) + c; }>(r, "v_lshl_add_u64");
  // Bit-field ops: offset S1[4:0], width S2[4:0].
  valu<[](u32 a, u32 b, u32 c) { u32 w = c & 31; return w ? (a >> (b & 31)) & ((1u << w) - 1) : 0u; }>(r, "v_bfe_u32");
  valu<[](i32 a, u32 b, u32 c) { u32 w = c & 31; i32 t = a >> (b & 31); return w ? static_cast<i32>(u32(t) << (32 - w)) >> (32 - w) : 0; }>(r, "v_bfe_i32");
  valu<[](u32 a, u32 b, u32 c) { return (a & b) | (~a & c); }>(r, "v_bfi_b32");
  valu<[](u32 a, u32 b) { return ((1u << (a & 31)) - 1) << (b & 31); }>(r, "v_bfm_b32");
  valu<[](u32 a, u32 b) { return static_cast<u32>(std::popcount(a)) + b; }>(r, "v_bcnt_u32_b32");
  valu<[](u32 a, u32 b, u32 c) { return u32(((u64(a) << 32 | b) >> (c & 31))); }>(r, "v_alignbit_b32");
  valu<[](u32 a, u32 b, u32 c) { return u32(((u64(a) << 32 | b) >> (8 * (c & 3)))); }>(r, "v_alignbyte_b32");
  valu<[](u32 a, u32 b, u32 c) { return (a & 0xffffff) * (b & 0xffffff) + c; }>(r, "v_mad_u32_u24");
  valu<[](i32 a, i32 b, i32 c) { return static_cast<i32>(u32((a << 8 >> 8) * (b << 8 >> 8)) + u32(c)); }>(r, "v_mad_i32_i24");
  valu<[](i32 a, i32 b, i32 c) { i32 lo = a < b ? a : b, hi = a < b ? b : a; return c < lo ? lo : (c > hi ? hi : c); }>(r, "v_med3_i32");
  valu<[](u32 a, u32 b, u32 c) { u32 lo = a < b ? a : b, hi = a < b ? b : a; return c < lo ? lo : (c > hi ? hi : c); }>(r, "v_med3_u32");
  valu<[](i32 a, i32 b, i32 c) { i32 m = a < b ? a : b; return m < c ? m : c; }>(r, "v_min3_i32");
  valu<[](i32 a, i32 b, i32 c) { i32 m = a > b ? a : b; return m > c ? m : c; }>(r, "v_max3_i32");
  valu<[](u32 a, u32 b, u32 c) { u32 m = a < b ? a : b; return m < c ? m : c; }>(r, "v_min3_u32");
  valu<[](u32 a, u32 b, u32 c) { u32 m = a > b ? a : b; return m > c ? m : c; }>(r, "v_max3_u32");
  // Carry chains: VCC (e32) or an SGPR pair (e64) holds one carry bit per lane.
  valu<[](u32 a, u32 b) { u64 t = u64(a) + b; return Carry<u32>{u32(t), (t >> 32) != 0}; }>(r, "v_add_co_u32");
  valu<[](u32 a, u32 b) { return Carry<u32>{a - b, b > a}; }>(r, "v_sub_co_u32");
  valu<[](u32 a, u32 b) { return Carry<u32>{b - a, a > b}; }>(r, "v_subrev_co_u32");
  valu<[](u32 a, u32 b, bool c) { u64 t = u64(a) + b + c; return Carry<u32>{u32(t), (t >> 32) != 0}; }>(r, "v_addc_co_u32");
  valu<[](u32 a, u32 b, bool c) { u64 t = u64(a) - b - c; return Carry<u32>{u32(t), (t >> 32) != 0}; }>(r, "v_subb_co_u32");
  valu<[](u32 a, u32 b, bool c) { u64 t = u64(b) - a - c; return Carry<u32>{u32(t), (t >> 32) != 0}; }>(r, "v_subbrev_co_u32");
  // v_mad_u64_u32 D, SDST, S0, S1, S2: {SDST, D} = S0 * S1 + S2 (carry out of the 64-bit add).
  valu<[](u32 a, u32 b, u64 c) {
    unsigned __int128 t = static_cast<unsigned __int128>(u64(a) * b) + c;
    return Carry<u64>{static_cast<u64>(t), (t >> 64) != 0};
  }>(r, "v_mad_u64_u32");
  valu<[](i32 a, i32 b, i64 c) {
    __int128 t = static_cast<__int128>(i64(a) * b) + c;
    return Carry<i64>{static_cast<i64>(t), (t >> 64) != 0 && (t >> 64) != -1};
  }>(r, "v_mad_i64_i32");
  // v_cndmask_b32 D, S0, S1, S2: D = S2[lane] ? S1 : S0.
  valu<[](u32 a, u32 b, bool c) { return c ? b : a; }>(r, "v_cndmask_b32");
  // v_mbcnt: D = S1 + popcount(S0 & mask of lanes below this one) — needs the lane index: see lane.cpp.
}

}  // namespace asmevo::emu::sem
