#!/usr/bin/env python3
"""AITer measurement (issue 15): run `asmevo inspect`, `roundtrip` and `coverage` on every AITer code
object and print counts. A benchmark run by hand; nothing it reads or writes is committed.

    # once: fetch github:ROCm/aiter and extract hsa/gfx942/**.co and hsa/gfx950/**.co, e.g.
    #   git -C <aiter clone> archive HEAD hsa/gfx942 hsa/gfx950 | tar -x -C /work/aiter
    AITER_DIR=/work/aiter python3 bench/aiter/measure.py [--asmevo out/cli/asmevo] [--jobs 2] [--json OUT.json]

Per architecture folder (hsa/gfx942, hsa/gfx950): files, how many of them each command accepts
(exit 0; coverage exits 1 when a file holds unsupported mnemonics), the files that fail and why
(first line of the error), and every unsupported mnemonic with the number of files it blocks.
"""
import argparse
import collections
import concurrent.futures as cf
import json
import os
import pathlib
import subprocess
import sys
import time


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def measure(asmevo, path, commands):
    out = {"file": str(path), "inspect": None, "roundtrip": None, "coverage": None, "inspect_warnings": 0, "unsupported": []}
    if "inspect" in commands:
        measure_inspect(asmevo, path, out)
    if "roundtrip" in commands:
        measure_roundtrip(asmevo, path, out)
    if "coverage" in commands:
        measure_coverage(asmevo, path, out)
    return out


def measure_inspect(asmevo, path, out):
    rc, text, err = run([asmevo, "inspect", str(path)])
    out["inspect"] = rc
    if rc == 0:
        out["inspect_warnings"] = (text + err).count("warning:")
    else:
        out["inspect_error"] = (err.strip().splitlines() or ["?"])[0]


def measure_roundtrip(asmevo, path, out):
    rc, _, err = run([asmevo, "roundtrip", str(path)])
    out["roundtrip"] = rc
    if rc != 0:
        out["roundtrip_error"] = (err.strip().splitlines() or ["?"])[0]


def measure_coverage(asmevo, path, out):
    rc, text, err = run([asmevo, "coverage", "--json", str(path)])
    out["coverage"] = rc
    if rc in (0, 1):
        try:
            out["unsupported"] = json.loads(text)["files"][0]["unsupported"]
        except (ValueError, KeyError, IndexError):
            out["coverage"] = 3
    else:
        out["coverage_error"] = (err.strip().splitlines() or ["?"])[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", default=os.environ.get("ASMEVO", "out/cli/asmevo"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--json", help="also write every file's result here")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files per architecture (a quick look)")
    ap.add_argument("--commands", default="inspect,roundtrip,coverage", help="which of inspect,roundtrip,coverage to run")
    a = ap.parse_args()
    root = os.environ.get("AITER_DIR")
    if not root:
        sys.exit("error: set AITER_DIR to the folder holding hsa/gfx942 and hsa/gfx950 (see this script's docstring)")
    asmevo = str(pathlib.Path(a.asmevo).resolve())
    if not os.access(asmevo, os.X_OK):
        sys.exit(f"error: {asmevo} is not an executable asmevo (build it, or pass --asmevo)")
    commands = set(a.commands.split(","))
    results = {}
    t0 = time.time()
    for arch in ("gfx942", "gfx950"):
        files = sorted(pathlib.Path(root, "hsa", arch).rglob("*.co"))
        if a.limit:
            files = files[: a.limit]
        if not files:
            sys.exit(f"error: no .co files under {root}/hsa/{arch}")
        with cf.ThreadPoolExecutor(a.jobs) as ex:
            results[arch] = list(ex.map(lambda f: measure(asmevo, f, commands), files))
    print(f"AITer code objects under {root} (asmevo {asmevo}; {time.time() - t0:.0f} s)")
    for arch, rs in results.items():
        n = len(rs)
        ok = {c: sum(r[c] == 0 for r in rs) for c in ("inspect", "roundtrip", "coverage")}
        warned = sum(r["inspect_warnings"] > 0 for r in rs)
        print(f"\n{arch}: {n} files")
        if "inspect" in commands:
            print(f"  inspect   succeeds on {ok['inspect']:5} ({warned} with warnings)")
        if "roundtrip" in commands:
            print(f"  roundtrip identical on {ok['roundtrip']:4}")
        if "coverage" in commands:
            print(f"  coverage  clean on {ok['coverage']:8} (no unsupported mnemonic; {sum(r['coverage'] in (0, 1) for r in rs)} read)")
        for c in sorted(commands):
            errs = collections.Counter(r.get(c + "_error") for r in rs if r[c] not in (0, 1) or (c != "coverage" and r[c] != 0))
            for e, k in errs.most_common(5):
                if e:
                    print(f"  {c} fails on {k}: {e}")
        blocked = collections.Counter(m for r in rs for m in r["unsupported"])
        print(f"  unsupported mnemonics: {len(blocked)}")
        for m, k in blocked.most_common():
            print(f"    {m:48} {k:5} files")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
