#!/usr/bin/env python3
"""The timing model's noise floor on one kernel: apply edits that should not change the time on
hardware (swapping independent instructions, moving one below another, an s_nop), rebuild, verify
each EQUIVALENT and time it on the spec's perf launch. Prints every edit's MODELED speedup and the
spread; wins of a search below that spread are not evidence.

  bench/moves/noise_floor.py --asmevo out/cli/asmevo --co out/corpus/hip/gfx942/kb_matmul.co \
      --kernel kb_gemm_add_relu_f32 --launch corpus/hip/launch/kb_gemm_add_relu_f32.yaml \
      --edit 'below:ds_read_b128 v[40:43], v10 offset:48|s_add_i32 s6, s6, 16' \
      --edit 'swap:v_lshl_add_u64 v[0:1], v[0:1], 0, 64|s_cmp_ge_i32 s6, s14' \
      --edit 'nop-after:v_max_f32_e32 v4, 0, v4'

Edits name instructions by their text (the first match inside the kernel): swap:A|B, below:A|B (A moved
to just after B), nop-after:A (an s_nop 0 inserted after A).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def fail(what, fix):
    sys.exit(f"error: {what}\n  fix: {fix}")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def kernel_lines(lines, kernel):
    try:
        start = lines.index(f"{kernel}:")
    except ValueError:
        fail(f"kernel {kernel} not found in the disassembly", "name a kernel of the code object")
    end = next(i for i in range(start, len(lines)) if "s_endpgm" in lines[i])
    return start, end


def find(lines, start, end, text):
    for i in range(start, end + 1):
        if lines[i].split("//")[0].strip() == text:
            return i
    fail(f"no instruction '{text}' in the kernel", "copy the instruction text from `asmevo disasm`")


def apply(lines, start, end, edit):
    kind, _, rest = edit.partition(":")
    out = list(lines)
    if kind == "swap":
        a, b = (find(lines, start, end, t) for t in rest.split("|"))
        out[a], out[b] = out[b], out[a]
    elif kind == "below":
        a_text, b_text = rest.split("|")
        a = find(lines, start, end, a_text)
        moved = out.pop(a)
        out.insert(out.index(lines[find(lines, start, end, b_text)]) + 1, moved)
    elif kind == "nop-after":
        out.insert(find(lines, start, end, rest) + 1, "\ts_nop 0")
    else:
        fail(f"unknown edit kind '{kind}' in '{edit}'", "use swap:A|B, below:A|B or nop-after:A")
    return out


def modeled_cycles(asmevo, co, kernel, launch):
    r = run([asmevo, "time", co, "--kernel", kernel, "--launch", launch])
    m = re.search(r"modeled time\s+([\d.]+) us \((\d+) cycles\)", r.stdout)
    if r.returncode or not m:
        fail(f"asmevo time failed on {co}: {r.stderr.strip() or r.stdout.strip()}", "check the launch spec")
    return float(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", required=True)
    ap.add_argument("--co", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--launch", required=True)
    ap.add_argument("--edit", action="append", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = run([args.asmevo, "disasm", args.co])
        if r.returncode:
            fail(f"asmevo disasm failed: {r.stderr.strip()}", "give a gfx90a/gfx942/gfx950 code object")
        lines = r.stdout.split("\n")
        start, end = kernel_lines(lines, args.kernel)
        k0_us, k0_cycles = modeled_cycles(args.asmevo, args.co, args.kernel, args.launch)
        print(f"{args.kernel}: K0 {k0_us:.3f} us ({k0_cycles} cycles), all figures MODELED on the first perf launch")
        speedups = []
        for n, edit in enumerate(args.edit):
            src, co = os.path.join(tmp, f"e{n}.s"), os.path.join(tmp, f"e{n}.co")
            with open(src, "w") as f:
                f.write("\n".join(apply(lines, start, end, edit)))
            if run([args.asmevo, "rebuild", src, "-o", co]).returncode:
                print(f"  {edit}: does not rebuild")
                continue
            v = run([args.asmevo, "verify", args.co, co, "--launch", args.launch])
            verdict = next((l.split(":")[1].strip() for l in v.stdout.split("\n") if l.startswith("verdict:")), "no verdict")
            us, cycles = modeled_cycles(args.asmevo, co, args.kernel, args.launch)
            s = k0_cycles / cycles
            if verdict == "EQUIVALENT":
                speedups.append(s)
            print(f"  {s:.4f}x  {us:.3f} us  {verdict:<11} {edit}")
        if speedups:
            print(f"spread of the EQUIVALENT edits: {min(speedups):.4f}x .. {max(speedups):.4f}x over {len(speedups)} edits")


if __name__ == "__main__":
    main()
