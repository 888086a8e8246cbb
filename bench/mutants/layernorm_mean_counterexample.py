#!/usr/bin/env python3
"""A constructed input for layernorm_kernel's mul-add mutant at 0x1a24 (mean = sum / n_cols with the quotient estimate
sum * rcp(n) as sum + rcp(n)): row 0 of x holds the f16 value 0x0013 (19 * 2^-24) and zeros, so its sum is exactly
19 * 2^-24, one of the f16 numerators whose quotient by 900 the mutant rounds one ulp differently (computed with
recip_estimate_exhaustive.c's sequence: the only one of the 31,743 positive finite f16 values for divisor 900).
Writes OUT/x.npy and OUT/layernorm_mean.yaml (the corpus spec with that input, no perf launches, n_cols fixed at 900).
Then: asmevo patch corpus/triton/gfx942/layernorm_kernel.hsaco --kernel layernorm_kernel --at 0x324 \
        --asm "v_add_f32_e32 v17, v16, v15" -o OUT/mutant.co
      asmevo verify corpus/triton/gfx942/layernorm_kernel.hsaco OUT/mutant.co --launch OUT/layernorm_mean.yaml
(session 8: DIFFERENT, mean[0] 0x30acf135 against 0x30acf136). usage: layernorm_mean_counterexample.py OUT
"""
import os
import re
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 36900
header = "{'descr': '<f2', 'fortran_order': False, 'shape': (%d,), }" % n
header += ' ' * (64 - (10 + len(header) + 1) % 64) + '\n'
data = bytearray(2 * n)
data[0:2] = struct.pack('<H', 0x0013)
with open(os.path.join(out, 'x.npy'), 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + bytes(data))
here = os.path.dirname(os.path.abspath(__file__))
spec = open(os.path.join(here, '..', '..', 'corpus', 'triton', 'launch', 'layernorm_kernel.yaml')).read()
spec = spec.split('\nperf:')[0] + '\n'
spec = spec.replace('init: {normal: [0.5, 2]}', 'init: {file: x.npy}').replace('inputs: 2', 'inputs: 1')
spec = spec.replace('special: true', 'special: false')
spec = re.sub(r', vary: \[1, 900\]', '', spec)
open(os.path.join(out, 'layernorm_mean.yaml'), 'w').write(spec)
print(f"wrote {out}/x.npy and {out}/layernorm_mean.yaml")
