// VOP1/VOP2/VOP3 f32 and f64 arithmetic and conversions (ISA "Vector ALU Operations").
// The arithmetic, min/max, rounding and int<->float conversions are generic
// (emu/semantics/float_units.h: one definition for the emulator and the prover); what stays here
// has no generic definition yet (ldexp: Z3 has no scaling primitive; written as a wider-format
// multiply it would be a second definition). Per-lane bodies only; abs/neg/omod/clamp and denormal
// flushing are applied by emu/alu.h.
#include <cmath>

#include "emu/alu.h"
#include "emu/semantics/float_units.h"

namespace asmevo::emu::sem {
namespace {

inline float mul_legacy(float a, float b) { return a == 0.0f || b == 0.0f ? 0.0f : a * b; }

struct Cube {
  float id, sc, tc, ma;
};
inline Cube cube(float x, float y, float z) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) return {z < 0 ? 5.0f : 4.0f, z < 0 ? -x : x, -y, 2.0f * z};
  if (ay >= ax) return {y < 0 ? 3.0f : 2.0f, x, y < 0 ? -z : z, 2.0f * y};
  return {x < 0 ? 1.0f : 0.0f, x < 0 ? z : -z, -y, 2.0f * x};
}

}  // namespace

void register_vop_float(Registry& r) {
  EmuUnits units{r};
  float_valu_units(units);
  valu<[](float a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f32");
  // Not generic yet (the prover leaves them UNKNOWN): the legacy multiply's zero rule, cube maps and
  // the rounding float->int conversions.
  // DX9 "legacy" multiply: 0 * anything (Inf, NaN included) is +0 (ISA V_MUL_LEGACY_F32); mad: unfused.
  valu<[](float a, float b) { return mul_legacy(a, b); }>(r, "v_mul_legacy_f32");
  valu<[](float a, float b, float c) { return mul_legacy(a, b) + c; }>(r, "v_mad_legacy_f32");
  // Cube map coordinates (ISA V_CUBEID/SC/TC/MA_F32): the major axis is z if |z| >= |x|, |y|, else y if
  // |y| >= |x|, else x; S0 = x, S1 = y, S2 = z.
  valu<[](float x, float y, float z) { return cube(x, y, z).id; }>(r, "v_cubeid_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).sc; }>(r, "v_cubesc_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).tc; }>(r, "v_cubetc_f32");
  valu<[](float x, float y, float z) { return cube(x, y, z).ma; }>(r, "v_cubema_f32");
  valu<[](float a) { return cvt_sat<i32>(std::floor(a)); }>(r, "v_cvt_flr_i32_f32");        // (int)floor(S0)
  valu<[](float a) { return cvt_sat<i32>(std::floor(a + 0.5f)); }>(r, "v_cvt_rpi_i32_f32");  // (int)floor(S0 + 0.5)
  valu<[](double a, i32 b) { return std::ldexp(a, b); }>(r, "v_ldexp_f64");
}

}  // namespace asmevo::emu::sem
