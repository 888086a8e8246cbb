#!/usr/bin/python3
"""Issue 15: gfx950 instructions with no public pseudo-code, checked on the emulator against NumPy models
written from their documentation (not from emu/semantics):

* v_mfma_f32_16x16x128_f8f6f4 / v_mfma_f32_32x32x64_f8f6f4 for every A/B format pair (CBSZ/BLGP 0..4:
  fp8 E4M3, bf8 E5M2, fp6 E2M3, bf6 E3M2, fp4 E2M1; OCP MX v1.0 element encodings), and the scaled
  v_mfma_scale_* forms (E8M0 scales, one per 32 K-elements, byte op_sel | op_sel_hi << 1);
* ds_read_b64_tr_b8 / ds_read_b64_tr_b4 (LDS transpose reads).

Each case assembles a one-wave kernel with llvm-mc-22 / ld.lld-22, runs it with `asmevo run` on random inputs
(.npy files), and compares every output word with the model. The models follow the documented layouts: the
MFMA element (row i, k) lives in lane (k // 32) * M + i as element k % 32, packed low bits first; D uses the
MFMA C/D layout (4 rows per register group); the transpose read gives lane i of each 16-lane block column i
of the E x 16 tile formed by the 16 lanes' 64-bit reads (E = 64 / element bits). The fp6/fp4 decoding and the
layouts need hardware confirmation (docs/emulator.md). Exit 0 only if every case matches.
"""
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from asm_kernel_run import assemble_and_run, report, tool_args

sys.dont_write_bytecode = True
FORMATS = {0: ("fp8", 8), 1: ("bf8", 8), 2: ("fp6", 6), 3: ("bf6", 6), 4: ("fp4", 4)}


# ---------------------------------------------------------------------------------------- element models (OCP MX)

def mx_value(code, ebits, mbits, bias, kind):
    """Value of one element code. kind: 'e4m3' (OCP FN: S.1111.111 is NaN), 'e5m2' (IEEE-like), 'mx' (no Inf/NaN)."""
    s = -1.0 if code >> (ebits + mbits) & 1 else 1.0
    e = code >> mbits & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    if kind == "e4m3" and e == 15 and m == 7:
        return math.nan
    if kind == "e5m2" and e == 31:
        return s * math.inf if m == 0 else math.nan
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mbits)
    return s * (1 + m / 2 ** mbits) * 2.0 ** (e - bias)


DECODE = {
    "fp8": np.array([mx_value(c, 4, 3, 7, "e4m3") for c in range(256)]),
    "bf8": np.array([mx_value(c, 5, 2, 15, "e5m2") for c in range(256)]),
    "fp6": np.array([mx_value(c, 2, 3, 1, "mx") for c in range(64)]),
    "bf6": np.array([mx_value(c, 3, 2, 3, "mx") for c in range(64)]),
    "fp4": np.array([mx_value(c, 2, 1, 1, "mx") for c in range(16)]),
}


def finite_codes(fmt, bits, n, rng):
    codes = rng.integers(0, 1 << bits, n)
    ok = np.isfinite(DECODE[fmt][codes])
    codes[~ok] = 0
    return codes


def pack(codes, bits, words):
    """codes[lane][e] -> words[lane][w], element e at bit e*bits (low bits first)."""
    out = np.zeros((codes.shape[0], words), dtype=np.uint64)
    for e in range(codes.shape[1]):
        bit = e * bits
        for part in range(2):
            w = bit // 32 + part
            if w >= words:
                continue
            sh = bit % 32
            v = (codes[:, e].astype(np.uint64) << np.uint64(sh)) >> np.uint64(32 * part)
            out[:, w] |= v & np.uint64(0xffffffff)
    return out.astype(np.uint32)


# ---------------------------------------------------------------------------------------------- kernel harness

def kernel_source(body, name="k", mcpu="gfx950"):
    # args: in0..in3 (u32 buffers), out (u32); lane l reads 16 dwords of each input at l*64 and writes 16 dwords.
    loads = []
    for i, base in enumerate((20, 36, 52, 68)):
        loads.append(f"  s_load_dwordx2 s[{8 + 2 * i}:{9 + 2 * i}], s[0:1], {8 * i:#x}")
    loads.append("  s_load_dwordx2 s[16:17], s[0:1], 0x20")
    loads.append("  s_waitcnt lgkmcnt(0)")
    loads.append("  v_lshlrev_b32 v1, 6, v0")  # lane * 64 bytes
    for i, base in enumerate((20, 36, 52, 68)):
        for q in range(4):
            loads.append(f"  global_load_dwordx4 v[{base + 4 * q}:{base + 4 * q + 3}], v1, s[{8 + 2 * i}:{9 + 2 * i}] offset:{16 * q}")
    loads.append("  s_waitcnt vmcnt(0)")
    stores = [f"  global_store_dwordx4 v1, v[{2 + 4 * q}:{5 + 4 * q}], s[16:17] offset:{16 * q}" for q in range(4)]
    return f"""
  .amdgcn_target "amdgcn-amd-amdhsa--{mcpu}"
  .text
  .globl {name}
  .p2align 8
  .type {name},@function
{name}:
{chr(10).join(loads)}
{body}
  s_nop 7
  s_nop 7
{chr(10).join(stores)}
  s_endpgm
.L{name}_end:
  .size {name}, .L{name}_end-{name}
  .rodata
  .p2align 6
  .amdhsa_kernel {name}
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 96
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 96
    .amdhsa_kernarg_size 40
    .amdhsa_group_segment_fixed_size 1024
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: {name}
    .symbol: {name}.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 32
    .vgpr_count: 96
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: in0, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in1, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in2, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: in3, .offset: 24, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: out, .offset: 32, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
  .end_amdgpu_metadata
"""


class Harness:
    def __init__(self, asmevo, mc, lld, mcpu="gfx950"):
        self.asmevo, self.mc, self.lld, self.mcpu = asmevo, mc, lld, mcpu
        self.dir = Path(tempfile.mkdtemp(prefix="asmevo-lowp-"))

    def run(self, body, inputs):
        """inputs: 4 arrays [64][16] of u32 (in0..in3). Returns out [64][16] u32."""
        o = assemble_and_run(self.asmevo, self.mc, self.lld, self.mcpu, self.dir, kernel_source(body, mcpu=self.mcpu), inputs, what=body)
        return np.load(o / "out.npy").reshape(64, 16)


# ----------------------------------------------------------------------------------------------- MFMA model

def mfma_model(m, fa, fb, a_codes, b_codes, c, sa=None, sb=None):
    """a_codes/b_codes: [64][32] element codes per lane; c: [64][16] f32 bits; sa/sb: per-lane E8M0 codes."""
    k_total = 64 * 32 // m
    va, vb = DECODE[FORMATS[fa][0]][a_codes], DECODE[FORMATS[fb][0]][b_codes]
    scale = lambda s: np.ones(64) if s is None else np.where(s == 255, np.nan, 2.0 ** (s.astype(np.float64) - 127))
    ga, gb = scale(sa), scale(sb)
    A = np.zeros((m, k_total)); B = np.zeros((k_total, m))
    for lane in range(64):
        i, kb = lane % m, lane // m
        A[i, 32 * kb:32 * kb + 32] = va[lane] * ga[lane]
        B[32 * kb:32 * kb + 32, i] = vb[lane] * gb[lane]
    out = c.view(np.float32).copy()
    for i in range(m):
        for j in range(m):
            s = math.fsum(A[i, k] * B[k, j] for k in range(k_total))
            reg, lane = (i // (4 * (64 // m))) * 4 + i % 4, ((i // 4) % (64 // m)) * m + j
            out[lane, reg] = np.float32(np.float64(out[lane, reg]) + s)
    return out.view(np.uint32)


def check_mfma(h, rng, m, fa, fb, scaled):
    na, nb = FORMATS[fa][1] * 32 // 32, FORMATS[fb][1] * 32 // 32  # registers
    a_codes = np.stack([finite_codes(FORMATS[fa][0], FORMATS[fa][1], 32, rng) for _ in range(64)])
    b_codes = np.stack([finite_codes(FORMATS[fb][0], FORMATS[fb][1], 32, rng) for _ in range(64)])
    in0 = np.zeros((64, 16), np.uint32); in0[:, :na] = pack(a_codes, FORMATS[fa][1], na)
    in1 = np.zeros((64, 16), np.uint32); in1[:, :nb] = pack(b_codes, FORMATS[fb][1], nb)
    c = rng.normal(0, 4, (64, 16)).astype(np.float32).view(np.uint32)
    in3 = rng.integers(118, 136, (64, 16)).astype(np.uint32)
    in3[:, 0] = in3[:, 0] | (rng.integers(118, 136, 64).astype(np.uint32) << 8) | (rng.integers(118, 136, 64).astype(np.uint32) << 16) | (rng.integers(118, 136, 64).astype(np.uint32) << 24)
    in3[:, 1] = in3[:, 1] | (rng.integers(118, 136, 64).astype(np.uint32) << 8) | (rng.integers(118, 136, 64).astype(np.uint32) << 16) | (rng.integers(118, 136, 64).astype(np.uint32) << 24)
    dregs = m * m // 64
    d = f"v[2:{1 + dregs}]"
    a = f"v[20:{19 + na}]"; b = f"v[36:{35 + nb}]"
    name = f"v_mfma_{'scale_' if scaled else ''}f32_{m}x{m}x{64 * 32 // m}_f8f6f4"
    # C comes from in2 (v[52:67]); the result is written to v[2:..] (stored as out).
    mov = "\n".join(f"  v_mov_b32 v{2 + r}, v{52 + r}" for r in range(dregs))
    if scaled:
        sel_a, sel_b = rng.integers(0, 4), rng.integers(0, 4)
        op_sel = f"op_sel:[{sel_a & 1},{sel_b & 1},0] op_sel_hi:[{sel_a >> 1},{sel_b >> 1},0]"
        body = f"{mov}\n  {name} {d}, {a}, {b}, {d}, v68, v69 {op_sel} cbsz:{fa} blgp:{fb}"
        sa = (in3[:, 0] >> (8 * sel_a)) & 0xff
        sb = (in3[:, 1] >> (8 * sel_b)) & 0xff
    else:
        body = f"{mov}\n  {name} {d}, {a}, {b}, {d} cbsz:{fa} blgp:{fb}"
        sa = sb = None
    c_in = np.zeros((64, 16), np.uint32); c_in[:, :dregs] = c[:, :dregs]
    got = h.run(body, [in0, in1, c_in, in3])[:, :dregs]
    want = mfma_model(m, fa, fb, a_codes, b_codes, c_in[:, :dregs].copy(), sa, sb)
    gf, wf = got.view(np.float32), want.view(np.float32)
    close = np.isclose(gf, wf, rtol=2e-7, atol=1e-30) | (np.isnan(gf) & np.isnan(wf))
    return bool(close.all()), f"{name} cbsz:{fa} blgp:{fb}: {int((~close).sum())} of {close.size} differ, exact {float(np.mean(got == want)):.3f}"


# --------------------------------------------------------------------------------------- transpose-read model

def tr_model(words, bits):
    """words[lane] = the 64 bits lane reads; returns the 64 bits each lane receives."""
    e_per = 64 // bits
    mask = (1 << bits) - 1
    elems = [[(int(words[l]) >> (bits * e)) & mask for e in range(e_per)] for l in range(64)]
    # The 16 lanes of a block form an e_per x 16 tile: tile[r][c] = element c % e_per of lane r * (16 // e_per) + c // e_per.
    out = []
    for l in range(64):
        blk, i = l & ~15, l & 15
        tile_col = [elems[blk + r * (16 // e_per) + i // e_per][i % e_per] for r in range(e_per)]
        out.append(sum(v << (bits * r) for r, v in enumerate(tile_col)))
    return out


def check_tr(h, rng, bits):
    data = rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)
    body = f"""  v_lshlrev_b32 v90, 3, v0
  ds_write_b64 v90, v[20:21]
  s_waitcnt lgkmcnt(0)
  ds_read_b64_tr_b{bits} v[2:3], v90
  s_waitcnt lgkmcnt(0)"""
    got = h.run(body, [data, data, data, data])[:, :2]
    words = data[:, 0].astype(np.uint64) | (data[:, 1].astype(np.uint64) << np.uint64(32))
    want = tr_model(words, bits)
    got64 = [int(got[l, 0]) | (int(got[l, 1]) << 32) for l in range(64)]
    bad = sum(g != w for g, w in zip(got64, want))
    return bad == 0, f"ds_read_b64_tr_b{bits}: {bad} of 64 lanes differ"


def main():
    a = tool_args(__doc__)
    h = Harness(a.asmevo, a.llvm_mc, a.ld_lld)
    rng = np.random.default_rng(a.seed)
    results = []
    for bits in (8, 4, 16):
        results.append(check_tr(h, rng, bits))
    for fa in range(5):
        for fb in range(5):
            results.append(check_mfma(h, rng, 16, fa, fb, False))
    for fa, fb in ((0, 0), (1, 4), (2, 3), (4, 4)):
        results.append(check_mfma(h, rng, 32, fa, fb, False))
    for m, fa, fb in ((16, 0, 0), (16, 4, 2), (32, 1, 0), (32, 3, 4)):
        results.append(check_mfma(h, rng, m, fa, fb, True))
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
