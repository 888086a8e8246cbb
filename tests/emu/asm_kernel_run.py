"""Assemble one hand-written kernel, run it on AsmEvo's emulator, return its buffers: the tool chain the
NumPy reference tests share (lowp_reference_test.py, mem_format_reference_test.py, valu_reference_test.py),
with their command line (tool_args) and result report (report).
Each test writes its own kernel source (prologue, kernargs); this runs it with u32 buffers in0..in{n-1}
of 1024 elements read from NumPy arrays and an output buffer `out`, one wave of 64 lanes."""
import argparse
import subprocess

import numpy as np


def assemble_and_run(asmevo, mc, lld, mcpu, folder, source, inputs, inout=(), what=""):
    """Returns the run's output folder (`out.npy`, `in<i>.npy` for the buffers named in `inout`, and `run.json`,
    the run's `--json` summary).
    Raises RuntimeError with the tool's stderr (and `what`, e.g. the kernel body) when a step fails."""
    d = folder
    (d / "k.s").write_text(source)
    for cmd in ([mc, "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-filetype=obj", str(d / "k.s"), "-o", str(d / "k.o")],
                [lld, "-shared", str(d / "k.o"), "-o", str(d / "k.co")]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(f"{cmd[0]} failed: {p.stderr}\n{what}")
    args = []
    for i, a in enumerate(inputs):
        np.save(d / f"in{i}.npy", np.ascontiguousarray(a, dtype=np.uint32).reshape(-1))
        io = ", inout: true" if i in inout else ""
        args.append(f"  - {{name: in{i}, buffer: u32, count: 1024, init: {{file: {d / f'in{i}.npy'}}}{io}}}")
    args.append("  - {name: out, buffer: u32, count: 1024, output: true}")
    (d / "k.yaml").write_text("kernel: k\ngrid: [1, 1, 1]\nblock: [64, 1, 1]\nargs:\n" + "\n".join(args) + "\n")
    p = subprocess.run([asmevo, "run", str(d / "k.co"), "--kernel", "k", "--launch", str(d / "k.yaml"), "--out", str(d / "o"),
                        "--json"], capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"asmevo run failed: {p.stderr}\n{what}")
    (d / "o" / "run.json").write_text(p.stdout)
    return d / "o"


def tool_args(description):
    """The command line every NumPy reference test takes: the asmevo CLI, the LLVM tools and the input seed."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--asmevo", required=True)
    ap.add_argument("--llvm-mc", default="llvm-mc-22")
    ap.add_argument("--ld-lld", default="ld.lld-22")
    ap.add_argument("--seed", type=int, default=15)
    return ap.parse_args()


def report(results):
    """Prints each (ok, message) case and the count; the exit status: 1 if any case mismatched."""
    failed = 0
    for ok, msg in results:
        print(("MATCH    " if ok else "MISMATCH ") + msg)
        failed += not ok
    print(f"{len(results) - failed} of {len(results)} cases match the NumPy models")
    return 1 if failed else 0
