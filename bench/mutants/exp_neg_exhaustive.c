// Every f32 x through the expf(-x) sequence of kb_sigmoid_f32 (0x3078-0x30c8) and kb_swish_f32 (0x3278-0x32cc):
// K0 against the two mutants of bench/mutants/results/gfx942-issue16-s7-kb.txt that change one of its constants
// (sigmoid imm 0x3078: the product's -log2e 0xbfb8aa3b as 0xbfb8aa3c; swish imm 0x3264: the -88.72 threshold
// 0xc2b17218 as 0xc2b17219). The selected e = exp(-x) feeds 1 + e and a division in both kernels, so equal e for
// every x means equal outputs; where e differs, the sigmoid y = 1 / (1 + e) is compared too (the emulator's
// v_div_scale/v_rcp/v_div_fmas/v_div_fixup sequence returns the correctly rounded quotient, emu/semantics/trans.cpp). Semantics as the emulator's (emu/semantics): v_fma_f32 = fmaf, v_rndne_f32 =
// rint (round half to even), v_exp_f32 = float(exp2(double)) with denormal results flushed, v_ldexp_f32 = ldexpf,
// v_cvt_i32_f32 truncating (saturating), compares IEEE. Build: cc -O2 -ffp-contract=off -fopenmp -o /tmp/expneg exp_neg_exhaustive.c -lm
// (2^32 inputs: about 3 CPU-minutes; -fopenmp spreads them over the cores)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static float bits_to_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static float ftz(float a) { return fpclassify(a) == FP_SUBNORMAL ? copysignf(0.0f, a) : a; }
static int cvt_i32(float a) {
  if (isnan(a)) return 0;
  if (a >= 2147483647.0f) return 2147483647;
  if (a <= -2147483648.0f) return (int)0x80000000u;
  return (int)a;
}

// mul_c: the constant of the first product (0x3078 / 0x3278); low: the `x < low -> +inf` threshold (s1).
static float expneg(float x, float mul_c, float low) {
  const float c = bits_to_f(0xbfb8aa3bu), tail = bits_to_f(0xb2a5705fu);
  float v3 = x * mul_c;
  float v4 = fmaf(x, c, -v3);
  float v5 = rintf(v3);
  v4 = fmaf(x, tail, v4);
  v3 = v3 - v5;
  v3 = v3 + v4;
  int n = cvt_i32(v5);
  float e = ftz((float)exp2((double)ftz(v3)));
  e = ldexpf(e, n);
  if (!(bits_to_f(0x42ce8ed0u) >= x)) e = 0.0f;  // v_cmp_nlt_f32 s0, x false: x > 103.28
  if (low > x) e = INFINITY;                     // v_cmp_ngt_f32 s1, x false: x < low
  return e;
}

int main(void) {
  const float c = bits_to_f(0xbfb8aa3bu), c_mut = bits_to_f(0xbfb8aa3cu);
  const float low = bits_to_f(0xc2b17218u), low_mut = bits_to_f(0xc2b17219u);
  unsigned long long diff_sigmoid = 0, diff_sigmoid_y = 0, diff_swish = 0, checked = 0;
  uint32_t first_sigmoid = 0xffffffffu, first_swish = 0xffffffffu;
#pragma omp parallel for reduction(+ : diff_sigmoid, diff_sigmoid_y, diff_swish, checked) reduction(min : first_sigmoid, first_swish)
  for (long long b = 0; b <= 0xffffffffLL; ++b) {
    float x = bits_to_f((uint32_t)b);
    if (isnan(x)) continue;
    ++checked;
    float e0 = expneg(x, c, low);
    float e_sig = expneg(x, c_mut, low), e_swi = expneg(x, c, low_mut);
    if (memcmp(&e0, &e_sig, 4) != 0) {
      float y0 = 1.0f / (1.0f + e0), y1 = 1.0f / (1.0f + e_sig);
      ++diff_sigmoid;
      if (memcmp(&y0, &y1, 4) != 0) {
        ++diff_sigmoid_y;
        if ((uint32_t)b < first_sigmoid) first_sigmoid = (uint32_t)b;
      }
    }
    if (memcmp(&e0, &e_swi, 4) != 0) { ++diff_swish; if ((uint32_t)b < first_swish) first_swish = (uint32_t)b; }
  }
  printf("checked %llu non-NaN f32 x: sigmoid imm: e differs at %llu, y at %llu (lowest pattern 0x%08x); swish imm: e "
         "differs at %llu (lowest pattern 0x%08x)\n", checked, diff_sigmoid, diff_sigmoid_y, (unsigned)first_sigmoid,
         diff_swish, (unsigned)first_swish);
  return diff_sigmoid || diff_swish;
}
