#!/usr/bin/python3
"""AITer check (issue 15): run a sample of AITer's gfx942 and gfx950 assembly kernels on AsmEvo's emulator and compare
their outputs with a NumPy reference of the operator. A benchmark run by hand; never part of CI, and
nothing of AITer (code objects, inputs built for them, outputs) is committed.

    # once: fetch github:ROCm/aiter and extract hsa/ (see measure.py)
    AITER_DIR=/work/aiter /usr/bin/python3 bench/aiter/check.py [--asmevo out/cli/asmevo] [--case NAME]... [--keep DIR]

Each case (families/*.py) writes a launch spec from the layout of AITer's host-side KernelArgs struct and its
launch grid (csrc/py_itfs_cu/asm_*.cu), fills the inputs with NumPy, runs `asmevo run --json`, and compares
every output buffer with the reference of the operator: |got - want| <= atol + rtol * |want| elementwise
(AITer's own test tolerance; like its checkAllclose, fewer than 5 % of the elements may fall outside, and
how many do is shown). A case may add a model of the kernel's own numerics (e.g. fp8 quantisation of
Q and P), named OUTPUT@model: its error is shown as evidence but does not decide the verdict. One line per case:

  MATCH      every output within tolerance (max abs error, and as a share of the reference's max |value|)
  MISMATCH   the first failing index with got/want, how many fail, max abs / rel error
  STOPPED    the emulator stopped: its message (unsupported instruction, memory fault, waitcnt violation, ...)

Exit 0 only if every case MATCHes. Needs NumPy (Debian's python3-numpy).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.dont_write_bytecode = True
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kernarg  # noqa: E402
import waits  # noqa: E402
from families import CASES  # noqa: E402


TOL_ERR_RATIO = 0.05


def over_reads(stats):
    """The accesses outside a buffer that the run allowed (its guard zones, LDS past the allocation), per region."""
    span = {}
    for a in stats.get("out_of_bounds", []):
        lo, hi, n = span.get((a["region"], a["write"]), (a["lowest"], a["highest"], 0))
        span[(a["region"], a["write"])] = (min(lo, a["lowest"]), max(hi, a["highest"]), n + 1)
    return "".join(f"; {'wrote' if w else 'read'} outside {r}: bytes [{lo}, {hi}) from its start ({n} instructions)"
                   for (r, w), (lo, hi, n) in span.items())


def rms(a):
    return float(np.sqrt(np.nanmean(np.square(a)))) if a.size else 0.0


def logits_diff(g, r):
    """1 - cosine similarity as AITer's MoE tuner computes it (gemm_moe_tune.py run_config: it accepts a lossy fp8
    MoE output whose logits_diff is <= 0.01 even when checkAllclose fails)."""
    den = float(np.sum(g * g + r * r))
    return 1.0 - 2.0 * float(np.sum(g * r)) / den if den else 0.0


def conditions(case, inserted):
    """What the run changed from a plain `asmevo run` of the shipped object, and why."""
    out = ""
    if inserted is not None:
        out += f"; RUN WITH {inserted} WAITS INSERTED (waits.py), not the shipped object"
    if case.schedule:
        out += f"; schedule {case.schedule}: {case.why}"
    return out


def run_case(case, asmevo, aiter_dir, work, timeout):
    co = str(pathlib.Path(aiter_dir) / "hsa" / case.co)
    if not os.path.exists(co):
        return "STOPPED", f"{co} not found (AITER_DIR must hold hsa/gfx942 and hsa/gfx950)", None
    rng = np.random.default_rng(case.seed)
    launch = case.build(rng)
    inserted = None
    if case.add_waits:
        co, inserted = waits.add_missing_waits(asmevo, co, work)

    def write_npy(name, array):
        p = work / f"in_{name}.npy"
        np.save(p, np.ascontiguousarray(array).reshape(-1))
        return str(p)

    spec, dropped = kernarg.build_spec(asmevo, co, case.kernel, launch["grid"], launch["block"], launch["fields"],
                              launch.get("dynamic_lds", 0), write_npy)
    spec_path = work / "spec.yaml"
    spec_path.write_text(json.dumps(spec, indent=1))
    out_dir = work / "out"
    t0 = time.time()
    try:
        cmd = [asmevo, "run", co, "--launch", str(spec_path), "--out", str(out_dir), "--json"]
        if case.schedule:
            cmd += ["--schedule", case.schedule]
        if case.lds_races:
            cmd.append("--lds-races")
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "STOPPED", f"timed out after {timeout} s", None
    wall = time.time() - t0
    if p.returncode != 0:
        msg = " | ".join(l.strip() for l in p.stderr.strip().splitlines()[:4])
        return "STOPPED", msg, None
    stats = json.loads(p.stdout)
    got = {}
    for name in launch["outputs"]:
        a = np.load(out_dir / f"{name}.npy")
        got[name] = a
    want = case.reference(launch["inputs"])
    worst, failed = [], []
    for label, (ref, rtol, atol) in want.items():
        name = label.split("@")[0]  # "O@model" checks output O against a second reference
        g = launch["decode"].get(name, lambda a: a)(got[name]).astype(np.float64).reshape(-1)
        r = np.asarray(ref, dtype=np.float64).reshape(-1)
        sel = launch.get("select", {}).get(name)
        if sel is not None:
            g = g[sel]
        if g.size != r.size:
            return "MISMATCH", f"{label}: {g.size} elements, the reference has {r.size}", stats
        err = np.abs(g - r)
        bad = ~(err <= atol + rtol * np.abs(r))
        bad |= np.isnan(g) != np.isnan(r)
        max_abs = float(np.nanmax(err)) if err.size else 0.0
        # relative to the output's scale: elementwise relative error is meaningless near zero
        max_rel = max_abs / max(float(np.nanmax(np.abs(r))), 1e-30) if err.size else 0.0
        if bad.any() and "@" in label:  # a model of the kernel's numerics: evidence, not the verdict
            worst.append(f"{label}: max abs {max_abs:.3g} ({max_rel:.2%} of max |ref|), {int(bad.sum())} of {bad.size} "
                         f"outside atol {atol} + rtol {rtol}, RMS {rms(g - r) / max(rms(r), 1e-30):.2%}")
            continue
        # AITer's checkAllclose (aiter/test_common.py) passes a tensor with fewer than tol_err_ratio = 5 % of
        # its elements outside the tolerance; the count is always shown.
        if bad.mean() >= TOL_ERR_RATIO:
            i = int(np.argmax(bad))
            failed.append(f"{label}[{i}] = {g[i]:.6g}, reference {r[i]:.6g}; {int(bad.sum())} of {bad.size} outside "
                          f"atol {atol} + rtol {rtol}; max abs {max_abs:.3g} ({max_rel:.2%} of max |ref|), RMS "
                          f"{rms(g - r) / max(rms(r), 1e-30):.2%} of the reference's, logits_diff {logits_diff(g, r):.2g}")
            continue
        outside = f", {int(bad.sum())} outside atol {atol} + rtol {rtol}" if bad.any() else ""
        worst.append(f"{label}: max abs {max_abs:.3g} ({max_rel:.2%} of max |ref|, {r.size} elements{outside})")
    if failed:  # every output's figures, the models' too: a mismatch is classified with them
        return "MISMATCH", "; ".join(failed + worst) + conditions(case, inserted), stats
    note = f"; not in the metadata, not passed: {', '.join(dropped)}" if dropped else ""
    note += over_reads(stats) + conditions(case, inserted)
    n = stats["instructions"]["total"]
    return "MATCH", "; ".join(worst) + note + f"  [emulated: {n:,} wave-instructions, {wall:.1f} s]", stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", default=os.environ.get("ASMEVO", "out/cli/asmevo"))
    ap.add_argument("--case", action="append", help="run only these cases (default: all)")
    ap.add_argument("--keep", help="keep each case's spec, inputs and outputs under DIR/<case>")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for c in CASES:
            print(f"{c.name:28} {c.co}  {c.what}")
        return 0
    root = os.environ.get("AITER_DIR")
    if not root:
        sys.exit("error: set AITER_DIR to the folder holding AITer's hsa/ (see this script's docstring)")
    asmevo = str(pathlib.Path(a.asmevo).resolve())
    cases = [c for c in CASES if not a.case or c.name in a.case]
    if a.case and len(cases) != len(a.case):
        sys.exit(f"error: unknown case in {a.case}; --list shows them")
    failed = 0
    for c in cases:
        with tempfile.TemporaryDirectory(prefix="aiter-check-") as tmp:
            work = pathlib.Path(a.keep) / c.name if a.keep else pathlib.Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            verdict, detail, _ = run_case(c, asmevo, root, work, a.timeout)
        failed += verdict != "MATCH"
        print(f"{c.name:28} {verdict:9} {detail}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
