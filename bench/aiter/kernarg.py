"""Launch specs for AITer's assembly kernels, built from the layout of AITer's host-side `KernelArgs` structs.

AITer's hand-written kernels take one packed struct (csrc/py_itfs_cu/asm_*.cu): every field is padded to 16
bytes (a pointer plus `p2`, a 32-bit value plus `p3`; csrc/include/aiter_hip_common.h). The code object's
metadata lists every field, padding included, as a separate argument. A case names only the fields the
launch code sets, by their byte offset in the struct; everything else is what the host code leaves there
(the struct is zero-initialised: `KernelArgs args = {}`), i.e. 0 or a null pointer.

Each named field is checked against the metadata (an argument must start at that offset with that size and,
for buffers, be a global_buffer), so a wrong offset is an error here, not a silent misread by the kernel.
"""
import json
import subprocess

import numpy as np

# numpy dtype of an input array -> launch-spec buffer type (docs/emulator.md, "Launch spec").
SPEC_DTYPE = {"float32": "f32", "float16": "f16", "int32": "i32", "uint32": "u32", "int8": "i8", "uint8": "u8",
              "int64": "i64", "uint64": "u64", "int16": "i16"}


class Buffer:
    """A buffer field: `array` is the input (None for an output), `dtype` the spec type (bf16 is uint16 storage)."""

    def __init__(self, name, dtype, count=None, array=None, output=False, inout=False, guard=None):
        self.name, self.dtype, self.array, self.output, self.inout = name, dtype, array, output, inout
        self.guard = guard  # bytes mapped (and logged when read) around it: for kernels that over-read
        self.count = count if count is not None else int(array.size)


class Value:
    def __init__(self, name, value, type_="u32"):
        self.name, self.value, self.type = name, value, type_


def inspect_args(asmevo, co_file, kernel):
    """The kernel's explicit arguments as the metadata lists them (asmevo inspect --json)."""
    out = subprocess.run([asmevo, "inspect", "--json", co_file], check=True, stdout=subprocess.PIPE, text=True).stdout
    for co in json.loads(out)["code_objects"]:
        for k in co["kernels"]:
            if k["name"] == kernel:
                return [a for a in k["args"] if not a["hidden"]]
    raise SystemExit(f"error: no kernel {kernel} in {co_file}")


def build_spec(asmevo, co_file, kernel, grid, block, fields, dynamic_lds=0, write_npy=None):
    """A launch spec (a dict, written as JSON, which is YAML) for `kernel`.

    fields: {struct byte offset: Buffer | Value}. write_npy(name, array) -> path stores an input array.
    """
    args = inspect_args(asmevo, co_file, kernel)
    by_offset = {a["offset"]: a for a in args}
    end = max(a["offset"] + a["size"] for a in args)
    # The host struct may be longer than what this kernel's metadata declares (a field the kernel does not
    # read: e.g. GQA for a kernel built for one ratio); such a field cannot be passed and is reported.
    dropped = [f"{f.name} (+{off})" for off, f in fields.items() if off >= end]
    fields = {off: f for off, f in fields.items() if off < end}
    for off, f in fields.items():
        a = by_offset.get(off)
        if a is None:
            raise SystemExit(f"error: {kernel}: field {f.name} at +{off}: no argument starts there in the metadata")
        want = 8 if isinstance(f, Buffer) or f.type in ("u64", "i64") else 4
        if a["size"] != want:
            raise SystemExit(f"error: {kernel}: field {f.name} at +{off} is {want} bytes, the metadata's {a['name']} is {a['size']}")
        if isinstance(f, Buffer) and a["value_kind"] != "global_buffer":
            raise SystemExit(f"error: {kernel}: field {f.name} at +{off} is a buffer, the metadata's {a['name']} is {a['value_kind']}")
    spec_args = []
    for i, a in enumerate(args):
        f = fields.get(a["offset"])
        label = f"{a['name']}_{a['offset']}"
        if isinstance(f, Buffer):
            e = {"name": f.name, "buffer": f.dtype, "count": f.count}
            if f.guard is not None:
                e["guard"] = f.guard
            if f.output:
                e["output"] = True
            else:
                e["init"] = {"file": write_npy(f.name, f.array)}
                if f.inout:
                    e["inout"] = True
            spec_args.append(e)
        elif isinstance(f, Value):
            spec_args.append({"name": f.name, "value": str(f.value), "type": f.type})
        elif a["value_kind"] == "global_buffer":
            spec_args.append({"name": label, "pointer": None})
        else:  # padding (AITer's p2/p3, some listed as one 8- or 12-byte argument) or a field left zero
            spec_args.append({"name": label, "value": "0", "type": "pad"})
    spec = {"kernel": kernel, "grid": list(grid), "block": list(block), "dynamic_lds": dynamic_lds, "seed": 1,
            "args": spec_args}
    return spec, dropped


def struct16(*names):
    """Byte offsets of an AITer KernelArgs struct whose every field takes 16 bytes (pointer + p2, u32/f32 + p3)."""
    return {n: 16 * i for i, n in enumerate(names)}


# bf16 as NumPy uint16 storage: round to nearest even (what torch's .to(bfloat16) does).
def to_bf16(x):
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r


def from_bf16(b):
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
