#!/usr/bin/env python3
"""Hand edits of kb_cumsum_f32 (gfx942) that measure what two moves not built yet would gain
(docs/search.md, "Issue 17, enabling chains and the six KernelBench-style kernels"): each edit is
applied to `asmevo disasm`'s listing, rebuilt, checked, verified against K0 on the corpus spec and
timed on its perf launch. All times are MODELED.

  forward   store-to-load forwarding of buf[threadIdx.x]: after each `ds_write_b32 v1, vX` a copy
            `v_mov_b32 v18, vX`; each `ds_read_b32 vY, v1` becomes `v_mov_b32 vY, v18`. Correct only
            for 1-D workgroups (the code has only the x work-item id), so a move needs a guard.
  prefetch  chunk i+1's global load issued right after chunk i's LDS write, into v19, and the loop's
            back edge entering past the header's load. Correct only when the row's x and y ranges do
            not overlap, so a move needs a run-time guard.
  both      the two together.

Usage (from the repository root, after building asmevo and the HIP corpus; about 2 min):
  bench/moves/cumsum_hand_edits.py [--asmevo out/cli/asmevo] [--work /tmp/cumsum-edits]
"""
import argparse
import os
import re
import subprocess
import sys

KERNEL = "kb_cumsum_f32"
OBJECT = "out/corpus/hip/gfx942/kb_reduce.co"
SPEC = "corpus/hip/launch/kb_cumsum_f32.yaml"


def code(line):
    return line.split("//")[0].strip()


def kernel_range(lines):
    start = next(i for i, l in enumerate(lines) if l.startswith(KERNEL + ":"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(".Lend_" + KERNEL))
    return start, end


def forward(lines):
    start, end = kernel_range(lines)
    out, copies, reads = [], 0, 0
    for i, l in enumerate(lines):
        c = code(l)
        if start < i < end and re.fullmatch(r"ds_write_b32 v1, v\d+", c):
            out += [l, "\tv_mov_b32_e32 v18, " + c.split(",")[1].strip()]
            copies += 1
        elif start < i < end and re.fullmatch(r"ds_read_b32 v\d+, v1", c):
            out.append("\tv_mov_b32_e32 %s, v18" % c.split()[1].rstrip(","))
            reads += 1
        else:
            out.append(l)
    if copies != 9 or reads != 9:
        sys.exit(f"forward: expected 9 own-word writes and reads in {KERNEL}, found {copies} and {reads}: another build of the kernel")
    return out


def prefetch(lines):
    start, end = kernel_range(lines)
    out, wait, load, latch = [], False, False, False
    for i, l in enumerate(lines):
        c = code(l)
        inside = start < i < end
        if inside and not wait and c == "s_waitcnt vmcnt(0)":
            out += [".Lpf_after:", l]
            wait = True
        elif inside and wait and not load and c == "ds_write_b32 v1, v3":
            out += [l, "\tv_add_u32_e32 v16, s18, v0", "\tv_add_u32_e32 v16, 0x100, v16", "\tv_mov_b32_e32 v19, 0",
                    "\tv_cmp_gt_i32_e64 s[24:25], s19, v16", "\ts_and_saveexec_b64 s[24:25], s[24:25]",
                    "\tv_ashrrev_i32_e32 v17, 31, v16", "\tv_lshl_add_u64 v[16:17], v[16:17], 2, s[20:21]",
                    "\tglobal_load_dword v19, v[16:17], off", "\ts_or_b64 exec, exec, s[24:25]"]
            load = True
        elif inside and not latch and re.fullmatch(r"s_cbranch_scc0 \.L_\w+", c) and code(lines[i - 1]) == "s_barrier":
            out += [l, "\tv_add_u32_e32 v2, s18, v0", "\tv_cmp_gt_i32_e64 s[16:17], s19, v2", "\ts_waitcnt vmcnt(0)",
                    "\tv_mov_b32_e32 v3, v19", "\tv_mov_b32_e32 v14, 0", "\ts_branch .Lpf_after"]
            latch = True
        else:
            out.append(l)
    if not (wait and load and latch):
        sys.exit(f"prefetch: the loop of {KERNEL} does not have the expected shape: another build of the kernel")
    return out


def run(args, what):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{what} failed (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", default="out/cli/asmevo")
    ap.add_argument("--work", default="/tmp/cumsum-edits")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    listing = run([a.asmevo, "disasm", OBJECT], "asmevo disasm").split("\n")
    variants = {"forward": forward(listing), "prefetch": prefetch(listing), "both": prefetch(forward(listing))}

    def modeled_us(obj):
        out = run([a.asmevo, "time", obj, "--kernel", KERNEL, "--launch", SPEC], "asmevo time")
        return float(re.search(r"modeled time\s+([\d.]+) us", out).group(1))

    base = modeled_us(OBJECT)
    print(f"{KERNEL} K0: {base:.3f} us modeled (perf launch)")
    for name, text in variants.items():
        src, obj = os.path.join(a.work, name + ".s"), os.path.join(a.work, name + ".co")
        with open(src, "w") as f:
            f.write("\n".join(text))
        run([a.asmevo, "rebuild", src, "-o", obj], "asmevo rebuild " + name)
        run([a.asmevo, "check", obj], "asmevo check " + name)
        verdict = run([a.asmevo, "verify", OBJECT, obj, "--launch", SPEC], "asmevo verify " + name)
        verdict = next(l for l in verdict.split("\n") if l.startswith("verdict"))
        us = modeled_us(obj)
        print(f"  {name:9s} {us:9.3f} us modeled  {base / us:.3f}x  {verdict}")


if __name__ == "__main__":
    main()
