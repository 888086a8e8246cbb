"""Fused MoE, one stage, fp8 block-scaled weights (hsa/gfx942/fmoe/silu), AITer's fmoe_fp8_blockscale_g1u1 with a
bf16 input ("a16": the kernel quantises X itself; aiter/fused_moe.py passes an empty a1_scale).

Launch (csrc/py_itfs_cu/asm_fmoe.cu, FMoeKernel::launch_kernel<1, 2>, not persistent, flat_mode 0): grid
(ceil(inter_dim / sub_GU), sub_X_cnt = sorted_expert_ids.size(0), 1), block 256; sub_GU 128, block_size_M 16
(hsa/gfx942/fmoe/silu/fmoe_bf16_blockscaleBf16_g1u1_silu.csv). KernelArgs, 16 bytes a field: O, X, GU (w1),
XC (num_valid_ids; the metadata calls this slot "U"), D (w2), XQ, GUQ (w1 block scales), DQ (w2 block scales),
SMQ, STP (sorted token ids), SW (sorted weights), SEP (sorted expert ids), dim, inter_dim, token_cnt,
eprt_cnt, Xs = dim*2, GUs = dim, Ds = inter_dim, Os = dim*2, eGUs = 2*dim*inter_dim (g1u1), eDs =
dim*inter_dim, eGUQs, eDQs (scale strides per expert, bytes), eSMQs = inter_dim*4, topk, total_tgs 0, ps_deno =
ceil(inter_dim / sub_GU). The kernel adds its partial sums into O with global_atomic_pk_add_bf16, so O starts
zeroed (moe_sorting zeroes moe_buf).
Inputs as op_tests/test_moe_blockscale.py: w1 [E, 2*inter, dim], w2 [E, dim, inter] quantised per 128x128 block
(scale = amax / 240, fp8 e4m3fnuz), then shuffle_weight(w, (16, 16)) (aiter/ops/shuffle.py); sorting as
op_tests/test_moe_sorting.py's run_torch_moe_sorting (ids topk_slot << 24 | token, padding topk << 24 | tokens).
Reference: torch_moe_blockscale fed X quantised per 1x128, as AITer checks these bf16-input kernels (its MoE
tuner's xbf16 tasks): sum over the top-k experts of weight * (silu(xq w_gate^T) * (xq w_up^T)) w2^T; O@model also
quantises the activation per 1x128 before w2, as the kernel does.

Findings (bench/aiter/README.md, docs/emulator.md "AITer check"): 16x128_pf3 has none of the vmcnt/lgkmcnt waits
its generator gives its siblings (its 28 `s_waitcnt 0xcf7f` are the no-op placeholders every sibling carries next
to real waits): the emulator stops at its first unguarded read, rightly; with the 225 missing waits inserted it runs
and matches the kernel-numerics model. 16x256 races on LDS between waves (RACE below): run in order it is 16 % off;
interleaved it matches the kernel-numerics model (0.31 % of max |O|).
"""
import numpy as np

from families.case import Case
from families.fp8 import encode_e4m3fnuz, quantize_rowmax, round_e4m3fnuz
from kernarg import Buffer, Value, from_bf16, struct16, to_bf16

ARGS = struct16("O", "X", "GU", "XC", "D", "XQ", "GUQ", "DQ", "SMQ", "STP", "SW", "SEP", "dim", "inter_dim",
                "token_cnt", "eprt_cnt", "Xs", "GUs", "Ds", "Os", "eGUs", "eDs", "eGUQs", "eDQs", "eSMQs", "topk",
                "total_tgs", "ps_deno")
BLK = 128


def block_quant(w):
    """[E, N, K] -> fp8 values, scales [E, N/128, K/128] (per 128x128 block, amax / 240)."""
    e, n, k = w.shape
    b = w.reshape(e, n // BLK, BLK, k // BLK, BLK)
    scale = np.abs(b).max(axis=(2, 4)) / 240
    q = round_e4m3fnuz(b / scale[:, :, None, :, None])
    return q.reshape(e, n, k), scale.astype(np.float32)


def quantize_blocks(v):
    """[.., n] -> fp8 e4m3fnuz per 1x128 block (scale amax / 240), dequantised: the kernel's and pertoken_quant's."""
    return quantize_rowmax(np.asarray(v).reshape(*np.shape(v)[:-1], -1, BLK)).reshape(np.shape(v))


def block_magnitudes(rng, e, n, k):
    m = 2.0 ** rng.uniform(-2, 2, (e, n // BLK, k // BLK))
    return np.repeat(np.repeat(m, BLK, axis=1), BLK, axis=2)


def shuffle_16x16(w8):
    """shuffle_weight(layout=(16, 16)) for 1-byte elements: [.., N, K] -> (N/16, K/32, 2, 16 rows, 16 bytes)."""
    e, n, k = w8.shape
    return w8.reshape(e, n // 16, 16, k // 32, 2, 16).transpose(0, 1, 3, 4, 2, 5).reshape(e, n, k).copy()


def moe_sorting(topk_ids, topk_w, experts, block_m):
    m, topk = topk_ids.shape
    padded = topk_ids.size + experts * block_m - topk
    blocks = -(-padded // block_m)
    ids = np.full(padded, (topk << 24) | m, np.int32)
    weights = np.zeros(padded, np.float32)
    eids = np.full(blocks, -1, np.int32)
    pos = bpos = 0
    for e in range(experts):
        tok, slot = np.nonzero(topk_ids == e)
        nb = -(-len(tok) // block_m)
        ids[pos:pos + len(tok)] = (slot << 24) | tok
        weights[pos:pos + len(tok)] = topk_w[tok, slot]
        eids[bpos:bpos + nb] = e
        pos += nb * block_m
        bpos += nb
    return ids, weights, eids, np.array([pos, m], np.int32)


def fmoe_blockscale_case(name, co, kernel, tokens, dim, inter, experts, topk, sub_gu=128, block_m=16, **case_options):
    def build(rng):
        x = to_bf16(rng.standard_normal((tokens, dim)).astype(np.float32))
        # each 128x128 block at its own magnitude (2^-2 .. 2^2), so a scale applied to the wrong block shows
        w1q, s1 = block_quant(rng.standard_normal((experts, 2 * inter, dim)) / 10 * block_magnitudes(rng, experts, 2 * inter, dim))
        w2q, s2 = block_quant(rng.standard_normal((experts, dim, inter)) / 10 * block_magnitudes(rng, experts, dim, inter))
        score = rng.standard_normal((tokens, experts))
        topk_ids = np.argsort(-score, axis=1)[:, :topk].astype(np.int32)
        p = np.exp(np.take_along_axis(score, topk_ids, 1))
        topk_w = (p / p.sum(1, keepdims=True)).astype(np.float32)
        ids, sw, eids, valid = moe_sorting(topk_ids, topk_w, experts, block_m)
        w1b, w2b = shuffle_16x16(encode_e4m3fnuz(w1q)), shuffle_16x16(encode_e4m3fnuz(w2q))
        V = Value
        f = {
            ARGS["O"]: Buffer("O", "bf16", array=np.zeros(tokens * dim, np.uint16), inout=True),
            # the kernel prefetches the next K chunk of X, w1 and w2 past their ends (within the V#'s
            # num_records, kept from an advancing base): mapped guard bytes there, as a real allocator's are
            ARGS["X"]: Buffer("X", "bf16", array=x, guard=1 << 20),
            ARGS["GU"]: Buffer("w1", "u8", array=w1b, guard=1 << 20),
            ARGS["XC"]: Buffer("num_valid_ids", "i32", array=valid),
            ARGS["D"]: Buffer("w2", "u8", array=w2b, guard=1 << 20),
            ARGS["GUQ"]: Buffer("w1_scale", "f32", array=s1.reshape(experts, -1)),
            ARGS["DQ"]: Buffer("w2_scale", "f32", array=s2.reshape(experts, -1)),
            ARGS["STP"]: Buffer("sorted_ids", "i32", array=ids),
            ARGS["SW"]: Buffer("sorted_weights", "f32", array=sw),
            ARGS["SEP"]: Buffer("sorted_expert_ids", "i32", array=eids),
            ARGS["dim"]: V("dim", dim), ARGS["inter_dim"]: V("inter_dim", inter),
            ARGS["token_cnt"]: V("token_cnt", tokens), ARGS["eprt_cnt"]: V("eprt_cnt", experts),
            ARGS["Xs"]: V("Xs", dim * 2), ARGS["GUs"]: V("GUs", dim), ARGS["Ds"]: V("Ds", inter),
            ARGS["Os"]: V("Os", dim * 2), ARGS["eGUs"]: V("eGUs", 2 * dim * inter), ARGS["eDs"]: V("eDs", dim * inter),
            ARGS["eGUQs"]: V("eGUQs", s1[0].size * 4), ARGS["eDQs"]: V("eDQs", s2[0].size * 4),
            ARGS["eSMQs"]: V("eSMQs", inter * 4), ARGS["topk"]: V("topk", topk),
            ARGS["total_tgs"]: V("total_tgs", 0), ARGS["ps_deno"]: V("ps_deno", -(-inter // sub_gu)),
        }
        inputs = {"x": x, "w1q": w1q, "s1": s1, "w2q": w2q, "s2": s2, "topk_ids": topk_ids, "topk_w": topk_w}
        grid = (-(-inter // sub_gu), len(eids), 1)
        return {"grid": grid, "block": (256, 1, 1), "fields": f, "inputs": inputs, "outputs": ["O"],
                "decode": {"O": from_bf16}}

    def reference(inp):
        x = from_bf16(inp["x"]).astype(np.float64)
        rep = lambda s: np.repeat(np.repeat(s, BLK, axis=1), BLK, axis=2)  # noqa: E731
        w1 = inp["w1q"] * rep(inp["s1"])
        w2 = inp["w2q"] * rep(inp["s2"])

        def moe(xs, act_quant):
            out = np.zeros((tokens, dim))
            for t in range(tokens):
                for slot in range(topk):
                    e = inp["topk_ids"][t, slot]
                    h = w1[e] @ xs[t]
                    g, u = h[:inter], h[inter:]
                    out[t] += inp["topk_w"][t, slot] * (w2[e] @ act_quant(g / (1 + np.exp(-g)) * u))
            return out
        # AITer checks this kernel (bf16 X, quantised inside it) against torch_moe_blockscale fed with X quantised
        # per 1x128 (csrc/ck_gemm_moe_2stages_codegen/gemm_moe_tune.py, the xbf16 tasks: a1_qt, a1_scale), at
        # op_tests/test_moe_blockscale.py's checkAllclose(rtol=0.05, atol=0.05).
        xq = quantize_blocks(x)
        # The kernel's numerics (its code: amax/240 scale, v_cvt_pk_fp8_f32): also the activation quantised per
        # 1x128 before the down GEMM. Evidence, not the verdict.
        return {"O": (moe(xq, lambda a: a), 0.05, 0.05), "O@model": (moe(xq, quantize_blocks), 0.05, 0.05)}

    return Case(name, co, kernel, f"fmoe g1u1 silu, bf16 x, fp8 128x128-block weights, tokens {tokens}, dim {dim}, "
                f"inter {inter}, experts {experts}, topk {topk}", build, reference, **case_options)


CO_16X128 = "gfx942/fmoe/silu/fmoe_bf16_a16_blockscaleFp8_g1u1_vs_silu_1tg_16x128_pf3.co"
KERNEL_16X128 = "_ZN5aiter55fmoe_bf16_a16_blockscaleFp8_g1u1_vs_silu_1tg_16x128_pf3E"
CO_16X256 = "gfx942/fmoe/silu/fmoe_bf16_a16_blockscaleFp8_g1u1_vs_silu_1tg_16x256.co"
KERNEL_16X256 = "_ZN5aiter51fmoe_bf16_a16_blockscaleFp8_g1u1_vs_silu_1tg_16x256E"
SHAPE = dict(tokens=8, dim=256, inter=256, experts=4, topk=2)
# 16x256's waves exchange the quantised X chunk through LDS with no s_barrier between a wave's ds_write_b128 (0x3458)
# and another wave's ds_read_b128 of it (0x3538): correct on hardware only while the four waves stay within about
# 40 instructions of each other, which waves released by one barrier do. The emulator's default schedule (each wave
# until its next barrier) runs wave 0 past the read before wave 1 writes.
RACE = ("LDS race between waves (ds_write_b128 at 0x3458, ds_read_b128 at 0x3538, no s_barrier between: "
        "case fmoe_a16_blockscale_16x256_races); waves run one instruction each in turn, as waves released by one "
        "barrier do on hardware")

CASES = [
    fmoe_blockscale_case("fmoe_a16_blockscale_16x128", CO_16X128, KERNEL_16X128, **SHAPE),
    # the same object with the 225 waits `asmevo check` finds missing inserted: what it computes once its loads land
    fmoe_blockscale_case("fmoe_a16_blockscale_16x128_waited", CO_16X128, KERNEL_16X128, **SHAPE, add_waits=True),
    fmoe_blockscale_case("fmoe_a16_blockscale_16x256", CO_16X256, KERNEL_16X256, **SHAPE, sub_gu=256,
                         schedule="interleaved", why=RACE),
    fmoe_blockscale_case("fmoe_a16_blockscale_16x256_races", CO_16X256, KERNEL_16X256, **SHAPE, sub_gu=256,
                         lds_races=True),
]
