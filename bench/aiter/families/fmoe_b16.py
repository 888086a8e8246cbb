"""Fused MoE, one stage, bf16 throughout (hsa/gfx942/fmoe_b16.co, kernel fmoe_kernel_func): AITer's `fmoe`, what
asm_moe (aiter/fused_moe_bf16_asm.py) calls with no scales ("pure bf16"). No quantisation: its output is compared
with the operator directly.

Launch (csrc/py_itfs_cu/asm_fmoe.cu, the `fmoe` entry point: FMoeKernel("fmoe_kernel_func", "fmoe_b16.co") with the
constructor's default sub_GU 512, no persistent TGs, flat_mode 0, launch_kernel<2, 2>): grid (ceil(inter_dim / 512),
sorted_expert_ids.size(0), 1), block 256. KernelArgs as families/fmoe.py (the metadata names the fields G, U, hdim,
batch, eprt; it ends at topk, so total_tgs and ps_deno are not passed); I_elemSize 2: Xs = GUs = dim*2, Ds =
inter*2, Os = dim*2, eGUs = GUs*inter (g1u0: w1 is [E, inter, dim]), eDs = Ds*dim, eGUQs = eDQs = 0, eSMQs = inter*4;
the XQ/GUQ/DQ/SMQ pointers null. Sorting: moe_sorting_ck with BLOCK_SIZE_M 32; O starts zeroed (moe_sorting zeroes
moe_buf; the kernel adds into it with global_atomic_pk_add_bf16).
Inputs as op_tests/test_moe.py test_fmoe (dtype bf16, quant "No", g1u0): x, w1, w2 randn (unscaled), topk weights a
softmax of a random score; weights shuffled by shuffle_weight(w) with its default layout (16, 16) for 2-byte elements
(aiter/ops/shuffle.py: view [E, N/16, 16, K/32, 4, 8], permute (0, 1, 3, 4, 2, 5)). Reference: torch_moe (aiter/
fused_moe.py) in float64: sum over the top-k experts of weight * silu(x w1^T) w2^T, checked as test_fmoe does,
checkAllclose(rtol=0.01, atol=100). O@model: the kernel's numerics as its instructions imply (bf16 MFMAs, so the
activation rounded to bf16 before w2; each expert's contribution added into O in bf16 by the atomic), at rtol 0.01
and atol 1e-3 of max |O| (evidence, not the verdict). O@silu: what test_moe.py compares it with (its default
activation), shown because the kernel computes GELU's tanh form (gelu_tanh below).

Findings (bench/aiter/README.md): the shipped object stops at a missing vmcnt wait; with the 12 missing waits
inserted it races on LDS between waves (RACE); run interleaved it matches the operator (0.33 % of max |O|). dim
must exceed 256 (SHAPE).
"""
import math

import numpy as np

from families.case import Case
from families.fmoe import ARGS, moe_sorting
from kernarg import Buffer, Value, from_bf16, to_bf16

SUB_GU = 512  # FMoeKernel's default: the `fmoe` entry point passes none
BLOCK_M = 32  # aiter/fused_moe_bf16_asm.py BLOCK_SIZE_M


def shuffle_bf16(w):
    """shuffle_weight(layout=(16, 16)) for 2-byte elements: [E, N, K] -> (N/16, K/32, 4, 16 rows, 8 elements)."""
    e, n, k = w.shape
    return w.reshape(e, n // 16, 16, k // 32, 4, 8).transpose(0, 1, 3, 4, 2, 5).reshape(e, n, k).copy()


# The kernel's activation (its code at 0x2f74..0x2f88 and each use, e.g. 0x4440..0x44f4): g / (1 + 2^(log2(e) *
# (-1.59577 g - 0.0713548 g^3))), i.e. GELU's tanh form x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)), not SiLU.
def gelu_tanh(g):
    return 0.5 * g * (1 + np.tanh(np.sqrt(2 / np.pi) * (g + 0.044715 * g ** 3)))


gelu_erf = np.vectorize(lambda g: 0.5 * g * (1 + math.erf(g / math.sqrt(2))))  # F.gelu: ActivationType.Gelu


def bf16(a):
    return from_bf16(to_bf16(a)).astype(np.float64)


def fmoe_b16_case(name, tokens, dim, inter, experts, topk, **case_options):
    def build(rng):
        x = to_bf16(rng.standard_normal((tokens, dim)).astype(np.float32))
        w1 = to_bf16(rng.standard_normal((experts, inter, dim)).astype(np.float32))
        w2 = to_bf16(rng.standard_normal((experts, dim, inter)).astype(np.float32))
        score = rng.standard_normal((tokens, experts))
        topk_ids = np.argsort(-score, axis=1)[:, :topk].astype(np.int32)
        p = np.exp(np.take_along_axis(score, topk_ids, 1))
        topk_w = (p / p.sum(1, keepdims=True)).astype(np.float32)
        ids, sw, eids, valid = moe_sorting(topk_ids, topk_w, experts, BLOCK_M)
        V = Value
        f = {
            ARGS["O"]: Buffer("O", "bf16", array=np.zeros(tokens * dim, np.uint16), inout=True),
            # guard bytes past X, w1, w2 as in families/fmoe.py: any read there is printed (over_reads)
            ARGS["X"]: Buffer("X", "bf16", array=x, guard=1 << 20),
            ARGS["GU"]: Buffer("w1", "bf16", array=shuffle_bf16(w1), guard=1 << 20),
            ARGS["XC"]: Buffer("num_valid_ids", "i32", array=valid),
            ARGS["D"]: Buffer("w2", "bf16", array=shuffle_bf16(w2), guard=1 << 20),
            ARGS["STP"]: Buffer("sorted_ids", "i32", array=ids),
            ARGS["SW"]: Buffer("sorted_weights", "f32", array=sw),
            ARGS["SEP"]: Buffer("sorted_expert_ids", "i32", array=eids),
            ARGS["dim"]: V("dim", dim), ARGS["inter_dim"]: V("inter_dim", inter),
            ARGS["token_cnt"]: V("token_cnt", tokens), ARGS["eprt_cnt"]: V("eprt_cnt", experts),
            ARGS["Xs"]: V("Xs", dim * 2), ARGS["GUs"]: V("GUs", dim * 2), ARGS["Ds"]: V("Ds", inter * 2),
            ARGS["Os"]: V("Os", dim * 2), ARGS["eGUs"]: V("eGUs", dim * 2 * inter), ARGS["eDs"]: V("eDs", inter * 2 * dim),
            ARGS["eGUQs"]: V("eGUQs", 0), ARGS["eDQs"]: V("eDQs", 0), ARGS["eSMQs"]: V("eSMQs", inter * 4),
            ARGS["topk"]: V("topk", topk),
            ARGS["total_tgs"]: V("total_tgs", 0), ARGS["ps_deno"]: V("ps_deno", -(-inter // SUB_GU)),
        }
        inputs = {"x": x, "w1": w1, "w2": w2, "topk_ids": topk_ids, "topk_w": topk_w}
        return {"grid": (-(-inter // SUB_GU), len(eids), 1), "block": (256, 1, 1), "fields": f, "inputs": inputs,
                "outputs": ["O"], "decode": {"O": from_bf16}}

    def reference(inp):
        x, w1, w2 = (from_bf16(inp[k]).astype(np.float64) for k in ("x", "w1", "w2"))

        def moe(act, add_round=lambda a: a):
            out = np.zeros((tokens, dim))
            for t in range(tokens):
                for slot in range(topk):
                    e = inp["topk_ids"][t, slot]
                    out[t] = add_round(out[t] + inp["topk_w"][t, slot] * (w2[e] @ act(w1[e] @ x[t])))
            return out
        exact = moe(gelu_erf)
        model = moe(lambda g: bf16(gelu_tanh(g)), bf16)
        return {"O": (exact, 0.01, 100.0), "O@model": (model, 0.01, 1e-3 * float(np.abs(model).max())),
                "O@silu": (moe(lambda g: g / (1 + np.exp(-g))), 0.01, 100.0)}

    return Case(name, "gfx942/fmoe_b16.co", "fmoe_kernel_func", f"fmoe g1u0 gelu (tanh form), bf16 x and weights, no quantisation, "
                f"tokens {tokens}, dim {dim}, inter {inter}, experts {experts}, topk {topk}", build, reference,
                **case_options)


# dim 512: the down loop writes O two 128-column chunks behind (software pipelined) and starts stepping O (s59 = 0x100,
# `s_cmp_ge_u32 s80, 0x100; s_cselect_b32 s59, 0x100, s59` at 0x5970) only once s80, the chunk's column, reaches 256,
# so with dim <= 256 the last chunks all land on columns 0..127 (case fmoe_b16_g1u0_dim256_waited). AITer's test uses
# dim 4096.
SHAPE = dict(tokens=8, dim=512, inter=512, experts=4, topk=2)
# The shipped object's `s_waitcnt vmcnt(30)` at 0x5790 leaves the buffer_load_dwordx4 a[48:51] of 0x4438 outstanding
# (29 VMEM ops issued after it) and the MFMA at 0x5864 reads it: the emulator stops there (case fmoe_b16_g1u0).
# With the waits `asmevo check` finds missing inserted, each wave zeroes its output staging rows in LDS (ds_write_b64
# at 0x55bc) where other waves read the activation (ds_read_b64 at 0x5374), with no s_barrier between.
RACE = ("LDS race between waves (ds_read_b64 at 0x5374, ds_write_b64 at 0x55bc, no s_barrier between: case "
        "fmoe_b16_g1u0_waited_races); waves run one instruction each in turn, as waves released by one barrier do")
CASES = [
    fmoe_b16_case("fmoe_b16_g1u0", **SHAPE),
    fmoe_b16_case("fmoe_b16_g1u0_waited", **SHAPE, add_waits=True),
    fmoe_b16_case("fmoe_b16_g1u0_waited_races", **SHAPE, add_waits=True, lds_races=True),
    fmoe_b16_case("fmoe_b16_g1u0_waited_interleaved", **SHAPE, add_waits=True, schedule="interleaved", why=RACE),
    # outside the shapes the kernel handles (above): kept so the finding can be reproduced
    fmoe_b16_case("fmoe_b16_g1u0_dim256_waited", **{**SHAPE, "dim": 256}, add_waits=True, schedule="interleaved",
                  why=RACE),
]
