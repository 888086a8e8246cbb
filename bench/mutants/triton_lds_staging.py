#!/usr/bin/env python3
"""The output-staging LDS addresses of the gfx942 Triton rmsnorm_kernel and layernorm_kernel, transcribed from their
listings (`llvm-objdump-22 -d --mcpu=gfx942 corpus/triton/gfx942/{rmsnorm,layernorm}_kernel.hsaco`), for every
thread id of the spec's 256-thread block. Both kernels compute them with the same instructions (registers differ):

  rmsnorm   0x1a64-0x1b4c (writes: v15 = v2 + 0, v2 = v2 ^ 64) / 0x1bdc-0x1c0c (read address v1)
  layernorm 0x1c04-0x1cec (writes: v25 = v4 + 0, v4 = v4 ^ 64) / 0x1d7c-0x1dac (read address v4)

  a   = ((t << 1) & 64) | ((t << 5) & 0x200) | ((t & 64) >> 5) | ((t << 2) & 60) | (t & 0x80)   (two v_or3_b32)
  ds_write_b16 at a, a + 1024, (a ^ 64) + 256, (a ^ 64) + 1280          (v_xad_u32 x, x, 64, 0 = x ^ 64)
  r   = ((t << 10) & 0x400) + ((t & 64) << 3) + ((((t >> 1) & 1 ? 0x140 : 0) | (t & 60)) ^ ((t & 0x80) >> 1))
  ds_read2_b32 at r and r + 128 (offset1:32 dwords)

Prints whether the bytes the read touches are all among those the writes touch (exit 0 when they are): then every
byte the staging read returns was written by the staging writes after the s_barrier before them, whatever LDS held.
"""
import sys

writes, reads = set(), set()
for t in range(256):
    a = ((t << 1) & 64) | ((t << 5) & 0x200) | ((t & 64) >> 5) | ((t << 2) & 60) | (t & 0x80)
    for w in (a, a + 1024, (a ^ 64) + 256, (a ^ 64) + 1280):
        writes.update((w, w + 1))
    r = ((t << 10) & 0x400) + ((t & 64) << 3) + (((0x140 if (t >> 1) & 1 else 0) | (t & 60)) ^ ((t & 0x80) >> 1))
    for x in (r, r + 128):
        reads.update(range(x, x + 4))
ok = reads <= writes
print(f"staging writes {len(writes)} bytes in [{min(writes)}, {max(writes)}], the read {len(reads)} bytes in "
      f"[{min(reads)}, {max(reads)}]: every byte read was written: {ok}")
sys.exit(0 if ok else 1)
