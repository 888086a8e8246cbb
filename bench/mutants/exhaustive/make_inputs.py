#!/usr/bin/env python3
"""Input files (.npy) and launch specs for the issue-16 exhaustive and constructed-input checks of
bench/mutants/results/gfx942-issue16-s6-num.txt (run by check.sh). Standard library only.
Usage: make_inputs.py OUT_DIR"""
import array, os, struct, sys


def write_npy(path, descr, data, count):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
    header += ' ' * (64 - (10 + len(header) + 1) % 64) + '\n'
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + data)
    os.replace(tmp, path)


def write_spec(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def spec(kernel, grid, block, lds, args):
    lines = ['kernel: %s' % kernel, 'grid: [%d, %d, %d]' % tuple(grid), 'block: [%d, 1, 1]' % block,
             'dynamic_lds: %d' % lds, 'seed: 1', 'inputs: 1', 'special: false', 'args:']
    return '\n'.join(lines + ['  - ' + a for a in args]) + '\n'


def main(out):
    os.makedirs(out, exist_ok=True)
    every16 = struct.pack('<65536H', *range(65536))
    # Every f16 / bf16 bit pattern once.
    write_npy(os.path.join(out, 'every_f16.npy'), '<f2', every16, 65536)
    write_npy(os.path.join(out, 'every_bf16.npy'), '<u2', every16, 65536)
    write_spec(os.path.join(out, 'gelu_f16.yaml'), spec('gelu_f16', (256, 1, 1), 256, 0, [
        '{name: x, buffer: f16, count: 65536, init: {file: every_f16.npy}}',
        '{name: y, buffer: f16, count: 65536, output: true}', '{name: n, value: 65536, type: i32}']))
    write_spec(os.path.join(out, 'silu_bf16.yaml'), spec('silu_bf16', (256, 1, 1), 256, 0, [
        '{name: x, buffer: bf16, count: 65536, init: {file: every_bf16.npy}}',
        '{name: y, buffer: bf16, count: 65536, output: true}', '{name: n, value: 65536, type: i32}']))
    # silu_and_mul: one row of d = 65536, gate = every bf16 value, up = 1.0.
    write_npy(os.path.join(out, 'silu_and_mul_x.npy'), '<u2', every16 + struct.pack('<65536H', *([0x3f80] * 65536)), 131072)
    write_spec(os.path.join(out, 'silu_and_mul_kernel.yaml'), spec('silu_and_mul_kernel', (1, 256, 1), 256, 0, [
        '{name: x, buffer: bf16, count: 131072, init: {file: silu_and_mul_x.npy}}',
        '{name: out, buffer: bf16, count: 65536, output: true}', '{name: d, value: 65536, type: i32}',
        '{pointer: null}', '{pointer: null}']))
    # fp8_quant_fn: 65536 rows of one column: every f16 value is some row's amax.
    write_spec(os.path.join(out, 'fp8_amax.yaml'), spec('fp8_quant_fn_kernel', (65536, 1, 1), 256, 16, [
        '{name: x, buffer: f16, count: 65536, init: {file: every_f16.npy}}',
        '{name: out, buffer: fp8e4m3fn, count: 65536, output: true}',
        '{name: scale, buffer: f32, count: 65536, output: true}', '{name: n_cols, value: 1, type: i32}',
        '{pointer: null}', '{pointer: null}']))
    # fp8_quant_fn: one row, amax 448 (scale 1), every other element on the midpoint 2.5 * 2^-9.
    write_npy(os.path.join(out, 'fp8_midpoint.npy'), '<f2', struct.pack('<1000H', *([0x5f00] + [0x1d00] * 999)), 1000)
    write_spec(os.path.join(out, 'fp8_midpoint.yaml'), spec('fp8_quant_fn_kernel', (1, 1, 1), 256, 16, [
        '{name: x, buffer: f16, count: 1000, init: {file: fp8_midpoint.npy}}',
        '{name: out, buffer: fp8e4m3fn, count: 1000, output: true}',
        '{name: scale, buffer: f32, count: 1, output: true}', '{name: n_cols, value: 1000, type: i32}',
        '{pointer: null}', '{pointer: null}']))
    # argmax: 7 rows of 5000, each with its maximum 10 twice, 1024 columns apart (one lane's slot).
    rows = []
    for k in (0, 1, 2, 3, 256, 512, 768):
        r = [0.0] * 5000
        r[k] = r[k + 1024] = 10.0
        rows += r
    write_npy(os.path.join(out, 'argmax_tie.npy'), '<f4', struct.pack('<%df' % len(rows), *rows), len(rows))
    write_spec(os.path.join(out, 'argmax_tie.yaml'), spec('argmax_kernel', (7, 1, 1), 256, 16, [
        '{name: logits, buffer: f32, count: 35000, init: {file: argmax_tie.npy}}',
        '{name: out, buffer: i32, count: 7, output: true}', '{name: vocab, value: 5000, type: i32}',
        '{pointer: null}', '{pointer: null}']))
    # tanh_f32: every f32 with |x| in [0.625, 44.37] (the exp path whose result is used), +-inf, a
    # NaN; chunks of 2^24 elements.
    lo, hi, chunk = 0x3f200000, 0x42317219, 1 << 24
    cur, parts = array.array('I'), []
    for sign in (0, 0x80000000):
        b = lo
        while b <= hi:
            take = min(hi + 1 - b, chunk - len(cur))
            cur.extend(range(sign | b, sign | (b + take)))
            b += take
            if len(cur) == chunk:
                parts.append(cur)
                cur = array.array('I')
    cur.extend([0x7f800000, 0xff800000, 0x7fc00000])
    while len(cur) % 128:
        cur.append(0)
    parts.append(cur)
    for i, c in enumerate(parts):
        write_npy(os.path.join(out, 'tanh_%d.npy' % i), '<f4', c.tobytes(), len(c))
        write_spec(os.path.join(out, 'tanh_%d.yaml' % i), spec('tanh_f32', (len(c) // 128, 1, 1), 128, 0, [
            '{name: x, buffer: f32, count: %d, init: {file: tanh_%d.npy}}' % (len(c), i),
            '{name: y, buffer: f32, count: %d, output: true}' % len(c), '{name: n, value: %d, type: i32}' % len(c)]))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
