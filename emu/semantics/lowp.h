// Low-precision number formats shared by the MFMA, VOP3P and packed-conversion families:
// bf16, the 8-bit floats (fp8 = E4M3, bf8 = E5M2) and the OCP MX 6/4-bit formats (fp6, bf6, fp4).
//
// gfx942 (CDNA3) uses the "FNUZ" variants (AMD's original fp8: E4M3 bias 8, E5M2 bias 16, no
// infinities, no negative zero, the single NaN is 0x80); gfx950 (CDNA4) uses the OCP formats
// (E4M3FN bias 7: no infinity, NaN = S.1111.111; E5M2 bias 15: IEEE-like with inf and NaN).
// This split follows LLVM's AMDGPU backend (FeatureFP8ConversionInsts on gfx940 = fnuz; gfx950
// HasFP8E4M3/OCP conversions) and the CDNA3/CDNA4 ISA guides ("FP8/BF8 data formats").
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace asmevo::emu::lowp {

inline float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// f32 -> bf16, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

// f16 -> f32 (exact; NaN keeps its payload and becomes quiet, as the compiler's conversion does). In bits:
// without F16C the compiler calls libgcc's __extendhfsf2, which was a sixth of a sampled f16 GEMM (perf,
// bench/timing/sampling_bench). tests/emu checks every one of the 65536 inputs against that conversion.
// Branch-free (the three cases computed and one selected), so a loop over lanes vectorizes: the MFMA operand reads
// of an f16 GEMM convert 64 lanes at a time (emu/semantics/mfma.cpp read_vgpr_halves).
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t bits = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa in f32's places
  const uint32_t e = bits >> 23, m = bits & 0x7fe000u;
  const uint32_t normal = bits + (112u << 23);                                 // rebias 15 -> 127
  const uint32_t special = bits | 0x7f800000u | (m ? 0x400000u : 0u);          // inf, quiet NaN
  // zero, denormal: m * 2^-24, exactly (2^-14 + m * 2^-24, less 2^-14)
  const uint32_t small = std::bit_cast<uint32_t>(std::bit_cast<float>(bits + (113u << 23)) - 0x1p-14f);
  return std::bit_cast<float>(sign | (e == 0x1fu ? special : e == 0 ? small : normal));
}
inline uint16_t f32_to_f16(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }

#if defined(__x86_64__)
// One register's 64 f16 halves (the low ones, or the high with shift 16: words[lane] >> shift) to double by F16C's
// packed conversion, eight lanes an instruction (the caller checks the host has AVX2 and F16C); false, leaving `row`
// to be written again, when a half is a NaN (f16_to_f32 decides their bits). Every other f16 value is exact in f32,
// so F16C gives f16_to_f32's bits (tests/emu isa_cvt_pk_test checks all 65536). For the MFMA operand reads
// (mfma.cpp read_vgpr_halves): a tenth of a sampled f16 GEMM's instructions was this conversion vectorized without
// F16C, four lanes at a time (callgrind on bench/timing/sampling_bench, triton/matmul_128_kernel:decode_b64).
__attribute__((target("avx2,f16c"))) inline bool f16_halves_to_double_f16c(const uint32_t* words, unsigned shift, double* row) {
  const __m256i low16 = _mm256_set1_epi32(0xffff), magnitude = _mm256_set1_epi32(0x7fff), inf = _mm256_set1_epi32(0x7c00);
  const __m128i by = _mm_cvtsi32_si128(static_cast<int>(shift));
  __m256i nan = _mm256_setzero_si256();
  for (unsigned l = 0; l < 64; l += 8) {
    const __m256i h = _mm256_and_si256(_mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + l)), by), low16);
    nan = _mm256_or_si256(nan, _mm256_cmpgt_epi32(_mm256_and_si256(h, magnitude), inf));  // exponent 31, mantissa not 0
    const __m256 f = _mm256_cvtph_ps(_mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
    _mm256_storeu_pd(row + l, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(row + l + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  return _mm256_testz_si256(nan, nan);
}
#endif

// Every small float format: the 8-bit floats and the OCP MX 6- and 4-bit element formats (fp6 = E2M3,
// bf6 = E3M2, fp4 = E2M1; OCP Microscaling v1.0 section 5.3: no Inf, no NaN).
enum class F8 : uint8_t { E4M3Fnuz, E5M2Fnuz, E4M3Fn, E5M2, E2M3, E3M2, E2M1 };

struct F8Params {
  int ebits, mbits, bias;
  double max;  // largest finite magnitude
};
inline constexpr F8Params params(F8 f) {
  switch (f) {
    case F8::E4M3Fnuz: return {4, 3, 8, 240.0};
    case F8::E5M2Fnuz: return {5, 2, 16, 57344.0};
    case F8::E4M3Fn: return {4, 3, 7, 448.0};
    case F8::E5M2: return {5, 2, 15, 57344.0};
    case F8::E2M3: return {2, 3, 1, 7.5};
    case F8::E3M2: return {3, 2, 3, 28.0};
    default: return {2, 1, 1, 6.0};  // E2M1
  }
}
inline constexpr bool is_mx(F8 f) { return f == F8::E2M3 || f == F8::E3M2 || f == F8::E2M1; }
inline constexpr unsigned bits_of(F8 f) { return static_cast<unsigned>(1 + params(f).ebits + params(f).mbits); }

// fp8 (bf8 when `bf8`) for the architecture: gfx950 uses OCP, gfx942 FNUZ.
inline F8 f8_format(bool bf8, bool ocp) {
  return ocp ? (bf8 ? F8::E5M2 : F8::E4M3Fn) : (bf8 ? F8::E5M2Fnuz : F8::E4M3Fnuz);
}

inline double f8_to_double(uint32_t code, F8 f) {
  const F8Params p = params(f);
  const unsigned nbits = bits_of(f);
  code &= (1u << nbits) - 1;
  bool s = code >> (nbits - 1);
  int e = (code >> p.mbits) & ((1 << p.ebits) - 1);
  int m = code & ((1 << p.mbits) - 1);
  if ((f == F8::E4M3Fnuz || f == F8::E5M2Fnuz) && code == 0x80) return std::nan("");
  if (f == F8::E4M3Fn && e == 15 && m == 7) return s ? -std::nan("") : std::nan("");
  if (f == F8::E5M2 && e == 31) return m ? std::nan("") : (s ? -INFINITY : INFINITY);
  double v = e == 0 ? std::ldexp(m, 1 - p.bias - p.mbits) : std::ldexp((1 << p.mbits) + m, e - p.bias - p.mbits);
  return s ? -v : v;
}

// Stochastic rounding (v_cvt_sr_* and v_cvt_scalef32_sr_*), as the CDNA4 ISA guide's V_CVT_SR_FP8_F32 /
// V_CVT_SR_BF8_F32 pseudo-code states it: the top (23 - destination mantissa bits) bits of the seed are added
// to the f32 mantissa field, which wraps around on overflow (the exponent is kept); the result is then
// converted with round to nearest even. (AMD's HIP host emulation, amd_hip_ocp_host.hpp from_float_sr,
// instead truncates and carries into the exponent: which one the hardware does needs confirmation.)
inline float sr_perturb(float x, uint32_t seed, int dst_mbits) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t m = ((u & 0x7fffffu) + (seed >> (32 - (23 - dst_mbits)))) & 0x7fffffu;
  return std::bit_cast<float>((u & 0xff800000u) | m);
}

// v_prng_b32 (CDNA4 ISA): one step of a 32-bit Galois LFSR, D = (S0 << 1) ^ (S0[31] ? 197 : 0); the packed
// stochastic conversions draw each next element's seed with it.
inline uint32_t prng_b32(uint32_t s) { return (s << 1) ^ ((s >> 31) ? 197u : 0u); }

// Rounds |a| (finite, >= 0) to `mbits` mantissa bits with smallest normal exponent `emin` (denormals below).
inline double round_magnitude(double a, int mbits, int emin) {
  int e = a == 0 ? emin : std::ilogb(a);
  if (e < emin) e = emin;
  const double q = std::ldexp(1.0, e - mbits);  // quantum at this binade
  return std::nearbyint(a / q) * q;              // RNE (default rounding mode of the host)
}

// x -> small float code, round to nearest even, denormals of the format produced.
// Out of range (after rounding) and infinities: `saturate` gives the largest finite value of that sign;
// otherwise the format's overflow value (FNUZ: the NaN 0x80; E4M3FN: NaN; E5M2: infinity; the MX formats
// have neither and always saturate). NaN gives NaN (MX formats: the largest magnitude with NaN's sign, as
// AMD's host emulation of gfx950 does). FNUZ has no negative zero: -0 and values rounding to 0 encode as 0.
inline uint8_t encode_small(double x, F8 f, bool saturate) {
  const F8Params p = params(f);
  const bool fnuz = f == F8::E4M3Fnuz || f == F8::E5M2Fnuz;
  const unsigned nbits = bits_of(f);
  const uint8_t sign = std::signbit(x) ? static_cast<uint8_t>(1u << (nbits - 1)) : 0;
  const uint8_t max_code = static_cast<uint8_t>(f == F8::E4M3Fn ? 0x7e : f == F8::E5M2 ? 0x7b : (1u << (nbits - 1)) - 1);
  auto overflow = [&]() -> uint8_t {
    if (saturate || is_mx(f)) return static_cast<uint8_t>(sign | max_code);
    if (fnuz) return 0x80;
    if (f == F8::E4M3Fn) return static_cast<uint8_t>(sign | 0x7f);
    return static_cast<uint8_t>(sign | 0x7c);  // E5M2 infinity
  };
  if (std::isnan(x)) return is_mx(f) ? static_cast<uint8_t>(sign | max_code) : fnuz ? 0x80 : static_cast<uint8_t>(sign | 0x7f);
  double a = std::fabs(x);
  if (std::isinf(a)) return overflow();
  const int emin = 1 - p.bias;  // exponent of the smallest normal
  double r = round_magnitude(a, p.mbits, emin);
  if (r > p.max) return overflow();
  if (r == 0) return fnuz ? 0 : sign;
  int re = std::ilogb(r);
  uint32_t exp_field, mant;
  if (re < emin) {
    exp_field = 0;
    mant = static_cast<uint32_t>(r / std::ldexp(1.0, emin - p.mbits));
  } else {
    exp_field = static_cast<uint32_t>(re + p.bias);
    mant = static_cast<uint32_t>(r / std::ldexp(1.0, re - p.mbits)) - (1u << p.mbits);
  }
  return static_cast<uint8_t>(sign | (exp_field << p.mbits) | mant);
}

// f32 -> 8-bit float, round to nearest even (see encode_small).
inline uint8_t f32_to_f8(float x, F8 f, bool saturate) { return encode_small(x, f, saturate); }

// double -> f16 / bf16 bits with ONE rounding to nearest even, IEEE overflow to infinity, denormals produced;
// NaN stays a quiet NaN.
inline uint16_t double_to_half_bits(double x, bool bf16) {
  const int mbits = bf16 ? 7 : 10, emin = bf16 ? -126 : -14, ebias = bf16 ? 127 : 15;
  const double max = bf16 ? 0x1.fep127 : 65504.0;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0, inf = bf16 ? 0x7f80 : 0x7c00;
  if (std::isnan(x)) return static_cast<uint16_t>(sign | inf | (bf16 ? 0x40 : 0x200));
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | inf;
  double r = round_magnitude(a, mbits, emin);
  if (r > max) return sign | inf;
  if (r == 0) return sign;
  int re = std::ilogb(r);
  if (re < emin) return static_cast<uint16_t>(sign | static_cast<uint32_t>(r / std::ldexp(1.0, emin - mbits)));
  uint32_t mant = static_cast<uint32_t>(r / std::ldexp(1.0, re - mbits)) - (1u << mbits);
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(re + ebias) << mbits | mant);
}

// E8M0 scale (OCP MX v1.0): 2^(code - 127); 0xFF is NaN.
inline double e8m0(uint32_t code) { return code == 0xff ? std::nan("") : std::ldexp(1.0, static_cast<int>(code) - 127); }

}  // namespace asmevo::emu::lowp
