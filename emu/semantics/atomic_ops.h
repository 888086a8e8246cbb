// Read-modify-write operators shared by the vector-memory atomics (GLOBAL/FLAT in atomics.cpp,
// MUBUF in mubuf.cpp): packed f16/bf16 add and f64 min/max on the memory operand's bit patterns.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "emu/alu.h"

namespace asmevo::emu::sem::atomic_ops {

inline float f32(u32 b) { return std::bit_cast<float>(b); }
inline double f64(u64 b) { return std::bit_cast<double>(b); }

inline u16 bf16_rne(float x) {
  u32 b = std::bit_cast<u32>(x);
  if (std::isnan(x)) return static_cast<u16>((b >> 16) | 0x40);
  return static_cast<u16>((b + 0x7fffu + ((b >> 16) & 1)) >> 16);
}
// f16/bf16 sums computed in f32 and rounded once more are correctly rounded (f32 has >= 2p+2 bits).
inline u32 pk_add_f16(u32 a, u32 b) {
  u32 r = 0;
  for (int h = 0; h < 2; ++h) {
    float x = static_cast<float>(std::bit_cast<f16>(static_cast<u16>(a >> (16 * h))));
    float y = static_cast<float>(std::bit_cast<f16>(static_cast<u16>(b >> (16 * h))));
    r |= static_cast<u32>(std::bit_cast<u16>(static_cast<f16>(x + y))) << (16 * h);
  }
  return r;
}
inline u32 pk_add_bf16(u32 a, u32 b) {
  u32 r = 0;
  for (int h = 0; h < 2; ++h) {
    float x = std::bit_cast<float>((a >> (16 * h)) << 16), y = std::bit_cast<float>((b >> (16 * h)) << 16);
    r |= static_cast<u32>(bf16_rne(x + y)) << (16 * h);
  }
  return r;
}
inline u64 min_f64(u64 m, u64 d) {
  double x = f64(m), y = f64(d);
  if (std::isnan(x)) return d;
  if (std::isnan(y)) return m;
  if (x == y) return std::signbit(y) ? d : m;  // -0 < +0
  return y < x ? d : m;
}
inline u64 max_f64(u64 m, u64 d) {
  double x = f64(m), y = f64(d);
  if (std::isnan(x)) return d;
  if (std::isnan(y)) return m;
  if (x == y) return std::signbit(y) ? m : d;
  return y > x ? d : m;
}


}  // namespace asmevo::emu::sem::atomic_ops
