// SOP1 / SOP2 / SOPK / SOPC: scalar ALU. Each unit is the ISA pseudo-code (AMD "Vega" / CDNA3 ISA,
// chapter "Scalar ALU Operations"); SCC and EXEC come in through Scc& / Exec& (emu/alu.h).
#include <bit>

#include "emu/alu.h"
#include "emu/program.h"
#include <fmt/format.h>

namespace asmevo::emu::sem {
namespace {

// s_getpc_b64 D: D = address of the next instruction.
void s_getpc_b64(ExecContext&, Wave& w, const ExecInst& in) { write_scalar(w, in.dst[0], in.address + in.size, 2); }

void jump_to(ExecContext& ctx, Wave& w, const ExecInst& in, uint64_t target) {
  int64_t idx = ctx.program->index_of(target);
  if (idx < 0) fail(ctx, w, in, fmt::format("jump to 0x{:x}", target) + ", which is not an instruction of this code object");
  w.pc = static_cast<uint32_t>(idx);
}
// s_setpc_b64 S0: PC = S0.
void s_setpc_b64(ExecContext& ctx, Wave& w, const ExecInst& in) { jump_to(ctx, w, in, scalar_bits(w, in.src[0])); }
// s_swappc_b64 D, S0: D = PC of the next instruction; PC = S0.
void s_swappc_b64(ExecContext& ctx, Wave& w, const ExecInst& in) {
  uint64_t target = scalar_bits(w, in.src[0]);
  write_scalar(w, in.dst[0], in.address + in.size, 2);
  jump_to(ctx, w, in, target);
}

}  // namespace

void register_sop(Registry& r) {
  // SOP1
  salu<[](u32 a) { return a; }>(r, "s_mov_b32");
  salu<[](u64 a) { return a; }>(r, "s_mov_b64");
  salu<[](u32 d, u32 a, Scc& scc) { return scc ? a : d; }>(r, "s_cmov_b32", kDstIsSrc0);  // if SCC then D = S0 (else D unchanged)
  salu<[](u32 a, Scc& scc) { u32 d = ~a; scc = d != 0; return d; }>(r, "s_not_b32");
  salu<[](u64 a, Scc& scc) { u64 d = ~a; scc = d != 0; return d; }>(r, "s_not_b64");
  salu<[](u32 a) { u32 d = 0; for (int i = 0; i < 32; ++i) d |= ((a >> i) & 1u) << (31 - i); return d; }>(r, "s_brev_b32");
  salu<[](u32 a, Scc& scc) { u32 d = static_cast<u32>(std::popcount(a)); scc = d != 0; return d; }>(r, "s_bcnt1_i32_b32");
  salu<[](u64 a, Scc& scc) { u32 d = static_cast<u32>(std::popcount(a)); scc = d != 0; return d; }>(r, "s_bcnt1_i32_b64");
  salu<[](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "s_ff1_i32_b32");
  salu<[](u64 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "s_ff1_i32_b64");
  salu<[](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "s_flbit_i32_b32");
  salu<[](u64 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "s_flbit_i32_b64");
  salu<[](u32 a) { return static_cast<u32>(static_cast<i32>(static_cast<int8_t>(a))); }>(r, "s_sext_i32_i8");
  salu<[](u32 a) { return static_cast<u32>(static_cast<i32>(static_cast<int16_t>(a))); }>(r, "s_sext_i32_i16");
  salu<[](i32 a, Scc& scc) { i32 d = a < 0 ? -a : a; scc = d != 0; return d; }>(r, "s_abs_i32");
  // D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = s & d; scc = e != 0; return d; }>(r, "s_and_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = s | d; scc = e != 0; return d; }>(r, "s_or_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = s ^ d; scc = e != 0; return d; }>(r, "s_xor_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = s & ~d; scc = e != 0; return d; }>(r, "s_andn2_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = s | ~d; scc = e != 0; return d; }>(r, "s_orn2_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = ~(s & d); scc = e != 0; return d; }>(r, "s_nand_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = ~(s | d); scc = e != 0; return d; }>(r, "s_nor_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = ~(s ^ d); scc = e != 0; return d; }>(r, "s_xnor_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = ~s & d; scc = e != 0; return d; }>(r, "s_andn1_saveexec_b64");
  salu<[](u64 s, Exec& e, Scc& scc) { u64 d = e; e = ~s | d; scc = e != 0; return d; }>(r, "s_orn1_saveexec_b64");
  // SOP2: arithmetic. SCC = carry / borrow / signed overflow as the ISA defines.
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = u64(a) + b; scc = t >> 32; return u32(t); }>(r, "s_add_u32");
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = u64(a) + b + scc; scc = t >> 32; return u32(t); }>(r, "s_addc_u32");
  salu<[](u32 a, u32 b, Scc& scc) { scc = b > a; return a - b; }>(r, "s_sub_u32");
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = u64(a) - b - scc; scc = (t >> 32) != 0; return u32(t); }>(r, "s_subb_u32");
  salu<[](i32 a, i32 b, Scc& scc) { i32 d = static_cast<i32>(u32(a) + u32(b)); scc = ((a >= 0) == (b >= 0)) && ((d >= 0) != (a >= 0)); return d; }>(r, "s_add_i32");
  salu<[](i32 a, i32 b, Scc& scc) { i32 d = static_cast<i32>(u32(a) - u32(b)); scc = ((a >= 0) != (b >= 0)) && ((d >= 0) != (a >= 0)); return d; }>(r, "s_sub_i32");
  salu<[](i32 a, i32 b) { return static_cast<i32>(u32(a) * u32(b)); }>(r, "s_mul_i32");
  salu<[](u32 a, u32 b) { return u32((u64(a) * b) >> 32); }>(r, "s_mul_hi_u32");
  salu<[](i32 a, i32 b) { return i32((i64(a) * b) >> 32); }>(r, "s_mul_hi_i32");
  salu<[](i32 a, i32 b, Scc& scc) { scc = a < b; return a < b ? a : b; }>(r, "s_min_i32");
  salu<[](u32 a, u32 b, Scc& scc) { scc = a < b; return a < b ? a : b; }>(r, "s_min_u32");
  salu<[](i32 a, i32 b, Scc& scc) { scc = a > b; return a > b ? a : b; }>(r, "s_max_i32");
  salu<[](u32 a, u32 b, Scc& scc) { scc = a > b; return a > b ? a : b; }>(r, "s_max_u32");
  salu<[](u32 a, u32 b, Scc& scc) { return scc ? a : b; }>(r, "s_cselect_b32");
  salu<[](u64 a, u64 b, Scc& scc) { return scc ? a : b; }>(r, "s_cselect_b64");
  // SOP2: bitwise, 32 and 64 bit. SCC = D != 0.
#define ASMEVO_LOGIC(name, expr)                                                              \
  salu<[](u32 a, u32 b, Scc& scc) { u32 d = (expr); scc = d != 0; return d; }>(r, name "_b32"); \
  salu<[](u64 a, u64 b, Scc& scc) { u64 d = (expr); scc = d != 0; return d; }>(r, name "_b64");
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
  salu<[](u32 a, u32 b, Scc& scc) { u32 d = a << (b & 31); scc = d != 0; return d; }>(r, "s_lshl_b32");
  salu<[](u64 a, u32 b, Scc& scc) { u64 d = a << (b & 63); scc = d != 0; return d; }>(r, "s_lshl_b64");
  salu<[](u32 a, u32 b, Scc& scc) { u32 d = a >> (b & 31); scc = d != 0; return d; }>(r, "s_lshr_b32");
  salu<[](u64 a, u32 b, Scc& scc) { u64 d = a >> (b & 63); scc = d != 0; return d; }>(r, "s_lshr_b64");
  salu<[](i32 a, u32 b, Scc& scc) { i32 d = a >> (b & 31); scc = d != 0; return d; }>(r, "s_ashr_i32");
  salu<[](i64 a, u32 b, Scc& scc) { i64 d = a >> (b & 63); scc = d != 0; return d; }>(r, "s_ashr_i64");
  // s_lshlN_add_u32: D = (S0 << N) + S1, SCC = carry out (gfx9).
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = (u64(a) << 1) + b; scc = t >> 32; return u32(t); }>(r, "s_lshl1_add_u32");
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = (u64(a) << 2) + b; scc = t >> 32; return u32(t); }>(r, "s_lshl2_add_u32");
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = (u64(a) << 3) + b; scc = t >> 32; return u32(t); }>(r, "s_lshl3_add_u32");
  salu<[](u32 a, u32 b, Scc& scc) { u64 t = (u64(a) << 4) + b; scc = t >> 32; return u32(t); }>(r, "s_lshl4_add_u32");
  // Bit-field extract: offset S1[4:0] (S1[5:0] for 64-bit), width S1[22:16].
  salu<[](u32 a, u32 b, Scc& scc) {
    u32 off = b & 31, w = (b >> 16) & 0x7f;
    u32 d = w == 0 ? 0 : (w >= 32 ? a >> off : (a >> off) & ((1u << w) - 1));
    scc = d != 0;
    return d;
  }>(r, "s_bfe_u32");
  salu<[](i32 a, u32 b, Scc& scc) {
    u32 off = b & 31, w = (b >> 16) & 0x7f;
    i32 t = a >> off;
    i32 d = w == 0 ? 0 : (w >= 32 ? t : static_cast<i32>(u32(t) << (32 - w)) >> (32 - w));
    scc = d != 0;
    return d;
  }>(r, "s_bfe_i32");
  salu<[](u64 a, u32 b, Scc& scc) {
    u32 off = b & 63, w = (b >> 16) & 0x7f;
    u64 d = w == 0 ? 0 : (w >= 64 ? a >> off : (a >> off) & ((1ull << w) - 1));
    scc = d != 0;
    return d;
  }>(r, "s_bfe_u64");
  salu<[](u32 a, u32 b) { return ((1u << (a & 31)) - 1) << (b & 31); }>(r, "s_bfm_b32");
  salu<[](u32 a, u32 b) { return ((1ull << (a & 63)) - 1) << (b & 63); }>(r, "s_bfm_b64");
  // SOPK: 16-bit immediate K (printed as 0..0xffff; sign-extension is the unit's job).
  salu<[](u32 k) { return static_cast<u32>(static_cast<i32>(static_cast<int16_t>(k))); }>(r, "s_movk_i32");
  salu<[](u32 d, u32 k, Scc& scc) { return scc ? static_cast<u32>(static_cast<i32>(static_cast<int16_t>(k))) : d; }>(r, "s_cmovk_i32", kDstIsSrc0);
  salu<[](i32 d, u32 k, Scc& scc) {
    i32 b = static_cast<int16_t>(k), s = static_cast<i32>(u32(d) + u32(b));
    scc = ((d >= 0) == (b >= 0)) && ((s >= 0) != (d >= 0));
    return s;
  }>(r, "s_addk_i32", kDstIsSrc0);
  salu<[](i32 d, u32 k) { return static_cast<i32>(u32(d) * u32(static_cast<i32>(static_cast<int16_t>(k)))); }>(r, "s_mulk_i32", kDstIsSrc0);
  // SOPC and SOPK compares: SCC = S0 op S1.
#define ASMEVO_CMP(sfx, T, K)                                                          \
  salu<[](T a, T b) { return a == b; }>(r, "s_cmp_eq_" sfx);                         \
  salu<[](T a, T b) { return a != b; }>(r, "s_cmp_lg_" sfx);                         \
  salu<[](T a, T b) { return a > b; }>(r, "s_cmp_gt_" sfx);                          \
  salu<[](T a, T b) { return a >= b; }>(r, "s_cmp_ge_" sfx);                         \
  salu<[](T a, T b) { return a < b; }>(r, "s_cmp_lt_" sfx);                          \
  salu<[](T a, T b) { return a <= b; }>(r, "s_cmp_le_" sfx);                         \
  salu<[](T a, u32 k) { return a == K(k); }>(r, "s_cmpk_eq_" sfx);                   \
  salu<[](T a, u32 k) { return a != K(k); }>(r, "s_cmpk_lg_" sfx);                   \
  salu<[](T a, u32 k) { return a > K(k); }>(r, "s_cmpk_gt_" sfx);                    \
  salu<[](T a, u32 k) { return a >= K(k); }>(r, "s_cmpk_ge_" sfx);                   \
  salu<[](T a, u32 k) { return a < K(k); }>(r, "s_cmpk_lt_" sfx);                    \
  salu<[](T a, u32 k) { return a <= K(k); }>(r, "s_cmpk_le_" sfx);
#define ASMEVO_SEXT16(k) static_cast<i32>(static_cast<int16_t>(k))
#define ASMEVO_ZEXT16(k) static_cast<u32>((k) & 0xffff)
  ASMEVO_CMP("i32", i32, ASMEVO_SEXT16)
  ASMEVO_CMP("u32", u32, ASMEVO_ZEXT16)
#undef ASMEVO_CMP
  salu<[](u64 a, u64 b) { return a == b; }>(r, "s_cmp_eq_u64");
  salu<[](u64 a, u64 b) { return a != b; }>(r, "s_cmp_lg_u64");
  salu<[](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 0; }>(r, "s_bitcmp0_b32");
  salu<[](u32 a, u32 b) { return ((a >> (b & 31)) & 1) == 1; }>(r, "s_bitcmp1_b32");
  salu<[](u64 a, u32 b) { return ((a >> (b & 63)) & 1) == 0; }>(r, "s_bitcmp0_b64");
  salu<[](u64 a, u32 b) { return ((a >> (b & 63)) & 1) == 1; }>(r, "s_bitcmp1_b64");
  // Program counter (device-function calls and returns).
  custom(r, "s_getpc_b64", s_getpc_b64, Category::Scalar, {Ty::B64}, {});
  custom(r, "s_setpc_b64", s_setpc_b64, Category::Control, {}, {Ty::B64});
  custom(r, "s_swappc_b64", s_swappc_b64, Category::Control, {Ty::B64}, {Ty::B64});
}

}  // namespace asmevo::emu::sem
