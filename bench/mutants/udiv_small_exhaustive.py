#!/usr/bin/env python3
"""The unsigned division n / d of matmul_kernel's grouped tile mapping (gfx942 Triton listing 0x18b0-0x196c:
pid_n = (pid % num_pid_in_group) // group_size_m), with the emulator's semantics, for every divisor
d = group_size_m = min(num_pid_m - first_pid_m, GROUP_M = 4) in [1, 4] and every numerator n < 2^20:

  z0 = cvt_u32(f32(f32(1 / d) * 0x4f7ffffe))        v_cvt_f32_u32, v_rcp_iflag_f32 (emu: 1.0f / a), v_mul_f32, v_cvt_u32_f32
  z  = z0 + mulhi(z0, (-d * z0) mod 2^32)            s_sub_i32, s_mul_i32, s_mul_hi_u32, s_add_i32
  q  = mulhi(n, z), r = n - q * d                    s_mul_hi_u32, s_mul_i32, s_sub_i32
  first correction: r >= d -> q + 1, r - d            s_cmp_ge_u32 0x1958, s_cselect_b32 0x195c / 0x1960
  second correction: r >= d -> q + 1                  s_cmp_ge_u32 0x1968, s_cselect_b32 0x196c

The swap-adjacent mutant at 0x1968 exchanges the second compare with its s_cselect, which then reads the SCC of
`s_add_i32 s2, s1, 1` (signed overflow of q + 1: false for q < 2^31) and keeps q. It differs from the original exactly
where the second correction fires. Exit 0 when it fires for no (n, d) here.
"""
import struct
import sys


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


fires = 0
for d in range(1, 5):
    rcp = f32(1.0 / f32(float(d)))
    z0 = int(f32(rcp * 4294966784.0))  # the literal 0x4f7ffffe is the f32 4294966784.0 (2^32 - 512)
    z0 &= 0xffffffff
    z = (z0 + ((z0 * ((-d * z0) & 0xffffffff)) >> 32)) & 0xffffffff
    for n in range(1 << 20):
        q = (n * z) >> 32
        r = (n - q * d) & 0xffffffff
        if r >= d:
            q, r = q + 1, (r - d) & 0xffffffff
        if r >= d:
            fires += 1
            if fires <= 3:
                print(f"second correction fires at n = {n}, d = {d}")
        assert (q + (r >= d)) == n // d
print(f"divisors 1..4, numerators [0, 2^20): the second correction fires {fires} times")
sys.exit(1 if fires else 0)
