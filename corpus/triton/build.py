#!/usr/bin/env python3
"""Build the Triton corpus for AMD GPUs without an AMD GPU (see corpus/triton/README.md).

Two steps:

  device    (where Triton 3.6 is installed; no AMD GPU needed)
      python3 corpus/triton/build.py device --out STAGING [--validate-cuda]
    Compiles every kernel of kernels/*.py with Triton's AMD backend for gfx90a, gfx942 and gfx950 and writes
    STAGING/<arch>/<kernel>.{hsaco|o,json}, STAGING/launch/<kernel>.json and STAGING/manifest.json.
    Line info is disabled, so no debug sections (and no source paths) reach the binaries. If Triton finds no
    ld.lld it is given a stand-in that hands back the relocatable object (<kernel>.o) to be linked in step 2.
    --validate-cuda also runs each kernel through Triton's CUDA backend on the local NVIDIA GPU and compares
    the result with reference.py (this checks kernels and references; it writes nothing).

  finalize  (here, with LLVM 22: ld.lld-22, llvm-readelf-22, llvm-objdump-22)
      python3 corpus/triton/build.py finalize --staging STAGING
    Links any .o with ld.lld-22 -shared, checks every code object with llvm-readelf-22 -n / llvm-objdump-22 -d,
    writes launch/<kernel>.yaml (trailing hidden pointer args taken from the code object's metadata), scans
    every output for build-machine paths and installs into corpus/triton/{gfx90a,gfx942,gfx950,launch}/.
"""
import argparse
import dataclasses
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCHS = ["gfx90a", "gfx942", "gfx950"]
REQUIRED_ARCHS = ["gfx942", "gfx950"]
WARP_SIZE = 64
# Substrings that betray the build machine; none may appear in any output file.
LEAKS = [b"/home/", b"/root/", b"/usr/", b"/opt/", b"/tmp/", b"site-packages", b".py"]

# Triton pointer element type -> launch-spec buffer dtype, and scalar types.
PTR_DTYPES = {"fp32": "f32", "fp16": "f16", "bf16": "bf16", "fp64": "f64", "i8": "i8", "u8": "u8", "i16": "i16",
              "u16": "u16", "i32": "i32", "u32": "u32", "i64": "i64", "u64": "u64",
              "fp8e4b8": "fp8e4m3fnuz", "fp8e4nv": "fp8e4m3fn"}
SCALAR_TYPES = {"i32": ("i32", 4), "u32": ("u32", 4), "i64": ("i64", 8), "u64": ("u64", 8), "fp32": ("f32", 4),
                "fp64": ("f64", 8), "fp16": ("f16", 2), "bf16": ("bf16", 2)}
BUFFER_SIZES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
                "i64": 8, "u64": 8, "fp8e4m3fnuz": 1, "fp8e4m3fn": 1}


def log(*a):
    print(*a, flush=True)


def scan_leaks(paths):
    bad = []
    for p in paths:
        data = Path(p).read_bytes()
        for s in LEAKS:
            i = data.find(s)
            if i >= 0:
                bad.append(f"{p}: {s.decode()!r} at offset {i}: {data[max(0, i - 40):i + 40]!r}")
    return bad


# ================================================================================================ device step

def load_specs():
    specs = []
    sys.path.insert(0, str(HERE / "kernels"))  # the kernels import their shared @triton.jit helpers (_*.py)
    for path in sorted((HERE / "kernels").glob("*.py")):
        if path.name.startswith("_"):  # a module of helpers, no SPECS of its own
            continue
        mod_name = f"asmevo_triton_corpus_{path.stem}"
        spec = importlib.util.spec_from_file_location(mod_name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = mod
        spec.loader.exec_module(mod)
        for s in mod.SPECS:
            s = dict(s)
            s["module"] = path.stem
            s["name"] = s["fn"].__name__
            check_spec(s)
            specs.append(s)
    names = [s["name"] for s in specs]
    assert len(names) == len(set(names)), f"duplicate kernel names: {names}"
    return specs


def arg_name(param):
    return param[:-4] if param.endswith("_ptr") else param


def check_spec(s):
    """The launch args must list exactly the non-constexpr parameters, in order, with matching types."""
    params = [(p, t) for p, t in s["signature"].items() if t != "constexpr"]
    assert list(s["signature"]) == list(s["fn"].arg_names), f"{s['name']}: signature order != parameters"
    for p, t in s["signature"].items():
        assert (t == "constexpr") == (p in s["constexprs"]), f"{s['name']}: constexpr mismatch for {p}"
    assert len(params) == len(s["args"]), f"{s['name']}: {len(params)} params vs {len(s['args'])} launch args"
    for (p, t), a in zip(params, s["args"]):
        assert a["name"] == arg_name(p), f"{s['name']}: launch arg {a['name']} != parameter {p}"
        if t.startswith("*"):
            assert a.get("buffer") == PTR_DTYPES[t[1:]], f"{s['name']}: {p} is {t} but buffer {a.get('buffer')}"
            assert ("init" in a) != bool(a.get("output")), f"{s['name']}: {p}: an output has no init, an input needs one"
            assert a["count"] <= 65536, f"{s['name']}: {p} has {a['count']} elements (keep <= 64K)"
        else:
            assert a.get("type") == SCALAR_TYPES[t][0], f"{s['name']}: {p} is {t} but type {a.get('type')}"
    names = [a["name"] for a in s["args"]]
    for p in s.get("perf", []):  # launch spec perf: entries (docs/emulator.md), each with its source
        assert p.get("name") and p.get("source"), f"{s['name']}: a perf launch needs a name and a source"
        for k in list(p.get("values", {})) + list(p.get("counts", {})):
            assert k in names, f"{s['name']}: perf launch {p['name']} names no argument {k}"
    for d in s.get("divisible_by_16", []):
        a = s["args"][[p for p, _ in params].index(d)]
        assert a["value"] % 16 == 0, f"{s['name']}: {d} = {a['value']} is declared divisible by 16"


def jsonable(v):
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: jsonable(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, tuple) and hasattr(v, "_asdict"):
        return {k: jsonable(x) for k, x in v._asdict().items()}
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def sanitize_metadata(md, notes):
    """Drop the hash (it covers the options, which hold absolute library paths) and reduce paths to base names."""
    md = dict(md)
    md.pop("hash", None)
    t = md.get("target")
    if isinstance(t, str):  # GPUTarget's repr, from an older staging: make it an object like the others
        m = re.fullmatch(r"GPUTarget\(backend='(\w+)', arch='(\w+)', warp_size=(\d+)\)", t)
        if m:
            md["target"] = {"backend": m.group(1), "arch": m.group(2), "warp_size": int(m.group(3))}

    def fix(v, where):
        if isinstance(v, str) and ("/" in v or "\\" in v) and (v.startswith("/") or os.path.exists(v)):
            notes.add(f"{where}: path reduced to its base name")
            return os.path.basename(v)
        if isinstance(v, dict):
            return {k: fix(x, f"{where}.{k}") for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x, where) for x in v]
        return v

    return {k: fix(v, k) for k, v in md.items()}


LLD_SHIM = """#!/bin/sh
# Stand-in for ld.lld: hands back the relocatable object; build.py finalize links it with ld.lld-22.
if [ "$1" = "--version" ]; then echo "LLD 0.0 (asmevo stand-in: link later)"; exit 0; fi
in=""; out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    -flavor) shift 2 ;;
    -*) shift ;;
    *) in="$1"; shift ;;
  esac
done
cp "$in" "$out"
"""


def elf_type(data):
    assert data[:4] == b"\x7fELF", "not an ELF file"
    return int.from_bytes(data[16:18], "little")


def device(args):
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"           # no DWARF line tables (they embed source paths)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
    os.environ.pop("TRITON_DEBUG", None)
    import inspect
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    log(f"triton {triton.__version__} (python {sys.version.split()[0]})")
    log(f"ASTSource{inspect.signature(ASTSource.__init__)}")
    log(f"triton.compile{inspect.signature(triton.compile)}")
    amd_dir = Path(triton.__file__).parent / "backends" / "amd"
    log("amd backend files:", sorted(str(p.relative_to(amd_dir)) for p in amd_dir.rglob("*")
                                     if p.is_file() and "__pycache__" not in p.parts)[:60])
    from triton.backends.amd.compiler import HIPBackend
    link_mode = "triton"
    if hasattr(HIPBackend, "path_to_rocm_lld"):
        try:
            log("ld.lld:", HIPBackend.path_to_rocm_lld())
        except Exception as e:  # no ROCm linker: hand back the object, link it in finalize
            shim = Path(tempfile.mkdtemp(prefix="lld-shim-")) / "ld.lld"
            shim.write_text(LLD_SHIM)
            shim.chmod(0o755)
            os.environ["TRITON_HIP_LLD_PATH"] = str(shim)
            link_mode = "deferred"
            log(f"no ld.lld ({e}); objects are linked in the finalize step")
    else:
        log("HIPBackend has no path_to_rocm_lld: linking in-process")

    specs = load_specs()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    (out / "launch").mkdir(parents=True)
    manifest = {"triton_version": triton.__version__, "link": link_mode, "kernels": {}, "failures": {}}
    notes = set()
    fatal = []
    for s in specs:
        name = s["name"]
        required = [a for a in s.get("archs", REQUIRED_ARCHS)]
        wanted = [a for a in ARCHS if a in required or a in s.get("optional_archs", ARCHS)]
        built = {}
        for arch in wanted:
            attrs = {}
            for i, (p, t) in enumerate(s["signature"].items()):
                if t.startswith("*"):
                    attrs[(i,)] = [["tt.divisibility", 16], ["tt.pointer_range", 32]]
                elif p in s.get("divisible_by_16", []):
                    attrs[(i,)] = [["tt.divisibility", 16]]
            constexprs = {(s["fn"].arg_names.index(k),): v for k, v in s["constexprs"].items()}
            opts = {"num_warps": s["num_warps"], "num_stages": s.get("num_stages", 2)}
            try:
                src = ASTSource(fn=s["fn"], signature=dict(s["signature"]), constexprs=constexprs, attrs=attrs)
                k = triton.compile(src, target=GPUTarget("hip", arch, WARP_SIZE), options=opts)
            except Exception as e:
                msg = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
                manifest["failures"].setdefault(name, {})[arch] = msg[:300]
                (fatal.append if arch in required else log)(f"FAILED {name} {arch}: {msg[:2000]}")
                continue
            binary = k.asm["hsaco"]
            if isinstance(binary, str):
                binary = binary.encode("latin-1")
            md = k.metadata._asdict() if hasattr(k.metadata, "_asdict") else dict(k.metadata)
            md = sanitize_metadata(jsonable(md), notes)
            assert md["name"] == name, (md["name"], name)
            ext = {1: "o", 3: "hsaco"}[elf_type(binary)]
            (out / arch).mkdir(exist_ok=True)
            (out / arch / f"{name}.{ext}").write_bytes(binary)
            (out / arch / f"{name}.json").write_text(json.dumps(md, sort_keys=True, indent=1) + "\n")
            built[arch] = {"shared": md["shared"], "num_warps": md["num_warps"]}
            log(f"ok {name:28s} {arch} {ext:5s} {len(binary):7d} B  shared={md['shared']} "
                f"num_warps={md['num_warps']} asm={sorted(k.asm)}")
        manifest["kernels"][name] = {"module": s["module"], "archs": sorted(built)}
        launch = {"kernel": name, "module": s["module"], "grid": s["grid"],
                  "block": [s["num_warps"] * WARP_SIZE, 1, 1],
                  "shared": {a: b["shared"] for a, b in built.items()}, "args": s["args"],
                  "constexprs": s["constexprs"], "perf": s.get("perf", [])}
        (out / "launch" / f"{name}.json").write_text(json.dumps(launch, sort_keys=True, indent=1) + "\n")
    manifest["notes"] = sorted(notes)
    (out / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=1) + "\n")
    for n in sorted(notes):
        log("note:", n)

    leaks = scan_leaks(p for p in out.rglob("*") if p.is_file())
    for l in leaks:
        log("LEAK", l)
    if args.validate_cuda:
        validate_cuda(specs)
    if fatal or leaks:
        log(f"{len(fatal)} required builds failed, {len(leaks)} leaks")
        return 1
    log("device step done")
    return 0


# ================================================================================================ CUDA check

def gen_inputs(s, seed=1):
    """Host inputs from the launch spec's init entries (float64 / int64 before conversion to the buffer type)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    vals = {}
    for a in s["args"]:
        if "buffer" not in a:
            vals[a["name"]] = a["value"]
            continue
        init, n = a.get("init", "zeros"), a["count"]  # outputs have no init (poisoned when emulated)
        if init == "zeros":
            v = np.zeros(n)
        elif "normal" in init:
            v = rng.normal(init["normal"][0], init["normal"][1], n)
        elif "uniform" in init:
            v = rng.uniform(init["uniform"][0], init["uniform"][1], n)
        elif "ints" in init:
            v = rng.integers(init["ints"][0], init["ints"][1] + 1, n)
        elif "constant" in init:
            v = np.full(n, init["constant"])
        else:
            raise ValueError(init)
        vals[a["name"]] = v
    return vals


def validate_cuda(specs):
    import numpy as np
    import torch
    sys.path.insert(0, str(HERE))
    import reference
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
           "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "i8": torch.int8,
           "fp8e4m3fn": torch.float8_e4m3fn, "fp8e4m3fnuz": torch.float8_e4m3fnuz}

    # fp8 helpers against torch's own casts
    x = np.concatenate([np.random.default_rng(3).normal(0, 60, 20000), np.linspace(-500, 500, 4001),
                        np.random.default_rng(4).normal(0, 0.01, 5000)]).astype(np.float32)
    for fmt, td in [("fp8e4m3fn", torch.float8_e4m3fn), ("fp8e4m3fnuz", torch.float8_e4m3fnuz)]:
        fmax = reference.FP8_FORMATS[fmt][1]
        xc = np.clip(x, -fmax, fmax)
        want = torch.from_numpy(xc).to(td).view(torch.uint8).numpy()
        got = reference.fp8_encode(xc, fmt)
        dec = reference.fp8_decode(got, fmt)
        tdec = torch.from_numpy(want.copy()).view(td).float().numpy()
        log(f"check fp8 helpers {fmt}: encode mismatches {int((want != got).sum())}/{len(x)}, "
            f"decode mismatches {int((dec != tdec).sum())}, round==decode(encode) "
            f"{bool(np.array_equal(reference.fp8_round(xc, fmt), dec))}")

    failures = 0
    for s in specs:
        name = s["name"]
        if any(a.get("buffer") == "fp8e4m3fnuz" for a in s["args"]):
            log(f"cuda {name}: skipped (no e4m3fnuz on NVIDIA)")
            continue
        try:
            host = gen_inputs(s)
            kwargs, ref_args, tensors = {}, {}, {}
            params = [p for p, t in s["signature"].items() if t != "constexpr"]
            for p, a in zip(params, s["args"]):
                v = host[a["name"]]
                if "buffer" in a:
                    t = torch.from_numpy(np.asarray(v)).to("cuda")
                    if a["buffer"].startswith("fp8"):
                        t = t.float().to(tdt[a["buffer"]])
                    else:
                        t = t.to(tdt[a["buffer"]])
                    tensors[a["name"]] = t
                    kwargs[p] = t
                    stored = t.cpu()
                    ref_args[a["name"]] = (stored.float().numpy() if stored.is_floating_point()
                                           else stored.to(torch.int64).numpy())
                else:
                    kwargs[p] = v
                    ref_args[a["name"]] = v
            kwargs.update(s["constexprs"])
            s["fn"][tuple(s["grid"])](**kwargs, num_warps=s["num_warps"])
            torch.cuda.synchronize()
            want = reference.reference(name, ref_args, s["grid"])
            msgs = []
            for out_name, w in want.items():
                t = tensors[out_name].cpu()
                g = t.float().numpy() if t.is_floating_point() else t.to(torch.int64).numpy()
                atol, rtol = reference.TOLERANCE[name][out_name]
                w = np.asarray(w).reshape(-1)
                err = np.abs(g.astype(np.float64) - w)
                ok = bool(np.all(err <= atol + rtol * np.abs(w))) and g.shape == w.shape
                failures += not ok
                msgs.append(f"{out_name}: {'ok' if ok else 'FAIL'} max|err|={err.max():.3g} "
                            f"exact={float(np.mean(err == 0)):.3f}")
            log(f"cuda {name}: " + "; ".join(msgs))
        except Exception as e:
            failures += 1
            log(f"cuda {name}: ERROR {type(e).__name__}: {str(e)[:1500]}")
    log(f"cuda validation: {failures} failures")


# ================================================================================================ finalize step

def readelf_metadata(path):
    import yaml
    out = subprocess.run(["llvm-readelf-22", "-n", str(path)], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^\s*---\n(.*?)^\.\.\.$", out, re.S | re.M)
    assert m, f"{path}: no AMDGPU metadata note"
    return yaml.safe_load(m.group(1))


def fmt_num(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    r = repr(float(v))
    if "e" in r and "." not in r.split("e")[0]:
        r = r.replace("e", ".0e")
    return r


def fmt_init(init):
    if init == "zeros":
        return "zeros"
    (k, v), = init.items()
    if isinstance(v, list):
        return "{%s: [%s]}" % (k, ", ".join(fmt_num(x) for x in v))
    return "{%s: %s}" % (k, fmt_num(v))


def launch_yaml(launch, hidden_ptrs):
    shared = sorted(set(launch["shared"].values()))
    archs = sorted(launch["shared"])
    lines = [f"# Launch spec for the Triton kernel {launch['kernel']} (corpus/triton/kernels/{launch['module']}),",
             "# generated by the corpus/triton build script: edit the kernel's SPECS, not this file.",
             f"# Built for: {' '.join(archs)}. Constexprs: "
             + ", ".join(f"{k}={fmt_num(v)}" for k, v in sorted(launch["constexprs"].items())) + ".",
             f"# The last {hidden_ptrs} args are Triton's hidden scratch pointers (global_scratch, profile_scratch).",
             f"kernel: {launch['kernel']}",
             "grid: [%s]" % ", ".join(str(g) for g in launch["grid"]),
             "block: [%s]" % ", ".join(str(b) for b in launch["block"])]
    if len(shared) == 1:
        lines.append(f"dynamic_lds: {shared[0]}")
    else:
        lines.append("dynamic_lds: {%s}" % ", ".join(f"{a}: {launch['shared'][a]}" for a in archs))
    lines += ["seed: 1", "inputs: 2", "special: true", "args:"]
    for a in launch["args"]:
        if "buffer" in a:
            entry = f"  - {{name: {a['name']}, buffer: {a['buffer']}, count: {a['count']}"
            if a.get("output"):
                entry += ", output: true"  # poisoned before the run; no init
            else:
                entry += f", init: {fmt_init(a['init'])}"
                if a.get("inout"):
                    entry += ", inout: true"
            lines.append(entry + "}")
        else:
            vary = f", vary: [{a['vary'][0]}, {a['vary'][1]}]" if a.get("vary") else ""
            if a.get("why"):  # why the argument's vary: range is what it is (or why it has none)
                lines.append(f"  # {a['name']} {'vary' if a.get('vary') else 'not varied'}: {a['why']}")
            lines.append(f"  - {{name: {a['name']}, value: {fmt_num(a['value'])}, type: {a['type']}{vary}}}")
    lines += ["  - {pointer: null}"] * hidden_ptrs
    if launch.get("perf"):
        lines.append("perf:")
        for p in launch["perf"]:
            lines.append(f"  # source: {p['source']}")
            entry = "  - {name: %s, grid: [%s]" % (p["name"], ", ".join(str(g) for g in p["grid"]))
            for key in ("values", "counts"):
                if p.get(key):
                    entry += ", %s: {%s}" % (key, ", ".join(f"{k}: {fmt_num(v)}" for k, v in p[key].items()))
            lines.append(entry + "}")
    return "\n".join(lines) + "\n"


def check_code_object(path, launch, md_json):
    """Cross-check one linked code object against Triton's metadata and the launch args; return facts."""
    meta = readelf_metadata(path)
    kernels = meta["amdhsa.kernels"]
    assert len(kernels) == 1, f"{path}: {len(kernels)} kernels"
    kmd = kernels[0]
    assert kmd[".name"] == md_json["name"], f"{path}: {kmd['.name']} != {md_json['name']}"
    args = [a for a in kmd.get(".args", []) if not a[".value_kind"].startswith("hidden_")]
    explicit = launch["args"]
    hidden = args[len(explicit):]
    assert len(args) >= len(explicit), f"{path}: {len(args)} ELF args < {len(explicit)} launch args"
    for a, e in zip(args, explicit):
        if "buffer" in e:
            assert a[".value_kind"] == "global_buffer" and a[".size"] == 8, f"{path}: {e['name']}: {a}"
        else:
            size = {"i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}[e["type"]]
            assert a[".value_kind"] == "by_value" and a[".size"] == size, f"{path}: {e['name']}: {a}"
    for a in hidden:
        assert a[".value_kind"] == "global_buffer" and a[".size"] == 8, f"{path}: trailing arg {a}"
    dis = subprocess.run(["llvm-objdump-22", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    insts = [l.split("//")[0].strip() for l in dis.splitlines() if re.match(r"^\s+\S.*//\s*[0-9A-F]+:", l)]
    assert insts, f"{path}: llvm-objdump-22 decoded no instructions"
    # Kernarg preload: the entry loads the preloaded args the old way and branches over 256 bytes of s_nop.
    head = "\n".join(insts[:20])
    preload = bool(re.search(r"^s_load.*\n(?:s_load.*\n)*s_waitcnt.*\ns_branch", head, re.M))
    implicit = sorted(a[".value_kind"] for a in kmd.get(".args", []) if a[".value_kind"].startswith("hidden_"))
    return {"hidden_ptrs": len(hidden), "insts": sum(not i.startswith("s_nop") for i in insts),
            "preload_prologue": preload, "implicit_args": len(implicit),
            "group_segment_fixed_size": kmd.get(".group_segment_fixed_size"),
            "kernarg_segment_size": kmd.get(".kernarg_segment_size"),
            "sgpr": kmd.get(".sgpr_count"), "vgpr": kmd.get(".vgpr_count"),
            "code_object_version": meta.get("amdhsa.version")}


def finalize(args):
    staging = Path(args.staging)
    dest = Path(args.dest) if args.dest else HERE
    work = Path(tempfile.mkdtemp(prefix="triton-finalize-"))
    manifest = json.loads((staging / "manifest.json").read_text())
    launches = {p.stem: json.loads(p.read_text()) for p in sorted((staging / "launch").glob("*.json"))}
    outputs = {}
    report = []
    for arch in ARCHS:
        d = staging / arch
        if not d.is_dir():
            continue
        for js in sorted(d.glob("*.json")):
            name = js.stem
            md = sanitize_metadata(json.loads(js.read_text()), set())
            md_text = (json.dumps(md, sort_keys=True, indent=1) + "\n").encode()
            obj, hsaco = d / f"{name}.o", work / arch / f"{name}.hsaco"
            hsaco.parent.mkdir(parents=True, exist_ok=True)
            if obj.exists():  # deferred link, exactly as Triton's make_hsaco does it
                subprocess.run(["ld.lld-22", "-shared", str(obj), "-o", str(hsaco)], check=True)
            else:
                shutil.copyfile(d / f"{name}.hsaco", hsaco)
            data = hsaco.read_bytes()
            assert elf_type(data) == 3 and int.from_bytes(data[18:20], "little") == 224, f"{hsaco}: not AMDGPU DSO"
            facts = check_code_object(hsaco, launches[name], md)
            report.append((arch, name, len(data), facts))
            outputs[f"{arch}/{name}.hsaco"] = data
            outputs[f"{arch}/{name}.json"] = md_text
            launches[name].setdefault("hidden", set()).add(facts["hidden_ptrs"])
    for name, launch in launches.items():
        hidden = launch.pop("hidden")
        assert len(hidden) == 1, f"{name}: hidden pointer count differs between archs: {hidden}"
        outputs[f"launch/{name}.yaml"] = launch_yaml(launch, hidden.pop()).encode()
    outputs["manifest.json"] = (json.dumps(manifest, sort_keys=True, indent=1) + "\n").encode()

    tmp = work / "out"
    for rel, data in outputs.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(data)
    leaks = scan_leaks(p for p in tmp.rglob("*") if p.is_file())
    if leaks:
        for l in leaks:
            print("LEAK", l, file=sys.stderr)
        sys.exit("build-machine paths found in the outputs: nothing installed")

    for sub in ARCHS + ["launch"]:
        for old in (dest / sub).glob("*") if (dest / sub).is_dir() else []:
            if old.suffix in (".hsaco", ".json", ".yaml"):
                old.unlink()
    for rel, data in outputs.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(data)
    for arch, name, size, f in report:
        print(f"{arch} {name:26s} {size:5d} B insts={f['insts']:4d} hidden_ptrs={f['hidden_ptrs']} "
              f"implicit_args={f['implicit_args']} preload_prologue={f['preload_prologue']} "
              f"lds_fixed={f['group_segment_fixed_size']} "
              f"kernarg={f['kernarg_segment_size']} sgpr={f['sgpr']} vgpr={f['vgpr']} "
              f"cov={f['code_object_version']}")
    digest = hashlib.sha256(b"".join(outputs[k] for k in sorted(outputs))).hexdigest()[:16]
    print(f"installed {len(outputs)} files into {dest} (content digest {digest}); no leaks")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("device")
    d.add_argument("--out", required=True)
    d.add_argument("--validate-cuda", action="store_true")
    f = sub.add_parser("finalize")
    f.add_argument("--staging", required=True)
    f.add_argument("--dest", help="install root (default: corpus/triton)")
    args = ap.parse_args()
    return device(args) if args.cmd == "device" else finalize(args)


if __name__ == "__main__":
    sys.exit(main())
