// v_trig_preop_f64 D, S0, S1 (ISA V_TRIG_PREOP_F64): a 53-bit segment of 2/pi for range reduction of S0.
//   shift = S1[4:0] * 53, plus exponent(S0) - 1077 when S0's biased exponent exceeds 1077;
//   D = the 53 bits of 2/pi = 0.b1200 b1199 ... b0 that start `shift` bits after the binary point, as an
//   integer scaled by 2^(-53 - shift) (+128 when exponent(S0) >= 1968: large inputs are pre-scaled by the
//   caller), truncated (round toward zero); bits past b0 read as 0.
// The 1216 fraction bits below are 2/pi computed with Machin's formula in exact integer arithmetic (their
// first 64 bits, 0xa2f9836e4e441529, are the constant every libm's Payne-Hanek reduction uses).
#include <bit>
#include <cmath>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

constexpr u32 kTwoOverPi[38] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0,
    0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4,
    0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
    0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab};
constexpr unsigned kBits = 1201;  // the ISA's b1200..b0

// Fraction bit p (p = 0: the first bit after the binary point) of 2/pi.
inline unsigned frac_bit(unsigned p) { return p < kBits ? (kTwoOverPi[p / 32] >> (31 - p % 32)) & 1 : 0; }

inline double trig_preop(double s0, u32 s1) {
  const int exp = static_cast<int>(std::bit_cast<u64>(s0) >> 52 & 0x7ff);
  unsigned shift = (s1 & 31) * 53;
  if (exp > 1077) shift += static_cast<unsigned>(exp - 1077);
  u64 seg = 0;
  for (unsigned j = 0; j < 53; ++j) seg = seg << 1 | frac_bit(shift + j);
  int scale = -53 - static_cast<int>(shift);
  if (exp >= 1968) scale += 128;
  return std::ldexp(static_cast<double>(seg), scale);
}

}  // namespace

void register_trig_preop(Registry& r) { valu<[](double a, u32 b) { return trig_preop(a, b); }>(r, "v_trig_preop_f64"); }

}  // namespace asmevo::emu::sem
