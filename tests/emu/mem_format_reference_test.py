#!/usr/bin/python3
"""Issue 15, memory families: the emulator against NumPy models written from the documentation (not from
emu/semantics):

* buffer_load/store_format_* and tbuffer_load/store_format_* (+ d16): the data-format and number-format tables
  (Vega/CDNA ISA "Buffer Resource", as CLRX's GcnMemHandling.md restates them: components from the lowest bit,
  UNORM x/(2^n-1), SNORM max(sx/(2^(n-1)-1), -1), USCALED/SSCALED, UINT/SINT, FLOAT 32/16/packed 11-10 bit;
  missing components (0, 0, 0, 1); V# DST_SEL for buffer_*; range checking all or nothing); stores clamp and round
  to nearest even (UNORM/SNORM) or keep the low bits (UINT/SINT);
* global_load_lds_* / scratch_load_lds_* (LDS DMA): LLVM AMDGPUUsage "AMDGPU DMA Operations": the element goes to
  LDS at M0 + offset + 4 * lane (16 * lane for 12/16-byte loads), sub-dword elements extended to a dword;
* ds_read_b96_tr_b6 (gfx950): the transpose-read rule with 16 6-bit elements per lane (lane i of each 16-lane
  block gets element i of lanes 0..15 of the block);
* reads inside a buffer's guard zone (a global load, and a buffer load in range of its V# only by soffset) do not
  stop `asmevo run`, which lists them (`--json` out_of_bounds).

Each case assembles a one-wave kernel with llvm-mc-22 / ld.lld-22, runs `asmevo run` on seeded random inputs,
and compares every output word with the model. Exit 0 only if every case matches.
"""
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

from asm_kernel_run import assemble_and_run, report, tool_args

sys.dont_write_bytecode = True

# Data formats: DATA_FORMAT code -> (name, component bit widths from the lowest bit).
DFMT = {1: ("8", [8]), 2: ("16", [16]), 3: ("8_8", [8, 8]), 4: ("32", [32]), 5: ("16_16", [16, 16]),
        6: ("10_11_11", [11, 11, 10]), 7: ("11_11_10", [10, 11, 11]), 8: ("10_10_10_2", [2, 10, 10, 10]),
        9: ("2_10_10_10", [10, 10, 10, 2]), 10: ("8_8_8_8", [8, 8, 8, 8]), 11: ("32_32", [32, 32]),
        12: ("16_16_16_16", [16] * 4), 13: ("32_32_32", [32] * 3), 14: ("32_32_32_32", [32] * 4)}
NFMT = {0: "UNORM", 1: "SNORM", 2: "USCALED", 3: "SSCALED", 4: "UINT", 5: "SINT", 7: "FLOAT"}
COMPS = {1: "x", 2: "xy", 3: "xyz", 4: "xyzw"}


def f32_bits(x):
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def bits_f32(b):
    return float(np.array(b, dtype=np.uint32).view(np.float32))


def sext(x, n):
    return x - (1 << n) if x >> (n - 1) & 1 else x


def ufloat(x, mbits):
    e, m = x >> mbits, x & ((1 << mbits) - 1)
    if e == 31:
        return math.nan if m else math.inf
    if e == 0:
        return m * 2.0 ** (-14 - mbits)
    return (1 + m / 2 ** mbits) * 2.0 ** (e - 15)


def decode(x, n, nf):
    """The 32-bit register value of an n-bit component x under number format nf."""
    if nf == 0:
        return f32_bits(np.float32(np.float64(x) / (2 ** n - 1)))
    if nf == 1:
        return f32_bits(np.float32(max(np.float64(sext(x, n)) / (2 ** (n - 1) - 1), -1.0)))
    if nf == 2:
        return f32_bits(np.float32(x))
    if nf == 3:
        return f32_bits(np.float32(sext(x, n)))
    if nf == 4:
        return x
    if nf == 5:
        return sext(x, n) & 0xffffffff
    if n == 32:
        return x
    if n == 16:
        return f32_bits(np.array(x, np.uint16).view(np.float16).astype(np.float32))
    return f32_bits(np.float32(ufloat(x, n - 5)))


def encode(v, n, nf):
    """The n-bit field a store writes for register value v (f32 bits or integer)."""
    mask = (1 << n) - 1
    x = bits_f32(v)
    if nf in (0, 1):
        lo, scale = (0.0, 2 ** n - 1) if nf == 0 else (-1.0, 2 ** (n - 1) - 1)
        c = 0.0 if math.isnan(x) else min(max(x, lo), 1.0)
        return int(np.rint(c * scale)) & mask
    if nf in (4, 5):
        return v & mask
    return v if n == 32 else int(np.array(x, np.float32).astype(np.float16).view(np.uint16))


def one(nf):
    return 1 if nf in (4, 5) else f32_bits(1.0)


def half(v, nf):
    """A d16 load's 16-bit value of register value v."""
    return v & 0xffff if nf in (4, 5) else int(np.array(bits_f32(v), np.float32).astype(np.float16).view(np.uint16))


# ---------------------------------------------------------------------------------------------- kernel harness

def kernel_source(arch, body, lds=4096, scratch=0):
    loads = [f"  s_load_dwordx2 s[{8 + 2 * i}:{9 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(5)]
    return f"""
  .amdgcn_target "amdgcn-amd-amdhsa--{arch}"
  .text
  .globl k
  .p2align 8
  .type k,@function
k:
{chr(10).join(loads)}
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 6, v0
  v_mov_b32 v91, 0
{chr(10).join(f"  v_mov_b32 v{2 + r}, 0" for r in range(16))}
{body}
  s_nop 7
{chr(10).join(f"  global_store_dwordx4 v1, v[{2 + 4 * q}:{5 + 4 * q}], s[16:17] offset:{16 * q}" for q in range(4))}
  s_endpgm
.Lk_end:
  .size k, .Lk_end-k
  .rodata
  .p2align 6
  .amdhsa_kernel k
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_next_free_vgpr 96
    .amdhsa_next_free_sgpr 40
    .amdhsa_accum_offset 96
    .amdhsa_kernarg_size 40
    .amdhsa_group_segment_fixed_size {lds}
    .amdhsa_private_segment_fixed_size {scratch}{chr(10) + "    .amdhsa_enable_private_segment 1" if scratch else ""}
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: {lds}
    .private_segment_fixed_size: {scratch}
    .wavefront_size: 64
    .sgpr_count: 40
    .vgpr_count: 96
    .max_flat_workgroup_size: 64
    .args:
{chr(10).join(f"      - {{ .name: in{i}, .offset: {8 * i}, .size: 8, .value_kind: global_buffer, .address_space: global }}" for i in range(4))}
      - {{ .name: out, .offset: 32, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
  .end_amdgpu_metadata
"""


class Harness:
    """in0..in2: inputs, in3: in/out (format stores), out: v[2:17] of every lane. Each u32 x 1024."""

    def __init__(self, asmevo, mc, lld):
        self.asmevo, self.mc, self.lld = asmevo, mc, lld
        self.dir = Path(tempfile.mkdtemp(prefix="asmevo-memfmt-"))

    def run(self, arch, body, inputs, lds=4096, scratch=0):
        o = assemble_and_run(self.asmevo, self.mc, self.lld, arch, self.dir, kernel_source(arch, body, lds, scratch), inputs, inout=(3,),
                             what=body)
        return np.load(o / "out.npy").reshape(64, 16), np.load(o / "in3.npy").reshape(-1)


def vsharp(base_pair, word3, num_records, sgpr=20):
    """SGPRs s[sgpr:sgpr+3] = a raw-buffer V# (stride 0) over the buffer at s[base_pair:base_pair+1]."""
    return f"""  s_mov_b32 s{sgpr}, s{base_pair}
  s_and_b32 s{sgpr + 1}, s{base_pair + 1}, 0xffff
  s_mov_b32 s{sgpr + 2}, {num_records}
  s_mov_b32 s{sgpr + 3}, {word3:#x}"""


def random_inputs(rng):
    return [rng.integers(0, 1 << 32, 1024, dtype=np.uint64).astype(np.uint32) for _ in range(4)]


# --------------------------------------------------------------------------------------------- format loads

def element_bits(raw_bytes, off, nbytes):
    return int.from_bytes(bytes(raw_bytes[off:off + nbytes]), "little")


def load_model(mem, lane_off, num_records, dfmt, nfmt, n, d16, hi, dst_sel):
    widths = DFMT[dfmt][1]
    nbytes = (sum(widths) + 7) // 8
    raw = bytearray(16)
    for o in range(0, nbytes, 4):  # all or nothing (ISA "Range Checking"): the element must end within num_records
        size = min(nbytes, 4)
        if lane_off + nbytes <= num_records:
            raw[o:o + size] = bytes(mem[lane_off + o:lane_off + o + size])
    x = int.from_bytes(bytes(raw), "little")
    comp, at = [0, 0, 0, one(nfmt)], 0
    for c, w in enumerate(widths):
        comp[c] = decode((x >> at) & ((1 << w) - 1), w, nfmt)
        at += w
    vals = []
    for c in range(n):
        sel = dst_sel >> (3 * c) & 7
        vals.append(0 if sel == 0 else one(nfmt) if sel == 1 else comp[sel - 4])
    return vals


def check_load(h, rng, arch, dfmt, nfmt, n, tbuffer, d16=False, hi=False, dst_sel=None):
    ins = random_inputs(rng)
    mem = ins[0].view(np.uint8)
    if nfmt == 7 and DFMT[dfmt][1][0] == 16:  # avoid f16 NaN payload questions: finite halves only
        h16 = rng.normal(0, 8, 2048).astype(np.float16).view(np.uint16)
        ins[0] = h16.view(np.uint32).copy()
        mem = ins[0].view(np.uint8)
    num_records = 902  # lane 56's element ends past it for formats over 6 bytes (all or nothing), lanes 57.. are out
    dst_sel = dst_sel if dst_sel is not None else (4 | 5 << 3 | 6 << 6 | 7 << 9)
    word3 = dst_sel | nfmt << 12 | dfmt << 15
    kind = ("d16_hi_" if hi else "d16_" if d16 else "") + COMPS[n]
    regs = (n + (1 if hi else 0) + 1) // 2 if d16 else n
    vd = f"v[2:{1 + regs}]" if regs > 1 else "v2"
    fmt_mod = f" format:[BUF_DATA_FORMAT_{DFMT[dfmt][0]},BUF_NUM_FORMAT_{NFMT[nfmt]}]" if tbuffer else ""
    op = f"{'t' if tbuffer else ''}buffer_load_format_{kind}"
    body = f"""{vsharp(8, 0 if tbuffer else word3, num_records)}
  v_lshlrev_b32 v90, 4, v0
  global_load_dwordx4 v[2:5], v1, s[10:11]
  s_waitcnt vmcnt(0)
  {op} {vd}, v90, s[20:23], 0{fmt_mod} offen
  s_waitcnt vmcnt(0)"""
    got, _ = h.run(arch, body, ins)
    before = ins[1].reshape(64, 16)
    bad = 0
    for lane in range(64):
        vals = load_model(mem, lane * 16, num_records, dfmt, nfmt, n, d16, hi, dst_sel if not tbuffer else (4 | 5 << 3 | 6 << 6 | 7 << 9))
        want = [int(before[lane, r]) for r in range(regs)]
        if d16:
            for c, v in enumerate(vals):
                r, hf = divmod(c + (1 if hi else 0), 2)
                hv = half(v, nfmt)
                want[r] = (want[r] & 0xffff) | hv << 16 if hf else (want[r] & 0xffff0000) | hv
        else:
            want = vals
        bad += any(int(got[lane, r]) != want[r] for r in range(regs))
    return bad == 0, f"{arch} {op} {DFMT[dfmt][0]} {NFMT[nfmt]}{' dst_sel %#x' % dst_sel if not tbuffer else ''}: {bad} of 64 lanes differ"


# -------------------------------------------------------------------------------------------- format stores

def store_values(rng, nfmt, d16):
    if nfmt in (4, 5):
        return rng.integers(0, 1 << 32, (64, 16), dtype=np.uint64).astype(np.uint32)
    x = rng.normal(0, 1.5, (64, 32 if d16 else 16)).astype(np.float32)
    x[::7, 0] = np.nan
    x[::5, 1] = 1.0
    x[::9, 1] = -1.0
    if d16:  # two halves per dword, element 2k in the low half
        return np.ascontiguousarray(x.astype(np.float16)).view(np.uint32).reshape(64, 16).copy()
    return x.view(np.uint32)


def check_store(h, rng, arch, dfmt, nfmt, n, tbuffer, d16=False, hi=False):
    ins = random_inputs(rng)
    vals = store_values(rng, nfmt, d16)
    ins[1] = vals.reshape(-1).copy()
    num_records = 902
    word3 = (4 | 5 << 3 | 6 << 6 | 7 << 9) | nfmt << 12 | dfmt << 15
    kind = ("d16_hi_" if hi else "d16_" if d16 else "") + COMPS[n]
    regs = (n + (1 if hi else 0) + 1) // 2 if d16 else n
    vd = f"v[2:{1 + regs}]" if regs > 1 else "v2"
    fmt_mod = f" format:[BUF_DATA_FORMAT_{DFMT[dfmt][0]},BUF_NUM_FORMAT_{NFMT[nfmt]}]" if tbuffer else ""
    op = f"{'t' if tbuffer else ''}buffer_store_format_{kind}"
    body = f"""{vsharp(14, 0 if tbuffer else word3, num_records)}
  v_lshlrev_b32 v90, 4, v0
  global_load_dwordx4 v[2:5], v1, s[10:11]
  s_waitcnt vmcnt(0)
  {op} {vd}, v90, s[20:23], 0{fmt_mod} offen
  s_waitcnt vmcnt(0)"""
    _, mem_after = h.run(arch, body, ins)
    want = bytearray(ins[3].view(np.uint8).tobytes())
    widths = DFMT[dfmt][1]
    nbytes = (sum(widths) + 7) // 8
    for lane in range(64):
        x, at = 0, 0
        for c, w in enumerate(widths):
            if d16:
                r, hf = divmod(c + (1 if hi else 0), 2)
                hv = int(vals[lane, r]) >> (16 * hf) & 0xffff
                v = hv if nfmt in (4, 5) else f32_bits(np.array(hv, np.uint16).view(np.float16).astype(np.float32))
            else:
                v = int(vals[lane, c])
            x |= encode(v, w, nfmt) << at
            at += w
        b = x.to_bytes(16, "little")
        for o in range(0, nbytes, 4):
            size = min(nbytes, 4)
            if lane * 16 + nbytes <= num_records:
                want[lane * 16 + o:lane * 16 + o + size] = b[o:o + size]
    got = mem_after.view(np.uint8).tobytes()
    bad = sum(got[i] != want[i] for i in range(len(want)))
    return bad == 0, f"{arch} {op} {DFMT[dfmt][0]} {NFMT[nfmt]}: {bad} of {len(want)} bytes differ"


# ----------------------------------------------------------------------------------------------- LDS DMA

def check_lds_dma(h, rng, arch, op, nbytes, signed, scratch=False):
    """op: global_load_lds_<op> / scratch_load_lds_<op>; lanes with odd ids masked off by EXEC."""
    ins = random_inputs(rng)
    m0, off = 64, 8
    stride = 16 if nbytes > 4 else 4
    src_step = {1: 3, 2: 2}.get(nbytes, nbytes if nbytes > 4 else 4)
    clear = "\n".join(f"  ds_write_b128 v1, v[92:95] offset:{16 * q}" for q in range(4))
    if scratch:  # copy in0's bytes into each lane's private memory first (scratch_store_dword per dword)
        prep = "\n".join(f"  global_load_dword v89, v88, s[8:9] offset:{4 * k}\n  s_waitcnt vmcnt(0)\n  scratch_store_dword off, v89, off offset:{4 * k}"
                         for k in range(6))
        load = f"  s_mov_b32 m0, {m0}\n  s_mov_b32 exec_lo, 0x55555555\n  s_mov_b32 exec_hi, 0x55555555\n  scratch_load_lds_{op} off, off offset:{off}\n  s_mov_b64 exec, -1"
        prep = "  v_mul_u32_u24 v88, 24, v0\n" + prep
    else:
        prep = f"  v_mul_u32_u24 v90, {src_step}, v0"
        load = f"  s_mov_b32 m0, {m0}\n  s_mov_b32 exec_lo, 0x55555555\n  s_mov_b32 exec_hi, 0x55555555\n  global_load_lds_{op} v90, s[8:9] offset:{off}\n  s_mov_b64 exec, -1"
    body = f"""  v_mov_b32 v92, 0
  v_mov_b32 v93, 0
  v_mov_b32 v94, 0
  v_mov_b32 v95, 0
{clear}
  s_waitcnt lgkmcnt(0)
{prep}
{load}
  s_waitcnt vmcnt(0)
{chr(10).join(f"  ds_read_b128 v[{2 + 4 * q}:{5 + 4 * q}], v1 offset:{16 * q}" for q in range(4))}
  s_waitcnt lgkmcnt(0)"""
    got, _ = h.run(arch, body, ins, lds=4096, scratch=32 if scratch else 0)
    src = ins[0].view(np.uint8)
    lds = bytearray(4096)
    for lane in range(0, 64, 2):
        a = 24 * lane if scratch else lane * src_step  # the lane's source bytes (private copy for scratch)
        data = bytes(src[a + off:a + off + nbytes])
        if nbytes < 4:
            v = int.from_bytes(data, "little")
            if signed:
                v = sext(v, 8 * nbytes) & 0xffffffff
            data = v.to_bytes(4, "little")
        at = m0 + off + stride * lane
        lds[at:at + len(data)] = data
    want = np.frombuffer(bytes(lds), np.uint32).reshape(64, 16)
    bad = int((got != want).sum())
    return bad == 0, f"{arch} {'scratch' if scratch else 'global'}_load_lds_{op}: {bad} of 1024 LDS dwords differ"


# --------------------------------------------------------------------------------------- transpose read b6

def check_tr_b6(h, rng):
    ins = random_inputs(rng)
    body = """  v_mul_u32_u24 v90, 12, v0
  global_load_dwordx3 v[20:22], v1, s[8:9]
  s_waitcnt vmcnt(0)
  ds_write_b96 v90, v[20:22]
  s_waitcnt lgkmcnt(0)
  ds_read_b96_tr_b6 v[2:4], v90
  s_waitcnt lgkmcnt(0)"""
    got, _ = h.run("gfx950", body, ins)
    data = ins[0].reshape(64, 16)
    words = [int(data[l, 0]) | int(data[l, 1]) << 32 | int(data[l, 2]) << 64 for l in range(64)]
    bad = 0
    for l in range(64):
        blk, i = l & ~15, l & 15
        want = sum(((words[blk + r] >> (6 * i)) & 63) << (6 * r) for r in range(16))
        g = int(got[l, 0]) | int(got[l, 1]) << 32 | int(got[l, 2]) << 64
        bad += g != want
    return bad == 0, f"gfx950 ds_read_b96_tr_b6: {bad} of 64 lanes differ"


# ------------------------------------------------------------------------------- over-reads `asmevo run` lists

def check_guard_reads(h, rng):
    """Reads inside in0's guard zone (the 256 bytes after its 4096) do not stop the run; `asmevo run --json`
    lists them: a global load at 4100, and a buffer load in range of its V# (num_records 4108) only by soffset."""
    body = f"""{vsharp(8, 0x27000, 4108)}
  s_movk_i32 s30, 0x1000
  v_mov_b32 v92, 0x1004
  global_load_dword v2, v92, s[8:9]
  buffer_load_dword v3, v91, s[20:23], s30 offen offset:8
  s_waitcnt vmcnt(0)"""
    o = assemble_and_run(h.asmevo, h.mc, h.lld, "gfx942", h.dir, kernel_source("gfx942", body), random_inputs(rng), inout=(3,),
                         what=body)
    oob = json.loads((o / "run.json").read_text())["out_of_bounds"]
    got = sorted((a["instruction"].split()[0], a["lowest"], a["highest"], a["lane_accesses"], a["write"]) for a in oob
                 if "in0" in a["region"])
    want = [("buffer_load_dword", 4104, 4108, 64, False), ("global_load_dword", 4100, 4104, 64, False)]
    return got == want, f"gfx942 reads in a guard zone listed by asmevo run: {got} (want {want})"


def main():
    a = tool_args(__doc__)
    h = Harness(a.asmevo, a.llvm_mc, a.ld_lld)
    rng = np.random.default_rng(a.seed)
    results = []
    # Loads: every data format with a number format it supports, buffer (V#) and tbuffer (instruction) forms.
    loads = [(1, 0, 1), (1, 5, 1), (2, 1, 1), (2, 7, 1), (3, 4, 2), (3, 3, 2), (4, 7, 1), (4, 2, 1), (5, 0, 2),
             (5, 7, 2), (6, 7, 3), (7, 7, 3), (8, 0, 4), (9, 1, 4), (9, 4, 4), (10, 0, 4), (10, 5, 4), (11, 7, 2),
             (12, 1, 4), (12, 7, 4), (13, 4, 3), (14, 7, 4)]
    for i, (df, nf, n) in enumerate(loads):
        results.append(check_load(h, rng, ("gfx90a", "gfx942", "gfx950")[i % 3], df, nf, n, tbuffer=i % 2 == 1))
    results.append(check_load(h, rng, "gfx942", 10, 0, 4, False, dst_sel=7 | 6 << 3 | 1 << 6 | 0 << 9))  # swizzled selects
    results.append(check_load(h, rng, "gfx942", 4, 7, 4, False))  # Y, Z, W missing: 0, 0, 1.0
    results.append(check_load(h, rng, "gfx950", 10, 0, 3, False, d16=True))
    results.append(check_load(h, rng, "gfx950", 12, 7, 4, True, d16=True))
    results.append(check_load(h, rng, "gfx90a", 2, 7, 1, False, d16=True, hi=True))
    # Stores.
    stores = [(1, 0, 1), (2, 1, 1), (3, 4, 2), (4, 7, 1), (5, 5, 2), (8, 0, 4), (9, 1, 4), (10, 0, 4), (10, 5, 4),
              (11, 4, 2), (12, 7, 4), (13, 7, 3), (14, 4, 4)]
    for i, (df, nf, n) in enumerate(stores):
        results.append(check_store(h, rng, ("gfx942", "gfx950", "gfx90a")[i % 3], df, nf, n, tbuffer=i % 2 == 0))
    results.append(check_store(h, rng, "gfx942", 12, 1, 4, False, d16=True))
    results.append(check_store(h, rng, "gfx950", 5, 7, 2, True, d16=True))
    results.append(check_store(h, rng, "gfx90a", 2, 7, 1, False, d16=True, hi=True))
    # LDS DMA.
    for arch in ("gfx942", "gfx950"):
        results.append(check_lds_dma(h, rng, arch, "dword", 4, False))
        results.append(check_lds_dma(h, rng, arch, "ubyte", 1, False))
        results.append(check_lds_dma(h, rng, arch, "sbyte", 1, True))
        results.append(check_lds_dma(h, rng, arch, "ushort", 2, False))
        results.append(check_lds_dma(h, rng, arch, "sshort", 2, True))
        results.append(check_lds_dma(h, rng, arch, "dword", 4, False, scratch=True))
        results.append(check_lds_dma(h, rng, arch, "sshort", 2, True, scratch=True))
    results.append(check_lds_dma(h, rng, "gfx950", "dwordx4", 16, False))
    results.append(check_lds_dma(h, rng, "gfx950", "dwordx3", 12, False))
    results.append(check_tr_b6(h, rng))
    results.append(check_guard_reads(h, rng))
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
