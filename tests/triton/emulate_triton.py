#!/usr/bin/python3
"""Runs the Triton corpus (corpus/triton) on AsmEvo's emulator and checks every output against the NumPy
reference (corpus/triton/reference.py) with the reference's per-output tolerance.

For each (kernel, arch) of corpus/triton/manifest.json (or the ones picked with --kernel/--arch) and each seed
(the launch spec's seed plus fresh random ones, or --seeds), it writes a copy of the launch spec with that
`seed:`, runs `asmevo run FILE --launch SPEC --out DIR --inputs-out DIR`, loads the buffers as they were
before the run (inputs) and after it (outputs), calls the reference on the inputs and compares:

* every buffer the reference returns: |got - want| <= atol + rtol * |want| elementwise (NaN only where the
  reference has NaN); integer outputs use (0, 0), i.e. exact;
* every other buffer: bit-identical to its input (the kernel must not write it).

One line per (kernel, arch, seed):
  MATCH        all outputs within tolerance, all read-only buffers unchanged
  MISMATCH     first failing index with got/want, count of failing elements, max abs error
  UNSUPPORTED  the emulator stopped on an instruction (or form) it does not implement: its message
  ERROR        anything else (memory fault, waitcnt violation, launch-spec error, crash, timeout, ...)

Exit status 0 only if every case MATCHes (--allow-unsupported: MATCH or UNSUPPORTED); 1 otherwise; 2 for
bad usage. Needs NumPy and PyYAML (Debian's python3-numpy, python3-yaml).
"""
import argparse
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

sys.dont_write_bytecode = True  # keep corpus/triton free of __pycache__

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "corpus" / "triton"

# Messages of `asmevo run` that mean "the emulator lacks an instruction, form or modifier" (docs/emulator.md).
UNSUPPORTED_PATTERNS = [
    r"unsupported instruction",
    r"is not supported by the emulator",
    r"not implemented",
    r"unknown modifier",
    r"unsupported (CBSZ|BLGP)",
]


def load_reference(corpus):
    sys.path.insert(0, str(corpus))
    try:
        import reference  # noqa: E402  (corpus/triton/reference.py)
    finally:
        sys.path.pop(0)
    return reference


def to_values(raw, dtype, ref):
    """A buffer's raw .npy contents -> the values the reference works with (float32 or int64)."""
    if dtype == "f32" or dtype == "f64" or dtype == "f16":
        return raw.astype(np.float32) if dtype != "f64" else raw.astype(np.float64)
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if dtype.startswith("fp8"):
        if dtype not in ref.FP8_FORMATS:
            raise ValueError(f"no fp8 decoder for {dtype} in reference.py")
        return ref.fp8_decode(raw.astype(np.uint8), dtype)
    if dtype[0] in "iu":
        return raw.astype(np.int64)
    raise ValueError(f"unknown buffer dtype {dtype}")


def scalar_value(a):
    """A launch-spec scalar as the kernel receives it (f32/f16 rounded), as a Python number."""
    t, v = a["type"], a["value"]
    if t == "f32":
        return float(np.float32(v))
    if t == "f16":
        return float(np.float16(v))
    if t == "bf16":  # round to nearest even, as the launch-spec parser does
        u = int(np.array([v], dtype=np.float32).view(np.uint32)[0])
        u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
        return float(np.array([u & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0])
    if t == "f64":
        return float(v)
    return int(v)


def spec_with_seed(spec_text, spec_path, seed):
    """The launch spec's text with `seed: <seed>`; relative `file:` inits made absolute (the copy lives elsewhere)."""
    text, n = re.subn(r"(?m)^seed:\s*\S+\s*$", f"seed: {seed}", spec_text)
    if n == 0:
        text = re.sub(r"(?m)^(kernel:.*)$", lambda m: m.group(1) + f"\nseed: {seed}", text, count=1)
    base = spec_path.parent

    def absolute(m):
        p = Path(m.group(2))
        return m.group(1) + (str(p) if p.is_absolute() else str((base / p).resolve()))

    return re.sub(r"(\bfile:\s*)([^,}\s]+)", absolute, text)


def first_message(stderr):
    lines = [l.strip() for l in stderr.strip().splitlines() if l.strip()]
    return " | ".join(lines[:3]) if lines else "(no message)"


def compare(name, got, want, tol):
    """None if within tolerance, else a description of the first failure."""
    got = np.asarray(got).ravel()
    want = np.asarray(want).ravel()
    if got.size != want.size:
        return f"{name}: size {got.size}, reference {want.size}"
    atol, rtol = tol
    if np.issubdtype(want.dtype, np.integer) and np.issubdtype(got.dtype, np.integer) and atol == 0 and rtol == 0:
        bad = got != want
        err = np.abs(got.astype(np.int64) - want.astype(np.int64))
    else:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g - w)
            ok = err <= atol + rtol * np.abs(w)
        ok |= np.isnan(g) & np.isnan(w)
        ok |= np.isinf(g) & np.isinf(w) & (np.sign(g) == np.sign(w))
        bad = ~ok
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    with np.errstate(invalid="ignore"):
        maxerr = np.nanmax(np.where(bad, err, 0)) if err.dtype.kind == "f" else int(err[bad].max())
    return (f"{name}[{i}]: got {got[i]!r}, want {want[i]!r} (atol {atol}, rtol {rtol}); "
            f"{int(bad.sum())} of {bad.size} elements differ, max |err| {maxerr:.6g}")


def run_case(args, ref, kernel, arch, seed, spec, spec_text, spec_path, workdir):
    hsaco = args.corpus / arch / f"{kernel}.hsaco"
    case_dir = workdir / f"{kernel}.{arch}.seed{seed}"
    case_dir.mkdir(parents=True, exist_ok=True)
    sp = case_dir / "launch.yaml"
    sp.write_text(spec_with_seed(spec_text, spec_path, seed))
    in_dir, out_dir = case_dir / "in", case_dir / "out"
    cmd = [str(args.asmevo), "run", str(hsaco), "--kernel", kernel, "--launch", str(sp),
           "--out", str(out_dir), "--inputs-out", str(in_dir), "--json"]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "ERROR", f"asmevo run timed out after {args.timeout} s"
    if p.returncode != 0:
        msg = first_message(p.stderr or p.stdout)
        if any(re.search(pat, p.stderr) for pat in UNSUPPORTED_PATTERNS):
            return "UNSUPPORTED", msg
        return "ERROR", f"asmevo run exit {p.returncode}: {msg}"

    try:
        summary = json.loads(p.stdout)
        ref_args, raw_in, raw_out, dtypes = {}, {}, {}, {}
        for i, a in enumerate(spec["args"]):
            if "pointer" in a:
                continue
            name = a.get("name", f"arg{i}")
            if "buffer" in a:
                dtypes[name] = a["buffer"]
                raw_in[name] = np.load(in_dir / f"{name}.npy")
                raw_out[name] = np.load(out_dir / f"{name}.npy")
                if raw_in[name].size != a["count"] or raw_out[name].size != a["count"]:
                    return "ERROR", f"{name}.npy holds {raw_out[name].size} elements, the spec says {a['count']}"
                ref_args[name] = to_values(raw_in[name], a["buffer"], ref)
            else:
                ref_args[name] = scalar_value(a)
        want = ref.reference(kernel, ref_args, list(spec["grid"]))
    except Exception as e:  # a broken reference or unreadable output is an ERROR, reported as such
        return "ERROR", f"checking the outputs failed: {type(e).__name__}: {e}"

    tols = ref.TOLERANCE[kernel]
    problems = []
    for name, w in want.items():
        if name not in raw_out:
            problems.append(f"reference output {name} is not a buffer of the launch spec")
            continue
        got = to_values(raw_out[name], dtypes[name], ref)
        d = compare(name, got, w, tols[name])
        if d:
            problems.append(d)
    for name in raw_out:
        if name in want:
            continue
        if raw_in[name].tobytes() != raw_out[name].tobytes():
            i = int(np.flatnonzero(raw_in[name] != raw_out[name])[0])
            problems.append(f"{name} is read-only for the reference but was written: [{i}] "
                            f"{raw_in[name][i]!r} -> {raw_out[name][i]!r}")
    if problems:
        return "MISMATCH", "; ".join(problems)
    n = summary.get("instructions", {}).get("total", "?")
    return "MATCH", f"{', '.join(sorted(want))} ({n} wave-instructions)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", required=True, type=Path, help="the asmevo executable")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus/triton folder")
    ap.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    ap.add_argument("--arch", action="append", help="only this arch: gfx90a, gfx942, gfx950 (repeatable)")
    ap.add_argument("--seeds", help="comma-separated seeds to use instead of the spec's seed + fresh ones")
    ap.add_argument("--fresh", type=int, default=2, help="fresh random seeds besides the spec's (default 2)")
    ap.add_argument("--allow-unsupported", action="store_true",
                    help="report UNSUPPORTED cases but do not fail on them (while instruction families are added)")
    ap.add_argument("--threads", type=int, default=0, help="asmevo run --threads (0: its default)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per asmevo run (default 300)")
    ap.add_argument("--keep", type=Path, help="keep specs, inputs and outputs in this folder")
    args = ap.parse_args()

    if not args.asmevo.is_file():
        print(f"emulate_triton: no asmevo executable at {args.asmevo}", file=sys.stderr)
        return 2
    ref = load_reference(args.corpus)
    manifest = json.loads((args.corpus / "manifest.json").read_text())
    cases = [(k, a) for k in sorted(manifest["kernels"]) for a in manifest["kernels"][k]["archs"]]
    if args.kernel:
        unknown = set(args.kernel) - {k for k, _ in cases}
        if unknown:
            print(f"emulate_triton: unknown kernel(s) {sorted(unknown)}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c[0] in args.kernel]
    if args.arch:
        cases = [c for c in cases if c[1] in args.arch]
    if not cases:
        print("emulate_triton: no (kernel, arch) of the manifest matches", file=sys.stderr)
        return 2

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="asmevo-triton-"))
    counts = {}
    try:
        for kernel, arch in cases:
            spec_path = args.corpus / "launch" / f"{kernel}.yaml"
            spec_text = spec_path.read_text()
            spec = yaml.safe_load(spec_text)
            if args.seeds:
                seeds = [int(s) for s in args.seeds.split(",")]
            else:
                seeds = [int(spec.get("seed", 0))]
                while len(seeds) < 1 + args.fresh:
                    s = secrets.randbelow(2**31 - 1) + 1
                    if s not in seeds:
                        seeds.append(s)
            for seed in seeds:
                status, detail = run_case(args, ref, kernel, arch, seed, spec, spec_text, spec_path, workdir)
                counts[status] = counts.get(status, 0) + 1
                print(f"{status:<11} {kernel} {arch} seed={seed}: {detail}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    total = sum(counts.values())
    print("summary: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in ["MATCH", "MISMATCH", "UNSUPPORTED", "ERROR"])
          + f" of {total} runs")
    ok = {"MATCH", "UNSUPPORTED"} if args.allow_unsupported else {"MATCH"}
    return 0 if set(counts) <= ok else 1


if __name__ == "__main__":
    sys.exit(main())
