#!/usr/bin/env python3
"""How far below i / d the quotient estimate of clang's 32-bit unsigned division sequence lands, for every
divisor d in [1, D] and every dividend i in [0, I) (or one divisor with --divisor).

The sequence (AMDGPU, e.g. kb_argmax_dim1_f32 0x3850-0x3890): f = cvt_f32_u32(d); r = rcp(f);
e = cvt_u32_f32(r * 0x4f7ffffe); e += mulhi(e, -d * e); q0 = mulhi(i, e). Two corrections follow, each adding 1
while the remainder is >= d. If q0 is never 2 below i / d, the second correction never fires. rcp is the
emulator's v_rcp_iflag_f32 (emu/semantics/trans.cpp: correctly rounded 1/x, denormals flushed; no denormal arises
here): float32 rounding is done through struct, and 1/f and r * c rounded from double are the correctly rounded
float32 results (division and a product of two 24-bit significands are exact or innocuously double-rounded).
Evidence for bench/mutants/results/gfx942-issue16-s7-kb.txt; prints the worst shortfall and exits 1 if it is >= 2.
"""
import argparse
import struct
import sys


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def estimate(d):
    f = f32(float(d))
    r = f32(1.0 / f)
    e = min(int(f32(r * 4294966784.0)), 0xFFFFFFFF)  # 0x4f7ffffe = 4294966784.0; cvt truncates and clamps
    m = (((1 << 32) - d) * e) & 0xFFFFFFFF
    return (e + ((e * m) >> 32)) & 0xFFFFFFFF


def worst_shortfall(d, dividends):
    e = estimate(d)
    return max(i // d - ((i * e) >> 32) for i in range(dividends))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--max-divisor', type=int, help='every divisor in [1, D]')
    ap.add_argument('--divisor', type=int, help='one divisor')
    ap.add_argument('--dividends', type=int, required=True, help='every dividend in [0, I)')
    a = ap.parse_args()
    if (a.max_divisor is None) == (a.divisor is None) or a.dividends < 1:
        sys.exit('udiv_estimate: give exactly one of --max-divisor or --divisor, and --dividends >= 1')
    divisors = [a.divisor] if a.divisor else range(1, a.max_divisor + 1)
    worst = max(worst_shortfall(d, a.dividends) for d in divisors)
    print(f'divisors {divisors[0]}..{divisors[-1]}, dividends 0..{a.dividends - 1}: estimate at most {worst} below')
    return 1 if worst >= 2 else 0


if __name__ == '__main__':
    sys.exit(main())
