// The host-side half-precision conversions libamdhip64 exports (host code using __half calls them).
// IEEE 754 binary16, round to nearest even; NaN stays NaN (quiet), overflow goes to infinity.
#include <cstdint>
#include <cstring>

extern "C" {

unsigned short __gnu_f2h_ieee(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<unsigned short>(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<unsigned short>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half (or zero)
    if (e < -10) return static_cast<unsigned short>(sign);
    man |= 0x800000u;
    unsigned shift = static_cast<unsigned>(14 - e);
    uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return static_cast<unsigned short>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13), rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<unsigned short>(sign | half);
}

float __gnu_h2f_ieee(unsigned short h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0x1f) x = sign | 0x7f800000u | (man << 13);
  else if (exp) x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  else if (!man) x = sign;
  else {
    int e = -1;
    do ++e, man <<= 1; while (!(man & 0x400u));
    x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // extern "C"
