#!/usr/bin/python3
"""Issue 15, VALU families with no public pseudo-code (or only prose), checked on the emulator against NumPy
models written from their documentation, not from emu/semantics:

* gfx950 v_cvt_scalef32_* (every mnemonic): OCP MX v1.0 element formats, E8M0 scale taken from the f32 scale's
  exponent field (AMD HIP's __amd_scale_to_float), dequantize = element * scale rounded once to the wide type,
  quantize = x / scale rounded to nearest even (the nearest representable value, found by search), fp8 overflow
  to the format's overflow value, fp4/fp6 saturating; op_sel byte/word selects as LLVM's gfx950 MC tests print them;
* stochastic rounding (v_cvt_scalef32_sr_*, v_cvt_sr_* on gfx942 and gfx950), the CDNA4 ISA's V_CVT_SR_FP8_F32
  pseudo-code: the seed's top (23 - destination mantissa) bits added to the f32 mantissa field (wrapping), then
  round to nearest even; the pk forms draw the next seed with v_prng_b32; seeds 0 and ~0, and random;
* v_smfmac_* (gfx942 and gfx950): 4:2 structured sparse A with 4-bit [idx1, idx0] groups, ABID-selected index sets;
* the small VALU units: v_maximum3/minimum3_f32, v_ashr_pk_i8/u8_i32, v_prng_b32, v_mul_legacy_f32, v_cube*,
  v_cvt_flr/rpi_i32_f32, v_cvt_pkaccum_u8_f32, v_qsad/mqsad, v_trig_preop_f64, v_pk_fmac_f16.

Each case assembles a one-wave kernel (tests/emu/lowp_reference_test.py's harness: inputs in v[20:35], v[36:51],
v[52:67], v[68:83]; v[2:17] stored), runs it with `asmevo run`, and compares every output word with the model.
What these choices need from hardware is listed in docs/emulator.md. Exit 0 only if every case matches.
"""
import math
import os
import sys
from pathlib import Path

import numpy as np

np.seterr(over="ignore", invalid="ignore")  # overflow to infinity is part of the models
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from asm_kernel_run import report, tool_args  # noqa: E402
from lowp_reference_test import Harness, mx_value  # noqa: E402

# ------------------------------------------------------------------------------------------ format models

# name: (ebits, mbits, bias, kind, total bits)
FMT = {
    "fp8": (4, 3, 7, "e4m3", 8), "bf8": (5, 2, 15, "e5m2", 8),
    "fp8n": (4, 3, 8, "fnuz", 8), "bf8n": (5, 2, 16, "fnuz", 8),  # gfx942 FNUZ
    "fp6": (2, 3, 1, "mx", 6), "bf6": (3, 2, 3, "mx", 6), "fp4": (2, 1, 1, "mx", 4),
}


def value(fmt, code):
    e, m, b, kind, n = FMT[fmt]
    if kind == "fnuz":
        if code == 0x80:
            return math.nan
        return mx_value(code, e, m, b, "mx")
    return mx_value(code, e, m, b, kind)


TABLE = {f: np.array([value(f, c) for c in range(1 << FMT[f][4])]) for f in FMT}


def encode_rne(fmt, v):
    """Nearest representable value (ties to the even code); out of range: the format's documented overflow value."""
    e, m, b, kind, n = FMT[fmt]
    sign = (1 << (n - 1)) if math.copysign(1.0, v) < 0 else 0
    vals = TABLE[fmt]
    mags = [(abs(vals[c]), c) for c in range(1 << (n - 1)) if np.isfinite(vals[c])]
    maxv, maxc = max(mags)
    if math.isnan(v):
        return 0x80 if kind == "fnuz" else (sign | maxc if kind == "mx" else sign | 0x7f)
    a = abs(v)
    overflow = {"mx": sign | maxc, "e4m3": sign | 0x7f, "e5m2": sign | 0x7c, "fnuz": 0x80}[kind]
    # the first value past max (its quantum) decides whether rounding overflows
    nxt = maxv + 2.0 ** (math.frexp(maxv)[1] - 1 - m)
    mid = (maxv + nxt) / 2
    if math.isinf(a) or a > mid or (a == mid and maxc & 1):  # past the midpoint, or a tie with an odd max code
        return overflow
    best = min(mags, key=lambda t: (abs(t[0] - a), t[1] & 1))
    code = best[1]
    if code == 0 and kind == "fnuz":
        return 0
    return sign | code


def sr_perturb(v, seed, dst_mbits):
    """The CDNA4 ISA's V_CVT_SR_FP8_F32 rule: add the seed's top (23 - m) bits to the f32 mantissa field (wrapping
    within the field, exponent kept); the caller then rounds to nearest even."""
    u = f32_bits(v)
    f = 23 - dst_mbits
    m = ((u & 0x7fffff) + (seed >> (32 - f))) & 0x7fffff
    return f32_value((u & 0xff800000) | m)


def encode_sr(fmt, v, seed):
    return encode_rne(fmt, sr_perturb(v, seed, FMT[fmt][1]))


def prng(v):
    """v_prng_b32 (CDNA4 ISA pseudo-code): D = (S0 << 1) ^ (S0[31] ? 197 : 0)."""
    return ((v << 1) & 0xffffffff) ^ (197 if v >> 31 else 0)


def f32_bits(x):
    return int(np.array(x, np.float64).astype(np.float32).view(np.uint32))


def f16_bits(x):
    return int(np.array(x, np.float64).astype(np.float16).view(np.uint16))


def bf16_bits(x):
    """RNE of an f32-exact value to bf16 (the values here have few significant bits: f32 holds them exactly)."""
    u = f32_bits(x)
    if math.isnan(x):
        return (u >> 16) | 0x40
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0xffff


WIDE = {"f32": f32_bits, "f16": f16_bits, "bf16": bf16_bits}


def half_value(kind, bits):
    if kind == "f16":
        return float(np.array(bits, np.uint16).view(np.float16))
    return float(np.array(bits << 16, np.uint32).view(np.float32))


def f32_value(bits):
    return float(np.array(bits, np.uint32).view(np.float32))


def same(got, want, wide_kind=None):
    """Bitwise equality; NaNs of a wide type compare as NaN."""
    if got == want:
        return True
    if wide_kind == "f32":
        return math.isnan(f32_value(got)) and math.isnan(f32_value(want))
    if wide_kind in ("f16", "bf16"):
        return math.isnan(half_value(wide_kind, got)) and math.isnan(half_value(wide_kind, want))
    return False


# ------------------------------------------------------------------------------------------ inputs

def scale_words(rng, n):
    """f32 scales: exponent fields around 127 plus the extremes (0, 1, 254) and NaN (255); random mantissa/sign bits."""
    e = rng.integers(118, 137, n)
    e[rng.random(n) < 0.1] = rng.choice([0, 1, 254, 255], int(np.sum(rng.random(n) < 0.1)) or 1)[0]
    return ((e.astype(np.uint64) << 23) | rng.integers(0, 1 << 23, n).astype(np.uint64) | (rng.integers(0, 2, n).astype(np.uint64) << 31)).astype(np.uint32)


def scale_of(word):
    ex = (int(word) >> 23) & 0xff
    return math.nan if ex == 255 else 2.0 ** (ex - 127)


def wide_words(rng, kind, n, spread=12):
    """Random f32/f16/bf16 values (magnitudes 2^-spread..2^spread, a few specials), as u32 (halves: one per word)."""
    vals = rng.choice([-1, 1], n) * np.exp2(rng.uniform(-spread, spread, n))
    vals[rng.random(n) < 0.05] = np.nan
    vals[rng.random(n) < 0.05] = np.inf
    vals[rng.random(n) < 0.05] = -0.0
    if kind == "f32":
        return vals.astype(np.float32).view(np.uint32)
    if kind == "f16":
        return vals.astype(np.float16).view(np.uint16).astype(np.uint32)
    f = vals.astype(np.float32).view(np.uint32)
    return (f >> 16).astype(np.uint32)  # truncated to bf16 bits


SRC_MBITS = {"f32": 23, "f16": 10, "bf16": 7}


def wide_value(kind, bits):
    return f32_value(bits) if kind == "f32" else half_value(kind, bits)


# ------------------------------------------------------------------------------------------ scaled conversions

def fmt_of(name, arch):
    f = {"fp8": "fp8", "bf8": "bf8", "fp6": "fp6", "bf6": "bf6", "fp4": "fp4"}[name]
    return f + "n" if arch == "gfx942" and f in ("fp8", "bf8") else f


def run_case(h, body, inputs):
    ins = [np.zeros((64, 16), np.uint32) for _ in range(4)]
    for k, a in inputs.items():
        ins[k] = a
    return h.run(body, ins)


def check_up(h, rng, mnem, small, wide, geometry):
    """v_cvt_scalef32_{f32,f16}_{fp8,bf8}, pk_*, pk32_*: element * scale, rounded once to the wide type."""
    n = FMT[small][4]
    in0 = rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)
    in1 = np.zeros((64, 16), np.uint32)
    in1[:, 0] = scale_words(rng, 64)
    in2 = rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)  # old destination words
    sel = int(rng.integers(0, 4))
    bad = 0
    if geometry == "one":
        dsth = int(rng.integers(0, 2))
        ops = f"op_sel:[{sel & 1},{sel >> 1},{dsth}]"
        body = f"  v_mov_b32 v2, v52\n  {mnem} v2, v20, v36 {ops}"
        got = run_case(h, body, {0: in0, 1: in1, 2: in2})
        for l in range(64):
            v = TABLE[small][(int(in0[l, 0]) >> (8 * sel)) & 0xff] * scale_of(in1[l, 0])
            w = WIDE[wide](v)
            if wide == "f16":
                old = int(in2[l, 0])
                w = (old & 0xffff) | (w << 16) if dsth else (old & 0xffff0000) | w
                ok = got[l, 0] == w or (math.isnan(half_value("f16", (int(got[l, 0]) >> (16 * dsth)) & 0xffff)) and math.isnan(v))
            else:
                ok = same(int(got[l, 0]), w, "f32")
            bad += not ok
        return bad == 0, f"{mnem} {ops}: {bad} of 64 lanes differ"
    if geometry == "pk2":
        if small == "fp4":
            ops = f"op_sel:[{sel & 1},{sel >> 1},0]"
            base = 8 * sel
        else:
            ops = f"op_sel:[{sel & 1},0,0]"
            base = 16 * (sel & 1)
        dst = "v[2:3]" if wide == "f32" else "v2"
        body = f"  {mnem} {dst}, v20, v36 {ops}"
        got = run_case(h, body, {0: in0, 1: in1})
        for l in range(64):
            for e in range(2):
                code = (int(in0[l, 0]) >> (base + e * n)) & ((1 << n) - 1)
                v = TABLE[small][code] * scale_of(in1[l, 0])
                w = WIDE[wide](v)
                g = int(got[l, e]) if wide == "f32" else (int(got[l, 0]) >> (16 * e)) & 0xffff
                bad += not same(g, w, wide)
        return bad == 0, f"{mnem} {ops}: {bad} of 128 elements differ"
    # pk32: 32 fp6/bf6 in v[20:25]; f32 results in two halves (v[2:33] then moved), halves in v[2:17]
    out = []
    if wide == "f32":
        for part in range(2):
            movs = "\n".join(f"  v_mov_b32 v{2 + r}, v{2 + 16 * part + r}" for r in range(16)) if part else ""
            got = run_case(h, f"  {mnem} v[2:33], v[20:25], v36\n{movs}", {0: in0, 1: in1})
            out.append(got)
    else:
        out.append(run_case(h, f"  {mnem} v[2:17], v[20:25], v36", {0: in0, 1: in1}))
    for l in range(64):
        bits = sum(int(in0[l, r]) << (32 * r) for r in range(6))
        for e in range(32):
            v = TABLE[small][(bits >> (6 * e)) & 63] * scale_of(in1[l, 0])
            w = WIDE[wide](v)
            if wide == "f32":
                g = int(out[e // 16][l, e % 16])
            else:
                g = (int(out[0][l, e // 2]) >> (16 * (e % 2))) & 0xffff
            bad += not same(g, w, wide)
    return bad == 0, f"{mnem}: {bad} of {64 * 32} elements differ"


def check_down(h, rng, mnem, wide, small, geometry, arch="gfx950", sr=False, scaled=True, seed_kind="random"):
    """Quantize: x / scale rounded to the small format (RNE, or stochastically with the seed)."""
    n = FMT[small][4]
    src_mbits = SRC_MBITS[wide]
    ins = {k: np.zeros((64, 16), np.uint32) for k in range(4)}
    ins[0] = wide_words(rng, wide, 64 * 16).reshape(64, 16) if wide == "f32" else None
    if wide != "f32":
        lo, hi = wide_words(rng, wide, 64 * 16).reshape(64, 16), wide_words(rng, wide, 64 * 16).reshape(64, 16)
        ins[0] = (lo | (hi << 16)).astype(np.uint32)
    ins[1] = wide_words(rng, "f32", 64 * 16).reshape(64, 16) if wide == "f32" else np.zeros((64, 16), np.uint32)
    seeds = {"zero": np.zeros(64, np.uint32), "ones": np.full(64, 0xffffffff, np.uint32)}.get(
        seed_kind, rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32))
    ins[2][:, 0] = seeds
    ins[3][:, 0] = scale_words(rng, 64)
    old = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    ins[3][:, 1] = old
    scale = lambda l: scale_of(ins[3][l, 0]) if scaled else 1.0
    src_half = lambda l, e: (int(ins[0][l, e // 2]) >> (16 * (e % 2))) & 0xffff

    lane_seed = {}

    def q(v, l, first=False):
        """v / scale rounded; stochastic forms take the lane's seed, then advance it by v_prng_b32 (pk forms)."""
        v = v / scale(l)
        if not sr:
            return encode_rne(small, v)
        if first:
            lane_seed[l] = int(seeds[l])
        c = encode_sr(small, v, lane_seed[l])
        lane_seed[l] = prng(lane_seed[l])
        return c

    bad = 0
    sel = int(rng.integers(0, 4))
    if geometry in ("pk2", "srpk2"):
        if small == "fp4":
            ops = f"op_sel:[0,0,{sel & 1},{sel >> 1}]"
        elif wide == "f32":
            ops = f"op_sel:[0,0,0,{sel & 1}]"
        else:
            ops = f"op_sel:[0,0,{sel & 1}]"
        if geometry == "srpk2":
            src = "v[20:21]" if wide == "f32" else "v20"
            body = f"  v_mov_b32 v2, v69\n  {mnem} v2, {src}, v52, v68 {ops}"
        elif wide == "f32":
            body = f"  v_mov_b32 v2, v69\n  {mnem} v2, v20, v36, v68 {ops}"
        else:
            body = f"  v_mov_b32 v2, v69\n  {mnem} v2, v20, v68 {ops}"
        got = run_case(h, body, ins)
        for l in range(64):
            if wide == "f32":
                xs = [f32_value(ins[0][l, 0]), f32_value(ins[0][l, 1] if geometry == "srpk2" else ins[1][l, 0])]
            else:
                xs = [half_value(wide, src_half(l, 0)), half_value(wide, src_half(l, 1))]
            c = [q(xs[0], l, True), q(xs[1], l)]
            o = int(old[l])
            if small == "fp4":
                want = (o & ~(0xff << (8 * sel))) | ((c[0] | c[1] << 4) << (8 * sel))
            else:
                w16 = c[0] | c[1] << 8
                want = (o & 0xffff) | (w16 << 16) if sel & 1 else (o & 0xffff0000) | w16
            if int(got[l, 0]) != want and os.environ.get("VALU_REF_DEBUG"):
                print(f"  lane {l}: inputs {xs} scale word {int(ins[3][l, 0]):#x} got {int(got[l, 0]):#010x} want {want:#010x}")
            bad += int(got[l, 0]) != want
        return bad == 0, f"{mnem} {ops}{' seed ' + seed_kind if sr else ''}: {bad} of 64 lanes differ"
    if geometry == "srone":
        ops = f"op_sel:[0,0,{sel & 1},{sel >> 1}]"
        if scaled:
            body = f"  v_mov_b32 v2, v69\n  {mnem} v2, v20, v52, v68 {ops}"
        else:
            body = f"  v_mov_b32 v2, v69\n  {mnem} v2, v20, v52 {ops}"
        got = run_case(h, body, ins)
        for l in range(64):
            x = f32_value(ins[0][l, 0]) if wide == "f32" else half_value(wide, src_half(l, 0))
            want = (int(old[l]) & ~(0xff << (8 * sel))) | (q(x, l, True) << (8 * sel))
            bad += int(got[l, 0]) != want
        return bad == 0, f"{mnem} {ops} seed {seed_kind}: {bad} of 64 lanes differ"
    # 32-element forms -> v[2:7]
    if geometry == "2xpk16":
        body = f"  {mnem} v[2:7], v[20:35], v[36:51], v68"
        # ISA: "S0 and S1 inputs are interleaved in the packed result" (element 2p from S0[p], 2p+1 from S1[p])
        xs_of = lambda l: [f32_value(ins[e % 2][l, e // 2]) for e in range(32)]
    elif geometry == "srpk32" and wide == "f32":
        body = f"  {mnem} v[2:7], v[20:51], v52, v68"
        ins[1] = wide_words(rng, "f32", 64 * 16).reshape(64, 16)
        ins[2][:, 0] = seeds  # v52 is in1's range end? no: v[20:51] = in0 and in1; the seed is v52 (in2[0])
        xs_of = lambda l: [f32_value(ins[0][l, e]) for e in range(16)] + [f32_value(ins[1][l, e]) for e in range(16)]
    elif geometry == "srpk32":
        body = f"  {mnem} v[2:7], v[20:35], v52, v68"
        xs_of = lambda l: [half_value(wide, src_half(l, e)) for e in range(32)]
    else:
        body = f"  {mnem} v[2:7], v[20:35], v68"
        xs_of = lambda l: [half_value(wide, src_half(l, e)) for e in range(32)]
    got = run_case(h, body, ins)
    for l in range(64):
        bits = 0
        for e, x in enumerate(xs_of(l)):
            bits |= q(x, l, e == 0) << (6 * e)
        want = [(bits >> (32 * r)) & 0xffffffff for r in range(6)]
        bad += any(int(got[l, r]) != want[r] for r in range(6))
    return bad == 0, f"{mnem}{' seed ' + seed_kind if sr else ''}: {bad} of 64 lanes differ"


def check_sr_half(h, rng, mnem, wide, seed_kind):
    """v_cvt_sr_f16_f32 / v_cvt_sr_bf16_f32 (gfx950): f32 -> half with stochastic rounding, other half kept."""
    x = wide_words(rng, "f32", 64, spread=20)
    seeds = {"zero": np.zeros(64, np.uint32), "ones": np.full(64, 0xffffffff, np.uint32)}.get(
        seed_kind, rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32))
    old = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    ins = {0: np.zeros((64, 16), np.uint32), 1: np.zeros((64, 16), np.uint32), 2: np.zeros((64, 16), np.uint32)}
    ins[0][:, 0], ins[1][:, 0], ins[2][:, 0] = x, seeds, old
    hi = int(rng.integers(0, 2))
    got = run_case(h, f"  v_mov_b32 v2, v52\n  {mnem} v2, v20, v36 op_sel:[0,0,{hi}]", ins)
    mb = 7 if wide == "bf16" else 10
    bad = 0
    for l in range(64):
        v = sr_perturb(f32_value(x[l]), int(seeds[l]), mb)
        w = WIDE[wide](v)
        o = int(old[l])
        want = (o & 0xffff) | (w << 16) if hi else (o & 0xffff0000) | w
        g = int(got[l, 0])
        ok = g == want or (math.isnan(v) and math.isnan(half_value(wide, (g >> (16 * hi)) & 0xffff)) and (g & (0xffff0000 >> (16 * hi))) == (want & (0xffff0000 >> (16 * hi))))
        bad += not ok
    return bad == 0, f"{mnem} seed {seed_kind}: {bad} of 64 lanes differ"


# ------------------------------------------------------------------------------------------ sparse MFMA

def check_smfmac(h, rng, arch, mnem, m, k, kind, abid):
    """D = C + A * B with A 4:2 sparse: lane (kc // Ec) * m + i holds compressed A[i][kc]; idx groups [idx1, idx0]."""
    E = k * m // 64                      # dense elements per lane (B)
    Ec = E // 2                          # compressed A elements per lane
    ebits = {"f16": 16, "bf16": 16, "i8": 8, "fp8": 8, "bf8": 8}[kind]
    na, nb = Ec * ebits // 32, E * ebits // 32
    dregs = m * m // 64
    fa = fmt_of(kind, arch) if kind in ("fp8", "bf8") else kind

    def draw(n):
        if kind in ("f16", "bf16"):
            v = rng.normal(0, 1, n)
            bits = v.astype(np.float16).view(np.uint16) if kind == "f16" else (v.astype(np.float32).view(np.uint32) >> 16)
            return bits.astype(np.uint64), np.array([half_value(kind, int(b)) for b in bits])
        if kind == "i8":
            c = rng.integers(-128, 128, n)
            return (c & 0xff).astype(np.uint64), c.astype(np.float64)
        c = rng.integers(0, 256, n)
        vals = TABLE[fa][c]
        c[~np.isfinite(vals)] = 0
        return c.astype(np.uint64), TABLE[fa][c]

    a_codes, a_vals = draw(64 * Ec)
    b_codes, b_vals = draw(64 * E)
    a_codes, a_vals, b_codes, b_vals = a_codes.reshape(64, Ec), a_vals.reshape(64, Ec), b_codes.reshape(64, E), b_vals.reshape(64, E)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    nsets = 32 // E
    idx_words = np.zeros(64, np.uint64)
    positions = np.zeros((64, Ec), int)
    for l in range(64):
        word = int(rng.integers(0, 1 << 32))
        mine = 0
        for g in range(Ec // 2):
            p0, p1 = pairs[int(rng.integers(0, 6))]
            mine |= (p0 | p1 << 2) << (4 * g)
            positions[l, 2 * g], positions[l, 2 * g + 1] = 4 * g + p0, 4 * g + p1
        sh = abid * E
        mask = ((1 << E) - 1) << sh
        idx_words[l] = (word & ~mask & 0xffffffff) | (mine << sh)

    def pack(codes, words):
        out = np.zeros((64, 16), np.uint64)
        per = 32 // ebits
        for e in range(codes.shape[1]):
            out[:, e // per] |= codes[:, e] << np.uint64(ebits * (e % per))
        return out.astype(np.uint32)

    in0, in1 = pack(a_codes, na), pack(b_codes, nb)
    out_i = kind == "i8"
    c = rng.integers(-1000, 1000, (64, 16)).astype(np.int32).view(np.uint32) if out_i else rng.normal(0, 4, (64, 16)).astype(np.float32).view(np.uint32)
    in2 = np.zeros((64, 16), np.uint32)
    in2[:, :dregs] = c[:, :dregs]
    in3 = np.zeros((64, 16), np.uint32)
    in3[:, 0] = idx_words.astype(np.uint32)
    mov = "\n".join(f"  v_mov_b32 v{2 + r}, v{52 + r}" for r in range(dregs))
    ops = f" abid:{abid}" if abid else ""
    body = f"{mov}\n  {mnem} v[2:{1 + dregs}], v[20:{19 + na}], v[36:{35 + nb}], v68{ops}"
    got = h.run(body, [in0, in1, in2, in3])[:, :dregs]
    A = np.zeros((m, k))
    B = np.zeros((k, m))
    for lane in range(64):
        i, grp = lane % m, lane // m
        for e in range(Ec):
            A[i, grp * E + positions[lane, e]] = a_vals[lane, e]
        B[grp * E:grp * E + E, i] = b_vals[lane]
    bad = 0
    for i in range(m):
        for j in range(m):
            reg, lane = (i // (4 * (64 // m))) * 4 + i % 4, ((i // 4) % (64 // m)) * m + j
            if out_i:
                want = (int(np.int64(A[i] @ B[:, j])) + int(c[lane, reg].view(np.int32))) & 0xffffffff
                bad += int(got[lane, reg]) != want
            else:
                s = math.fsum(A[i, kk] * B[kk, j] for kk in range(k))
                want = np.float32(np.float64(c[lane, reg:reg + 1].view(np.float32)[0]) + s)
                g = got[lane, reg:reg + 1].view(np.float32)[0]
                bad += not (np.isclose(g, want, rtol=2e-7, atol=1e-30))
    return bad == 0, f"{arch} {mnem}{ops}: {bad} of {m * m} outputs differ"


# ------------------------------------------------------------------------------------------ small VALU units

def check_small(h, rng, arch):
    x = wide_words(rng, "f32", 64 * 16, spread=6).reshape(64, 16)
    x[:, 3] = rng.choice([0, 0x80000000, 0x7fc00000, 0x7f800000, 0xff800000, 0x3f800000], 64)  # zeros, NaN, infs
    y = wide_words(rng, "f32", 64 * 16, spread=6).reshape(64, 16)
    ints = rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)
    ints2 = rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)
    fv = lambda a: np.array(a, np.uint32).view(np.float32).astype(np.float64)
    results = []

    def case(body, want_fn, label, nout, cmp="exact"):
        got = h.run(body, [x, y, ints, ints2])
        bad = 0
        for l in range(64):
            want = want_fn(l)
            for r in range(nout):
                g, w = int(got[l, r]), int(want[r])
                if cmp == "f32" and math.isnan(f32_value(g)) and math.isnan(f32_value(w)):
                    continue
                bad += g != w
        results.append((bad == 0, f"{arch} {label}: {bad} of {64 * nout} words differ"))

    def f32w(v):
        return f32_bits(v)

    def maximum(a, b):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if a == b == 0:
            return a if math.copysign(1, a) > 0 else b
        return max(a, b)

    def minimum(a, b):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if a == b == 0:
            return a if math.copysign(1, a) < 0 else b
        return min(a, b)

    mul_legacy = lambda a, b: 0.0 if a == 0 or b == 0 else float(np.float32(a) * np.float32(b))
    case("  v_mul_legacy_f32 v2, v20, v36\n  v_mul_legacy_f32 v3, v23, v37",
         lambda l: [f32w(mul_legacy(f32_value(x[l, 0]), f32_value(y[l, 0]))), f32w(mul_legacy(f32_value(x[l, 3]), f32_value(y[l, 1])))],
         "v_mul_legacy_f32 (0 * inf/NaN = 0)", 2, "f32")

    def cube(xx, yy, zz):
        ax, ay, az = abs(xx), abs(yy), abs(zz)
        if az >= ax and az >= ay:
            return (5.0 if zz < 0 else 4.0, -xx if zz < 0 else xx, -yy, 2 * zz)
        if ay >= ax:
            return (3.0 if yy < 0 else 2.0, xx, -zz if yy < 0 else zz, 2 * yy)
        return (1.0 if xx < 0 else 0.0, zz if xx < 0 else -zz, -yy, 2 * xx)

    cube_in = lambda l: (f32_value(x[l, 0]), f32_value(x[l, 1]), f32_value(y[l, 2]))
    if True:
        case("\n".join(f"  v_cube{n}_f32 v{2 + i}, v20, v21, v38" for i, n in enumerate(("id", "sc", "tc", "ma"))),
             lambda l: [f32w(v) for v in cube(*cube_in(l))], "v_cubeid/sc/tc/ma_f32", 4, "f32")

    def cvt_sat(v):
        if math.isnan(v):
            return 0
        return int(max(min(v, 2147483647), -2147483648)) & 0xffffffff

    case("  v_cvt_flr_i32_f32 v2, v20\n  v_cvt_rpi_i32_f32 v3, v20\n  v_cvt_flr_i32_f32 v4, v23",
         lambda l: [cvt_sat(math.floor(f32_value(x[l, 0])) if math.isfinite(f32_value(x[l, 0])) else f32_value(x[l, 0])),
                    cvt_sat(math.floor(float(np.float32(f32_value(x[l, 0])) + np.float32(0.5))) if math.isfinite(f32_value(x[l, 0])) else f32_value(x[l, 0])),
                    cvt_sat(math.floor(f32_value(x[l, 3])) if math.isfinite(f32_value(x[l, 3])) else f32_value(x[l, 3]))],
         "v_cvt_flr/rpi_i32_f32", 3)

    def u8(v):
        if math.isnan(v):
            return 0
        r = float(np.rint(v))
        return 0 if r <= 0 else 255 if r >= 255 else int(r)

    scaled = lambda l: f32_value(x[l, 0]) * 64
    x2 = x.copy()
    x2[:, 4] = (fv(x[:, 0]) * 64).astype(np.float32).view(np.uint32)
    xs_backup = x.copy()
    x[:, 4] = x2[:, 4]
    case("  v_mov_b32 v2, v52\n  v_cvt_pkaccum_u8_f32 v2, v24, v53",
         lambda l: [(int(ints[l, 0]) & ~(0xff << (8 * (int(ints[l, 1]) & 3)))) | (u8(scaled(l)) << (8 * (int(ints[l, 1]) & 3)))],
         "v_cvt_pkaccum_u8_f32", 1)
    x[:] = xs_backup

    def sad4(src, i, ref, masked):
        s = 0
        for kk in range(4):
            rb = (ref >> (8 * kk)) & 0xff
            if not masked or rb:
                s += abs(((src >> (8 * (i + kk))) & 0xff) - rb)
        return s

    def qsad(l, masked):
        a = int(ints[l, 0]) | int(ints[l, 1]) << 32
        b = int(ints[l, 2])
        c = int(ints2[l, 0]) | int(ints2[l, 1]) << 32
        d = 0
        for i in range(4):
            d |= ((((c >> (16 * i)) & 0xffff) + sad4(a, i, b, masked)) & 0xffff) << (16 * i)
        return [d & 0xffffffff, d >> 32]

    case("  v_qsad_pk_u16_u8 v[2:3], v[52:53], v54, v[68:69]\n  v_mqsad_pk_u16_u8 v[4:5], v[52:53], v54, v[68:69]",
         lambda l: qsad(l, False) + qsad(l, True), "v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8", 4)
    case("  v_mqsad_u32_u8 v[2:5], v[52:53], v54, v[68:71]",
         lambda l: [(int(ints2[l, i]) + sad4(int(ints[l, 0]) | int(ints[l, 1]) << 32, i, int(ints[l, 2]), True)) & 0xffffffff for i in range(4)],
         "v_mqsad_u32_u8", 4)

    # v_trig_preop_f64: 53-bit segments of 2/pi (computed here with Python's exact integers: pi by Machin's formula)
    P = 1500
    one = 1 << P

    def atan_inv(q):
        s, t, n, sign = 0, one // q, 1, 1
        while t:
            s += sign * (t // n)
            t //= q * q
            n += 2
            sign = -sign
        return s

    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    two_pi_bits = (2 << (2 * P)) // pi  # 2/pi with P fraction bits
    frac = lambda p: (two_pi_bits >> (P - 1 - p)) & 1 if p < 1201 else 0
    dvals = np.exp2(rng.uniform(-20, 1000, 64)) * rng.choice([-1, 1], 64)
    dvals[:4] = [1.0, 2.0 ** 60, 2.0 ** 1000, 1.7e308]
    dbits = dvals.view(np.uint64)
    segs = rng.integers(0, 32, 64).astype(np.uint32)
    xx = x.copy()
    xx[:, 6] = (dbits & 0xffffffff).astype(np.uint32)
    xx[:, 7] = (dbits >> np.uint64(32)).astype(np.uint32)
    ii = ints.copy()
    ii[:, 5] = segs

    def preop(l):
        e = (int(dbits[l]) >> 52) & 0x7ff
        shift = int(segs[l]) * 53 + (e - 1077 if e > 1077 else 0)
        seg = 0
        for j in range(53):
            seg = seg << 1 | frac(shift + j)
        scale = -53 - shift + (128 if e >= 1968 else 0)
        v = math.ldexp(seg, scale)
        b = int(np.array(v, np.float64).view(np.uint64))
        return [b & 0xffffffff, b >> 32]

    got = h.run("  v_trig_preop_f64 v[2:3], v[26:27], v57", [xx, y, ii, ints2])
    bad = sum(int(got[l, 0]) != preop(l)[0] or int(got[l, 1]) != preop(l)[1] for l in range(64))
    results.append((bad == 0, f"{arch} v_trig_preop_f64: {bad} of 64 lanes differ"))

    # v_pk_fmac_f16: both halves D = fma(S0, S1, D), rounded once to f16
    h16 = lambda a: (rng.normal(0, 2, 64 * 16).astype(np.float16).view(np.uint16).astype(np.uint32)).reshape(64, 16)
    p0, p1, p2 = h16(0) | (h16(0) << 16), h16(0) | (h16(0) << 16), h16(0) | (h16(0) << 16)

    def fmac(l):
        out = 0
        for sh in (0, 16):
            a, b, c = (half_value("f16", (int(v[l, 0]) >> sh) & 0xffff) for v in (p0, p1, p2))
            out |= f16_bits(a * b + c) << sh  # a*b exact in double; one rounding of the sum (fits in double exactly)
        return [out]

    got = h.run("  v_mov_b32 v2, v52\n  v_pk_fmac_f16 v2, v20, v36", [p0, p1, p2, ints2])
    bad = sum(int(got[l, 0]) != fmac(l)[0] for l in range(64))
    results.append((bad == 0, f"{arch} v_pk_fmac_f16: {bad} of 64 lanes differ"))

    if arch == "gfx950":
        fold = lambda f, l, cols: f(f(f32_value(x[l, cols[0]]), f32_value(y[l, cols[1]])), f32_value(x[l, cols[2]]))
        case("  v_maximum3_f32 v2, v20, v36, v23\n  v_minimum3_f32 v3, v20, v36, v23\n  v_maximum3_f32 v4, v23, v37, v21",
             lambda l: [f32w(fold(maximum, l, (0, 0, 3))), f32w(fold(minimum, l, (0, 0, 3))),
                        f32w(maximum(maximum(f32_value(x[l, 3]), f32_value(y[l, 1])), f32_value(x[l, 1])))],
             "v_maximum3_f32 / v_minimum3_f32", 3, "f32")
        sat = lambda v, lo, hi: max(lo, min(hi, v)) & 0xff
        sx = lambda w: w - (1 << 32) if w >= 1 << 31 else w
        case("  v_ashr_pk_i8_i32 v2, v52, v53, v54\n  v_ashr_pk_u8_i32 v3, v52, v53, v54",
             lambda l: [sat(sx(int(ints[l, 0])) >> (int(ints[l, 2]) & 31), -128, 127) | sat(sx(int(ints[l, 1])) >> (int(ints[l, 2]) & 31), -128, 127) << 8,
                        sat(sx(int(ints[l, 0])) >> (int(ints[l, 2]) & 31), 0, 255) | sat(sx(int(ints[l, 1])) >> (int(ints[l, 2]) & 31), 0, 255) << 8],
             "v_ashr_pk_i8_i32 / v_ashr_pk_u8_i32", 2)

        def prng(v, n):
            for _ in range(n):
                v = ((v << 1) & 0xffffffff) ^ (0xc5 if v >> 31 else 0)
            return v

        case("  v_prng_b32 v2, v52\n  v_prng_b32 v3, v2\n  v_prng_b32 v4, 0x80000000",
             lambda l: [prng(int(ints[l, 0]), 1), prng(int(ints[l, 0]), 2), prng(0x80000000, 1)], "v_prng_b32", 3)
    return results


# ------------------------------------------------------------------------------------------ driver

UP = [("f32", "fp8", "one"), ("f32", "bf8", "one"), ("f16", "fp8", "one"), ("f16", "bf8", "one")] + \
     [(w, s, "pk2") for w in ("f32", "f16", "bf16") for s in ("fp8", "bf8", "fp4")] + \
     [(w, s, "pk32") for w in ("f32", "f16", "bf16") for s in ("fp6", "bf6")]
DOWN = [(s, w, "pk2") for s in ("fp8", "bf8", "fp4") for w in ("f32", "f16", "bf16")] + \
       [(s, w, "pk32") for s in ("fp6", "bf6") for w in ("f16", "bf16")] + [(s, "f32", "2xpk16") for s in ("fp6", "bf6")]
SR = [(s, w, "srone") for s in ("fp8", "bf8") for w in ("f32", "f16", "bf16")] + [("fp4", w, "srpk2") for w in ("f32", "f16", "bf16")] + \
     [(s, w, "srpk32") for s in ("fp6", "bf6") for w in ("f32", "f16", "bf16")]


def main():
    a = tool_args(__doc__)
    h950 = Harness(a.asmevo, a.llvm_mc, a.ld_lld, "gfx950")
    h942 = Harness(a.asmevo, a.llvm_mc, a.ld_lld, "gfx942")
    h90a = Harness(a.asmevo, a.llvm_mc, a.ld_lld, "gfx90a")
    rng = np.random.default_rng(a.seed)
    results = []
    for wide, small, g in UP:
        name = {"one": f"v_cvt_scalef32_{wide}_{small}", "pk2": f"v_cvt_scalef32_pk_{wide}_{small}", "pk32": f"v_cvt_scalef32_pk32_{wide}_{small}"}[g]
        results.append(check_up(h950, rng, name, small, wide, g))
    for small, wide, g in DOWN:
        name = {"pk2": f"v_cvt_scalef32_pk_{small}_{wide}", "pk32": f"v_cvt_scalef32_pk32_{small}_{wide}", "2xpk16": f"v_cvt_scalef32_2xpk16_{small}_{wide}"}[g]
        results.append(check_down(h950, rng, name, wide, small, g))
    for small, wide, g in SR:  # every form with random seeds; the f32 forms also with seeds 0 and ~0
        name = {"srone": f"v_cvt_scalef32_sr_{small}_{wide}", "srpk2": f"v_cvt_scalef32_sr_pk_{small}_{wide}", "srpk32": f"v_cvt_scalef32_sr_pk32_{small}_{wide}"}[g]
        for seed_kind in ("random", "zero", "ones") if wide == "f32" else ("random",):
            results.append(check_down(h950, rng, name, wide, small, g, sr=True, seed_kind=seed_kind))
    for arch, h in (("gfx942", h942), ("gfx950", h950)):
        for small in ("fp8", "bf8"):
            for seed_kind in ("zero", "ones", "random"):
                ok, msg = check_down(h, rng, f"v_cvt_sr_{small}_f32", "f32", fmt_of(small, arch), "srone", arch, sr=True, scaled=False, seed_kind=seed_kind)
                results.append((ok, f"{arch} {msg}"))
    for wide in ("f16", "bf16"):
        for seed_kind in ("zero", "ones", "random"):
            results.append(check_sr_half(h950, rng, f"v_cvt_sr_{wide}_f32", wide, seed_kind))
    for arch, h, mnem, m, k, kind, abid in (
            ("gfx942", h942, "v_smfmac_f32_16x16x32_f16", 16, 32, "f16", 1),
            ("gfx942", h942, "v_smfmac_f32_32x32x16_bf16", 32, 16, "bf16", 3),
            ("gfx942", h942, "v_smfmac_i32_16x16x64_i8", 16, 64, "i8", 1),
            ("gfx942", h942, "v_smfmac_f32_32x32x32_fp8_fp8", 32, 32, "fp8", 0),
            ("gfx950", h950, "v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, "fp8", 0),
            ("gfx950", h950, "v_smfmac_f32_16x16x64_f16", 16, 64, "f16", 1),
            ("gfx950", h950, "v_smfmac_f32_32x32x32_bf16", 32, 32, "bf16", 0),
            ("gfx950", h950, "v_smfmac_i32_32x32x64_i8", 32, 64, "i8", 0)):
        results.append(check_smfmac(h, rng, arch, mnem, m, k, kind, abid))
    for arch, h in (("gfx90a", h90a), ("gfx950", h950)):
        results.extend(check_small(h, rng, arch))
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
