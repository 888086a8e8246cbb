#!/usr/bin/env python3
"""Compile the RoPE calibration kernel (rope_contig.py) with Triton's AMD backend for gfx942.

    python3 bench/calibration/triton/build.py device --out STAGING     (where Triton 3.6 is installed)
    python3 bench/calibration/triton/build.py finalize --staging STAGING   (here: ld.lld-22, llvm-objdump-22)

Same steps and the same scrubbing as corpus/triton/build.py (whose helpers it uses): no line info, pointers
and integer arguments specialized as Triton's launcher would, metadata without hash or paths; finalize
assembles Triton's assembly with llvm-mc-22 unmodified, links it with ld.lld-22 -shared, checks it disassembles,
and installs gfx942/<variant>.{hsaco,json}.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
_spec = importlib.util.spec_from_file_location("corpus_triton_build", ROOT / "corpus" / "triton" / "build.py")
corpus_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus_build)
ARCH = "gfx942"


def device(args):
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.amd.compiler import HIPBackend
    from triton.compiler import ASTSource
    sys.path.insert(0, str(HERE))
    import rope_contig as rc
    print("triton", triton.__version__, flush=True)
    try:
        HIPBackend.path_to_rocm_lld()
    except Exception:
        shim = Path(tempfile.mkdtemp(prefix="lld-shim-")) / "ld.lld"
        shim.write_text(corpus_build.LLD_SHIM)
        shim.chmod(0o755)
        os.environ["TRITON_HIP_LLD_PATH"] = str(shim)
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    names = list(rc.SIGNATURE)
    notes = set()
    for v in rc.VARIANTS:
        attrs = {}
        for i, (p, t) in enumerate(rc.SIGNATURE.items()):
            if t.startswith("*"):
                attrs[(i,)] = [["tt.divisibility", 16], ["tt.pointer_range", 32]]
            elif p in rc.DIVISIBLE_BY_16:
                attrs[(i,)] = [["tt.divisibility", 16]]
        constexprs = {(names.index(k),): x for k, x in v["constexprs"].items()}
        src = ASTSource(fn=rc.rope_contig_kernel, signature=dict(rc.SIGNATURE), constexprs=constexprs, attrs=attrs)
        k = triton.compile(src, target=GPUTarget("hip", ARCH, 64), options={"num_warps": v["num_warps"]})
        binary = k.asm["hsaco"]
        if isinstance(binary, str):
            binary = binary.encode("latin-1")
        md = k.metadata._asdict() if hasattr(k.metadata, "_asdict") else dict(k.metadata)
        md = corpus_build.sanitize_metadata(corpus_build.jsonable(md), notes)
        ext = {1: "o", 3: "hsaco"}[corpus_build.elf_type(binary)]
        (out / f"{v['name']}.{ext}").write_bytes(binary)
        (out / f"{v['name']}.json").write_text(json.dumps(md, sort_keys=True, indent=1) + "\n")
        (out / f"{v['name']}.amdgcn").write_text(k.asm.get("amdgcn", ""))
        print("ok", v["name"], ext, len(binary), "shared", md["shared"], flush=True)
    if args.validate_cuda:
        validate_cuda(rc)
    leaks = corpus_build.scan_leaks([p for p in out.iterdir() if p.suffix != ".amdgcn"])
    for l in leaks:
        print("LEAK", l)
    return 1 if leaks else 0


def validate_cuda(rc):
    """Runs every variant through Triton's CUDA backend on the local GPU against a float64 reference of the
    inverse GPT-J rotation (this checks the kernel's math; it writes nothing)."""
    import torch
    import triton
    tokens, heads, rd = 8192 + 8, 16, 64  # a partial last tile too
    g = torch.Generator().manual_seed(1)
    x0 = torch.empty(tokens, heads, rd).uniform_(-1, 1, generator=g).to(torch.bfloat16)
    fr = torch.empty(tokens, rd).uniform_(-1, 1, generator=g)
    xd, fd = x0.double(), fr.double()
    cos, sin = fd[:, 0::2][:, None, :], fd[:, 1::2][:, None, :]
    want = torch.empty_like(xd)
    want[..., 0::2] = xd[..., 0::2] * cos + xd[..., 1::2] * sin   # inverse: times the conjugate
    want[..., 1::2] = xd[..., 1::2] * cos - xd[..., 0::2] * sin
    for v in rc.VARIANTS:
        m = v["constexprs"]["BLOCK_M"]
        x = x0.cuda().clone()
        rc.rope_contig_kernel[(triton.cdiv(tokens, m), heads)](x, fr.cuda(), tokens, heads * rd, rd, num_warps=v["num_warps"],
                                                               **v["constexprs"])
        err = (x.double().cpu() - want).abs().max().item()
        print(f"cuda {v['name']}: max |error| {err:.4g} (bf16 rounding: <= 2^-7 of |value| <= 2)", flush=True)
        assert err < 2 ** -6, v["name"]


def finalize(args):
    """Assembles each variant's Triton assembly (staging/<variant>.amdgcn) with llvm-mc-22, unmodified, and links
    it with ld.lld-22 -shared. `--staging bench/calibration/triton/gfx942` rebuilds the committed objects from the
    committed assembly (byte for byte). The text is Triton's own, so the object has the .text and kernel descriptor
    bytes of Triton's code object (checked when the objects were first committed)."""
    staging = Path(args.staging)
    dest = HERE / ARCH
    dest.mkdir(exist_ok=True)
    for n in sorted(p.stem for p in staging.glob("*.amdgcn")):  # the variants the device step built
        asm = (staging / f"{n}.amdgcn").read_text()
        with tempfile.TemporaryDirectory() as tmp:
            src, obj, linked = Path(tmp) / f"{n}.s", Path(tmp) / f"{n}.o", Path(tmp) / f"{n}.hsaco"
            src.write_text(asm)
            subprocess.run(["llvm-mc-22", "-triple", "amdgcn-amd-amdhsa", f"-mcpu={ARCH}", "-filetype=obj", str(src),
                            "-o", str(obj)], check=True)
            subprocess.run(["ld.lld-22", "-shared", str(obj), "-o", str(linked)], check=True)
            subprocess.run(["llvm-objdump-22", "-d", str(linked)], check=True, stdout=subprocess.DEVNULL)
            bad = corpus_build.scan_leaks([linked, staging / f"{n}.json"])
            if bad:
                sys.exit("\n".join(bad))
            tmp_out = dest / f".{n}.hsaco.tmp"
            shutil.copyfile(linked, tmp_out)  # contents only: the committed objects are plain files (0644)
            os.chmod(tmp_out, 0o644)
            os.replace(tmp_out, dest / f"{n}.hsaco")
        for ext in ("json", "amdgcn"):  # the metadata and the assembly the object was made from, beside it
            if (staging / f"{n}.{ext}").resolve() != (dest / f"{n}.{ext}").resolve():
                shutil.copy(staging / f"{n}.{ext}", dest / f"{n}.{ext}")
        print(f"installed {dest / n}.hsaco")
    return 0


def main():
    sys.path.insert(0, str(HERE))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("device")
    d.add_argument("--out", required=True)
    d.add_argument("--validate-cuda", action="store_true")
    f = sub.add_parser("finalize")
    f.add_argument("--staging", required=True)
    a = ap.parse_args()
    return device(a) if a.step == "device" else finalize(a)


if __name__ == "__main__":
    sys.exit(main())
