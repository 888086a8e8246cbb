// Every f32 divisor s in [1, 2^64) through the f32 division 1.0 / s that kb_softmax_f32 runs at 0x2d10-0x2d54
// (inv = 1 / s, s the row's sum of exp(x - max), so s >= 1): K0 against the mul-add mutant at 0x2d34 (the
// quotient estimate n * rcp as n + rcp) of bench/mutants/results/gfx942-issue16-s7-kb.txt.
// Semantics as the emulator's (emu/semantics/trans.cpp): for n = 1.0 and s in this range v_div_scale_f32 returns
// its operand unchanged with VCC = 0 (no exponent-difference, denormal or tiny-numerator case applies), so
// v_div_fmas_f32 is a plain fma and v_div_fixup_f32 returns the quotient; v_rcp_f32 = the correctly rounded 1/x;
// v_fma_f32 = fmaf. Build: cc -O2 -ffp-contract=off -o /tmp/recip recip_estimate_exhaustive.c -lm
// With arguments `D LO HI` it runs kb_layernorm_f32's var = ss / n instead (the same sequence at 0x27ac-0x27f4, mutant
// mul-add 0x27d4): divisor D, every numerator whose f32 bit pattern lies in [LO, HI) (hex), the same no-scaling
// caveat (numerators of 2^-60 or more: div_scale leaves them unscaled). Prints the count and the first and last
// differing numerator.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float bits_to_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }

static float divide(float n, float d, int mutant) {
  float r = 1.0f / d;                 // v_rcp_f32 v3, v2
  float e = fmaf(-d, r, 1.0f);        // v_fma_f32 v7, -v2, v3, 1.0
  r = fmaf(e, r, r);                  // v_fmac_f32 v3, v7, v3
  float q = mutant ? n + r : n * r;   // 0x2d34: v_mul_f32 v7, v6, v3 (mutant v_add_f32)
  float e2 = fmaf(-d, q, n);          // v_fma_f32 v8, -v2, v7, v6
  q = fmaf(e2, r, q);                 // v_fmac_f32 v7, v8, v3
  float e3 = fmaf(-d, q, n);          // v_fma_f32 v2, -v2, v7, v6
  return fmaf(e3, r, q);              // v_div_fmas_f32 (VCC = 0), then v_div_fixup_f32 (a finite quotient)
}

static int numerators(float d, uint32_t lo, uint32_t hi) {
  unsigned long long checked = 0, differ = 0;
  uint32_t first = 0, last = 0;
  for (uint32_t b = lo; b < hi; ++b) {
    float n = bits_to_f(b), k0 = divide(n, d, 0), mut = divide(n, d, 1);
    ++checked;
    if (memcmp(&k0, &mut, 4) != 0) {
      if (!differ++) first = b;
      last = b;
    }
  }
  printf("divisor %g, %llu numerators in [%a, %a): the quotient differs at %llu (first %a, last %a)\n", d, checked,
         bits_to_f(lo), bits_to_f(hi), differ, bits_to_f(first), bits_to_f(last));
  return differ != 0;
}

int main(int argc, char** argv) {
  if (argc == 4) return numerators((float)atof(argv[1]), (uint32_t)strtoul(argv[2], 0, 16), (uint32_t)strtoul(argv[3], 0, 16));
  if (argc != 1) {
    fprintf(stderr, "usage: recip [D LO HI]  (no arguments: softmax's 1 / s; D LO HI: layernorm's ss / D, hex bit patterns)\n");
    return 2;
  }
  uint64_t checked = 0, differ = 0;
  for (uint32_t b = 0x3f800000u; b < 0x5f800000u; ++b) {  // 1.0 .. 2^64 (exclusive)
    float s = bits_to_f(b);
    float k0 = divide(1.0f, s, 0), mut = divide(1.0f, s, 1);
    ++checked;
    if (memcmp(&k0, &mut, 4) != 0 && differ++ < 5)
      printf("differs at s = %a (0x%08x): K0 %a, mutant %a\n", s, (unsigned)b, k0, mut);
  }
  printf("checked %llu divisors in [1, 2^64): the quotient differs at %llu\n", (unsigned long long)checked,
         (unsigned long long)differ);
  return differ != 0;
}
